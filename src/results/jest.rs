//! Jest's `--json` document (from `--outputFile` or printed on stdout), streamed with serde_json
//! so that memory follows the failures kept, not the size of the file.

use std::fmt;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::model::{
    MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, truncate_utf8,
};
use crate::input::encoding::{Utf8Reader, strip_bom};
use crate::input::head::SNIFF_BYTES;
use crate::input::{InputError, MAX_NAME_BYTES, strip_ansi};

/// Whether the first bytes of a file (BOM stripped) hold a Jest document.
pub(crate) fn sniff(head: &[u8]) -> bool {
    document_start(head, is_jest).is_some()
}

/// Read a Jest `--json` document (a report file or a suite's captured output). `Ok(None)` when
/// the input does not hold one; `Err` when it does but the document is broken (cut short, or a
/// value of the wrong type).
pub(crate) fn read(input: impl Read + Seek) -> Result<Option<TestRun>, InputError> {
    read_from(input, std::env::current_dir().ok())
}

/// [`read`], with test file paths made relative to `base`.
fn read_from(
    input: impl Read + Seek,
    base: Option<PathBuf>,
) -> Result<Option<TestRun>, InputError> {
    let mut report = Report::new(base);
    let found = read_document(input, "Jest", is_jest, ReportSeed(&mut report))?;
    Ok(found.map(|()| report.finish()))
}

/// An object (a string for its first key) naming `numTotalTests`, which Jest always writes, or
/// `testResults` with `assertionResults`, as tools that write Jest's shape (Vitest) do.
fn is_jest(doc: &[u8]) -> bool {
    first_key(doc).is_some()
        && (contains(doc, b"\"numTotalTests\"")
            || (contains(doc, b"\"testResults\"") && contains(doc, b"\"assertionResults\"")))
}

/// Jest's `›` between describe titles and the test title, as its own reporter prints them.
const NAME_SEPARATOR: &str = " › ";

/// Counting rules:
/// - Each entry of `assertionResults` is one test: `passed`, `failed`, and every other status
///   (`pending`, `skipped`, `todo`, `disabled`, any later one) skipped.
/// - A test file that failed while none of its tests did (it could not load, holds no test,
///   or a hook outside any test failed) is one failed case named after the file, so that a
///   broken file never reads as a green run. Jest counts such a file among its suites only.
/// - A document without `testResults` is counted from its `num…Tests` totals.
struct Report {
    run: TestRun,
    /// Test file paths are shown relative to this directory when they are inside it.
    base: Option<PathBuf>,
    saw_test_results: bool,
    totals: Totals,
    start_time: Option<f64>,
    last_end_time: Option<f64>,
}

/// The document's own counts: used only when it has no `testResults` to count from.
#[derive(Default)]
struct Totals {
    passed: u64,
    failed: u64,
    pending: u64,
    todo: u64,
}

impl Report {
    fn new(base: Option<PathBuf>) -> Self {
        Self {
            run: TestRun::new(ReportFormat::Jest),
            base,
            saw_test_results: false,
            totals: Totals::default(),
            start_time: None,
            last_end_time: None,
        }
    }

    fn finish(mut self) -> TestRun {
        if !self.saw_test_results {
            self.run.passed = self.totals.passed;
            self.run.failed = self.totals.failed;
            self.run.skipped = self.totals.pending.saturating_add(self.totals.todo);
        }
        // Test files run in parallel: the run lasts from its start to the last file's end.
        self.run.duration_ms = match (self.start_time, self.last_end_time) {
            (Some(start), Some(end)) => millis(end - start),
            _ => None,
        };
        self.run
    }

