//! Mocha's default `spec` reporter and its `dot` reporter, read line by line: the closing
//! summary (on stdout) and the numbered failure list after it. Both reporters end the same way.
//!
//! ```text
//!   4 passing (58ms)
//!   3 pending
//!   11 failing
//!
//!   1) slugify
//!        collapses punctuation:
//!
//!       AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
//!       …
//!       at Context.<anonymous> (mixed.suite.js:17:12)
//! ```

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// Mocha indents its summary lines and the numbered failures by this much.
const LEAD: &str = "  ";
/// A failure's title path: the first part follows `  N) `, the next ones are indented by
/// `TITLE_INDENT + 2 * depth`.
const TITLE_INDENT: usize = 5;
/// Title parts kept per failure: real suites nest a few levels, hostile text to use memory.
const MAX_TITLE_PARTS: usize = 64;

/// Mocha's spec (or dot) output.
///
/// Counting rules:
/// - The closing summary counts: `N passing (Xms)` passed, `N pending` skipped, `N failing`
///   failed. Mocha counts a failing hook (`"before each" hook for "x"`, `"after all" hook in
///   "{root}"`) as one failure and does not count the tests the hook kept from running; so
///   does this reader. Several summaries in one text (mocha ran twice) add up.
/// - The numbered list after a summary with `N failing` names the failures: the suite path and the test (or
///   hook) title, the error's first lines, and the file and line of the test's own stack
///   frame. When it holds more entries than the summary's `N failing`, the entries count.
/// - The tree and the dots before the summary are not read: the summary says it all.
/// - The text is Mocha's only when it holds a summary: `N passing` with Mocha's duration
///   (`(58ms)`, `(2s)`), or followed by its `N pending` / `N failing` lines. A file that fails
///   to load prints no summary (only `Exception during run: …` on stderr): nothing is read
///   then, and the suite's exit code stands.
pub(crate) struct MochaSpecReader {
    /// The runs whose summary and list are over.
    done: Totals,
    /// The run whose summary (or failure list) is being read.
    run: Option<Run>,
    /// Which summary line may come next.
    expect: Expect,
    /// `N passing` without a duration: a summary if `N pending` or `N failing` follows.
    tentative: Option<u64>,
    /// The failure list entry being read.
    entry: Option<Entry>,
    failures: Vec<TestCase>,
}

#[derive(Default, Clone, Copy)]
struct Totals {
    runs: u64,
    passing: u64,
    pending: u64,
    failing: u64,
    /// Per run, the larger of `N failing` and the entries of its list.
    failed: u64,
    duration_ms: Option<u64>,
}

/// One summary and its failure list.
#[derive(Default)]
struct Run {
    passing: u64,
    pending: u64,
    failing: u64,
    duration_ms: Option<u64>,
    /// `N failing` was printed: a numbered list follows.
    lists_failures: bool,
    /// Entries of the numbered list seen, numbered 1, 2, 3, … in order.
    entries: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Not inside a summary.
    Nothing,
    /// After `N passing`: `N pending` or `N failing`.
    PendingOrFailing,
    /// After `N pending`: `N failing`.
    Failing,
}

/// One entry of the numbered failure list.
struct Entry {
    phase: Phase,
    parts: Vec<String>,
    message: Vec<String>,
    message_bytes: usize,
    /// The first frame of the test's (or hook's) own function, `Context.<anonymous>`.
    context_frame: Option<(String, Option<u32>)>,
    /// The first frame outside node's internals and `node_modules`.
    user_frame: Option<(String, Option<u32>)>,
    /// Not kept (the cap of kept failures is reached): counted only.
    kept: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The title path, one part a line.
    Title,
    /// The error's lines, up to Mocha's diff or the stack.
    Message,
    /// Mocha's `+ expected - actual` diff.
    Diff,
    /// The stack frames.
    Stack,
    /// After the stack: other output, until the next entry.
    Over,
}

impl LineReader for MochaSpecReader {
    fn feed(&mut self, line: &str) {
        MochaSpecReader::feed(self, line);
    }

    fn claim(&self) -> Option<Claim> {
        let totals = self.totals();
        (totals.runs > 0).then(|| {
            Claim::new(
                ReportFormat::MochaSpec,
                totals.passing,
                totals.failing,
                totals.pending,
            )
        })
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        MochaSpecReader::finish(*self)
    }
}

