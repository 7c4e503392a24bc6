//! Vitest's default reporter (Vitest 3 and 4), read line by line. Vitest prints its test list
//! and closing summary on stdout, and its failure sections on stderr:
//!
//! ```text
//!  ❯ mixed.suite.mjs (10 tests | 5 failed | 2 skipped) 65ms            (stdout)
//!    × slugify > collapses punctuation 6ms
//!      → expected 'a-b' to be 'a_b' // Object.is equality
//!  ✓ pass.suite.mjs (3 tests) 3ms
//!
//!  Test Files  3 failed | 2 passed (5)
//!       Tests  6 failed | 11 passed | 3 skipped | 1 todo (21)
//!      Errors  1 error
//!    Duration  1.24s (transform 54ms, setup 0ms, …)
//!
//! ⎯⎯⎯⎯⎯⎯ Failed Tests 6 ⎯⎯⎯⎯⎯⎯⎯                                          (stderr)
//!
//!  FAIL  mixed.suite.mjs > slugify > collapses punctuation
//! AssertionError: expected 'a-b' to be 'a_b' // Object.is equality
//!  ❯ mixed.suite.mjs:12:31
//!
//! ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/9]⎯
//! ```

use std::collections::HashSet;

use super::jest_text::{
    Counts, ErrorText, Summaries, bump, file_case, number, parse_parts, set_message,
};
use super::line_reader::LineReader;
use super::model::{
    Claim, FailureKind, MAX_KEPT_FAILURES, ReportFormat, TestCase, TestRun, truncate_utf8,
};
use crate::input::MAX_NAME_BYTES;

/// Files remembered per run (which ones had a failing test): real runs have far fewer, hostile
/// text would use memory. Past it, a file is taken as having none, which counts more failures,
/// never fewer.
const MAX_FILES: usize = 4096;
/// Tasks sharing one error (Vitest prints identical errors once, under all their names).
const MAX_GROUP: usize = MAX_KEPT_FAILURES;
/// What Vite says of a file that does not parse (its `SyntaxError` is not in the message).
const VITE_PARSE_ERROR: &str = "Failed to parse source for import analysis";
/// The parts of Vitest's `Test Files` and `Tests` lines, in the order it prints them.
const STATE_WORDS: &[&str] = &["failed", "passed", "expected fail", "skipped", "todo"];

/// Vitest's default reporter.
///
/// Counting rules:
/// - The closing `Tests` line counts: `N failed` failed, `N passed` passed, `N skipped`,
///   `N todo` and Vitest 4's `N expected fail` skipped (as pytest's xfail). Its parts add up to
///   its `(N)` total; a line whose parts exceed it is not Vitest's, and tests the total holds
///   beyond the parts never finished, and are failures. Each of `Errors  N errors` (unhandled
///   errors) is a failure.
/// - A test file that failed while none of its tests did (it could not load, holds no test,
///   or a hook failed while its tests passed or were skipped) is one failed case named after
///   the file, as the Jest and Vitest `--json` reader counts it: `Test Files  N failed` less
///   the files whose line counts a failed test. A failing hook in a file whose tests failed
///   too adds nothing: Vitest skips the tests a failing `beforeAll` kept from running.
/// - The summary stands until its `Duration` line closes it; a summary the next one replaces
///   first (a terminal's live summary) does not count, and the last one counts if nothing
///   closed it. Several closed summaries (Vitest ran twice) add up.
/// - The failure sections name the failures: each `FAIL  file > suite > test` of `Failed Tests`
///   (a title path, the error's first lines, the line of its first frame in the test file),
///   the files of `Failed Suites` none of whose tests failed, and each `Unhandled Errors`
///   entry. They count nothing: Vitest prints them on stderr and its summary on stdout, and
///   the two streams' runs add up; the summary counts what they name.
/// - Without a closing summary (the output was cut short) the file lines count (`❯ file
///   (N tests | K failed | S skipped)`), a failed file with no failed test as one failure.
/// - The text is Vitest's when it holds its summary, its file lines or its failure sections;
///   its lone `✓`/`×` test lines are left to other readers.
pub(crate) struct VitestTextReader {
    summaries: Summaries,
    recognised: bool,
    /// This run's `Test Files  N failed`.
    files_failed: Option<u64>,
    /// This run's files whose line counts a failed test.
    failing_files: HashSet<String>,
    /// Counted from the file lines since the last summary closed, for a run cut short.
    tally: Counts,
    section: Section,
    entry: Option<Entry>,
    /// Files of `Failed Suites` entries: a failure of their own unless a test of theirs failed.
    suite_files: Vec<TestCase>,
    /// Files of `Failed Tests` entries.
    test_files: HashSet<String>,
    tests: Vec<TestCase>,
    unhandled: Vec<TestCase>,
    /// The failures named by the sections already read.
    failures: Vec<TestCase>,
    duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Suites,
    Tests,
    Unhandled,
}

