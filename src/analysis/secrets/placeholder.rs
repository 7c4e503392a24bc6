//! Values that stand for a secret without being one: placeholders, references to the environment
//! or a secret store, documented example keys, and shapes no generated secret has (words,
//! identifiers, paths, URLs, dates).

/// Case-insensitive words that mark a placeholder (`YOUR_KEY_HERE`, `example-password`). They
/// count among other words only (see [`is_wordy`]): a random value holds `fake` or `Test` by
/// chance about once in ten thousand, and a real secret stays a secret.
const MARKERS: &[&str] = &[
    "your",
    "example",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "dummy",
    "sample",
    "redacted",
    "replace",
    "insert",
    "_here",
    "-here",
    "notreal",
    "not-a-real",
    "not_a_real",
    "fake",
    "test",
    "mock",
    "todo",
    "fixme",
    "xxxx",
];

/// Case-insensitive fragments of a mask or a reference to a secret store or the environment: a
/// placeholder wherever they are in a value. Templates with punctuation that passwords use too
/// (`<`, `...`, `${`, `{{`) are read for their whole shape instead (see [`is_template`]).
const TEMPLATES: &[&str] = &["****", "secrets.", "environ", "process.env", "getenv"];

/// Keys that are public or reach only test data: Stripe's test-mode and publishable keys.
const NOT_SECRET_PREFIXES: &[&str] = &["sk_test_", "rk_test_", "pk_test_", "pk_live_"];

/// Example values from providers' documentation, each a suffix of the value that shows it (the
/// provider prefix left off, so that no scanner reads this file as holding a token).
const DOCUMENTED: &[&str] = &[
    // AWS: the access key ids and secret keys of the IAM and CLI guides.
    "IOSFODNN7EXAMPLE",
    "I44QH8DHBEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    // GitHub: the OAuth and GitHub App guides' access and refresh tokens.
    "16C7e42F292c6912E7710c838347Ae178B4a",
    "1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498",
    // Firebase: the web configuration's example API key.
    "SyDOCAbC123dEf456GhI789jKl012-MnO",
    // OAuth 2.0 (RFC 6749, RFC 6750) and OpenID Connect Core: example tokens and credentials.
    "2YotnFZFEjr1zCsicMWpAA",
    "tGzv3JOkF0XG5Qx2TlKWIA",
    "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
    "mF_9.B5f-4.1JqM",
    "h480djs93hd8",
    "SlAV32hkKG",
    "SplxlOBeZQQYbYS6WxSbIA",
    // jwt.io: the signature of the debugger's example token.
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// A placeholder, a reference, a documented example, or a string too regular to be random
/// (one repeated character, a run like `12345678`, a repeated pattern like `abcabcabc`).
/// Punctuation alone makes none: a generated password holds `<`, `>`, `...`, `${` or a leading
/// `(` by chance (about a third of random 16-character printable passwords hold one of them);
/// only the shape of a template or a reference counts.
pub fn is_placeholder(value: &str) -> bool {
    if value.is_empty() || DOCUMENTED.iter().any(|d| value.ends_with(d)) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    TEMPLATES.iter().any(|m| lower.contains(m))
        || NOT_SECRET_PREFIXES.iter().any(|p| value.starts_with(p))
        || (MARKERS.iter().any(|m| lower.contains(m)) && is_wordy(value))
        || is_template(value)
        || is_repetitive(value.as_bytes())
}

/// The shape of a template, a reference or an elided value:
/// - `<…>` around a word: `<token>`, `<your-api-key>`, `sk-<KEY>`;
/// - `...` or `…` at either end (`sk-...`, `eyJhbGciOi...`), between words (`your...key`), or
///   in a value that is short without it (`abc...xyz`);
/// - `{{ … }}` (Helm, Jinja, Actions), `${NAME}`, `${NAME:-…}`, `$(command …)`, `%(name)s`;
/// - a reference to the environment: `$NAME`, `$env:NAME`, `%NAME%`, `env.NAME`, `ENV['NAME']`;
/// - a value made of format fields around a name: `{password}`, `{0}`, `{host}-{token}`.
pub fn is_template(value: &str) -> bool {
    encloses_word(value)
        || is_elided(value)
        || is_reference(value)
        || mustache(value)
        || value
            .match_indices("${")
            .any(|(i, _)| expansion(&value[i + 2..], i == 0))
        || value
            .match_indices("$(")
            .any(|(i, _)| substitution(&value[i + 2..]))
        || value
            .match_indices("%(")
            .any(|(i, _)| format_field(&value[i + 2..]))
        || env_lookup(value)
}

/// `{{ name }}` (Helm, Jinja, Actions): its first word reads as a name (`{{ .Values.token }}`,
/// `{{ password | default("") }}`, `${{ secrets.TOKEN }}`).
fn mustache(value: &str) -> bool {
    let Some(open) = value.find("{{") else {
        return false;
    };
    let rest = &value[open + 2..];
    let Some(close) = rest.find("}}") else {
        return false;
    };
    let first = rest[..close]
        .trim()
        .split([' ', '|', '('])
        .next()
        .unwrap_or_default()
        .trim_start_matches(['.', '$']);
    looks_like_name(first)
}

/// `<word>` in the value: 3 letters or more that read as a name (`<TOKEN>`, `<your-token>`,
/// `<api_key>`), with only a short or worded prefix or suffix around (`sk_live_<KEY>`) or words
/// inside (`<your-api-key>`). Random characters between `<` and `>` (`<mP2>`), or a short run in
/// a random value (`RAbz<NPO>fy42+<d`), do not.
fn encloses_word(value: &str) -> bool {
    value.match_indices('<').any(|(i, _)| {
        let rest = &value[i + 1..];
        let Some(close) = rest.find('>') else {
            return false;
        };
        let inner = &rest[..close];
        // Around it, a short or a worded prefix or suffix (`<TOKEN>`, `sk-<KEY>`,
        // `sk_live_<KEY>`), or words inside (`x9<your-api-key>`).
        let outside = format!("{}{}", &value[..i], &rest[close + 1..]);
        let most = outside.len() <= 4 || looks_like_name(&outside);
        let words = inner
            .split(['-', '_', ' '])
            .filter(|w| w.len() >= 2)
            .count()
            >= 2;
        inner.bytes().filter(u8::is_ascii_alphabetic).count() >= 3
            && (most || words)
            && inner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b' '))
            && looks_like_name(&inner.replace(' ', "-"))
    })
}

