//! Secrets assigned to a name that says so: `password = "…"`, `"apiKey": "…"`, `API_TOKEN=…`,
//! `--token …`, `Authorization: Bearer …`, and AWS secret access keys after their name. The value
//! must be random enough and no placeholder, reference, name, path, URL or date.

use memchr::memmem;

use super::entropy;
use super::findings::Hit;
use super::jwt;
use super::placeholder;

/// Fragments every secret name below contains, searched in the lowercased text.
const TRIGGERS: &[&str] = &["pass", "pwd", "secret", "token", "key", "cred", "auth"];

/// What a name ends with when its value is a secret, lowercase without `_`, `-`, `.` and trailing
/// digits: `DB_PASSWORD`, `apiKey`, `client-secret`, `GITHUB_TOKEN2`. `password_hash`,
/// `token_url`, `secret_name`, `max_tokens` end otherwise.
const SECRET_NAMES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "authkey",
    "encryptionkey",
    "signingkey",
    "masterkey",
    "credential",
    "credentials",
    "authorization",
];

/// Names longer than this are not names (a minified bundle's runs of letters).
const MAX_NAME: usize = 64;
/// Values longer than this are data, not a secret a person typed (keys and tokens have rules of
/// their own).
const MAX_VALUE: usize = 512;
/// How far after an AWS secret key's name its value is looked for.
const AWS_LOOKAHEAD: usize = 160;
/// The most read after a name: its separator, a type annotation, a scheme and the value.
const WINDOW: usize = 1024;

