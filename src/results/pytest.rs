//! pytest's terminal output (`-v`, `-rA`, `-q` or plain, any `--tb` style): the closing line
//! gives the counts; per-test lines, the ERRORS/FAILURES sections and the short summary name the
//! failures.

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// A closing line claiming more than this many of anything is not pytest's (no suite runs four
/// billion tests): refusing it keeps every sum of counts far from overflowing.
const MAX_COUNT: u64 = u32::MAX as u64;

/// Of a failure's traceback, the locations kept to find the test file's line among them: the
/// test's own frame comes first in pytest's tracebacks, so the first few and the last suffice.
const MAX_LOCATIONS: usize = 16;

/// pytest's terminal output, read line by line among other output.
///
/// Counting rules (the closing line's counts are authoritative; the rest only names failures):
/// - `failed` and `error`/`errors` count as failed: a fixture that fails in setup or teardown,
///   or a module that cannot be collected, fails the run as surely as an assertion. A test that
///   passes and then errors in teardown counts twice, as pytest counts it.
/// - `xfailed` counts as skipped (the expected failure shows nothing working); `xpassed` as
///   passed (a strict xfail that passes is reported as `failed` by pytest itself).
/// - `rerun` (pytest-rerunfailures) counts attempts, not tests: a test rerun until it passed is
///   one pass (and flaky, when `-v` names it), one that never passed is one failure.
///   `deselected` tests did not run and `warnings` are not tests: neither is counted.
/// - Several sessions in one stream (a script that runs pytest twice) add up.
/// - A session cut short (killed on a timeout) has no closing line: when its header and results
///   were seen, its `-v` lines or progress characters are counted by the same rules.
/// - The text is pytest's when it holds a closing line (`=== 1 failed, 2 passed in 0.12s ===`,
///   the bare form `-q` prints, or `no tests ran in 0.01s`), or a session header and results.
pub(crate) struct PytestReader {
    run: TestRun,
    /// Sessions counted into `run`.
    sessions: u64,
    session: Session,
    /// The closing lines' counts, added up: what pytest itself said.
    claim: Option<Claim>,
}

#[derive(Default)]
struct Session {
    /// `=== test session starts ===` was seen.
    header: bool,
    section: Section,
    /// What `-v` lines and progress characters said, for a session without a closing line.
    tally: Tally,
    /// Failed and errored tests in the order first seen; at most the room left in `run`.
    entries: Vec<Entry>,
    block: Option<Block>,
    /// The last closing line read inside captured output, while nothing else followed it.
    closing_after_output: Option<Closing>,
    /// Node ids of `-v`'s `RERUN` lines, until the test's final outcome.
    reruns: Vec<String>,
    /// Tests rerun until they passed.
    flaky: Vec<String>,
}

/// Where in pytest's output a line is.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// Before the first `=== … ===` section: the header, `-v` lines, progress characters.
    #[default]
    Run,
    Errors,
    Failures,
    /// `-rP`/`-rA`: passed tests' captured output.
    Passes,
    Summary,
    /// Warnings, durations, coverage and whatever plugins add.
    Other,
}

#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    skipped: u64,
}

/// One failed (`error == false`) or errored test, pieced together from its `-v` line, its
/// ERRORS/FAILURES block and its short summary line, whichever were printed.
struct Entry {
    /// `path::Class::test[param]`, from a `-v` or short summary line.
    nodeid: Option<String>,
    /// The block title pytest derives from the node id: `Class.test[param]`, or the module path
    /// for a collection error.
    head: String,
    error: bool,
    /// A block was matched to this entry already.
    detailed: bool,
    /// From the block's `E` lines.
    message: Option<String>,
    /// From the short summary line (cut to the terminal width by pytest).
    summary: Option<String>,
    locations: Vec<Location>,
    last_location: Option<Location>,
}

struct Location {
    path: String,
    line: u32,
}

/// A `____ title ____` block of the ERRORS, FAILURES or PASSES section being read.
struct Block {
    /// The entry it details; `None` when not kept (no room, or a passed test).
    entry: Option<usize>,
    /// Past a `--- Captured stdout call ---` line: the test's own output, never ours to read.
    captured: bool,
    /// The last group of consecutive `E` lines, without the `E`: the exception as raised.
    e_lines: Vec<String>,
    e_bytes: usize,
    in_e_group: bool,
    locations: Vec<Location>,
    last_location: Option<Location>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Passed,
    Failed,
    Error,
    Skipped,
    Rerun,
}

/// The counts of a closing line, by our rules.
#[derive(Default)]
struct Closing {
    passed: u64,
    failed: u64,
    skipped: u64,
    /// `None` for a session cut short.
    duration_ms: Option<u64>,
}

impl LineReader for PytestReader {
    fn feed(&mut self, line: &str) {
        PytestReader::feed(self, line);
    }

    fn claim(&self) -> Option<Claim> {
        self.claim.clone()
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        PytestReader::finish(*self)
    }
}

impl PytestReader {
    pub(crate) fn new() -> Self {
        let mut run = TestRun::new(ReportFormat::Pytest);
        run.framework = "pytest".to_owned();
        Self {
            run,
            sessions: 0,
            session: Session::default(),
            claim: None,
        }
    }

