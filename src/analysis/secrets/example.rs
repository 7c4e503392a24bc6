//! Where a value shaped like a secret is an example: in a test fixture, next to a word that says
//! so, under a Markdown label, or as the textbook sample password. Only secrets without a
//! provider's format are judged by their place: a provider key of valid format and entropy is a
//! secret wherever it is, `# example` beside it or not.

use std::fmt;

use serde::Serialize;

use super::placeholder;

/// Why a finding is only a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Example {
    /// A file of a test suite or its fixtures (`tests/`, `fixtures/`, `test_*.py`, `*.test.js`).
    TestFixture,
    /// A word people build sample passwords from, a sequence or a year (`Password123!`).
    SamplePassword,
    /// A word on the line says so (`example`, `test`, `your`, `dummy`, …).
    WordOnLine(&'static str),
    /// In Markdown, under a label that says example (the paragraph, the line before a code
    /// block, or the heading above), at this 1-based line.
    Labelled(u32),
}

impl fmt::Display for Example {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TestFixture => f.write_str("in a test fixture"),
            Self::SamplePassword => f.write_str("a sample password (words, a sequence, a year)"),
            Self::WordOnLine(word) => write!(f, "`{word}` on its line"),
            Self::Labelled(line) => write!(f, "an example in Markdown, labelled at line {line}"),
        }
    }
}

impl Serialize for Example {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Words that, on a secret's line, say the value is not a real one. Matched as whole words,
/// `snake_case` and `camelCase` parts included (`TEST_PASSWORD`, `dummyToken`), never inside
/// one (`latest`, `pytest`).
const LINE_WORDS: &[&str] = &[
    "example",
    "examples",
    "sample",
    "samples",
    "dummy",
    "fake",
    "test",
    "tests",
    "testing",
    "mock",
    "mocked",
    "placeholder",
    "your",
    "changeme",
    "demo",
    "fixture",
    "fixtures",
];

/// Words that label Markdown prose or a code block as an example.
const LABEL_WORDS: &[&str] = &[
    "example",
    "examples",
    "sample",
    "samples",
    "illustrative",
    "illustration",
    "placeholder",
    "dummy",
    "fake",
];

/// Why the secret at `line` (1-based) of the file at `path` is an example, when it is one.
/// `lines` are the file's lines, `value` the secret.
pub fn judge(path: &str, lines: &Lines<'_>, line: u32, value: &str) -> Option<Example> {
    if is_test_path(path) {
        return Some(Example::TestFixture);
    }
    if placeholder::is_sample_password(value) {
        return Some(Example::SamplePassword);
    }
    let text = lines.get(line)?;
    // The value's own words are not the line's: `secret_abc…` says nothing about its place.
    let around = text.replacen(value, " ", 1);
    if let Some(word) = word_in(&around, LINE_WORDS) {
        return Some(Example::WordOnLine(word));
    }
    lines.label(line).map(Example::Labelled)
}

/// The first of `words` in `text`, as a whole word or a part of an identifier.
fn word_in(text: &str, words: &[&'static str]) -> Option<&'static str> {
    if text.contains("e.g.") && words.contains(&"example") {
        return Some("e.g.");
    }
    let mut found = None;
    for_each_word(text, |word| {
        if found.is_none() {
            let lower = word.to_ascii_lowercase();
            found = words.iter().find(|w| **w == lower).copied().or_else(|| {
                (lower.len() >= 3 && lower.bytes().all(|b| b == b'x')).then_some("xxx")
            });
        }
    });
    found
}

/// Letters only, split at every other character and where case turns up (`dummyToken` →
/// `dummy`, `Token`).
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut start = None;
    for i in 0..=bytes.len() {
        let b = bytes.get(i).copied().unwrap_or(b' ');
        let letter = b.is_ascii_alphabetic();
        let hump = letter && i > 0 && bytes[i - 1].is_ascii_lowercase() && b.is_ascii_uppercase();
        if let Some(s) = start
            && (!letter || hump)
        {
            f(&text[s..i]);
            start = None;
        }
        if letter && start.is_none() {
            start = Some(i);
        }
    }
}

/// Directories of test suites and their data.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "fixtures",
    "fixture",
    "__fixtures__",
    "testdata",
    "test-data",
    "test_data",
    "__mocks__",
    "mocks",
    "e2e",
];

/// A file of a test suite or its data: under a test directory, or named as test frameworks
/// name their files (`test_x.py`, `x_test.py`, `x_test.go`, `x.test.ts`, `x.spec.js`,
/// `x_spec.rb`, `XTest.java`, `conftest.py`, `x.bats`).
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    if parts
        .iter()
        .any(|dir| TEST_DIRS.contains(&dir.to_ascii_lowercase().as_str()))
    {
        return true;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let inner = stem.rsplit_once('.').map(|(_, inner)| inner);
    (stem.starts_with("test_") && ext == "py")
        || (stem.ends_with("_test") && matches!(ext, "py" | "go" | "rb" | "rs" | "sh"))
        || (stem.ends_with("_spec") && ext == "rb")
        || matches!(inner, Some("test" | "spec"))
        || ((stem.ends_with("Test") || stem.ends_with("Tests"))
            && matches!(ext, "java" | "kt" | "cs" | "swift" | "php"))
        || name == "conftest.py"
        || ext == "bats"
}

/// A file's lines, and for Markdown, which lines an example label covers.
pub struct Lines<'a> {
    lines: Vec<&'a str>,
    /// For Markdown: the label's 1-based line for each line it covers, 0 for none.
    labels: Vec<u32>,
}

