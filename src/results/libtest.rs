//! cargo test output read line by line: libtest's text format (several test binaries and
//! doc-tests in one stream), libtest's JSON events, and cargo-nextest's human output.

use std::collections::HashSet;

use serde::Deserialize;

use super::line_reader::LineReader;
use super::model::{
    Claim, FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase,
    TestRun, classify_failure, truncate_utf8,
};
use crate::input::{MAX_NAME_BYTES, strip_ansi};

/// A failure's captured output is read up to this many bytes.
const MAX_BLOCK_BYTES: usize = 64 * 1024;
/// Started tests remembered to name the ones a crashed binary left running (JSON).
const MAX_STARTED: usize = 1024;
/// Running tests named in a crash message.
const MAX_NAMED_RUNNING: usize = 5;

/// A cargo test stream. Lines that are not libtest, cargo or nextest output are ignored.
///
/// Counting rules:
/// - Each test binary's own `test result:` line (or JSON `suite` event) gives its counts:
///   `passed`, `failed`, `ignored` (as skipped); `measured` benches and `filtered out` tests are
///   not counted. Binaries (unit tests, each integration test, doc-tests) are summed.
/// - A binary that announced `running N tests` and stopped without its `test result:` line
///   crashed: its unreported tests count as failed (at least one), kept as one case.
/// - `error: could not compile …` is one failed case: the tests could not be built.
/// - nextest: its `Summary` line gives the counts (tests run − passed = failed); without
///   one, its `PASS`/`FAIL`/`SKIP` lines do.
/// - The stream is libtest's when it holds a `running N tests` or `test result:` line, a
///   libtest JSON event, a nextest status or summary line, or cargo's `could not compile`.
pub(crate) struct LibtestReader {
    run: TestRun,
    seen: bool,
    /// The test binary being read.
    suite: Option<Suite>,
    /// The nextest run being read.
    nextest: Option<Nextest>,
    /// A failure's captured output being read.
    block: Option<Block>,
    /// The test source cargo last said it runs (`Running tests/api.rs (…)`), when cargo's
    /// stderr shares the stream.
    target: Option<String>,
    /// The first compiler error since the last `could not compile`.
    compile_error: Option<Explained>,
    /// `error[E…]` was seen and its ` --> file:line:col` may follow.
    want_location: bool,
    /// The binaries' `test result:` lines (or suite events), added up: what libtest said.
    claim: Option<Claim>,
}

#[derive(Default)]
struct Suite {
    announced: Option<u64>,
    passed: u64,
    failed: u64,
    ignored: u64,
    /// Where this binary's kept failures start in the run.
    first_kept: usize,
    /// JSON: tests started and not finished.
    started: HashSet<String>,
}

#[derive(Default)]
struct Nextest {
    passed: u64,
    failed: u64,
    skipped: u64,
    /// The `Summary` line was read: its counts are in, and the list after it repeats failures.
    summarized: bool,
}

struct Block {
    /// Index of the kept case in the run's failures.
    case: usize,
    lines: Vec<String>,
    bytes: usize,
    /// nextest indents captured output.
    dedent: bool,
}

/// A failure's message and location, read from its output.
#[derive(Default)]
struct Explained {
    message: Option<String>,
    file: Option<String>,
    line: Option<u32>,
}

/// One libtest JSON event. Unknown fields are ignored.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    event: Option<String>,
    name: Option<String>,
    stdout: Option<String>,
    message: Option<String>,
    exec_time: Option<f64>,
    test_count: Option<u64>,
    passed: Option<u64>,
    failed: Option<u64>,
    ignored: Option<u64>,
}

impl LineReader for LibtestReader {
    fn feed(&mut self, line: &str) {
        let trimmed = line.trim_start();
        if trimmed.starts_with('{')
            && trimmed.contains("\"type\"")
            && let Ok(event) = serde_json::from_str::<Event>(trimmed)
            && self.event(event)
        {
            return;
        }
        self.text_line(line);
    }

    fn claim(&self) -> Option<Claim> {
        self.claim.clone()
    }

    fn finish(mut self: Box<Self>) -> Option<TestRun> {
        self.end_block();
        if let Some(suite) = self.suite.take() {
            self.close_suite(suite, None, None, Ending::Cut(None));
        }
        if let Some(nextest) = self.nextest.take() {
            self.close_nextest(nextest);
        }
        self.seen.then_some(self.run)
    }
}

impl LibtestReader {
    pub(crate) fn new() -> Self {
        Self {
            run: TestRun::new(ReportFormat::Libtest),
            seen: false,
            suite: None,
            nextest: None,
            block: None,
            target: None,
            compile_error: None,
            want_location: false,
            claim: None,
        }
    }

    /// Add one binary's own summary to the claim.
    fn claim_counts(&mut self, counts: Option<Counts>) {
        if let Some((passed, failed, ignored)) = counts {
            let claim = self
                .claim
                .get_or_insert_with(|| Claim::new(ReportFormat::Libtest, 0, 0, 0));
            claim.passed = claim.passed.saturating_add(passed);
            claim.failed = claim.failed.saturating_add(failed);
            claim.skipped = claim.skipped.saturating_add(ignored);
        }
    }