/// One error in a failure section.
struct Entry {
    section: Section,
    /// The `FAIL` lines above it: (file, title path within the file).
    tasks: Vec<(String, Option<String>)>,
    /// An unhandled error's banner (`Uncaught Exception`).
    title: String,
    error: ErrorText,
    /// An unhandled error's test file, named after the error.
    origin: Option<String>,
    /// A line of the error was read: a `FAIL` line after it starts another entry.
    has_text: bool,
    /// Vitest's explanation of an unhandled error began: the error is over.
    explained: bool,
}

impl Default for VitestTextReader {
    fn default() -> Self {
        Self::new()
    }
}

impl VitestTextReader {
    pub(crate) fn new() -> Self {
        Self {
            summaries: Summaries::default(),
            recognised: false,
            files_failed: None,
            failing_files: HashSet::new(),
            tally: Counts::default(),
            section: Section::None,
            entry: None,
            suite_files: Vec::new(),
            test_files: HashSet::new(),
            tests: Vec::new(),
            unhandled: Vec::new(),
            failures: Vec::new(),
            duration_ms: None,
        }
    }

    fn feed_line(&mut self, line: &str) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let text = line.trim();
        if let Some(title) = banner(text) {
            self.banner(title);
            return;
        }
        if self.section != Section::None
            && let Some(name) = text.strip_prefix("FAIL ")
        {
            self.fail_line(name);
            return;
        }
        if let Some(entry) = &mut self.entry {
            if let Some(origin) = originated_in(text) {
                entry.origin = Some(truncate_utf8(origin, MAX_NAME_BYTES));
                // What follows explains unhandled errors in general.
                entry.explained = true;
            }
            if !text.is_empty() {
                entry.has_text = true;
            }
            if !entry.explained {
                entry.error.push(line);
            }
            return;
        }
        if text.is_empty() {
            return;
        }
        if text.starts_with("RUN  v") {
            self.new_run();
        } else if let Some(rest) = text.strip_prefix("Test Files ") {
            if let Some((parts, _)) = state_line(rest) {
                self.recognised = true;
                self.files_failed = Some(parts.failed);
            }
        } else if let Some(rest) = text.strip_prefix("Tests ") {
            if let Some((parts, total)) = state_line(rest)
                && let Some(counts) = parts.within(total)
            {
                self.summary(counts);
            }
        } else if let Some(rest) = text.strip_prefix("Errors ") {
            if let Some(errors) = count_of(rest, "error") {
                self.summaries.add_to_pending(Counts {
                    failed: errors,
                    ..Counts::default()
                });
            }
        } else if let Some(rest) = text.strip_prefix("Duration ") {
            // The closing summary's; a live one has no breakdown in parentheses.
            if self.summaries.has_pending() && rest.contains(" (") {
                self.summaries.close();
                self.reset_run();
                if let Some(ms) = rest.split_whitespace().next().and_then(millis) {
                    self.duration_ms = Some(self.duration_ms.unwrap_or(0).saturating_add(ms));
                }
            }
        } else if indent <= 1
            && let Some(file) = file_line(text)
        {
            self.file_line(file);
        }
    }

    /// A ` RUN  v3.2.7 /path` header: a run starts; one before it that never closed its
    /// summary is over.
    fn new_run(&mut self) {
        self.end_entry();
        self.section = Section::None;
        self.summaries.close();
        self.resolve();
        self.reset_run();
    }

    fn reset_run(&mut self) {
        self.files_failed = None;
        self.failing_files.clear();
        self.tally = Counts::default();
    }

    fn summary(&mut self, counts: Counts) {
        self.end_entry();
        self.section = Section::None;
        self.recognised = true;
        let with_failing_tests = self.failing_files.len() as u64;
        let failed_alone = self
            .files_failed
            .map_or(0, |files| files.saturating_sub(with_failing_tests));
        self.summaries.propose(counts.plus(Counts {
            failed: failed_alone,
            ..Counts::default()
        }));
        self.resolve();
    }

    fn file_line(&mut self, file: FileLine<'_>) {
        self.recognised = true;
        let counted = file.failed.saturating_add(file.skipped);
        let mut counts = Counts {
            passed: file.tests.saturating_sub(counted),
            failed: file.failed,
            skipped: file.skipped,
        };
        if file.failed > 0 {
            if self.failing_files.len() < MAX_FILES {
                self.failing_files
                    .insert(truncate_utf8(file.name, MAX_NAME_BYTES));
            }
        } else if file.module_failed {
            counts.failed = 1;
        }
        self.tally = self.tally.plus(counts);
    }

    fn banner(&mut self, title: &str) {
        self.end_entry();
        if let Some(n) = title.strip_prefix("Failed Suites ")
            && number(n).is_some()
        {
            self.recognised = true;
            self.section = Section::Suites;
        } else if let Some(n) = title.strip_prefix("Failed Tests ")
            && number(n).is_some()
        {
            self.recognised = true;
            self.section = Section::Tests;
        } else if title == "Unhandled Errors" {
            self.recognised = true;
            self.section = Section::Unhandled;
        } else if title.is_empty() {
            // The rule that closes the unhandled errors.
            if self.section == Section::Unhandled {
                self.section = Section::None;
            }
        } else if self.section == Section::Unhandled && !is_divider(title) {
            self.entry = Some(Entry::new(Section::Unhandled, title));
        }
    }

    /// ` FAIL  file > suite > test`, ` FAIL  file [ file ]`, maybe with `|project|` first.
    fn fail_line(&mut self, name: &str) {
        if self.section == Section::Unhandled {
            return;
        }
        if self.entry.as_ref().is_none_or(|e| e.has_text) {
            self.end_entry();
            self.entry = Some(Entry::new(self.section, ""));
        }
        let mut name = name.trim();
        if let Some(rest) = name.strip_prefix('|')
            && let Some((_, after)) = rest.split_once("| ")
        {
            name = after.trim_start();
        }
        let task = match name.rsplit_once(" [ ") {
            Some((file, _)) if name.ends_with(" ]") => (file, None),
            _ => match name.split_once(" > ") {
                Some((file, title)) => (file, Some(title)),
                None => (name, None),
            },
        };
        if let Some(entry) = &mut self.entry
            && entry.tasks.len() < MAX_GROUP
        {
            entry.tasks.push((
                truncate_utf8(task.0, MAX_NAME_BYTES),
                task.1.map(|t| truncate_utf8(t, MAX_NAME_BYTES)),
            ));
        }
    }

    fn end_entry(&mut self) {
        let Some(entry) = self.entry.take() else {
            return;
        };
        let message = entry.error.message();
        match entry.section {
            Section::Suites => {
                for (file, _) in entry.tasks {
                    let known = self.suite_files.iter().any(|c| c.name == file);
                    if !known && self.suite_files.len() < MAX_KEPT_FAILURES {
                        let line = entry.error.line_in(&file);
                        let mut case = file_case(&file, None, line);
                        set_message(&mut case, message.clone());
                        if message
                            .as_deref()
                            .is_some_and(|m| m.contains(VITE_PARSE_ERROR))
                        {
                            case.kind = Some(FailureKind::Syntax);
                        }
                        self.suite_files.push(case);
                    }
                }
            }
            Section::Tests => {
                for (file, title) in entry.tasks {
                    if self.test_files.len() < MAX_FILES {
                        self.test_files.insert(file.clone());
                    }
                    if self.tests.len() >= MAX_KEPT_FAILURES {
                        continue;
                    }
                    let mut case = TestCase::failed(title.unwrap_or_else(|| file.clone()), None);
                    case.line = entry.error.line_in(&file);
                    case.suite = Some(file.clone());
                    case.file = Some(file);
                    set_message(&mut case, message.clone());
                    self.tests.push(case);
                }
            }
            Section::Unhandled => {
                if self.unhandled.len() < MAX_KEPT_FAILURES {
                    let mut case = TestCase::failed(entry.title, None);
                    if let Some(file) = entry.origin {
                        case.line = entry.error.line_in(&file);
                        case.suite = Some(file.clone());
                        case.file = Some(file);
                    }
                    set_message(&mut case, message);
                    self.unhandled.push(case);
                }
            }
            Section::None => {}
        }
    }

    /// The sections of a run are over: the files of `Failed Suites` with no failed test are
    /// failures of their own.
    fn resolve(&mut self) {
        self.end_entry();
        let test_files = std::mem::take(&mut self.test_files);
        let files = std::mem::take(&mut self.suite_files)
            .into_iter()
            .filter(|case| !test_files.contains(&case.name));
        let tests = std::mem::take(&mut self.tests);
        let unhandled = std::mem::take(&mut self.unhandled);
        for case in files.chain(tests).chain(unhandled) {
            if self.failures.len() >= MAX_KEPT_FAILURES {
                break;
            }
            self.failures.push(case);
        }
    }

    fn finish_run(mut self) -> Option<TestRun> {
        self.resolve();
        if !self.recognised {
            return None;
        }
        let counts = self.summaries.counted(self.tally);
        let mut run = TestRun::new(ReportFormat::VitestText);
        run.framework = "vitest".to_owned();
        run.passed = counts.passed;
        run.failed = counts.failed;
        run.skipped = counts.skipped;
        run.duration_ms = self.duration_ms;
        run.failures = self.failures;
        // The failures' details alone (vitest's stderr) still count the failures they name.
        run.failed = run.failed.max(run.failures.len() as u64);
        Some(run)
    }
}