impl<'a> Lines<'a> {
    pub fn new(path: &str, text: &'a str) -> Self {
        let lines: Vec<&str> = text.split('\n').collect();
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let markdown = matches!(ext.as_deref(), Some("md" | "markdown" | "mdx"));
        let labels = if markdown {
            markdown_labels(&lines)
        } else {
            Vec::new()
        };
        Self { lines, labels }
    }

    fn get(&self, line: u32) -> Option<&'a str> {
        self.lines
            .get(usize::try_from(line).ok()?.checked_sub(1)?)
            .copied()
    }

    fn label(&self, line: u32) -> Option<u32> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.labels.get(index).copied().filter(|&l| l > 0)
    }
}

/// Blocks of a Markdown file: a paragraph is labelled by a label word in it, a fenced code
/// block by one in its info string or in the last line of prose before it; either by a
/// heading above them that holds one (`## Examples`), up to the next heading.
fn markdown_labels(lines: &[&str]) -> Vec<u32> {
    let mut labels = vec![0u32; lines.len()];
    let line_no = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
    let labelled = |text: &str| word_in(text, LABEL_WORDS).is_some();
    let mut heading = 0u32;
    // The last line of prose before the current point, when it labels what follows.
    let mut lead_in = 0u32;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if let Some(fence) = ["```", "~~~"].iter().find(|f| line.starts_with(**f)) {
            let label = if labelled(&line[fence.len()..]) {
                line_no(i)
            } else if lead_in > 0 {
                lead_in
            } else {
                heading
            };
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim_start().starts_with(fence))
                .unwrap_or(lines.len());
            for slot in &mut labels[i..lines.len().min(end + 1)] {
                *slot = label;
            }
            i = end + 1;
            lead_in = 0;
            continue;
        }
        if line.starts_with('#') {
            heading = if labelled(line) { line_no(i) } else { 0 };
            lead_in = 0;
            labels[i] = heading;
            i += 1;
            continue;
        }
        if line.is_empty() {
            i += 1;
            continue;
        }
        // A paragraph: up to a blank line, a heading or a fence.
        let end = (i..lines.len())
            .find(|&j| {
                let l = lines[j].trim_start();
                l.is_empty() || l.starts_with('#') || l.starts_with("```") || l.starts_with("~~~")
            })
            .unwrap_or(lines.len());
        let own = (i..end).find(|&j| labelled(lines[j])).map(line_no);
        let label = own.unwrap_or(heading);
        for slot in &mut labels[i..end] {
            *slot = label;
        }
        lead_in = own.map_or(0, |_| line_no(end - 1));
        i = end;
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(path: &str, text: &str, value: &str) -> Option<Example> {
        let lines = Lines::new(path, text);
        let line = text
            .split('\n')
            .position(|l| l.contains(value))
            .map(|i| u32::try_from(i + 1).unwrap_or(0))
            .unwrap_or(0);
        judge(path, &lines, line, value)
    }

    #[test]
    fn test_files_and_directories() {
        for path in [
            "tests/test_api.py",
            "tests/data/config.json",
            "scripts/test_auth.py",
            "lib/auth_test.go",
            "src/auth.test.ts",
            "src/auth.spec.js",
            "spec/auth_spec.rb",
            "src/AuthTest.java",
            "conftest.py",
            "test/run.bats",
            "fixtures/creds.env",
            "src/__mocks__/client.js",
            "testdata/token.txt",
        ] {
            assert!(is_test_path(path), "{path} is a test file");
        }
        for path in [
            "scripts/deploy.sh",
            "SKILL.md",
            "scripts/latest.py",
            "contest/run.py",
            "scripts/testing_notes.md",
            "test.sh",
            "attestation.json",
        ] {
            assert!(!is_test_path(path), "{path} is no test file");
        }
    }

    #[test]
    fn words_on_the_line_whole_or_in_an_identifier() {
        let v = "q7Rk2mXz9LpW";
        for (text, word) in [
            (format!("password = \"{v}\"  # example"), "example"),
            (format!("TEST_PASSWORD={v}"), "test"),
            (format!("const dummyToken = '{v}';"), "dummy"),
            (
                format!("api_key: {v}  # your key, e.g. from the console"),
                "e.g.",
            ),
            (format!("token: {v} # XXXX"), "xxx"),
            (format!("password: {v}  # changeme"), "changeme"),
        ] {
            assert_eq!(
                judged("x.yaml", &text, v),
                Some(Example::WordOnLine(word)),
                "{text}"
            );
        }
        for text in [
            format!("password = \"{v}\"  # latest"),
            format!("pytest_password = \"{v}\""),
            format!("PROD_PASSWORD={v}"),
        ] {
            assert_eq!(judged("x.env", &text, v), None, "{text}");
        }
    }

    #[test]
    fn sample_passwords_wherever_they_are() {
        for value in [
            "Password123!",
            "StrongPass@2025!",
            "Admin@1234",
            "P@ssw0rd2024",
        ] {
            assert_eq!(
                judged("deploy.sh", &format!("PASS='{value}'"), value),
                Some(Example::SamplePassword),
                "{value}"
            );
        }
        assert_eq!(
            judged("deploy.sh", "PASS='q7Rk2mXz9LpW'", "q7Rk2mXz9LpW"),
            None
        );
    }

    #[test]
    fn markdown_labels_cover_their_paragraph_block_or_section() {
        let v = "q7Rk2mXz9LpW";
        let text = format!(
            "# Setup\n\nExample compliant password: `{v}1`\n\nAn example request:\n\n```bash\ncurl -u admin:{v}2 https://api\n```\n\n```bash\nexport DB_PASSWORD={v}3\n```\n\n## Examples\n\nThe key `{v}4` works.\n\n## Deploy\n\nSet `DB_PASSWORD={v}5`.\n"
        );
        let cases = [
            (format!("{v}1"), Some(Example::WordOnLine("example"))),
            (format!("{v}2"), Some(Example::Labelled(5))),
            (format!("{v}3"), None),
            (format!("{v}4"), Some(Example::Labelled(15))),
            (format!("{v}5"), None),
        ];
        for (value, expected) in cases {
            assert_eq!(judged("SKILL.md", &text, &value), expected, "{value}");
        }
        // Not Markdown: no labels.
        assert_eq!(judged("notes.txt", &text, &format!("{v}2")), None);
    }
}