    /// Apply one JSON event; false when it is not libtest's.
    fn event(&mut self, event: Event) -> bool {
        match (event.kind.as_str(), event.event.as_deref()) {
            ("suite", Some("started")) => self.start_suite(event.test_count),
            ("suite", Some("ok" | "failed")) => {
                let counts = match (event.passed, event.failed) {
                    (Some(passed), Some(failed)) => {
                        Some((passed, failed, event.ignored.unwrap_or(0)))
                    }
                    _ => None,
                };
                self.claim_counts(counts);
                let suite = self.suite.take().unwrap_or_default();
                self.close_suite(suite, counts, event.exec_time, Ending::Summary);
            }
            ("test", Some(status)) => {
                let name = truncate_utf8(event.name.as_deref().unwrap_or(""), MAX_NAME_BYTES);
                let suite = self.suite.get_or_insert_with(Suite::default);
                match status {
                    "started" if suite.started.len() < MAX_STARTED => {
                        suite.started.insert(name);
                    }
                    "ok" | "failed" | "ignored" => {
                        suite.started.remove(&name);
                        let outcome = match status {
                            "ok" => Outcome::Passed,
                            "failed" => Outcome::Failed,
                            _ => Outcome::Skipped,
                        };
                        let kept = self.test_result(&name, outcome, event.exec_time);
                        if let Some(case) = kept {
                            let stdout = strip_ansi(event.stdout.as_deref().unwrap_or(""));
                            let mut explained = explain(stdout.lines());
                            if explained.message.is_none() {
                                explained.message = event.message;
                            }
                            self.apply(case, explained);
                        }
                    }
                    // `timeout` warns that a test runs long; it reports later.
                    _ => {}
                }
            }
            // Benchmarks are measured, not counted.
            ("bench", _) => {}
            _ => return false,
        }
        self.seen = true;
        true
    }