    /// Feed one line, without its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        let line = line.trim_end();
        // A test's captured output may hold a whole inner pytest run (pytester): its session
        // header is not ours, and a closing line there is ours only if nothing follows it (the
        // outer run's own closing line, after captured output, when no summary is printed).
        let captured = self.session.block.as_ref().is_some_and(|b| b.captured);
        if captured && !line.is_empty() {
            self.session.closing_after_output = None;
        }
        if let Some(closing) = self.parse_closing(line) {
            if captured {
                self.session.closing_after_output = Some(closing);
            } else {
                self.close(closing);
            }
            return;
        }
        if let Some(title) = strip_bars(line, b'=') {
            self.enter_section(title, captured);
            return;
        }
        match self.session.section {
            Section::Run => self.run_line(line),
            Section::Errors | Section::Failures | Section::Passes => self.detail_line(line),
            Section::Summary => self.summary_line(line.trim_start()),
            Section::Other => {}
        }
    }

    /// The run, or `None` when what was fed is not pytest's output.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        self.close_cut_short();
        (self.sessions > 0).then_some(self.run)
    }

    /// A closing line, barred or (as `-q` prints it) bare, from the first column as pytest
    /// prints it. The bare form is only taken where pytest prints it, not inside blocks.
    fn parse_closing(&self, line: &str) -> Option<Closing> {
        match strip_bars(line, b'=') {
            Some(inner) => parse_closing(inner),
            None if !matches!(
                self.session.section,
                Section::Errors | Section::Failures | Section::Passes
            ) =>
            {
                parse_closing(line)
            }
            None => None,
        }
    }

    fn enter_section(&mut self, title: &str, captured: bool) {
        self.session.closing_after_output = None;
        if title == "test session starts" {
            if !captured {
                self.end_block();
                self.close_cut_short();
                self.session = Session {
                    header: true,
                    ..Session::default()
                };
            }
            return;
        }
        self.end_block();
        self.session.section = match title {
            "ERRORS" => Section::Errors,
            "FAILURES" => Section::Failures,
            "PASSES" => Section::Passes,
            "short test summary info" => Section::Summary,
            _ => Section::Other,
        };
    }

    /// Count the session in progress: by a closing line that ended captured output, else from
    /// its tally when it has a header and results but no closing line (the run was killed, or
    /// the output cut).
    fn close_cut_short(&mut self) {
        if let Some(closing) = self.session.closing_after_output.take() {
            self.close(closing);
            return;
        }
        let session = &self.session;
        let tally = &session.tally;
        let results = tally.passed > 0
            || tally.failed > 0
            || tally.skipped > 0
            || !session.entries.is_empty();
        if session.header && results {
            let closing = Closing {
                passed: tally.passed,
                failed: tally.failed.max(session.entries.len() as u64),
                skipped: tally.skipped,
                duration_ms: None,
            };
            self.close(closing);
        }
    }

    fn close(&mut self, closing: Closing) {
        self.end_block();
        let session = std::mem::take(&mut self.session);
        let add = |total: u64, n: u64| total.saturating_add(n).min(MAX_COUNT);
        let claim = self
            .claim
            .get_or_insert_with(|| Claim::new(ReportFormat::Pytest, 0, 0, 0));
        claim.passed = add(claim.passed, closing.passed);
        claim.failed = add(claim.failed, closing.failed);
        claim.skipped = add(claim.skipped, closing.skipped);
        self.run.passed = add(self.run.passed, closing.passed);
        self.run.failed = add(self.run.failed, closing.failed);
        self.run.skipped = add(self.run.skipped, closing.skipped);
        if let Some(ms) = closing.duration_ms {
            self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(ms));
        }
        // Never more details than failures counted (the entries are kept to the room left).
        let kept = usize::try_from(closing.failed).unwrap_or(usize::MAX);
        self.run
            .failures
            .extend(session.entries.into_iter().take(kept).map(Entry::into_case));
        let room = MAX_KEPT_FAILURES.saturating_sub(self.run.flaky.len());
        self.run.flaky.extend(session.flaky.into_iter().take(room));
        self.sessions += 1;
    }

    fn run_line(&mut self, line: &str) {
        if let Some((nodeid, status)) = parse_verbose(line) {
            let tally = &mut self.session.tally;
            match status {
                Status::Passed => tally.passed += 1,
                Status::Failed | Status::Error => tally.failed += 1,
                Status::Skipped => tally.skipped += 1,
                Status::Rerun => {}
            }
            self.note_rerun(nodeid, status);
            let error = status == Status::Error;
            if matches!(status, Status::Failed | Status::Error)
                && self.find_nodeid(nodeid, error).is_none()
            {
                self.add_entry(Some(nodeid), head_of(nodeid), error);
            }
        } else if let Some(chars) = parse_progress(line) {
            let tally = &mut self.session.tally;
            for c in chars.bytes() {
                match c {
                    b'.' | b'X' => tally.passed += 1,
                    b'F' | b'E' => tally.failed += 1,
                    b's' | b'x' => tally.skipped += 1,
                    _ => {}
                }
            }
        }
    }

    /// A test with `RERUN` lines that then `PASSED` is flaky.
    fn note_rerun(&mut self, nodeid: &str, status: Status) {
        let session = &mut self.session;
        let earlier = session.reruns.iter().position(|id| id == nodeid);
        match (status, earlier) {
            (Status::Rerun, None) if session.reruns.len() < MAX_KEPT_FAILURES => {
                session.reruns.push(nodeid.to_owned());
            }
            (Status::Passed, Some(i)) => {
                session.reruns.swap_remove(i);
                if session.flaky.len() < MAX_KEPT_FAILURES {
                    session.flaky.push(truncate_name(&split_nodeid(nodeid).2));
                }
            }
            (Status::Failed | Status::Error | Status::Skipped, Some(i)) => {
                session.reruns.swap_remove(i);
            }
            _ => {}
        }
    }

    fn detail_line(&mut self, line: &str) {
        if let Some(title) = strip_bars(line, b'_') {
            // `_ _ _ _` separates the entries of one traceback.
            if !title.bytes().all(|b| b == b'_' || b == b' ') {
                self.start_block(title);
                return;
            }
        }
        let Some(block) = &mut self.session.block else {
            return;
        };
        if block.captured {
            return;
        }
        if strip_bars(line, b'-').is_some_and(|t| t.starts_with("Captured ")) {
            block.captured = true;
            return;
        }
        if let Some(text) = e_line(line) {
            block.push_e_line(text);
        } else {
            block.in_e_group = false;
            if let Some((path, number)) = parse_location(line) {
                block.add_location(path, number);
            }
        }
    }

    fn start_block(&mut self, title: &str) {
        self.end_block();
        self.session.closing_after_output = None;
        let entry = match self.session.section {
            Section::Errors => {
                let head = title
                    .strip_prefix("ERROR at ")
                    .and_then(|t| t.split_once(" of "))
                    .map(|(_, head)| head)
                    .or_else(|| title.strip_prefix("ERROR collecting "))
                    .unwrap_or(title);
                self.entry_for_block(head, true)
            }
            Section::Failures => self.entry_for_block(title, false),
            _ => None,
        };
        self.session.block = Some(Block::new(entry));
    }

    fn end_block(&mut self) {
        let Some(block) = self.session.block.take() else {
            return;
        };
        let Some(entry) = block.entry.and_then(|i| self.session.entries.get_mut(i)) else {
            return;
        };
        entry.detailed = true;
        entry.message = e_message(&block.e_lines);
        entry.locations = block.locations;
        entry.last_location = block.last_location;
    }

    /// `FAILED path::test - message` / `ERROR path::test - message`.
    fn summary_line(&mut self, line: &str) {
        let (error, rest) = if let Some(rest) = line.strip_prefix("FAILED ") {
            (false, rest)
        } else if let Some(rest) = line.strip_prefix("ERROR ") {
            (true, rest)
        } else {
            return;
        };
        // A node id seen on a `-v` line is known exactly; otherwise the split is a guess
        // (parametrize ids may hold ` - ` themselves).
        let known = self.session.entries.iter().enumerate().find_map(|(i, e)| {
            let id = e.nodeid.as_deref().filter(|_| e.error == error)?;
            let after = rest.strip_prefix(id)?;
            if after.is_empty() {
                Some((i, None))
            } else {
                after.strip_prefix(" - ").map(|message| (i, Some(message)))
            }
        });
        let (index, message) = match known {
            Some(found) => (Some(found.0), found.1),
            None => {
                let (nodeid, message) = split_summary(rest);
                let head = head_of(nodeid);
                let by_head = self
                    .session
                    .entries
                    .iter()
                    .position(|e| e.error == error && e.nodeid.is_none() && e.head == head);
                let index = match by_head {
                    Some(i) => {
                        if let Some(entry) = self.session.entries.get_mut(i) {
                            entry.nodeid = Some(truncate_name(nodeid));
                        }
                        Some(i)
                    }
                    None => self.add_entry(Some(nodeid), head, error),
                };
                (index, message)
            }
        };
        let message = message.map(str::trim).filter(|m| !m.is_empty());
        if let (Some(entry), Some(message)) =
            (index.and_then(|i| self.session.entries.get_mut(i)), message)
        {
            entry.summary = Some(truncate_utf8(message, MAX_MESSAGE_BYTES));
        }
    }

    fn find_nodeid(&self, nodeid: &str, error: bool) -> Option<usize> {
        self.session
            .entries
            .iter()
            .position(|e| e.error == error && e.nodeid.as_deref() == Some(nodeid))
    }

    /// The entry a block titled `head` details: the first not yet detailed with that head, or a
    /// new one (plain output names failures only in their blocks and the summary after them).
    fn entry_for_block(&mut self, head: &str, error: bool) -> Option<usize> {
        let head = truncate_name(head);
        let found = self
            .session
            .entries
            .iter()
            .position(|e| e.error == error && !e.detailed && e.head == head);
        found.or_else(|| self.add_entry(None, head, error))
    }

    fn add_entry(&mut self, nodeid: Option<&str>, head: String, error: bool) -> Option<usize> {
        let kept = self.run.failures.len() + self.session.entries.len();
        if kept >= MAX_KEPT_FAILURES {
            return None;
        }
        self.session.entries.push(Entry {
            nodeid: nodeid.map(truncate_name),
            head: truncate_name(&head),
            error,
            detailed: false,
            message: None,
            summary: None,
            locations: Vec::new(),
            last_location: None,
        });
        Some(self.session.entries.len() - 1)
    }
}