    fn room(&self, pending: usize) -> bool {
        self.run.failures.len() + pending < MAX_KEPT_FAILURES
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopKey {
    TestResults,
    StartTime,
    NumPassedTests,
    NumFailedTests,
    NumPendingTests,
    NumTodoTests,
    // Read only so that a document with a count of the wrong type is refused.
    NumTotalTests,
    #[serde(other)]
    Other,
}

struct ReportSeed<'a>(&'a mut Report);

impl<'de> DeserializeSeed<'de> for ReportSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Jest JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let report = self.0;
        while let Some(key) = map.next_key::<TopKey>()? {
            match key {
                TopKey::TestResults => {
                    report.saw_test_results = true;
                    map.next_value_seed(FilesSeed(report))?;
                }
                TopKey::StartTime => report.start_time = map.next_value()?,
                TopKey::NumPassedTests => report.totals.passed = map.next_value()?,
                TopKey::NumFailedTests => report.totals.failed = map.next_value()?,
                TopKey::NumPendingTests => report.totals.pending = map.next_value()?,
                TopKey::NumTodoTests => report.totals.todo = map.next_value()?,
                TopKey::NumTotalTests => {
                    map.next_value::<u64>()?;
                }
                TopKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `testResults`: one entry per test file.
struct FilesSeed<'a>(&'a mut Report);

impl<'de> DeserializeSeed<'de> for FilesSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FilesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of test files")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(FileSeed(&mut *self.0))?.is_some() {}
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum FileKey {
    AssertionResults,
    Name,
    Status,
    Message,
    FailureMessage,
    EndTime,
    #[serde(other)]
    Other,
}

/// One test file: its tests are counted as they stream by; the failures kept wait for the
/// file's `name`, which Jest writes after `assertionResults`.
#[derive(Default)]
struct TestFile {
    name: Option<String>,
    status: Option<String>,
    message: Option<String>,
    passed: u64,
    skipped: u64,
    /// Failures beyond the ones kept.
    failed_not_kept: u64,
    any_failed: bool,
    kept: Vec<Assertion>,
}

struct FileSeed<'a>(&'a mut Report);

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test file's results")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let report = self.0;
        let mut file = TestFile::default();
        while let Some(key) = map.next_key::<FileKey>()? {
            match key {
                FileKey::AssertionResults => map.next_value_seed(AssertionsSeed {
                    report: &*report,
                    file: &mut file,
                })?,
                FileKey::Name => {
                    file.name = map.next_value_seed(OptionalText(MAX_NAME_BYTES + 4))?
                }
                FileKey::Status => file.status = map.next_value_seed(OptionalText(32))?,
                FileKey::Message | FileKey::FailureMessage => {
                    let message = map.next_value_seed(OptionalText(MAX_MESSAGE_BYTES + 4))?;
                    if file.message.as_deref().is_none_or(str::is_empty) {
                        file.message = message;
                    }
                }
                FileKey::EndTime => {
                    if let Some(end) = map.next_value::<Option<f64>>()? {
                        report.last_end_time =
                            Some(report.last_end_time.map_or(end, |e| e.max(end)));
                    }
                }
                FileKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        report.end_file(file);
        Ok(())
    }
}

impl Report {
    fn end_file(&mut self, file: TestFile) {
        let path = file
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .map(|n| relative(n, self.base.as_deref()));
        self.run.passed += file.passed;
        self.run.skipped += file.skipped;
        self.run.failed += file.failed_not_kept;
        for assertion in file.kept {
            let mut case = assertion.into_case();
            case.suite.clone_from(&path);
            case.file.clone_from(&path);
            if case.line.is_none()
                && let (Some(message), Some(name)) = (&case.message, &file.name)
            {
                case.line = line_from_stack(message, name);
            }
            self.run.record(case);
        }
        // A file that failed although none of its tests did: it could not load (a syntax
        // error, a missing module, no tests at all) or a hook outside any test failed.
        if file.status.as_deref() == Some("failed") && !file.any_failed {
            let message = file
                .message
                .as_deref()
                .map(clean_file_message)
                .filter(|m| !m.is_empty());
            let mut case = TestCase::failed(
                path.clone().unwrap_or_else(|| "test file".to_owned()),
                message,
            );
            case.suite.clone_from(&path);
            case.file = path;
            self.run.record(case);
        }
    }
}

/// `assertionResults`: one entry per test.
struct AssertionsSeed<'a> {
    report: &'a Report,
    file: &'a mut TestFile,
}

