//! Perl's `prove` (TAP::Harness 3), with and without `-v`, coloured or not, from a terminal or
//! a pipe: the line each test file ends with (`t/a.t .. ok`, `Failed 2/7 subtests`), the `Test
//! Summary Report` (`t/a.t (Wstat: 512 (exited 2) Tests: 7 Failed: 2)`, `Failed tests:  3, 5`,
//! `Non-zero exit status: 2`, `Parse errors: Bad plan. …`) and the closing `Files=N, Tests=N`
//! line. With `-v` prove echoes each file's TAP between its name and its result line: that
//! stream names the failures and shows the skips; with `--merge` (or a terminal) Test::More's
//! `#   Failed test 'name'` diagnostics give them messages and lines.
//!
//! Counting rules (prove's own summary, in this crate's rules; the TAP reader's where prove's
//! parser agrees):
//! - Tests run are the `Tests=N` of the closing line: top-level test points, as prove counts
//!   them (a Test::More subtest is one test; a test beyond the plan is one, and failed).
//! - Failed, per file of the report: its `Failed: N` tests (the `Failed tests:` list), plus
//!   the tests its plan announced that never ran (`You planned 5 tests but ran 3`, or the
//!   `Failed 5/5 subtests` line), named `missing test N` as the TAP reader names them. A file
//!   prove failed for another reason (a non-zero exit or wait status, a parse error such as
//!   `No plan found in TAP output`, a bail-out) without any of those is one failure, named
//!   after its problem. A bail-out stands for the planned tests it left unrun, at least one.
//! - Skipped: `# SKIP` on a passing test, and `# TODO` whatever its result (prove counts both
//!   among the passes; `not ok # SKIP` is a failure to prove, and here). The `-v` stream shows
//!   every one; without it prove prints only the skips of files that failed (`less 1 skipped
//!   subtest`) and the TODO tests that passed (`TODO passed:`): the others are read as passed.
//!   The total and the failures are exact either way, and so is the claim (the summary alone).
//!   A file skipped whole (`1..0 # SKIP`) holds no tests.
//! - Passed: the rest of `Tests=N`.
//! - Names: a failed test is named by its description in the `-v` stream, or by Test::More's
//!   `Failed test 'name'` diagnostics when the stream holds them (`--merge`, a terminal), else
//!   `test N`; its suite and file are the test file (`t/a.t`), its file and line the
//!   diagnostic's when given.
//! - The text is prove's when it holds the closing `Files=N, Tests=N, ` line or an entry of the
//!   Test Summary Report; each closing line ends one run, and several runs add up.

use std::collections::HashMap;

use super::line_reader::LineReader;
use super::model::{
    Claim, FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun,
    truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// Test files followed per prove run; the report entries of the others still count.
const MAX_FILES: usize = 2048;
/// Failing tests and diagnostics kept with their details per prove run, across its files.
const MAX_DETAILS: usize = 2 * MAX_KEPT_FAILURES;
/// Test numbers kept from the `Failed tests:` lists of one prove run (the counts are exact).
const MAX_LISTED: usize = 4 * MAX_KEPT_FAILURES;
/// Failing subtest lines kept to explain their parent's failure.
const MAX_INNER: usize = 8;
/// Parse errors kept per file (prove itself shows five).
const MAX_PARSE_ERRORS: usize = 5;

/// prove's output, line by line.
pub(crate) struct ProveReader {
    segment: Segment,
    run: TestRun,
    claim: Counts,
    /// A closing line was seen: the claim stands.
    claim_seen: bool,
    /// A closing line or a report entry was seen: the text is prove's.
    saw_summary: bool,
}

#[derive(Default, Clone, Copy)]
struct Counts {
    passed: u64,
    failed: u64,
    skipped: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.passed = self.passed.saturating_add(other.passed);
        self.failed = self.failed.saturating_add(other.failed);
        self.skipped = self.skipped.saturating_add(other.skipped);
    }
}

/// One prove run, up to its closing `Files=N, Tests=N` line.
#[derive(Default)]
struct Segment {
    files: Vec<FileState>,
    /// The latest file of each name, to find a report entry's file.
    by_name: HashMap<String, usize>,
    /// The file whose lines are being read (`None` past [`MAX_FILES`]).
    current: Option<usize>,
    /// Whether a file's section is open: its TAP stream, until its result line.
    open: bool,
    /// A bare `ok` in an open section: prove's result line if the section ends there, else a
    /// test point without a number.
    held_ok: bool,
    /// A `Bailout called.` line not yet tied to its file.
    pending_bail: Option<String>,
    entry: Option<OpenEntry>,
    tests_total: Option<u64>,
    saw_entry: bool,
    /// Where the diagnostic lines being read go.
    collecting: Collecting,
    /// A YAML block after a failing test point: its indentation.
    yaml: Option<usize>,
    details: usize,
    listed: usize,
    /// The counts of the files settled so far.
    sums: Sums,
    /// Settling a file past [`MAX_FILES`]: its failures are kept after the others'.
    late: bool,
    late_cases: Vec<TestCase>,
}

#[derive(Default, Clone, Copy)]
enum Collecting {
    #[default]
    Nothing,
    /// The failing test point at this index of the current file.
    Point(usize),
    /// The diagnostic at this index of the current file.
    Diag(usize),
    /// A diagnostic that is not kept.
    Discard,
}

#[derive(Default)]
struct Sums {
    tests: u64,
    failed_points: u64,
    /// Missing tests and files failed as a whole.
    other_failed: u64,
    skipped_claim: u64,
    skipped_read: u64,
}

#[derive(Default)]
struct FileState {
    name: String,
    // From the file's result lines.
    section_failed: Option<u64>,
    section_skipped: u64,
    section_todo_passed: u64,
    dubious: Option<String>,
    no_subtests: bool,
    closed: bool,
    bail: Option<String>,
    // From the TAP stream (`-v`).
    points: u64,
    verbose_skipped: u64,
    failing: Vec<Failing>,
    diags: Vec<Detail>,
    /// Failing subtest lines since the last top-level test point.
    inner: Vec<String>,
    /// The index in `failing` of the last test point, when it failed.
    last_failing: Option<usize>,
    entry: Option<Entry>,
}

struct Failing {
    number: u64,
    description: String,
    detail: Detail,
    used: bool,
}

#[derive(Default)]
struct Detail {
    name: Option<String>,
    file: Option<String>,
    line: Option<u32>,
    message: String,
}

/// A file's entry in the Test Summary Report.
#[derive(Default)]
struct Entry {
    tests: u64,
    failed: u64,
    listed: Vec<u64>,
    todo_passed: u64,
    exit: Option<String>,
    wait: Option<String>,
    signal: Option<String>,
    parse_errors: Vec<String>,
    bad_plan: Option<(u64, u64)>,
}

struct OpenEntry {
    name: String,
    entry: Entry,
    file: Option<usize>,
    label: Label,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    None,
    Failed,
    TodoPassed,
    ParseErrors,
}

/// A file's result line.
#[derive(Debug, PartialEq, Eq)]
enum Outcome<'a> {
    Ok,
    SkippedAll,
    Dubious(&'a str),
    Failed(u64),
    AllPassed,
    NoSubtests,
    LessSkipped(u64),
    TodoPassed(u64),
    NoTestsRun,
}

const BAILOUT: &str = "Bailout called.  Further testing stopped:";

impl LineReader for ProveReader {
    fn feed(&mut self, line: &str) {
        ProveReader::feed(self, line);
    }

    fn claim(&self) -> Option<Claim> {
        self.claim_seen.then(|| {
            Claim::new(
                ReportFormat::Prove,
                self.claim.passed,
                self.claim.failed,
                self.claim.skipped,
            )
        })
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        ProveReader::finish(*self)
    }
}

impl ProveReader {
    pub(crate) fn new() -> Self {
        Self {
            segment: Segment::default(),
            run: TestRun::new(ReportFormat::Prove),
            claim: Counts::default(),
            claim_seen: false,
            saw_summary: false,
        }
    }

