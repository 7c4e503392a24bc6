//! Every rule over every file: overlaps go to the provider's rule over the generic one, each
//! finding is placed by line and column and given its level, and only its redaction leaves this
//! module.

use std::collections::BTreeMap;

use serde::Serialize;

use super::example::{self, Example, Lines};
use super::{assignment, jwt, pem, tokens, url};
use crate::analysis::{Source, Sources};

/// The rule ids a finding can carry.
pub const RULES: &[&str] = &[
    "aws-access-key-id",
    "aws-secret-access-key",
    "github-token",
    "github-fine-grained-pat",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-live-key",
    "google-api-key",
    "openai-api-key",
    "anthropic-api-key",
    "notion-token",
    "npm-token",
    "pypi-token",
    "sendgrid-api-key",
    "twilio-api-key",
    "huggingface-token",
    "private-key",
    "jwt",
    "generic-secret",
    "url-password",
];

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A secret: remove it and rotate it.
    Error,
    /// A value shaped like a secret that its place says is an example (see [`Example`]): shown
    /// with the reason, never blocking.
    Warning,
}

/// A hardcoded secret: where it is and what it starts with, never the secret itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct SecretFinding {
    /// One of [`RULES`].
    pub rule: &'static str,
    /// The file, relative to the skill directory.
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters. For a private key, the `-----BEGIN` marker's place.
    pub column: u32,
    /// The secret's first 4 characters, then `…` (see [`redact`]).
    pub redacted: String,
    pub level: Level,
    /// Why a warning is one; `None` for an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
}

/// A secret's place in a text: offsets, never the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hit {
    pub rule: &'static str,
    /// The secret's bytes.
    pub start: usize,
    pub end: usize,
    /// Where the finding is reported (the PEM marker before a key's body); `start` otherwise.
    pub at: usize,
    /// A generic assignment: it yields to a provider's rule over the same bytes.
    pub generic: bool,
    /// The secret's name, when the rule read one (`DB_PASSWORD` in `DB_PASSWORD=…`).
    pub name: Option<(usize, usize)>,
}

impl Hit {
    pub fn new(rule: &'static str, start: usize, end: usize) -> Self {
        Self {
            rule,
            start,
            end,
            at: start,
            generic: false,
            name: None,
        }
    }
}

/// Extensions of languages where a bare word after `=` is an expression, not a literal.
const CODE: &[&str] = &[
    "py", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "rb", "java", "kt", "kts",
    "rs", "c", "h", "cc", "cpp", "hpp", "cs", "php", "swift", "scala", "lua", "pl", "pm", "r",
    "dart", "groovy",
];

/// The hardcoded secrets in the skill's files, by file, line and column.
pub fn scan(sources: &Sources) -> Vec<SecretFinding> {
    sources.files.iter().flat_map(scan_file).collect()
}

fn scan_file(source: &Source) -> Vec<SecretFinding> {
    let text = source.text.as_str();
    let code = CODE.contains(&source.extension().as_str());
    let mut hits = find_all(text, code);
    hits.sort_by_key(|h| h.at);
    let mut place = Place::default();
    // Read only when a generic secret needs its place judged.
    let mut lines: Option<Lines<'_>> = None;
    hits.iter()
        .map(|hit| {
            let (line, column) = place.advance(text, hit.at);
            let secret = text.get(hit.start..hit.end).unwrap_or_default();
            let example = if hit.generic {
                let lines = lines.get_or_insert_with(|| Lines::new(&source.path, text));
                example::judge(source, lines, &context(text, hit, line))
            } else if matches!(hit.rule, "jwt" | "private-key") {
                // No provider's format says whose it is: in a test fixture the skill does not
                // run, a signing key or a token is the suite's.
                example::fixture(source)
            } else {
                // A provider's format with a random body is a secret wherever it is.
                None
            };
            SecretFinding {
                rule: hit.rule,
                file: source.path.clone(),
                line,
                column,
                redacted: redact(secret),
                level: if example.is_some() {
                    Level::Warning
                } else {
                    Level::Error
                },
                example,
            }
        })
        .collect()
}

/// A generic secret on its line (see [`example::Context`]).
fn context<'t>(text: &'t str, hit: &Hit, line: u32) -> example::Context<'t> {
    let bytes = text.as_bytes();
    let (name_start, name_end) = hit.name.unwrap_or((hit.start, hit.start));
    let line_start = memchr::memrchr(b'\n', &bytes[..name_start]).map_or(0, |i| i + 1);
    let line_end = memchr::memchr(b'\n', &bytes[hit.end..]).map_or(text.len(), |i| hit.end + i);
    let get = |from: usize, to: usize| text.get(from..to).unwrap_or_default();
    example::Context {
        line,
        before: get(line_start, name_start),
        name: get(name_start, name_end),
        value: get(hit.start, hit.end),
        after: get(hit.end, line_end),
    }
}