impl Block {
    fn new(entry: Option<usize>) -> Self {
        Self {
            entry,
            captured: false,
            e_lines: Vec::new(),
            e_bytes: 0,
            in_e_group: false,
            locations: Vec::new(),
            last_location: None,
        }
    }

    fn push_e_line(&mut self, text: &str) {
        if !self.in_e_group {
            // A chained exception prints one group per exception: the last one failed the test.
            self.e_lines.clear();
            self.e_bytes = 0;
            self.in_e_group = true;
        }
        // SyntaxError's own location, inside its `E` lines: `File "path", line N`.
        if let Some((path, number)) = parse_python_frame(text.trim_start()) {
            self.add_location(path, number);
        }
        if self.e_bytes <= MAX_MESSAGE_BYTES {
            self.e_bytes += text.len() + 1;
            self.e_lines.push(text.to_owned());
        }
    }

    fn add_location(&mut self, path: &str, line: u32) {
        let location = Location {
            path: truncate_name(path),
            line,
        };
        if self.locations.len() < MAX_LOCATIONS {
            self.locations.push(Location {
                path: location.path.clone(),
                line,
            });
        }
        self.last_location = Some(location);
    }
}

impl Entry {
    fn into_case(self) -> TestCase {
        let (file, suite, name) = match &self.nodeid {
            Some(nodeid) => split_nodeid(nodeid),
            None => split_head(&self.head),
        };
        let mut case = TestCase::failed(truncate_name(&name), self.message.or(self.summary));
        case.suite = suite.map(truncate_name);
        // The line in the test's own file; else where the exception was raised; else the file.
        let in_test_file = file.and_then(|file| {
            self.locations
                .iter()
                .chain(&self.last_location)
                .rev()
                .find(|l| same_file(&l.path, file))
                .map(|l| (file.to_owned(), l.line))
        });
        let location = in_test_file
            .or_else(|| self.last_location.map(|l| (l.path, l.line)))
            .map(|(path, line)| (path, Some(line)))
            .or_else(|| file.map(|file| (file.to_owned(), None)));
        if let Some((path, line)) = location {
            case.file = Some(truncate_name(&path));
            case.line = line.filter(|&n| n > 0);
        }
        case
    }
}

/// `=== title ===` → `title`, with `bar` on both sides: pytest centres a title in its bar
/// character with one space each side, the right run as long as the left or one longer; a
/// title too long for the width keeps one bar character each side.
fn strip_bars(line: &str, bar: u8) -> Option<&str> {
    let bytes = line.as_bytes();
    let left = bytes.iter().take_while(|&&b| b == bar).count();
    let right = bytes.iter().rev().take_while(|&&b| b == bar).count();
    if left == 0 || right < left || right > left + 1 || left + right >= bytes.len() {
        return None;
    }
    let inner = line.get(left..bytes.len() - right)?;
    let title = inner.strip_prefix(' ')?.strip_suffix(' ')?;
    (!title.trim().is_empty()).then_some(title)
}

/// The inside of a closing line: `2 failed, 5 passed, 1 warning in 0.12s` (also
/// `in 65.20s (0:01:05)`), or `no tests ran in 0.01s`. Words pytest does not print itself
/// (plugins' own counts) are left out; a line without any of pytest's words is not a closing
/// line, nor is one with a count beyond [`MAX_COUNT`].
fn parse_closing(inner: &str) -> Option<Closing> {
    let (counts, duration) = inner.rsplit_once(" in ")?;
    let mut closing = Closing {
        duration_ms: Some(parse_duration(duration)?),
        ..Closing::default()
    };
    if counts == "no tests ran" {
        return Some(closing);
    }
    let mut known = false;
    for item in counts.split(", ") {
        let (number, word) = item.split_once(' ')?;
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u64 = number.parse().ok().filter(|&n| n <= MAX_COUNT)?;
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase() || b == b' ') {
            return None;
        }
        let count = match word {
            "passed" | "xpassed" => &mut closing.passed,
            "failed" | "error" | "errors" => &mut closing.failed,
            "skipped" | "xfailed" => &mut closing.skipped,
            "deselected" | "warning" | "warnings" | "rerun" => {
                known = true;
                continue;
            }
            _ => continue,
        };
        *count += n;
        known = true;
    }
    known.then_some(closing)
}