    fn text_line(&mut self, line: &str) {
        if self.block.is_some() && !self.ends_block(line) {
            if let Some(block) = &mut self.block {
                block.push(line);
            }
            return;
        }
        self.end_block();
        let trimmed = line.trim();
        if let Some(announced) = parse_running(line) {
            self.seen = true;
            self.start_suite(announced);
        } else if let Some((counts, seconds)) = parse_result_line(line) {
            self.seen = true;
            self.claim_counts(counts);
            let suite = self.suite.take().unwrap_or_default();
            self.close_suite(suite, counts, seconds, Ending::Summary);
        } else if let Some((name, outcome, seconds)) = parse_test_line(line) {
            match outcome {
                Some(outcome) => {
                    self.test_result(name, outcome, seconds);
                }
                None => {
                    // `test x ... ` and nothing after: the binary died while x ran.
                    let suite = self.suite.get_or_insert_with(Suite::default);
                    if suite.started.len() < MAX_STARTED {
                        suite.started.insert(truncate_utf8(name, MAX_NAME_BYTES));
                    }
                }
            }
        } else if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|rest| rest.strip_suffix(" stdout ----"))
        {
            self.start_text_block(name);
        } else if let Some(status) = parse_nextest_status(trimmed) {
            self.seen = true;
            self.nextest_status(status);
        } else if trimmed.starts_with("Starting ")
            && (trimmed.contains(" tests across ") || trimmed.contains(" test across "))
        {
            self.seen = true;
            if let Some(done) = self.nextest.replace(Nextest::default()) {
                self.close_nextest(done);
            }
        } else if let Some((run, passed, skipped, seconds)) = parse_nextest_summary(trimmed) {
            self.seen = true;
            self.add_duration(seconds);
            let nextest = self.nextest.get_or_insert_with(Nextest::default);
            nextest.passed = passed;
            nextest.failed = run.saturating_sub(passed);
            nextest.skipped = skipped;
            nextest.summarized = true;
            self.run.framework = "nextest".to_owned();
        } else if let Some(target) = line.strip_prefix("error: could not compile `") {
            self.seen = true;
            self.could_not_compile(target);
        } else if let Some(reason) = trimmed.strip_prefix("process didn't exit successfully: ") {
            // cargo's word on a binary that died; only news when its summary never came.
            if let Some(suite) = self.suite.take() {
                let signal = reason
                    .rsplit_once(" (")
                    .map(|(_, s)| s.trim_end_matches(')'));
                self.close_suite(suite, None, None, Ending::Cut(signal));
            }
        } else if let Some(target) = trimmed.strip_prefix("Running ") {
            // `Running unittests src/lib.rs (target/debug/deps/x-…)`.
            let target = target.rsplit_once(" (").map_or(target, |(t, _)| t);
            self.target = Some(truncate_utf8(target, MAX_NAME_BYTES));
        } else if let Some(krate) = trimmed.strip_prefix("Doc-tests ") {
            self.target = Some(truncate_utf8(&format!("doc-tests {krate}"), MAX_NAME_BYTES));
        } else {
            self.compiler_line(line);
        }
    }

    fn add_duration(&mut self, seconds: Option<f64>) {
        if let Some(ms) = seconds.and_then(seconds_to_ms) {
            self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(ms));
        }
    }

    fn start_suite(&mut self, announced: Option<u64>) {
        if let Some(previous) = self.suite.take() {
            self.close_suite(previous, None, None, Ending::Cut(None));
        }
        // Tests run only once their crate compiled: an error before is not theirs.
        self.compile_error = None;
        self.suite = Some(Suite {
            announced,
            first_kept: self.run.failures.len(),
            ..Suite::default()
        });
    }

    /// Add a binary's counts: its own summary's when they parse, else its test lines'. A
    /// binary that announced its tests and was cut before its summary crashed.
    fn close_suite(
        &mut self,
        suite: Suite,
        summary: Option<Counts>,
        seconds: Option<f64>,
        ending: Ending<'_>,
    ) {
        let (passed, failed, ignored) =
            summary.unwrap_or((suite.passed, suite.failed, suite.ignored));
        self.run.passed = self.run.passed.saturating_add(passed);
        self.run.failed = self.run.failed.saturating_add(failed);
        self.run.skipped = self.run.skipped.saturating_add(ignored);
        self.add_duration(seconds);
        let (Ending::Cut(exit), Some(announced)) = (ending, suite.announced) else {
            return;
        };
        let reported = suite
            .passed
            .saturating_add(suite.failed)
            .saturating_add(suite.ignored);
        let missing = announced.saturating_sub(reported);
        self.run.failed = self.run.failed.saturating_add(missing.max(1));
        let mut message =
            format!("the test binary exited before reporting {missing} of {announced} tests");
        let mut running: Vec<&String> = suite.started.iter().collect();
        running.sort();
        if !running.is_empty() {
            let names: Vec<&str> = running
                .iter()
                .take(MAX_NAMED_RUNNING)
                .map(|s| s.as_str())
                .collect();
            message.push_str(&format!("; running: {}", names.join(", ")));
        }
        if let Some(exit) = exit {
            message.push_str(&format!(" ({exit})"));
        }
        if self.run.failures.len() < MAX_KEPT_FAILURES {
            // The one test that was running is the likely culprit: name the case after it.
            let name = match running.as_slice() {
                [only] => only.as_str(),
                _ => CRASH_NAME,
            };
            let mut case = TestCase::failed(name, Some(message));
            case.kind = Some(FailureKind::Crash);
            case.suite.clone_from(&self.target);
            self.run.failures.push(case);
        }
    }

    /// Count one test in the current binary; the index of its kept case when it failed.
    fn test_result(&mut self, name: &str, outcome: Outcome, seconds: Option<f64>) -> Option<usize> {
        let suite = self.suite.get_or_insert_with(Suite::default);
        match outcome {
            Outcome::Passed => suite.passed += 1,
            Outcome::Skipped => suite.ignored += 1,
            Outcome::Failed => suite.failed += 1,
        }
        if outcome != Outcome::Failed || self.run.failures.len() >= MAX_KEPT_FAILURES {
            return None;
        }
        let mut case = TestCase::failed(truncate_utf8(name, MAX_NAME_BYTES), None);
        case.suite.clone_from(&self.target);
        case.duration_ms = seconds.and_then(seconds_to_ms);
        self.run.failures.push(case);
        Some(self.run.failures.len() - 1)
    }

    fn start_text_block(&mut self, name: &str) {
        let first = self.suite.as_ref().map_or(0, |s| s.first_kept);
        let case = self
            .run
            .failures
            .iter()
            .enumerate()
            .skip(first)
            .find(|(_, c)| c.name == name && c.message.is_none())
            .map(|(i, _)| i);
        if let Some(case) = case {
            self.block = Some(Block::new(case, false));
        }
    }

    /// Whether `line` ends the failure output being read.
    fn ends_block(&self, line: &str) -> bool {
        let Some(block) = &self.block else {
            return true;
        };
        if block.dedent {
            let trimmed = line.trim();
            trimmed.starts_with("────")
                || parse_nextest_status(trimmed).is_some()
                || parse_nextest_summary(trimmed).is_some()
                || trimmed.starts_with("Cancelling")
                || line.starts_with("error: ")
        } else {
            line.starts_with("---- ")
                || line == "failures:"
                || line.starts_with("test result: ")
                || parse_running(line).is_some()
        }
    }

    fn end_block(&mut self) {
        if let Some(block) = self.block.take() {
            let explained = explain(block.lines.iter().map(String::as_str));
            self.apply(block.case, explained);
        }
    }

    fn apply(&mut self, case: usize, explained: Explained) {
        let Some(case) = self.run.failures.get_mut(case) else {
            return;
        };
        if let Some(message) = explained.message {
            case.kind = Some(classify_failure(&message));
            case.message = Some(truncate_utf8(&message, MAX_MESSAGE_BYTES));
        }
        if explained.file.is_some() {
            case.file = explained.file;
            case.line = explained.line;
        }
    }

    fn nextest_status(&mut self, status: NextestStatus<'_>) {
        let nextest = self.nextest.get_or_insert_with(Nextest::default);
        self.run.framework = "nextest".to_owned();
        if nextest.summarized {
            // The list after the summary repeats the failures already read.
            return;
        }
        match status.outcome {
            Outcome::Passed => nextest.passed += 1,
            Outcome::Skipped => nextest.skipped += 1,
            Outcome::Failed => nextest.failed += 1,
        }
        if status.outcome == Outcome::Failed && self.run.failures.len() < MAX_KEPT_FAILURES {
            let mut case = TestCase::failed(truncate_utf8(status.test, MAX_NAME_BYTES), None);
            case.suite =
                (!status.binary.is_empty()).then(|| truncate_utf8(status.binary, MAX_NAME_BYTES));
            case.duration_ms = status.seconds.and_then(seconds_to_ms);
            if status.word != "FAIL" {
                // TIMEOUT, SIGSEGV, ABORT…: nextest's word is the first explanation.
                case.message = Some(status.word.to_owned());
                case.kind = Some(match classify_failure(status.word) {
                    FailureKind::Assertion => FailureKind::Crash,
                    kind => kind,
                });
            }
            self.run.failures.push(case);
            self.block = Some(Block::new(self.run.failures.len() - 1, true));
        }
    }

    fn close_nextest(&mut self, nextest: Nextest) {
        self.run.passed = self.run.passed.saturating_add(nextest.passed);
        self.run.failed = self.run.failed.saturating_add(nextest.failed);
        self.run.skipped = self.run.skipped.saturating_add(nextest.skipped);
    }

    /// Remember the first compiler error, and where it points, for `could not compile`.
    fn compiler_line(&mut self, line: &str) {
        if self.want_location
            && let Some(location) = line.trim_start().strip_prefix("--> ")
        {
            self.want_location = false;
            if let Some(error) = &mut self.compile_error
                && let Some((file, number)) = split_location(location.trim())
            {
                error.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
                error.line = Some(number);
            }
            return;
        }
        let is_error = line.starts_with("error[") || line.starts_with("error: ");
        let cargo_says = [
            "error: test failed",
            "error: doctest failed",
            "error: could not compile",
            "error: aborting",
            "error: test run failed",
        ];
        if is_error
            && !cargo_says.iter().any(|p| line.starts_with(p))
            && !line.contains(" targets failed")
        {
            if self.compile_error.is_none() {
                self.compile_error = Some(Explained {
                    message: Some(truncate_utf8(line, MAX_MESSAGE_BYTES)),
                    ..Explained::default()
                });
                self.want_location = true;
            }
        } else if !line.starts_with(' ') && !line.trim().is_empty() && !line.starts_with('|') {
            self.want_location = false;
        }
    }

    fn could_not_compile(&mut self, rest: &str) {
        // `broken` (lib test) due to 1 previous error
        let (krate, after) = rest.split_once('`').unwrap_or((rest, ""));
        let target = after
            .trim_start()
            .strip_prefix('(')
            .and_then(|t| t.split_once(')'))
            .map(|(t, _)| t);
        let name = match target {
            Some(target) => format!("{krate} ({target})"),
            None => krate.to_owned(),
        };
        let error = self.compile_error.take().unwrap_or_default();
        self.want_location = false;
        let message = error
            .message
            .unwrap_or_else(|| format!("could not compile `{rest}"));
        let mut case = TestCase::failed(truncate_utf8(&name, MAX_NAME_BYTES), Some(message));
        case.kind = Some(compile_kind(case.message.as_deref().unwrap_or("")));
        case.file = error.file;
        case.line = error.line;
        self.run.record(case);
    }
}

