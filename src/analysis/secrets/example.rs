//! Where a value shaped like a secret is an example: in a test fixture the skill does not run,
//! under a name or made of words that say so (`TEST_PASSWORD`, `dummy-…`), beside an explicit
//! label (`# example`, `e.g. <value>`, a line that opens with `Example:`), in Markdown under an
//! example lead-in or in an examples section, or as the textbook sample password. Words
//! elsewhere on the line (a file name, another identifier, a comment about something else, a
//! document's title) say nothing about the value.
//!
//! Only secrets without a provider's format are judged by their place, and JWTs and private keys
//! by the test-fixture rule alone: a provider key of valid format and entropy is a secret
//! wherever it is, `# example` beside it or not.

use std::fmt;

use serde::Serialize;

use super::placeholder;
use crate::analysis::Source;
use crate::analysis::paths::is_test_path;

/// Why a finding is only a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Example {
    /// A file of a test suite or its data (`tests/`, `fixtures/`, `test_*.py`, `*.test.js`, see
    /// [`is_test_path`]) that no file of the skill runs or sources.
    TestFixture,
    /// A word people build sample passwords from, a sequence or a year (`Password123!`).
    SamplePassword,
    /// A word of the secret's own name (`TEST_PASSWORD`, `dummyToken`).
    Name(&'static str),
    /// A word of the value, between separators (`test-9f3kLm2Q`).
    Value(&'static str),
    /// An explicit label on its line: a comment after it that opens with one (`# example`,
    /// `// your key`), `e.g.` right before it, or a line of prose or a comment that opens with
    /// one (`Example: …`, `For example, …`).
    Label(&'static str),
    /// In Markdown, in a block an example label covers (a paragraph that opens with one, a code
    /// block after a lead-in that says example, an examples section), labelled at this 1-based
    /// line.
    Labelled(u32),
}

impl fmt::Display for Example {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TestFixture => f.write_str("in a test fixture"),
            Self::SamplePassword => f.write_str("a sample password (words, a sequence, a year)"),
            Self::Name(word) => write!(f, "`{word}` in its name"),
            Self::Value(word) => write!(f, "`{word}` in the value"),
            Self::Label(word) => write!(f, "`{word}` on its line"),
            Self::Labelled(line) => write!(f, "an example in Markdown, labelled at line {line}"),
        }
    }
}