/// `0.12s` or `65.20s (0:01:05)` → milliseconds.
fn parse_duration(text: &str) -> Option<u64> {
    let seconds = match text.split_once(" (") {
        Some((seconds, clock)) if clock.ends_with(')') => seconds,
        Some(_) => return None,
        None => text,
    };
    let seconds = seconds.strip_suffix('s')?;
    let numeric = !seconds.is_empty()
        && seconds.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && seconds.bytes().filter(|&b| b == b'.').count() <= 1;
    if !numeric {
        return None;
    }
    let ms = (seconds.parse::<f64>().ok()? * 1000.0).round();
    // `as` saturates; the check keeps absurd durations out rather than at u64::MAX.
    (ms.is_finite() && ms <= 1e15).then_some(ms as u64)
}

/// `path::test PASSED [ 42%]`, `path::test SKIPPED (reason) [ 50%]`, `path::test RERUN`.
fn parse_verbose(line: &str) -> Option<(&str, Status)> {
    const WORDS: [(&str, Status); 7] = [
        ("PASSED", Status::Passed),
        ("FAILED", Status::Failed),
        ("ERROR", Status::Error),
        ("SKIPPED", Status::Skipped),
        ("XFAIL", Status::Skipped),
        ("XPASS", Status::Passed),
        ("RERUN", Status::Rerun),
    ];
    let line = strip_progress(line).unwrap_or(line).trim_end();
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    // The first status word that ends the line or precedes a `(reason)`: node ids may hold
    // spaces and such words inside their `[params]`, but never followed like that.
    let mut found: Option<(usize, Status)> = None;
    for (word, status) in WORDS {
        let hit = line.match_indices(word).map(|(i, _)| i).find(|&i| {
            let after = line.get(i + word.len()..).unwrap_or_default();
            i > 0
                && line.as_bytes().get(i - 1) == Some(&b' ')
                && (after.is_empty() || (after.starts_with(" (") && after.ends_with(')')))
        });
        if let Some(i) = hit
            && found.is_none_or(|(best, _)| i < best)
        {
            found = Some((i, status));
        }
    }
    let (i, status) = found?;
    let nodeid = line.get(..i)?.trim_end();
    nodeid.contains("::").then_some((nodeid, status))
}

/// The outcome characters of a progress line: `path.py .FEsxX [ 42%]`, a continuation
/// `....... [ 80%]`, or `-q`'s `..F. [100%]`.
fn parse_progress(line: &str) -> Option<&str> {
    let body = strip_progress(line)?.trim_end();
    let chars = body.rsplit(' ').next()?;
    let valid = !chars.is_empty() && chars.bytes().all(|b| b".FEsxXR".contains(&b));
    valid.then_some(chars)
}

/// `… [ 42%]` or `… [ 3/10]` (the `count` progress style) → `…`.
fn strip_progress(line: &str) -> Option<&str> {
    let line = line.trim_end();
    let open = line.strip_suffix(']')?.rfind('[')?;
    let inside = line.get(open + 1..line.len() - 1)?.trim();
    let is_progress = match inside.strip_suffix('%') {
        Some(percent) => !percent.is_empty() && percent.bytes().all(|b| b.is_ascii_digit()),
        None => inside.split_once('/').is_some_and(|(done, all)| {
            [done, all]
                .iter()
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        }),
    };
    is_progress.then(|| line.get(..open)).flatten()
}

/// `E       AssertionError: …` → `       AssertionError: …`.
fn e_line(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('E')?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(rest)
}

/// The message of a group of `E` lines: dedented, trailing blank lines dropped. SyntaxError
/// prints its `File "…", line N` first and the error last; the error is moved first so that
/// the message's first line names it.
fn e_message(lines: &[String]) -> Option<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()?;
    let mut text: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or_default().trim_end())
        .collect();
    while text.last().is_some_and(|l| l.is_empty()) {
        text.pop();
    }
    if text.len() > 1
        && text
            .first()
            .is_some_and(|l| l.trim_start().starts_with("File \""))
        && let Some(error) = text.pop()
    {
        text.insert(0, error);
    }
    Some(truncate_utf8(&text.join("\n"), MAX_MESSAGE_BYTES))
}

/// `path:42: AssertionError`, `path:42: in test_x` (`--tb=short`) or `path:42: ` → (path, 42).
fn parse_location(line: &str) -> Option<(&str, u32)> {
    if line.starts_with(char::is_whitespace) || line.starts_with('>') {
        return None;
    }
    line.match_indices(':').find_map(|(i, _)| {
        let rest = line.get(i + 1..)?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let after = rest.get(digits..)?;
        if digits == 0 || !(after == ":" || after.starts_with(": ")) {
            return None;
        }
        let path = line.get(..i).filter(|p| !p.is_empty())?;
        Some((path, rest.get(..digits)?.parse().ok()?))
    })
}

/// `File "path", line 3` (optionally followed by `, in name`) → (path, 3).
fn parse_python_frame(text: &str) -> Option<(&str, u32)> {
    let rest = text.strip_prefix("File \"")?;
    let (path, after) = rest.rsplit_once("\", line ")?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let number = after.get(..digits)?.parse().ok()?;
    Some((path, number))
}

/// The node id and message of a short summary line's rest: `path::test[p] - message`. The
/// first ` - ` after which the id is complete (no `[`, or ending with `]`) separates them.
fn split_summary(rest: &str) -> (&str, Option<&str>) {
    rest.match_indices(" - ")
        .find_map(|(i, sep)| {
            let id = rest.get(..i)?;
            let complete = !id.contains('[') || id.ends_with(']');
            complete.then(|| (id, rest.get(i + sep.len()..)))
        })
        .unwrap_or((rest, None))
}

/// `tests/test_x.py::TestGroup::test_y[p]` → `TestGroup.test_y[p]`, the title pytest gives the
/// test's block; a node id without `::` (a module that failed to collect) is its own title.
fn head_of(nodeid: &str) -> String {
    let (base, params) = split_params(nodeid);
    match base.split_once("::") {
        Some((_, rest)) => format!("{}{params}", rest.replace("::", ".")),
        None => nodeid.to_owned(),
    }
}