    /// Feed one line, already stripped of its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        let text = line.trim_end();
        if self.segment.held_ok {
            if text.is_empty() {
                return;
            }
            self.segment.held_ok = false;
            if ends_a_section(text) {
                self.outcome(Outcome::Ok);
            } else {
                self.tap_line("ok");
            }
        }
        if let Some(tests) = parse_files_line(text) {
            self.close_entry();
            self.segment.tests_total = Some(tests);
            self.end_segment();
            return;
        }
        if let Some(header) = parse_entry_header(text) {
            self.open_entry(header);
            return;
        }
        if self.segment.entry.is_some() && self.entry_line(text) {
            return;
        }
        if let Some(reason) = text.strip_prefix(BAILOUT) {
            self.bail(reason.trim());
            return;
        }
        if let Some((name, rest)) = parse_header(text) {
            self.close_entry();
            self.header(name, rest);
            return;
        }
        if self.segment.current.is_some() {
            self.section_line(line, text);
        }
    }

    /// The run, or `None` when no summary of prove's was seen.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        if self.segment.held_ok {
            self.segment.held_ok = false;
            self.outcome(Outcome::Ok);
        }
        self.close_entry();
        self.end_segment();
        self.saw_summary.then_some(self.run)
    }

    fn current(&mut self) -> Option<&mut FileState> {
        let index = self.segment.current?;
        self.segment.files.get_mut(index)
    }

    /// `t/a.t .. ` and what follows on the same line.
    fn header(&mut self, name: &str, rest: &str) {
        let name = truncate_utf8(name, MAX_NAME_BYTES);
        let segment = &mut self.segment;
        segment.held_ok = false;
        segment.yaml = None;
        segment.collecting = Collecting::Nothing;
        // A terminal redraws the name over the progress counter: the same section goes on.
        let same = segment
            .current
            .and_then(|i| segment.files.get(i))
            .is_some_and(|f| f.name == name && !f.closed);
        if !same {
            segment.open = true;
            segment.current = None;
            if segment.files.len() < MAX_FILES {
                let index = segment.files.len();
                segment.by_name.insert(name.clone(), index);
                segment.files.push(FileState {
                    name,
                    bail: segment.pending_bail.take(),
                    ..FileState::default()
                });
                segment.current = Some(index);
            }
        }
        let rest = strip_progress(rest);
        if let Some(reason) = rest.strip_prefix(BAILOUT) {
            self.bail(reason.trim());
        } else if let Some(outcome) = parse_outcome(rest) {
            self.outcome(outcome);
        }
    }

    fn section_line(&mut self, line: &str, text: &str) {
        // prove's result lines start the line (or a tab); a subtest's `ok` is indented.
        if let Some(outcome) = parse_outcome(text).filter(|_| !line.starts_with(' ')) {
            if outcome == Outcome::Ok {
                // Only prove's if the section ends there.
                if self.segment.open {
                    self.segment.held_ok = true;
                }
                return;
            }
            self.outcome(outcome);
            return;
        }
        if self.segment.open {
            self.tap_line(line);
        }
    }

    fn outcome(&mut self, outcome: Outcome<'_>) {
        let closes = matches!(
            outcome,
            Outcome::Ok
                | Outcome::SkippedAll
                | Outcome::Failed(_)
                | Outcome::AllPassed
                | Outcome::NoSubtests
        );
        if closes {
            self.segment.open = false;
            self.segment.yaml = None;
            self.segment.collecting = Collecting::Nothing;
        }
        let Some(file) = self.current() else {
            return;
        };
        file.closed |= closes;
        match outcome {
            Outcome::Failed(n) => file.section_failed = Some(n),
            Outcome::Dubious(line) => file.dubious = Some(truncate_utf8(line, MAX_NAME_BYTES)),
            Outcome::NoSubtests => file.no_subtests = true,
            Outcome::LessSkipped(n) => file.section_skipped = n,
            Outcome::TodoPassed(n) => file.section_todo_passed = n,
            Outcome::Ok | Outcome::SkippedAll | Outcome::AllPassed | Outcome::NoTestsRun => {}
        }
    }

    fn bail(&mut self, reason: &str) {
        let reason = truncate_utf8(reason, MAX_NAME_BYTES);
        let segment = &mut self.segment;
        // A terminal shows it inside its file's section; a pipe before the file's name.
        match segment.current.and_then(|i| segment.files.get_mut(i)) {
            Some(file) if !file.closed => file.bail = Some(reason),
            _ => segment.pending_bail = Some(reason),
        }
    }

    /// A line of the TAP stream `-v` echoes (or of the diagnostics a terminal shows).
    fn tap_line(&mut self, line: &str) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim();
        if let Some(yaml_indent) = self.segment.yaml {
            if indent >= yaml_indent && !text.is_empty() {
                if text == "..." && indent == yaml_indent {
                    self.segment.yaml = None;
                } else {
                    self.yaml_line(text);
                }
                return;
            }
            self.segment.yaml = None;
        }
        if text.is_empty() {
            self.segment.collecting = Collecting::Nothing;
            return;
        }
        if indent > 0 {
            let failing_last = self.current().is_some_and(|f| f.last_failing.is_some());
            if text == "---" && failing_last {
                self.segment.yaml = Some(indent);
            } else if let Some(point) = parse_point(text)
                && point.fails()
                && let Some(file) = self.current()
                && file.inner.len() < MAX_INNER
            {
                file.inner.push(truncate_utf8(text, MAX_NAME_BYTES));
            }
            return;
        }
        if let Some(point) = parse_point(text) {
            self.point(&point);
        } else if let Some(comment) = text.strip_prefix('#') {
            self.comment(comment);
        } else {
            self.segment.collecting = Collecting::Nothing;
        }
    }

    fn point(&mut self, point: &Point<'_>) {
        let segment = &mut self.segment;
        segment.collecting = Collecting::Nothing;
        let Some(file) = segment.current.and_then(|i| segment.files.get_mut(i)) else {
            return;
        };
        file.points = file.points.saturating_add(1);
        let inner = std::mem::take(&mut file.inner);
        file.last_failing = None;
        let skipped = match point.directive {
            Some(Directive::Todo) => true,
            Some(Directive::Skip) => point.ok,
            None => false,
        };
        if skipped {
            file.verbose_skipped = file.verbose_skipped.saturating_add(1);
        }
        if !point.fails() || segment.details >= MAX_DETAILS {
            return;
        }
        segment.details += 1;
        let mut detail = Detail::default();
        for line in inner {
            append_line(&mut detail.message, &line);
        }
        file.failing.push(Failing {
            number: point.number.unwrap_or(file.points),
            description: truncate_utf8(&unescape(point.description), MAX_NAME_BYTES),
            detail,
            used: false,
        });
        file.last_failing = Some(file.failing.len() - 1);
        segment.collecting = Collecting::Point(file.failing.len() - 1);
    }

    /// Test::More's diagnostics: `#   Failed test 'name'`, `#   at t/a.t line 8.`, details.
    fn comment(&mut self, comment: &str) {
        let body = comment.trim();
        let segment = &mut self.segment;
        let Some(file) = segment.current.and_then(|i| segment.files.get_mut(i)) else {
            return;
        };
        if let Some(rest) = body.strip_prefix("Failed test") {
            let (name, location) = match rest.trim_start().strip_prefix('\'') {
                Some(quoted) => (Some(quoted.strip_suffix('\'').unwrap_or(quoted)), None),
                None => (None, parse_at(rest.trim_start())),
            };
            // Right after its failing test point (`--merge`), the diagnostic is that test's.
            let target = match file.last_failing {
                Some(index)
                    if file
                        .failing
                        .get(index)
                        .is_some_and(|f| f.detail.name.is_none()) =>
                {
                    Collecting::Point(index)
                }
                _ if segment.details < MAX_DETAILS => {
                    segment.details += 1;
                    file.diags.push(Detail::default());
                    Collecting::Diag(file.diags.len() - 1)
                }
                _ => Collecting::Discard,
            };
            file.last_failing = None;
            segment.collecting = target;
            if let Some(detail) = detail_of(file, target) {
                detail.name = Some(truncate_utf8(name.unwrap_or_default(), MAX_NAME_BYTES));
                if let Some((path, line)) = location {
                    detail.file = Some(truncate_utf8(path, MAX_NAME_BYTES));
                    detail.line = Some(line);
                }
            }
            return;
        }
        if body.starts_with("Failed (TODO) test")
            || body.starts_with("Looks like ")
            || body.starts_with("Subtest:")
        {
            segment.collecting = Collecting::Nothing;
            return;
        }
        let Some(detail) = detail_of(file, segment.collecting) else {
            return;
        };
        match parse_at(body) {
            Some((path, line)) if detail.line.is_none() => {
                detail.file = Some(truncate_utf8(path, MAX_NAME_BYTES));
                detail.line = Some(line);
            }
            _ => append_line(&mut detail.message, body),
        }
    }

    /// `message:`, `file:`, `line:` of a YAML block after a failing test point.
    fn yaml_line(&mut self, text: &str) {
        let Some(file) = self.current() else {
            return;
        };
        let Some(failing) = file.last_failing.and_then(|i| file.failing.get_mut(i)) else {
            return;
        };
        let Some((key, value)) = text.split_once(':') else {
            return;
        };
        let value = unquote(value.trim());
        let detail = &mut failing.detail;
        match key {
            "message" if !value.is_empty() => {
                detail.message = truncate_utf8(value, MAX_MESSAGE_BYTES);
            }
            "file" if !value.is_empty() => detail.file = Some(truncate_utf8(value, MAX_NAME_BYTES)),
            "line" => detail.line = value.parse().ok().filter(|&n| n > 0),
            _ => {}
        }
    }

    fn open_entry(&mut self, header: EntryHeader<'_>) {
        self.close_entry();
        let name = truncate_utf8(header.name, MAX_NAME_BYTES);
        let segment = &mut self.segment;
        segment.saw_entry = true;
        segment.current = None;
        segment.open = false;
        segment.held_ok = false;
        let found = segment
            .by_name
            .get(&name)
            .copied()
            .filter(|&i| segment.files.get(i).is_some_and(|f| f.entry.is_none()));
        let file = match found {
            Some(index) => Some(index),
            // A file the report names but whose result line was not seen.
            None if segment.files.len() < MAX_FILES => {
                let index = segment.files.len();
                segment.by_name.insert(name.clone(), index);
                segment.files.push(FileState {
                    name: name.clone(),
                    closed: true,
                    ..FileState::default()
                });
                Some(index)
            }
            None => None,
        };
        let signal = header
            .wstat
            .split_once("(Signal: ")
            .map(|(_, signal)| truncate_utf8(signal.trim_end_matches(')'), MAX_NAME_BYTES));
        segment.entry = Some(OpenEntry {
            name,
            entry: Entry {
                tests: header.tests,
                failed: header.failed,
                signal,
                ..Entry::default()
            },
            file,
            label: Label::None,
        });
    }

    /// A line under a report entry; false when it is not one.
    fn entry_line(&mut self, text: &str) -> bool {
        // Numbers past the failures the run can still keep would name nothing.
        let room = MAX_KEPT_FAILURES.saturating_sub(self.run.failures.len());
        let segment = &mut self.segment;
        let limit = MAX_LISTED.min(segment.listed.saturating_add(room));
        let Some(open) = &mut segment.entry else {
            return false;
        };
        let entry = &mut open.entry;
        // Lists and parse errors go on under 16 spaces.
        if text.starts_with("                ") {
            let more = text.trim();
            match open.label {
                Label::Failed => add_listed(entry, more, &mut segment.listed, limit),
                Label::TodoPassed => {
                    entry.todo_passed = entry.todo_passed.saturating_add(count_list(more))
                }
                Label::ParseErrors => add_parse_error(entry, more),
                Label::None => return false,
            }
            return true;
        }
        let Some(item) = text.strip_prefix("  ").filter(|t| !t.starts_with(' ')) else {
            return text.starts_with("Displayed the first ")
                || text.starts_with("Re-run prove with the -p option");
        };
        open.label = Label::None;
        if let Some(list) = item
            .strip_prefix("Failed tests:")
            .or_else(|| item.strip_prefix("Failed test:"))
        {
            open.label = Label::Failed;
            add_listed(entry, list.trim(), &mut segment.listed, limit);
        } else if let Some(list) = item.strip_prefix("TODO passed:") {
            open.label = Label::TodoPassed;
            entry.todo_passed = entry.todo_passed.saturating_add(count_list(list.trim()));
        } else if let Some(status) = item.strip_prefix("Non-zero exit status:") {
            entry.exit = Some(truncate_utf8(status.trim(), MAX_NAME_BYTES));
        } else if let Some(status) = item.strip_prefix("Non-zero wait status:") {
            entry.wait = Some(truncate_utf8(status.trim(), MAX_NAME_BYTES));
        } else if let Some(error) = item.strip_prefix("Parse errors:") {
            open.label = Label::ParseErrors;
            add_parse_error(entry, error.trim());
        } else {
            return false;
        }
        true
    }

    fn close_entry(&mut self) {
        let Some(open) = self.segment.entry.take() else {
            return;
        };
        match open.file.and_then(|i| self.segment.files.get_mut(i)) {
            Some(file) => file.entry = Some(open.entry),
            // Past the files followed: counted now, without the file's own lines.
            None => {
                self.segment.late = true;
                self.settle(FileState {
                    name: open.name,
                    entry: Some(open.entry),
                    ..FileState::default()
                });
                self.segment.late = false;
            }
        }
    }

    /// The run up to its closing line (or the end of the text): count every file.
    fn end_segment(&mut self) {
        let mut segment = std::mem::take(&mut self.segment);
        if let Some(reason) = segment.pending_bail.take() {
            let last = segment
                .files
                .iter()
                .rposition(|f| f.entry.is_some())
                .or_else(|| segment.files.len().checked_sub(1));
            match last.and_then(|i| segment.files.get_mut(i)) {
                Some(file) => file.bail = Some(reason),
                None => segment.files.push(FileState {
                    bail: Some(reason),
                    ..FileState::default()
                }),
            }
        }
        // The entries of files past MAX_FILES were settled into the sums already.
        self.segment.sums = std::mem::take(&mut segment.sums);
        for file in std::mem::take(&mut segment.files) {
            self.settle(file);
        }
        let room = MAX_KEPT_FAILURES.saturating_sub(self.run.failures.len());
        self.run
            .failures
            .extend(segment.late_cases.into_iter().take(room));
        let sums = std::mem::take(&mut self.segment.sums);
        // The closing line is the summary a claim stands on; a report without it (the output
        // was cut) is still prove's, and read.
        let closed = segment.tests_total.is_some();
        let tests = segment.tests_total.unwrap_or(sums.tests);
        let room = tests.saturating_sub(sums.failed_points);
        let failed = sums.failed_points.saturating_add(sums.other_failed);
        let counts = |skipped: u64| {
            let skipped = skipped.min(room);
            Counts {
                passed: room - skipped,
                failed,
                skipped,
            }
        };
        let read = counts(sums.skipped_read);
        self.run.passed = self.run.passed.saturating_add(read.passed);
        self.run.failed = self.run.failed.saturating_add(read.failed);
        self.run.skipped = self.run.skipped.saturating_add(read.skipped);
        self.saw_summary |= closed || segment.saw_entry;
        if closed {
            self.claim_seen = true;
            self.claim.add(counts(sums.skipped_claim));
        }
    }

    /// Count one file and keep its failures.
    fn settle(&mut self, mut file: FileState) {
        let has_entry = file.entry.is_some();
        let entry = file.entry.take().unwrap_or_default();
        let failed_points = entry.failed;
        let ran = if has_entry { entry.tests } else { file.points };
        let missing = file
            .section_failed
            .map_or(0, |n| n.saturating_sub(failed_points))
            .max(
                entry
                    .bad_plan
                    .map_or(0, |(planned, ran)| planned.saturating_sub(ran)),
            );
        let problems = problems(&file, &entry);
        let whole = u64::from(
            failed_points == 0 && missing == 0 && (file.bail.is_some() || !problems.is_empty()),
        );
        let room = ran.saturating_sub(failed_points);
        let skipped_claim = file
            .section_skipped
            .saturating_add(entry.todo_passed.max(file.section_todo_passed))
            .min(room);
        // The whole stream (`-v`) tells every skip apart; prove's `less N skipped` also counts
        // `not ok # SKIP`, a failure. Part of it (`--failures`) shows fewer than prove.
        let whole_stream = file.points > 0 && file.points == ran;
        let skipped_read = if whole_stream {
            file.verbose_skipped.min(room)
        } else {
            skipped_claim.max(file.verbose_skipped).min(room)
        };
        let sums = &mut self.segment.sums;
        sums.tests = sums.tests.saturating_add(ran);
        sums.failed_points = sums.failed_points.saturating_add(failed_points);
        sums.other_failed = sums
            .other_failed
            .saturating_add(missing)
            .saturating_add(whole);
        sums.skipped_claim = sums.skipped_claim.saturating_add(skipped_claim);
        sums.skipped_read = sums.skipped_read.saturating_add(skipped_read);

        self.keep_failed_points(&mut file, &entry);
        let problem_text = problems.join("\n");
        if missing > 0 {
            let planned = ran.saturating_add(missing);
            match &file.bail {
                Some(reason) => {
                    let message =
                        format!("bailed out with {missing} of {planned} planned tests not run");
                    self.keep(bail_case(&file, reason, message, &problem_text));
                }
                None => {
                    for number in (1..=missing).map(|k| ran.saturating_add(k)) {
                        if self.full() {
                            break;
                        }
                        let mut message =
                            format!("planned {planned} tests but test {number} never reported");
                        if number == ran.saturating_add(1) && !problem_text.is_empty() {
                            message.push('\n');
                            message.push_str(&problem_text);
                        }
                        let mut case =
                            TestCase::failed(format!("missing test {number}"), Some(message));
                        case.suite = Some(file.name.clone());
                        case.file = Some(file.name.clone());
                        if entry.signal.is_some() {
                            case.kind = Some(FailureKind::Crash);
                        }
                        self.keep(case);
                    }
                }
            }
        }
        if whole > 0 {
            let case = match &file.bail {
                Some(reason) => bail_case(&file, reason, "bailed out".to_owned(), &problem_text),
                None => {
                    let name = problems.first().map_or("failed", String::as_str);
                    let name = name.strip_prefix("Parse errors: ").unwrap_or(name);
                    let mut case = TestCase::failed(name, Some(problem_text));
                    case.suite = Some(file.name.clone());
                    case.file = Some(file.name.clone());
                    if entry.signal.is_some() {
                        case.kind = Some(FailureKind::Crash);
                    }
                    case
                }
            };
            self.keep(case);
        }
    }

    /// Name the failed test points: by the `-v` stream's descriptions when it showed them, by
    /// Test::More's diagnostics in order when they match the count, else by number.
    fn keep_failed_points(&mut self, file: &mut FileState, entry: &Entry) {
        let by_diag = file.failing.is_empty() && file.diags.len() as u64 == entry.failed;
        let mut by_number: HashMap<u64, usize> = HashMap::new();
        for (index, failing) in file.failing.iter().enumerate() {
            by_number.entry(failing.number).or_insert(index);
        }
        let mut named: u64 = 0;
        let listed = entry
            .listed
            .iter()
            .take(usize::try_from(entry.failed).unwrap_or(usize::MAX));
        for (k, &number) in listed.enumerate() {
            if self.full() {
                return;
            }
            named += 1;
            let found = by_number
                .get(&number)
                .copied()
                .and_then(|i| file.failing.get_mut(i))
                .filter(|f| !f.used);
            let case = match found {
                Some(failing) => {
                    failing.used = true;
                    failing_case(&file.name, failing)
                }
                None => match file.diags.get(k).filter(|_| by_diag) {
                    Some(diag) => {
                        let name = diag.name.clone().filter(|n| !n.is_empty());
                        detail_case(
                            &file.name,
                            name.unwrap_or_else(|| format!("test {number}")),
                            diag,
                        )
                    }
                    None => {
                        let beyond = entry.bad_plan.filter(|(planned, _)| number > *planned);
                        let message = beyond.map(|(planned, _)| {
                            format!("test {number} ran beyond the plan of {planned} tests")
                        });
                        let mut case = TestCase::failed(format!("test {number}"), message);
                        case.suite = Some(file.name.clone());
                        case.file = Some(file.name.clone());
                        case
                    }
                },
            };
            self.keep(case);
        }
        // A list cut short: the stream's failures not named yet.
        for failing in file.failing.iter_mut().filter(|f| !f.used) {
            if named >= entry.failed || self.full() {
                return;
            }
            named += 1;
            failing.used = true;
            let case = failing_case(&file.name, failing);
            self.keep(case);
        }
    }

    /// No room left for the failures of the file being settled.
    fn full(&self) -> bool {
        let late = if self.segment.late {
            self.segment.late_cases.len()
        } else {
            0
        };
        self.run.failures.len() + late >= MAX_KEPT_FAILURES
    }

    fn keep(&mut self, case: TestCase) {
        let kept = self.run.failures.len();
        if !self.segment.late {
            if kept < MAX_KEPT_FAILURES {
                self.run.failures.push(case);
            }
        } else if kept + self.segment.late_cases.len() < MAX_KEPT_FAILURES {
            self.segment.late_cases.push(case);
        }
    }
}

