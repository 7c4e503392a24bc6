//! Python unittest's report (`python -m unittest`, verbose or not; Django's runner prints the
//! same): `Ran N tests` and `OK`/`FAILED (…)` give the counts, the `FAIL:`/`ERROR:` blocks and
//! the `UNEXPECTED SUCCESS:` lines the failures.
//!
//! Counting rules (the full statement is on [`UnittestReader`]):
//! - `failures`, `errors` and `unexpected successes` are failed (an unexpected success makes
//!   unittest print `FAILED`); `skipped` and `expected failures` are skipped.
//! - What unittest counts as a failure is one failed test: each failing subtest, and each error
//!   of a class or module fixture. `Ran N` counts a method once however many of its subtests
//!   failed, and a fixture not at all, so the total is `Ran` plus those further failures:
//!   `Ran 2 tests`, `FAILED (failures=3)` from three failing subtests of one method and one
//!   passing method reads 1 passed, 3 failed. Failures are never fewer than unittest's own
//!   `failures` + `errors` + `unexpected successes`, and passed + failed + skipped is the total.
//! - The claim ([`LineReader::claim`]) is `Ran` and the status line alone, in these rules.

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// A count beyond this is not unittest's (no suite runs four billion tests): refusing it keeps
/// every sum of counts far from overflowing.
const MAX_COUNT: u64 = u32::MAX as u64;

/// How many failed tests are remembered to tell a test's second failing subtest from a new
/// failed test. Beyond it every block counts as a new test: passes may then be undercounted.
const MAX_TRACKED_TESTS: usize = 10_000;

/// The errors of class and module fixtures: unittest reports them like tests but never counts
/// them in `Ran`.
const FIXTURES: [&str; 4] = [
    "setUpClass",
    "tearDownClass",
    "setUpModule",
    "tearDownModule",
];

const SEPARATOR1: &str = "======================================================================";
const SEPARATOR2: &str = "----------------------------------------------------------------------";

/// unittest's text report, read line by line from either stream (unittest writes to stderr).
///
/// Counting rules:
/// - The status line gives the failures and skips: `failures` + `errors` + `unexpected
///   successes` are failed (a test marked `@expectedFailure` that passed fails the run, as
///   unittest's own `FAILED` says), `skipped` + `expected failures` are skipped.
/// - The unit is what unittest counts in its status line: each failing subtest is one failed
///   test, and so is each error of a class or module fixture (`setUpClass`, …). `Ran N` counts
///   a method once however many of its subtests failed, and a fixture not at all: a method
///   whose subtests failed stands for as many failed tests as it printed FAIL/ERROR blocks, a
///   fixture error for one more. So total = `Ran` + (blocks of a method beyond its first) +
///   (fixture errors), passed = total − failed − skipped, and passed + failed + skipped = total.
///   Failed is never fewer than unittest's `failures` + `errors` + `unexpected successes`: it is
///   that sum.
/// - unittest counts each skipped subtest in `skipped=` too, and only the verbose lines (not
///   read) say which method it belongs to: such skips are taken from the passes, never from
///   the failures. When they outnumber the passes, passed is 0 and the total is failed +
///   skipped.
/// - Verbose lines (`test_x (…) ... ok`) and progress characters are not read: the closing
///   lines count every test and the blocks name every failure, whereas test output on the same
///   stream can break those lines up.
/// - Without the status line after `Ran N tests` (output cut short), each block is a failure.
/// - Several runs in one stream add up. The text is unittest's only with a `Ran N tests` line.
pub(crate) struct UnittestReader {
    run: TestRun,
    /// Runs counted into `run`.
    runs: u64,
    state: State,
    block: Option<Block>,
    /// `Ran N tests` was read; the status line is awaited.
    ran: Option<Ran>,
    /// The failures kept of the run in progress.
    cases: Vec<TestCase>,
    /// FAIL and ERROR blocks of the run in progress.
    blocks: u64,
    /// Of those, the ones `Ran` does not count: fixture errors and further failing subtests.
    extra: u64,
    /// Hashes of the tests that failed in the run in progress, at most [`MAX_TRACKED_TESTS`].
    failed_tests: HashSet<u64>,
    /// What the closing lines of the runs read so far said, in this crate's rules.
    claimed: Option<Claim>,
}

/// Where in the list of blocks a line is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Test output, verbose lines, dots: not read.
    Outside,
    /// After `=====`: a `FAIL: …`, `ERROR: …` or `UNEXPECTED SUCCESS: …` line follows.
    Heading,
    /// Among the `UNEXPECTED SUCCESS: …` lines (3.11+), which share one `=====` and may each
    /// be followed by the test's docstring line, until `-----`.
    Unexpected,
    /// After a block's heading: the docstring's first line, until `-----`.
    Description,
    /// The traceback, until the next `=====` or `-----`.
    Body,
}

struct Ran {
    tests: u64,
    duration_ms: Option<u64>,
}

/// `OK (skipped=1)`, `FAILED (failures=1, errors=2)`, `NO TESTS RAN`.
#[derive(Default)]
struct Status {
    failures: u64,
    errors: u64,
    skipped: u64,
    expected_failures: u64,
    unexpected_successes: u64,
}