impl Entry {
    fn new(section: Section, title: &str) -> Self {
        Self {
            section,
            tasks: Vec::new(),
            title: truncate_utf8(title, MAX_NAME_BYTES),
            error: ErrorText::new(0),
            origin: None,
            has_text: false,
            explained: false,
        }
    }
}

impl LineReader for VitestTextReader {
    fn feed(&mut self, line: &str) {
        self.feed_line(line);
    }

    fn claim(&self) -> Option<Claim> {
        self.summaries.claim(ReportFormat::VitestText)
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        (*self).finish_run()
    }
}

/// The parts of a `Test Files` or `Tests` line, before they are held to the total.
#[derive(Debug, Default, PartialEq, Eq)]
struct State {
    failed: u64,
    passed: u64,
    skipped: u64,
}

impl State {
    fn total(&self) -> u64 {
        self.failed + self.passed + self.skipped
    }

    fn within(&self, total: u64) -> Option<Counts> {
        Counts {
            passed: self.passed,
            failed: self.failed,
            skipped: self.skipped,
        }
        .within(total)
    }
}

/// `6 failed | 11 passed | 3 skipped | 1 todo (21)`, or `no tests`: the parts (expected
/// failures and todo as skipped) and the total, which the parts do not exceed.
fn state_line(rest: &str) -> Option<(State, u64)> {
    let rest = rest.trim();
    if rest == "no tests" {
        return Some((State::default(), 0));
    }
    let (parts, total) = rest.strip_suffix(')')?.rsplit_once(" (")?;
    let total = number(total)?;
    let parts: Vec<&str> = parts.split(" | ").collect();
    let [failed, passed, expected_fail, skipped, todo] = parse_parts(&parts, STATE_WORDS)?[..]
    else {
        return None;
    };
    let state = State {
        failed,
        passed,
        skipped: expected_fail + skipped + todo,
    };
    (state.total() <= total).then_some((state, total))
}