impl Default for ProveReader {
    fn default() -> Self {
        Self::new()
    }
}

fn detail_of(file: &mut FileState, target: Collecting) -> Option<&mut Detail> {
    match target {
        Collecting::Point(i) => file.failing.get_mut(i).map(|f| &mut f.detail),
        Collecting::Diag(i) => file.diags.get_mut(i),
        Collecting::Nothing | Collecting::Discard => None,
    }
}

/// What made prove fail a file besides its failed tests, as prove printed it.
fn problems(file: &FileState, entry: &Entry) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(exit) = &entry.exit {
        lines.push(format!("Non-zero exit status: {exit}"));
    }
    if let Some(wait) = &entry.wait {
        match &entry.signal {
            Some(signal) => lines.push(format!("Non-zero wait status: {wait} (Signal: {signal})")),
            None => lines.push(format!("Non-zero wait status: {wait}")),
        }
    }
    for error in &entry.parse_errors {
        lines.push(format!("Parse errors: {error}"));
    }
    if lines.is_empty() {
        // No report entry: the file's own result lines.
        if let Some(dubious) = &file.dubious {
            lines.push(dubious.clone());
        }
        if file.no_subtests {
            lines.push("No subtests run".to_owned());
        }
    }
    lines
}

fn failing_case(file: &str, failing: &Failing) -> TestCase {
    let name = if failing.description.is_empty() {
        format!("test {}", failing.number)
    } else {
        failing.description.clone()
    };
    detail_case(file, name, &failing.detail)
}

