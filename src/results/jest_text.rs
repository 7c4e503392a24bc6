//! Jest's default reporter, as `npx jest` prints it on stderr, read line by line: the file
//! headers, the `●` failure blocks under them and the closing summary.
//!
//! ```text
//! FAIL ./mixed.suite.js
//!   ✕ collapses punctuation (2 ms)            (listed with --verbose, or for a single file)
//!   ○ skipped handles emoji
//!
//!   ● slugify › collapses punctuation
//!
//!     expect(received).toBe(expected) // Object.is equality
//!     …
//!     > 11 |     expect(slugify('a -- b')).toBe('a_b');
//!       at Object.toBe (mixed.suite.js:11:31)
//!
//! FAIL ./missing.suite.js
//!   ● Test suite failed to run
//!     Cannot find module './not-installed' from 'missing.suite.js'
//!
//! Test Suites: 2 failed, 1 passed, 3 total
//! Tests:       1 failed, 1 skipped, 4 passed, 6 total
//! Snapshots:   0 total
//! Time:        0.52 s
//! Ran all test suites.
//! ```
//!
//! Also the helpers the Vitest reader shares: closing summaries that add up or stand in for one
//! another, `N word` counts, and the first lines of an error with the line of its frame in the
//! test file.

use super::jest::line_from_stack;
use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, classify_failure,
    push_truncated, truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// Jest indents the `●` headers by this much inside a file's section, and their text by
/// [`BLOCK_INDENT`].
const HEADER_INDENT: usize = 2;
const BLOCK_INDENT: usize = 4;
/// Counts above this are not a test runner's: the line is refused, and sums stop here, so that
/// no total can overflow.
pub(super) const MAX_COUNT: u64 = 1 << 40;
/// Stack frames kept per error to find the test file's line in: the test's own frame comes
/// within the first few.
const MAX_FRAMES: usize = 32;
/// Extensions of the test files Jest names in `PASS`/`FAIL` headers.
const TEST_FILE_EXTENSIONS: &[&str] = &["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"];

/// Jest's default reporter.
///
/// Counting rules:
/// - The closing `Tests:` line counts: `N failed` failed, `N skipped` and `N todo` skipped,
///   `N passed` passed. Its parts add up to its `N total`; a line whose parts exceed the total
///   is not Jest's, and tests the total holds beyond its parts (Jest never prints that) are
///   failures.
/// - A test file that failed while none of its tests did (`● Test suite failed to run`: a
///   syntax error, a missing module, no test in it, a failing `afterAll`) is one failed case
///   named after the file, as the `--json` reader counts it: Jest counts such a file among its
///   `Test Suites:` only. A test whose `beforeAll` or `beforeEach` failed is a failed test for
///   Jest already.
/// - Several closing summaries (Jest ran twice) add up. On a terminal Jest repeats a live
///   status (`Test Suites: 1 failed, 2 of 4 total` and its `Tests:` line) while it runs: a
///   summary whose `Test Suites:` says `M of N total` stands only until the next one, unless
///   `Ran all test suites` (or `Test run was interrupted.`) closes it, as it does for a run
///   stopped by `--bail`; the last one stands if nothing follows.
/// - Each `●` block under a `FAIL` header names a failure: the title path as Jest prints it
///   (`describe › test`), the error's first lines up to its code frame or stack, and the line
///   of the first stack frame in the test file. `● Console` blocks are the tests' output, and
///   the `Summary of all failing tests` Jest prints again after more than 20 files is not read
///   twice.
/// - Without a closing summary (the output was cut short) the lines count: `✓` passed, `✕`
///   failed (or the `●` blocks, when more), `○ skipped` and `✎ todo` skipped.
/// - The text is Jest's when it holds a closing summary or a `PASS`/`FAIL` header naming a
///   JavaScript or TypeScript file; anything else is left to other readers.
pub(crate) struct JestTextReader {
    summaries: Summaries,
    /// The last `Test Suites:` line was a live status (`M of N total`): the `Tests:` line
    /// after it is provisional.
    suites_provisional: Option<bool>,
    /// A header or a summary was seen: the text is Jest's.
    recognised: bool,
    /// The file whose section is being read.
    file: Option<FileSection>,
    /// The `●` block being read.
    block: Option<Block>,
    /// Counted since the last final summary, for a run cut short before its own.
    tally: Counts,
    /// Files that failed with no failing test since the last final summary.
    failed_alone: u64,
    /// [`Self::failed_alone`] when the provisional summary was read.
    proposed_alone: u64,
    /// Inside `Summary of all failing tests`: what was read already.
    in_recap: bool,
    /// The `Time:` line after a final summary is the run's duration.
    expect_time: bool,
    duration_ms: Option<u64>,
    failures: Vec<TestCase>,
}

struct FileSection {
    path: String,
    failed: bool,
    /// `●` blocks of tests.
    failed_blocks: u64,
    /// `✕` lines.
    failed_lines: u64,
    /// The first `● Test suite failed to run` error.
    suite_error: Option<(Option<String>, Option<u32>)>,
}

enum BlockKind {
    /// A test's failure: the index of its kept case, if kept.
    Test(Option<usize>),
    Suite,
    Console,
}

struct Block {
    kind: BlockKind,
    error: ErrorText,
}

impl Default for JestTextReader {
    fn default() -> Self {
        Self::new()
    }
}

