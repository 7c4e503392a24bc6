//! Mocha's `json` reporter document (on stdout, after any console output, or in a file), streamed
//! with serde_json so that memory follows the failures kept, not the size of the file.

use std::fmt;
use std::io::{Read, Seek};
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::jest::{
    OptionalText, contains, first_key, line_from_stack, millis, read_document, relative,
};
use super::model::{
    MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, classify_failure,
    truncate_utf8,
};
use crate::input::{InputError, MAX_NAME_BYTES, strip_ansi};

/// Whether the first bytes of a file (BOM stripped) hold a Mocha document.
pub(crate) fn sniff(head: &[u8]) -> bool {
    super::jest::document_start(head, is_mocha).is_some()
}

/// Read a Mocha `json` reporter document (a report file or a suite's captured output).
/// `Ok(None)` when the input does not hold one; `Err` when it does but the document is broken
/// (cut short, or a value of the wrong type).
pub(crate) fn read(input: impl Read + Seek) -> Result<Option<TestRun>, InputError> {
    read_from(input, std::env::current_dir().ok())
}

/// [`read`], with test file paths made relative to `base`.
fn read_from(
    input: impl Read + Seek,
    base: Option<PathBuf>,
) -> Result<Option<TestRun>, InputError> {
    let mut report = Report::new(base);
    let found = read_document(input, "Mocha", is_mocha, ReportSeed(&mut report))?;
    Ok(found.map(|()| report.finish()))
}

/// The reporter writes `stats` first, and its counts first in it.
fn is_mocha(doc: &[u8]) -> bool {
    first_key(doc) == Some(b"stats".as_slice()) && contains(doc, b"\"passes\"")
}

/// The titles Mocha gives a failed hook: `"before all" hook for "test"`, `"after each" hook:
/// name in "suite"`. Hooks are reported among the failures, never among the tests.
const HOOK_TITLES: [&str; 4] = [
    "\"before all\" hook",
    "\"before each\" hook",
    "\"after all\" hook",
    "\"after each\" hook",
];

/// Counting rules:
/// - Each entry of `tests` is one test: a non-empty `err` is a failure, the rest passed or
///   were pending. `tests` does not say which were pending (a test that skips itself at run
///   time even has a duration), so the length of `pending` is taken from the rest.
/// - A failed hook (in `failures`, never in `tests`) is one failed case: the tests it kept
///   from running are counted by Mocha nowhere, and so by us.
/// - A document without `tests` is counted from `passes`, `failures` and `pending`.
struct Report {
    run: TestRun,
    /// Test file paths are shown relative to this directory when they are inside it.
    base: Option<PathBuf>,
    saw_tests: bool,
    /// Entries of `tests` without an error: passed or pending.
    without_error: u64,
    pending: u64,
    passes: u64,
    /// Failed tests from `failures`, for a document without `tests`: the first ones kept.
    listed_failures: Vec<TestCase>,
    listed_failed: u64,
}

impl Report {
    fn new(base: Option<PathBuf>) -> Self {
        Self {
            run: TestRun::new(ReportFormat::Mocha),
            base,
            saw_tests: false,
            without_error: 0,
            pending: 0,
            passes: 0,
            listed_failures: Vec::new(),
            listed_failed: 0,
        }
    }

    fn finish(mut self) -> TestRun {
        if self.saw_tests {
            let pending = self.pending.min(self.without_error);
            self.run.passed += self.without_error - pending;
            self.run.skipped += pending;
        } else {
            self.run.passed += self.passes;
            self.run.skipped += self.pending;
            let kept = self.listed_failures.len() as u64;
            for case in self.listed_failures {
                self.run.record(case);
            }
            self.run.failed += self.listed_failed.saturating_sub(kept);
        }
        self.run
    }