/// Elided with `...` or `…` (see [`is_template`]).
fn is_elided(value: &str) -> bool {
    let ellipsis = |s: &str| s.contains("...") || s.contains('…');
    if !ellipsis(value) {
        return false;
    }
    let trimmed = value.trim_matches(['.', '…']);
    if trimmed.len() < value.len() && !ellipsis(trimmed) {
        // At an end: `sk-...`, `eyJhbGciOi...`, `…4f2a`.
        return true;
    }
    let parts: Vec<&str> = value
        .split("...")
        .flat_map(|p| p.split('…'))
        .map(|p| p.trim_matches('.'))
        .filter(|p| !p.is_empty())
        .collect();
    let words = parts.iter().all(|p| looks_like_name(p));
    let short = parts.iter().map(|p| p.len()).sum::<usize>() <= 8;
    words || short
}

/// A reference to a variable as the whole value: `$NAME`, `$env:NAME` (PowerShell), `%NAME%`
/// (Windows).
fn is_reference(value: &str) -> bool {
    let identifier = |s: &str| {
        s.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    if let Some(rest) = value.strip_prefix('$') {
        let rest = rest
            .strip_prefix("env:")
            .or_else(|| rest.strip_prefix("ENV:"))
            .unwrap_or(rest);
        // `$GITHUB_TOKEN`, `$apiKey`; not `$fk4TWbMLdP_`, a password that opens with `$`.
        let upper = rest
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        return identifier(rest) && (upper || looks_like_name(rest));
    }
    if let Some(inner) = value.strip_prefix('%').and_then(|v| v.strip_suffix('%')) {
        return !inner.is_empty()
            && inner
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    }
    value.starts_with('{') && format_fields_only(value)
}

/// Format string fields around a name or a number (`{password}`, `{0}`, `{config.password}`,
/// the last one's `}` maybe cut off), joined by punctuation only: `{host}-{token}`.
fn format_fields_only(value: &str) -> bool {
    let field = |inner: &str| {
        inner.is_empty() || inner.bytes().all(|b| b.is_ascii_digit()) || looks_like_name(inner)
    };
    let mut rest = value;
    while let Some(open) = rest.find('{') {
        if rest[..open].bytes().any(|b| b.is_ascii_alphanumeric()) {
            return false;
        }
        let after = &rest[open + 1..];
        let close = after.find('}').unwrap_or(after.len());
        if !field(&after[..close]) {
            return false;
        }
        rest = after.get(close + 1..).unwrap_or_default();
    }
    !rest.bytes().any(|b| b.is_ascii_alphanumeric())
}

/// After `${` (at the start of the value when `at_start`): `{` (`${{ … }}`), or a name then
/// the end of the expansion (`${NAME}`), or one of its operators and a `}` further
/// (`${NAME:-default}`, `${NAME#prefix}`). A random password holds one about once in 10,000.
fn expansion(rest: &str, at_start: bool) -> bool {
    if rest.starts_with('{') {
        return true;
    }
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let first = rest.as_bytes().first().copied().unwrap_or(b'0');
    let closed = || rest[name..].contains('}');
    name > 0
        && (first.is_ascii_alphabetic() || first == b'_')
        && match rest.as_bytes().get(name) {
            // Cut off where a bare value ends, at the `}`: only as the whole value.
            None => at_start,
            Some(b'}') => true,
            Some(b':' | b'-' | b'=' | b'?' | b'+' | b'#' | b'%' | b'/' | b'[' | b'^' | b',') => {
                closed()
            }
            Some(_) => false,
        }
}

/// After `$(`: a command of 2 letters or more, then a blank or the closing parenthesis, which
/// comes: `$(cat /run/secrets/token)`, `$(pass show db)`.
fn substitution(rest: &str) -> bool {
    let command = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'))
        .count();
    let letters = rest[..command]
        .bytes()
        .filter(u8::is_ascii_alphabetic)
        .count();
    letters >= 2
        && matches!(rest.as_bytes().get(command), Some(b' ' | b')'))
        && rest[command..].contains(')')
}

/// After `%(`: Python's `%(name)s`.
fn format_field(rest: &str) -> bool {
    let name = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    name > 0
        && rest.as_bytes().get(name) == Some(&b')')
        && rest
            .as_bytes()
            .get(name + 1)
            .is_some_and(u8::is_ascii_alphabetic)
}

/// A lookup in the environment at the start of the value or after punctuation: `env.NAME`,
/// `ENV['NAME']`, `env("NAME")`, `${{ env.NAME }}`.
fn env_lookup(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    lower.match_indices("env").any(|(i, _)| {
        let boundary = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
        let next = lower.as_bytes().get(i + 3).copied();
        let then = lower.as_bytes().get(i + 4).copied();
        boundary
            && match next {
                Some(b'.') => then.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_'),
                Some(b'[' | b'(') => then.is_some_and(|b| matches!(b, b'"' | b'\'' | b':')),
                _ => false,
            }
    })
}

/// A provider token's body that stands for one: documented, repetitive or sequential, or a
/// marker word (`your`, `example`, `test`…) among words (`YourStripeSecretKeyGoesHere00`). A
/// marker alone does not count: a random body of 160 characters holds `Test` or `mock` about
/// once in a thousand, and a real key stays a key.
pub fn is_placeholder_token(body: &str) -> bool {
    if body.is_empty() || DOCUMENTED.iter().any(|d| body.ends_with(d)) {
        return true;
    }
    let lower = body.to_ascii_lowercase();
    let marked = MARKERS.iter().any(|m| lower.contains(m));
    (marked && is_wordy(body)) || is_repetitive(body.as_bytes())
}

/// Words placeholders are written with, besides [`MARKERS`].
const PLACEHOLDER_WORDS: &[&str] = &[
    "my", "me", "a", "the", "for", "of", "to", "with", "this", "will", "not", "real", "work",
    "goes", "put", "enter", "here", "value", "string", "random", "bytes", "api", "key", "keys",
    "token", "secret", "password", "pass", "access", "client", "id", "auth", "bot", "app", "db",
    "user", "admin", "live", "prod", "dev", "ci", "stripe", "github", "slack", "aws", "openai",
    "x",
];

/// Half of the characters or more are in [`MARKERS`] or [`PLACEHOLDER_WORDS`], read greedily
/// (`YourStripeSecretKeyGoesHere00`, `your-api-key`): no random value comes near.
fn is_wordy(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let (mut i, mut in_words) = (0, 0);
    while i < bytes.len() {
        let longest = MARKERS
            .iter()
            .chain(PLACEHOLDER_WORDS)
            .filter(|w| bytes[i..].starts_with(w.as_bytes()))
            .map(|w| w.len())
            .max();
        match longest {
            // One letter alone is no word (`x` runs are).
            Some(len) if len > 1 || bytes[i] == b'x' => {
                in_words += len;
                i += len;
            }
            _ => i += 1,
        }
    }
    in_words * 2 >= bytes.len()
}

/// Longer values are not checked for a repeated pattern (the check is quadratic in the length).
const MAX_PATTERN_CHECK: usize = 512;

/// One character repeated, a short pattern repeated (`abcabcabc`), or a value made mostly of
/// runs (see [`is_sequential`]).
fn is_repetitive(bytes: &[u8]) -> bool {
    let Some(first) = bytes.first() else {
        return true;
    };
    // `secret_abc123def456`: a word, then the sequence.
    let tail = bytes
        .iter()
        .position(|b| matches!(b, b'_' | b'-'))
        .filter(|&at| bytes[..at].iter().all(u8::is_ascii_alphabetic))
        .map_or(&bytes[..0], |at| &bytes[at + 1..]);
    if bytes.iter().all(|b| b == first) || is_sequential(bytes) || is_sequential(tail) {
        return true;
    }
    bytes.len() <= MAX_PATTERN_CHECK
        && (1..=bytes.len() / 3)
            .any(|period| bytes.iter().zip(&bytes[period..]).all(|(a, b)| a == b))
}

/// Rows of a keyboard: `qwerty` and `asdf` are runs too.
const KEYBOARD: &[&[u8]] = &[b"qwertyuiop", b"asdfghjkl", b"zxcvbnm"];

/// Whether `b` follows `a` in the alphabet (in one case), the digits (`9` → `0` included) or a
/// keyboard row.
fn follows(a: u8, b: u8) -> bool {
    let next = match a {
        b'9' => b'0',
        b'z' | b'Z' => return false,
        _ if a.is_ascii_alphanumeric() => a + 1,
        _ => return false,
    };
    let (a, b_lower) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    b == next
        || KEYBOARD
            .iter()
            .any(|row| row.windows(2).any(|w| w == [a, b_lower]))
}

/// Two thirds of the characters or more sit in runs of 3 or more that ascend, descend or
/// repeat, reading every character (`abc123def456`) or every other one (`A1B2C3D4…`, two
/// interleaved runs), each part between separators apart: the shape of a value typed to look like a key. A random value of 12
/// characters holds one such run with a chance near 1%, and then it covers a quarter of it.
pub fn is_sequential(bytes: &[u8]) -> bool {
    if bytes.len() < 6 {
        return false;
    }
    let covered = |part: &[u8], lag: usize| -> usize {
        (0..lag)
            .map(|phase| {
                let seq: Vec<u8> = part.iter().skip(phase).step_by(lag).copied().collect();
                in_runs(&seq)
            })
            .sum()
    };
    // Each part between separators on its own (`SG.<id>.<secret>`), the better reading of each.
    let covered: usize = bytes
        .split(|b| !b.is_ascii_alphanumeric())
        .map(|part| covered(part, 1).max(covered(part, 2)))
        .sum();
    covered * 3 >= bytes.len() * 2
}

/// How many characters of `seq` are in runs of 3 or more of one step: up, down or the same.
fn in_runs(seq: &[u8]) -> usize {
    let step = |a: u8, b: u8| -> Option<i8> {
        if a == b {
            Some(0)
        } else if follows(a, b) {
            Some(1)
        } else if follows(b, a) {
            Some(-1)
        } else {
            None
        }
    };
    let mut covered = 0;
    let mut i = 0;
    while i + 1 < seq.len() {
        let Some(s) = step(seq[i], seq[i + 1]) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j + 1 < seq.len() && step(seq[j], seq[j + 1]) == Some(s) {
            j += 1;
        }
        let len = j - i + 1;
        if len >= 3 {
            covered += len;
        }
        i = j;
    }
    covered
}

/// Words people build a sample password from; a value made only of these, a sequence or a year,
/// and a few symbols is the textbook example of a password (`Password123!`, `StrongPass@2025!`,
/// `Admin@1234`), shown in docs to say what a valid one looks like.
const PASSWORD_WORDS: &[&str] = &[
    "password", "passw0rd", "p@ssw0rd", "p@ssword", "pass", "pwd", "secret", "admin", "root",
    "user", "login", "letmein", "welcome", "hello", "qwerty", "strong", "secure", "super",
    "master", "my", "demo", "example", "sample", "test", "changeit", "default", "summer", "winter",
    "spring", "autumn", "monkey", "dragon", "sunshine", "iloveyou", "abc", "new", "temp", "guest",
    "db", "app", "dev", "prod",
];

/// A sample password: only [`PASSWORD_WORDS`] (any case), digits that run (`123`, `4321`) or
/// make a year (`2025`), and at most 3 symbols, with at least one word.
pub fn is_sample_password(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let (mut i, mut words, mut symbols) = (0, 0, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_digit() {
            let end = i + bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            let digits = &bytes[i..end];
            let year =
                digits.len() == 4 && (digits.starts_with(b"19") || digits.starts_with(b"20"));
            if !(year || digits.len() <= 2 || in_runs(digits) == digits.len()) {
                return false;
            }
            i = end;
        } else if b.is_ascii_alphabetic() || b == b'@' {
            // The longest word here (`p@ssw0rd` spells with a symbol and a digit).
            let Some(word) = PASSWORD_WORDS
                .iter()
                .filter(|w| bytes[i..].starts_with(w.as_bytes()))
                .max_by_key(|w| w.len())
            else {
                if b == b'@' {
                    symbols += 1;
                    i += 1;
                    continue;
                }
                return false;
            };
            words += 1;
            i += word.len();
        } else if b.is_ascii_punctuation() {
            symbols += 1;
            i += 1;
        } else {
            return false;
        }
    }
    words > 0 && symbols <= 3
}

/// Words or an identifier rather than a secret: parts of letters, each maybe followed by a
/// number, whose humps read as words (a third of them at most 1 or 2 letters long, past two),
/// 3 letters long on average in a part (`DatabasePassword`,
/// `prod-db-password`, `GITHUB_TOKEN2`, `auth::InitToken`, `MYTOKEN1`, `Summer2024`). Random
/// letters break case every 2 letters (`kJhGfDsAqWe`); generated secrets mix digits in.
pub fn looks_like_name(value: &str) -> bool {
    !value.is_empty()
        && value.split(['_', '-', '.', ':', '/']).all(|part| {
            let word = part.trim_end_matches(|c: char| c.is_ascii_digit());
            let humps = humps(word);
            (word.len() == part.len() || !word.is_empty())
                && word.bytes().all(|b| b.is_ascii_alphabetic())
                && humps
                    .iter()
                    .enumerate()
                    .all(|(i, h)| reads_as_word(h, i == 0))
                && (humps.len() == 1 || word.len() >= 3 * humps.len())
                && (humps.len() <= 2
                    || 3 * humps.iter().filter(|h| h.len() <= 2).count() <= humps.len())
        })
}

/// `XMLHttpRequest` → `XML`, `Http`, `Request`; `aZxQ` → `a`, `Zx`, `Q`.
fn humps(segment: &str) -> Vec<&str> {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..bytes.len() {
        let lower_to_upper = bytes[i - 1].is_ascii_lowercase() && bytes[i].is_ascii_uppercase();
        let acronym_end = bytes[i - 1].is_ascii_uppercase()
            && bytes[i].is_ascii_uppercase()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        if lower_to_upper || acronym_end {
            out.push(&segment[start..i]);
            start = i;
        }
    }
    out.push(&segment[start..]);
    out
}

/// `word`, `Word`, `WORD`; a lowercase hump only at the start (`iPhone`). A run of 5 consonants
/// is no word (`Ktnzndjqg`, from random letters); an acronym in capitals may have one.
fn reads_as_word(hump: &str, first: bool) -> bool {
    let bytes = hump.as_bytes();
    let spoken = || {
        let mut run = 0;
        bytes.iter().all(|b| {
            let vowel = matches!(
                b.to_ascii_lowercase(),
                b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
            );
            run = if vowel { 0 } else { run + 1 };
            run < 5
        })
    };
    match bytes {
        [] => true,
        _ if bytes.iter().all(u8::is_ascii_uppercase) => true,
        [head, rest @ ..] if head.is_ascii_uppercase() => {
            rest.iter().all(u8::is_ascii_lowercase) && spoken()
        }
        _ => first && bytes.iter().all(u8::is_ascii_lowercase) && spoken(),
    }
}

/// A file path (`/run/secrets/db`, `./key.txt`, `~/.ssh/id_ed25519`) or a URL. A path's parts
/// read as names: a base64 secret may open with `/` and hold another (`/ECrF…Nj/01xP…`).
pub fn looks_like_path_or_url(value: &str) -> bool {
    if value.contains("://") {
        return true;
    }
    let rooted = ["/", "./", "../", "~/"]
        .iter()
        .any(|p| value.starts_with(p));
    rooted
        && value.matches('/').count() >= 2
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'~'))
        && value
            .split('/')
            .filter(|s| !matches!(*s, "" | "." | ".." | "~"))
            .all(looks_like_name)
}