impl Serialize for Example {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Words that, in a secret's own name or as a part of its value, say it is not a real one.
/// Matched as whole words, `snake_case` and `camelCase` parts of a name included
/// (`TEST_PASSWORD`, `dummyToken`), never inside one (`latest`, `pytest`).
const NAME_WORDS: &[&str] = &[
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

/// Words a comment after a secret opens with when it labels it (`# example`, `// your key`,
/// `# replace me`). `test` is not one: `# rotated after the load test` says nothing of the
/// value, and neither does `# e.g. a status probe`.
const COMMENT_LABELS: &[&str] = &[
    "example",
    "examples",
    "sample",
    "dummy",
    "fake",
    "placeholder",
    "your",
    "changeme",
    "replace",
    "demo",
    "mock",
];

/// What comes right before a secret (or its name) when it labels it: `e.g. `…``,
/// `for example `…``, `Example: …`.
const LABELS_BEFORE: &[(&str, &str)] = &[
    ("e.g.", "e.g."),
    ("e.g", "e.g."),
    ("for example", "example"),
    ("for instance", "for instance"),
    ("example", "example"),
    ("examples", "example"),
];

/// Words a lead-in may hold before its label: `For example`, `Here is an example`, `In this
/// example`, `A sample request`.
const FILLERS: &[&str] = &[
    "for",
    "here",
    "here's",
    "heres",
    "is",
    "are",
    "an",
    "a",
    "another",
    "some",
    "the",
    "following",
    "this",
    "these",
    "see",
    "below",
    "one",
    "more",
    "as",
    "in",
    "use",
    "try",
];

/// What `Sample` labels when it opens a lead-in or a heading (`Sample output`, `Sample
/// request:`); `Sample Data Generator` is a name, not a label.
const SAMPLE_NOUNS: &[&str] = &[
    "output",
    "outputs",
    "request",
    "requests",
    "response",
    "responses",
    "usage",
    "call",
    "calls",
    "session",
    "config",
    "configuration",
    "file",
    "env",
    "values",
    "code",
    "command",
    "commands",
    "invocation",
    "input",
    "payload",
    "query",
    "run",
    "credentials",
    "password",
    "key",
    "token",
    "secret",
];

/// A generic secret where it stands: its 1-based line, the text of the line before its name
/// (before the value when it has none), its name (`""` when none), the value and the rest of
/// the line after it.
pub struct Context<'t> {
    pub line: u32,
    pub before: &'t str,
    pub name: &'t str,
    pub value: &'t str,
    pub after: &'t str,
}

/// [`Example::TestFixture`] for a test file the skill does not run or source: what the skill
/// runs is what it does, wherever the file lives and whatever its name
/// (`source ../tests/config.env`, `python3 scripts/test_connection.py` in `SKILL.md`).
pub fn fixture(source: &Source) -> Option<Example> {
    (is_test_path(&source.path) && !source.run_by_skill).then_some(Example::TestFixture)
}

/// Why the generic secret `at` in `source` is an example, when it is one. `lines` are the
/// file's lines.
pub fn judge(source: &Source, lines: &Lines<'_>, at: &Context<'_>) -> Option<Example> {
    if let Some(example) = fixture(source) {
        return Some(example);
    }
    if placeholder::is_sample_password(at.value) {
        return Some(Example::SamplePassword);
    }
    if let Some(word) = word_in(at.name, NAME_WORDS) {
        return Some(Example::Name(word));
    }
    if let Some(word) = value_word(at.value) {
        return Some(Example::Value(word));
    }
    if let Some(label) = line_label(lines, at) {
        return Some(Example::Label(label));
    }
    lines.label(at.line).map(Example::Labelled)
}

/// The first of `words` in `text`, as a whole word or a part of an identifier.
fn word_in(text: &str, words: &[&'static str]) -> Option<&'static str> {
    let mut found = None;
    for_each_word(text, |word| {
        if found.is_none() {
            found = as_word(word, words);
        }
    });
    found
}

/// `word` (any case) when it is one of `words`, or `xxx` for a run of `x`.
fn as_word(word: &str, words: &[&'static str]) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    words
        .iter()
        .find(|w| **w == lower)
        .copied()
        .or_else(|| (lower.len() >= 3 && lower.bytes().all(|b| b == b'x')).then_some("xxx"))
}

/// A part of the value between separators (digits after it aside) that is one of
/// [`NAME_WORDS`]: `test-9f3kLm2Q`, `q7Rk2m_dummy`. A random value holds one about once in ten
/// million; one inside a run of letters (`k3TestZr8`) is chance and does not count.
fn value_word(value: &str) -> Option<&'static str> {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(|part| part.trim_end_matches(|c: char| c.is_ascii_digit()))
        .filter(|part| part.bytes().all(|b| b.is_ascii_alphabetic()))
        .find_map(|part| as_word(part, NAME_WORDS))
}

/// An explicit label on the secret's line (see [`Example::Label`]).
fn line_label(lines: &Lines<'_>, at: &Context<'_>) -> Option<&'static str> {
    if let Some(label) = comment(at.after).and_then(comment_label) {
        return Some(label);
    }
    if let Some(label) = label_before(at.before) {
        return Some(label);
    }
    let text = lines.get(at.line)?;
    let trimmed = text.trim_start();
    let prose = lines.is_prose(at.line);
    // A Markdown heading is labelled as a section or not at all (see [`heading_label`]).
    if prose && lines.is_markdown() && trimmed.starts_with('#') {
        return None;
    }
    if let Some(rest) = strip_comment_marker(trimmed) {
        return lead_label(rest);
    }
    prose.then(|| lead_label(trimmed)).flatten()
}

/// Markers that open a comment.
const COMMENT_MARKERS: &[&str] = &["<!--", "//", "/*", "-- ", "#", ";"];

/// The text of a comment in `after` (the rest of a line after a value): a marker at its start
/// or after a blank or a closing quote, as in `"…"  # example`. `#` inside a value or a URL's
/// `//` opens none.
fn comment(after: &str) -> Option<&str> {
    let bytes = after.as_bytes();
    (0..bytes.len()).find_map(|i| {
        let opens = i == 0 || bytes[i - 1].is_ascii_whitespace() || (i == 1 && quote(bytes[0]));
        let marker = COMMENT_MARKERS
            .iter()
            .filter(|m| **m != ";")
            .find(|m| bytes[i..].starts_with(m.as_bytes()))?;
        opens.then(|| after.get(i + marker.len()..)).flatten()
    })
}

fn quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`')
}

/// The label a comment opens with (`example`, `your key`, `XXXX`), `e.g.` aside: in
/// `# e.g. a status probe` it speaks of something else.
fn comment_label(comment: &str) -> Option<&'static str> {
    let text = comment.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let word: &str = &text[..text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len())];
    if word.eq_ignore_ascii_case("e") {
        return None;
    }
    as_word(word, COMMENT_LABELS)
}