/// (file, suite, name) of a node id: `tests/test_x.py::TestGroup::test_y[p]` →
/// (`tests/test_x.py`, `tests/test_x.py::TestGroup`, `test_y[p]`).
fn split_nodeid(nodeid: &str) -> (Option<&str>, Option<&str>, String) {
    let (base, params) = split_params(nodeid);
    match base.rsplit_once("::") {
        Some((suite, name)) => {
            let file = suite.split("::").next();
            (file, Some(suite), format!("{name}{params}"))
        }
        None => (Some(nodeid), None, nodeid.to_owned()),
    }
}

/// (file, suite, name) of a block title, when no node id was printed: `TestGroup.test_y[p]` →
/// (none, `TestGroup`, `test_y[p]`); a module path names its own file.
fn split_head(head: &str) -> (Option<&str>, Option<&str>, String) {
    let (base, params) = split_params(head);
    if base.ends_with(".py") || base.contains('/') {
        return (Some(head), None, head.to_owned());
    }
    match base.rsplit_once('.') {
        Some((suite, name)) => (None, Some(suite), format!("{name}{params}")),
        None => (None, None, head.to_owned()),
    }
}

/// `test_y[a::b]` → (`test_y`, `[a::b]`): parametrize ids may hold anything.
fn split_params(id: &str) -> (&str, &str) {
    match id.find('[') {
        Some(i) => (id.get(..i).unwrap_or(id), id.get(i..).unwrap_or_default()),
        None => (id, ""),
    }
}

/// Locations print paths relative to the working directory (or absolute), node ids relative to
/// the rootdir: the same file when one ends with the other at a `/`.
fn same_file(location: &str, file: &str) -> bool {
    let ends_with = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|prefix| prefix.is_empty() || prefix.ends_with('/'))
    };
    ends_with(location, file) || ends_with(file, location)
}