/// A number, a version, a date or a time: digits and separators only (`2024-01-01T00:00:00Z`).
pub fn looks_like_number_or_date(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'.' | b':' | b'/' | b'+' | b'T' | b'Z'))
}

/// An expression, an object or a pattern rather than a literal secret: a bracket around a name
/// (`{KeyObject}`, `[SecretName]`, `(optional)`; the closing one may be cut off), or two pieces
/// of regular expression syntax (`(?:`, `[^`, `\\w`, `]+`…). A password that opens with a
/// bracket, or holds one piece by chance (`)+` in about one random password in 300), is none.
pub fn looks_like_code(value: &str) -> bool {
    const PATTERN: &[&str] = &[
        "(?", "[^", "\\w", "\\d", "\\s", "\\b", "\\W", ")*", ")+", "]*", "]+",
    ];
    let bracketed = [('{', '}'), ('[', ']'), ('(', ')')]
        .iter()
        .any(|(open, close)| {
            value.strip_prefix(*open).is_some_and(|rest| {
                let inner = rest.strip_suffix(*close).unwrap_or(rest);
                looks_like_name(inner)
            })
        });
    bracketed || PATTERN.iter().filter(|p| value.contains(**p)).count() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_references() {
        for value in [
            "YOUR_KEY_HERE",
            "your-api-key",
            "xxxxxxxxxxxxxxxx",
            "XXXX-XXXX",
            "<token>",
            "${{ secrets.GITHUB_TOKEN }}",
            "$GITHUB_TOKEN",
            "${API_KEY}",
            "$(cat /run/secrets/token)",
            "$env:API_KEY",
            "%API_KEY%",
            "{password}",
            "%(password)s",
            "os.environ['TOKEN']",
            "process.env.TOKEN",
            "changeme",
            "replace-with-a-real-key",
            "********",
            "sk-...",
            "12345678",
            "abcdefghijklmnop",
            "abc123abc123abc123",
            "a",
            "",
            "test-secret-9f3k",
        ] {
            assert!(is_placeholder(value), "{value:?} is a placeholder");
        }
    }

    #[test]
    fn punctuation_alone_is_no_template() {
        // Passwords with the punctuation templates use (issue #15 review, M2).
        for value in [
            "Kx9<mP2vL8@qR4!",
            "7fQ>w2Lm9zRt4Kx8",
            "aZ3...Lq9mW2xR7tK",
            "(Zp9LmX2vK8sTq4",
            "Hq3(Zp9LmX2vK8sT",
            "RAbz<NPO>fy42+<d",
            "H<aefs>0Bq0U",
            "r_YwKXlhU];4${T1",
            "y}vTqy${B:~7V)9B",
            "x{{Lm9q2R}}zT",
            "$fk4TWbMLdP_",
            "{Kx9#mP2}",
            "Kx9env.mP2vL8",
            "/ECrFnNjQS9HN9EtUmCKGfMmRT/01xPFLezHHU7H",
        ] {
            assert!(!is_placeholder(value), "{value:?} is no placeholder");
            assert!(!looks_like_code(value), "{value:?} is no code");
            assert!(!looks_like_path_or_url(value), "{value:?} is no path");
        }
        // Templates keep their shape.
        for value in [
            "<your-token>",
            "Bearer_<TOKEN>",
            "sk-<KEY>",
            "ghp_<your-personal-token>",
            "sk-...",
            "eyJhbGciOi...",
            "your...key",
            "abc...xyz",
            "${{ secrets.X }}",
            "${API_KEY",
            "${DB_PASSWORD:-changeme}",
            "$(pass show db)",
            "$(cat /run/secrets/token)",
            "%(password)s",
            "{host}-{token}",
            "{0}",
            "$env:API_KEY",
            "env.API_KEY",
            "ENV['API_KEY']",
        ] {
            assert!(is_placeholder(value), "{value:?} is a placeholder");
        }
        assert!(looks_like_code("{KeyObject"));
        assert!(looks_like_code("[SecretName]"));
    }

    #[test]
    fn sequences_typed_to_look_random() {
        for value in [
            "SyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q",
            "abc123def456",
            "123456",
            "abcdef",
            "987654321zyx",
            "qwertyuiop1234",
            "a1b2c3d4e5f6",
            "aaabbbcccddd",
        ] {
            assert!(is_sequential(value.as_bytes()), "{value:?} is a sequence");
            assert!(is_placeholder(value), "{value:?} is a placeholder");
        }
        // A word, then the sequence.
        assert!(is_placeholder("secret_abc123def456"));
        for value in [
            "k3J9xQ2mZr8T",
            "Zfeq8#kQ2mVr7tLw",
            "9f86d081884c7d659a2feaa0c55ad015",
            "abc",
            "Xk29vLqP7mZt",
        ] {
            assert!(!is_sequential(value.as_bytes()), "{value:?} is no sequence");
        }
    }

    #[test]
    fn random_bodies_are_never_placeholders() {
        use super::super::testing::{ALNUM, BASE64URL, UPPER_DIGIT, fake};
        const HEX: &[u8] = b"0123456789abcdef";
        const PASSWORD: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%+=@^";
        for seed in 0..3000 {
            for (alphabet, len) in [
                (UPPER_DIGIT, 16),
                (ALNUM, 20),
                (ALNUM, 36),
                (BASE64URL, 35),
                (HEX, 32),
                (BASE64URL, 95),
                (BASE64URL, 156),
            ] {
                let body = fake(alphabet, len, seed);
                assert!(!is_placeholder_token(&body), "{body}");
            }
            let password = fake(PASSWORD, 12 + (seed % 8) as usize, seed);
            assert!(!is_placeholder(&password), "{password}");
            assert!(!is_sample_password(&password), "{password}");
        }
    }

    #[test]
    fn provider_bodies_among_words() {
        for body in [
            "YourStripeSecretKeyGoesHere00",
            "YOUR_SECRET_KEY_HERE",
            "not-a-real-token-this-will-not-work",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "EXAMPLEKEY1234567890",
        ] {
            assert!(is_placeholder_token(body), "{body}");
        }
        // A marker inside a random body is chance, not a placeholder.
        assert!(!is_placeholder_token("k3J9xQ2mTestZr8TwQ7vL1pN"));
    }

    #[test]
    fn sample_passwords() {
        for value in [
            "Password123!",
            "StrongPass@2025!",
            "Admin@1234",
            "P@ssw0rd2024",
            "Welcome@2024",
            "Qwerty123!",
            "MySecretPassword1",
        ] {
            assert!(is_sample_password(value), "{value:?} is a sample");
        }
        for value in ["q7Rk2mXz9LpW", "Password9731!", "Zebra@2025!", "2025!", ""] {
            assert!(!is_sample_password(value), "{value:?} is no sample");
        }
    }

    #[test]
    fn documented_examples_whatever_their_prefix() {
        assert!(is_placeholder("AKIAIOSFODNN7EXAMPLE"));
        assert!(is_placeholder("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        assert!(is_placeholder(concat!(
            "gho_",
            "16C7e42F292c6912E7710c838347Ae178B4a"
        )));
        assert!(is_placeholder(concat!(
            "AI",
            "zaSyDOCAbC123dEf456GhI789jKl012-MnO"
        )));
    }

    #[test]
    fn random_values_are_not_placeholders() {
        for value in [
            "k3J9xQ2mZr8T",
            "Passw0rd!",
            "9f86d081884c7d659a2feaa0c55ad015",
        ] {
            assert!(!is_placeholder(value), "{value:?} is not a placeholder");
        }
    }

    #[test]
    fn names_read_as_words() {
        for value in [
            "DatabasePassword",
            "prod-db-password",
            "GITHUB_TOKEN",
            "GITHUB_TOKEN2",
            "MYTOKEN1",
            "Summer2024",
            "required",
            "XMLHttpRequest",
            "iPhone",
            "my.secret.name",
            "api_v2_key",
            "cpuid_aes_sha::InitToken",
            "ASAuthorizationSingleSignOnProvider",
        ] {
            assert!(looks_like_name(value), "{value:?} is a name");
        }
        for value in [
            "aZxQpLmKrWv",
            "kJhGfDsAqWe",
            "Passw0rd!",
            "k3J9xQ2m",
            "a1b2_c3d4",
            "2024_token",
            "pRoDuCtIoN",
            "",
        ] {
            assert!(!looks_like_name(value), "{value:?} is not a name");
        }
    }

    #[test]
    fn paths_urls_numbers_and_dates() {
        assert!(looks_like_path_or_url("/run/secrets/db_password"));
        assert!(looks_like_path_or_url("~/.config/app/token"));
        assert!(looks_like_path_or_url("https://vault.internal/v1/secret"));
        assert!(!looks_like_path_or_url("/Kz8+q2Lx/9Wm"));
        assert!(!looks_like_path_or_url("k3J9/xQ2m"));
        assert!(looks_like_number_or_date("2024-01-01T00:00:00Z"));
        assert!(looks_like_number_or_date("1.2.3"));
        assert!(!looks_like_number_or_date("9f86d081"));
        assert!(looks_like_code("{KeyObject"));
        assert!(looks_like_code(r"(?:[%s]+|%s)"));
        assert!(looks_like_code(r"[^\W\d]\w*"));
        assert!(!looks_like_code("k3J9xQ2m+/="));
    }
}
