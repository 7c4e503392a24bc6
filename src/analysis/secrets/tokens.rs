//! Provider tokens known by their prefix: AWS access key ids, GitHub, GitLab, Slack, Stripe live
//! keys, Google, OpenAI, Anthropic, Notion, npm, PyPI, SendGrid, Twilio and Hugging Face keys, and
//! Slack webhook URLs.

use memchr::memmem;

use super::entropy;
use super::findings::Hit;
use super::placeholder::is_placeholder_token;

/// How long the body after the prefix may be.
enum Len {
    Exactly(&'static [usize]),
    Between(usize, usize),
}

impl Len {
    fn max(&self) -> usize {
        match self {
            Self::Exactly(lengths) => lengths.iter().copied().max().unwrap_or(0),
            Self::Between(_, max) => *max,
        }
    }

    fn allows(&self, len: usize) -> bool {
        match self {
            Self::Exactly(lengths) => lengths.contains(&len),
            Self::Between(min, max) => (*min..=*max).contains(&len),
        }
    }
}

/// A token made of a fixed prefix and a body of known characters and length.
struct Prefixed {
    rule: &'static str,
    prefixes: &'static [&'static str],
    /// Characters the token is made of: the one before the prefix must not be one, so that a
    /// prefix inside a longer word (`xAKIA…`, `my_ghp_…`) is not a token.
    word: fn(u8) -> bool,
    /// Characters of the body; the body is the longest run of them, so a longer run than the
    /// rule allows is not a token.
    body: fn(u8) -> bool,
    len: Len,
    /// Characters a body may not end with (a sentence's full stop after a GitLab token).
    trim: &'static [u8],
    /// Whether the body must contain a digit (Slack's numeric team and user ids).
    digit: bool,
    /// What else the body's shape must hold (SendGrid's dot, Anthropic's `AA` ending).
    shape: fn(&[u8]) -> bool,
}