impl JestTextReader {
    pub(crate) fn new() -> Self {
        Self {
            summaries: Summaries::default(),
            suites_provisional: None,
            recognised: false,
            file: None,
            block: None,
            tally: Counts::default(),
            failed_alone: 0,
            proposed_alone: 0,
            in_recap: false,
            expect_time: false,
            duration_ms: None,
            failures: Vec::new(),
        }
    }

    fn feed_line(&mut self, line: &str) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let text = line.trim();
        if let Some(block) = &mut self.block {
            if text.is_empty() || indent >= BLOCK_INDENT {
                block.error.push(line);
                return;
            }
            // On a terminal the live status is drawn anywhere, even inside a block.
            if !is_status(text) {
                self.end_block();
            }
        }
        if text.is_empty() {
            return;
        }
        if let Some(rest) = text.strip_prefix("Test Suites:") {
            if let Some(provisional) = suites_line(rest) {
                self.recognised = true;
                self.suites_provisional = Some(provisional);
                self.in_recap = false;
            }
            return;
        }
        if let Some(rest) = text.strip_prefix("Tests:")
            && let Some(counts) = tests_line(rest)
        {
            self.summary(counts);
            return;
        }
        if text.starts_with("Ran all test suites") || text == "Test run was interrupted." {
            self.close_run();
            return;
        }
        if let Some(rest) = text.strip_prefix("Time:") {
            if std::mem::take(&mut self.expect_time)
                && let Some(ms) = seconds(rest)
            {
                self.duration_ms = Some(self.duration_ms.unwrap_or(0).saturating_add(ms));
            }
            return;
        }
        if text == "Summary of all failing tests" {
            self.end_file();
            self.in_recap = true;
            return;
        }
        if self.in_recap {
            return;
        }
        if let Some((failed, path)) = file_header(text) {
            self.end_file();
            self.recognised = true;
            self.file = Some(FileSection {
                path,
                failed,
                failed_blocks: 0,
                failed_lines: 0,
                suite_error: None,
            });
            return;
        }
        let Some(file) = &mut self.file else {
            return;
        };
        if indent == HEADER_INDENT
            && let Some(title) = text.strip_prefix("● ")
        {
            let kind = match title {
                "Console" => BlockKind::Console,
                "Test suite failed to run" => BlockKind::Suite,
                _ => {
                    file.failed_blocks += 1;
                    let mut kept = None;
                    if self.failures.len() < MAX_KEPT_FAILURES {
                        let mut case = TestCase::failed(truncate_utf8(title, MAX_NAME_BYTES), None);
                        case.suite = Some(file.path.clone());
                        case.file = Some(file.path.clone());
                        self.failures.push(case);
                        kept = Some(self.failures.len() - 1);
                    }
                    BlockKind::Test(kept)
                }
            };
            self.block = Some(Block {
                kind,
                error: ErrorText::new(BLOCK_INDENT),
            });
            return;
        }
        match text.chars().next() {
            Some('✓') => self.tally.passed = bump(self.tally.passed, 1),
            Some('✕') => file.failed_lines += 1,
            _ if text.starts_with("○ skipped ") || text.starts_with("✎ todo ") => {
                self.tally.skipped = bump(self.tally.skipped, 1);
            }
            _ => {}
        }
    }

    /// A closing `Tests:` line, with the files that failed alone so far. A live status is
    /// drawn between a file's header and its blocks: the file goes on after it.
    fn summary(&mut self, counts: Counts) {
        self.recognised = true;
        self.in_recap = false;
        if self.suites_provisional.take() == Some(true) {
            self.proposed_alone = self.failed_alone;
            self.summaries.propose(counts.plus(Counts {
                failed: self.failed_alone,
                ..Counts::default()
            }));
        } else {
            self.end_file();
            self.summaries.commit(counts.plus(Counts {
                failed: self.failed_alone,
                ..Counts::default()
            }));
            self.tally = Counts::default();
            self.failed_alone = 0;
            self.proposed_alone = 0;
            self.expect_time = true;
        }
    }

    /// `Ran all test suites`: the summary before it closed the run, even in the live form (a
    /// run stopped by `--bail`). The file still open counts with it.
    fn close_run(&mut self) {
        if !self.summaries.has_pending() {
            return;
        }
        self.end_file();
        self.summaries.add_to_pending(Counts {
            failed: self.failed_alone.saturating_sub(self.proposed_alone),
            ..Counts::default()
        });
        self.summaries.close();
        self.tally = Counts::default();
        self.failed_alone = 0;
        self.proposed_alone = 0;
    }

    fn end_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        let Some(file) = &mut self.file else {
            return;
        };
        match block.kind {
            BlockKind::Console => {}
            BlockKind::Suite => {
                if file.suite_error.is_none() {
                    let line = block.error.line_in(&file.path);
                    file.suite_error = Some((block.error.message(), line));
                }
            }
            BlockKind::Test(kept) => {
                let line = block.error.line_in(&file.path);
                if let Some(case) = kept.and_then(|i| self.failures.get_mut(i)) {
                    case.line = line;
                    set_message(case, block.error.message());
                }
            }
        }
    }

    /// The file's section is over: its failures count, and a file that failed with no failing
    /// test is one failed case of its own.
    fn end_file(&mut self) {
        self.end_block();
        let Some(file) = self.file.take() else {
            return;
        };
        let failed = file.failed_blocks.max(file.failed_lines);
        self.tally.failed = bump(self.tally.failed, failed);
        if !file.failed || failed > 0 {
            return;
        }
        self.failed_alone = bump(self.failed_alone, 1);
        self.tally.failed = bump(self.tally.failed, 1);
        if self.failures.len() < MAX_KEPT_FAILURES {
            let (message, line) = file.suite_error.unwrap_or((None, None));
            self.failures.push(file_case(&file.path, message, line));
        }
    }

    fn finish_run(mut self) -> Option<TestRun> {
        self.end_file();
        if !self.recognised {
            return None;
        }
        let counts = self.summaries.counted(self.tally);
        let mut run = TestRun::new(ReportFormat::JestText);
        run.framework = "jest".to_owned();
        run.passed = counts.passed;
        run.failed = counts.failed;
        run.skipped = counts.skipped;
        run.duration_ms = self.duration_ms;
        run.failures = self.failures;
        Some(run)
    }
}