impl Status {
    /// In this crate's rules. Each count is at most [`MAX_COUNT`]: the sums cannot overflow.
    fn failed(&self) -> u64 {
        self.failures + self.errors + self.unexpected_successes
    }

    fn skipped(&self) -> u64 {
        self.skipped + self.expected_failures
    }
}

/// What an unexpected success is, for its message: unittest prints no traceback for it.
const UNEXPECTED_SUCCESS: &str =
    "unexpected success: the test is marked @expectedFailure but passed";

/// One FAIL or ERROR block, read as it streams by.
struct Block {
    /// Name and suite; `None` when there is no room left to keep the failure.
    test: Option<(String, Option<String>)>,
    /// The file names the test's module may have: `pkg/test_x.py` for `pkg.test_x.Class`.
    modules: Vec<String>,
    /// Between `Traceback (most recent call last):` and the exception line.
    in_frames: bool,
    first_frame: Option<(String, u32)>,
    /// The last frame in the test's own module.
    test_frame: Option<(String, u32)>,
    /// The text of the last exception, from its `XxxError: …` line to the block's end.
    message: String,
}

impl LineReader for UnittestReader {
    fn feed(&mut self, line: &str) {
        UnittestReader::feed(self, line);
    }

    /// `Ran N tests` and the status line after it, summed over the runs: failed is
    /// `failures + errors + unexpected successes`, skipped `skipped + expected failures`, passed
    /// the rest of `Ran`. A run whose status line is missing claims nothing.
    fn claim(&self) -> Option<Claim> {
        self.claimed.clone()
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        UnittestReader::finish(*self)
    }
}

impl UnittestReader {
    pub(crate) fn new() -> Self {
        let mut run = TestRun::new(ReportFormat::Unittest);
        run.framework = "unittest".to_owned();
        Self {
            run,
            runs: 0,
            state: State::Outside,
            block: None,
            ran: None,
            cases: Vec::new(),
            blocks: 0,
            extra: 0,
            failed_tests: HashSet::new(),
            claimed: None,
        }
    }

    /// Feed one line, without its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        let line = line.trim_end();
        if self.ran.is_some() {
            if line.is_empty() {
                return;
            }
            if let Some(status) = parse_status(line) {
                self.close(Some(status));
                return;
            }
            self.close(None);
        }
        if line == SEPARATOR1 {
            self.end_block();
            self.state = State::Heading;
            return;
        }
        if line == SEPARATOR2 {
            if self.state == State::Description {
                self.state = State::Body;
            } else {
                self.end_block();
                self.state = State::Outside;
            }
            return;
        }
        match self.state {
            // unittest prints `-----` before `Ran`: a `Ran` line inside a traceback is a test's.
            State::Outside => {
                if let Some(ran) = parse_ran(line) {
                    self.ran = Some(ran);
                }
            }
            State::Heading => self.heading(line),
            State::Unexpected => {
                // Any other line is the docstring of the test named above it.
                if let Some(description) = line.strip_prefix("UNEXPECTED SUCCESS: ") {
                    self.unexpected_success(description);
                }
            }
            State::Description => {}
            State::Body => {
                if let Some(block) = &mut self.block {
                    block.push(line);
                }
            }
        }
    }

    /// The run, or `None` when no `Ran N tests` line was read.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        self.end_block();
        if self.ran.is_some() {
            self.close(None);
        }
        (self.runs > 0).then_some(self.run)
    }

    fn heading(&mut self, line: &str) {
        if let Some(description) = line.strip_prefix("UNEXPECTED SUCCESS: ") {
            self.unexpected_success(description);
            self.state = State::Unexpected;
            return;
        }
        let Some(description) = line
            .strip_prefix("ERROR: ")
            .or_else(|| line.strip_prefix("FAIL: "))
        else {
            if !line.is_empty() {
                self.state = State::Outside;
            }
            return;
        };
        let test = Description::parse(description);
        let test_name = self.count_failed(&test);
        self.block = Some(Block {
            test: test_name,
            modules: test.modules(),
            in_frames: false,
            first_frame: None,
            test_frame: None,
            message: String::new(),
        });
        self.state = State::Description;
    }

    /// One `UNEXPECTED SUCCESS: …` line: a failed test, with no traceback.
    fn unexpected_success(&mut self, description: &str) {
        let test = Description::parse(description);
        if let Some((name, suite)) = self.count_failed(&test) {
            let mut case = TestCase::failed(name, Some(UNEXPECTED_SUCCESS.to_owned()));
            case.suite = suite;
            self.cases.push(case);
        }
    }

    /// Count a failure block (or line) of `test`; its name and suite when there is room to
    /// keep it.
    fn count_failed(&mut self, test: &Description<'_>) -> Option<(String, Option<String>)> {
        self.blocks = self.blocks.saturating_add(1);
        if FIXTURES.contains(&test.name) || !self.note_failed_test(test) {
            self.extra = self.extra.saturating_add(1);
        }
        let room = self.run.failures.len() + self.cases.len() < MAX_KEPT_FAILURES;
        room.then(|| {
            let name = if test.subtest.is_empty() {
                test.name.to_owned()
            } else {
                format!("{} {}", test.name, test.subtest)
            };
            (truncate_name(&name), test.suite.map(truncate_name))
        })
    }

    /// Remember that the test failed; false when it had failed already (another subtest).
    fn note_failed_test(&mut self, test: &Description<'_>) -> bool {
        let mut hasher = DefaultHasher::new();
        (test.name, test.suite).hash(&mut hasher);
        let key = hasher.finish();
        if self.failed_tests.contains(&key) {
            return false;
        }
        if self.failed_tests.len() < MAX_TRACKED_TESTS {
            self.failed_tests.insert(key);
        }
        true
    }

    fn end_block(&mut self) {
        if let Some(case) = self.block.take().and_then(Block::into_case) {
            self.cases.push(case);
        }
    }

    fn close(&mut self, status: Option<Status>) {
        self.end_block();
        let Some(ran) = self.ran.take() else {
            return;
        };
        let (failed, skipped) = match &status {
            Some(s) => (s.failed(), s.skipped()),
            None => (self.blocks, 0),
        };
        // The methods among `Ran` that failed: the failures less those `Ran` does not count.
        let failed_tests = failed.saturating_sub(self.extra);
        let passed = ran
            .tests
            .saturating_sub(skipped.saturating_add(failed_tests));
        let add = |total: u64, n: u64| total.saturating_add(n).min(MAX_COUNT);
        self.run.passed = add(self.run.passed, passed);
        self.run.failed = add(self.run.failed, failed);
        self.run.skipped = add(self.run.skipped, skipped);
        if status.is_some() {
            // The closing lines alone: no further failures are known, so fewer passes are
            // claimed than read whenever a method's subtests failed more than once.
            let claim = self
                .claimed
                .get_or_insert_with(|| Claim::new(ReportFormat::Unittest, 0, 0, 0));
            let claimed_passed = ran.tests.saturating_sub(skipped.saturating_add(failed));
            claim.passed = add(claim.passed, claimed_passed);
            claim.failed = add(claim.failed, failed);
            claim.skipped = add(claim.skipped, skipped);
        }
        if let Some(ms) = ran.duration_ms {
            self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(ms));
        }
        let kept = usize::try_from(failed).unwrap_or(usize::MAX);
        self.run
            .failures
            .extend(std::mem::take(&mut self.cases).into_iter().take(kept));
        self.blocks = 0;
        self.extra = 0;
        self.failed_tests.clear();
        self.state = State::Outside;
        self.runs += 1;
    }
}