impl<'de> DeserializeSeed<'de> for AssertionsSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for AssertionsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of test results")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(assertion) = seq.next_element_seed(AssertionSeed)? {
            match assertion.outcome() {
                Outcome::Passed => self.file.passed += 1,
                Outcome::Skipped => self.file.skipped += 1,
                Outcome::Failed => {
                    self.file.any_failed = true;
                    if self.report.room(self.file.kept.len()) {
                        self.file.kept.push(assertion);
                    } else {
                        self.file.failed_not_kept += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum AssertionKey {
    AncestorTitles,
    Title,
    Status,
    Duration,
    Location,
    FailureMessages,
    #[serde(other)]
    Other,
}

/// One test, with only what a kept failure needs.
struct Assertion {
    name: String,
    status: String,
    duration: Option<f64>,
    line: Option<u32>,
    message: String,
}

#[derive(Deserialize)]
struct Location {
    line: Option<u32>,
}

impl Assertion {
    fn outcome(&self) -> Outcome {
        match self.status.as_str() {
            "passed" => Outcome::Passed,
            "failed" => Outcome::Failed,
            // pending, skipped, todo, disabled, and any status a later Jest adds: a test
            // whose outcome we do not know is not a pass, and not a failure it did not report.
            _ => Outcome::Skipped,
        }
    }

    fn into_case(self) -> TestCase {
        let message = strip_ansi(self.message.trim()).trim().to_owned();
        let message = (!message.is_empty()).then(|| truncate_utf8(&message, MAX_MESSAGE_BYTES));
        let kind = Some(classify_failure(message.as_deref().unwrap_or_default()));
        TestCase {
            name: truncate_utf8(&self.name, MAX_NAME_BYTES),
            suite: None,
            file: None,
            line: self.line.filter(|&l| l > 0),
            duration_ms: self.duration.and_then(millis),
            outcome: Outcome::Failed,
            message,
            kind,
        }
    }
}

struct AssertionSeed;

impl<'de> DeserializeSeed<'de> for AssertionSeed {
    type Value = Assertion;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Assertion, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AssertionSeed {
    type Value = Assertion;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test result")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Assertion, A::Error> {
        let mut ancestors = String::new();
        let mut title = None;
        let mut status = None;
        let mut duration = None;
        let mut line = None;
        let mut message = String::new();
        while let Some(key) = map.next_key::<AssertionKey>()? {
            match key {
                AssertionKey::AncestorTitles => {
                    map.next_value_seed(JoinedTexts {
                        out: &mut ancestors,
                        separator: NAME_SEPARATOR,
                        max: MAX_NAME_BYTES + 4,
                    })?;
                }
                AssertionKey::Title => {
                    title = map.next_value_seed(OptionalText(MAX_NAME_BYTES + 4))?
                }
                AssertionKey::Status => status = map.next_value_seed(OptionalText(32))?,
                AssertionKey::Duration => duration = map.next_value()?,
                AssertionKey::Location => {
                    line = map.next_value::<Option<Location>>()?.and_then(|l| l.line);
                }
                AssertionKey::FailureMessages => {
                    map.next_value_seed(JoinedTexts {
                        out: &mut message,
                        separator: "\n\n",
                        max: MAX_MESSAGE_BYTES + 4,
                    })?;
                }
                AssertionKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let status = status.ok_or_else(|| de::Error::missing_field("status"))?;
        let title = title.unwrap_or_else(|| "unnamed test".to_owned());
        let name = if ancestors.is_empty() {
            title
        } else {
            format!("{ancestors}{NAME_SEPARATOR}{title}")
        };
        Ok(Assertion {
            name,
            status,
            duration,
            line,
            message,
        })
    }
}

/// Jest's message for a file that failed to run: `● Test suite failed to run` and the error,
/// indented. The header and the indentation go; the error stays.
fn clean_file_message(message: &str) -> String {
    let message = strip_ansi(message);
    let mut lines: Vec<&str> = message
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .collect();
    if lines
        .first()
        .is_some_and(|l| l.trim_start().starts_with('●'))
    {
        lines.remove(0);
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let text = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or_default().trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    truncate_utf8(text.trim(), MAX_MESSAGE_BYTES)
}

// Helpers shared with the Mocha reader: both are JSON documents that may follow other output
// on stdout, both name test files by absolute path and locate failures by stack frames.

/// Find the document in `head`: the first line that starts with `{` (after spaces) and whose
/// text from there satisfies `looks_right`. Console output and npm's banner may come first.
pub(super) fn document_start(head: &[u8], looks_right: fn(&[u8]) -> bool) -> Option<usize> {
    let head = strip_bom(head);
    let mut line_start = 0;
    loop {
        let rest = head.get(line_start..)?;
        let spaces = rest
            .iter()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
            .count();
        if rest.get(spaces) == Some(&b'{') && rest.get(spaces..).is_some_and(looks_right) {
            return Some(line_start + spaces);
        }
        line_start += rest.iter().position(|&b| b == b'\n')? + 1;
    }
}

/// The first key of the object at the start of `doc`, when it is a plain string.
pub(super) fn first_key(doc: &[u8]) -> Option<&[u8]> {
    let rest = doc.strip_prefix(b"{")?;
    let rest = rest.get(rest.iter().position(|b| !b.is_ascii_whitespace())?..)?;
    let rest = rest.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    (rest.get(end) == Some(&b'"'))
        .then(|| rest.get(..end))
        .flatten()
}

pub(super) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Read the JSON document that `looks_right` recognises in `input` with `seed`, which keeps
/// what it reads.
/// `Ok(None)` when the input's first bytes hold no such document.
pub(super) fn read_document<S>(
    mut input: impl Read + Seek,
    format: &str,
    looks_right: fn(&[u8]) -> bool,
    seed: S,
) -> Result<Option<()>, InputError>
where
    S: for<'de> DeserializeSeed<'de, Value = ()>,
{
    input.rewind()?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    input
        .by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    let bom = head.len() - strip_bom(&head).len();
    let Some(start) = document_start(&head, looks_right) else {
        return Ok(None);
    };
    let lines_before = strip_bom(&head)
        .get(..start)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64;
    input.seek(SeekFrom::Start((bom + start) as u64))?;
    let input = Utf8Reader::new(input);
    let mut deserializer = serde_json::Deserializer::from_reader(BufReader::new(input));
    // Whatever follows the document (a package manager's "Done in 2s") is not read: the
    // document is complete.
    seed.deserialize(&mut deserializer)
        .map(Some)
        .map_err(|e| json_error(format, lines_before, e))
}

fn json_error(format: &str, lines_before: u64, error: serde_json::Error) -> InputError {
    if error.is_io() {
        return InputError::Io(io::Error::from(error));
    }
    let line = lines_before + error.line().max(1) as u64;
    let text = error.to_string();
    // serde_json ends its messages with the position, which the error already says.
    let message = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    let hint = if error.is_eof() {
        " (help: the runner may have been stopped before it finished writing the report)"
    } else {
        ""
    };
    InputError::malformed(
        line,
        format!(
            "invalid {format} JSON at column {}: {message}{hint}",
            error.column()
        ),
    )
}

/// `path` relative to `base` when it is inside it: the form annotations and the job summary
/// show. Anything else stays as the runner wrote it.
pub(super) fn relative(path: &str, base: Option<&Path>) -> String {
    let relative = base
        .and_then(|base| Path::new(path).strip_prefix(base).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| rel.to_string_lossy().into_owned());
    truncate_utf8(relative.as_deref().unwrap_or(path), MAX_NAME_BYTES)
}

/// The line of the first stack frame in `file` (`at fn (path:line:column)` or
/// `at path:line:column`); stack paths may be absolute, relative or `file://` URLs.
pub(super) fn line_from_stack(stack: &str, file: &str) -> Option<u32> {
    let file = file.strip_prefix("file://").unwrap_or(file);
    stack.lines().find_map(|line| {
        let frame = line.trim().strip_prefix("at ")?;
        let location = match frame.strip_suffix(')') {
            Some(inner) => inner.rsplit_once('(')?.1,
            None => frame,
        };
        let location = location.strip_prefix("file://").unwrap_or(location);
        let mut parts = location.rsplitn(3, ':');
        let _column = parts.next()?.parse::<u32>().ok()?;
        let line = parts.next()?.parse::<u32>().ok().filter(|&l| l > 0)?;
        let path = parts.next()?;
        let same = path == file
            || file
                .strip_suffix(path)
                .is_some_and(|prefix| prefix.ends_with('/'))
            || path
                .strip_suffix(file)
                .is_some_and(|prefix| prefix.ends_with('/'));
        same.then_some(line)
    })
}

/// Milliseconds as a whole number, when they are a duration at all.
pub(super) fn millis(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms >= 0.0).then(|| ms.round() as u64)
}

/// A string (or null), cut to `max` bytes while it is read: serde_json hands over its own
/// buffer, so only the kept part is copied.
pub(super) struct OptionalText(pub(super) usize);

impl<'de> DeserializeSeed<'de> for OptionalText {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalText {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let mut out = String::new();
        push_capped(&mut out, v, self.0);
        Ok(Some(out))
    }
}

/// A list of strings appended to `out` with `separator` between them, up to `max` bytes.
pub(super) struct JoinedTexts<'a> {
    pub(super) out: &'a mut String,
    pub(super) separator: &'static str,
    pub(super) max: usize,
}

impl<'de> DeserializeSeed<'de> for JoinedTexts<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for JoinedTexts<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of strings")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(text) = seq.next_element_seed(OptionalText(self.max))? {
            let Some(text) = text else { continue };
            if !self.out.is_empty() {
                push_capped(self.out, self.separator, self.max);
            }
            push_capped(self.out, &text, self.max);
        }
        Ok(())
    }
}

/// Append while `buf` is shorter than `max`; the cut later made by `truncate_utf8` marks that
/// something was left out.
pub(super) fn push_capped(buf: &mut String, text: &str, max: usize) {
    let room = max.saturating_sub(buf.len());
    let mut end = text.len().min(room);
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    buf.push_str(text.get(..end).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;

    use crate::input::ReadError;

    fn fixture(rel: &str) -> PathBuf {
        crate::results::testkit::fixture(&format!("jest/{rel}"))
    }

    fn read_file(path: &Path) -> Result<Option<TestRun>, ReadError> {
        crate::results::read_report_as(path, ReportFormat::Jest)
    }

    fn read(rel: &str) -> TestRun {
        read_file(&fixture(rel))
            .expect("read")
            .expect("a Jest document")
    }

    fn read_str(json: &str) -> Result<Option<TestRun>, ReadError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("report.json");
        std::fs::write(&path, json).expect("write");
        read_file(&path)
    }

    fn malformed(json: &str) -> (u64, String) {
        match read_str(json) {
            Err(ReadError::Malformed { line, message, .. }) => (line, message),
            other => panic!("expected a malformed report, got {other:?}"),
        }
    }

    fn counts(run: &TestRun) -> (u64, u64, u64) {
        (run.passed, run.failed, run.skipped)
    }

    fn names(run: &TestRun) -> Vec<&str> {
        run.failures.iter().map(|c| c.name.as_str()).collect()
    }

    fn first_line(case: &TestCase) -> &str {
        case.message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or_default()
    }

    const DIR: &str = "/tmp/skillgate-fixtures/jest";

    #[test]
    fn all_pass() {
        // Jest: "Tests: 3 passed, 3 total".
        let run = read("pass.json");
        assert_eq!(run.framework, "jest");
        assert_eq!(run.format, ReportFormat::Jest);
        assert_eq!(counts(&run), (3, 0, 0));
        assert!(run.failures.is_empty());
        assert!(run.duration_ms.is_some_and(|ms| ms > 0));
    }

    #[test]
    fn mixed_outcomes_hooks_and_files_that_fail_to_load() {
        // Jest: "Tests: 5 failed, 1 skipped, 1 todo, 4 passed, 11 total" and "Test Suites:
        // 4 failed". The two files that could not load have no tests for Jest to count; each is
        // one failed case here, so that a broken file is never a green run: 4 / 7 / 2.
        let run = read_from(
            std::fs::File::open(fixture("mixed.json")).expect("open"),
            Some(PathBuf::from(DIR)),
        )
        .expect("read")
        .expect("a Jest document");
        assert_eq!(counts(&run), (4, 7, 2));
        assert_eq!(
            names(&run),
            [
                "slugify › collapses punctuation",
                "slugify › hostile names › | pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                "finishes in time",
                "throws from the code under test",
                "with a failing beforeAll › never gets to run",
                "missing.suite.js",
                "broken.suite.js",
            ]
        );
        let first = &run.failures[0];
        assert_eq!(first.suite.as_deref(), Some("mixed.suite.js"));
        assert_eq!(first.file.as_deref(), Some("mixed.suite.js"));
        // From `--testLocationInResults`: the line of the `test(` call.
        assert_eq!(first.line, Some(9));
        assert_eq!(first.duration_ms, Some(22));
        assert_eq!(first.kind, Some(FailureKind::Assertion));
        assert_eq!(
            first_line(first),
            "Error: expect(received).toBe(expected) // Object.is equality"
        );
        let message = first.message.as_deref().unwrap_or_default();
        assert!(
            message.contains("Expected: \"a_b\"\nReceived: \"a-b\""),
            "{message}"
        );

        // No location for a test that timed out: the line comes from its stack frame.
        let timeout = &run.failures[2];
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        assert_eq!(timeout.line, Some(30));
        assert_eq!(
            first_line(timeout),
            "Error: thrown: \"Exceeded timeout of 50 ms for a test."
        );
        assert_eq!(
            first_line(&run.failures[3]),
            "TypeError: slugify expects a string"
        );
        assert_eq!(
            first_line(&run.failures[4]),
            "Error: database fixture could not connect"
        );

        let missing = &run.failures[5];
        assert_eq!(missing.kind, Some(FailureKind::Dependency));
        assert_eq!(missing.file.as_deref(), Some("missing.suite.js"));
        assert_eq!(missing.line, None);
        assert_eq!(
            first_line(missing),
            "Cannot find module './not-installed' from 'missing.suite.js'"
        );
        let broken = &run.failures[6];
        assert_eq!(broken.kind, Some(FailureKind::Syntax));
        assert_eq!(first_line(broken), "Jest encountered an unexpected token");
        assert!(
            broken.message.as_deref().is_some_and(|m| m.contains(
                "SyntaxError: /tmp/skillgate-fixtures/jest/broken.suite.js: Unexpected token (4:0)"
            )),
            "{broken:?}"
        );
    }

    #[test]
    fn paths_outside_the_base_stay_as_written() {
        let run = read("mixed.json");
        assert_eq!(
            run.failures[0].file.as_deref(),
            Some("/tmp/skillgate-fixtures/jest/mixed.suite.js")
        );
        assert_eq!(relative("/a/b/c.js", Some(Path::new("/a"))), "b/c.js");
        assert_eq!(relative("/a", Some(Path::new("/a"))), "/a");
        assert_eq!(relative("/x/c.js", Some(Path::new("/a"))), "/x/c.js");
        assert_eq!(relative("c.js", None), "c.js");
    }

    #[test]
    fn many_tests_in_one_file() {
        // Jest: "Tests: 20 failed, 8 skipped, 292 passed, 320 total".
        let run = read("many.json");
        assert_eq!(counts(&run), (292, 20, 8));
        assert_eq!(run.failures.len(), 20);
        assert_eq!(run.failures[1].name, "generated › case 016");
        assert!(run.failures.iter().all(|c| c.line == Some(8)));
    }

    #[test]
    fn a_file_without_tests_fails_and_no_files_is_no_tests() {
        // Jest: "Tests: 0 total", "Test Suites: 1 failed": the file itself is the failure.
        let run = read("empty.json");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(
            first_line(&run.failures[0]),
            "Your test suite must contain at least one test."
        );
        // `--passWithNoTests` with nothing to run: a document, and zero tests.
        let run = read("no-tests.json");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
        assert_eq!(run.duration_ms, None);
    }

    #[test]
    fn the_document_printed_after_npm_banner() {
        // `npm test -- --json`: npm's banner, then the document, without locations. The
        // document's own counts: numPassedTests 3, numFailedTests 4, pending 1, todo 1.
        let path = fixture("mixed.npm-stdout.txt");
        let head = std::fs::read(&path).expect("read");
        assert!(head.starts_with(b"\n> skillgate-jest-fixtures@1.0.0 test"));
        assert!(sniff(&head));
        let run = read("mixed.npm-stdout.txt");
        assert_eq!(counts(&run), (3, 4, 2));
        // The lines of the failing `expect`s, from the stack.
        let lines: Vec<_> = run.failures.iter().map(|c| c.line).collect();
        assert_eq!(lines, [Some(10), Some(19), Some(30), Some(35)]);
    }

    #[test]
    fn sniffing() {
        for rel in ["pass.json", "mixed.json", "no-tests.json"] {
            let bytes = std::fs::read(fixture(rel)).expect("read");
            let head = bytes
                .get(..SNIFF_BYTES.min(bytes.len()))
                .unwrap_or_default();
            assert!(sniff(head), "{rel}");
        }
        assert!(sniff(b"\xEF\xBB\xBF{\n  \"numTotalTests\": 1}"));
        assert!(sniff(
            b"{\"testResults\":[{\"assertionResults\":[]}],\"numFailedTests\":0}"
        ));
        for not_jest in [
            b"".as_slice(),
            b"{}",
            b"[{\"numTotalTests\": 1}]",
            b"{\"stats\": {\"passes\": 1}}",
            b"TAP version 13\nok 1\n",
            b"log line {\"numTotalTests\": 1}",
            b"{\"testResults\": []}",
        ] {
            assert!(!sniff(not_jest), "{}", String::from_utf8_lossy(not_jest));
        }
    }

    #[test]
    fn broken_documents_name_the_line() {
        // Cut short, as when the runner is killed while writing: Jest writes one line.
        let whole = std::fs::read_to_string(fixture("mixed.json")).expect("read");
        let cut = whole.get(..3000).expect("long enough");
        let (line, message) = malformed(cut);
        assert_eq!(line, 1);
        assert!(
            message.starts_with("invalid Jest JSON at column 3000: EOF while parsing "),
            "{message}"
        );
        assert!(
            message.ends_with("before it finished writing the report)"),
            "{message}"
        );

        // Lines count from the top of the file, output before the document included.
        let (line, message) = malformed("> npm banner\n\n{\n  \"numTotalTests\": \"x\"\n}\n");
        assert_eq!(line, 4);
        assert_eq!(
            message,
            "invalid Jest JSON at column 22: invalid type: string \"x\", expected u64"
        );
        let (_, message) = malformed("{\"numTotalTests\": 1, \"testResults\": 3}");
        assert!(
            message.ends_with("invalid type: integer `3`, expected a list of test files"),
            "{message}"
        );
        let (_, message) =
            malformed("{\"numTotalTests\": 1, \"testResults\": [{\"assertionResults\": [{}]}]}");
        assert!(message.ends_with("missing field `status`"), "{message}");
        let (_, message) = malformed(
            "{\"numTotalTests\": 1, \"testResults\": [{\"assertionResults\": [{\"status\": 1}]}]}",
        );
        assert!(message.ends_with("expected a string"), "{message}");

        let err = read_str("{\"numTotalTests\": 1,").expect_err("cut");
        assert!(
            err.to_string().starts_with("failed to read test report "),
            "{err}"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(10_000);
        for json in [
            format!("{{\"numTotalTests\": 1, \"testResults\": {deep}"),
            format!("{{\"numTotalTests\": 1, \"testResults\": [{{\"assertionResults\": {deep}"),
            format!("{{\"numTotalTests\": 1, \"openHandles\": {deep}"),
            format!(
                "{{\"numTotalTests\": 1, \"testResults\": [{{\"assertionResults\": [{{\"location\": {deep}"
            ),
        ] {
            malformed(&json);
        }
        // Deep but well-formed where nothing is read: skipped without recursing.
        let closed = format!(
            "{{\"numTotalTests\": 0, \"openHandles\": {deep}{}, \"testResults\": []}}",
            "]".repeat(10_000)
        );
        let run = read_str(&closed).expect("read").expect("document");
        assert_eq!(counts(&run), (0, 0, 0));
        // Not a Jest document at all.
        assert_eq!(read_str(&deep).expect("read"), None);
        assert_eq!(read_str("").expect("read"), None);
    }

    #[test]
    fn statuses_and_limits() {
        let mut tests = Vec::new();
        for i in 0..MAX_KEPT_FAILURES + 5 {
            tests.push(format!(
                "{{\"title\": \"t{i}\", \"status\": \"failed\", \"failureMessages\": [\"\\u001b[31mboom\\u001b[0m {i}\"]}}"
            ));
        }
        for status in [
            "passed", "pending", "skipped", "todo", "disabled", "focused",
        ] {
            tests.push(format!(
                "{{\"title\": \"{status}\", \"status\": \"{status}\"}}"
            ));
        }
        let json = format!(
            "{{\"numTotalTests\": 1, \"startTime\": 1000, \"testResults\": [{{\"assertionResults\": [{}], \"name\": \"a.js\", \"endTime\": 1500.4, \"status\": \"failed\"}}]}}",
            tests.join(",")
        );
        let run = read_str(&json).expect("read").expect("document");
        assert_eq!(counts(&run), (1, (MAX_KEPT_FAILURES + 5) as u64, 5));
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        assert_eq!(run.failures[0].message.as_deref(), Some("boom 0"));
        assert_eq!(run.duration_ms, Some(500));

        // Without `testResults`, the document's own counts.
        let run = read_str(
            "{\"numTotalTests\": 6, \"numPassedTests\": 2, \"numFailedTests\": 1, \"numPendingTests\": 2, \"numTodoTests\": 1}",
        )
        .expect("read")
        .expect("document");
        assert_eq!(counts(&run), (2, 1, 3));

        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let json = format!(
            "{{\"numTotalTests\": 1, \"testResults\": [{{\"assertionResults\": [{{\"status\": \"failed\", \"title\": \"{long}\", \"failureMessages\": [\"{long}\", \"{long}\"]}}]}}]}}"
        );
        let run = read_str(&json).expect("read").expect("document");
        let case = &run.failures[0];
        assert!(case.name.len() <= MAX_NAME_BYTES && case.name.ends_with('…'));
        let message = case.message.as_deref().unwrap_or_default();
        assert!(message.len() <= MAX_MESSAGE_BYTES && message.ends_with('…'));
    }

    #[test]
    fn stack_lines_match_the_test_file_only() {
        let stack = "Error: x\n    at helper (/p/lib.js:4:11)\n    at Object.<anonymous> (file:///p/t.test.js:12:5)";
        assert_eq!(line_from_stack(stack, "/p/t.test.js"), Some(12));
        assert_eq!(line_from_stack(stack, "t.test.js"), Some(12));
        assert_eq!(line_from_stack(stack, "/p/lib.js"), Some(4));
        assert_eq!(line_from_stack(stack, "/q/other.js"), None);
        assert_eq!(line_from_stack("    at /p/t.js:7:1", "/p/t.js"), Some(7));
        assert_eq!(line_from_stack("at least one", "/p/t.js"), None);
    }

    #[test]
    fn reports_and_output_are_dispatched_here() {
        let run = crate::results::read_report_file(&fixture("mixed.json"))
            .expect("read")
            .expect("a report");
        assert_eq!(run.format, ReportFormat::Jest);
        let run = crate::results::read_report_as(&fixture("pass.json"), ReportFormat::Jest)
            .expect("read")
            .expect("a report");
        assert_eq!(counts(&run), (3, 0, 0));
        // The document on stdout wins over the summary Jest prints on stderr.
        let run = crate::results::read_output(
            &fixture("mixed.npm-stdout.txt"),
            &fixture("mixed.stderr.txt"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.format, ReportFormat::Jest);
        assert_eq!(counts(&run), (3, 4, 2));
    }
}