fn detail_case(file: &str, name: String, detail: &Detail) -> TestCase {
    let message = (!detail.message.is_empty()).then(|| detail.message.clone());
    let mut case = TestCase::failed(name, message);
    case.suite = Some(file.to_owned());
    case.file = Some(detail.file.clone().unwrap_or_else(|| file.to_owned()));
    case.line = detail.line;
    case
}

fn bail_case(file: &FileState, reason: &str, message: String, problems: &str) -> TestCase {
    let name = if reason.is_empty() {
        "Bail out!".to_owned()
    } else {
        truncate_utf8(&format!("Bail out! {reason}"), MAX_NAME_BYTES)
    };
    let message = if problems.is_empty() {
        message
    } else {
        format!("{message}\n{problems}")
    };
    let mut case = TestCase::failed(name, Some(message));
    if !file.name.is_empty() {
        case.suite = Some(file.name.clone());
        case.file = Some(file.name.clone());
    }
    case
}

/// Add a line to a message, up to [`MAX_MESSAGE_BYTES`].
fn append_line(message: &mut String, line: &str) {
    if message.len() >= MAX_MESSAGE_BYTES {
        return;
    }
    if !message.is_empty() {
        message.push('\n');
    }
    let room = MAX_MESSAGE_BYTES - message.len();
    message.push_str(&truncate_utf8(line, room));
}

fn add_listed(entry: &mut Entry, list: &str, listed: &mut usize, limit: usize) {
    for item in list.split(',') {
        let Some((first, last)) = parse_range(item.trim()) else {
            continue;
        };
        let mut number = first;
        while number <= last && *listed < limit {
            entry.listed.push(number);
            *listed += 1;
            number += 1;
        }
    }
}

fn count_list(list: &str) -> u64 {
    list.split(',')
        .filter_map(|item| parse_range(item.trim()))
        .fold(0u64, |n, (first, last)| {
            n.saturating_add((last - first).saturating_add(1))
        })
}

/// `7` or `2-4`; a range that runs backwards is none.
fn parse_range(item: &str) -> Option<(u64, u64)> {
    let (first, last) = item.split_once('-').unwrap_or((item, item));
    let first: u64 = first.parse().ok()?;
    let last: u64 = last.parse().ok()?;
    (first <= last && last < u64::MAX).then_some((first, last))
}

fn add_parse_error(entry: &mut Entry, error: &str) {
    if let Some(rest) = error.strip_prefix("Bad plan.")
        && let Some(rest) = rest.trim_start().strip_prefix("You planned ")
        && let Some((planned, rest)) = rest.split_once(" tests but ran ")
        && let (Ok(planned), Ok(ran)) = (
            planned.parse::<u64>(),
            rest.trim_end_matches('.').parse::<u64>(),
        )
    {
        entry.bad_plan = Some((planned, ran));
    }
    if entry.parse_errors.len() < MAX_PARSE_ERRORS {
        entry
            .parse_errors
            .push(truncate_utf8(error, MAX_NAME_BYTES));
    }
}

/// `Files=3, Tests=12,  0 wallclock secs (…)` → 12.
fn parse_files_line(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("Files=")?;
    let (files, rest) = rest.split_once(", Tests=")?;
    let (tests, rest) = rest.split_once(',')?;
    files.parse::<u64>().ok()?;
    rest.trim_start().contains("wallclock").then_some(())?;
    tests.parse().ok()
}

struct EntryHeader<'a> {
    name: &'a str,
    wstat: &'a str,
    tests: u64,
    failed: u64,
}