fn name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`')
}

/// Every secret assigned to a secret's name in `text`. In code (`code`), only a quoted value is
/// a literal: `token = get_token()` is not a secret, while in `.env`, shell and YAML an unquoted
/// value is one.
pub fn find(text: &str, code: bool, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let mut candidates: Vec<usize> = TRIGGERS
        .iter()
        .flat_map(|t| memmem::find_iter(lower.as_bytes(), t.as_bytes()))
        .collect();
    candidates.sort_unstable();
    // Names and values already read are not read again: the scan stays linear.
    let mut resume = 0;
    for at in candidates {
        if at < resume {
            continue;
        }
        let (start, end) = match name_around(bytes, at) {
            Ok(name) => name,
            Err(read_to) => {
                resume = read_to;
                continue;
            }
        };
        resume = end;
        if let Some(read_to) = assignment(text, &lower, start, end, code, hits) {
            resume = resume.max(read_to);
        }
    }
}

/// The run of name characters around `at`, when no longer than [`MAX_NAME`]; else how far the
/// run was read (the triggers before that are in the same run).
fn name_around(bytes: &[u8], at: usize) -> Result<(usize, usize), usize> {
    let floor = at.saturating_sub(MAX_NAME);
    let start = (floor..at)
        .rev()
        .take_while(|&i| name_char(bytes[i]))
        .last()
        .unwrap_or(at);
    let ceiling = bytes.len().min(start + MAX_NAME + 1);
    let end = start
        + bytes[start..ceiling]
            .iter()
            .take_while(|&&b| name_char(b))
            .count();
    let whole = (start == 0 || !name_char(bytes[start - 1])) && end - start <= MAX_NAME;
    if whole {
        return Ok((start, end));
    }
    // Too long: skip the rest of the run, read once, with every trigger in it.
    Err(at
        + bytes[at..]
            .iter()
            .take_while(|&&b| name_char(b))
            .count()
            .max(1))
}

/// The kind of secret a name announces.
#[derive(Clone, Copy, PartialEq)]
enum Name {
    Secret,
    AwsSecretKey,
}

/// `lower_name` is at most [`MAX_NAME`] bytes, lowercase.
fn classify(lower_name: &[u8]) -> Option<Name> {
    let mut buffer = [0u8; MAX_NAME];
    let mut len = 0;
    for &b in lower_name
        .iter()
        .filter(|b| !matches!(b, b'_' | b'-' | b'.'))
    {
        *buffer.get_mut(len)? = b;
        len += 1;
    }
    while len > 0 && buffer[len - 1].is_ascii_digit() {
        len -= 1;
    }
    let normal = &buffer[..len];
    let contains = |needle: &[u8]| memmem::find(normal, needle).is_some();
    if contains(b"secretaccesskey")
        || (contains(b"aws") && (normal.ends_with(b"secret") || normal.ends_with(b"secretkey")))
    {
        return Some(Name::AwsSecretKey);
    }
    SECRET_NAMES
        .iter()
        .any(|n| normal.ends_with(n.as_bytes()))
        .then_some(Name::Secret)
}

/// Read the assignment to the name at `start..end`; record a secret; return how far was read.
fn assignment(
    text: &str,
    lower: &str,
    start: usize,
    end: usize,
    code: bool,
    hits: &mut Vec<Hit>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let kind = classify(&lower.as_bytes()[start..end])?;
    // The rest of the line, at most a window: a minified line is not read to its end per name.
    let window_end = bytes.len().min(end + WINDOW);
    let line_end = memchr::memchr(b'\n', &bytes[end..window_end]).map_or(window_end, |i| end + i);
    if kind == Name::AwsSecretKey
        && let Some((s, e)) = aws_secret_after(bytes, end, line_end)
    {
        hits.push(Hit::new("aws-secret-access-key", s, e));
        return Some(e);
    }
    let key_quote = (start > 0 && quote(bytes[start - 1])).then(|| bytes[start - 1]);
    let flag = bytes[start..end].starts_with(b"--");
    let mut i = separator(bytes, end, line_end, key_quote, flag, code)?;
    // `Authorization: Bearer …` unquoted; a quoted value's scheme is skipped by `value`.
    let scheme = scheme_len(&bytes[i..line_end]);
    i += scheme;
    let (value_start, value_end, quoted) = match value(bytes, i, line_end, code) {
        Ok(value) => value,
        Err(read_to) => return Some(read_to),
    };
    let value = text.get(value_start..value_end)?;
    if badge_query(bytes, start) {
        return Some(value_end);
    }
    // A scheme word (`Bearer`) says a literal credential follows, even unquoted in code.
    let literal = quoted || scheme > 0 || !code;
    if literal && secret_value(value) {
        hits.push(Hit {
            generic: true,
            name: Some((start, end)),
            ..Hit::new("generic-secret", value_start, value_end)
        });
    }
    Some(value_end)
}

/// After the separator (`=`, `:`, `:=`, `==`, `=>`; a space after a `--flag`; a comma after a
/// quoted name, as in `set("X-Api-Key", "…")`) and any type annotation (`password: str = …`),
/// where the value starts.
fn separator(
    bytes: &[u8],
    mut i: usize,
    line_end: usize,
    key_quote: Option<u8>,
    flag: bool,
    code: bool,
) -> Option<usize> {
    let at = |i: usize| if i < line_end { bytes[i] } else { b'\n' };
    if key_quote.is_some_and(|q| at(i) == q) {
        i += 1;
    }
    let before_space = i;
    i = skip_blanks(bytes, i, line_end);
    match (at(i), at(i + 1)) {
        (b':', b'=') | (b'=', b'>') => i += 2,
        (b'=', b'=') => i += if at(i + 2) == b'=' { 3 } else { 2 },
        (b'=', _) => i += 1,
        // In code only: in prose, "`token`, `secret`" is a list.
        (b',', _) if code && matches!(key_quote, Some(b'"' | b'\'')) => i += 1,
        // `Token::new` is a path, not an assignment.
        (b':', b':') => return None,
        (b':', _) => {
            i = skip_blanks(bytes, i + 1, line_end);
            return Some(skip_annotation(bytes, i, line_end).unwrap_or(i));
        }
        _ if flag && i > before_space && at(i) != b'-' => return Some(i),
        _ => return None,
    }
    Some(skip_blanks(bytes, i, line_end))
}

/// `str = `, `Optional[str] = `, `str | None = `, `auth::Token = ` after a `name:`: the value
/// follows the `=`. A space belongs to the type only next to `|` or after `,`, so that
/// `Authorization: MAC id="…"` is no annotation.
fn skip_annotation(bytes: &[u8], i: usize, line_end: usize) -> Option<usize> {
    if !bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let limit = line_end.min(i + MAX_NAME);
    let mut j = i;
    while j < limit {
        let b = bytes[j];
        let in_type = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'.' | b':' | b'[' | b']' | b'<' | b'>' | b'|' | b','
            );
        let joining_space =
            b == b' ' && (matches!(bytes[j - 1], b'|' | b',') || bytes.get(j + 1) == Some(&b'|'));
        if !(in_type || joining_space) {
            break;
        }
        j += 1;
    }
    let eq = skip_blanks(bytes, j, line_end);
    let is_assign = eq + 1 < line_end && bytes[eq] == b'=' && bytes[eq + 1] != b'=';
    is_assign.then(|| skip_blanks(bytes, eq + 1, line_end))
}

fn skip_blanks(bytes: &[u8], mut i: usize, line_end: usize) -> usize {
    while i < line_end && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// Authorization schemes a credential follows: `Bearer …`, `Basic …`, `token …`.
const SCHEMES: &[&[u8]] = &[b"bearer ", b"basic ", b"token "];

/// The length of a scheme word and the blanks after it at the start of `bytes`, 0 when none.
fn scheme_len(bytes: &[u8]) -> usize {
    SCHEMES
        .iter()
        .find(|s| {
            bytes
                .get(..s.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(s))
        })
        .map_or(0, |s| {
            s.len() + bytes[s.len()..].iter().take_while(|&&b| b == b' ').count()
        })
}

/// The value at `i`: quoted (closed on the same line, escaped quotes inside) or a bare word.
/// Returns its extent and whether it was quoted, or how far was read when there is none (an unclosed quote, a run
/// longer than any value).
fn value(
    bytes: &[u8],
    i: usize,
    line_end: usize,
    code: bool,
) -> Result<(usize, usize, bool), usize> {
    let limit = line_end.min(i + MAX_VALUE + 2);
    // Python's `b"…"`, `r"…"`, `f"…"`.
    let i = match bytes.get(i..i + 2) {
        Some([p, q])
            if matches!(p, b'b' | b'r' | b'f' | b'u' | b'B' | b'R' | b'F' | b'U') && quote(*q) =>
        {
            i + 1
        }
        _ => i,
    };
    if i >= limit {
        return Err(i);
    }
    let open = bytes[i];
    if quote(open) {
        // A backslash escapes a quote in double quotes everywhere (shell, `.env`, JSON, YAML,
        // code), and in any quotes in code; a shell's or YAML's single quotes take it as is.
        let escapes = open == b'"' || code;
        let close = memchr::memchr_iter(open, &bytes[i + 1..limit])
            .map(|at| i + 1 + at)
            .find(|&at| {
                let backslashes = bytes[i + 1..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                !escapes || backslashes % 2 == 0
            })
            .ok_or(limit)?;
        // `"Bearer …"`: the credential is after the scheme.
        let start = i + 1 + scheme_len(&bytes[i + 1..close]);
        return Ok((start, close, true));
    }
    let len = bytes[i..limit]
        .iter()
        .take_while(|&&b| {
            // A call or an index (`get_token(…)`, `form['…']`) ends a bare value too.
            !(b.is_ascii_whitespace()
                || quote(b)
                || matches!(b, b',' | b';' | b'(' | b')' | b'[' | b']' | b'}' | b'&'))
        })
        .count();
    if len <= MAX_VALUE {
        Ok((i, i + len, false))
    } else {
        Err(limit)
    }
}

/// A query parameter of a badge's URL (`badge.svg?token=…`): Codecov's graph tokens and their
/// kind are read-only and meant to sit in a README.
fn badge_query(bytes: &[u8], name_start: usize) -> bool {
    let query = name_start > 0 && matches!(bytes[name_start - 1], b'?' | b'&');
    let url = &bytes[name_start.saturating_sub(256)..name_start];
    let line = memchr::memrchr(b'\n', url).map_or(url, |i| &url[i + 1..]);
    query
        && [&b"badge"[..], b"codecov.io"]
            .iter()
            .any(|m| memmem::find(line, m).is_some())
}

/// A value that is a secret: 8 to 512 characters, no blanks (prose, a description), random
/// enough, and no placeholder, reference, name, path, URL, number or date.
fn secret_value(value: &str) -> bool {
    let len = value.chars().count();
    (8..=MAX_VALUE).contains(&len)
        && !value.chars().any(char::is_whitespace)
        && !placeholder::is_placeholder(value)
        && !placeholder::looks_like_name(value)
        && !placeholder::looks_like_path_or_url(value)
        && !placeholder::looks_like_number_or_date(value)
        && !placeholder::looks_like_code(value)
        && !jwt::is_unsigned(value)
        && entropy::random_enough(value)
}

/// The first 40-character base64 run within [`AWS_LOOKAHEAD`] after an AWS secret key's name
/// (`aws_secret_access_key = …`, `--aws-secret-access-key …`, `"SecretAccessKey": "…"`).
fn aws_secret_after(bytes: &[u8], from: usize, line_end: usize) -> Option<(usize, usize)> {
    let limit = line_end.min(from + AWS_LOOKAHEAD);
    let b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'+');
    let mut i = from;
    while i < limit {
        if !b64(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (b64(bytes[i]) || bytes[i] == b'=') {
            i += 1;
            if i - start > 41 {
                break;
            }
        }
        if i - start == 40 && bytes[start..i].iter().all(|&b| b64(b)) {
            let key = std::str::from_utf8(&bytes[start..i]).ok()?;
            let ok = !placeholder::is_placeholder(key) && entropy::shannon(key) >= 3.5;
            return ok.then_some((start, i));
        }
        while i < bytes.len() && (b64(bytes[i]) || bytes[i] == b'=') && i < limit {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ALNUM, BASE64, fake};
    use super::*;

    fn found(text: &str, code: bool) -> Vec<(&'static str, &str)> {
        let mut hits = Vec::new();
        find(text, code, &mut hits);
        hits.iter()
            .map(|h| (h.rule, &text[h.start..h.end]))
            .collect()
    }

    #[test]
    fn assignments_in_every_syntax() {
        let v = "q7Rk2mXz9LpW";
        let cases = [
            (format!("password = \"{v}\""), true),
            (format!("DB_PASSWORD={v}"), false),
            (format!("export API_TOKEN='{v}'"), false),
            (format!("  api_key: {v}"), false),
            (format!("  api-key: \"{v}\"  # prod"), false),
            (
                format!("{{\"apiKey\": \"{v}\", \"region\": \"eu\"}}"),
                false,
            ),
            (format!("const clientSecret = `{v}`;"), true),
            (format!("secretKey := \"{v}\""), true),
            (format!("{{:auth_token => '{v}'}}"), true),
            (format!("if password == \"{v}\":"), true),
            (format!("token: str = \"{v}\""), true),
            (format!("const token: string = '{v}';"), true),
            (format!("mytool --password {v} --verbose"), false),
            (format!("mytool --api-key={v}"), false),
            (
                format!("curl -H \"Authorization: Bearer {v}\" https://api"),
                false,
            ),
            (
                format!("headers = {{\"Authorization\": \"Bearer {v}\"}}"),
                true,
            ),
            (format!("curl -H \"X-Api-Key: {v}\""), false),
            (format!("GET /v1/items?api_key={v}&limit=10"), false),
            (format!("<add key=\"x\" password=\"{v}\"/>"), false),
            (format!("ACCESS_TOKEN2={v}"), false),
            (format!("db.password = r\"{v}\""), true),
            (format!("req.Header.Set(\"X-Api-Key\", \"{v}\")"), true),
            (format!("headers.set('Authorization', 'token {v}')"), true),
            (
                format!("def connect(password: Optional[str] = \"{v}\"):"),
                true,
            ),
            (
                format!("def connect(password: str | None = \"{v}\"):"),
                true,
            ),
        ];
        for (text, code) in &cases {
            assert_eq!(found(text, *code), [("generic-secret", v)], "in {text:?}");
        }
    }

    #[test]
    fn what_is_not_a_hardcoded_secret() {
        let cases = [
            // References and placeholders.
            "password = os.environ[\"DB_PASSWORD\"]",
            "token = process.env.GITHUB_TOKEN",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "API_KEY=$API_KEY",
            "API_KEY=${API_KEY}",
            "token=$(cat /run/secrets/token)",
            "api_key: YOUR_API_KEY_HERE",
            "api_key: <your-api-key>",
            "password: changeme",
            "password: '********'",
            "SECRET_KEY=xxxxxxxxxxxxxxxx",
            "token: \"{{ .Values.token }}\"",
            "password = \"\"",
            "api_key = \"sk-...\"",
            // Code: an unquoted value is an expression.
            "token = get_token(session)",
            "password = request.form['password']",
            "api_key = settings.API_KEY",
            // Names, prose, paths, URLs, dates, short and regular values.
            "token: GITHUB_TOKEN",
            "secret_name: prod-db-password",
            "password: required",
            "token: \"The API token used to authenticate\"",
            "password_file = \"/run/secrets/db_password\"",
            "password: /run/secrets/db_password",
            "token_url = \"https://auth.example.org/oauth/token\"",
            "token: https://auth.internal/oauth/token",
            "token_expires: 2024-01-01T00:00:00Z",
            "password: hunter2",
            "password: aaaaaaaab1",
            "An unsigned token: `eyJhbGciOiJub25lIn0.eyJzdWIiOiJib3QifQ.`",
            // Names that are not a secret's.
            "password_hash = \"$2b$12$KIXQJ9aZ1n8Yx0Qv3m5e6O\"",
            "max_tokens = 4096",
            "tokenizer = \"cl100k_base\"",
            "commit_sha = \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\"",
            "let t = Token::new(\"q7Rk2mXz9LpW\");",
            "passwordless = true",
            "fields = [\"token\", \"password\", \"client_secret\"]",
            "session.auth = (\"release-bot\", password)",
            "Authorization: MAC id=\"h480djs93hd8\", nonce=\"274312:dj83hs9s\"",
            "_core_token = r'(?:(?:(?:\\^[%s]?)?[^\"%s%s])+)' % (_nl, _nlws, _punct)",
            "jsonnet_token = r'[^\\W\\d]\\w*'",
            "  * `privateKey`: {KeyObject}",
            "let token: cpuid_aes_sha::InitToken = cpuid_aes_sha::init();",
            "//registry.example.org/:_authToken=MYTOKEN1",
            "password = \"Summer2024\"",
            "COCOA = {'ACAccountCredential', 'ASAuthorizationSingleSignOnProvider'}",
            "[![cov](https://codecov.io/gh/acme/app/graph/badge.svg?token=Z92NHFQ70G)](https://codecov.io)",
        ];
        for text in cases {
            assert_eq!(found(text, true), [], "in {text:?} (code)");
            assert_eq!(found(text, false), [], "in {text:?} (not code)");
        }
    }

    #[test]
    fn aws_secret_keys_after_their_name() {
        let key = fake(BASE64, 40, 1);
        for text in [
            format!("aws_secret_access_key = {key}"),
            format!("AWS_SECRET_ACCESS_KEY=\"{key}\""),
            format!("aws configure set aws_secret_access_key {key}"),
            format!("{{\"SecretAccessKey\": \"{key}\"}}"),
            format!("--aws-secret-access-key {key}"),
            format!("AWS_SECRET={key}"),
        ] {
            assert_eq!(
                found(&text, true),
                [("aws-secret-access-key", key.as_str())],
                "in {text:?}"
            );
        }
        for text in [
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
            "aws_secret_access_key: !Ref SecretKeyParameter",
        ] {
            assert_eq!(found(text, false), [], "in {text:?}");
        }
        // Not an AWS key's shape, still a random value assigned to a secret's name.
        for value in [key[..39].to_owned(), format!("{key}A")] {
            let text = format!("aws_secret_access_key = {value}");
            assert_eq!(
                found(&text, false),
                [("generic-secret", value.as_str())],
                "in {text:?}"
            );
        }
    }

    #[test]
    fn a_long_or_unclosed_value_is_not_read_past_its_bound() {
        let long = fake(ALNUM, MAX_VALUE + 1, 2);
        assert_eq!(found(&format!("token = \"{long}\""), false), []);
        assert_eq!(found(&format!("token = {long}"), false), []);
        assert_eq!(found("token = \"q7Rk2mXz9LpW", false), []);
        assert_eq!(
            found(
                &format!("{}password = \"q7Rk2mXz9LpW\"", "a".repeat(100)),
                false
            ),
            []
        );
    }

    #[test]
    fn the_value_is_on_the_names_line() {
        assert_eq!(found("password:\n  q7Rk2mXz9LpW", false), []);
    }
}
