//! Fake secrets for the tests, assembled when the tests run: no committed file holds a value
//! that matches a rule, so neither push protection nor another scanner stops at this repository.
//! Bodies come from a fixed-seed generator: the same seed gives the same value on every run.

pub const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const UPPER_DIGIT: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// A password's characters: letters, digits and the symbols people add.
const PASSWORD: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%+=@^";

/// `len` characters of `alphabet`, from a xorshift generator seeded with `seed`.
pub fn fake(alphabet: &[u8], len: usize, seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let index = usize::try_from(state % alphabet.len() as u64).unwrap_or(0);
            char::from(alphabet[index])
        })
        .collect()
}

/// Unpadded base64url, for JWT parts.
pub fn b64url(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= u32::from(b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            let index = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(BASE64URL[index as usize]));
        }
    }
    out
}

/// A JWT with these JSON header and payload and a random signature.
pub fn jwt(header: &str, payload: &str, signature: usize, seed: u64) -> String {
    format!(
        "{}.{}.{}",
        b64url(header.as_bytes()),
        b64url(payload.as_bytes()),
        fake(BASE64URL, signature, seed)
    )
}

/// A PEM block: `-----BEGIN {label}-----`, the body, `-----END {label}-----`.
pub fn pem_block(label: &str, body: &str) -> String {
    let dashes = "-".repeat(5);
    format!("{dashes}BEGIN {label}{dashes}\n{body}\n{dashes}END {label}{dashes}\n")
}

/// The value a fixture's `@@fake:KIND@@` stands for.
pub fn fixture_value(kind: &str, seed: u64) -> Option<String> {
    let value = match kind {
        "aws-id" => format!("AKIA{}", fake(UPPER_DIGIT, 16, seed)),
        "aws-secret" => fake(BASE64, 40, seed),
        "ghp" | "gho" | "ghu" | "ghs" | "ghr" => format!("{kind}_{}", fake(ALNUM, 36, seed)),
        "github-pat" => format!(
            "github_pat_{}_{}",
            fake(ALNUM, 22, seed),
            fake(ALNUM, 59, seed + 1000)
        ),
        "glpat" => format!("glpat-{}", fake(ALNUM, 20, seed)),
        "xoxb" => format!(
            "xoxb-{}-{}-{}",
            fake(DIGITS, 10, seed),
            fake(DIGITS, 13, seed + 1000),
            fake(ALNUM, 24, seed + 2000)
        ),
        "xoxp" => format!(
            "xoxp-{}-{}-{}-{}",
            fake(DIGITS, 10, seed),
            fake(DIGITS, 10, seed + 1000),
            fake(DIGITS, 13, seed + 2000),
            fake(HEX, 32, seed + 3000)
        ),
        "slack-webhook" => format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            fake(UPPER_DIGIT, 8, seed),
            fake(UPPER_DIGIT, 10, seed + 1000),
            fake(ALNUM, 24, seed + 2000)
        ),
        "sk-live" => format!("sk_live_{}", fake(ALNUM, 24, seed)),
        "rk-live" => format!("rk_live_{}", fake(ALNUM, 24, seed)),
        "google" => format!("AIza{}", fake(BASE64URL, 35, seed)),
        "jwt" => jwt(
            r#"{"alg":"HS256","typ":"JWT"}"#,
            r#"{"sub":"skillgate-fixture","iat":1700000000}"#,
            43,
            seed,
        ),
        "rsa-private-key" | "openssh-private-key" => {
            let label = if kind == "rsa-private-key" {
                "RSA PRIVATE KEY"
            } else {
                "OPENSSH PRIVATE KEY"
            };
            let lines: Vec<String> = (0..4).map(|i| fake(BASE64, 64, seed + i)).collect();
            pem_block(label, &lines.join("\n")).trim_end().to_owned()
        }
        "openai" => format!(
            "sk-proj-{}T3BlbkFJ{}",
            fake(BASE64URL, 74, seed),
            fake(BASE64URL, 74, seed + 1000)
        ),
        "anthropic" => format!("sk-ant-api03-{}AA", fake(BASE64URL, 93, seed)),
        "notion" => format!(
            "ntn_{}{}",
            fake(DIGITS, 11, seed),
            fake(ALNUM, 35, seed + 1000)
        ),
        "npm" => format!("npm_{}", fake(ALNUM, 36, seed)),
        "pypi" => format!("pypi-AgEIcHlwaS5vcmc{}", fake(BASE64URL, 120, seed)),
        "sendgrid" => format!(
            "SG.{}.{}",
            fake(BASE64URL, 22, seed),
            fake(BASE64URL, 43, seed + 1000)
        ),
        "twilio" => format!("SK{}", fake(HEX, 32, seed)),
        "huggingface" => format!("hf_{}", fake(LETTERS, 34, seed)),
        "url-password" => fake(ALNUM, 20, seed),
        "password" => fake(PASSWORD, 16, seed),
        "token" => fake(ALNUM, 32, seed),
        "hex" => fake(HEX, 40, seed),
        _ => return None,
    };
    Some(value)
}

/// `text` with every `@@fake:KIND@@` replaced by a fake value; `seed` counts the markers
/// across files, so each marker gets its own value.
pub fn expand_markers(text: &str, seed: &mut u64) -> String {
    const OPEN: &str = "@@fake:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let Some(close) = after.find("@@") else {
            panic!("unclosed marker in {text:?}");
        };
        *seed += 1;
        let kind = &after[..close];
        out.push_str(
            &fixture_value(kind, *seed).unwrap_or_else(|| panic!("unknown fake kind {kind:?}")),
        );
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}