/// How a test binary's output ended.
#[derive(Clone, Copy)]
enum Ending<'a> {
    /// With its summary (`test result:` or the JSON suite event).
    Summary,
    /// Without one; how it exited when cargo said (`signal: 6, SIGABRT: …`).
    Cut(Option<&'a str>),
}

/// The name of the case that stands for a binary's unreported tests.
const CRASH_NAME: &str = "test binary crashed";

impl Block {
    fn new(case: usize, dedent: bool) -> Self {
        Self {
            case,
            lines: Vec::new(),
            bytes: 0,
            dedent,
        }
    }

    fn push(&mut self, line: &str) {
        if self.bytes > MAX_BLOCK_BYTES {
            return;
        }
        let line = if self.dedent {
            line.strip_prefix("    ").unwrap_or(line.trim_start())
        } else {
            line
        };
        self.bytes += line.len() + 1;
        self.lines.push(line.to_owned());
    }
}

/// A missing crate or import stops a build as surely as a typo, but it is a dependency
/// problem: rustc's codes for those.
fn compile_kind(message: &str) -> FailureKind {
    let dependency_codes = ["error[E0432]", "error[E0433]", "error[E0463]"];
    if dependency_codes.iter().any(|c| message.starts_with(c))
        || message.contains("unresolved import")
        || message.contains("can't find crate")
        || message.contains("use of undeclared crate")
    {
        FailureKind::Dependency
    } else {
        FailureKind::Syntax
    }
}

/// The panic message and location in a failed test's output (`thread 'x' panicked at
/// src/lib.rs:10:5:` and the lines after it, or the older `panicked at 'msg', file:line:col`),
/// else a returned `Error: …`, else the first line of other output.
fn explain<'a>(lines: impl Iterator<Item = &'a str>) -> Explained {
    let mut explained = Explained::default();
    let mut fallback: Option<&str> = None;
    let mut error_line: Option<&str> = None;
    let mut panic: Option<String> = None;
    let mut panic_open = false;
    for line in lines {
        if let Some(message) = &mut panic {
            let end = line.starts_with("note: run with `RUST_BACKTRACE")
                || line.starts_with("stack backtrace:")
                || line.starts_with("note: panic did not contain expected string");
            if end {
                break;
            }
            if panic_open {
                // Old format: the message runs until `', file:line:col`.
                if let Some((text, location)) = line.rsplit_once("', ")
                    && let Some((file, number)) = split_location(location)
                {
                    message.push('\n');
                    message.push_str(text);
                    explained.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
                    explained.line = Some(number);
                    break;
                }
            }
            if message.len() < MAX_MESSAGE_BYTES {
                if !message.is_empty() {
                    message.push('\n');
                }
                message.push_str(line);
            }
            continue;
        }
        if let Some(at) = panicked_at(line) {
            if let Some(quoted) = at.strip_prefix('\'') {
                match quoted.rsplit_once("', ") {
                    Some((text, location)) if split_location(location).is_some() => {
                        if let Some((file, number)) = split_location(location) {
                            explained.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
                            explained.line = Some(number);
                        }
                        panic = Some(text.to_owned());
                        break;
                    }
                    _ => {
                        panic = Some(quoted.to_owned());
                        panic_open = true;
                    }
                }
            } else {
                if let Some((file, number)) = split_location(at.trim_end_matches(':')) {
                    explained.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
                    explained.line = Some(number);
                }
                panic = Some(String::new());
            }
            continue;
        }
        let text = line.trim();
        if error_line.is_none() && text.starts_with("Error: ") {
            error_line = Some(text);
        }
        if fallback.is_none() && !text.is_empty() && !is_noise(text) {
            fallback = Some(text);
        }
    }
    let panic = panic.map(|m| m.trim().to_owned()).filter(|m| !m.is_empty());
    explained.message = panic
        .or(error_line.map(str::to_owned))
        .or(fallback.map(str::to_owned))
        .map(|m| truncate_utf8(&m, MAX_MESSAGE_BYTES));
    explained
}