/// Every secret in `text`, without overlaps, by start.
fn find_all(text: &str, code: bool) -> Vec<Hit> {
    let mut hits = Vec::new();
    tokens::find(text, &mut hits);
    pem::find(text, &mut hits);
    jwt::find(text, &mut hits);
    assignment::find(text, code, &mut hits);
    url::find(text, &mut hits);
    resolve(hits)
}

/// Provider rules first, then generic ones, each by start; a hit overlapping one kept is
/// dropped (`token = "ghp_…"` is a GitHub token, not a generic secret).
fn resolve(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort_by_key(|h| (h.generic, h.start, std::cmp::Reverse(h.end)));
    let mut kept: BTreeMap<usize, Hit> = BTreeMap::new();
    for hit in hits {
        // Kept hits do not overlap: only the last one starting before this one ends can.
        let overlaps = kept
            .range(..hit.end.max(hit.start + 1))
            .next_back()
            .is_some_and(|(_, k)| k.end > hit.start);
        if !overlaps {
            kept.insert(hit.start, hit);
        }
    }
    kept.into_values().collect()
}

/// A cursor that turns increasing byte offsets into lines and columns in one pass.
struct Place {
    offset: usize,
    line: u32,
    column: u32,
}

impl Default for Place {
    fn default() -> Self {
        Self {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

impl Place {
    fn advance(&mut self, text: &str, to: usize) -> (u32, u32) {
        let chars = |from: usize| {
            let counted = text.get(from..to).map_or(to - from, |s| s.chars().count());
            u32::try_from(counted).unwrap_or(u32::MAX)
        };
        let passed = &text.as_bytes()[self.offset..to];
        match memchr::memrchr(b'\n', passed) {
            Some(last) => {
                let lines = memchr::memchr_iter(b'\n', passed).count();
                self.line = self
                    .line
                    .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
                self.column = 1 + chars(self.offset + last + 1);
            }
            None => self.column = self.column.saturating_add(chars(self.offset)),
        }
        self.offset = to;
        (self.line, self.column)
    }
}

/// The first 4 characters of `secret`, then `…`. A secret shorter than 8 characters shows at
/// most half of itself, so that no redaction gives a whole secret away.
pub fn redact(secret: &str) -> String {
    let len = secret.chars().count();
    let shown = if len >= 8 { 4 } else { len / 2 };
    let mut out: String = secret.chars().take(shown).collect();
    out.push('…');
    out
}

/// `text` with every secret the scan would report replaced by its redaction: for messages from
/// a skill (test failures, lint findings) before they are shown or stored. A bare value after a
/// secret's name counts, as in a `.env` file.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for hit in find_all(text, false) {
        let (Some(before), Some(secret)) =
            (text.get(copied..hit.start), text.get(hit.start..hit.end))
        else {
            continue;
        };
        out.push_str(before);
        out.push_str(&redact(secret));
        copied = hit.end;
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::testing::{
        ALNUM, BASE64, UPPER_DIGIT, expand_markers, fake, fixture_value, pem_block,
    };
    use super::*;

    fn scan_one(path: &str, text: &str) -> Vec<SecretFinding> {
        scan(&Sources::from_texts(&[(path, text)]))
    }

    fn finding(
        rule: &'static str,
        file: &str,
        line: u32,
        column: u32,
        redacted: &str,
    ) -> SecretFinding {
        SecretFinding {
            rule,
            file: file.to_owned(),
            line,
            column,
            redacted: redacted.to_owned(),
            level: Level::Error,
            example: None,
        }
    }

    #[test]
    fn each_rule_is_placed_and_redacted() {
        let value = |kind: &str| fixture_value(kind, 7).unwrap_or_default();
        let password = fake(ALNUM, 14, 8);
        let cases = [
            (
                "x.sh",
                format!("echo\nexport AWS_ACCESS_KEY_ID={}\n", value("aws-id")),
                ("aws-access-key-id", 2, 26, "AKIA"),
            ),
            (
                "x.env",
                format!("AWS_SECRET_ACCESS_KEY={}\n", value("aws-secret")),
                ("aws-secret-access-key", 1, 23, &value("aws-secret")[..4]),
            ),
            (
                "x.py",
                format!("\n\nTOKEN = \"{}\"\n", value("ghp")),
                ("github-token", 3, 10, "ghp_"),
            ),
            (
                "x.yaml",
                format!("a:\n  token: {}\n", value("github-pat")),
                ("github-fine-grained-pat", 2, 10, "gith"),
            ),
            (
                "x.md",
                format!("Run `GITLAB_TOKEN={} glab`\n", value("glpat")),
                ("gitlab-token", 1, 19, "glpa"),
            ),
            (
                "x.json",
                format!("{{\"bot\": \"{}\"}}", value("xoxb")),
                ("slack-token", 1, 10, "xoxb"),
            ),
            (
                "x.sh",
                format!("curl -X POST {} -d @msg.json\n", value("slack-webhook")),
                ("slack-webhook", 1, 14, "http"),
            ),
            (
                "x.js",
                format!("const stripe = require('stripe')('{}');", value("sk-live")),
                ("stripe-live-key", 1, 35, "sk_l"),
            ),
            (
                "x.ts",
                format!(
                    "fetch(`https://maps.googleapis.com/x?key={}`)",
                    value("google")
                ),
                ("google-api-key", 1, 42, "AIza"),
            ),
            (
                "x.txt",
                format!("\n  {}\n", value("openssh-private-key")),
                ("private-key", 2, 3, &value("openssh-private-key")[36..40]),
            ),
            (
                "x.sh",
                format!("curl -H \"Authorization: Bearer {}\"", value("jwt")),
                ("jwt", 1, 32, "eyJh"),
            ),
            (
                "x.py",
                format!("db = connect(password=\"{password}\")"),
                ("generic-secret", 1, 24, &password[..4]),
            ),
        ];
        for (path, text, (rule, line, column, shown)) in &cases {
            let shown = format!("{shown}…");
            assert_eq!(
                scan_one(path, text),
                [finding(rule, path, *line, *column, &shown)],
                "in {text:?}"
            );
        }
    }

    #[test]
    fn columns_count_characters_and_lines_count_from_one() {
        let token = fixture_value("ghp", 1).unwrap_or_default();
        let text = format!("é\u{fffd}\n# ünïcödé → {token} and {token}\r\nlast: {token}");
        let found = scan_one("notes.txt", &text);
        let places: Vec<(u32, u32)> = found.iter().map(|f| (f.line, f.column)).collect();
        assert_eq!(places, [(2, 13), (2, 58), (3, 7)]);
    }

    #[test]
    fn a_provider_rule_wins_over_the_generic_one() {
        let token = fixture_value("ghp", 2).unwrap_or_default();
        let found = scan_one("c.py", &format!("github_token = \"{token}\""));
        assert_eq!(found, [finding("github-token", "c.py", 1, 17, "ghp_…")]);
    }

    #[test]
    fn findings_never_hold_the_secret() {
        let secrets: Vec<String> = ["aws-id", "ghp", "jwt", "rsa-private-key", "password"]
            .iter()
            .filter_map(|kind| fixture_value(kind, 3))
            .collect();
        let text = format!(
            "id={}\ntoken={}\nid_token={}\nKEY='''\n{}'''\npassword={}\n",
            secrets[0], secrets[1], secrets[2], secrets[3], secrets[4]
        );
        let found = scan_one("f.env", &text);
        assert_eq!(found.len(), 5, "{found:?}");
        let shown = format!(
            "{found:?} {}",
            serde_json::to_string(&found).unwrap_or_default()
        );
        for secret in &secrets {
            let body = secret.lines().nth(1).unwrap_or(secret);
            assert!(!shown.contains(&body[..12]), "{body} shown in {shown}");
        }
    }

    #[test]
    fn redaction_shows_four_characters_at_most_half() {
        assert_eq!(redact("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "ghp_…");
        assert_eq!(redact("12345678"), "1234…");
        assert_eq!(redact("1234567"), "123…");
        assert_eq!(redact("ab"), "a…");
        assert_eq!(redact("a"), "…");
        assert_eq!(redact(""), "…");
        assert_eq!(redact("pässwörd"), "päss…");
    }

    #[test]
    fn redact_text_redacts_every_secret_and_nothing_else() {
        let token = fixture_value("ghp", 4).unwrap_or_default();
        let aws = fixture_value("aws-id", 5).unwrap_or_default();
        let key = fixture_value("rsa-private-key", 6).unwrap_or_default();
        let password = fake(ALNUM, 16, 9);
        let message = format!(
            "AssertionError: expected {token} to equal {aws}\n  password={password} (attempt 1)\n{key}\nsee https://example.org/docs"
        );
        // `-----BEGIN RSA PRIVATE KEY-----\n` is 32 bytes, the END line 29.
        let (begin, body, end) = (&key[..32], &key[32..36], &key[key.len() - 29..]);
        assert_eq!(
            redact_text(&message),
            format!(
                "AssertionError: expected ghp_… to equal AKIA…\n  password={}… (attempt 1)\n{begin}{body}…\n{end}\nsee https://example.org/docs",
                &password[..4]
            )
        );
        let clean = "2 passed, 1 failed: test_login (token: $GITHUB_TOKEN, password: <unset>)";
        assert_eq!(redact_text(clean), clean);
        assert_eq!(redact_text(""), "");
        assert_eq!(redact_text("ünï → ✓"), "ünï → ✓");
    }

    #[test]
    fn a_long_input_is_scanned_in_bounded_time() {
        // 20,000 lines of a shell script with words that wake every rule's anchor, one secret
        // near the end, and a 1 MiB minified line. (100,000 lines and 5 MiB in a release build:
        // well under a second; see the module's report.)
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!(
                "token_{i}=\"$TOKEN\" # key AKIA eyJ ghp_ -----BEGIN PRIVATE KEY----- password: x{i}\n"
            ));
        }
        let id = format!("AKIA{}", fake(UPPER_DIGIT, 16, 11));
        text.push_str(&format!("export AWS_ACCESS_KEY_ID={id}\n"));
        let minified: String = (0..30_000)
            .map(|i| format!("var a{i}={{token:t.k,key:\"eyJ{}\"}};", fake(BASE64, 8, i)))
            .collect();
        text.push_str(&minified);
        let started = std::time::Instant::now();
        let found = scan_one("big.sh", &text);
        let elapsed = started.elapsed();
        assert_eq!(
            found,
            [finding("aws-access-key-id", "big.sh", 20_001, 26, "AKIA…")]
        );
        // Generous for a debug build on a loaded machine; a quadratic scan takes minutes here.
        assert!(elapsed.as_secs() < 10, "took {elapsed:?}");
    }

    #[test]
    fn hostile_text_adversarial_for_each_rule() {
        // 256 KiB runs that match an anchor again and again: each anchor reads a bounded
        // window, so each takes milliseconds; reading to the end from each would take minutes.
        for text in [
            "AKIA".repeat(1 << 16),
            "eyJ".repeat(1 << 16),
            format!("eyJ{}", "a.".repeat(1 << 17)),
            "ghp_".repeat(1 << 16),
            "-----BEGIN PRIVATE KEY-----".repeat(10_000),
            format!("-----BEGIN PRIVATE KEY-----{}", "+".repeat(1 << 18)),
            "password=".repeat(30_000),
            "token:\"".repeat(40_000),
            "tokentokentoken".repeat(20_000),
            "hooks.slack.com/services/".repeat(10_000),
            "\u{fffd}".repeat(1 << 16),
        ] {
            let started = std::time::Instant::now();
            let _ = scan_one("hostile.js", &text);
            let _ = redact_text(&text);
            assert!(
                started.elapsed().as_secs() < 10,
                "took {:?}",
                started.elapsed()
            );
        }
    }

    /// `tests/fixtures/secrets/<dir>`: every file, its markers expanded, by relative path.
    fn fixture(dir: &str) -> Sources {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .expect("read fixture dir")
                .map(|e| e.expect("entry").path())
                .collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    let rel = path
                        .strip_prefix(root)
                        .expect("inside")
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.push((rel, std::fs::read_to_string(&path).expect("read fixture")));
                }
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/secrets")
            .join(dir);
        let mut files = Vec::new();
        walk(&root, &root, &mut files);
        let mut seed = 0;
        let files: Vec<(String, String)> = files
            .into_iter()
            .filter(|(rel, _)| rel != "expected.txt")
            .map(|(rel, text)| {
                let text = expand_markers(&text, &mut seed);
                (rel, text)
            })
            .collect();
        let borrowed: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        Sources::from_texts(&borrowed)
    }

    #[test]
    fn positive_fixtures_find_exactly_the_expected_secrets() {
        let scanned = scan(&fixture("positive"));
        // Real-format keys are errors, `# example` beside one or not.
        assert!(
            scanned
                .iter()
                .all(|f| f.level == Level::Error && f.example.is_none()),
            "{scanned:?}"
        );
        let found: Vec<String> = scanned
            .iter()
            .map(|f| {
                format!(
                    "{}:{}:{} {} {}",
                    f.file, f.line, f.column, f.rule, f.redacted
                )
            })
            .collect();
        let expected_path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/secrets/positive/expected.txt");
        let expected = std::fs::read_to_string(expected_path).expect("expected.txt");
        let expected: Vec<&str> = expected
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        assert_eq!(found, expected);
        for rule in RULES {
            assert!(
                found.iter().any(|f| f.contains(&format!(" {rule} "))),
                "no fixture for {rule}"
            );
        }
    }

    #[test]
    fn negative_fixtures_find_nothing() {
        let sources = fixture("negative");
        assert!(sources.files.len() >= 8, "{} files", sources.files.len());
        assert_eq!(scan(&sources), []);
    }

    #[test]
    fn rules_are_the_ones_findings_carry() {
        let key = pem_block("EC PRIVATE KEY", &fake(BASE64, 64, 1));
        let found = scan_one("k.txt", &key);
        assert!(found.iter().all(|f| RULES.contains(&f.rule)));
        assert_eq!(found.len(), 1);
    }
}