/// A block heading's test: `test_x (pkg.mod.Class.test_x) [msg] (i=1)`, or before Python 3.11
/// `test_x (pkg.mod.Class) (i=1)`.
struct Description<'a> {
    name: &'a str,
    /// `pkg.mod.Class` (`pkg.mod` for a module fixture).
    suite: Option<&'a str>,
    /// A subtest's `[msg]` and `(params)`, or empty.
    subtest: &'a str,
}

impl<'a> Description<'a> {
    fn parse(text: &'a str) -> Self {
        let splits = || {
            text.match_indices(" (")
                .filter_map(|(i, _)| Some((text.get(..i)?, text.get(i + 2..)?)))
        };
        // Python 3.11+: the id in parentheses ends with the name (which may hold ` (` itself).
        let modern = splits().find_map(|(name, after)| {
            let needle = format!(".{name})");
            let end = after.find(&needle)?;
            let suite = after.get(..end)?;
            let subtest = after.get(end + needle.len()..)?;
            (!suite.is_empty() && !suite.contains(char::is_whitespace))
                .then_some((name, suite, subtest))
        });
        // Older: `name (module.Class)`.
        let older = || {
            splits().find_map(|(name, after)| {
                let (suite, subtest) = after.split_once(')')?;
                (!suite.is_empty() && !suite.contains(char::is_whitespace))
                    .then_some((name, suite, subtest))
            })
        };
        match modern.or_else(older) {
            Some((name, suite, subtest)) => Self {
                name,
                suite: Some(suite),
                subtest: subtest.trim(),
            },
            None => Self {
                name: text,
                suite: None,
                subtest: "",
            },
        }
    }

    /// The files the test's module may be: each dotted prefix of the suite as a path.
    fn modules(&self) -> Vec<String> {
        let Some(suite) = self.suite else {
            return Vec::new();
        };
        // A module that failed to import is reported as a `unittest.loader._FailedTest` test
        // named after the module.
        let dotted = if suite.starts_with("unittest.loader.") {
            self.name
        } else {
            suite
        };
        let parts: Vec<&str> = dotted.split('.').take(16).collect();
        (1..=parts.len())
            .filter_map(|n| parts.get(..n))
            .map(|prefix| format!("{}.py", prefix.join("/")))
            .collect()
    }
}

impl Block {
    fn push(&mut self, line: &str) {
        if line == "Traceback (most recent call last):" {
            // A chained exception, or the import error's own traceback inside a message: the
            // last traceback is the one that failed the test.
            self.in_frames = true;
            self.message.clear();
            self.first_frame = None;
            self.test_frame = None;
            return;
        }
        if self.in_frames {
            if line.starts_with(char::is_whitespace) {
                if let Some((path, number)) = parse_frame(line.trim_start()) {
                    let frame = (truncate_name(path), number);
                    if self.modules.iter().any(|m| same_file(path, m)) {
                        self.test_frame = Some(frame.clone());
                    }
                    self.first_frame.get_or_insert(frame);
                }
                return;
            }
            self.in_frames = false;
        }
        if self.message.len() <= MAX_MESSAGE_BYTES {
            if !self.message.is_empty() {
                self.message.push('\n');
            }
            self.message.push_str(line);
        }
    }