impl Default for MochaSpecReader {
    fn default() -> Self {
        Self::new()
    }
}

impl MochaSpecReader {
    pub(crate) fn new() -> Self {
        Self {
            done: Totals::default(),
            run: None,
            expect: Expect::Nothing,
            tentative: None,
            entry: None,
            failures: Vec::new(),
        }
    }

    /// Feed one line, already stripped of its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        let line = line.trim_end();
        if self.summary_line(line) {
            return;
        }
        self.expect = Expect::Nothing;
        self.tentative = None;
        if self.run.as_ref().is_some_and(|run| run.lists_failures) {
            self.list_line(line);
        }
    }

    /// The run, or `None` when no Mocha summary was seen.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        self.end_run();
        let totals = &self.done;
        if totals.runs == 0 {
            return None;
        }
        let mut run = TestRun::new(ReportFormat::MochaSpec);
        run.passed = totals.passing;
        run.failed = totals.failed;
        run.skipped = totals.pending;
        run.duration_ms = totals.duration_ms;
        run.failures = self.failures;
        Some(run)
    }

    /// The totals of every summary so far, the current one included.
    fn totals(&self) -> Totals {
        let mut totals = self.done;
        if let Some(run) = &self.run {
            totals.add(run);
        }
        totals
    }

    /// A line of Mocha's closing summary: counted, and true.
    fn summary_line(&mut self, line: &str) -> bool {
        if let Some((n, duration_ms)) = passing_line(line) {
            self.end_run();
            match duration_ms {
                Some(ms) => self.start_run(n, Some(ms)),
                None => self.tentative = Some(n),
            }
            self.expect = Expect::PendingOrFailing;
            return true;
        }
        let pending = (self.expect == Expect::PendingOrFailing)
            .then(|| count_line(line, "pending"))
            .flatten();
        let failing = (self.expect != Expect::Nothing)
            .then(|| count_line(line, "failing"))
            .flatten();
        if pending.is_none() && failing.is_none() {
            return false;
        }
        if let Some(passing) = self.tentative.take() {
            self.start_run(passing, None);
        }
        let Some(run) = &mut self.run else {
            return false;
        };
        if let Some(n) = pending {
            run.pending = n;
            self.expect = Expect::Failing;
        }
        if let Some(n) = failing {
            run.failing = n;
            run.lists_failures = true;
            self.expect = Expect::Nothing;
        }
        true
    }

    fn start_run(&mut self, passing: u64, duration_ms: Option<u64>) {
        self.run = Some(Run {
            passing,
            duration_ms,
            ..Run::default()
        });
    }

    fn end_run(&mut self) {
        self.end_entry();
        if let Some(run) = self.run.take() {
            self.done.add(&run);
        }
    }

    /// A line after a summary that announced failures: the numbered list.
    fn list_line(&mut self, line: &str) {
        let next = self.run.as_ref().map_or(1, |run| run.entries + 1);
        if let Some(first) = entry_header(line, next) {
            self.end_entry();
            if let Some(run) = &mut self.run {
                run.entries = next;
            }
            self.entry = Some(Entry::new(first, self.failures.len() < MAX_KEPT_FAILURES));
            return;
        }
        if let Some(entry) = &mut self.entry {
            entry.feed(line);
        }
    }

    fn end_entry(&mut self) {
        let Some(entry) = self.entry.take() else {
            return;
        };
        if entry.kept
            && let Some(case) = entry.into_case()
            && self.failures.len() < MAX_KEPT_FAILURES
        {
            self.failures.push(case);
        }
    }
}

impl Totals {
    fn add(&mut self, run: &Run) {
        self.runs += 1;
        self.passing = self.passing.saturating_add(run.passing);
        self.pending = self.pending.saturating_add(run.pending);
        self.failing = self.failing.saturating_add(run.failing);
        self.failed = self.failed.saturating_add(run.failing.max(run.entries));
        self.duration_ms = match (self.duration_ms, run.duration_ms) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
    }
}

impl Entry {
    fn new(first: &str, kept: bool) -> Self {
        let mut entry = Self {
            phase: Phase::Title,
            parts: Vec::new(),
            message: Vec::new(),
            message_bytes: 0,
            context_frame: None,
            user_frame: None,
            kept,
        };
        entry.push_part(first);
        entry
    }