/// `e.g.`, `for example` or `Example:` right before the secret or its name (quotes, backticks,
/// emphasis and a colon between them aside; `example(password=…)` is a call): `e.g. `q7Rk…``, `For example: DB_PASSWORD=…`.
fn label_before(before: &str) -> Option<&'static str> {
    let trimmed = before.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '"' | '\'' | ':' | ',' | '*' | '_')
    });
    let lower = trimmed.to_ascii_lowercase();
    LABELS_BEFORE.iter().find_map(|(label, shown)| {
        let start = lower.strip_suffix(label)?;
        let boundary = !start
            .bytes()
            .next_back()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        boundary.then_some(*shown)
    })
}

/// The rest of a comment line after its marker, `None` for a line that is no comment.
fn strip_comment_marker(trimmed: &str) -> Option<&str> {
    let marker = COMMENT_MARKERS
        .iter()
        .chain(&["*", "--"])
        .find(|m| trimmed.starts_with(**m))?;
    Some(&trimmed[marker.len()..])
}

/// The label a phrase opens with: `Example:`, `For example,`, `An example request:`, `Here is
/// a sample response:`, `e.g.`. Never an identifier (`examples_dir = …`, `sample.py`), nor
/// `Sample` in a name (`Sample Data Generator`).
fn lead_label(text: &str) -> Option<&'static str> {
    let text = text.trim_start_matches(|c: char| !c.is_ascii_alphabetic());
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("e.g.") || lower.starts_with("e.g,") {
        return Some("e.g.");
    }
    let words = prose_words(&lower);
    let at = words.iter().position(|w| !FILLERS.contains(&w.text))?;
    let (word, next) = (&words[at], words.get(at + 1));
    match word.text {
        "example" | "examples" => Some("example"),
        "instance" if at > 0 && words[at - 1].text == "for" => Some("for instance"),
        "sample" | "samples"
            if word.colon || next.is_none_or(|n| SAMPLE_NOUNS.contains(&n.text)) =>
        {
            Some("sample")
        }
        _ => None,
    }
}

/// A word of a lead-in: lowercase letters (an apostrophe included), and whether a colon
/// follows it.
struct Word<'a> {
    text: &'a str,
    colon: bool,
}

/// The first words of lowercase `text` as prose: up to 8, stopped by anything but letters,
/// blanks, commas and colons, and by a word that is part of an identifier or a path
/// (`examples_dir`, `sample.py`, `example-cli`, `example=`).
fn prose_words(text: &str) -> Vec<Word<'_>> {
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    while i < bytes.len() && words.len() < 8 {
        match bytes[i] {
            b' ' | b'\t' | b',' | b':' => i += 1,
            b if b.is_ascii_lowercase() => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_lowercase() || bytes[i] == b'\'') {
                    i += 1;
                }
                let next = bytes.get(i).copied();
                let joined = bytes.get(i + 1).is_some_and(u8::is_ascii_alphanumeric);
                let identifier = match next {
                    Some(b'_' | b'=' | b'/' | b'(') => true,
                    Some(b) if b.is_ascii_digit() => true,
                    Some(b'-' | b'.') => joined,
                    _ => false,
                };
                if identifier {
                    break;
                }
                let rest = text[i..].trim_start_matches([' ', '\t']);
                words.push(Word {
                    text: &text[start..i],
                    colon: rest.starts_with(':'),
                });
            }
            _ => break,
        }
    }
    words
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

/// What kind of text a file holds, for where prose is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Markdown,
    /// Plain text: every line is prose.
    Text,
    Code,
}