fn truncate_name(name: &str) -> String {
    truncate_utf8(name, MAX_NAME_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::{FailureKind, Outcome};

    fn read(rel: &str) -> TestRun {
        let path = crate::results::testkit::fixture(&format!("pytest/{rel}"));
        crate::results::read_report_as(&path, ReportFormat::Pytest)
            .expect("read")
            .unwrap_or_else(|| panic!("{rel} is pytest output"))
    }

    fn parse(text: &str) -> Option<TestRun> {
        let mut reader = PytestReader::new();
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

    fn first_line(case: &TestCase) -> Option<&str> {
        case.message.as_deref().and_then(|m| m.lines().next())
    }

    /// Every output of every project, in every mode, without and with colour.
    fn variants(project: &str) -> Vec<String> {
        let mut files = Vec::new();
        for mode in ["v", "ra", "plain"] {
            for colour in ["", ".color"] {
                files.push(format!("{project}-{mode}{colour}.txt"));
            }
        }
        files
    }

    #[test]
    fn every_fixture_matches_pytests_own_closing_line() {
        // (project, pytest's closing line, what we read as passed / failed / skipped)
        let expected: [(&str, &str, (u64, u64, u64)); 7] = [
            ("pass", "4 passed", (4, 0, 0)),
            // Errors are failures, xfailed is skipped, xpassed is passed; the deselected test
            // and the warning are not tests.
            (
                "mixed",
                "8 failed, 5 passed, 1 skipped, 1 deselected, 1 xfailed, 1 xpassed, 1 warning, \
                 2 errors",
                (6, 10, 2),
            ),
            ("collect", "2 errors", (0, 2, 0)),
            // Three reruns are attempts, not tests.
            ("flaky", "1 failed, 2 passed, 3 rerun", (2, 1, 0)),
            ("hostile", "2 failed, 6 passed", (6, 2, 0)),
            ("many", "10 failed, 320 passed", (320, 10, 0)),
            ("empty", "no tests ran", (0, 0, 0)),
        ];
        for (project, closing, want) in expected {
            for file in variants(project) {
                let run = read(&file);
                assert_eq!(run.framework, "pytest");
                assert_eq!(run.format, ReportFormat::Pytest);
                assert_eq!(counts(&run), want, "{file}: {closing}");
                assert_eq!(run.failures.len() as u64, want.1, "{file}");
                assert!(run.duration_ms.is_some(), "{file}");
                assert!(
                    run.failures.iter().all(|c| c.outcome == Outcome::Failed),
                    "{file}"
                );
            }
        }
        // -q prints the closing line without its bars; --tb changes only the details.
        for file in ["mixed-q.txt", "mixed-tb-short.txt", "mixed-tb-line.txt"] {
            assert_eq!(counts(&read(file)), (6, 10, 2), "{file}");
        }
        assert_eq!(counts(&read("collect-continue-v.txt")), (1, 2, 0));
        assert_eq!(read("empty-v.txt").pass_rate(), None);
    }

    #[test]
    fn colour_changes_nothing_read() {
        for project in [
            "pass", "mixed", "collect", "flaky", "hostile", "many", "empty",
        ] {
            for mode in ["v", "ra", "plain"] {
                let plain = read(&format!("{project}-{mode}.txt"));
                let colour = read(&format!("{project}-{mode}.color.txt"));
                let summary = |run: &TestRun| {
                    run.failures
                        .iter()
                        .map(|c| {
                            let first = first_line(c).map(str::to_owned);
                            (
                                c.name.clone(),
                                c.suite.clone(),
                                c.file.clone(),
                                c.line,
                                c.kind,
                                first,
                            )
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(summary(&plain), summary(&colour), "{project}-{mode}");
            }
        }
    }

    #[test]
    fn verbose_output_names_every_failure_in_run_order() {
        let run = read("mixed-v.txt");
        assert_eq!(
            names(&run),
            [
                "test_fails_assertion",
                "test_setup_error",
                "test_teardown_error",
                "test_strict_unexpected_pass",
                "test_missing_module",
                "test_in_helper",
                "test_chained",
                "test_prints_noise",
                "test_times_out",
                "test_even[1]",
            ]
        );
        let case = |name: &str| {
            run.failures
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name}"))
        };
        let summary = |name: &str| {
            let c = case(name);
            (c.file.as_deref(), c.line, c.kind, first_line(c))
        };
        let file = Some("test_mixed.py");
        assert_eq!(
            summary("test_fails_assertion"),
            (
                file,
                Some(28),
                Some(FailureKind::Assertion),
                Some(
                    "AssertionError: assert {'name': 'dep... 'retries': 2} == {'name': 'dep... 'retries': 3}"
                )
            )
        );
        // The E lines, dedented, are the message.
        let message = case("test_fails_assertion")
            .message
            .as_deref()
            .unwrap_or("");
        assert!(
            message
                .contains("\n\n  Omitting 1 identical items, use -vv to show\n  Differing items:"),
            "{message}"
        );
        assert_eq!(
            summary("test_setup_error"),
            (
                file,
                Some(12),
                Some(FailureKind::Assertion),
                Some("RuntimeError: database fixture could not connect")
            )
        );
        assert_eq!(
            summary("test_teardown_error").3,
            Some("OSError: could not release the resource")
        );
        // No E lines: the short summary's message stands in; the file is the node id's.
        assert_eq!(
            summary("test_strict_unexpected_pass"),
            (
                file,
                None,
                Some(FailureKind::Assertion),
                Some("[XPASS(strict)] must fail")
            )
        );
        assert_eq!(
            summary("test_missing_module"),
            (
                file,
                Some(60),
                Some(FailureKind::Dependency),
                Some("ModuleNotFoundError: No module named 'skillgate_module_that_does_not_exist'")
            )
        );
        // Raised in helpers.py:5, but the line in the test's own file is the one to annotate.
        assert_eq!(
            summary("test_in_helper"),
            (
                file,
                Some(64),
                Some(FailureKind::Assertion),
                Some("ValueError: too many values to unpack (expected 2)")
            )
        );
        // Of a chained exception, the last one raised.
        assert_eq!(
            summary("test_chained"),
            (
                file,
                Some(71),
                Some(FailureKind::Assertion),
                Some("ValueError: config is incomplete")
            )
        );
        // The test prints a fake location and a fake E line: captured output is not ours.
        let noise = case("test_prints_noise");
        assert_eq!(noise.line, Some(77));
        assert_eq!(
            noise.message.as_deref(),
            Some("AssertionError: assert 'noise' == 'signal'\n\n  - signal\n  + noise")
        );
        let timeout = case("test_times_out");
        assert_eq!(timeout.suite.as_deref(), Some("test_mixed.py::TestGroup"));
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        assert_eq!(timeout.line, Some(94));
        assert_eq!(summary("test_even[1]").3, Some("assert (1 % 2) == 0"));
        assert_eq!(case("test_even[1]").suite.as_deref(), Some("test_mixed.py"));
    }

    #[test]
    fn plain_and_quiet_output_name_failures_from_blocks_and_summary() {
        for file in [
            "mixed-plain.txt",
            "mixed-ra.txt",
            "mixed-q.txt",
            "mixed-tb-short.txt",
        ] {
            let run = read(file);
            // Plain output prints the ERRORS section first.
            assert_eq!(
                names(&run),
                [
                    "test_setup_error",
                    "test_teardown_error",
                    "test_fails_assertion",
                    "test_strict_unexpected_pass",
                    "test_missing_module",
                    "test_in_helper",
                    "test_chained",
                    "test_prints_noise",
                    "test_times_out",
                    "test_even[1]",
                ],
                "{file}"
            );
            let lines: Vec<_> = run.failures.iter().map(|c| c.line).collect();
            assert_eq!(
                lines,
                [
                    Some(12),
                    Some(18),
                    Some(28),
                    None,
                    Some(60),
                    Some(64),
                    Some(71),
                    Some(77),
                    Some(94),
                    Some(99)
                ],
                "{file}"
            );
            // The short summary's node id gives the suite.
            assert_eq!(
                run.failures[8].suite.as_deref(),
                Some("test_mixed.py::TestGroup"),
                "{file}"
            );
        }
    }

    #[test]
    fn tb_line_leaves_the_short_summary_messages() {
        let run = read("mixed-tb-line.txt");
        let fails = run
            .failures
            .iter()
            .find(|c| c.name == "test_missing_module");
        let fails = fails.expect("test_missing_module");
        // Cut to the terminal's width by pytest, and still classified.
        assert_eq!(
            fails.message.as_deref(),
            Some("ModuleNotFoundError: No module na...")
        );
        assert_eq!(fails.kind, Some(FailureKind::Dependency));
        assert_eq!(
            (fails.file.as_deref(), fails.line),
            (Some("test_mixed.py"), None)
        );
        // The ERRORS section keeps its blocks under --tb=line.
        assert_eq!(
            first_line(&run.failures[0]),
            Some("RuntimeError: database fixture could not connect")
        );
    }

    #[test]
    fn collection_errors_are_failures_with_their_module_and_line() {
        for file in [
            "collect-v.txt",
            "collect-plain.txt",
            "collect-continue-v.txt",
        ] {
            let run = read(file);
            assert_eq!(
                names(&run),
                ["test_import_error.py", "test_syntax_error.py"]
            );
            let import = &run.failures[0];
            assert_eq!(import.kind, Some(FailureKind::Dependency));
            assert_eq!(import.suite, None);
            assert_eq!(
                (import.file.as_deref(), import.line),
                (Some("test_import_error.py"), Some(3))
            );
            assert_eq!(
                first_line(import),
                Some(
                    "ModuleNotFoundError: No module named \
                     'skillgate_dependency_that_is_not_installed'"
                )
            );
            let syntax = &run.failures[1];
            assert_eq!(syntax.kind, Some(FailureKind::Syntax));
            // From SyntaxError's own `File "…", line 1`, which is moved after the error.
            assert_eq!(
                (syntax.file.as_deref(), syntax.line),
                (Some("test_syntax_error.py"), Some(1))
            );
            assert_eq!(
                syntax.message.as_deref(),
                Some(
                    "SyntaxError: invalid syntax\n  File \
                     \"/tmp/skillgate-fixtures/pytest/collect/test_syntax_error.py\", line 1\n    \
                     def test_broken(:\n                    ^"
                )
            );
        }
    }

    #[test]
    fn reruns_are_not_tests() {
        for file in variants("flaky") {
            let run = read(&file);
            // test_flaky_once failed once, then passed: one pass, no failure.
            assert_eq!(names(&run), ["test_always_fails"], "{file}");
            // Only -v names the attempts.
            let flaky: &[&str] = if file.starts_with("flaky-v") {
                &["test_flaky_once"]
            } else {
                &[]
            };
            assert_eq!(run.flaky, flaky, "{file}");
            assert_eq!(
                first_line(&run.failures[0]),
                Some("AssertionError: arithmetic is broken")
            );
            assert_eq!(run.failures[0].line, Some(22));
        }
    }

    #[test]
    fn only_a_rerun_that_passed_is_flaky() {
        let run = parse(
            "=== test session starts ===\n\
             t.py::test_a RERUN [ 33%]\n\
             t.py::test_a RERUN [ 33%]\n\
             t.py::test_a PASSED [ 33%]\n\
             t.py::test_b RERUN [ 66%]\n\
             t.py::test_b FAILED [ 66%]\n\
             t.py::C::test_c[x] RERUN [100%]\n\
             t.py::C::test_c[x] PASSED [100%]\n\
             t.py::test_d PASSED [100%]\n\
             === 1 failed, 3 passed, 4 rerun in 0.10s ===",
        )
        .expect("pytest");
        assert_eq!(counts(&run), (3, 1, 0));
        assert_eq!(run.flaky, ["test_a", "test_c[x]"]);
        assert_eq!(names(&run), ["test_b"]);
    }

    #[test]
    fn hostile_names_are_kept_raw() {
        for file in variants("hostile") {
            let run = read(&file);
            // pytest escapes non-ASCII parametrize ids itself; function names stay as written.
            assert_eq!(
                names(&run),
                [
                    r"test_hostile_id[\xfcn\xefc\xf6d\xe9 \u2713]",
                    "test_ünïcödé_function"
                ],
                "{file}"
            );
            assert_eq!(
                first_line(&run.failures[0]),
                Some("AssertionError: | ünïcödé ✓ | is not ascii: <i>`ünïcödé ✓`</i> @here")
            );
            assert_eq!(
                first_line(&run.failures[1]),
                Some("AssertionError: ünïcödé message ✗")
            );
        }
        // Passed ids with `|`, backticks, `@`, `<b>`, ` - ` and `::` do not upset the -v lines.
        assert_eq!(counts(&read("hostile-v.txt")), (6, 2, 0));
    }

    #[test]
    fn hundreds_of_parametrized_tests() {
        for file in variants("many") {
            let run = read(&file);
            let want: Vec<String> = (0..10)
                .map(|i| format!("test_number[{}]", 32 + 33 * i))
                .collect();
            assert_eq!(names(&run), want, "{file}");
            assert_eq!(
                first_line(&run.failures[0]),
                Some("AssertionError: 32 is unlucky")
            );
            assert_eq!(run.failures[9].line, Some(8));
        }
    }

    #[test]
    fn a_session_cut_short_counts_its_results() {
        // Killed before the closing line: the -v lines, or the progress characters, count.
        for (file, stop) in [
            ("mixed-v.txt", "==== ERRORS ===="),
            ("mixed-plain.txt", "==== ERRORS ===="),
            ("many-plain.txt", "==== FAILURES ===="),
        ] {
            let path = crate::results::testkit::fixture(&format!("pytest/{file}"));
            let text = std::fs::read_to_string(path).expect("fixture");
            let cut = text.get(..text.find(stop).expect("section")).expect("cut");
            let run = parse(cut).unwrap_or_else(|| panic!("{file}"));
            let want = if file.starts_with("many") {
                (320, 10, 0)
            } else {
                (6, 10, 2)
            };
            assert_eq!(counts(&run), want, "{file}");
            assert_eq!(run.duration_ms, None);
        }
        let cut = parse(
            "==== test session starts ====\n\
             test_x.py::test_a PASSED [ 50%]\n\
             test_x.py::test_b FAILED [100%]\n",
        )
        .expect("results");
        assert_eq!(counts(&cut), (1, 1, 0));
        assert_eq!(names(&cut), ["test_b"]);
        // A header without results, or results without a header, is not enough.
        assert_eq!(
            parse("=== test session starts ===\ncollected 3 items\n"),
            None
        );
        assert_eq!(
            parse("test_x.py::test_a PASSED [ 50%]\n..F. [100%]\n"),
            None
        );
    }

    #[test]
    fn sessions_in_one_stream_add_up() {
        let mut text = String::new();
        for file in ["pass-v.txt", "flaky-plain.txt"] {
            let path = crate::results::testkit::fixture(&format!("pytest/{file}"));
            text.push_str(&std::fs::read_to_string(path).expect("fixture"));
        }
        let run = parse(&text).expect("pytest");
        assert_eq!(counts(&run), (6, 1, 0));
        assert_eq!(names(&run), ["test_always_fails"]);
    }

    #[test]
    fn closing_lines() {
        let closing = |inner: &str| {
            parse_closing(inner).map(|c| (c.passed, c.failed, c.skipped, c.duration_ms))
        };
        assert_eq!(closing("1 passed in 0.01s"), Some((1, 0, 0, Some(10))));
        assert_eq!(
            closing("3 failed, 2 xpassed, 1 xfailed, 4 errors in 65.20s (0:01:05)"),
            Some((2, 7, 1, Some(65_200)))
        );
        assert_eq!(closing("2 deselected in 0.00s"), Some((0, 0, 0, Some(0))));
        assert_eq!(closing("no tests ran in 0.01s"), Some((0, 0, 0, Some(10))));
        // Plugins' own counts are left out; pytest's words make the line.
        assert_eq!(
            closing("1 passed, 3 subtests passed in 0.1s"),
            Some((1, 0, 0, Some(100)))
        );
        for not_closing in [
            "3 subtests passed in 0.1s",
            "3 passed",
            "3 passed in 0.1",
            "3 passed in s",
            "3 passed in 1.2.3s",
            "3 passed in -1s",
            "3 passed in 1e9s",
            "three passed in 0.1s",
            "3 Passed in 0.1s",
            "-3 passed in 0.1s",
            "3 passed, in 0.1s",
            "3  passed in 0.1s",
            "Ran 3 tests in 0.1s",
            "99999999999999999999 passed in 0.1s",
            "4294967296 passed in 0.1s",
        ] {
            assert_eq!(closing(not_closing).map(|c| c.0), None, "{not_closing}");
        }
    }

    #[test]
    fn absurd_counts_are_refused_and_sums_saturate() {
        assert_eq!(
            parse("===== 99999999999999999999 passed in 0.12s ====="),
            None
        );
        assert_eq!(
            parse("= 18446744073709551615 failed, 1 passed in 0.1s ="),
            None
        );
        // At the limit, sessions add up without overflowing anything downstream.
        let line =
            "=== 4294967295 passed, 4294967295 failed, 4294967295 skipped in 9999999.99s ===\n";
        let run = parse(&line.repeat(3)).expect("pytest");
        assert_eq!(counts(&run), (MAX_COUNT, MAX_COUNT, MAX_COUNT));
        assert_eq!(run.total(), 3 * MAX_COUNT);
    }

    #[test]
    fn not_pytest_output() {
        for text in [
            "",
            "\u{0}\u{1}\u{fffd}garbage\u{7f}\n\u{fffd}\u{fffd}",
            "3 passed, 1 failed",
            "Results: 3 passed, 1 failed, 2 skipped",
            "TAP version 13\nok 1 - a\n1..1",
            "Downloading wheels .... [ 50%]\n",
            "----------------------------------------------------------------------\n\
             Ran 3 tests in 0.001s\n\nOK",
            "================ FAILURES ================\n____ test_x ____\nE   assert 0\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        for fixture in ["tap/node.tap", "summary/stdout.txt", "unittest/mixed-v.txt"] {
            let path = crate::results::testkit::fixture(fixture);
            let run = crate::results::read_report_as(&path, ReportFormat::Pytest).expect("read");
            assert_eq!(run, None, "{fixture}");
        }
    }

    #[test]
    fn kept_failures_and_their_text_are_bounded() {
        let mut text = String::from("=== test session starts ===\n");
        for i in 0..MAX_KEPT_FAILURES + 50 {
            text.push_str(&format!("t.py::test_{i} FAILED [ 50%]\n"));
        }
        text.push_str("=== FAILURES ===\n");
        let long_name = "n".repeat(5000);
        text.push_str(&format!("____ {long_name} ____\n"));
        text.push_str(&format!("E   AssertionError: {}\n", "é".repeat(5000)));
        text.push_str(&"E   more\n".repeat(10_000));
        text.push_str("=== short test summary info ===\n");
        text.push_str(&format!(
            "FAILED t.py::{long_name} - {}\n",
            "x".repeat(9000)
        ));
        text.push_str("=== 250 failed in 1.00s ===\n");
        let run = parse(&text).expect("pytest");
        assert_eq!(run.failed, 250);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        assert_eq!(run.failures[0].name, "test_0");

        let text = format!(
            "=== FAILURES ===\n____ {long_name} ____\nE   AssertionError: {}\n{}\
             === 1 failed in 1.00s ===\n",
            "é".repeat(5000),
            "E   more\n".repeat(10_000)
        );
        let run = parse(&text).expect("pytest");
        let case = &run.failures[0];
        assert!(case.name.len() <= MAX_NAME_BYTES);
        let message = case.message.as_deref().expect("message");
        assert!(message.len() <= MAX_MESSAGE_BYTES, "{}", message.len());
        assert!(message.starts_with("AssertionError: éé"));
    }

    #[test]
    fn summary_lines_split_at_the_right_dash() {
        let run = parse(
            "=== short test summary info ===\n\
             FAILED t.py::test_a[x - y] - AssertionError: [1] - [2]\n\
             FAILED t.py::test_b - ValueError: a - b\n\
             ERROR t.py::Test::test_c\n\
             === 2 failed, 1 error in 0.1s ===",
        )
        .expect("pytest");
        let got: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.name.as_str(), c.suite.as_deref(), c.message.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "test_a[x - y]",
                    Some("t.py"),
                    Some("AssertionError: [1] - [2]")
                ),
                ("test_b", Some("t.py"), Some("ValueError: a - b")),
                ("test_c", Some("t.py::Test"), None),
            ]
        );
    }

    #[test]
    fn an_inner_session_in_captured_output_is_not_ours() {
        // pytester prints a whole inner run into the outer test's captured output.
        let run = parse(
            "=== test session starts ===\n\
             t.py::test_plugin FAILED [100%]\n\
             === FAILURES ===\n\
             ____ test_plugin ____\n\
             E   assert 1 == 2\n\
             t.py:3: AssertionError\n\
             ---- Captured stdout call ----\n\
             === test session starts ===\n\
             === 7 passed in 0.01s ===\n\
             7 passed in 0.01s\n\
             === 1 failed in 0.20s ===",
        )
        .expect("pytest");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(run.failures[0].line, Some(3));
        assert_eq!(run.duration_ms, Some(200));
    }

    #[test]
    fn pytest_wins_over_tap_lines_its_tests_print() {
        // `pytest -s` on a suite that checks a TAP producer: pytest's closing line decides.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("out.txt");
        std::fs::write(
            &path,
            "=== test session starts ===\n\
             t.py::test_tap TAP version 13\nok 1 - inner\n1..1\nPASSED [100%]\n\
             === 1 passed in 0.01s ===\n",
        )
        .expect("write");
        let run = crate::results::read_report_file(&path)
            .expect("read")
            .expect("results");
        assert_eq!(run.framework, "pytest");
    }

    #[test]
    fn helpers() {
        assert_eq!(strip_bars("=== FAILURES ===", b'='), Some("FAILURES"));
        assert_eq!(strip_bars("== x ===", b'='), Some("x"));
        assert_eq!(strip_bars("=== x ==", b'='), None);
        assert_eq!(strip_bars("======", b'='), None);
        assert_eq!(strip_bars("=  =", b'='), None);
        assert_eq!(strip_bars("_ _ _ _", b'_'), Some("_ _"));
        assert_eq!(
            parse_location("t.py:12: AssertionError"),
            Some(("t.py", 12))
        );
        assert_eq!(parse_location("t.py:12: "), Some(("t.py", 12)));
        assert_eq!(parse_location("t.py:12:"), Some(("t.py", 12)));
        assert_eq!(
            parse_location("C:/x/t.py:7: in test_a"),
            Some(("C:/x/t.py", 7))
        );
        assert_eq!(parse_location("    t.py:12: x"), None);
        assert_eq!(parse_location("self = <x at 0x1>"), None);
        assert_eq!(parse_location("t.py:99999999999: x"), None);
        assert_eq!(
            parse_verbose("t.py::test_a[ FAILED ] PASSED [ 5%]").map(|(id, _)| id),
            Some("t.py::test_a[ FAILED ]")
        );
        assert_eq!(parse_verbose("t.py PASSED"), None);
        assert_eq!(parse_progress("t.py .FEsxXR [ 3/10]"), Some(".FEsxXR"));
        assert_eq!(parse_progress("t.py .F. [x%]"), None);
        assert_eq!(head_of("a/t.py::C::D::test_x[p::q]"), "C.D.test_x[p::q]");
        assert_eq!(head_of("a/t.py"), "a/t.py");
        assert!(same_file("/tmp/p/a/t.py", "a/t.py"));
        assert!(!same_file("/tmp/p/xa/t.py", "a/t.py"));
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
            " in 0.1s",
            " passed",
            ", ",
            "FAILED ",
            "Traceback (most recent call last):",
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let mut reader = PytestReader::new();
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