    fn push_part(&mut self, part: &str) {
        if self.kept && self.parts.len() < MAX_TITLE_PARTS {
            self.parts.push(truncate_utf8(part, MAX_NAME_BYTES));
        }
    }

    fn feed(&mut self, line: &str) {
        if !self.kept {
            return;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let text = line.trim();
        if self.phase == Phase::Title {
            // The path's next part is indented two more than the one before; the error starts
            // at five spaces (or on a blank line), never at seven or more.
            if !text.is_empty()
                && self.parts.len() < MAX_TITLE_PARTS
                && indent == TITLE_INDENT + 2 * self.parts.len()
            {
                self.push_part(text);
                return;
            }
            self.phase = Phase::Message;
        }
        if let Some(frame) = parse_frame(text) {
            if matches!(self.phase, Phase::Message | Phase::Diff | Phase::Stack) {
                self.phase = Phase::Stack;
                self.frame(frame);
            }
            return;
        }
        match self.phase {
            Phase::Message if indent == 6 && text == "+ expected - actual" => {
                self.phase = Phase::Diff;
            }
            // The error's first line is indented by Mocha; the lines after it are the
            // message's own.
            Phase::Message if self.message.is_empty() && !text.is_empty() => {
                self.push_message(text);
            }
            Phase::Message if !self.message.is_empty() => self.push_message(line),
            Phase::Stack if !text.is_empty() => self.phase = Phase::Over,
            _ => {}
        }
    }

    fn push_message(&mut self, line: &str) {
        if self.message_bytes <= MAX_MESSAGE_BYTES {
            self.message_bytes += line.len() + 1;
            self.message
                .push(truncate_utf8(line, MAX_MESSAGE_BYTES + 1));
        }
    }

    fn frame(&mut self, frame: Frame<'_>) {
        if frame.internal {
            return;
        }
        let location = || (truncate_utf8(frame.path, MAX_NAME_BYTES), frame.line);
        if frame.in_test && self.context_frame.is_none() {
            self.context_frame = Some(location());
        }
        if self.user_frame.is_none() {
            self.user_frame = Some(location());
        }
    }

    fn into_case(mut self) -> Option<TestCase> {
        let last = self.parts.pop()?;
        // Mocha ends the title with a colon.
        let name = last.strip_suffix(':').unwrap_or(&last);
        let text = self
            .message
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n");
        let text = text.trim_end();
        let message = (!text.is_empty()).then(|| truncate_utf8(text, MAX_MESSAGE_BYTES));
        let mut case = TestCase::failed(name, message);
        if !self.parts.is_empty() {
            case.suite = Some(truncate_utf8(&self.parts.join(" > "), MAX_NAME_BYTES));
        }
        if let Some((file, line)) = self.context_frame.or(self.user_frame) {
            case.file = Some(file);
            case.line = line;
        }
        Some(case)
    }
}

/// `  N passing (58ms)`: the count and the duration; `  N passing`: the count alone.
fn passing_line(line: &str) -> Option<(u64, Option<u64>)> {
    let (n, rest) = leading_count(line, "passing")?;
    if rest.is_empty() {
        return Some((n, None));
    }
    let duration = rest.strip_prefix(" (")?.strip_suffix(')')?;
    Some((n, Some(parse_duration(duration)?)))
}

/// `  N pending`, `  N failing`.
fn count_line(line: &str, word: &str) -> Option<u64> {
    let (n, rest) = leading_count(line, word)?;
    rest.is_empty().then_some(n)
}

/// Two spaces, a number, a space and `word`: the number and what follows.
fn leading_count<'a>(line: &'a str, word: &str) -> Option<(u64, &'a str)> {
    let rest = line.strip_prefix(LEAD)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n = rest.get(..digits)?.parse().ok()?;
    let rest = rest.get(digits..)?.strip_prefix(' ')?.strip_prefix(word)?;
    Some((n, rest))
}