    fn case(&self, test: Test) -> TestCase {
        let path = test
            .file
            .as_deref()
            .filter(|f| !f.is_empty())
            .map(|f| relative(f, self.base.as_deref()));
        let err = test.err.unwrap_or_default();
        let message = err.text();
        let line = match (&test.file, &err.stack) {
            (Some(file), Some(stack)) => line_from_stack(stack, file),
            _ => None,
        };
        let kind = classify_failure(&format!(
            "{} {}",
            err.code.as_deref().unwrap_or_default(),
            message.as_deref().unwrap_or_default()
        ));
        let name = test
            .full_title
            .filter(|t| !t.is_empty())
            .or(test.title)
            .unwrap_or_else(|| "unnamed test".to_owned());
        TestCase {
            name: truncate_utf8(&name, MAX_NAME_BYTES),
            suite: path.clone(),
            file: path,
            line,
            duration_ms: test.duration.and_then(millis),
            outcome: super::model::Outcome::Failed,
            message,
            kind: Some(kind),
        }
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TopKey {
    Stats,
    Tests,
    Pending,
    Failures,
    Passes,
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
        f.write_str("a Mocha JSON document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let report = self.0;
        while let Some(key) = map.next_key::<TopKey>()? {
            match key {
                TopKey::Stats => {
                    let stats: Stats = map.next_value()?;
                    report.run.duration_ms = stats.duration.and_then(millis);
                }
                TopKey::Tests => {
                    report.saw_tests = true;
                    map.next_value_seed(TestsSeed {
                        report: &mut *report,
                        list: List::Tests,
                    })?;
                }
                TopKey::Failures => map.next_value_seed(TestsSeed {
                    report: &mut *report,
                    list: List::Failures,
                })?,
                TopKey::Pending => report.pending += map.next_value_seed(Count)?,
                TopKey::Passes => report.passes += map.next_value_seed(Count)?,
                TopKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// Mocha's own summary. The counts are read so that a document with one of the wrong type is
/// refused; ours come from the lists.
#[derive(Deserialize)]
#[expect(dead_code, reason = "read for their types only")]
struct Stats {
    tests: Option<u64>,
    passes: Option<u64>,
    pending: Option<u64>,
    failures: Option<u64>,
    duration: Option<f64>,
}

/// How many entries a list has, each read without being kept.
struct Count;

impl<'de> DeserializeSeed<'de> for Count {
    type Value = u64;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<u64, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Count {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tests")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut count = 0u64;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Tests,
    Failures,
}

struct TestsSeed<'a> {
    report: &'a mut Report,
    list: List,
}

impl<'de> DeserializeSeed<'de> for TestsSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TestsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tests")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let report = self.report;
        while let Some(test) = seq.next_element_seed(TestSeed)? {
            let failed = test.err.as_ref().is_some_and(|err| err.any);
            match self.list {
                List::Tests if !failed => report.without_error += 1,
                List::Tests => {
                    if report.run.failures.len() < MAX_KEPT_FAILURES {
                        let case = report.case(test);
                        report.run.record(case);
                    } else {
                        report.run.failed += 1;
                    }
                }
                List::Failures if test.is_hook() => {
                    let case = report.case(test);
                    report.run.record(case);
                }
                List::Failures => {
                    report.listed_failed += 1;
                    if report.listed_failures.len() < MAX_KEPT_FAILURES {
                        let case = report.case(test);
                        report.listed_failures.push(case);
                    }
                }
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum TestKey {
    Title,
    FullTitle,
    File,
    Duration,
    Err,
    #[serde(other)]
    Other,
}

struct Test {
    title: Option<String>,
    full_title: Option<String>,
    file: Option<String>,
    duration: Option<f64>,
    err: Option<TestError>,
}

impl Test {
    fn is_hook(&self) -> bool {
        self.title
            .as_deref()
            .is_some_and(|t| HOOK_TITLES.iter().any(|hook| t.starts_with(hook)))
    }
}

struct TestSeed;

impl<'de> DeserializeSeed<'de> for TestSeed {
    type Value = Test;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Test, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TestSeed {
    type Value = Test;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a test")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Test, A::Error> {
        let mut test = Test {
            title: None,
            full_title: None,
            file: None,
            duration: None,
            err: None,
        };
        while let Some(key) = map.next_key::<TestKey>()? {
            match key {
                TestKey::Title => {
                    test.title = map.next_value_seed(OptionalText(MAX_NAME_BYTES + 4))?
                }
                TestKey::FullTitle => {
                    test.full_title = map.next_value_seed(OptionalText(MAX_NAME_BYTES + 4))?;
                }
                TestKey::File => {
                    test.file = map.next_value_seed(OptionalText(MAX_NAME_BYTES + 4))?
                }
                TestKey::Duration => test.duration = map.next_value()?,
                TestKey::Err => test.err = map.next_value_seed(ErrSeed)?,
                TestKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(test)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum ErrKey {
    Message,
    Stack,
    Code,
    #[serde(other)]
    Other,
}

/// The serialized error of a failed test or hook. `{}` for the others.
#[derive(Default)]
struct TestError {
    /// The object has any key at all.
    any: bool,
    message: Option<String>,
    stack: Option<String>,
    code: Option<String>,
}

impl TestError {
    /// The stack when it holds the message (V8 starts it with `Name: message`), else both.
    fn text(&self) -> Option<String> {
        let message = self.message.as_deref().map(str::trim).unwrap_or_default();
        let stack = self.stack.as_deref().map(str::trim).unwrap_or_default();
        let first = message.lines().next().unwrap_or_default();
        let text = if stack.is_empty() {
            message.to_owned()
        } else if stack.contains(first) {
            stack.to_owned()
        } else {
            format!("{message}\n{stack}")
        };
        let text = strip_ansi(&text).trim().to_owned();
        (!text.is_empty()).then(|| truncate_utf8(&text, MAX_MESSAGE_BYTES))
    }
}

struct ErrSeed;

impl<'de> DeserializeSeed<'de> for ErrSeed {
    type Value = Option<TestError>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for ErrSeed {
    type Value = Option<TestError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an error object")
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
        deserializer.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut err = TestError::default();
        while let Some(key) = map.next_key::<ErrKey>()? {
            err.any = true;
            match key {
                // Assertion libraries put non-strings here too (`message: {…}`): only strings
                // are read, the rest is skipped rather than refused.
                ErrKey::Message => err.message = map.next_value_seed(AnyText)?,
                ErrKey::Stack => err.stack = map.next_value_seed(AnyText)?,
                ErrKey::Code => err.code = map.next_value_seed(AnyText)?,
                ErrKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(err))
    }
}

/// A string, cut to a message's length; any other value is skipped.
struct AnyText;

impl<'de> DeserializeSeed<'de> for AnyText {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnyText {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        OptionalText(MAX_MESSAGE_BYTES + 4).visit_str(v)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;

    use crate::input::ReadError;
    use std::path::Path;

    fn fixture(rel: &str) -> PathBuf {
        crate::results::testkit::fixture(&format!("mocha/{rel}"))
    }

    fn read_file(path: &Path) -> Result<Option<TestRun>, ReadError> {
        crate::results::read_report_as(path, ReportFormat::Mocha)
    }

    fn read(rel: &str) -> TestRun {
        read_from(
            std::fs::File::open(fixture(rel)).expect("open"),
            Some(PathBuf::from("/tmp/skillgate-fixtures/mocha")),
        )
        .expect("read")
        .expect("a Mocha document")
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

    fn first_line(case: &TestCase) -> &str {
        case.message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or_default()
    }

    #[test]
    fn all_pass() {
        // stats: tests 3, passes 3, pending 0, failures 0.
        let run = read("pass.json");
        assert_eq!(run.framework, "mocha");
        assert_eq!(run.format, ReportFormat::Mocha);
        assert_eq!(counts(&run), (3, 0, 0));
        assert!(run.failures.is_empty());
        assert_eq!(run.duration_ms, Some(3));
    }

    #[test]
    fn mixed_outcomes_and_failed_hooks() {
        // stats: tests 10, passes 3, pending 3, failures 6 (four tests and two hooks). The
        // test a failed `before` kept from running, and the one after the failed `afterEach`,
        // are counted by Mocha nowhere, and so by us: 3 / 6 / 3. The document follows a
        // console.log line on stdout.
        let raw = std::fs::read_to_string(fixture("mixed.json")).expect("read");
        assert!(raw.starts_with("debug: lowercasing\n{"));
        for rel in ["mixed.json", "mixed.output.json"] {
            let run = read(rel);
            assert_eq!(counts(&run), (3, 6, 3), "{rel}");
            let names: Vec<_> = run.failures.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "slugify collapses punctuation",
                    "slugify hostile names | pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                    "timing finishes in time",
                    "timing throws from the code under test",
                    "with a failing before hook \"before all\" hook for \"never gets to run\"",
                    "with a failing afterEach hook \"after each\" hook for \"passes before the hook\"",
                ],
                "{rel}"
            );
        }
        let run = read("mixed.json");
        assert_eq!(run.duration_ms, Some(57));
        let first = &run.failures[0];
        assert_eq!(first.suite.as_deref(), Some("mixed.suite.js"));
        assert_eq!(first.file.as_deref(), Some("mixed.suite.js"));
        // The line of the failing assert, from the stack.
        assert_eq!(first.line, Some(13));
        assert_eq!(first.duration_ms, Some(1));
        assert_eq!(first.kind, Some(FailureKind::Assertion));
        assert_eq!(
            first_line(first),
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"
        );
        assert!(
            first
                .message
                .as_deref()
                .is_some_and(|m| m.contains("'a-b' !== 'a_b'")),
            "{first:?}"
        );
        let timeout = &run.failures[2];
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        assert_eq!(timeout.line, None);
        assert!(first_line(timeout).starts_with("Error: Timeout of 50ms exceeded."));
        let thrown = &run.failures[3];
        assert_eq!(first_line(thrown), "TypeError: slugify expects a string");
        assert_eq!(thrown.line, Some(44));
        let hook = &run.failures[4];
        assert_eq!(
            first_line(hook),
            "Error: database fixture could not connect"
        );
        assert_eq!(hook.line, Some(50));
        assert_eq!(first_line(&run.failures[5]), "Error: cleanup failed");
    }

    #[test]
    fn many_tests_and_no_tests() {
        // stats: tests 320, passes 292, pending 8, failures 20.
        let run = read("many.json");
        assert_eq!(counts(&run), (292, 20, 8));
        assert_eq!(run.failures.len(), 20);
        assert_eq!(run.failures[2].name, "generated case 032");
        assert!(run.failures.iter().all(|c| c.line == Some(10)));
        // stats: tests 0. A document, and zero tests.
        let run = read("empty.json");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
    }

    #[test]
    fn a_file_that_cannot_load_prints_no_document() {
        // Mocha prints the SyntaxError or the missing module on stderr and nothing on stdout;
        // the exit code is all there is.
        for rel in ["broken.stdout.txt", "missing.stdout.txt"] {
            assert_eq!(read_file(&fixture(rel)).expect("read"), None, "{rel}");
        }
    }

    #[test]
    fn sniffing() {
        for rel in ["pass.json", "mixed.json", "mixed.output.json", "empty.json"] {
            let bytes = std::fs::read(fixture(rel)).expect("read");
            let head = bytes.get(..8192.min(bytes.len())).unwrap_or_default();
            assert!(sniff(head), "{rel}");
            assert!(!super::super::jest::sniff(head), "{rel}");
        }
        for not_mocha in [
            b"".as_slice(),
            b"{}",
            b"{\"numTotalTests\": 1, \"stats\": {\"passes\": 1}}",
            b"{\"stats\": 1}",
            b"[{\"stats\": {\"passes\": 1}}]",
        ] {
            assert!(!sniff(not_mocha), "{}", String::from_utf8_lossy(not_mocha));
        }
    }

    #[test]
    fn without_tests_the_other_lists_count() {
        let run = read_str(
            r#"{"stats": {"passes": 2}, "passes": [{}, {}], "pending": [{}],
                "failures": [{"title": "t", "fullTitle": "s t", "err": {"message": "boom"}},
                             {"title": "\"after all\" hook in \"s\"", "err": {"message": "hook"}}]}"#,
        )
        .expect("read")
        .expect("document");
        assert_eq!(counts(&run), (2, 2, 1));
        let names: Vec<_> = run.failures.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["\"after all\" hook in \"s\"", "s t"]);
    }

    #[test]
    fn error_objects_of_any_shape() {
        let run = read_str(
            r#"{"stats": {"passes": 0}, "tests": [
                {"title": "a", "err": {"message": {"nested": [1, 2]}, "stack": "Error: from stack\n    at x (a.js:3:1)"}},
                {"title": "b", "err": {"message": "only a message", "code": "ERR_MOCHA_TIMEOUT"}},
                {"title": "c", "err": {"actual": 1}},
                {"title": "d", "err": null},
                {"title": "e"}
            ], "pending": [{}]}"#,
        )
        .expect("read")
        .expect("document");
        // a, b, c failed; d and e had no error, one of them pending.
        assert_eq!(counts(&run), (1, 3, 1));
        assert_eq!(first_line(&run.failures[0]), "Error: from stack");
        assert_eq!(run.failures[1].message.as_deref(), Some("only a message"));
        assert_eq!(run.failures[1].kind, Some(FailureKind::Timeout));
        assert_eq!(run.failures[2].message, None);
    }

    #[test]
    fn broken_documents_name_the_line() {
        let whole = std::fs::read_to_string(fixture("mixed.json")).expect("read");
        let cut = whole.get(..1200).expect("long enough");
        let expected_line = cut.lines().count() as u64;
        let (line, message) = malformed(cut);
        assert_eq!(line, expected_line);
        assert!(message.contains("EOF while parsing"), "{message}");
        assert!(
            message.ends_with("before it finished writing the report)"),
            "{message}"
        );

        let (line, message) = malformed("log\n{\n  \"stats\": {\n    \"passes\": \"x\"\n  }\n}\n");
        assert_eq!(line, 4);
        assert_eq!(
            message,
            "invalid Mocha JSON at column 17: invalid type: string \"x\", expected u64"
        );
        let (_, message) = malformed(r#"{"stats": {"passes": 1}, "tests": 3}"#);
        assert!(message.ends_with("expected a list of tests"), "{message}");
        let (_, message) = malformed(r#"{"stats": {"passes": 1}, "tests": [3]}"#);
        assert!(message.ends_with("expected a test"), "{message}");

        let deep = "[".repeat(10_000);
        for json in [
            format!(r#"{{"stats": {{"passes": 1}}, "tests": {deep}"#),
            format!(r#"{{"stats": {{"passes": 1}}, "passes": {deep}"#),
            format!(r#"{{"stats": {{"passes": 1}}, "tests": [{{"err": {{"message": {deep}"#),
        ] {
            malformed(&json);
        }
        assert_eq!(read_str(&deep).expect("read"), None);
        assert_eq!(read_str("").expect("read"), None);
    }

    #[test]
    fn counts_stay_exact_beyond_the_kept_failures() {
        let tests: Vec<String> = (0..MAX_KEPT_FAILURES + 3)
            .map(|i| format!(r#"{{"title": "t{i}", "err": {{"message": "m"}}}}"#))
            .collect();
        let json = format!(
            r#"{{"stats": {{"passes": 0}}, "tests": [{}]}}"#,
            tests.join(",")
        );
        let run = read_str(&json).expect("read").expect("document");
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 3) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
    }

    #[test]
    fn reports_and_output_are_dispatched_here() {
        let run = crate::results::read_report_file(&fixture("mixed.output.json"))
            .expect("read")
            .expect("a report");
        assert_eq!(run.format, ReportFormat::Mocha);
        let run =
            crate::results::read_output(&fixture("mixed.json"), &fixture("missing.stdout.txt"))
                .expect("read")
                .expect("results");
        assert_eq!(run.format, ReportFormat::Mocha);
        assert_eq!(counts(&run), (3, 6, 3));
        // Nothing on stdout, the error on stderr: no results (the exit code decides).
        let none = crate::results::read_output(
            &fixture("broken.stdout.txt"),
            &fixture("broken.stderr.txt"),
        )
        .expect("read");
        assert_eq!(none, None);
    }
}