/// `t/a.t   (Wstat: 512 (exited 2) Tests: 7 Failed: 2)`.
fn parse_entry_header(text: &str) -> Option<EntryHeader<'_>> {
    let (name, tail) = text.rsplit_once(" (Wstat: ")?;
    let tail = tail.strip_suffix(')')?;
    let (rest, failed) = tail.rsplit_once(" Failed: ")?;
    let (wstat, tests) = rest.rsplit_once(" Tests: ")?;
    let name = name.trim_end();
    // A test point's description that looks like one is the test's, not prove's.
    let is_point = name.starts_with("ok ") || name.starts_with("not ok");
    (!name.is_empty() && !is_point).then_some(EntryHeader {
        name,
        wstat,
        tests: tests.parse().ok()?,
        failed: failed.parse().ok()?,
    })
}

/// `t/a.t ..... ` and the rest of the line: a file's name, its dots, then nothing, a progress
/// counter, or its result (`[12:00:00] ` first with `--timer`).
fn parse_header(text: &str) -> Option<(&str, &str)> {
    let text = strip_stamp(text);
    let at = text.find(" ..")?;
    let name = text.get(..at)?;
    let after = text.get(at + 1..)?;
    let dots = after.bytes().take_while(|&b| b == b'.').count();
    let rest = after.get(dots..)?;
    let rest = if rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(' ')?
    };
    // A test point whose description holds ` .. ` is not a file.
    let is_point = name.starts_with("ok ") || name.starts_with("not ok");
    let valid = rest.is_empty()
        || rest.starts_with(BAILOUT)
        || parse_outcome(strip_progress(rest)).is_some()
        || progress_len(rest) > 0;
    (!name.is_empty() && !name.starts_with(char::is_whitespace) && !is_point && valid)
        .then_some((name, rest))
}

/// `[12:00:00] ` from `--timer`.
fn strip_stamp(text: &str) -> &str {
    let bytes = text.as_bytes();
    let stamp = bytes.len() >= 10
        && bytes.first() == Some(&b'[')
        && bytes.get(9) == Some(&b']')
        && bytes
            .get(1..9)
            .is_some_and(|t| t.iter().all(|b| b.is_ascii_digit() || *b == b':'));
    if stamp {
        text.get(10..).map_or(text, str::trim_start)
    } else {
        text
    }
}

/// A terminal's progress counter, `3/7 ` or `1/? `: its length, 0 when there is none.
fn progress_len(rest: &str) -> usize {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Some(after) = rest.get(digits..).and_then(|r| r.strip_prefix('/')) else {
        return 0;
    };
    let total = match after.strip_prefix('?') {
        Some(_) => 1,
        None => after.bytes().take_while(u8::is_ascii_digit).count(),
    };
    if digits == 0 || total == 0 {
        return 0;
    }
    digits + 1 + total
}

fn strip_progress(rest: &str) -> &str {
    let len = progress_len(rest);
    rest.get(len..).unwrap_or_default().trim_start()
}

/// A file's result line (trailing spaces already trimmed).
fn parse_outcome(text: &str) -> Option<Outcome<'_>> {
    let text = text.trim();
    if text == "ok" || is_timed_ok(text) {
        return Some(Outcome::Ok);
    }
    if text.starts_with("skipped:") {
        return Some(Outcome::SkippedAll);
    }
    if text.starts_with("Dubious, test returned ") {
        return Some(Outcome::Dubious(text));
    }
    if text == "No subtests run" {
        return Some(Outcome::NoSubtests);
    }
    if text == "No tests run!" {
        return Some(Outcome::NoTestsRun);
    }
    if let Some(rest) = text.strip_prefix("Failed ")
        && let Some((failed, total)) = rest.split_once('/')
        && let Some(total) = total.strip_suffix(" subtests")
        && total.parse::<u64>().is_ok()
    {
        return failed.parse().ok().map(Outcome::Failed);
    }
    if let Some(rest) = text.strip_prefix("All ")
        && let Some(total) = rest.strip_suffix(" subtests passed")
        && total.parse::<u64>().is_ok()
    {
        return Some(Outcome::AllPassed);
    }
    if let Some(rest) = text.strip_prefix("(less ")
        && let Some((skipped, rest)) = rest.split_once(' ')
        && rest.starts_with("skipped subtest")
        && text.ends_with(" okay)")
    {
        return skipped.parse().ok().map(Outcome::LessSkipped);
    }
    if let Some(rest) = text.strip_prefix('(')
        && let Some((passed, rest)) = rest.split_once(' ')
        && rest.starts_with("TODO test")
        && rest.ends_with(" unexpectedly succeeded)")
    {
        return passed.parse().ok().map(Outcome::TodoPassed);
    }
    None
}

/// `ok        3 ms ( 0.00 usr …)` or `ok       <1 s`: a passing file under `--timer`.
fn is_timed_ok(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("ok ") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let (Some(amount), Some(unit)) = (words.next(), words.next()) else {
        return false;
    };
    let amount_ok = amount == "<1" || amount.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let rest: Vec<&str> = words.collect();
    amount_ok
        && (unit == "ms" || unit == "s")
        && (rest.is_empty() || rest.first().is_some_and(|w| w.starts_with('(')))
}

/// Whether a bare `ok` before this line was prove's result line: what follows a file's
/// section is another file, the summary or the bail-out.
fn ends_a_section(text: &str) -> bool {
    parse_header(text).is_some()
        || parse_files_line(text).is_some()
        || parse_entry_header(text).is_some()
        || text.starts_with(BAILOUT)
        || text == "Test Summary Report"
        || text == "All tests successful."
        || strip_stamp(text).is_empty()
}

/// `at t/a.t line 8.` → (`t/a.t`, 8).
fn parse_at(text: &str) -> Option<(&str, u32)> {
    let rest = text.strip_prefix("at ")?.strip_suffix('.')?;
    let (path, line) = rest.rsplit_once(" line ")?;
    let line = line.parse().ok().filter(|&n| n > 0)?;
    (!path.is_empty()).then_some((path, line))
}

fn unquote(value: &str) -> &str {
    for quote in ['\'', '"'] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

fn unescape(description: &str) -> String {
    description.replace("\\#", "#").replace("\\\\", "\\")
}

/// One top-level `ok`/`not ok` line, as TAP::Parser reads it.
struct Point<'a> {
    ok: bool,
    number: Option<u64>,
    description: &'a str,
    directive: Option<Directive>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Skip,
    Todo,
}

impl Point<'_> {
    /// Failed in prove's eyes: `not ok` without TODO (`not ok # SKIP` is a failure too).
    fn fails(&self) -> bool {
        !self.ok && self.directive != Some(Directive::Todo)
    }
}

/// TAP::Parser's grammar: `^(not )?ok\b \s* (\d+)? \s* (.*)`, the directive being `# SKIP` or
/// `# TODO` at the first unescaped `#` of the description.
fn parse_point(text: &str) -> Option<Point<'_>> {
    let (ok, rest) = match text.strip_prefix("not ok") {
        Some(rest) => (false, rest),
        None => (true, text.strip_prefix("ok")?),
    };
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let rest = rest.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number = rest.get(..digits).and_then(|d| d.parse().ok());
    let rest = rest.get(digits..).unwrap_or_default().trim_start();
    let (description, directive) = split_directive(rest);
    let description = description.trim();
    let description = description
        .strip_prefix('-')
        .map_or(description, str::trim_start);
    Some(Point {
        ok,
        number,
        description,
        directive,
    })
}