/// A file's lines, and for Markdown, which lines are prose and which an example label covers.
pub struct Lines<'a> {
    lines: Vec<&'a str>,
    kind: Kind,
    /// For Markdown: the label's 1-based line for each line it covers, 0 for none.
    labels: Vec<u32>,
    /// For Markdown: whether each line is in a fenced code block.
    fenced: Vec<bool>,
}

impl<'a> Lines<'a> {
    pub fn new(path: &str, text: &'a str) -> Self {
        let lines: Vec<&str> = text.split('\n').collect();
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let kind = match ext.as_deref() {
            Some("md" | "markdown" | "mdx") => Kind::Markdown,
            Some("txt" | "text" | "rst") => Kind::Text,
            _ => Kind::Code,
        };
        let (labels, fenced) = if kind == Kind::Markdown {
            markdown_labels(&lines)
        } else {
            (Vec::new(), Vec::new())
        };
        Self {
            lines,
            kind,
            labels,
            fenced,
        }
    }

    fn index(line: u32) -> Option<usize> {
        usize::try_from(line).ok()?.checked_sub(1)
    }

    fn get(&self, line: u32) -> Option<&'a str> {
        self.lines.get(Self::index(line)?).copied()
    }

    fn is_markdown(&self) -> bool {
        self.kind == Kind::Markdown
    }

    /// A line of prose: plain text, or Markdown outside a code block.
    fn is_prose(&self, line: u32) -> bool {
        match self.kind {
            Kind::Text => true,
            Kind::Markdown => Self::index(line)
                .and_then(|i| self.fenced.get(i))
                .is_some_and(|fenced| !fenced),
            Kind::Code => false,
        }
    }

    fn label(&self, line: u32) -> Option<u32> {
        self.labels
            .get(Self::index(line)?)
            .copied()
            .filter(|&l| l > 0)
    }
}

/// Whether a Markdown heading names an examples section (`## Examples`, `## Usage example`,
/// `### Example: a dry run`, `## Sample output`). A document's title (`# Sample Data
/// Generator`, `# Example Corp Sync`) labels nothing: a level-1 heading counts only when it is
/// nothing but the label (`# Examples`).
fn heading_label(line: &str) -> bool {
    let level = line.bytes().take_while(|b| *b == b'#').count();
    let mut words: Vec<String> = Vec::new();
    for_each_word(&line[level..], |w| words.push(w.to_ascii_lowercase()));
    let is = |w: Option<&String>, of: &[&str]| w.is_some_and(|w| of.contains(&w.as_str()));
    let example = ["example", "examples"];
    let sample = ["sample", "samples"];
    if level == 1 {
        return !words.is_empty()
            && words
                .iter()
                .all(|w| example.contains(&w.as_str()) || sample.contains(&w.as_str()));
    }
    is(words.first(), &example)
        || is(words.last(), &example)
        || is(words.last(), &["samples"])
        || (is(words.first(), &sample) && (words.len() == 1 || is(words.get(1), SAMPLE_NOUNS)))
}

/// Whether the last line of prose before a code block leads into it as an example: it opens
/// with a label (`Example:`, `An example request:`), or ends with a colon and says example
/// (`Run it, for example:`).
fn leads_into_example(line: &str) -> bool {
    let trimmed = line.trim_end().trim_end_matches(['*', '_']);
    lead_label(line).is_some()
        || (trimmed.ends_with(':')
            && (word_in(trimmed, &["example", "examples"]).is_some() || trimmed.contains("e.g.")))
}