impl LineReader for JestTextReader {
    fn feed(&mut self, line: &str) {
        self.feed_line(line);
    }

    fn claim(&self) -> Option<Claim> {
        self.summaries.claim(ReportFormat::JestText)
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        (*self).finish_run()
    }
}

/// A line of the live status Jest draws on a terminal: `RUNS ./a.test.js`, the summary, its
/// progress bar.
fn is_status(text: &str) -> bool {
    ["RUNS ", "Test Suites:", "Tests:", "Snapshots:", "Time:"]
        .iter()
        .any(|p| text.starts_with(p))
        || text.chars().all(|c| c == '█')
}

/// `PASS ./dir/a.test.js` or `FAIL …` (after colour, ` FAIL  ./a.test.js`), maybe with a
/// project's name before the path and `(5.2 s, 40 MB heap size)` after it: whether it failed,
/// and the path as Jest's stack frames name it (without `./`).
fn file_header(text: &str) -> Option<(bool, String)> {
    let (failed, rest) = if let Some(rest) = text.strip_prefix("FAIL ") {
        (true, rest)
    } else {
        (false, text.strip_prefix("PASS ")?)
    };
    let mut path = rest.trim();
    // Slow files and `--logHeapUsage` get their time and heap after the path.
    if let Some((before, detail)) = path.rsplit_once(" (")
        && detail.ends_with(')')
        && (detail.contains(" s") || detail.contains(" MB heap size"))
    {
        path = before.trim_end();
    }
    // A project's display name comes first, set off by two spaces.
    if let Some((_, after)) = path.rsplit_once("  ") {
        path = after;
    }
    let path = path.strip_prefix("./").unwrap_or(path);
    let extension = path.rsplit_once('.').map(|(_, ext)| ext)?;
    let is_test_file = TEST_FILE_EXTENSIONS.contains(&extension)
        && !path.starts_with('.')
        && !path.contains(" > ")
        && !path.contains(" [ ");
    is_test_file.then(|| (failed, truncate_utf8(path, MAX_NAME_BYTES)))
}

/// `3 failed, 1 passed, 4 total` or the live status's `1 failed, 2 of 4 total`: whether it is
/// the live form. `None` when the line is not Jest's.
fn suites_line(rest: &str) -> Option<bool> {
    let parts: Vec<&str> = rest.trim().split(", ").collect();
    let (last, counted) = parts.split_last()?;
    parse_parts(counted, &["failed", "skipped", "passed"])?;
    let total = last.strip_suffix(" total")?;
    match total.split_once(" of ") {
        Some((run, all)) => {
            number(run)?;
            number(all)?;
            Some(true)
        }
        None => number(total).map(|_| false),
    }
}

/// `5 failed, 1 skipped, 1 todo, 4 passed, 11 total` in this crate's rules.
fn tests_line(rest: &str) -> Option<Counts> {
    let parts: Vec<&str> = rest.trim().split(", ").collect();
    let (last, counted) = parts.split_last()?;
    let [failed, skipped, todo, passed] =
        parse_parts(counted, &["failed", "skipped", "todo", "passed"])?[..]
    else {
        return None;
    };
    let total = number(last.strip_suffix(" total")?)?;
    Counts {
        passed,
        failed,
        skipped: skipped + todo,
    }
    .within(total)
}

/// `0.522 s, estimated 1 s` → 522.
fn seconds(rest: &str) -> Option<u64> {
    let (value, _) = rest.trim().split_once(" s")?;
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && (0.0..1e9).contains(&seconds))
        .then(|| (seconds * 1000.0).round() as u64)
}

// Shared with the Vitest reader.

/// Passed, failed and skipped, in this crate's rules.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) passed: u64,
    pub(super) failed: u64,
    pub(super) skipped: u64,
}

impl Counts {
    pub(super) fn plus(self, other: Self) -> Self {
        Self {
            passed: bump(self.passed, other.passed),
            failed: bump(self.failed, other.failed),
            skipped: bump(self.skipped, other.skipped),
        }
    }

    /// Held to a summary's total: refused when the parts exceed it; tests the total holds
    /// beyond the parts never finished, and are failures.
    pub(super) fn within(self, total: u64) -> Option<Self> {
        let parts = self.passed + self.failed + self.skipped;
        (parts <= total).then(|| Self {
            failed: self.failed + (total - parts),
            ..self
        })
    }
}

