//! Values that stand for a secret without being one: placeholders, references to the environment
//! or a secret store, documented example keys, and shapes no generated secret has (words,
//! identifiers, paths, URLs, dates).

/// Case-insensitive fragments that mark a placeholder, a template or a reference.
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
    "****",
    "...",
    "…",
    "<",
    ">",
    "{{",
    "}}",
    "${",
    "$(",
    "%(",
    "%s",
    "secrets.",
    "environ",
    "process.env",
    "getenv",
    "env[",
    "env(",
    "env.",
];

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
pub fn is_placeholder(value: &str) -> bool {
    if value.is_empty() || DOCUMENTED.iter().any(|d| value.ends_with(d)) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    let bytes = value.as_bytes();
    let reference = match bytes {
        // `$VAR`, `${VAR}`, `$(command)`, PowerShell's `$env:VAR`.
        [b'$', next, ..] => next.is_ascii_alphabetic() || matches!(next, b'_' | b'{' | b'('),
        // `%VAR%` (Windows), `{name}` (format strings).
        [b'%', .., b'%'] | [b'{', .., b'}'] => true,
        _ => false,
    };
    reference || is_repetitive(bytes)
}

/// Longer values are not checked for a repeated pattern (the check is quadratic in the length).
const MAX_PATTERN_CHECK: usize = 512;

/// One character repeated, mostly ascending runs (`abcdef123456`), or a short pattern repeated.
fn is_repetitive(bytes: &[u8]) -> bool {
    let Some(first) = bytes.first() else {
        return true;
    };
    if bytes.iter().all(|b| b == first) {
        return true;
    }
    let steps = bytes
        .windows(2)
        .filter(|w| w[1] == w[0].wrapping_add(1))
        .count();
    if steps * 4 >= (bytes.len() - 1) * 3 {
        return true;
    }
    bytes.len() <= MAX_PATTERN_CHECK
        && (1..=bytes.len() / 3)
            .any(|period| bytes.iter().zip(&bytes[period..]).all(|(a, b)| a == b))
}

/// Words or an identifier rather than a secret: parts of letters, each maybe followed by a
/// number, whose humps read as words, 3 letters long on average in a part (`DatabasePassword`,
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

/// `word`, `Word`, `WORD`; a lowercase hump only at the start (`iPhone`).
fn reads_as_word(hump: &str, first: bool) -> bool {
    let bytes = hump.as_bytes();
    match bytes {
        [] => true,
        _ if bytes.iter().all(u8::is_ascii_uppercase) => true,
        [head, rest @ ..] if head.is_ascii_uppercase() => rest.iter().all(u8::is_ascii_lowercase),
        _ => first && bytes.iter().all(u8::is_ascii_lowercase),
    }
}

/// A file path (`/run/secrets/db`, `./key.txt`, `~/.ssh/id_ed25519`) or a URL.
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
}

/// A number, a version, a date or a time: digits and separators only (`2024-01-01T00:00:00Z`).
pub fn looks_like_number_or_date(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'.' | b':' | b'/' | b'+' | b'T' | b'Z'))
}

/// An expression, an object or a pattern rather than a literal secret: it opens with a bracket
/// (`{KeyObject}`, `[…]`), or holds regular expression syntax (`(?:`, `[^`, `\\w`).
pub fn looks_like_code(value: &str) -> bool {
    const PATTERN: &[&str] = &[
        "(?", "[^", "\\w", "\\d", "\\s", "\\b", "\\W", ")*", ")+", "]*", "]+",
    ];
    value.starts_with(['{', '[', '(']) || PATTERN.iter().any(|p| value.contains(p))
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