/// Mocha's durations, as the `ms` package prints them: `58ms`, `2s`, `3m`, `1h`, `2d`.
fn parse_duration(text: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = text.get(..digits)?.parse().ok()?;
    let unit: u64 = match text.get(digits..)? {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    Some(n.saturating_mul(unit))
}

/// `  N) title` where N is the entry expected next: the title's first part.
fn entry_header(line: &str, expected: u64) -> Option<&str> {
    let rest = line.strip_prefix(LEAD)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.get(..digits)?.parse::<u64>().ok()? != expected {
        return None;
    }
    let title = rest.get(digits..)?.strip_prefix(") ")?;
    (!title.trim().is_empty()).then_some(title)
}

struct Frame<'a> {
    path: &'a str,
    line: Option<u32>,
    /// The test's or hook's own function: Mocha calls it on a `Context`.
    in_test: bool,
    /// node's own code, or a dependency's.
    internal: bool,
}

/// `at fn (path:line:column)`, `at path:line:column`, `at async fn (…)`.
fn parse_frame(text: &str) -> Option<Frame<'_>> {
    let frame = text.strip_prefix("at ")?;
    let (function, location) = match frame.strip_suffix(')') {
        Some(inner) => {
            let (function, location) = inner.split_once(" (")?;
            (function, location)
        }
        None => ("", frame),
    };
    let location = location.strip_prefix("file://").unwrap_or(location);
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?;
    let line = parts.next()?;
    let path = parts.next()?;
    if path.is_empty()
        || column.is_empty()
        || !column.bytes().all(|b| b.is_ascii_digit())
        || line.is_empty()
        || !line.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let line = line.parse::<u32>().ok().filter(|n| *n > 0);
    let function = function.strip_prefix("async ").unwrap_or(function);
    Some(Frame {
        path,
        line,
        in_test: function.starts_with("Context."),
        internal: path.starts_with("node:")
            || path.starts_with("internal/")
            || path.contains("node_modules/")
            || path.contains("node_modules\\"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;
    use crate::results::testkit::{
        assert_claims_hold, assert_not_read, counts, fixture_files, fixture_text, read_output,
        read_output_claimed, read_text,
    };

    /// Every variant of a fixture (spec and dot, plain and colour), through the detection and
    /// through this reader alone: the counts, and the claim equal to Mocha's summary.
    fn read_all(name: &str, summary: (u64, u64, u64)) -> Vec<TestRun> {
        let mut runs = Vec::new();
        for variant in ["spec", "spec.color", "dot", "dot.color"] {
            let name = format!("{name}.{variant}");
            let run = read_output_claimed(
                "mocha-spec",
                &name,
                ReportFormat::MochaSpec,
                "stdout",
                summary,
            );

            let (claim, alone) = read_text(
                ReportFormat::MochaSpec,
                &fixture_text(&format!("mocha-spec/{name}.stdout.txt")),
            );
            let alone = alone.unwrap_or_else(|| panic!("{name}: not read alone"));
            assert_eq!(counts(&alone), summary, "{name}");
            assert_eq!(
                claim.map(|c| (c.passed, c.failed, c.skipped)),
                Some(summary),
                "{name}"
            );
            assert_eq!(alone.failures, run.failures, "{name}");
            runs.push(run);
        }
        runs
    }

    fn names(run: &TestRun) -> Vec<(Option<&str>, &str)> {
        run.failures
            .iter()
            .map(|c| (c.suite.as_deref(), c.name.as_str()))
            .collect()
    }

    #[test]
    fn all_pass() {
        // mocha: 3 passing (2ms).
        for run in read_all("pass", (3, 0, 0)) {
            assert_eq!(run.framework, "mocha-spec");
            assert!(run.failures.is_empty());
        }
    }

    #[test]
    fn every_outcome_and_every_failing_hook() {
        // mocha: 4 passing, 3 pending, 11 failing. The failing beforeEach hook is one failure
        // and keeps "is the second test" from running; the failing afterEach hook keeps "is
        // skipped after the hook failed" from running: Mocha counts neither, nor do we.
        let runs = read_all("mixed", (4, 11, 3));
        const HOSTILE: &str = "hostile | names `here` @someone <b>bold</b> ünïcödé";
        let hostile_suite = format!("slugify > {HOSTILE}");
        for run in &runs {
            assert_eq!(
                names(run),
                [
                    (Some("slugify"), "collapses punctuation"),
                    (
                        Some(hostile_suite.as_str()),
                        "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓"
                    ),
                    (
                        Some(hostile_suite.as_str()),
                        "1) looks like a numbered entry:"
                    ),
                    (Some("timing"), "finishes in time"),
                    (Some("timing"), "throws from the code under test"),
                    (Some("timing"), "throws a string"),
                    (
                        Some("with a failing before hook"),
                        "\"before all\" hook for \"never gets to run\""
                    ),
                    (
                        Some("with a failing beforeEach hook"),
                        "\"before each\" hook for \"is the first test\""
                    ),
                    (
                        Some("with a failing afterEach hook"),
                        "\"after each\" hook for \"passes before the hook\""
                    ),
                    (
                        Some("with a failing after hook"),
                        "\"after all\" hook for \"runs before the hook\""
                    ),
                    (None, "\"after all\" hook in \"{root}\""),
                ]
            );
            let located: Vec<_> = run
                .failures
                .iter()
                .map(|c| (c.file.as_deref(), c.line))
                .collect();
            let at = |line| (Some("mixed.suite.js"), Some(line));
            assert_eq!(
                located,
                [
                    at(17),
                    at(30),
                    at(34),
                    // A timeout's stack is node's timers only.
                    (None, None),
                    // The test's own frame, not the code under test that threw (lib.js:4).
                    at(52),
                    // A thrown string has no stack of its own.
                    (None, None),
                    at(62),
                    at(70),
                    at(80),
                    at(90),
                    at(97),
                ]
            );
        }
        // The colour variants say the same; the messages, one by one.
        let run = &runs[0];
        let messages: Vec<_> = run
            .failures
            .iter()
            .map(|c| c.message.as_deref().unwrap_or_default())
            .collect();
        assert_eq!(
            messages[0],
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n'a-b' !== 'a_b'"
        );
        assert_eq!(
            messages[2],
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n+   a: 1,\n-   a: 2,\n    list: [\n      1,\n      2,\n-     3\n    ]\n  }"
        );
        assert_eq!(
            messages[3],
            "Error: Timeout of 50ms exceeded. For async tests and hooks, ensure \"done()\" is called; if returning a Promise, ensure it resolves. (/tmp/skillgate-fixtures/mocha-spec/mixed.suite.js)"
        );
        assert_eq!(messages[4], "TypeError: slugify expects a string");
        assert_eq!(
            messages[5],
            "Error: the string \"not an Error\" was thrown, throw an Error :)"
        );
        assert_eq!(messages[6], "Error: database fixture could not connect");
        assert_eq!(messages[7], "Error: could not seed the table");
        assert_eq!(messages[8], "Error: cleanup failed");
        assert_eq!(messages[9], "Error: could not drop the table");
        assert_eq!(messages[10], "Error: the server did not stop");
        let kinds: Vec<_> = run.failures.iter().map(|c| c.kind).collect();
        assert_eq!(kinds[0], Some(FailureKind::Assertion));
        assert_eq!(kinds[3], Some(FailureKind::Timeout));
        assert_eq!(run.duration_ms, Some(58));
        for other in &runs[1..] {
            let theirs: Vec<_> = other.failures.iter().map(|c| &c.message).collect();
            let ours: Vec<_> = run.failures.iter().map(|c| &c.message).collect();
            assert_eq!(theirs, ours);
        }
    }

    #[test]
    fn mocha_10_prints_the_same() {
        for variant in ["spec", "dot"] {
            let name = format!("mixed.{variant}.mocha10");
            let run = read_output("mocha-spec", &name).expect("read");
            assert_eq!(counts(&run), (4, 11, 3), "{name}");
            assert_eq!(run.failures.len(), 11, "{name}");
            assert_eq!(run.failures[10].name, "\"after all\" hook in \"{root}\"");
        }
    }

    #[test]
    fn the_issue_case() {
        // Issue #13: mocha says 3 passing, 5 pending, 5 failing; five numbered failures.
        for run in read_all("issue", (3, 5, 5)) {
            let found: Vec<_> = run
                .failures
                .iter()
                .map(|c| {
                    (
                        c.suite.as_deref(),
                        c.name.as_str(),
                        c.file.as_deref(),
                        c.line,
                        c.message.as_deref().and_then(|m| m.lines().next()),
                    )
                })
                .collect();
            let strict =
                Some("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:");
            let file = Some("issue.suite.js");
            assert_eq!(
                found,
                [
                    (
                        Some("skill"),
                        "parses the front matter",
                        file,
                        Some(18),
                        strict
                    ),
                    (Some("skill"), "counts tokens", file, Some(21), strict),
                    (
                        Some("skill"),
                        "formats a table",
                        file,
                        Some(24),
                        Some(
                            "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:"
                        )
                    ),
                    (
                        Some("skill"),
                        "validates the schema",
                        file,
                        Some(27),
                        Some("TypeError: schema.properties is undefined")
                    ),
                    (
                        Some("skill"),
                        "writes the output file",
                        file,
                        Some(30),
                        Some("AssertionError [ERR_ASSERTION]: the output file was not written")
                    ),
                ]
            );
        }
    }

    #[test]
    fn many_tests() {
        // mocha: 297 passing, 3 failing.
        for run in read_all("many", (297, 3, 0)) {
            let found: Vec<_> = run
                .failures
                .iter()
                .map(|c| (c.name.as_str(), c.line))
                .collect();
            assert_eq!(
                found,
                [
                    ("case 007", Some(9)),
                    ("case 150", Some(9)),
                    ("case 299", Some(9))
                ]
            );
            assert_eq!(
                run.failures[2].message.as_deref(),
                Some(
                    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n-1 !== 299"
                )
            );
        }
    }

    #[test]
    fn no_tests() {
        // mocha: 0 passing (1ms). Mocha's own, and nothing to rate.
        for run in read_all("empty", (0, 0, 0)) {
            assert_eq!(run.pass_rate(), None);
        }
    }

    #[test]
    fn a_failing_root_hook() {
        // mocha: 0 passing, 1 failing; the test behind the hook never ran and is not counted.
        for run in read_all("roothook", (0, 1, 0)) {
            assert_eq!(names(&run), [(None, "\"before all\" hook in \"{root}\"")]);
            let hook = &run.failures[0];
            assert_eq!(
                hook.message.as_deref(),
                Some("Error: the server did not start")
            );
            assert_eq!(
                (hook.file.as_deref(), hook.line),
                (Some("roothook.suite.js"), Some(4))
            );
        }
    }

    #[test]
    fn two_runs_add_up() {
        // mocha ran twice: 3 passing, then 3 passing, 5 pending, 5 failing.
        for run in read_all("twice", (6, 5, 5)) {
            assert_eq!(run.failures.len(), 5);
            assert_eq!(run.failures[0].name, "parses the front matter");
        }
        let run = read_output("mocha-spec", "twice.spec").expect("read");
        assert_eq!(run.duration_ms, Some(8));
    }

    #[test]
    fn files_that_fail_to_load_print_no_summary() {
        // Mocha stops before running anything: stdout is empty, stderr holds `Exception
        // during run: …`. No reader finds results there; the exit code stands.
        for name in ["broken", "missing"] {
            for variant in ["spec", "spec.color", "dot", "dot.color"] {
                let name = format!("{name}.{variant}");
                assert!(
                    fixture_text(&format!("mocha-spec/{name}.stderr.txt"))
                        .contains("Exception during run: "),
                    "{name}"
                );
                assert_eq!(read_output("mocha-spec", &name), None, "{name}");
                let (claim, run) = read_text(
                    ReportFormat::MochaSpec,
                    &fixture_text(&format!("mocha-spec/{name}.stderr.txt")),
                );
                assert_eq!((claim, run), (None, None), "{name}");
            }
        }
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for name in [
            "mixed.spec",
            "mixed.dot.color",
            "issue.spec",
            "issue.dot",
            "twice.spec",
        ] {
            let text = fixture_text(&format!("mocha-spec/{name}.stdout.txt"));
            assert_claims_hold(ReportFormat::MochaSpec, &text, 500);
        }
    }

    #[test]
    fn other_formats_are_not_claimed() {
        let mut paths: Vec<_> = fixture_files("mocha")
            .into_iter()
            .chain(fixture_files("node-spec"))
            .chain(fixture_files("pytest"))
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(".json") || name.ends_with(".txt")
            })
            .collect();
        paths.extend(
            fixture_files("jest")
                .into_iter()
                .filter(|p| p.to_string_lossy().ends_with(".stderr.txt")),
        );
        assert!(paths.len() > 50, "{}", paths.len());
        let texts = [
            "",
            "3 passing\n",
            "  3 passing\n",
            "  3 passing (soon)\n",
            "  3 passing (2 ms)\n",
            "  2 failing\n  1) x\n       y:\n     Error: z\n",
            "  5 pending\n  2 failing\n",
            "ℹ pass 4\nℹ fail 1\n",
            "Tests:       1 failed, 3 passed, 4 total\n",
            "=== 3 passed, 1 failed in 0.2s ===\n",
        ];
        assert_not_read(ReportFormat::MochaSpec, &paths, &texts);
    }

    #[test]
    fn summaries_without_a_duration_and_lists_longer_than_their_summary() {
        // `N passing` without a duration is Mocha's when its other lines follow it.
        let (claim, run) = read_text(
            ReportFormat::MochaSpec,
            "  2 passing\n  1 pending\n  1 failing\n",
        );
        let run = run.expect("mocha");
        assert_eq!(counts(&run), (2, 1, 1));
        assert_eq!(claim.map(|c| c.total()), Some(4));
        // Three entries under `2 failing`: the entries count, the claim stays Mocha's.
        let text = "  1 passing (3s)\n  2 failing\n\n  1) a\n       x:\n     Error: one\n\n  2) a\n       y:\n     Error: two\n\n  3) b:\n     Error: three\n      at Context.<anonymous> (file:///w/t.mjs:7:1)\n";
        let (claim, run) = read_text(ReportFormat::MochaSpec, text);
        let run = run.expect("mocha");
        assert_eq!(counts(&run), (1, 3, 0));
        assert_eq!(run.duration_ms, Some(3_000));
        assert_eq!(claim.map(|c| c.failed), Some(2));
        let last = &run.failures[2];
        assert_eq!((last.suite.as_deref(), last.name.as_str()), (None, "b"));
        assert_eq!(
            (last.file.as_deref(), last.line),
            (Some("/w/t.mjs"), Some(7))
        );
        // Out-of-order numbers are the error's own text, not entries.
        let text = "  0 passing (1ms)\n  1 failing\n\n  1) s\n       t:\n     Error: see\n  3) not an entry\n  1) nor this\n";
        let run = read_text(ReportFormat::MochaSpec, text).1.expect("mocha");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("Error: see\n  3) not an entry\n  1) nor this")
        );
        // Words after a count: not Mocha's line.
        let run = read_text(
            ReportFormat::MochaSpec,
            "  3 passing (1ms)\n  2 failing tests\n  1) a:\n     Error: x\n",
        )
        .1
        .expect("mocha");
        assert_eq!(counts(&run), (3, 0, 0));
        // Mocha's order is passing, pending, failing; a count out of that order is not its.
        let run = read_text(
            ReportFormat::MochaSpec,
            "  3 passing (1ms)\n  1 failing\n  2 pending\n  4 failing\n",
        )
        .1
        .expect("mocha");
        assert_eq!(counts(&run), (3, 1, 0));
        // A title part sits exactly two deeper than the one before; an error whose first line
        // happens to be indented further is the error.
        let text = "  0 passing (1ms)\n  1 failing\n\n  1) s\n       t:\n           odd: message\n";
        let run = read_text(ReportFormat::MochaSpec, text).1.expect("mocha");
        let case = &run.failures[0];
        assert_eq!(
            (case.suite.as_deref(), case.name.as_str()),
            (Some("s"), "t")
        );
        assert_eq!(case.message.as_deref(), Some("odd: message"));
        // What follows the last entry's stack is not that entry's: its location stays unknown.
        let text = "  0 passing (1ms)\n  1 failing\n\n  1) s\n       t:\n     Error: Timeout of 2000ms exceeded.\n      at listOnTimeout (node:internal/timers:581:17)\n\nnpm error Test failed.\n    at Object.run (/w/tools/npm-run.js:3:1)\n";
        let case = &read_text(ReportFormat::MochaSpec, text)
            .1
            .expect("mocha")
            .failures[0];
        assert_eq!((case.file.as_deref(), case.line), (None, None));
        assert_eq!(
            case.message.as_deref(),
            Some("Error: Timeout of 2000ms exceeded.")
        );
        // A list without a `failing` line before it is not a list.
        let text = "  4 passing (1ms)\n\n  1) s\n       t:\n     Error: x\n";
        let run = read_text(ReportFormat::MochaSpec, text).1.expect("mocha");
        assert_eq!(counts(&run), (4, 0, 0));
        assert!(run.failures.is_empty());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("58ms"), Some(58));
        assert_eq!(parse_duration("2s"), Some(2_000));
        assert_eq!(parse_duration("3m"), Some(180_000));
        assert_eq!(parse_duration("1h"), Some(3_600_000));
        assert_eq!(parse_duration("2d"), Some(172_800_000));
        assert_eq!(parse_duration("ms"), None);
        assert_eq!(parse_duration("1.5s"), None);
        assert_eq!(parse_duration("2 s"), None);
        assert_eq!(parse_duration("99999999999999999999d"), None);
        assert_eq!(parse_duration("18446744073709551615d"), Some(u64::MAX));
    }

    #[test]
    fn limits_hold() {
        let n = MAX_KEPT_FAILURES + 5;
        let mut text = format!("  0 passing (1ms)\n  {n} failing\n");
        for i in 1..=n {
            text.push_str(&format!(
                "\n  {i}) {}\n       t{i}:\n     Error: {}\n      at Context.<anonymous> (a.js:1:1)\n",
                "s".repeat(MAX_NAME_BYTES * 2),
                "é".repeat(MAX_MESSAGE_BYTES)
            ));
        }
        let run = read_text(ReportFormat::MochaSpec, &text).1.expect("mocha");
        assert_eq!(run.failed, n as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        let first = &run.failures[0];
        let message = first.message.as_deref().unwrap_or_default();
        assert!(message.len() <= MAX_MESSAGE_BYTES && message.ends_with('…'));
        assert!(first.suite.as_deref().unwrap_or_default().len() <= MAX_NAME_BYTES);

        // Absurdly deep title paths and endless messages: bounded, and nothing breaks.
        let mut text = String::from("  0 passing (1ms)\n  1 failing\n\n  1) p0\n");
        for depth in 1..1_000 {
            text.push_str(&format!(
                "{}p{depth}\n",
                " ".repeat(TITLE_INDENT + 2 * depth)
            ));
        }
        for _ in 0..10_000 {
            text.push_str("     Error: again and again\n");
        }
        let run = read_text(ReportFormat::MochaSpec, &text).1.expect("mocha");
        assert_eq!(counts(&run), (0, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, format!("p{}", MAX_TITLE_PARTS - 1));
        assert!(case.message.as_deref().unwrap_or_default().len() <= MAX_MESSAGE_BYTES);

        // Counts that overflow are not counts; sums saturate.
        let text = "  99999999999999999999 passing (1ms)\n";
        assert_eq!(read_text(ReportFormat::MochaSpec, text), (None, None));
        let text = format!(
            "  {} passing (1ms)\n  {} passing (1ms)\n",
            u64::MAX,
            u64::MAX
        );
        assert_eq!(
            read_text(ReportFormat::MochaSpec, &text)
                .1
                .map(|r| r.passed),
            Some(u64::MAX)
        );
    }

    #[test]
    fn stack_frames() {
        let frame = |text| parse_frame(text).map(|f| (f.path, f.line, f.in_test, f.internal));
        assert_eq!(
            frame("at Context.<anonymous> (test/a b.js:15:12)"),
            Some(("test/a b.js", Some(15), true, false))
        );
        assert_eq!(
            frame("at async Context.<anonymous> (file:///w/t.mjs:3:9)"),
            Some(("/w/t.mjs", Some(3), true, false))
        );
        assert_eq!(
            frame("at process.processImmediate (node:internal/timers:483:21)"),
            Some(("node:internal/timers", Some(483), false, true))
        );
        assert_eq!(
            frame("at /w/node_modules/chai/index.js:1:2"),
            Some(("/w/node_modules/chai/index.js", Some(1), false, true))
        );
        assert_eq!(frame("at the end of the day: 1:2"), None);
        assert_eq!(frame("at x (y)"), None);
        assert_eq!(frame("at "), None);
        assert_eq!(frame("Error: at x:1:2"), None);
    }
}