/// `a + b`, stopping at [`MAX_COUNT`].
pub(super) fn bump(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(MAX_COUNT)
}

/// The closing summaries of one stream. A final one adds to what came before; a provisional
/// one (a live status, a summary not yet closed) stands until the next summary replaces it or
/// [`Summaries::close`] makes it final, and counts at the end if neither happened.
#[derive(Default)]
pub(super) struct Summaries {
    committed: Option<Counts>,
    pending: Option<Counts>,
}

impl Summaries {
    pub(super) fn commit(&mut self, counts: Counts) {
        self.pending = None;
        self.committed = Some(self.committed.unwrap_or_default().plus(counts));
    }

    pub(super) fn propose(&mut self, counts: Counts) {
        self.pending = Some(counts);
    }

    /// More of the provisional summary (Vitest's `Errors` line after its `Tests` line).
    pub(super) fn add_to_pending(&mut self, counts: Counts) {
        if let Some(pending) = &mut self.pending {
            *pending = pending.plus(counts);
        }
    }

    pub(super) fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// The provisional summary is final.
    pub(super) fn close(&mut self) {
        if let Some(pending) = self.pending.take() {
            self.commit(pending);
        }
    }

    /// Every summary seen, `None` without one.
    pub(super) fn claimed(&self) -> Option<Counts> {
        match (self.committed, self.pending) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or_default().plus(b.unwrap_or_default())),
        }
    }

    pub(super) fn claim(&self, format: ReportFormat) -> Option<Claim> {
        self.claimed()
            .map(|c| Claim::new(format, c.passed, c.failed, c.skipped))
    }

    /// What a run counts: the summaries, and `unfinished` (what was counted line by line
    /// since the last final summary) when no provisional summary stands for it.
    pub(super) fn counted(&self, unfinished: Counts) -> Counts {
        let committed = self.committed.unwrap_or_default();
        committed.plus(self.pending.unwrap_or(unfinished))
    }
}

/// `N word` parts in the order `words` gives, each at most once: the count of each word.
pub(super) fn parse_parts(parts: &[&str], words: &[&str]) -> Option<Vec<u64>> {
    let mut counts = vec![0; words.len()];
    let mut next = 0;
    for part in parts {
        let (n, word) = part.split_once(' ')?;
        let at = next + words.get(next..)?.iter().position(|w| *w == word)?;
        *counts.get_mut(at)? = number(n)?;
        next = at + 1;
    }
    Some(counts)
}

/// A count as runners print it: ASCII digits, at most [`MAX_COUNT`].
pub(super) fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u64>().ok().filter(|n| *n <= MAX_COUNT)
}

/// The failed case standing for a test file that failed with no failing test.
pub(super) fn file_case(path: &str, message: Option<String>, line: Option<u32>) -> TestCase {
    let mut case = TestCase::failed(path, message);
    case.suite = Some(path.to_owned());
    case.file = Some(path.to_owned());
    case.line = line;
    case
}

/// A kept case's message, and the kind of failure it tells.
pub(super) fn set_message(case: &mut TestCase, message: Option<String>) {
    if let Some(message) = message {
        let message = truncate_utf8(&message, MAX_MESSAGE_BYTES);
        case.kind = Some(classify_failure(&message));
        case.message = Some(message);
    }
}

/// An error as both runners print it: its message, then a code frame or a stack (`at …` for
/// Jest, `❯ …` for Vitest), maybe more of both (`Cause:`). Kept: the message's lines (cut at
/// [`MAX_MESSAGE_BYTES`]) and the first frames' locations.
pub(super) struct ErrorText {
    /// Lines lose this much indentation, and keep what they have beyond it.
    indent: usize,
    message: String,
    /// Blank lines since the last line kept: kept only when more text follows.
    blanks: usize,
    /// A code frame or a stack frame came: the message is over.
    done: bool,
    frames: Vec<String>,
}