/// `thread 'name' (123) panicked at REST` → REST.
fn panicked_at(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("thread '")?;
    let (_, at) = rest.split_once(" panicked at ")?;
    Some(at)
}

/// libtest's and nextest's own lines around a failure's output.
fn is_noise(text: &str) -> bool {
    text.starts_with("running ")
        || text.starts_with("test ")
        || text == "failures:"
        || text.starts_with("stdout ───")
        || text.starts_with("stderr ───")
        || text.starts_with("--- STDOUT:")
        || text.starts_with("--- STDERR:")
        || text.starts_with("note: run with `RUST_BACKTRACE")
}

/// `src/lib.rs:10:5` (or `file:line`) → (file, line).
fn split_location(location: &str) -> Option<(&str, u32)> {
    let mut parts = location.rsplitn(3, ':');
    let last = parts.next()?;
    let middle = parts.next()?;
    match parts.next() {
        Some(file) if !file.is_empty() && last.parse::<u32>().is_ok() => {
            Some((file, middle.parse().ok().filter(|&n| n > 0)?))
        }
        None if !middle.is_empty() => Some((middle, last.parse().ok().filter(|&n| n > 0)?)),
        _ => None,
    }
}

/// `running 12 tests` / `running 1 test` → Some(Some(12)).
fn parse_running(line: &str) -> Option<Option<u64>> {
    let rest = line.strip_prefix("running ")?;
    let (count, word) = rest.split_once(' ')?;
    if !matches!(word, "tests" | "test") || count.is_empty() {
        return None;
    }
    if !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // An absurd count still starts a binary; it just announces nothing we can check.
    Some(count.parse().ok())
}

type Counts = (u64, u64, u64);

/// `test result: FAILED. 10 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished
/// in 0.01s` → ((passed, failed, ignored), seconds). Counts that do not parse leave `None`.
fn parse_result_line(line: &str) -> Option<(Option<Counts>, Option<f64>)> {
    let rest = line.strip_prefix("test result: ")?;
    let (status, rest) = rest.split_once(". ")?;
    if !matches!(status, "ok" | "FAILED") {
        return None;
    }
    let (mut passed, mut failed, mut ignored, mut seconds) = (None, None, None, None);
    for item in rest.split("; ") {
        if let Some(time) = item.strip_prefix("finished in ") {
            seconds = time.strip_suffix('s').and_then(|t| t.parse().ok());
            continue;
        }
        let Some((number, word)) = item.split_once(' ') else {
            continue;
        };
        let number = number.parse::<u64>().ok();
        match word {
            "passed" => passed = number,
            "failed" => failed = number,
            "ignored" => ignored = number,
            _ => {}
        }
    }
    let counts = match (passed, failed) {
        (Some(p), Some(f)) => Some((p, f, ignored.unwrap_or(0))),
        _ => None,
    };
    Some((counts, seconds))
}

/// `test mod::name ... ok` (`FAILED`, `ignored`, `ignored, reason`, ` <0.001s>` with
/// `--report-time`) → (name, outcome, seconds). The outcome is `None` when the line stops
/// after ` ... ` (or other output took its place): the test was running. Benchmarks' `bench:`
/// lines are not results.
fn parse_test_line(line: &str) -> Option<(&str, Option<Outcome>, Option<f64>)> {
    let rest = line.strip_prefix("test ")?;
    let (name, status) = match rest.strip_suffix(" ...") {
        // A test cut off right after its name: the line ends in ` ... ` (trimmed or not).
        Some(name) => (name, ""),
        None => rest.rsplit_once(" ... ")?,
    };
    let (status, seconds) = match status.rsplit_once(" <") {
        Some((status, time)) => (status, time.strip_suffix("s>").and_then(|t| t.parse().ok())),
        None => (status, None),
    };
    let outcome = if status == "ok" {
        Some(Outcome::Passed)
    } else if status.starts_with("FAILED") {
        Some(Outcome::Failed)
    } else if status == "ignored" || status.starts_with("ignored, ") {
        Some(Outcome::Skipped)
    } else if status.starts_with("bench:") {
        return None;
    } else {
        None
    };
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
    (!name.is_empty()).then_some((name, outcome, seconds))
}

struct NextestStatus<'a> {
    word: &'a str,
    outcome: Outcome,
    seconds: Option<f64>,
    binary: &'a str,
    test: &'a str,
}

/// `PASS [   0.003s] (1/9) crate tests::name` → the status. Retries' intermediate
/// `TRY 2 FAIL` lines and informational `SLOW`, `START` lines are not results.
fn parse_nextest_status(text: &str) -> Option<NextestStatus<'_>> {
    let (word, rest) = text.split_once(" [")?;
    let (time, rest) = rest.split_once(']')?;
    let seconds = time.trim().strip_suffix('s')?.parse().ok();
    let outcome = match word {
        "PASS" | "LEAK" => Outcome::Passed,
        "SKIP" => Outcome::Skipped,
        "FAIL" | "TIMEOUT" | "ABORT" | "LEAK-FAIL" => Outcome::Failed,
        w if w.starts_with("FLAKY") => Outcome::Passed,
        w if w.starts_with("SIG") && w.len() > 3 && w.bytes().all(|b| b.is_ascii_uppercase()) => {
            Outcome::Failed
        }
        _ => return None,
    };
    let mut rest = rest.trim_start();
    if let Some(counter) = rest.strip_prefix('(')
        && let Some((progress, after)) = counter.split_once(") ")
        && progress.bytes().all(|b| b.is_ascii_digit() || b == b'/')
    {
        rest = after.trim_start();
    }
    let (binary, test) = rest.split_once(' ').unwrap_or(("", rest));
    let test = test.trim();
    (!test.is_empty()).then_some(NextestStatus {
        word,
        outcome,
        seconds,
        binary,
        test,
    })
}