/// `1 error`, `2 errors`.
fn count_of(rest: &str, word: &str) -> Option<u64> {
    let (n, unit) = rest.trim().split_once(' ')?;
    let plural = format!("{word}s");
    (unit == word || unit == plural).then_some(())?;
    number(n)
}

/// `1.24s` or `841ms` → milliseconds.
fn millis(text: &str) -> Option<u64> {
    if let Some(ms) = text.strip_suffix("ms") {
        return number(ms);
    }
    let seconds: f64 = text.strip_suffix('s')?.parse().ok()?;
    (seconds.is_finite() && (0.0..1e9).contains(&seconds))
        .then(|| (seconds * 1000.0).round() as u64)
}

/// A file's line in the test list.
struct FileLine<'a> {
    name: &'a str,
    /// `❯`: the file failed.
    module_failed: bool,
    tests: u64,
    failed: u64,
    skipped: u64,
}

/// ` ❯ mixed.suite.mjs (10 tests | 5 failed | 2 skipped) 65ms`, ` ✓ a.test.ts (3 tests) 2ms`,
/// ` ↓ b.test.ts (2 tests | 2 skipped)`, ` ❯ broken.test.ts (0 test)`, maybe with a project's
/// `|name|`, Vitest 4's `| 1 todo` and a heap size after the time.
fn file_line(text: &str) -> Option<FileLine<'_>> {
    let mut chars = text.chars();
    let module_failed = match chars.next()? {
        '❯' => true,
        '✓' | '↓' => false,
        _ => return None,
    };
    let rest = chars.as_str().strip_prefix(' ')?;
    // The name may hold ` (` itself: the counts are the last parentheses that parse.
    for (at, _) in rest.rmatch_indices(" (") {
        let (Some(name), Some(after)) = (rest.get(..at), rest.get(at + 2..)) else {
            continue;
        };
        let Some((inside, tail)) = after.split_once(')') else {
            continue;
        };
        let timed = tail.is_empty()
            || tail
                .strip_prefix(' ')
                .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()));
        if !timed || name.trim().is_empty() {
            continue;
        }
        let parts: Vec<&str> = inside.split(" | ").collect();
        let Some((first, counted)) = parts.split_first() else {
            continue;
        };
        let Some(tests) = count_of(first, "test") else {
            continue;
        };
        let Some([failed, skipped, todo]) = parse_parts(counted, &["failed", "skipped", "todo"])
            .and_then(|v| <[u64; 3]>::try_from(v).ok())
        else {
            continue;
        };
        return Some(FileLine {
            name: name.trim(),
            module_failed,
            tests,
            failed,
            skipped: bump(skipped, todo),
        });
    }
    None
}