    fn into_case(self) -> Option<TestCase> {
        let (name, suite) = self.test?;
        let message = self.message.trim_matches('\n').trim_end();
        let mut case = TestCase::failed(name, (!message.is_empty()).then(|| message.to_owned()));
        case.suite = suite;
        // The frame in the test's module; else the first frame unittest printed, which is the
        // test's own since unittest hides its frames.
        if let Some((file, line)) = self.test_frame.or(self.first_frame) {
            case.file = Some(file);
            case.line = Some(line).filter(|&n| n > 0);
        }
        Some(case)
    }
}

/// `Ran 12 tests in 0.003s` (`Ran 1 test in …`).
fn parse_ran(line: &str) -> Option<Ran> {
    let rest = line.strip_prefix("Ran ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let tests: u64 = rest
        .get(..digits)?
        .parse()
        .ok()
        .filter(|&n| n <= MAX_COUNT)?;
    let rest = rest.get(digits..)?;
    let rest = rest
        .strip_prefix(" tests in ")
        .or_else(|| rest.strip_prefix(" test in "))?;
    let seconds = rest.strip_suffix('s')?;
    let numeric = !seconds.is_empty()
        && seconds.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && seconds.bytes().filter(|&b| b == b'.').count() <= 1;
    if !numeric {
        return None;
    }
    let ms = (seconds.parse::<f64>().ok()? * 1000.0).round();
    Some(Ran {
        tests,
        duration_ms: (ms.is_finite() && ms <= 1e15).then_some(ms as u64),
    })
}

/// `OK`, `FAILED (failures=1, errors=2, skipped=3, expected failures=1, unexpected
/// successes=1)`, `NO TESTS RAN`. Keys unittest does not print are left out; a count beyond
/// [`MAX_COUNT`] makes it no status line.
fn parse_status(line: &str) -> Option<Status> {
    let (word, counts) = match line.split_once(" (") {
        Some((word, counts)) => (word, Some(counts.strip_suffix(')')?)),
        None => (line, None),
    };
    if !matches!(word, "OK" | "FAILED" | "NO TESTS RAN") {
        return None;
    }
    let mut status = Status::default();
    for pair in counts.into_iter().flat_map(|c| c.split(", ")) {
        let (key, value) = pair.split_once('=')?;
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u64 = value.parse().ok().filter(|&n| n <= MAX_COUNT)?;
        match key {
            "failures" => status.failures = n,
            "errors" => status.errors = n,
            "skipped" => status.skipped = n,
            "expected failures" => status.expected_failures = n,
            "unexpected successes" => status.unexpected_successes = n,
            _ => {}
        }
    }
    Some(status)
}

/// `File "path", line 3, in test_x` (or without `, in …`) → (path, 3).
fn parse_frame(text: &str) -> Option<(&str, u32)> {
    let rest = text.strip_prefix("File \"")?;
    let (path, after) = rest.rsplit_once("\", line ")?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number = after.get(..digits)?.parse().ok()?;
    Some((path, number))
}

/// Tracebacks print absolute paths; the module gives the end of one.
fn same_file(path: &str, module_file: &str) -> bool {
    path.strip_suffix(module_file)
        .is_some_and(|prefix| prefix.is_empty() || prefix.ends_with('/'))
}

fn truncate_name(name: &str) -> String {
    truncate_utf8(name, MAX_NAME_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;
    use crate::results::testkit::{counts, names};

    fn read(rel: &str) -> TestRun {
        let path = crate::results::testkit::fixture(&format!("unittest/{rel}"));
        crate::results::read_report_as(&path, ReportFormat::Unittest)
            .expect("read")
            .unwrap_or_else(|| panic!("{rel} is unittest output"))
    }

    fn fixture_text(rel: &str) -> String {
        crate::results::testkit::fixture_text(&format!("unittest/{rel}"))
    }

    fn parse(text: &str) -> Option<TestRun> {
        let mut reader = UnittestReader::new();
        for line in text.lines() {
            reader.feed(line);
        }
        reader.finish()
    }

    fn claim_of(text: &str) -> Option<Claim> {
        let mut reader = UnittestReader::new();
        for line in text.lines() {
            reader.feed(line);
        }
        LineReader::claim(&reader)
    }

    fn first_line(case: &TestCase) -> Option<&str> {
        case.message.as_deref().and_then(|m| m.lines().next())
    }

    const MIXED: [&str; 4] = [
        "mixed-v.txt",
        "mixed-quiet.txt",
        "mixed-v.3.10.txt",
        "mixed-v.3.13.txt",
    ];

    /// The mixed suite's failures, ERROR blocks first as unittest prints them, then FAIL blocks;
    /// from 3.11 on the unexpected success follows, named on a line of its own.
    const MIXED_FAILED: [&str; 15] = [
        "setUpClass",
        "test_chained",
        "test_error",
        "test_in_helper",
        "test_missing_module",
        "test_times_out",
        "test_| pipe | `tick` @someone <b>bold</b>",
        "test_ünïcödé",
        "test_documented",
        "test_fails",
        "test_lists",
        "test_even (i=1)",
        "test_even (i=3)",
        "test_hostile_message [| pipe | `tick` @someone <b>bold</b>]",
        "test_unexpected_success",
    ];

    #[test]
    fn every_fixture_matches_unittests_own_closing_lines() {
        // `Ran 16 tests` / `FAILED (failures=8, errors=6, skipped=1, expected failures=1,
        // unexpected successes=1)`: failed = 8 + 6 + 1, skipped = 1 + 1. Of the 15 failures, the
        // setUpClass error and test_even's second failing subtest are not among the 16 tests
        // that ran, so 16 - 2 - 13 = 1 passed: test_passes. Total 18 = 16 + those 2.
        for file in MIXED {
            let run = read(file);
            assert_eq!(run.framework, "unittest");
            assert_eq!(run.format, ReportFormat::Unittest);
            assert_eq!(counts(&run), (1, 15, 2), "{file}");
            // Python 3.10 prints no line for the unexpected success: it is counted, unnamed.
            let named = if file == "mixed-v.3.10.txt" { 14 } else { 15 };
            assert_eq!(names(&run), MIXED_FAILED[..named], "{file}");
            assert!(run.duration_ms.is_some(), "{file}");
        }
        // discover also loads test_broken_import.py: `Ran 17 tests`, errors=7.
        for file in ["discover-v.txt", "discover-quiet.txt"] {
            let run = read(file);
            assert_eq!(counts(&run), (1, 16, 2), "{file}");
            assert_eq!(run.failures[0].name, "test_broken_import", "{file}");
            assert_eq!(run.failures.len(), 16, "{file}");
        }
        // `Ran 2 tests` / `FAILED (errors=1)`.
        assert_eq!(counts(&read("syntax-v.txt")), (1, 1, 0));
        // `Ran 3 tests` / `OK`.
        for file in ["pass-v.txt", "pass-quiet.txt"] {
            let run = read(file);
            assert_eq!(counts(&run), (3, 0, 0), "{file}");
            assert!(run.failures.is_empty());
        }
        // `Ran 0 tests` / `OK` (3.10, 3.11) or `NO TESTS RAN` (3.12+): no tests, not a pass.
        for file in [
            "empty-quiet.txt",
            "empty-quiet.3.10.txt",
            "empty-quiet.3.13.txt",
        ] {
            let run = read(file);
            assert_eq!(counts(&run), (0, 0, 0), "{file}");
            assert_eq!(run.pass_rate(), None);
        }
    }

    #[test]
    fn several_failing_subtests_of_one_method() {
        // `Ran 2 tests` / `FAILED (failures=3)`: one method with three failing subtests and one
        // passing method. Each failing subtest is a failed test, the method is not counted
        // again: 1 passed, 3 failed, total 4 = 2 + the 2 further subtests.
        for file in [
            "subtests-v.txt",
            "subtests-quiet.txt",
            "subtests-v.3.10.txt",
            "subtests-v.3.13.txt",
        ] {
            let run = read(file);
            assert_eq!(counts(&run), (1, 3, 0), "{file}");
            assert_eq!(
                names(&run),
                [
                    "test_every_port_is_privileged (port=8080)",
                    "test_every_port_is_privileged (port=8443)",
                    "test_every_port_is_privileged (port=9000)",
                ],
                "{file}"
            );
            let last = &run.failures[2];
            assert_eq!(last.suite.as_deref(), Some("test_subtests.Ports"), "{file}");
            assert_eq!(
                (last.file.as_deref(), last.line),
                (
                    Some("/tmp/skillgate-fixtures/unittest/subtests/test_subtests.py"),
                    Some(13)
                ),
                "{file}"
            );
            assert_eq!(
                first_line(last),
                Some("AssertionError: 9000 not less than 1024 : port 9000 is not privileged"),
                "{file}"
            );
            // The closing lines alone cannot tell the subtests apart: 2 - 3 → 0 passed.
            assert_eq!(
                claim_of(&fixture_text(file)),
                Some(Claim::new(ReportFormat::Unittest, 0, 3, 0)),
                "{file}"
            );
        }
    }

    #[test]
    fn skipped_subtests_are_taken_from_the_passes() {
        // `Ran 3 tests` / `FAILED (failures=1, skipped=4)`: test_passes passed, one method
        // skipped three subtests, another skipped one and failed one. Which method a skip
        // belongs to is not printed: 3 - 4 - 1 → 0 passed, never fewer failures.
        let run = read("subskips-quiet.txt");
        assert_eq!(counts(&run), (0, 1, 4));
        assert_eq!(names(&run), ["test_one_skips_one_fails (step='checksum')"]);
        assert_eq!(
            claim_of(&fixture_text("subskips-quiet.txt")),
            Some(Claim::new(ReportFormat::Unittest, 0, 1, 4))
        );
    }

    #[test]
    fn unexpected_successes_are_failures() {
        // `Ran 4 tests` / `FAILED (expected failures=1, unexpected successes=2)`: 2 failed, the
        // expected failure skipped, test_passes passed. From 3.11 on unittest names them on
        // `UNEXPECTED SUCCESS:` lines under one `=====`, a docstring line after one of them.
        for file in [
            "unexpected-v.txt",
            "unexpected-quiet.txt",
            "unexpected-v.3.13.txt",
        ] {
            let run = read(file);
            assert_eq!(counts(&run), (1, 2, 1), "{file}");
            assert_eq!(
                names(&run),
                ["test_documented_fix", "test_fixed_already"],
                "{file}"
            );
            for case in &run.failures {
                assert_eq!(case.suite.as_deref(), Some("test_unexpected.Expectations"));
                assert_eq!(case.message.as_deref(), Some(UNEXPECTED_SUCCESS));
                assert_eq!((case.file.as_deref(), case.line), (None, None));
            }
            assert_eq!(
                claim_of(&fixture_text(file)),
                Some(Claim::new(ReportFormat::Unittest, 1, 2, 1)),
                "{file}"
            );
        }
        // Python 3.10 only counts them.
        let run = read("unexpected-v.3.10.txt");
        assert_eq!(counts(&run), (1, 2, 1));
        assert!(run.failures.is_empty());
    }

    #[test]
    fn claims_are_the_closing_lines() {
        // `Ran 16 tests` / `FAILED (failures=8, errors=6, skipped=1, expected failures=1,
        // unexpected successes=1)`: 16 - 15 - 2 → 0 passed; the reader's 1 passed, 15 failed,
        // 2 skipped holds it.
        for file in MIXED {
            assert_eq!(
                claim_of(&fixture_text(file)),
                Some(Claim::new(ReportFormat::Unittest, 0, 15, 2)),
                "{file}"
            );
        }
        assert_eq!(
            claim_of(&fixture_text("pass-quiet.txt")),
            Some(Claim::new(ReportFormat::Unittest, 3, 0, 0))
        );
        for file in ["empty-quiet.txt", "empty-quiet.3.13.txt"] {
            assert_eq!(
                claim_of(&fixture_text(file)),
                Some(Claim::new(ReportFormat::Unittest, 0, 0, 0)),
                "{file}"
            );
        }
        assert_eq!(claim_of("Ran 3 tests in 0.1s\n"), None);
        assert_eq!(claim_of("FAILED (failures=3)\n"), None);
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for file in ["mixed-v.txt", "subtests-quiet.txt", "unexpected-v.txt"] {
            crate::results::testkit::assert_claims_hold(
                ReportFormat::Unittest,
                &fixture_text(file),
                500,
            );
        }
    }

    #[test]
    fn failures_in_detail() {
        let run = read("mixed-v.txt");
        let file = Some("/tmp/skillgate-fixtures/unittest/mixed/test_mixed.py");
        let got: Vec<_> = run
            .failures
            .iter()
            .map(|c| {
                (
                    c.suite.as_deref(),
                    c.file.as_deref(),
                    c.line,
                    c.kind,
                    first_line(c),
                )
            })
            .collect();
        let outcomes = Some("test_mixed.Outcomes");
        let hostile = Some("test_mixed.HostileNames");
        let subtests = Some("test_mixed.SubTests");
        let assertion = Some(FailureKind::Assertion);
        assert_eq!(
            got,
            [
                (
                    Some("test_mixed.BrokenFixture"),
                    file,
                    Some(72),
                    assertion,
                    Some("ConnectionError: database fixture could not connect")
                ),
                // Of a chained exception, the last one raised.
                (
                    outcomes,
                    file,
                    Some(50),
                    assertion,
                    Some("ValueError: config is incomplete")
                ),
                (
                    outcomes,
                    file,
                    Some(16),
                    assertion,
                    Some("ZeroDivisionError: division by zero")
                ),
                // Raised in helpers.py, annotated at the test's own line.
                (
                    outcomes,
                    file,
                    Some(41),
                    assertion,
                    Some("ValueError: too many values to unpack (expected 2)")
                ),
                (
                    outcomes,
                    file,
                    Some(38),
                    Some(FailureKind::Dependency),
                    Some(
                        "ModuleNotFoundError: No module named 'skillgate_module_that_does_not_exist'"
                    )
                ),
                (
                    outcomes,
                    file,
                    Some(53),
                    Some(FailureKind::Timeout),
                    Some("TimeoutError: operation timed out after 30s")
                ),
                (
                    hostile,
                    file,
                    Some(87),
                    assertion,
                    Some("AssertionError: markdown-hostile name")
                ),
                (
                    hostile,
                    file,
                    Some(80),
                    assertion,
                    Some("AssertionError: 'é' != 'e'")
                ),
                // The docstring line after the heading is not the message.
                (
                    outcomes,
                    file,
                    Some(35),
                    assertion,
                    Some("AssertionError: 'x' not found in 'abc' : x ... missing")
                ),
                (
                    outcomes,
                    file,
                    Some(13),
                    assertion,
                    Some(
                        "AssertionError: {'name': 'deploy', 'retries': 2} != \
                         {'name': 'deploy', 'retries': 3}"
                    )
                ),
                (
                    outcomes,
                    file,
                    Some(44),
                    assertion,
                    Some("AssertionError: Lists differ: [1, 2, 3] != [1, 5, 3]")
                ),
                (
                    subtests,
                    file,
                    Some(60),
                    assertion,
                    Some("AssertionError: 1 != 0")
                ),
                (
                    subtests,
                    file,
                    Some(60),
                    assertion,
                    Some("AssertionError: 1 != 0")
                ),
                (
                    subtests,
                    file,
                    Some(64),
                    assertion,
                    Some("AssertionError: ünïcödé ✗")
                ),
                // No traceback: unittest only names it.
                (outcomes, None, None, assertion, Some(UNEXPECTED_SUCCESS)),
            ]
        );
        // The whole exception text, up to the block's end.
        assert_eq!(
            run.failures[10].message.as_deref(),
            Some(
                "AssertionError: Lists differ: [1, 2, 3] != [1, 5, 3]\n\n\
                 First differing element 1:\n2\n5\n\n- [1, 2, 3]\n?     ^\n\n+ [1, 5, 3]\n?     ^"
            )
        );
    }

    #[test]
    fn python_310_ids_read_the_same() {
        let modern = read("mixed-v.txt");
        let older = read("mixed-v.3.10.txt");
        let view = |run: &TestRun| {
            run.failures
                .iter()
                .map(|c| (c.name.clone(), c.suite.clone(), c.line, c.kind))
                .collect::<Vec<_>>()
        };
        // All but the unexpected success, which 3.10 does not name.
        assert_eq!(view(&modern)[..14], view(&older));
        assert_eq!(counts(&modern), counts(&older));
    }

    #[test]
    fn modules_that_fail_to_import() {
        let run = read("discover-v.txt");
        let import = &run.failures[0];
        assert_eq!(import.suite.as_deref(), Some("unittest.loader._FailedTest"));
        assert_eq!(import.kind, Some(FailureKind::Dependency));
        assert_eq!(
            import.message.as_deref(),
            Some(
                "ModuleNotFoundError: No module named 'skillgate_dependency_that_is_not_installed'"
            )
        );
        // The module's own frame, not the loader's.
        assert_eq!(
            (import.file.as_deref(), import.line),
            (
                Some("/tmp/skillgate-fixtures/unittest/mixed/test_broken_import.py"),
                Some(5)
            )
        );

        let run = read("syntax-v.txt");
        let syntax = &run.failures[0];
        assert_eq!(syntax.name, "test_syntax_error");
        assert_eq!(syntax.kind, Some(FailureKind::Syntax));
        assert_eq!(first_line(syntax), Some("SyntaxError: invalid syntax"));
        assert_eq!(
            (syntax.file.as_deref(), syntax.line),
            (
                Some("/tmp/skillgate-fixtures/unittest/syntax/test_syntax_error.py"),
                Some(1)
            )
        );
    }

    #[test]
    fn without_the_status_line_each_block_is_a_failure() {
        let text = fixture_text("mixed-v.txt");
        let cut = text
            .get(..text.find("\nFAILED (").expect("status"))
            .expect("cut");
        let run = parse(cut).expect("Ran was read");
        // 14 blocks and the unexpected success, 2 of them not among the 16 tests; skips are
        // unknown, and so no summary is claimed.
        assert_eq!(counts(&run), (3, 15, 0));
        assert_eq!(run.failures.len(), 15);
        let mut reader = UnittestReader::new();
        cut.lines().for_each(|line| reader.feed(line));
        assert_eq!(LineReader::claim(&reader), None);
        // Without `Ran`, nothing: verbose lines and blocks are not counted on their own.
        let cut = text.get(..text.find("\nRan ").expect("Ran")).expect("cut");
        assert_eq!(parse(cut), None);
        // Something else where the status line belongs.
        let run = parse("Ran 3 tests in 0.001s\n\nsomething else\n").expect("Ran was read");
        assert_eq!(counts(&run), (3, 0, 0));
    }

    #[test]
    fn runs_in_one_stream_add_up() {
        let text = fixture_text("pass-v.txt") + &fixture_text("mixed-quiet.txt");
        let run = parse(&text).expect("unittest");
        assert_eq!(counts(&run), (4, 15, 2));
        assert_eq!(run.failures.len(), 15);
        // `Ran 3` / `OK` and `Ran 16` / `FAILED (…)`: 3 + (16 - 15 - 2 → 0) passed.
        assert_eq!(
            claim_of(&text),
            Some(Claim::new(ReportFormat::Unittest, 3, 15, 2))
        );
    }

    #[test]
    fn absurd_counts_are_refused_and_sums_saturate() {
        assert_eq!(parse("Ran 99999999999999999999 tests in 0.1s\n\nOK"), None);
        assert_eq!(parse("Ran 4294967296 tests in 0.1s\n\nOK"), None);
        // A status line beyond belief is not one: the blocks (none) count instead.
        let run = parse("Ran 3 tests in 0.1s\n\nFAILED (failures=99999999999999999999)")
            .expect("Ran was read");
        assert_eq!(counts(&run), (3, 0, 0));
        let run = parse("Ran 5 tests in 0.1s\n\nFAILED (failures=4294967295, errors=4294967295)")
            .expect("Ran was read");
        assert_eq!(counts(&run), (0, MAX_COUNT, 0));
        let run = parse(&"Ran 4294967295 tests in 1e3s\n\nOK (skipped=4294967295)\n".repeat(3));
        assert_eq!(run, None, "1e3s is not unittest's duration");
        let run = parse(&"Ran 4294967295 tests in 0.5s\n\nOK (skipped=4294967295)\n".repeat(3))
            .expect("unittest");
        assert_eq!(counts(&run), (0, 0, MAX_COUNT));
        assert_eq!(run.total(), MAX_COUNT);
    }

    #[test]
    fn not_unittest_output() {
        for text in [
            "",
            "\u{0}\u{1}\u{fffd}garbage\u{7f}\n\u{fffd}\u{fffd}",
            "Ran tests in 0.1s\n\nOK",
            "Ran 3 tests\n\nOK",
            "Ran 3 tests in 0.1 s\n\nOK",
            "test_a (m.T.test_a) ... ok\ntest_b (m.T.test_b) ... FAIL\n",
            "==== 3 passed in 0.12s ====",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        for fixture in ["pytest/mixed-v.txt", "tap/node.tap", "summary/stdout.txt"] {
            let path = crate::results::testkit::fixture(fixture);
            let run = crate::results::read_report_as(&path, ReportFormat::Unittest).expect("read");
            assert_eq!(run, None, "{fixture}");
        }
        // A `Ran` line inside a traceback is a test's own output.
        let run = parse(&format!(
            "{SEPARATOR1}\nFAIL: test_a (m.T.test_a)\n{SEPARATOR2}\nTraceback (most recent call last):\n\
             AssertionError: output was\nRan 9 tests in 0.1s\n\n{SEPARATOR2}\nRan 1 test in 0.001s\n\n\
             FAILED (failures=1)"
        ))
        .expect("unittest");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("AssertionError: output was\nRan 9 tests in 0.1s")
        );
    }

    #[test]
    fn kept_failures_and_their_text_are_bounded() {
        let mut text = String::new();
        let long = "n".repeat(5000);
        for i in 0..MAX_KEPT_FAILURES + 50 {
            text.push_str(&format!(
                "{SEPARATOR1}\nFAIL: test_{i}{long} (m.T.test_{i}{long})\n{SEPARATOR2}\n\
                 Traceback (most recent call last):\n  File \"m.py\", line 3, in test\n\
                 AssertionError: {}\n{}\n",
                "é".repeat(3000),
                "more\n".repeat(2000)
            ));
        }
        text.push_str(&format!(
            "{SEPARATOR2}\nRan 250 tests in 1.000s\n\nFAILED (failures=250)\n"
        ));
        let run = parse(&text).expect("unittest");
        assert_eq!(counts(&run), (0, 250, 0));
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        let case = &run.failures[0];
        assert!(case.name.len() <= MAX_NAME_BYTES);
        assert_eq!(case.suite.as_deref(), Some("m.T"));
        assert_eq!((case.file.as_deref(), case.line), (Some("m.py"), Some(3)));
        let message = case.message.as_deref().expect("message");
        assert!(message.len() <= MAX_MESSAGE_BYTES, "{}", message.len());
        assert!(message.starts_with("AssertionError: éé"));
    }

    #[test]
    fn descriptions() {
        let parts = |text| {
            let d = Description::parse(text);
            (d.name, d.suite, d.subtest)
        };
        assert_eq!(
            parts("test_a (p.m.T.test_a)"),
            ("test_a", Some("p.m.T"), "")
        );
        assert_eq!(parts("test_a (p.m.T)"), ("test_a", Some("p.m.T"), ""));
        assert_eq!(
            parts("test_a (p.m.T.test_a) [msg (x)] (i=1)"),
            ("test_a", Some("p.m.T"), "[msg (x)] (i=1)")
        );
        assert_eq!(
            parts("test_a (b (p.m.T.test_a (b)"),
            ("test_a (b", Some("p.m.T"), "")
        );
        assert_eq!(
            parts("tearDownModule (p.m)"),
            ("tearDownModule", Some("p.m"), "")
        );
        assert_eq!(parts("weird"), ("weird", None, ""));
        let modules = Description::parse("test_a (pkg.test_m.T.test_a)").modules();
        assert_eq!(modules, ["pkg.py", "pkg/test_m.py", "pkg/test_m/T.py"]);
        assert!(same_file("/tmp/x/pkg/test_m.py", "pkg/test_m.py"));
        assert!(!same_file("/tmp/x/apkg/test_m.py", "pkg/test_m.py"));
    }

    /// Lines assembled from the pieces both Python formats are made of, in any order: no
    /// panic, and whatever is read stays within the limits.
    #[test]
    fn arbitrary_lines_never_panic() {
        const PIECES: [&str; 24] = [
            "=",
            "===",
            "_",
            "____",
            " ",
            "E",
            "E   ",
            ":",
            "12",
            "99999999999999999999",
            "[",
            "]",
            " [ 42%]",
            "(",
            ")",
            " - ",
            "::",
            "é",
            "✓",
            "OK (skipped=1)",
            "======================================================================",
            ", ",
            "FAIL: ",
            "Ran 3 tests in 0.1s",
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let mut reader = UnittestReader::new();
            for _ in 0..50 {
                let mut line = String::new();
                for _ in 0..(next() % 12) {
                    line.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                }
                reader.feed(&line);
            }
            if let Some(run) = reader.finish() {
                assert!(run.failures.len() <= MAX_KEPT_FAILURES);
                assert!(run.passed <= MAX_COUNT && run.failed <= MAX_COUNT);
                assert!(run.skipped <= MAX_COUNT);
            }
        }
    }
}