impl ErrorText {
    pub(super) fn new(indent: usize) -> Self {
        Self {
            indent,
            message: String::new(),
            blanks: 0,
            done: false,
            frames: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, line: &str) {
        let trimmed = line.trim();
        if let Some(location) = stack_frame(trimmed) {
            self.done = true;
            if let Some(location) = location
                && self.frames.len() < MAX_FRAMES
            {
                self.frames.push(truncate_utf8(location, MAX_NAME_BYTES));
            }
            return;
        }
        if self.done || is_code_frame(trimmed) {
            self.done = true;
            return;
        }
        if trimmed.is_empty() {
            if !self.message.is_empty() {
                self.blanks += 1;
            }
            return;
        }
        // One byte past the cap: the case cuts the message and marks the cut.
        let room = (MAX_MESSAGE_BYTES + 1).saturating_sub(self.message.len());
        if room == 0 {
            return;
        }
        let mut text = String::new();
        if !self.message.is_empty() {
            text.push_str(&"\n".repeat(self.blanks.min(room) + 1));
        }
        self.blanks = 0;
        let spaces = line.len() - line.trim_start_matches(' ').len();
        text.push_str(
            line.get(spaces.min(self.indent)..)
                .unwrap_or_default()
                .trim_end(),
        );
        push_truncated(&mut self.message, &text, room);
    }

    pub(super) fn message(&self) -> Option<String> {
        (!self.message.is_empty()).then(|| self.message.clone())
    }

    /// The line of the first frame in `file`.
    pub(super) fn line_in(&self, file: &str) -> Option<u32> {
        self.frames
            .iter()
            .find_map(|location| line_from_stack(&format!("at {location}"), file))
    }
}

/// A stack frame: Jest's (node's) `at fn (path:line:column)`, `at path:line:column`,
/// `at fn (<anonymous>)`, or Vitest's `❯ [fn] path:line:column`. `Some` with the location when
/// it names one.
fn stack_frame(trimmed: &str) -> Option<Option<&str>> {
    if let Some(frame) = trimmed.strip_prefix("at ") {
        let location = match frame.strip_suffix(')') {
            Some(inner) => inner.rsplit_once('(').map_or(inner, |(_, l)| l),
            None if has_line_and_column(frame) => frame,
            None => return None,
        };
        return Some(has_line_and_column(location).then_some(location));
    }
    let frame = trimmed.strip_prefix("❯ ")?;
    let location = frame.rsplit(' ').next()?;
    has_line_and_column(location).then_some(Some(location))
}

/// Ends with `:line:column`.
fn has_line_and_column(location: &str) -> bool {
    let mut parts = location.rsplitn(3, ':');
    let digits =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    digits(parts.next()) && digits(parts.next()) && parts.next().is_some_and(|p| !p.is_empty())
}

/// A line of a code frame: `> 11 |     expect(…)`, `  8| throw …`, `1  |  // …`, or the caret
/// line under it (`   |     ^`).
fn is_code_frame(trimmed: &str) -> bool {
    let rest = trimmed.strip_prefix('>').unwrap_or(trimmed).trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let Some(after) = rest.get(digits..).map(str::trim_start) else {
        return false;
    };
    let Some(code) = after.strip_prefix('|') else {
        return false;
    };
    digits > 0 || code.chars().all(|c| c == ' ' || c == '^')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;
    use crate::results::testkit::fixture;
    use crate::results::testkit::{
        JEST_AND_VITEST_PIECES, assert_claims_hold, assert_not_read, assert_pieces_hold, counts,
        first_line, fixture_files, fixture_text, names, read_output, read_output_claimed,
        read_text,
    };

    /// Every variant of a fixture (with and without --verbose, plain and colour), through the
    /// detection and through this reader alone: the counts, and the claim equal to them.
    fn read_all(name: &str, verbose: bool, expected: (u64, u64, u64)) -> Vec<TestRun> {
        let mut variants = vec![name.to_owned(), format!("{name}.color")];
        if verbose {
            variants.push(format!("{name}-verbose"));
            variants.push(format!("{name}-verbose.color"));
        }
        let mut runs = Vec::new();
        for name in variants {
            let run = read_output_claimed(
                "jest-text",
                &name,
                ReportFormat::JestText,
                "stderr",
                expected,
            );
            assert_eq!(run.framework, "jest", "{name}");

            let (claim, alone) = read_text(
                ReportFormat::JestText,
                &fixture_text(&format!("jest-text/{name}.stderr.txt")),
            );
            let alone = alone.unwrap_or_else(|| panic!("{name}: not read alone"));
            assert_eq!(counts(&alone), expected, "{name}");
            assert!(claim.is_some(), "{name}");
            assert_eq!(alone.failures, run.failures, "{name}");
            // The failures named are the failures counted.
            assert_eq!(alone.failures.len() as u64, alone.failed, "{name}");
            runs.push(run);
        }
        runs
    }

    #[test]
    fn all_pass() {
        // Jest: "Tests: 3 passed, 3 total".
        for run in read_all("pass", true, (3, 0, 0)) {
            assert!(run.failures.is_empty());
            assert!(run.duration_ms.is_some_and(|ms| ms > 0 && ms < 60_000));
        }
    }

    #[test]
    fn mixed_outcomes_hooks_and_hostile_names() {
        // Jest: "Test Suites: 3 failed, 1 passed, 4 total", "Tests: 8 failed, 1 skipped,
        // 1 todo, 9 passed, 19 total". after-all.suite.js failed while its tests passed (its
        // afterAll threw): one more failure, as the --json reader counts it: 9 / 9 / 2.
        // hooks.suite.js's afterAll fails too, but tests of that file failed already.
        for run in read_all("mixed", true, (9, 9, 2)) {
            assert_eq!(
                names(&run),
                [
                    "slugify › collapses punctuation",
                    "slugify › hostile names › | pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                    "slugify › hostile names › deeper › still › compares objects",
                    "finishes in time",
                    "throws from the code under test",
                    "with a failing beforeAll › never gets to run",
                    "with a failing beforeAll › neither does this one",
                    "with a failing beforeEach › sees the hook fail",
                    "after-all.suite.js",
                ]
            );
            let first = &run.failures[0];
            assert_eq!(first.suite.as_deref(), Some("mixed.suite.js"));
            assert_eq!(first.file.as_deref(), Some("mixed.suite.js"));
            assert_eq!(first.line, Some(11));
            assert_eq!(first.kind, Some(FailureKind::Assertion));
            assert_eq!(
                first.message.as_deref(),
                Some(
                    "expect(received).toBe(expected) // Object.is equality\n\nExpected: \"a_b\"\nReceived: \"a-b\""
                )
            );
            assert_eq!(run.failures[1].line, Some(20));
            // The diff keeps its own indentation.
            let diff = run.failures[2].message.as_deref().unwrap_or_default();
            assert!(diff.contains("\n  Object {\n    \"a\": 1,"), "{diff}");
            let timeout = &run.failures[3];
            assert_eq!(timeout.kind, Some(FailureKind::Timeout));
            assert_eq!(
                timeout.message.as_deref(),
                Some(
                    "thrown: \"Exceeded timeout of 50 ms for a test.\nAdd a timeout value to this test to increase the timeout, if this is a long-running test. See https://jestjs.io/docs/api#testname-fn-timeout.\""
                )
            );
            // The frame under `Cause:`, past Jest's own.
            assert_eq!(timeout.line, Some(36));
            let thrown = &run.failures[4];
            assert_eq!(
                thrown.message.as_deref(),
                Some("TypeError: slugify expects a string")
            );
            // The frame in lib.js comes first; the test file's is the one.
            assert_eq!(thrown.line, Some(41));
            let hook = &run.failures[5];
            assert_eq!(hook.file.as_deref(), Some("hooks.suite.js"));
            assert_eq!(
                hook.message.as_deref(),
                Some("database fixture could not connect")
            );
            assert_eq!(hook.line, Some(4));
            assert_eq!(
                run.failures[7].message.as_deref(),
                Some("fresh state could not be made")
            );
            let after_all = &run.failures[8];
            assert_eq!(after_all.suite.as_deref(), Some("after-all.suite.js"));
            assert_eq!(
                after_all.message.as_deref(),
                Some("teardown left the server running")
            );
            assert_eq!(after_all.line, Some(6));
        }
    }

    #[test]
    fn a_single_file_lists_its_tests() {
        // Jest: "Tests: 5 failed, 1 skipped, 1 todo, 3 passed, 10 total".
        let runs = read_all("single", false, (3, 5, 2));
        assert_eq!(names(&runs[0])[0], "slugify › collapses punctuation");
        // Cut before its summary, the listed tests count: 3 ✓, 5 ✕, a skip and a todo.
        let text = fixture_text("jest-text/single.stderr.txt");
        let cut = text.split("\nTest Suites:").next().unwrap_or_default();
        let (claim, run) = read_text(ReportFormat::JestText, cut);
        assert_eq!(claim, None);
        assert_eq!(counts(&run.expect("a run")), (3, 5, 2));
    }

    #[test]
    fn the_issue_run() {
        // Jest: "Test Suites: 1 failed, 2 passed, 3 total", "Tests: 5 failed, 7 passed,
        // 12 total".
        for run in read_all("issue", true, (7, 5, 0)) {
            assert_eq!(
                names(&run),
                [
                    "issue › fails one",
                    "issue › fails two",
                    "issue › fails three",
                    "issue › fails four",
                    "issue › fails five"
                ]
            );
            assert!(run.failures.iter().all(|c| c.line == Some(11)));
            assert_eq!(
                run.failures[4].message.as_deref(),
                Some(
                    "expect(received).toBe(expected) // Object.is equality\n\nExpected: \"FIVE\"\nReceived: \"five\""
                )
            );
        }
    }

    #[test]
    fn files_that_fail_to_run() {
        // Jest: "Test Suites: 3 failed, 1 passed, 4 total", "Tests: 3 passed, 3 total". The
        // three files that could not run are not in Jest's `Tests:`: one failure each.
        for run in read_all("broken", true, (3, 3, 0)) {
            // Jest prints the files in the order they end, which changes from run to run.
            let mut failures = run.failures.clone();
            failures.sort_by(|a, b| a.name.cmp(&b.name));
            let found: Vec<_> = failures.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(
                found,
                ["broken.suite.js", "empty.suite.js", "missing.suite.js"]
            );
            let [broken, empty, missing] = &failures[..] else {
                panic!("{failures:?}");
            };
            assert_eq!(missing.kind, Some(FailureKind::Dependency));
            assert_eq!(
                missing.message.as_deref(),
                Some("Cannot find module './not-installed' from 'missing.suite.js'")
            );
            assert_eq!(missing.line, Some(2));
            assert_eq!(broken.kind, Some(FailureKind::Syntax));
            assert_eq!(first_line(broken), "Jest encountered an unexpected token");
            assert!(
                broken.message.as_deref().is_some_and(|m| m.ends_with(
                    "Details:\n\nSyntaxError: /tmp/skillgate-fixtures/jest-text/broken.suite.js: Unexpected token (4:0)"
                )),
                "{broken:?}"
            );
            assert_eq!(broken.line, None);
            assert_eq!(
                empty.message.as_deref(),
                Some("Your test suite must contain at least one test.")
            );
        }
    }

    #[test]
    fn many_files_and_the_summary_printed_again() {
        // Jest: "Tests: 3 failed, 297 passed, 300 total", and its failures again under
        // "Summary of all failing tests": named once each.
        for run in read_all("many", true, (297, 3, 0)) {
            let mut found = names(&run);
            found.sort_unstable();
            assert_eq!(
                found,
                ["file 13 › case 7", "file 21 › case 7", "file 5 › case 7"]
            );
            assert!(run.failures.iter().all(|c| c.line == Some(12)));
        }
    }

    #[test]
    fn no_tests_is_left_to_the_exit_code() {
        // "No tests found, exiting with code 0/1", on stdout: no summary, no header.
        for name in ["none", "none.color", "none-fails", "none-fails.color"] {
            assert_eq!(read_output("jest-text", name), None, "{name}");
            for stream in ["stdout", "stderr"] {
                let text = fixture_text(&format!("jest-text/{name}.{stream}.txt"));
                assert_eq!(
                    read_text(ReportFormat::JestText, &text),
                    (None, None),
                    "{name} {stream}"
                );
            }
        }
    }

    #[test]
    fn a_terminal_live_status_is_not_a_summary() {
        // On a terminal Jest repeats `Test Suites: 0 of 4 total` … `1 failed, 2 passed, 3 of 4
        // total` and their `Tests:` lines while it runs; the closing summary says "Tests:
        // 1 failed, 3 passed, 4 total".
        let text = fixture_text("jest-text/tty.terminal.txt");
        let (claim, run) = read_text(ReportFormat::JestText, &text);
        let run = run.expect("a run");
        assert_eq!(counts(&run), (3, 1, 0));
        assert_eq!(claim, Some(Claim::new(ReportFormat::JestText, 3, 1, 0)));
        assert_eq!(names(&run), ["slow 2"]);
        assert_eq!(run.failures[0].line, Some(10));
        // A run stopped by --bail ends on a summary in that form, closed by its last line.
        let bailed = "FAIL ./a.test.js\n  ● t\n\n    boom\n\nTest Suites: 1 failed, 1 of 3 total\nTests:       1 failed, 1 passed, 2 total\nSnapshots:   0 total\nTime:        1 s\nRan all test suites.\n";
        let mut twice = bailed.to_owned();
        twice.push_str(bailed);
        let (claim, run) = read_text(ReportFormat::JestText, &twice);
        assert_eq!(claim, Some(Claim::new(ReportFormat::JestText, 2, 2, 0)));
        assert_eq!(counts(&run.expect("a run")), (2, 2, 0));
        // The file that could not run, last before the bailed summary, counts with it.
        let bailed = "PASS ./a.test.js
FAIL ./b.test.js
  ● Test suite failed to run

    boom

Test Suites: 1 failed, 1 passed, 2 of 3 total
Tests:       1 passed, 1 total
Ran all test suites.
";
        let (claim, run) = read_text(ReportFormat::JestText, bailed);
        assert_eq!(claim, Some(Claim::new(ReportFormat::JestText, 1, 1, 0)));
        let run = run.expect("a run");
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(names(&run), ["b.test.js"]);
    }

    #[test]
    fn reads_as_the_json_report_of_the_same_run() {
        // The `jest/` fixtures are --json runs; Jest printed its default report on stderr
        // beside each document. Both readings agree, counts and names.
        for name in ["pass", "mixed", "many", "empty"] {
            let json = crate::results::read_report_as(
                &fixture(&format!("jest/{name}.json")),
                ReportFormat::Jest,
            )
            .expect("read")
            .expect("a document");
            let (claim, text) = read_text(
                ReportFormat::JestText,
                &fixture_text(&format!("jest/{name}.stderr.txt")),
            );
            let text = text.expect("a run");
            assert_eq!(counts(&text), counts(&json), "{name}");
            assert_eq!(
                claim.map(|c| (c.passed, c.failed, c.skipped)),
                Some(counts(&json))
            );
            // The document names files by absolute path.
            let json_names: Vec<_> = names(&json)
                .into_iter()
                .map(|n| n.trim_start_matches("/tmp/skillgate-fixtures/jest/"))
                .collect();
            assert_eq!(names(&text), json_names, "{name}");
        }
        // mixed: "Tests: 5 failed, 1 skipped, 1 todo, 4 passed, 11 total", and two files
        // that could not run.
        let (_, run) = read_text(
            ReportFormat::JestText,
            &fixture_text("jest/mixed.stderr.txt"),
        );
        assert_eq!(run.map(|r| counts(&r)), Some((4, 7, 2)));
    }

    #[test]
    fn two_runs_add_up() {
        let mut text = fixture_text("jest-text/issue.stderr.txt");
        text.push_str(&fixture_text("jest-text/broken-verbose.stderr.txt"));
        let (claim, run) = read_text(ReportFormat::JestText, &text);
        assert_eq!(claim, Some(Claim::new(ReportFormat::JestText, 10, 8, 0)));
        let run = run.expect("a run");
        assert_eq!(counts(&run), (10, 8, 0));
        assert_eq!(run.failures.len(), 8);
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for name in ["mixed", "mixed-verbose.color", "issue", "broken", "many"] {
            let text = fixture_text(&format!("jest-text/{name}.stderr.txt"));
            assert_claims_hold(ReportFormat::JestText, &text, 500);
        }
    }

    #[test]
    fn other_formats_are_not_claimed() {
        let text_files = fixture_files("node-spec")
            .into_iter()
            .chain(fixture_files("pytest"))
            .chain(fixture_files("vitest-text"))
            .filter(|p| p.to_string_lossy().ends_with(".txt"));
        let paths: Vec<_> = fixture_files("mocha")
            .into_iter()
            .chain(text_files)
            .collect();
        assert!(paths.len() > 60, "{}", paths.len());
        let texts = [
            "",
            "PASS\n",
            "PASS: test_one\nFAIL: test_two\n",
            "FAIL\tgithub.com/x/y\t0.01s\n",
            " PASS  test/basic.js 12 OK 1.2s\n",
            "Tests: 3 passed, 1 failed\n",
            "Tests:       3 passed, 2 total\n",
            "  ✓ one (3 ms)\n  ✕ two\n",
            "  3 passing (2ms)\n  1 failing\n",
            "ℹ tests 3\nℹ pass 3\n",
        ];
        assert_not_read(ReportFormat::JestText, &paths, &texts);
    }

    #[test]
    fn summary_lines() {
        let tests = |rest: &str| tests_line(rest).map(|c| (c.passed, c.failed, c.skipped));
        assert_eq!(
            tests("       5 failed, 1 skipped, 1 todo, 4 passed, 11 total"),
            Some((4, 5, 2))
        );
        assert_eq!(tests(" 0 total"), Some((0, 0, 0)));
        // Tests the total holds beyond its parts never finished: failures.
        assert_eq!(tests(" 2 passed, 5 total"), Some((2, 3, 0)));
        for refused in [
            " 3 passed, 2 total",
            " 1 passed, 1 failed, 2 total",
            " 1 failed, 1 failed, 2 total",
            " 1 passed",
            " 1 passed, 1 total extra",
            " -1 passed, 1 total",
            " 1 broken, 1 total",
            " 99999999999999999999 passed, 99999999999999999999 total",
            "",
        ] {
            assert_eq!(tests(refused), None, "{refused:?}");
        }
        assert_eq!(suites_line(" 3 failed, 1 passed, 4 total"), Some(false));
        assert_eq!(suites_line(" 1 failed, 1 of 3 total"), Some(true));
        assert_eq!(suites_line(" 0 of 4 total"), Some(true));
        assert_eq!(suites_line(" 4 total soon"), None);
        assert_eq!(seconds("        0.522 s, estimated 1 s"), Some(522));
        assert_eq!(seconds(" NaN s"), None);
    }

    #[test]
    fn file_headers() {
        let header = |text| file_header(text);
        assert_eq!(
            header("PASS ./a.test.js"),
            Some((false, "a.test.js".to_owned()))
        );
        assert_eq!(
            header("FAIL src/x y.spec.tsx"),
            Some((true, "src/x y.spec.tsx".to_owned()))
        );
        assert_eq!(
            header("FAIL  client  ./src/a.test.ts (5.21 s, 41 MB heap size)"),
            Some((true, "src/a.test.ts".to_owned()))
        );
        assert_eq!(header("FAIL a.mjs > suite > parses b.js"), None);
        assert_eq!(header("FAIL  broken.suite.mjs [ broken.suite.mjs ]"), None);
        assert_eq!(header("FAIL a.test.py"), None);
        assert_eq!(header("PASS ./.js"), None);
        assert_eq!(header("PASS"), None);
    }

    #[test]
    fn errors_and_frames() {
        let mut error = ErrorText::new(4);
        for line in [
            "",
            "    Error: boom",
            "",
            "      indented detail",
            "",
            "",
            "    > 3 |   x();",
            "    plain text after the frame",
            "      at Object.<anonymous> (node_modules/x/index.js:1:1)",
            "      at f (<anonymous>)",
            "      at Object.x (src/a.test.js:7:3)",
        ] {
            error.push(line);
        }
        assert_eq!(
            error.message().as_deref(),
            Some("Error: boom\n\n  indented detail")
        );
        assert_eq!(error.line_in("src/a.test.js"), Some(7));
        assert_eq!(error.line_in("a.test.js"), Some(7));
        assert_eq!(error.line_in("b.test.js"), None);
        assert_eq!(
            stack_frame("❯ slugify lib.mjs:4:11"),
            Some(Some("lib.mjs:4:11"))
        );
        assert_eq!(stack_frame("❯ a.mjs (3 tests)"), None);
        assert_eq!(stack_frame("at Array.map (<anonymous>)"), Some(None));
        assert_eq!(stack_frame("at the end of the day"), None);
        assert!(is_code_frame("> 11 |     expect(1)"));
        assert!(is_code_frame("8| throw"));
        assert!(is_code_frame("|     ^"));
        assert!(!is_code_frame("| pipes | in a message"));
        assert!(!is_code_frame("Expected: 1"));
    }

    #[test]
    fn hostile_lines_never_panic() {
        assert_pieces_hold(ReportFormat::JestText, JEST_AND_VITEST_PIECES, 300);
    }

    #[test]
    fn limits_hold() {
        let mut text = String::from("FAIL ./a.test.js\n");
        for i in 0..MAX_KEPT_FAILURES + 5 {
            text.push_str(&format!(
                "  ● t{i}\n\n    {}\n\n",
                "é".repeat(MAX_MESSAGE_BYTES)
            ));
        }
        let (claim, run) = read_text(ReportFormat::JestText, &text);
        assert_eq!(claim, None);
        let run = run.expect("a run");
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 5) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        let message = run.failures[0].message.as_deref().unwrap_or_default();
        assert!(message.len() <= MAX_MESSAGE_BYTES && message.ends_with('…'));
        // Summaries at the largest counts accepted add up without overflowing.
        let line = format!("Tests:       {MAX_COUNT} passed, {MAX_COUNT} total\n");
        let (claim, run) = read_text(ReportFormat::JestText, &line.repeat(1000));
        assert_eq!(
            claim,
            Some(Claim::new(ReportFormat::JestText, MAX_COUNT, 0, 0))
        );
        assert_eq!(run.map(|r| counts(&r)), Some((MAX_COUNT, 0, 0)));
    }
}