fn any(_: &[u8]) -> bool {
    true
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn alnum_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}
fn alnum_underscore_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}
fn alnum_underscore_dash_dot(b: u8) -> bool {
    alnum_underscore_dash(b) || b == b'.'
}
fn upper_digit(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

const PREFIXED: &[Prefixed] = &[
    // Long-term (AKIA) and temporary (ASIA) access key ids; the other A*A ids name principals.
    Prefixed {
        rule: "aws-access-key-id",
        prefixes: &["AKIA", "ASIA"],
        word: alnum,
        body: upper_digit,
        len: Len::Exactly(&[16]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Classic personal, OAuth, user-to-server and installation tokens: 30 random characters and
    // a 6-character checksum.
    Prefixed {
        rule: "github-token",
        prefixes: &["ghp_", "gho_", "ghu_", "ghs_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[36]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Refresh tokens: 36 characters, or 76 in the GitHub App guides.
    Prefixed {
        rule: "github-token",
        prefixes: &["ghr_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[36, 76]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Fine-grained personal access tokens: 22 characters, `_`, 59 characters.
    Prefixed {
        rule: "github-fine-grained-pat",
        prefixes: &["github_pat_"],
        word: alnum_underscore,
        body: alnum_underscore,
        len: Len::Exactly(&[82]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Personal, project and group access tokens (20 characters, or longer and dotted in the
    // routable format), pipeline trigger, deploy, runner, feed, service account and CI build
    // tokens, OAuth application secrets.
    Prefixed {
        rule: "gitlab-token",
        prefixes: &[
            "glpat-", "glptt-", "gldt-", "glrt-", "glft-", "glsoat-", "glcbt-", "gloas-",
        ],
        word: alnum_underscore_dash,
        body: alnum_underscore_dash_dot,
        len: Len::Between(20, 300),
        trim: b".",
        digit: false,
        shape: any,
    },
    // Bot, user, app-level, refresh and legacy workspace tokens: numeric ids and a random tail.
    Prefixed {
        rule: "slack-token",
        prefixes: &["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-"],
        word: alnum_underscore_dash,
        body: alnum_dash,
        len: Len::Between(20, 255),
        trim: b"-",
        digit: true,
        shape: any,
    },
    // Live-mode secret and restricted keys. Test-mode keys (`sk_test_`) reach no money and no
    // live data and Stripe's guides publish them; publishable keys (`pk_`) are public by design.
    Prefixed {
        rule: "stripe-live-key",
        prefixes: &["sk_live_", "rk_live_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Between(20, 255),
        trim: &[],
        digit: false,
        shape: any,
    },
    Prefixed {
        rule: "google-api-key",
        prefixes: &["AIza"],
        word: alnum_underscore_dash,
        body: alnum_underscore_dash,
        len: Len::Exactly(&[35]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Project, service account and admin keys: about 160 characters of base64url.
    Prefixed {
        rule: "openai-api-key",
        prefixes: &["sk-proj-", "sk-svcacct-", "sk-admin-"],
        word: alnum_underscore_dash,
        body: alnum_underscore_dash,
        len: Len::Between(40, 300),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Legacy user keys: 48 characters around the base64 of `OpenAI`.
    Prefixed {
        rule: "openai-api-key",
        prefixes: &["sk-"],
        word: alnum_underscore_dash,
        body: alnum,
        len: Len::Exactly(&[48]),
        trim: &[],
        digit: false,
        shape: openai_legacy,
    },
    // API and Admin API keys: 93 characters of base64url, then `AA`.
    Prefixed {
        rule: "anthropic-api-key",
        prefixes: &["sk-ant-api03-", "sk-ant-admin01-"],
        word: alnum_underscore_dash,
        body: alnum_underscore_dash,
        len: Len::Exactly(&[95]),
        trim: &[],
        digit: false,
        shape: anthropic,
    },
    // Internal integration tokens: `ntn_` and 46 characters, formerly `secret_` and 43.
    Prefixed {
        rule: "notion-token",
        prefixes: &["ntn_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[46]),
        trim: &[],
        digit: false,
        shape: any,
    },
    Prefixed {
        rule: "notion-token",
        prefixes: &["secret_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[43]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // Granular and classic access tokens: 36 characters.
    Prefixed {
        rule: "npm-token",
        prefixes: &["npm_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[36]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // API tokens are macaroons: `pypi-` and base64url that starts with the encoded issuer
    // (`pypi.org`, `test.pypi.org`).
    Prefixed {
        rule: "pypi-token",
        prefixes: &["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"],
        word: alnum_underscore_dash,
        body: alnum_underscore_dash,
        len: Len::Between(50, 1000),
        trim: &[],
        digit: false,
        shape: any,
    },
    // `SG.`, a 22-character key id, `.`, a 43-character secret.
    Prefixed {
        rule: "sendgrid-api-key",
        prefixes: &["SG."],
        word: alnum_underscore_dash_dot,
        body: alnum_underscore_dash_dot,
        len: Len::Exactly(&[66]),
        trim: &[],
        digit: false,
        shape: sendgrid,
    },
    // API key SIDs: `SK` and 32 lowercase hex digits (the key's secret is shown once, beside it).
    Prefixed {
        rule: "twilio-api-key",
        prefixes: &["SK"],
        word: alnum,
        body: lower_hex,
        len: Len::Exactly(&[32]),
        trim: &[],
        digit: false,
        shape: any,
    },
    // User access tokens: `hf_` and 34 letters.
    Prefixed {
        rule: "huggingface-token",
        prefixes: &["hf_"],
        word: alnum_underscore,
        body: alnum,
        len: Len::Exactly(&[34]),
        trim: &[],
        digit: false,
        shape: any,
    },
];

/// `T3BlbkFJ` is `OpenAI` in base64: every legacy key holds it.
fn openai_legacy(body: &[u8]) -> bool {
    memmem::find(body, b"T3BlbkFJ").is_some()
}

fn anthropic(body: &[u8]) -> bool {
    body.ends_with(b"AA")
}

fn sendgrid(body: &[u8]) -> bool {
    body.get(22) == Some(&b'.') && memchr::memchr_iter(b'.', body).count() == 1
}

/// Below this a body is too regular for a generated token (`AKIA0000000000000001`). A random
/// body of these lengths has 3.5 to 5 bits per character.
const MIN_BODY_BITS: f64 = 2.5;

/// Every prefixed token and Slack webhook URL in `text`.
pub fn find(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    for rule in PREFIXED {
        for prefix in rule.prefixes {
            for start in memmem::find_iter(bytes, prefix.as_bytes()) {
                if let Some(end) = match_prefixed(bytes, rule, start, prefix.len()) {
                    hits.push(Hit::new(rule.rule, start, end));
                }
            }
        }
    }
    for anchor in memmem::find_iter(bytes, SLACK_HOOKS.as_bytes()) {
        if let Some(hit) = match_slack_webhook(bytes, anchor) {
            hits.push(hit);
        }
    }
}

/// The end of the token whose prefix starts at `start`.
fn match_prefixed(bytes: &[u8], rule: &Prefixed, start: usize, prefix: usize) -> Option<usize> {
    if start > 0 && (rule.word)(bytes[start - 1]) {
        return None;
    }
    let body_start = start + prefix;
    // One past the longest body, so that a longer run is seen to be too long.
    let limit = bytes.len().min(body_start + rule.len.max() + 1);
    let mut body_end = body_start
        + bytes[body_start..limit]
            .iter()
            .take_while(|&&b| (rule.body)(b))
            .count();
    if body_end == limit && limit > body_start + rule.len.max() {
        return None;
    }
    while body_end > body_start && rule.trim.contains(&bytes[body_end - 1]) {
        body_end -= 1;
    }
    if !rule.len.allows(body_end - body_start) {
        return None;
    }
    // The body is ASCII by construction.
    let body = std::str::from_utf8(&bytes[body_start..body_end]).ok()?;
    let digit_ok = !rule.digit || body.bytes().any(|b| b.is_ascii_digit());
    if !(rule.shape)(body.as_bytes()) {
        return None;
    }
    let random = entropy::shannon(body) >= MIN_BODY_BITS;
    (digit_ok && random && !is_placeholder_token(body)).then_some(body_end)
}

const SLACK_HOOKS: &str = "hooks.slack.com/";

/// `https://hooks.slack.com/services/T…/B…/secret` (also `workflows/` and `triggers/`): the whole
/// URL is the secret.
fn match_slack_webhook(bytes: &[u8], anchor: usize) -> Option<Hit> {
    let before = &bytes[..anchor];
    let start = ["https://", "http://"]
        .iter()
        .find(|scheme| before.ends_with(scheme.as_bytes()))
        .map_or(anchor, |scheme| anchor - scheme.len());
    let after = &bytes[anchor + SLACK_HOOKS.len()..];
    let kind = ["services/", "workflows/", "triggers/"]
        .iter()
        .find(|kind| after.starts_with(kind.as_bytes()))?;
    let path_start = anchor + SLACK_HOOKS.len() + kind.len();
    const MAX_PATH: usize = 256;
    let limit = bytes.len().min(path_start + MAX_PATH + 1);
    let mut end = path_start
        + bytes[path_start..limit]
            .iter()
            .take_while(|&&b| alnum_underscore_dash(b) || b == b'/')
            .count();
    if end == limit && limit > path_start + MAX_PATH {
        return None;
    }
    while end > path_start && bytes[end - 1] == b'/' {
        end -= 1;
    }
    let path = std::str::from_utf8(&bytes[path_start..end]).ok()?;
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.last()?;
    let shaped = segments.len() >= 3
        && segments.iter().all(|s| !s.is_empty())
        && last.len() >= 16
        && last.bytes().all(alnum);
    (shaped && !is_placeholder_token(last)).then(|| Hit::new("slack-webhook", start, end))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ALNUM, BASE64URL, UPPER_DIGIT, fake};

    const HEX: &[u8] = b"0123456789abcdef";
    const DIGITS: &[u8] = b"0123456789";
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    use super::*;

    fn found(text: &str) -> Vec<(&'static str, &str)> {
        let mut hits = Vec::new();
        find(text, &mut hits);
        hits.iter()
            .map(|h| (h.rule, &text[h.start..h.end]))
            .collect()
    }

    #[test]
    fn each_provider_prefix_is_found_with_its_exact_extent() {
        let cases = [
            (
                "aws-access-key-id",
                format!("AKIA{}", fake(UPPER_DIGIT, 16, 1)),
            ),
            (
                "aws-access-key-id",
                format!("ASIA{}", fake(UPPER_DIGIT, 16, 2)),
            ),
            ("github-token", format!("ghp_{}", fake(ALNUM, 36, 3))),
            ("github-token", format!("gho_{}", fake(ALNUM, 36, 4))),
            ("github-token", format!("ghu_{}", fake(ALNUM, 36, 5))),
            ("github-token", format!("ghs_{}", fake(ALNUM, 36, 6))),
            ("github-token", format!("ghr_{}", fake(ALNUM, 36, 7))),
            ("github-token", format!("ghr_{}", fake(ALNUM, 76, 8))),
            (
                "github-fine-grained-pat",
                format!("github_pat_{}_{}", fake(ALNUM, 22, 9), fake(ALNUM, 59, 10)),
            ),
            ("gitlab-token", format!("glpat-{}", fake(ALNUM, 20, 11))),
            (
                "gitlab-token",
                format!("glpat-{}.01.{}", fake(ALNUM, 27, 12), fake(ALNUM, 9, 13)),
            ),
            (
                "slack-token",
                format!("xoxb-1234567890-1234567890123-{}", fake(ALNUM, 24, 14)),
            ),
            (
                "stripe-live-key",
                format!("sk_live_{}", fake(ALNUM, 24, 15)),
            ),
            (
                "stripe-live-key",
                format!("rk_live_{}", fake(ALNUM, 99, 16)),
            ),
            ("google-api-key", format!("AIza{}", fake(ALNUM, 35, 17))),
            (
                "openai-api-key",
                format!("sk-proj-{}", fake(BASE64URL, 156, 21)),
            ),
            (
                "openai-api-key",
                format!("sk-{}T3BlbkFJ{}", fake(ALNUM, 20, 22), fake(ALNUM, 20, 23)),
            ),
            (
                "anthropic-api-key",
                format!("sk-ant-api03-{}AA", fake(BASE64URL, 93, 24)),
            ),
            ("notion-token", format!("ntn_{}", fake(ALNUM, 46, 25))),
            ("notion-token", format!("secret_{}", fake(ALNUM, 43, 26))),
            ("npm-token", format!("npm_{}", fake(ALNUM, 36, 27))),
            (
                "pypi-token",
                format!("pypi-AgEIcHlwaS5vcmc{}", fake(BASE64URL, 80, 28)),
            ),
            (
                "sendgrid-api-key",
                format!("SG.{}.{}", fake(BASE64URL, 22, 29), fake(BASE64URL, 43, 30)),
            ),
            ("twilio-api-key", format!("SK{}", fake(HEX, 32, 31))),
            ("huggingface-token", format!("hf_{}", fake(LETTERS, 34, 32))),
            (
                "slack-token",
                format!(
                    "xapp-1-A{}-{}-{}",
                    fake(UPPER_DIGIT, 10, 33),
                    fake(DIGITS, 13, 34),
                    fake(HEX, 64, 35)
                ),
            ),
            (
                "slack-webhook",
                format!(
                    "https://hooks.slack.com/services/T{}/B{}/{}",
                    fake(UPPER_DIGIT, 8, 18),
                    fake(UPPER_DIGIT, 10, 19),
                    fake(ALNUM, 24, 20)
                ),
            ),
        ];
        for (rule, token) in &cases {
            for text in [
                token.clone(),
                format!("x = \"{token}\""),
                format!("curl -H 'Authorization: {token}'."),
            ] {
                assert_eq!(found(&text), [(*rule, token.as_str())], "in {text:?}");
            }
        }
    }

    #[test]
    fn a_prefix_inside_a_word_or_a_body_of_the_wrong_length_is_not_a_token() {
        let id = fake(UPPER_DIGIT, 16, 30);
        let gh = fake(ALNUM, 36, 31);
        for text in [
            format!("xAKIA{id}"),
            format!("AKIA{id}7"),
            format!("AKIA{}", &id[..15]),
            format!("my_ghp_{gh}"),
            format!("ghp_{gh}x"),
            format!("ghp_{}", &gh[..35]),
            format!("glpat-{}", &gh[..19]),
            format!(
                "xoxb-{}",
                fake(ALNUM, 30, 32).replace(char::is_numeric, "a")
            ),
            format!("AIza{}", &gh[..34]),
            format!("sk_test_{gh}"),
            format!("pk_live_{gh}"),
            // A SendGrid key without its dot, a legacy OpenAI key without `T3BlbkFJ`, an
            // Anthropic key without its `AA`.
            format!("SG.{}", fake(ALNUM, 66, 36)),
            format!("sk-{}", fake(ALNUM, 48, 37)),
            format!("sk-ant-api03-{}", fake(ALNUM, 95, 38).replace("AA", "Ab")),
            format!("client_secret_{}", fake(ALNUM, 43, 39)),
            format!("SK{}", fake(HEX, 32, 40).to_uppercase()),
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX".into(),
            "https://hooks.slack.com/services/".into(),
        ] {
            assert_eq!(found(&text), [], "in {text:?}");
        }
    }

    #[test]
    fn placeholders_and_documented_examples_are_not_tokens() {
        for text in [
            "AKIAIOSFODNN7EXAMPLE",
            "AKIAI44QH8DHBEXAMPLE",
            "AKIAXXXXXXXXXXXXXXXX",
            "AKIA0000000000000000",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "ghp_123456789012345678901234567890123456",
            concat!("gho_", "16C7e42F292c6912E7710c838347Ae178B4a"),
            "xoxb-not-a-real-token-this-will-not-work",
            "xoxb-0000000000-0000000000000-xxxxxxxxxxxxxxxxxxxxxxxx",
            "sk_live_YourStripeSecretKeyGoesHere00",
            concat!("AI", "zaSyDOCAbC123dEf456GhI789jKl012-MnO"),
            // Sequential bodies: typed to look like a key (issue #15).
            concat!("AI", "zaSyA1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q"),
            concat!("gh", "p_abc123def456ghi789abc123def456ghi789"),
            concat!("np", "m_A1B2C3D4E5F6G7H8I9J0K1L2M3N4O5P6Q7R8"),
            concat!("S", "K0123456789abcdef0123456789abcdef"),
            concat!("h", "f_abcdefghijklmnopqrstuvwxyzabcdefgh"),
            concat!("nt", "n_abc123def456"),
        ] {
            assert_eq!(found(text), [], "in {text:?}");
        }
    }

    #[test]
    fn a_gitlab_token_at_the_end_of_a_sentence_leaves_the_full_stop() {
        let token = format!("glpat-{}", fake(ALNUM, 20, 40));
        assert_eq!(
            found(&format!("Use {token}.")),
            [("gitlab-token", token.as_str())]
        );
    }
}