/// The title of a `⎯⎯⎯ Failed Tests 6 ⎯⎯⎯` banner, of a divider (`⎯⎯⎯[1/9]⎯`), or empty for a
/// rule of `⎯` alone.
fn banner(text: &str) -> Option<&str> {
    (text.starts_with('⎯') && text.ends_with('⎯'))
        .then(|| text.trim_matches(|c| c == '⎯' || c == ' '))
}

/// `[1/9]`: the rule between two errors.
fn is_divider(title: &str) -> bool {
    title
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.split_once('/'))
        .is_some_and(|(a, b)| number(a).is_some() && number(b).is_some())
}

/// `This error originated in "a.test.ts" test file. …` → `a.test.ts`.
fn originated_in(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("This error originated in \"")?;
    let (file, _) = rest.split_once("\" test file")?;
    (!file.is_empty()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::testkit::{
        JEST_AND_VITEST_PIECES, assert_claims_hold, assert_not_read, assert_pieces_hold, counts,
        fixture_files, fixture_text, names, read_output, read_output_claimed, read_text,
    };

    /// Both streams as one, as `2>&1` or a terminal shows them: the sections come first.
    fn combined(name: &str) -> String {
        let mut text = fixture_text(&format!("vitest-text/{name}.stderr.txt"));
        text.push_str(&fixture_text(&format!("vitest-text/{name}.stdout.txt")));
        text
    }

    /// Every variant of a fixture (plain and colour), read as separate streams through the
    /// detection, as one stream and stdout alone through this reader: the counts and the claim.
    fn read_all(name: &str, variants: &[&str], expected: (u64, u64, u64)) -> Vec<TestRun> {
        let mut runs = Vec::new();
        for variant in variants {
            let name = format!("{name}{variant}");
            let run = read_output_claimed(
                "vitest-text",
                &name,
                ReportFormat::VitestText,
                "stdout",
                expected,
            );
            assert_eq!(run.framework, "vitest", "{name}");
            // The failures named are the failures counted.
            assert_eq!(run.failures.len() as u64, run.failed, "{name}");

            let (claim, together) = read_text(ReportFormat::VitestText, &combined(&name));
            let together = together.unwrap_or_else(|| panic!("{name}: not read as one"));
            assert_eq!(counts(&together), expected, "{name}");
            assert_eq!(together.failures, run.failures, "{name}");
            assert_eq!(
                claim.map(|c| (c.passed, c.failed, c.skipped)),
                Some(expected)
            );

            let (claim, stdout) = read_text(
                ReportFormat::VitestText,
                &fixture_text(&format!("vitest-text/{name}.stdout.txt")),
            );
            assert_eq!(stdout.map(|r| counts(&r)), Some(expected), "{name}");
            assert_eq!(
                claim.map(|c| (c.passed, c.failed, c.skipped)),
                Some(expected)
            );
            runs.push(run);
        }
        runs
    }

    const PLAIN_AND_COLOUR: &[&str] = &["", ".color"];

    #[test]
    fn all_pass() {
        // Vitest: "Test Files  1 passed (1)", "Tests  3 passed (3)".
        for run in read_all("pass", PLAIN_AND_COLOUR, (3, 0, 0)) {
            assert!(run.failures.is_empty());
            assert!(run.duration_ms.is_some_and(|ms| ms > 0 && ms < 60_000));
        }
    }

    #[test]
    fn mixed_outcomes_hooks_hostile_names_and_an_unhandled_error() {
        // Vitest: "Test Files  3 failed | 2 passed (5)", "Tests  6 failed | 11 passed |
        // 3 skipped | 1 todo (21)", "Errors  1 error". after-all.suite.mjs failed while its
        // tests passed (its afterAll threw): one more failure; the unhandled error is one too:
        // 11 / 8 / 4. The two tests under hooks.suite.mjs's failing beforeAll are skipped for
        // Vitest, and that file has a failed test already.
        for run in read_all("mixed", &["", ".color", "-noci"], (11, 8, 4)) {
            assert_eq!(
                names(&run),
                [
                    "after-all.suite.mjs",
                    "with a failing beforeEach > sees the hook fail",
                    "slugify > collapses punctuation",
                    "slugify > hostile names > | pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                    "slugify > hostile names > deeper > still > compares objects",
                    "finishes in time",
                    "throws from the code under test",
                    "Uncaught Exception",
                ]
            );
            let after_all = &run.failures[0];
            assert_eq!(after_all.file.as_deref(), Some("after-all.suite.mjs"));
            assert_eq!(
                after_all.message.as_deref(),
                Some("Error: teardown left the server running")
            );
            assert_eq!(after_all.line, Some(8));
            let hook = &run.failures[1];
            assert_eq!(hook.suite.as_deref(), Some("hooks.suite.mjs"));
            assert_eq!(
                hook.message.as_deref(),
                Some("Error: fresh state could not be made")
            );
            assert_eq!(hook.line, Some(15));
            let first = &run.failures[2];
            assert_eq!(first.suite.as_deref(), Some("mixed.suite.mjs"));
            assert_eq!(first.file.as_deref(), Some("mixed.suite.mjs"));
            assert_eq!(first.line, Some(12));
            assert_eq!(first.kind, Some(FailureKind::Assertion));
            assert_eq!(
                first.message.as_deref(),
                Some(
                    "AssertionError: expected 'a-b' to be 'a_b' // Object.is equality\n\nExpected: \"a_b\"\nReceived: \"a-b\""
                )
            );
            assert_eq!(run.failures[3].line, Some(21));
            let timeout = &run.failures[5];
            assert_eq!(timeout.kind, Some(FailureKind::Timeout));
            assert_eq!(
                timeout.message.as_deref(),
                Some(
                    "Error: Test timed out in 50ms.\nIf this is a long-running test, pass a timeout value as the last argument or configure it globally with \"testTimeout\"."
                )
            );
            assert_eq!(timeout.line, Some(37));
            let thrown = &run.failures[6];
            assert_eq!(
                thrown.message.as_deref(),
                Some("TypeError: slugify expects a string")
            );
            // The frame in lib.mjs comes first; the test file's is the one.
            assert_eq!(thrown.line, Some(42));
            let unhandled = &run.failures[7];
            assert_eq!(unhandled.file.as_deref(), Some("unhandled.suite.mjs"));
            assert_eq!(unhandled.line, Some(6));
            assert_eq!(
                unhandled.message.as_deref(),
                Some("Error: thrown by a timer after the test")
            );
        }
    }

    #[test]
    fn vitest_4() {
        // Vitest 4.1.12: the same suites, its nested test list: the same summary and reading.
        let runs = read_all("v4-mixed", PLAIN_AND_COLOUR, (11, 8, 4));
        assert_eq!(names(&runs[0])[0], "after-all.suite.mjs");
        assert_eq!(runs[0].failures[2].line, Some(12));
        // Vitest 4 lists the files that failed to load, as `❯ broken.suite.mjs (0 test)`.
        for run in read_all("v4-broken", PLAIN_AND_COLOUR, (3, 3, 0)) {
            assert_eq!(
                names(&run),
                ["broken.suite.mjs", "empty.suite.mjs", "missing.suite.mjs"]
            );
        }
    }

    #[test]
    fn the_issue_run() {
        // Vitest: "Test Files  1 failed | 2 passed (3)", "Tests  5 failed | 7 passed (12)".
        for run in read_all("issue", PLAIN_AND_COLOUR, (7, 5, 0)) {
            assert_eq!(
                names(&run),
                [
                    "issue > fails one",
                    "issue > fails two",
                    "issue > fails three",
                    "issue > fails four",
                    "issue > fails five"
                ]
            );
            assert!(run.failures.iter().all(|c| c.line == Some(12)));
            assert_eq!(
                run.failures[4].message.as_deref(),
                Some(
                    "AssertionError: expected 'five' to be 'FIVE' // Object.is equality\n\nExpected: \"FIVE\"\nReceived: \"five\""
                )
            );
        }
    }

    #[test]
    fn files_that_fail_to_load() {
        // Vitest: "Test Files  3 failed | 1 passed (4)", "Tests  3 passed (3)": the three
        // files that could not load are not in its `Tests`, one failure each. empty.suite.mjs
        // has two entries (the file and its empty describe): one file, one failure.
        for run in read_all("broken", PLAIN_AND_COLOUR, (3, 3, 0)) {
            assert_eq!(
                names(&run),
                ["broken.suite.mjs", "empty.suite.mjs", "missing.suite.mjs"]
            );
            let broken = &run.failures[0];
            assert_eq!(broken.kind, Some(FailureKind::Syntax));
            assert_eq!(
                broken.message.as_deref(),
                Some(
                    "Error: Failed to parse source for import analysis because the content contains invalid JS syntax. If you are using JSX, make sure to name the file with the .jsx or .tsx extension.\n  Plugin: vite:import-analysis\n  File: /tmp/skillgate-fixtures/vitest-text/broken.suite.mjs:1:0"
                )
            );
            assert_eq!(
                run.failures[1].message.as_deref(),
                Some("Error: No test found in suite empty.suite.mjs")
            );
            let missing = &run.failures[2];
            assert_eq!(missing.kind, Some(FailureKind::Dependency));
            assert_eq!(missing.line, Some(3));
        }
    }

    #[test]
    fn many_files() {
        // Vitest: "Test Files  3 failed | 22 passed (25)", "Tests  3 failed | 297 passed (300)".
        for run in read_all("many", PLAIN_AND_COLOUR, (297, 3, 0)) {
            let mut found: Vec<_> = run
                .failures
                .iter()
                .map(|c| {
                    (
                        c.file.as_deref().unwrap_or_default(),
                        c.name.as_str(),
                        c.line,
                    )
                })
                .collect();
            found.sort_unstable();
            assert_eq!(
                found,
                [
                    ("many-05.suite.mjs", "file 5 > case 7", Some(11)),
                    ("many-13.suite.mjs", "file 13 > case 7", Some(11)),
                    ("many-21.suite.mjs", "file 21 > case 7", Some(11)),
                ]
            );
        }
    }

    #[test]
    fn no_tests_is_left_to_the_exit_code() {
        // "No test files found, exiting with code 0/1": no summary, no file line.
        for name in ["none", "none.color", "none-fails", "none-fails.color"] {
            assert_eq!(read_output("vitest-text", name), None, "{name}");
            assert_eq!(
                read_text(ReportFormat::VitestText, &combined(name)),
                (None, None),
                "{name}"
            );
        }
    }

    #[test]
    fn stderr_alone_counts_the_failures_it_names() {
        // The sections hold no summary: on their own they count the failures they name (a
        // suite that hides stdout still fails); beside stdout, the two halves of the run join
        // (the larger of each count), so nothing is counted twice.
        let (claim, run) = read_text(
            ReportFormat::VitestText,
            &fixture_text("vitest-text/mixed.stderr.txt"),
        );
        assert_eq!(claim, None);
        let run = run.expect("the sections are Vitest's");
        assert_eq!(counts(&run), (0, 8, 0));
        assert_eq!(run.failures.len(), 8);
        // Cut before its summary, stdout's file lines count: a failed file with no failed
        // test is one failure; the unhandled error is not shown there.
        let text = fixture_text("vitest-text/mixed.stdout.txt");
        let cut = text.split("\n Test Files").next().unwrap_or_default();
        let (claim, run) = read_text(ReportFormat::VitestText, cut);
        assert_eq!(claim, None);
        assert_eq!(counts(&run.expect("file lines")), (11, 7, 4));
    }

    #[test]
    fn live_and_repeated_summaries() {
        let closed = " ❯ a.test.ts (2 tests | 1 failed) 3ms\n Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)\n   Duration  1.00s (transform 1ms)\n";
        // A live summary (no breakdown after its Duration) replaced by the closing one.
        let live = " Test Files  0 passed (1)\n      Tests  1 passed (2)\n   Duration  0.50s\n";
        let (claim, run) = read_text(ReportFormat::VitestText, &format!("{live}{closed}"));
        assert_eq!(claim, Some(Claim::new(ReportFormat::VitestText, 1, 1, 0)));
        assert_eq!(counts(&run.expect("a run")), (1, 1, 0));
        // Two runs add up; a run cut short after its summary counts it.
        let cut = " RUN  v3.2.7 /x\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)\n";
        let (claim, run) = read_text(ReportFormat::VitestText, &format!("{closed}{closed}{cut}"));
        assert_eq!(claim, Some(Claim::new(ReportFormat::VitestText, 4, 2, 0)));
        assert_eq!(counts(&run.expect("a run")), (4, 2, 0));
        // A bailed run: tests in the total but in no part never finished.
        let (_, run) = read_text(
            ReportFormat::VitestText,
            " ❯ a.test.ts (2 tests | 1 failed) 3ms\n Test Files  1 failed (3)\n      Tests  1 failed | 2 passed (9)\n",
        );
        assert_eq!(counts(&run.expect("a run")), (2, 7, 0));
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for name in ["mixed", "mixed.color", "issue", "broken", "v4-mixed"] {
            assert_claims_hold(ReportFormat::VitestText, &combined(name), 500);
            let stdout = fixture_text(&format!("vitest-text/{name}.stdout.txt"));
            assert_claims_hold(ReportFormat::VitestText, &stdout, 500);
        }
    }

    #[test]
    fn other_formats_are_not_claimed() {
        let text_files = fixture_files("node-spec")
            .into_iter()
            .chain(fixture_files("pytest"))
            .chain(fixture_files("jest-text"))
            .chain(fixture_files("jest"))
            .filter(|p| p.to_string_lossy().ends_with(".txt"));
        let paths: Vec<_> = fixture_files("mocha")
            .into_iter()
            .chain(text_files)
            .collect();
        assert!(paths.len() > 60, "{}", paths.len());
        let texts = [
            "",
            " RUN  v3.2.7 /tmp/x\n",
            "   ✓ a test 1ms\n   × another 2ms\n     → boom\n",
            "Tests: 3 passed, 1 failed\n",
            "      Tests  3 passed (2)\n",
            "Tests 3 passed\n",
            " FAIL  a.test.ts > t\nError: boom\n",
            "  3 passing (2ms)\n  1 failing\n",
            "ℹ tests 3\nℹ pass 3\n",
        ];
        assert_not_read(ReportFormat::VitestText, &paths, &texts);
    }

    #[test]
    fn lines() {
        let state = |rest| state_line(rest).map(|(s, t)| (s.passed, s.failed, s.skipped, t));
        assert_eq!(
            state(" 6 failed | 11 passed | 3 skipped | 1 todo (21)"),
            Some((11, 6, 4, 21))
        );
        assert_eq!(state(" 2 passed | 1 expected fail (3)"), Some((2, 0, 1, 3)));
        assert_eq!(state(" no tests"), Some((0, 0, 0, 0)));
        assert_eq!(state(" 3 passed (2)"), None);
        assert_eq!(state(" 3 passed | 1 failed (4)"), None);
        assert_eq!(state(" 3 passed"), None);
        let file =
            |text| file_line(text).map(|f| (f.name, f.module_failed, f.tests, f.failed, f.skipped));
        assert_eq!(
            file("❯ a (b).test.ts (10 tests | 5 failed | 1 skipped | 1 todo) 64ms 41 MB heap used"),
            Some(("a (b).test.ts", true, 10, 5, 2))
        );
        assert_eq!(
            file("✓ a.test.ts (1 test) 2ms"),
            Some(("a.test.ts", false, 1, 0, 0))
        );
        assert_eq!(
            file("❯ broken.test.ts (0 test)"),
            Some(("broken.test.ts", true, 0, 0, 0))
        );
        assert_eq!(file("✓ works (3 tests) fine"), None);
        assert_eq!(file("❯ mixed.suite.mjs:12:31"), None);
        assert_eq!(banner("⎯⎯⎯ Failed Tests 6 ⎯⎯⎯"), Some("Failed Tests 6"));
        assert_eq!(banner("⎯⎯⎯⎯[1/9]⎯"), Some("[1/9]"));
        assert_eq!(banner("⎯⎯⎯⎯"), Some(""));
        assert!(is_divider("[12/340]"));
        assert!(!is_divider("Uncaught Exception"));
        assert_eq!(millis("1.24s"), Some(1240));
        assert_eq!(millis("841ms"), Some(841));
        assert_eq!(count_of("2 errors", "error"), Some(2));
        assert_eq!(count_of("2 errorz", "error"), None);
    }

    #[test]
    fn identical_errors_and_projects() {
        // Vitest prints an error shared by several tasks once, under all their names.
        let text = "⎯⎯⎯ Failed Tests 2 ⎯⎯⎯\n\n FAIL  |api| a.test.ts > one\n FAIL  |api| a.test.ts > two\nError: shared\n ❯ a.test.ts:3:1\n\n⎯⎯⎯[1/2]⎯\n\n ❯ |api| a.test.ts (2 tests | 2 failed) 3ms\n Test Files  1 failed (1)\n      Tests  2 failed (2)\n   Duration  1.00s (x)\n";
        let (_, run) = read_text(ReportFormat::VitestText, text);
        let run = run.expect("a run");
        assert_eq!(counts(&run), (0, 2, 0));
        let found: Vec<_> = run
            .failures
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.file.as_deref(),
                    c.line,
                    c.message.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("one", Some("a.test.ts"), Some(3), Some("Error: shared")),
                ("two", Some("a.test.ts"), Some(3), Some("Error: shared")),
            ]
        );
    }

    #[test]
    fn hostile_lines_never_panic() {
        assert_pieces_hold(ReportFormat::VitestText, JEST_AND_VITEST_PIECES, 300);
    }

    #[test]
    fn limits_hold() {
        let mut text = String::from("⎯⎯ Failed Tests 999 ⎯⎯\n");
        for i in 0..MAX_KEPT_FAILURES + 5 {
            text.push_str(&format!(
                " FAIL  a.test.ts > t{i}\nError: {}\n⎯⎯[{i}/999]⎯⎯\n",
                "é".repeat(MAX_KEPT_FAILURES * 20)
            ));
        }
        let (_, run) = read_text(ReportFormat::VitestText, &text);
        let run = run.expect("a run");
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        let message = run.failures[0].message.as_deref().unwrap_or_default();
        assert!(message.len() <= crate::results::MAX_MESSAGE_BYTES && message.ends_with('…'));
        // More files than remembered: counted as having no failed test, more failures.
        let mut text = String::new();
        for i in 0..MAX_FILES + 10 {
            text.push_str(&format!(" ❯ f{i}.test.ts (1 test | 1 failed) 1ms\n"));
        }
        text.push_str(&format!(
            " Test Files  {n} failed ({n})\n      Tests  {n} failed ({n})\n",
            n = MAX_FILES + 10
        ));
        let (claim, run) = read_text(ReportFormat::VitestText, &text);
        assert_eq!(claim.map(|c| c.failed), Some((MAX_FILES + 20) as u64));
        assert_eq!(run.map(|r| r.failed), Some((MAX_FILES + 20) as u64));
    }
}