/// `Summary [   0.066s] 9 tests run: 5 passed, 4 failed, 2 skipped` → (run, passed, skipped,
/// seconds).
fn parse_nextest_summary(text: &str) -> Option<(u64, u64, u64, Option<f64>)> {
    let rest = text.strip_prefix("Summary [")?;
    let (time, rest) = rest.split_once(']')?;
    let seconds = time.trim().strip_suffix('s').and_then(|t| t.parse().ok());
    let (ran, counts) = rest.trim_start().split_once(" run: ")?;
    // `9 tests`, `1 test`, or `3/9 tests` when the run was cancelled.
    let ran = ran.split_once(' ')?.0;
    let ran = ran
        .split_once('/')
        .map_or(ran, |(run, _)| run)
        .parse()
        .ok()?;
    let (mut passed, mut skipped) = (None, 0);
    for item in counts.split(", ") {
        let Some((number, word)) = item.split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        if word.starts_with("passed") {
            passed = Some(number);
        } else if word.starts_with("skipped") {
            skipped = number;
        }
    }
    Some((ran, passed?, skipped, seconds))
}

fn seconds_to_ms(seconds: f64) -> Option<u64> {
    // `as` saturates: an absurd duration becomes u64::MAX rather than wrapping.
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::testkit::fixture;
    use crate::results::{read_output, read_report_as, read_report_file};

    fn read(rel: &str) -> TestRun {
        read_report_as(&fixture(&format!("libtest/{rel}")), ReportFormat::Libtest)
            .expect("read")
            .expect("cargo test output")
    }

    fn parse(text: &str) -> Option<TestRun> {
        let mut reader = Box::new(LibtestReader::new());
        for line in text.lines() {
            reader.feed(line);
        }
        reader.finish()
    }

    fn counts(run: &TestRun) -> (u64, u64, u64) {
        (run.passed, run.failed, run.skipped)
    }

    fn names(run: &TestRun) -> Vec<&str> {
        run.failures.iter().map(|c| c.name.as_str()).collect()
    }

    /// (name, first message line, file, line, kind) of a failure.
    type Expected = (
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<u32>,
        FailureKind,
    );

    /// What the failures of the mixed crate say, whichever way they were printed.
    const MIXED: [Expected; 5] = [
        (
            "tests::fails_assert_eq",
            "assertion `left == right` failed",
            Some("src/lib.rs"),
            Some(27),
            FailureKind::Assertion,
        ),
        (
            "tests::fails_with_message",
            "| pipe | `tick` @someone <b>bold</b> ünïcödé ✓",
            Some("src/lib.rs"),
            Some(32),
            FailureKind::Assertion,
        ),
        (
            "tests::returns_err",
            "Error: \"config missing: settings.toml\"",
            None,
            None,
            FailureKind::Assertion,
        ),
        (
            "integration_times_out",
            "request failed: connection timed out",
            Some("tests/integration.rs"),
            Some(9),
            FailureKind::Timeout,
        ),
        (
            // rustc places a doc-test's panic at the doc comment's first line.
            "src/lib.rs - double (line 9)",
            "assertion `left == right` failed: doc example is wrong",
            Some("src/lib.rs"),
            Some(5),
            FailureKind::Assertion,
        ),
    ];

    fn assert_failures(run: &TestRun, expected: &[Expected]) {
        assert_eq!(run.failures.len(), expected.len());
        for (case, (name, first_line, file, line, kind)) in run.failures.iter().zip(expected) {
            assert_eq!(case.name, *name);
            let message = case.message.as_deref().expect("a message");
            assert_eq!(message.lines().next(), Some(*first_line), "{name}");
            assert_eq!(case.file.as_deref(), *file, "{name}");
            assert_eq!(case.line, *line, "{name}");
            assert_eq!(case.kind, Some(*kind), "{name}");
        }
    }

    #[test]
    fn text_sums_the_binaries_and_doc_tests() {
        // libtest's own lines: `4 passed; 3 failed; 2 ignored` (lib), `1 passed; 1 failed`
        // (tests/integration.rs), `1 passed; 1 failed` (doc-tests).
        let run = read("mixed.txt");
        assert_eq!(run.framework, "libtest");
        assert_eq!(counts(&run), (6, 5, 2));
        assert!(run.duration_ms.is_some());
        assert_failures(&run, &MIXED);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("assertion `left == right` failed\n  left: 4\n right: 5")
        );
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("| pipe | `tick` @someone <b>bold</b> ünïcödé ✓\nsecond line")
        );
        assert!(run.failures.iter().all(|c| c.suite.is_none()));
    }

    #[test]
    fn json_events_read_like_the_text() {
        // The suite events carry the same counts as the text's `test result:` lines.
        let run = read("mixed.json");
        assert_eq!(counts(&run), (6, 5, 2));
        assert_failures(&run, &MIXED);
        assert!(run.failures.iter().all(|c| c.duration_ms.is_some()));
        let text = read("mixed.txt");
        let messages = |run: &TestRun| -> Vec<Option<String>> {
            run.failures.iter().map(|c| c.message.clone()).collect()
        };
        assert_eq!(messages(&run), messages(&text));
    }

    #[test]
    fn cargo_lines_in_the_same_stream_name_the_binaries() {
        let run = read("mixed.combined.txt");
        assert_eq!(counts(&run), (6, 5, 2));
        let suites: Vec<_> = run.failures.iter().map(|c| c.suite.as_deref()).collect();
        assert_eq!(
            suites,
            [
                Some("unittests src/lib.rs"),
                Some("unittests src/lib.rs"),
                Some("unittests src/lib.rs"),
                Some("tests/integration.rs"),
                Some("doc-tests mixed"),
            ]
        );
        // Apart, cargo's stderr holds no result and the run is stdout's.
        let run = read_output(
            &fixture("libtest/mixed.txt"),
            &fixture("libtest/mixed.txt.stderr"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(
            (run.format, counts(&run)),
            (ReportFormat::Libtest, (6, 5, 2))
        );
    }

    #[test]
    fn nextest_summary_gives_the_counts() {
        // nextest: `9 tests run: 5 passed, 4 failed, 2 skipped` (no doc-tests); its list of
        // failures after the summary is not counted twice.
        let run = read("mixed.nextest.txt");
        assert_eq!(run.framework, "nextest");
        assert_eq!(counts(&run), (5, 4, 2));
        assert!(run.duration_ms.is_some());
        assert_failures(&run, &MIXED[..4]);
        let suites: Vec<_> = run.failures.iter().map(|c| c.suite.as_deref()).collect();
        assert_eq!(
            suites,
            [
                Some("mixed"),
                Some("mixed"),
                Some("mixed"),
                Some("mixed::integration")
            ]
        );
        assert!(run.failures.iter().all(|c| c.duration_ms.is_some()));
    }

    #[test]
    fn nextest_without_its_summary_counts_status_lines() {
        let run = parse(
            "    Starting 5 tests across 1 binary\n\
             \x20       PASS [   0.010s] app tests::a\n\
             \x20 TRY 1 FAIL [   0.010s] app tests::flaky\n\
             \x20      FLAKY 2/2 [   0.010s] app tests::flaky\n\
             \x20    SIGSEGV [   0.020s] app tests::unsafe_code\n\
             \x20    TIMEOUT [  60.000s] app tests::slow\n\
             \x20       SKIP [   0.000s] app tests::later\n\
             \x20     Cancelling due to interrupt",
        )
        .expect("nextest output");
        assert_eq!(counts(&run), (2, 2, 1));
        assert_eq!(names(&run), ["tests::unsafe_code", "tests::slow"]);
        assert_eq!(run.failures[0].kind, Some(FailureKind::Crash));
        assert_eq!(run.failures[1].kind, Some(FailureKind::Timeout));
        assert_eq!(run.failures[1].duration_ms, Some(60_000));
    }

    #[test]
    fn a_generated_table_of_320_tests() {
        // libtest: `318 passed; 1 failed; 1 ignored`.
        let run = read("many.txt");
        assert_eq!(counts(&run), (318, 1, 1));
        assert_failures(
            &run,
            &[(
                "generated::case_123",
                "assertion `left != right` failed: case 123 fails on purpose",
                Some("src/cases.rs"),
                Some(1),
                FailureKind::Assertion,
            )],
        );
    }

    #[test]
    fn a_binary_that_dies_leaves_its_running_test_failed() {
        // `running 2 tests`, `a_passes ... ok`, then `b_aborts ... ` and no `test result:`.
        let run = read("crash.txt");
        assert_eq!(counts(&run), (1, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "tests::b_aborts");
        assert_eq!(case.kind, Some(FailureKind::Crash));
        assert_eq!(
            case.message.as_deref(),
            Some("the test binary exited before reporting 1 of 2 tests; running: tests::b_aborts")
        );
        // With cargo's stderr in the same stream, cargo's word on the signal is added.
        let run = read("crash.combined.txt");
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some(
                "the test binary exited before reporting 1 of 2 tests; running: tests::b_aborts \
                 (signal: 6, SIGABRT: process abort signal)"
            )
        );
        let run = read_output(
            &fixture("libtest/crash.txt"),
            &fixture("libtest/crash.txt.stderr"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(counts(&run), (1, 1, 0));
    }

    #[test]
    fn json_suites_that_never_finish_name_their_running_tests() {
        let run = parse(concat!(
            r#"{ "type": "suite", "event": "started", "test_count": 3 }"#,
            "\n",
            r#"{ "type": "test", "event": "started", "name": "a" }"#,
            "\n",
            r#"{ "type": "test", "event": "started", "name": "b" }"#,
            "\n",
            r#"{ "type": "test", "event": "started", "name": "c" }"#,
            "\n",
            r#"{ "type": "test", "name": "a", "event": "ok" }"#,
        ))
        .expect("libtest events");
        assert_eq!(counts(&run), (1, 2, 0));
        assert_eq!(names(&run), [CRASH_NAME]);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("the test binary exited before reporting 2 of 3 tests; running: b, c")
        );
    }

    #[test]
    fn a_compile_error_is_one_failure() {
        let run = read("broken.txt.stderr");
        assert_eq!(counts(&run), (0, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "broken (lib test)");
        assert_eq!(
            case.message.as_deref(),
            Some("error[E0425]: cannot find function `missing_helper` in this scope")
        );
        assert_eq!(
            (case.file.as_deref(), case.line),
            (Some("src/lib.rs"), Some(7))
        );
        assert_eq!(case.kind, Some(FailureKind::Syntax));
        let run = read_output(
            &fixture("libtest/broken.txt"),
            &fixture("libtest/broken.txt.stderr"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(counts(&run), (0, 1, 0));

        let run = parse(
            "error[E0432]: unresolved import `serde_yaml`\n\
             \x20--> tests/api.rs:1:5\n\
             error: could not compile `app` (test \"api\") due to 1 previous error",
        )
        .expect("cargo output");
        assert_eq!(names(&run), ["app (test \"api\")"]);
        assert_eq!(run.failures[0].kind, Some(FailureKind::Dependency));
        assert_eq!(run.failures[0].line, Some(1));
    }

    #[test]
    fn binaries_without_tests_are_libtest_with_no_tests() {
        let run = read("empty.txt");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
    }

    #[test]
    fn older_panic_messages_and_report_time() {
        // Rust before 1.73 quoted the message before the location.
        let run = parse(
            "running 4 tests\n\
             test a ... FAILED <0.250s>\n\
             test b ... FAILED\n\
             test c - should panic ... ok <0.001s>\n\
             test bench_x ... bench:         12 ns/iter (+/- 1)\n\
             \n\
             failures:\n\
             \n\
             ---- a stdout ----\n\
             thread 'a' panicked at 'assertion failed: `(left == right)`\n\
             \x20 left: `4`,\n\
             \x20right: `5`', src/lib.rs:27:9\n\
             note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\
             ---- b stdout ----\n\
             thread 'b' panicked at 'boom', src/b.rs:3:5\n\
             \n\
             failures:\n\
             \x20   a\n\
             \x20   b\n\
             \n\
             test result: FAILED. 1 passed; 2 failed; 0 ignored; 1 measured; 0 filtered out; finished in 0.25s",
        )
        .expect("libtest output");
        assert_eq!(counts(&run), (1, 2, 0));
        assert_eq!(run.duration_ms, Some(250));
        let a = &run.failures[0];
        assert_eq!(
            a.message.as_deref(),
            Some("assertion failed: `(left == right)`\n  left: `4`,\n right: `5`")
        );
        assert_eq!((a.file.as_deref(), a.line), (Some("src/lib.rs"), Some(27)));
        assert_eq!(a.duration_ms, Some(250));
        let b = &run.failures[1];
        assert_eq!(b.message.as_deref(), Some("boom"));
        assert_eq!((b.file.as_deref(), b.line), (Some("src/b.rs"), Some(3)));
    }

    #[test]
    fn other_output_is_not_libtest() {
        assert_eq!(parse(""), None);
        // Test lines alone could be anyone's; libtest announces and closes its binaries.
        assert_eq!(parse("test something ... ok\ntest other ... FAILED"), None);
        assert_eq!(parse("running late\ntest result: fine"), None);
        assert_eq!(parse(r#"{"Action":"pass","Package":"p","Test":"T"}"#), None);
        for rel in [
            "tap/node.tap",
            "summary/stdout.txt",
            "gotest/mixed.v.txt",
            "gotest/mixed.json",
        ] {
            assert_eq!(
                read_report_as(&fixture(rel), ReportFormat::Libtest).expect("read"),
                None,
                "{rel}"
            );
        }
        let run = read_report_file(&fixture("libtest/mixed.json"))
            .expect("read")
            .expect("a report");
        assert_eq!(run.format, ReportFormat::Libtest);
    }

    #[test]
    fn hostile_lines_are_skipped_or_bounded() {
        let open = "[".repeat(10_000);
        let close = "]".repeat(10_000);
        let garbage = String::from_utf8_lossy(&[0xff, 0x00, 0xfe, b' ', 0x80, 0xc3]).into_owned();
        let run = parse(&format!(
            "{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
            r#"{ "type": "suite", "event": "started", "test_count": 2 }"#,
            r#"{ "type": "test", "name": "a", "event": "ok", "exec_time": 1e300 }"#,
            format_args!(r#"{{ "type": "test", "name": {open}{close}, "event": "ok" }}"#),
            format_args!(r#"{{ "type": "test", "name": "deep", "event": "ok", "x": {open}{close} }}"#),
            r#"{ "type": "test", "name": "b", "event": "fail"#,
            garbage,
            "test result: ok. 99999999999999999999999 passed; 0 failed; 0 ignored",
            r#"{ "type": "test", "name": "b", "event": "failed", "stdout": 5 }"#,
            r#"{ "type": "suite", "event": "failed", "passed": 18446744073709551615, "failed": 18446744073709551615, "ignored": 0 }"#,
        ))
        .expect("libtest events");
        // The unparsable counts of the text line leave its binary counted by its lines (two
        // passes: `a` and the deep unknown field, which serde_json skips without recursing);
        // the JSON suite's own counts then add up and saturate.
        assert_eq!(run.passed, u64::MAX);
        assert_eq!(run.failed, u64::MAX);
        assert!(run.failures.is_empty());

        let run = parse(&format!(
            "running 18446744073709551615 tests\ntest a ... ok\n{garbage}"
        ))
        .expect("libtest output");
        assert_eq!(counts(&run), (1, u64::MAX - 1, 0));
        let run = parse("running 99999999999999999999999 tests\ntest a ... ok").expect("libtest");
        assert_eq!(counts(&run), (1, 0, 0));
        assert_eq!(parse(&garbage), None);
    }

    #[test]
    fn counts_stay_exact_beyond_the_kept_failures() {
        let mut text = String::from("running 300 tests\n");
        for i in 0..300 {
            text.push_str(&format!("test t{i} ... FAILED\n"));
        }
        text.push_str("test result: FAILED. 0 passed; 300 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n");
        let run = parse(&text).expect("libtest output");
        assert_eq!(run.failed, 300);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
    }
}