/// Blocks of a Markdown file: a paragraph is labelled from a line of it that opens with a label
/// (`For example, …`) to its end; a fenced code block by a label in its info string or a
/// lead-in right before it (see [`leads_into_example`]); either by an examples section's
/// heading above them (see [`heading_label`]), up to the next heading. Also which lines are in
/// a fenced code block.
fn markdown_labels(lines: &[&str]) -> (Vec<u32>, Vec<bool>) {
    let mut labels = vec![0u32; lines.len()];
    let mut fenced = vec![false; lines.len()];
    let line_no = |i: usize| u32::try_from(i + 1).unwrap_or(u32::MAX);
    let mut heading = 0u32;
    // The line of prose right before the current point, when it leads into an example.
    let mut lead_in = 0u32;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if let Some(fence) = ["```", "~~~"].iter().find(|f| line.starts_with(**f)) {
            let info = &line[fence.len()..];
            let label = if word_in(info, &["example", "examples", "sample", "samples"]).is_some() {
                line_no(i)
            } else if lead_in > 0 {
                lead_in
            } else {
                heading
            };
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].trim_start().starts_with(fence))
                .unwrap_or(lines.len());
            let block = i..lines.len().min(end + 1);
            labels[block.clone()].fill(label);
            fenced[block].fill(true);
            i = end + 1;
            lead_in = 0;
            continue;
        }
        if line.starts_with('#') {
            heading = if heading_label(line) { line_no(i) } else { 0 };
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
        let mut label = heading;
        for (j, slot) in labels.iter_mut().enumerate().take(end).skip(i) {
            let text = lines[j]
                .trim_start()
                .trim_start_matches(['-', '*', '+', '>', ' ']);
            if label == heading && lead_label(text).is_some() {
                label = line_no(j);
            }
            *slot = label;
        }
        let last = lines[end - 1];
        lead_in = if label != heading || leads_into_example(last) {
            line_no(end - 1)
        } else {
            0
        };
        i = end;
    }
    (labels, fenced)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The judgement of the generic secret `value` in `text` at `path`, named `name` when the
    /// line holds it before the value.
    fn judged_at(source: &Source, name: &str, value: &str) -> Option<Example> {
        let text = source.text.as_str();
        let lines = Lines::new(&source.path, text);
        let (index, line) = text
            .split('\n')
            .enumerate()
            .find(|(_, l)| l.contains(value))
            .expect("value in text");
        let at = line.find(value).expect("value on its line");
        let name_at = line[..at].rfind(name).filter(|_| !name.is_empty());
        let context = Context {
            line: u32::try_from(index + 1).unwrap_or(0),
            before: &line[..name_at.unwrap_or(at)],
            name,
            value,
            after: &line[at + value.len()..],
        };
        judge(source, &lines, &context)
    }

    fn judged(path: &str, text: &str, name: &str, value: &str) -> Option<Example> {
        judged_at(&Source::new(path, text), name, value)
    }

    #[test]
    fn test_files_and_directories() {
        for path in [
            "tests/test_api.py",
            "tests/data/config.json",
            "Tests/config.env",
            "scripts/test_auth.py",
            "lib/auth_test.go",
            "src/auth.test.ts",
            "src/auth.spec.js",
            "spec/auth_spec.rb",
            "specs/auth.md",
            "src/AuthTest.java",
            "conftest.py",
            "test.sh",
            "test/run.bats",
            "fixtures/creds.env",
            "src/__mocks__/client.js",
            "mocks/client.js",
            "e2e/login.sh",
            "testdata/token.txt",
            "test-data/token.txt",
            "test_data/token.txt",
        ] {
            assert!(is_test_path(path), "{path} is a test file");
        }
        for path in [
            "scripts/deploy.sh",
            "SKILL.md",
            "scripts/latest.py",
            "contest/run.py",
            "scripts/testing_notes.md",
            "attestation.json",
            "src/Contest.java",
            "e2e.md",
        ] {
            assert!(!is_test_path(path), "{path} is no test file");
        }
    }

    #[test]
    fn a_test_file_the_skill_runs_is_no_fixture() {
        let v = "q8ZtR3vLk2Xw9PmN4bYc7HdJ6sFg1AeQ5uTo0iWy";
        for path in ["tests/config.env", "scripts/test_connection.py"] {
            let text = format!("API_KEY = \"{v}\"\n");
            let mut source = Source::new(path, &text);
            assert_eq!(
                judged_at(&source, "API_KEY", v),
                Some(Example::TestFixture),
                "{path}"
            );
            source.run_by_skill = true;
            assert_eq!(judged_at(&source, "API_KEY", v), None, "{path} is run");
        }
        // Marked by what runs it: a script `SKILL.md` runs sources the test directory's file, a
        // `SKILL.md` fence runs the script named like a test.
        let mut sources = crate::analysis::Sources::from_texts(&[
            (
                "SKILL.md",
                "```bash\npython3 scripts/test_connection.py\nbash scripts/run.sh\n```\n",
            ),
            (
                "scripts/run.sh",
                "#!/bin/bash\nsource \"$(dirname \"$0\")/../tests/config.env\"\n",
            ),
            ("tests/config.env", "API_KEY=x\n"),
            ("scripts/test_connection.py", "API_KEY = 'x'\n"),
            ("tests/test_api.py", "API_KEY = 'x'\n"),
        ]);
        crate::analysis::runs::mark(&mut sources);
        let fixtures: Vec<&str> = sources
            .files
            .iter()
            .filter(|s| fixture(s).is_some())
            .map(|s| s.path.as_str())
            .collect();
        assert_eq!(fixtures, ["tests/test_api.py"]);
    }

    #[test]
    fn the_name_and_the_value_speak_for_it() {
        let v = "q7Rk2mXz9LpW";
        for (name, text, expected) in [
            (
                "TEST_PASSWORD",
                format!("TEST_PASSWORD={v}"),
                Example::Name("test"),
            ),
            (
                "dummyToken",
                format!("const dummyToken = '{v}';"),
                Example::Name("dummy"),
            ),
            (
                "EXAMPLE_KEY",
                format!("EXAMPLE_KEY: {v}"),
                Example::Name("example"),
            ),
        ] {
            assert_eq!(judged("x.js", &text, name, v), Some(expected), "{text}");
        }
        for (value, word) in [("test-9f3kLm2QwZ", "test"), ("q7Rk2mXz_dummy1", "dummy")] {
            let text = format!("password = \"{value}\"");
            assert_eq!(
                judged("x.py", &text, "password", value),
                Some(Example::Value(word)),
                "{text}"
            );
        }
        // Inside a run of letters it is chance, not a word.
        let text = "password = \"k3J9xQ2mTestZr8T\"";
        assert_eq!(judged("x.py", text, "password", "k3J9xQ2mTestZr8T"), None);
    }

    #[test]
    fn explicit_labels_on_the_line() {
        let v = "q7Rk2mXz9LpW";
        for (name, text, label) in [
            (
                "password",
                format!("password = \"{v}\"  # example"),
                "example",
            ),
            (
                "password",
                format!("password = \"{v}\"# example"),
                "example",
            ),
            (
                "api_key",
                format!("api_key: {v}  # your key, e.g. from the console"),
                "your",
            ),
            ("token", format!("token: {v} # XXXX"), "xxx"),
            ("password", format!("password: {v}  # changeme"), "changeme"),
            (
                "apiKey",
                format!("const apiKey = '{v}'; // placeholder"),
                "placeholder",
            ),
            ("", format!("Set the key, e.g. `{v}`."), "e.g."),
            ("DB_PASSWORD", format!("e.g. `DB_PASSWORD={v}`"), "e.g."),
            (
                "DB_PASSWORD",
                format!("# Example: DB_PASSWORD={v}"),
                "example",
            ),
            (
                "DB_PASSWORD",
                format!("// For example, DB_PASSWORD={v}"),
                "example",
            ),
        ] {
            assert_eq!(
                judged("x.sh", &text, name, v),
                Some(Example::Label(label)),
                "{text}"
            );
        }
        // Prose that opens with a label, in Markdown or plain text.
        for path in ["SKILL.md", "notes.txt"] {
            let text = format!("Example compliant password: `{v}`");
            assert_eq!(
                judged(path, &text, "password", v),
                Some(Example::Label("example")),
                "{path}"
            );
        }
    }

    #[test]
    fn words_elsewhere_on_the_line_say_nothing() {
        let v = "Hq3ZtR7vLk2Xw9Pm";
        for (path, name, text) in [
            (
                "x.sh",
                "API_KEY",
                format!("API_KEY=\"{v}\" # rotated after the load test"),
            ),
            (
                "SKILL.md",
                "--token",
                format!("python3 scripts/test_connection.py --token {v}"),
            ),
            (
                "x.sh",
                "X-Api-Key",
                format!(
                    "curl -H \"X-Api-Key: {v}\" http://localhost:8080/ping # e.g. a status probe"
                ),
            ),
            (
                "x.sh",
                "PGPASSWORD",
                format!("PGPASSWORD='{v}' psql -U your_user"),
            ),
            (
                "x.py",
                "password",
                format!("examples_dir = 'x'; password = \"{v}\""),
            ),
            ("x.sh", "password", format!("sample-cli --password {v}")),
            ("x.py", "password", format!("password = \"{v}\"  # latest")),
            (
                "x.py",
                "pytest_password",
                format!("pytest_password = \"{v}\""),
            ),
            ("x.env", "PROD_PASSWORD", format!("PROD_PASSWORD={v}")),
            (
                "x.env",
                "DB_PASSWORD",
                format!("DB_PASSWORD={v} # see tests/example.md"),
            ),
            (
                "x.sh",
                "",
                format!("psql postgres://app:{v}@db/app  # test db"),
            ),
            // In a code file, only a comment line leads in.
            ("x.py", "password", format!("example(password=\"{v}\")")),
        ] {
            assert_eq!(judged(path, &text, name, v), None, "{path}: {text}");
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
                judged("deploy.sh", &format!("PASS='{value}'"), "PASS", value),
                Some(Example::SamplePassword),
                "{value}"
            );
        }
        assert_eq!(
            judged("deploy.sh", "PASS='q7Rk2mXz9LpW'", "PASS", "q7Rk2mXz9LpW"),
            None
        );
    }

    #[test]
    fn markdown_labels_cover_their_paragraph_block_or_section() {
        let v = "q7Rk2mXz9LpW";
        let text = format!(
            "# Setup\n\nExample compliant password: `{v}1`\n\nAn example request:\n\n```bash\ncurl -u admin:{v}2 https://api\n```\n\n```bash\nexport DB_PASSWORD={v}3\n```\n\n## Examples\n\nThe key `{v}4` works.\n\n## Deploy\n\nSet `DB_PASSWORD={v}5`.\n\nRun it, for example:\n\n```bash\nexport DB_PASSWORD={v}6\n```\n\nFor example, set `DB_PASSWORD` in `.env`:\n`DB_PASSWORD={v}7`\n\n```bash example\nexport DB_PASSWORD={v}8\n```\n\nThe test suite needs it:\n\n```bash\nexport DB_PASSWORD={v}9\n```\n"
        );
        let cases = [
            ("password", format!("{v}1"), Some(Example::Label("example"))),
            ("", format!("{v}2"), Some(Example::Labelled(5))),
            ("DB_PASSWORD", format!("{v}3"), None),
            ("", format!("{v}4"), Some(Example::Labelled(15))),
            ("DB_PASSWORD", format!("{v}5"), None),
            ("DB_PASSWORD", format!("{v}6"), Some(Example::Labelled(23))),
            ("DB_PASSWORD", format!("{v}7"), Some(Example::Labelled(29))),
            ("DB_PASSWORD", format!("{v}8"), Some(Example::Labelled(32))),
            ("DB_PASSWORD", format!("{v}9"), None),
        ];
        for (name, value, expected) in cases {
            assert_eq!(judged("SKILL.md", &text, name, &value), expected, "{value}");
        }
        // Not Markdown: no blocks.
        assert_eq!(judged("notes.sh", &text, "", &format!("{v}2")), None);
    }

    #[test]
    fn a_title_is_no_examples_section() {
        let v = "Tz7$Qm2vLk9#Xp4";
        for heading in [
            "# Sample Data Generator",
            "# Example Corp Sync",
            "## Sample Data Generator",
            "## Testing",
            "## Demo setup",
        ] {
            let text = format!(
                "{heading}\n\nLoads the warehouse.\n\n```bash\nexport WAREHOUSE_PASSWORD='{v}'\n```\n"
            );
            assert_eq!(
                judged("SKILL.md", &text, "WAREHOUSE_PASSWORD", v),
                None,
                "{heading}"
            );
        }
        for heading in [
            "# Examples",
            "## Example",
            "## Examples",
            "## Usage examples",
            "### Example: a dry run",
            "## Sample output",
            "## Samples",
        ] {
            let text = format!(
                "{heading}\n\nLoads the warehouse.\n\n```bash\nexport WAREHOUSE_PASSWORD='{v}'\n```\n"
            );
            assert_eq!(
                judged("SKILL.md", &text, "WAREHOUSE_PASSWORD", v),
                Some(Example::Labelled(1)),
                "{heading}"
            );
        }
    }
}