fn split_directive(rest: &str) -> (&str, Option<Directive>) {
    let bytes = rest.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'#' => {
                let after = rest.get(i + 1..).unwrap_or_default().trim_start();
                let word = after.get(..4).unwrap_or_default().to_ascii_lowercase();
                let boundary = !after
                    .as_bytes()
                    .get(4)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
                let directive = match word.as_str() {
                    "skip" if boundary => Some(Directive::Skip),
                    "todo" if boundary => Some(Directive::Todo),
                    _ => None,
                };
                return match directive {
                    Some(_) => (rest.get(..i).unwrap_or_default(), directive),
                    None => (rest, None),
                };
            }
            _ => i += 1,
        }
    }
    (rest, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::testkit::fixture;
    use crate::results::testkit::{
        assert_claims_hold, counts, fixture_text, read_output, read_text,
    };

    const HOSTILE: &str = "fifth | pipes | `tick` @someone <b>bold</b> ünïcödé";

    fn stdout_of(stem: &str) -> String {
        fixture_text(&format!("prove/{stem}.stdout.txt"))
    }

    /// A fixture as the runner reads a suite's output (both streams, every format), checked
    /// against the reader alone on its stdout.
    fn read(stem: &str) -> TestRun {
        let run = read_output("prove", stem).unwrap_or_else(|| panic!("{stem}: no run"));
        assert_eq!(run.format, ReportFormat::Prove, "{stem}");
        assert_eq!(run.framework, "prove", "{stem}");
        let (_, own) = read_text(ReportFormat::Prove, &stdout_of(stem));
        let own = own.unwrap_or_else(|| panic!("{stem}: the reader alone read nothing"));
        assert_eq!(counts(&own), counts(&run), "{stem}");
        assert_eq!(names(&own), names(&run), "{stem}");
        run
    }

    fn names(run: &TestRun) -> Vec<(&str, &str)> {
        run.failures
            .iter()
            .map(|c| (c.suite.as_deref().unwrap_or_default(), c.name.as_str()))
            .collect()
    }

    /// prove's own summary as the run carries it (from stdout, the only stream it prints to).
    fn claim(run: &TestRun) -> (u64, u64, u64) {
        let claims: Vec<_> = run
            .claims
            .iter()
            .filter(|c| c.format == ReportFormat::Prove)
            .collect();
        assert_eq!(claims.len(), 1, "{:?}", run.claims);
        let c = claims[0];
        assert!(c.origin.ends_with(".stdout.txt"), "{}", c.origin);
        (c.passed, c.failed, c.skipped)
    }

    #[test]
    fn all_tests_successful() {
        // prove: "All tests successful.", "Files=3, Tests=12", "Result: PASS". The subtest of
        // three is one test, as prove counts it.
        for stem in ["pass", "pass.v", "pass.color", "pass.v.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (12, 0, 0), "{stem}");
            assert_eq!(claim(&run), (12, 0, 0), "{stem}");
            assert!(run.failures.is_empty(), "{stem}");
        }
    }

    #[test]
    fn failed_tests_exit_statuses_and_ranges() {
        // prove: Files=5, Tests=27; math.t "Failed 2/7 subtests (less 1 skipped subtest: 4
        // okay)", "Failed tests: 3, 5"; nested.t "Failed test: 2"; ranges.t "Failed tests:
        // 2-4, 7, 11"; exit.t "All 3 subtests passed" with "Non-zero exit status: 1", one
        // failure. 8 failed tests + 1 file = 9 failed, 1 skipped, 27 - 8 - 1 = 18 passed.
        let by_number = [
            ("t/exit.t", "Non-zero exit status: 1"),
            ("t/math.t", "test 3"),
            ("t/math.t", "test 5"),
            ("t/nested.t", "test 2"),
            ("t/ranges.t", "test 2"),
            ("t/ranges.t", "test 3"),
            ("t/ranges.t", "test 4"),
            ("t/ranges.t", "test 7"),
            ("t/ranges.t", "test 11"),
        ];
        for stem in ["fail", "fail.color", "fail.timer", "fail.j2"] {
            let run = read(stem);
            assert_eq!(counts(&run), (18, 9, 1), "{stem}");
            assert_eq!(claim(&run), (18, 9, 1), "{stem}");
            assert_eq!(names(&run), by_number, "{stem}");
        }
        let exit = &read("fail").failures[0];
        assert_eq!(exit.message.as_deref(), Some("Non-zero exit status: 1"));
        assert_eq!(exit.file.as_deref(), Some("t/exit.t"));

        // -v: the stream names the failures; the skip is the same `# skip`.
        let described = [
            ("t/exit.t", "Non-zero exit status: 1"),
            ("t/math.t", "third fails"),
            ("t/math.t", HOSTILE),
            ("t/nested.t", "nested group"),
            ("t/ranges.t", "case 2"),
            ("t/ranges.t", "case 3"),
            ("t/ranges.t", "case 4"),
            ("t/ranges.t", "case 7"),
            ("t/ranges.t", "validates the manifest"),
        ];
        for stem in ["fail.v", "fail.v.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (18, 9, 1), "{stem}");
            assert_eq!(claim(&run), (18, 9, 1), "{stem}");
            assert_eq!(names(&run), described, "{stem}");
            // The failing subtest explains its parent.
            let nested = &run.failures[3];
            assert_eq!(nested.message.as_deref(), Some("not ok 2 - inner fails"));
            // The bash producer's YAML diagnostic.
            let manifest = &run.failures[8];
            assert_eq!(manifest.message.as_deref(), Some("expected exit 0, got 2"));
            assert_eq!(manifest.file.as_deref(), Some("scripts/deploy.sh"));
            assert_eq!(manifest.line, Some(42));
            assert_eq!(manifest.suite.as_deref(), Some("t/ranges.t"));
        }
    }

    #[test]
    fn test_more_diagnostics_in_the_stream_give_messages_and_lines() {
        // `-v --merge`, and a terminal (stderr on the same screen, without -v): Test::More's
        // `#   Failed test 'name'` / `#   at t/math.t line 10.` blocks.
        for stem in ["fail.merge", "fail.tty"] {
            let run = read(stem);
            assert_eq!(counts(&run), (18, 9, 1), "{stem}");
            assert_eq!(claim(&run), (18, 9, 1), "{stem}");
            let found: Vec<_> = run.failures[1..4]
                .iter()
                .map(|c| (c.name.as_str(), c.file.as_deref(), c.line))
                .collect();
            assert_eq!(
                found,
                [
                    ("third fails", Some("t/math.t"), Some(8)),
                    (HOSTILE, Some("t/math.t"), Some(10)),
                    ("nested group", Some("t/nested.t"), Some(11)),
                ],
                "{stem}"
            );
            assert_eq!(run.failures[1].message, None, "{stem}");
            assert_eq!(
                run.failures[2].message.as_deref(),
                Some("got: 'got'\nexpected: 'want'"),
                "{stem}"
            );
        }
        // Without -v the ranges file shows no names: by number.
        let tty = read("fail.tty");
        assert_eq!(tty.failures[4].name, "test 2");
        let merge = read("fail.merge");
        assert_eq!(
            merge.failures[3].message.as_deref(),
            Some("not ok 2 - inner fails")
        );
    }

    #[test]
    fn scripts_that_die_before_their_plan_is_done() {
        // prove: Files=3, Tests=8. died.t "Failed 2/5 subtests", "Non-zero exit status: 255",
        // "Bad plan.  You planned 5 tests but ran 3."; segv.t "Failed 3/5 subtests", "Failed
        // test: 2", "Non-zero wait status: 11" (SEGV), planned 5 ran 3. 1 failed test + 4
        // missing = 5 failed, 8 - 1 = 7 passed.
        for stem in ["died", "died.color", "died.v", "died.v.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (7, 5, 0), "{stem}");
            assert_eq!(claim(&run), (7, 5, 0), "{stem}");
            let second = if stem.contains(".v") {
                "second"
            } else {
                "test 2"
            };
            assert_eq!(
                names(&run),
                [
                    ("t/died.t", "missing test 4"),
                    ("t/died.t", "missing test 5"),
                    ("t/segv.t", second),
                    ("t/segv.t", "missing test 4"),
                    ("t/segv.t", "missing test 5"),
                ],
                "{stem}"
            );
            assert_eq!(
                run.failures[0].message.as_deref(),
                Some(
                    "planned 5 tests but test 4 never reported\nNon-zero exit status: 255\nParse errors: Bad plan.  You planned 5 tests but ran 3."
                ),
                "{stem}"
            );
            assert_eq!(
                run.failures[1].message.as_deref(),
                Some("planned 5 tests but test 5 never reported")
            );
            let signal = &run.failures[3];
            assert_eq!(signal.kind, Some(FailureKind::Crash));
            assert!(
                signal
                    .message
                    .as_deref()
                    .is_some_and(|m| m.contains("Non-zero wait status: 11 (Signal: SEGV)")),
                "{signal:?}"
            );
        }
    }

    #[test]
    fn a_bail_out_stands_for_the_tests_it_left() {
        // prove: "Bailout called.  Further testing stopped:  database unreachable", Files=2
        // (3-never.t never ran), Tests=4; 2-db.t "Failed 3/4 subtests", "Failed test: 2",
        // planned 4 ran 2. 1 failed + 2 not run = 3 failed, 4 - 1 = 3 passed. A pipe prints the
        // bail-out before the file's name, a terminal after it.
        for stem in ["bail", "bail.color", "bail.v", "bail.v.color", "bail.tty"] {
            let run = read(stem);
            assert_eq!(counts(&run), (3, 3, 0), "{stem}");
            assert_eq!(claim(&run), (3, 3, 0), "{stem}");
            let migrates = if stem == "bail" || stem == "bail.color" {
                "test 2"
            } else {
                "migrates"
            };
            assert_eq!(
                names(&run),
                [
                    ("t/2-db.t", migrates),
                    ("t/2-db.t", "Bail out! database unreachable")
                ],
                "{stem}"
            );
            assert_eq!(
                run.failures[1].message.as_deref(),
                Some(
                    "bailed out with 2 of 4 planned tests not run\nNon-zero exit status: 255\nParse errors: Bad plan.  You planned 4 tests but ran 2."
                ),
                "{stem}"
            );
        }
        assert_eq!(read("bail.tty").failures[0].line, Some(7));
    }

    #[test]
    fn skips_and_todo_tests() {
        // prove: "All tests successful.", Files=4, Tests=16, "TODO passed: 3" for todo.t,
        // "Result: PASS"; skipall.t is "skipped: no database" and holds no test. Without -v
        // only the TODO that passed is known: 1 skipped. With -v every `# SKIP` (4) and
        // `# TODO` (4) shows: 8 skipped. prove's summary, the claim, says 1 either way.
        for stem in ["skip-todo", "skip-todo.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (15, 0, 1), "{stem}");
            assert_eq!(claim(&run), (15, 0, 1), "{stem}");
            assert!(run.failures.is_empty(), "{stem}");
        }
        for stem in ["skip-todo.v", "skip-todo.v.color", "skip-todo.v.tty"] {
            let run = read(stem);
            assert_eq!(counts(&run), (8, 0, 8), "{stem}");
            assert_eq!(claim(&run), (15, 0, 1), "{stem}");
            assert!(run.failures.is_empty(), "{stem}");
        }
    }

    #[test]
    fn no_plan_extra_tests_and_tests_out_of_order() {
        // prove: Files=5, Tests=11. empty.t and noplan.t "No plan found in TAP output";
        // order.t "Tests out of sequence" (yet "All 3 subtests passed"); extra.t ran 3 of 2
        // planned, "Failed test: 3". 1 failed test + 3 files = 4 failed, 11 - 1 = 10 passed.
        let expected = [
            ("t/empty.t", "No plan found in TAP output"),
            ("t/extra.t", "test 3"),
            ("t/noplan.t", "No plan found in TAP output"),
            (
                "t/order.t",
                "Tests out of sequence.  Found (3) but expected (2)",
            ),
        ];
        for stem in ["noplan", "noplan.color", "noplan.v", "noplan.v.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (10, 4, 0), "{stem}");
            assert_eq!(claim(&run), (10, 4, 0), "{stem}");
            assert_eq!(names(&run), expected, "{stem}");
            assert_eq!(
                run.failures[1].message.as_deref(),
                Some("test 3 ran beyond the plan of 2 tests")
            );
            assert_eq!(
                run.failures[3].message.as_deref(),
                Some(
                    "Parse errors: Tests out of sequence.  Found (3) but expected (2)\nParse errors: Tests out of sequence.  Found (2) but expected (3)"
                )
            );
        }
    }

    #[test]
    fn many_tests_and_a_list_over_three_lines() {
        // prove: Files=2, Tests=333; many.t "Failed 27/330 subtests (less 6 skipped subtests:
        // 297 okay)", its Failed tests list wraps over three lines.
        for stem in ["many", "many.color", "many.v", "many.v.color"] {
            let run = read(stem);
            assert_eq!(counts(&run), (300, 27, 6), "{stem}");
            assert_eq!(claim(&run), (300, 27, 6), "{stem}");
            assert_eq!(run.failures.len(), 27, "{stem}");
            let word = if stem.contains(".v") { "case" } else { "test" };
            let mut numbers: Vec<u64> = (101..=109).collect();
            numbers.extend((1..=19).map(|k| k * 17).filter(|n| *n != 102));
            numbers.sort_unstable();
            let expected: Vec<String> = numbers.iter().map(|n| format!("{word} {n}")).collect();
            let found: Vec<&str> = run.failures.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(found, expected, "{stem}");
        }
    }

    #[test]
    fn no_tests_at_all() {
        // prove: "Files=0, Tests=0", "Result: NOTESTS".
        let run = read("empty");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(claim(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
    }

    #[test]
    fn prove_over_the_tap_fixtures() {
        // tap/generate.sh saved prove's verdict on each bash stream (`prove -v --exec cat`).
        let tap = |rel: &str| {
            // prove wrote the stream's UTF-8 back as Latin-1.
            let bytes = std::fs::read(fixture(rel)).expect("fixture");
            let (claim, run) = read_text(ReportFormat::Prove, &String::from_utf8_lossy(&bytes));
            let claim = claim.expect("a claim");
            let run = run.expect("a run");
            (
                (claim.passed, claim.failed, claim.skipped),
                counts(&run),
                run.failures
                    .iter()
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>(),
            )
        };
        // "Tests: 7 Failed: 2", "Failed tests: 5, 7", "(less 1 skipped subtest: 4 okay)": the
        // stream also shows the TODO, skipped here as the TAP reader skips it (3 / 2 / 2).
        let (claim, run, names) = tap("tap/bash-full.prove.txt");
        assert_eq!((claim, run), ((4, 2, 1), (3, 2, 2)));
        assert_eq!(names[1], "dependency available");
        // "Failed 3/5 subtests": as the TAP reader reads the stream.
        let (claim, run, names) = tap("tap/bash-died.prove.txt");
        assert_eq!((claim, run), ((2, 3, 0), (2, 3, 0)));
        assert_eq!(names, ["second", "missing test 4", "missing test 5"]);
        // prove reads on past the bail-out: "Tests: 3", "Failed 2/4 subtests" (the TAP reader
        // stops at it, 1 / 3 / 0).
        let (claim, run, names) = tap("tap/bash-bail.prove.txt");
        assert_eq!((claim, run), ((2, 2, 0), (2, 2, 0)));
        assert_eq!(names, ["migrates", "Bail out! database unreachable"]);
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for stem in [
            "fail",
            "fail.v",
            "fail.merge",
            "fail.tty",
            "died",
            "died.v",
            "bail",
            "bail.tty",
            "noplan",
            "noplan.v",
            "many.v",
            "skip-todo.v",
        ] {
            assert_claims_hold(ReportFormat::Prove, &stdout_of(stem), 500);
        }
    }

    #[test]
    fn two_runs_add_up() {
        let text = format!("{}{}", stdout_of("pass"), stdout_of("fail.v"));
        let (claim, run) = read_text(ReportFormat::Prove, &text);
        let claim = claim.expect("claim");
        assert_eq!((claim.passed, claim.failed, claim.skipped), (30, 9, 1));
        let run = run.expect("run");
        assert_eq!(counts(&run), (30, 9, 1));
        assert_eq!(run.failures.len(), 9);
    }

    #[test]
    fn other_formats_are_not_claimed() {
        let mut checked = 0;
        for (dir, ext) in [("tap", ".tap"), ("pytest", ".txt"), ("node-spec", ".txt")] {
            let entries = std::fs::read_dir(fixture(dir)).expect("fixtures");
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !name.ends_with(ext) {
                    continue;
                }
                let text = std::fs::read_to_string(entry.path()).expect("fixture");
                let (claim, run) = read_text(ReportFormat::Prove, &text);
                assert_eq!(claim, None, "{dir}/{name}");
                assert_eq!(run, None, "{dir}/{name}");
                checked += 1;
            }
        }
        assert!(checked >= 10, "{checked}");
        for text in [
            "",
            "All tests successful.\n",
            "Result: PASS\n",
            "t/a.t .. ok\nt/b.t .. ok\n",
            "  ✓ a\n  ✗ b\nAll tests successful.\n",
            "1..2\nok 1\nnot ok 2\n",
            "Files=3 Tests=12\n",
        ] {
            let (claim, run) = read_text(ReportFormat::Prove, text);
            assert_eq!((claim, run), (None, None), "{text:?}");
        }
    }

    #[test]
    fn a_report_cut_before_its_closing_line_is_read_without_a_claim() {
        let text = "\
t/a.t .. 
Failed 1/2 subtests 

Test Summary Report
-------------------
t/a.t (Wstat: 0 Tests: 2 Failed: 1)
  Failed test:  2
";
        let (claim, run) = read_text(ReportFormat::Prove, text);
        assert_eq!(claim, None);
        let run = run.expect("prove's report");
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(names(&run), [("t/a.t", "test 2")]);
        // A file whose section was never seen, a bail-out with no file to tie it to.
        let text = "\
Bailout called.  Further testing stopped:  no disk
t/b.t (Wstat: 256 (exited 1) Tests: 0 Failed: 0)
  Non-zero exit status: 1
  Parse errors: No plan found in TAP output
Files=1, Tests=0,  0 wallclock secs ( 0.00 usr +  0.00 sys =  0.00 CPU)
Result: FAIL
";
        let (claim, run) = read_text(ReportFormat::Prove, text);
        let run = run.expect("run");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(claim.map(|c| c.failed), Some(1));
        assert_eq!(names(&run), [("t/b.t", "Bail out! no disk")]);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("bailed out\nNon-zero exit status: 1\nParse errors: No plan found in TAP output")
        );
    }

    #[test]
    fn directives_as_prove_reads_them() {
        // Real `prove -v` output: test 1's first `#` is no directive, `# skipped` is none,
        // `not ok # SKIP` is a failure that prove also counts among the skipped.
        let text = "\
t/a.t .. 
1..4
not ok 1 - fixes #12 # TODO later
ok 2 - a # skipped
not ok 3 # SKIP no
ok 4 - b # SKIP: yes
Failed 2/4 subtests 
\t(less 2 skipped subtests: 0 okay)

Test Summary Report
-------------------
t/a.t (Wstat: 0 Tests: 4 Failed: 2)
  Failed tests:  1, 3
Files=1, Tests=4,  0 wallclock secs ( 0.01 usr +  0.00 sys =  0.01 CPU)
Result: FAIL
";
        let (claim, run) = read_text(ReportFormat::Prove, text);
        let claim = claim.expect("claim");
        assert_eq!((claim.passed, claim.failed, claim.skipped), (0, 2, 2));
        let run = run.expect("run");
        assert_eq!(counts(&run), (1, 2, 1));
        assert_eq!(
            names(&run),
            [("t/a.t", "fixes #12 # TODO later"), ("t/a.t", "test 3")]
        );
    }

    #[test]
    fn test_points_as_tap_parser_reads_them() {
        let point = |text| parse_point(text).map(|p| (p.ok, p.number, p.description, p.directive));
        assert_eq!(point("ok 1 - a"), Some((true, Some(1), "a", None)));
        assert_eq!(point("ok"), Some((true, None, "", None)));
        assert_eq!(point("okay"), None);
        assert_eq!(point("ok_1"), None);
        assert_eq!(
            point("ok 2 - up # SKIP no net"),
            Some((true, Some(2), "up", Some(Directive::Skip)))
        );
        assert_eq!(
            point("ok 3 # skip: lower"),
            Some((true, Some(3), "", Some(Directive::Skip)))
        );
        // `\b` after the word: `# skipped` is no directive to prove.
        assert_eq!(
            point("ok 4 - a # skipped"),
            Some((true, Some(4), "a # skipped", None))
        );
        // Only the first unescaped `#` may start the directive.
        assert_eq!(
            point("not ok 5 - fixes #12 # TODO later"),
            Some((false, Some(5), "fixes #12 # TODO later", None))
        );
        assert_eq!(
            point("ok 6 - a \\# SKIP b # TODO c"),
            Some((true, Some(6), "a \\# SKIP b", Some(Directive::Todo)))
        );
        assert_eq!(point("ok 7 # é"), Some((true, Some(7), "# é", None)));
        assert_eq!(point("ok 8 # sk"), Some((true, Some(8), "# sk", None)));
        // `not ok # SKIP` is a failure to prove; `not ok # TODO` is not.
        assert!(parse_point("not ok 9 # SKIP").is_some_and(|p| p.fails()));
        assert!(parse_point("not ok 9 # TODO").is_some_and(|p| !p.fails()));
    }

    #[test]
    fn prove_lines() {
        assert_eq!(parse_header("t/a.t ..... "), Some(("t/a.t", "")));
        assert_eq!(parse_header("t/a.t .. ok"), Some(("t/a.t", "ok")));
        assert_eq!(parse_header("ok.t .. ok"), Some(("ok.t", "ok")));
        assert_eq!(
            parse_header("[10:41:35] t/my file.t .... skipped: no db"),
            Some(("t/my file.t", "skipped: no db"))
        );
        assert_eq!(
            parse_header("t/b.t .. 1/5 oops: segfault"),
            Some(("t/b.t", "1/5 oops: segfault"))
        );
        assert_eq!(parse_header("t/b.t .. 3/? "), Some(("t/b.t", "3/? ")));
        assert_eq!(parse_header("Building .. done"), None);
        assert_eq!(parse_header("ok 1 - loading .. "), None);
        assert_eq!(parse_header(" .. ok"), None);
        assert_eq!(parse_header("t/a.t ..ok"), None);
        assert_eq!(
            parse_outcome("Failed 2/7 subtests"),
            Some(Outcome::Failed(2))
        );
        assert_eq!(
            parse_outcome("All 3 subtests passed"),
            Some(Outcome::AllPassed)
        );
        assert_eq!(
            parse_outcome("\t(less 6 skipped subtests: 297 okay)"),
            Some(Outcome::LessSkipped(6))
        );
        assert_eq!(
            parse_outcome("\t(1 TODO test unexpectedly succeeded)"),
            Some(Outcome::TodoPassed(1))
        );
        assert_eq!(
            parse_outcome(
                "ok        3 ms ( 0.00 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.00 CPU)"
            ),
            Some(Outcome::Ok)
        );
        assert_eq!(parse_outcome("ok       <1 s"), Some(Outcome::Ok));
        assert_eq!(parse_outcome("ok 3 - three"), None);
        assert_eq!(parse_outcome("Failed 2/x subtests"), None);
        assert_eq!(
            parse_files_line(
                "Files=5, Tests=27,  0 wallclock secs ( 0.02 usr  0.00 sys +  0.06 cusr  0.01 csys =  0.09 CPU)"
            ),
            Some(27)
        );
        assert_eq!(parse_files_line("Files=5, Tests=27, 3 failed"), None);
        let header = parse_entry_header("u/sig.t  (Wstat: 11 (Signal: SEGV) Tests: 1 Failed: 0)")
            .expect("an entry");
        assert_eq!(
            (header.name, header.wstat, header.tests, header.failed),
            ("u/sig.t", "11 (Signal: SEGV)", 1, 0)
        );
        assert!(parse_entry_header("(Wstat: 0 Tests: 1 Failed: 0)").is_none());
        assert!(parse_entry_header("not ok 1 - x (Wstat: 0 Tests: 1 Failed: 9)").is_none());
        assert!(parse_entry_header("t/a.t (Wstat: 0 Tests: x Failed: 0)").is_none());
        assert_eq!(count_list("2-4, 7, 11"), 5);
        assert_eq!(count_list("4-2, x, 3"), 1);
        assert_eq!(parse_at("at t/a.t line 8."), Some(("t/a.t", 8)));
        assert_eq!(parse_at("at t/a.t line 0."), None);
    }

    #[test]
    fn limits_hold() {
        // More failures than are kept, a hostile range, more files than are followed.
        let mut text = String::new();
        for i in 0..MAX_FILES + 10 {
            text.push_str(&format!(
                "t/{i}.t .. \n1..2\nnot ok 1 - {}\nok 2\nFailed 1/2 subtests \n",
                "é".repeat(300)
            ));
        }
        text.push_str("\nTest Summary Report\n-------------------\n");
        for i in 0..MAX_FILES + 10 {
            text.push_str(&format!(
                "t/{i}.t (Wstat: 0 Tests: 2 Failed: 1)\n  Failed test:  1\n"
            ));
        }
        text.push_str(
            "t/x.t (Wstat: 0 Tests: 18446744073709551615 Failed: 18446744073709551615)\n",
        );
        text.push_str("  Failed tests:  1-18446744073709551614\n");
        text.push_str("  TODO passed:   1-18446744073709551614, 1-18446744073709551614\n");
        text.push_str(
            "  Parse errors: Bad plan.  You planned 18446744073709551615 tests but ran 0.\n",
        );
        text.push_str("Files=9999, Tests=18446744073709551615,  0 wallclock secs\n");
        let (claim, run) = read_text(ReportFormat::Prove, &text);
        let run = run.expect("run");
        let claim = claim.expect("claim");
        assert_eq!(run.failed, u64::MAX);
        assert_eq!(claim.failed, u64::MAX);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        assert!(run.failures.iter().all(|c| c.name.len() <= MAX_NAME_BYTES));
        assert_eq!(run.failures[0].suite.as_deref(), Some("t/0.t"));

        // Long diagnostics are cut; deep subtests and noise do not break anything.
        let mut text = String::from("t/a.t .. \n1..1\nnot ok 1 - a\n");
        for _ in 0..10_000 {
            text.push_str("#   got: ");
            text.push_str(&"x".repeat(100));
            text.push('\n');
        }
        for depth in 0..500 {
            text.push_str(&format!("{}not ok 1 - deep\n", " ".repeat(depth * 4)));
        }
        text.push_str("Failed 1/1 subtests \nt/a.t (Wstat: 0 Tests: 1 Failed: 1)\n  Failed test:  1\nFiles=1, Tests=1,  0 wallclock secs\n");
        let (_, run) = read_text(ReportFormat::Prove, &text);
        let run = run.expect("run");
        assert_eq!(counts(&run), (0, 1, 0));
        let message = run.failures[0].message.as_deref().unwrap_or_default();
        assert!(message.len() <= MAX_MESSAGE_BYTES, "{}", message.len());
    }
}
