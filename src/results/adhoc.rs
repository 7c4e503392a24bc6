//! The shell formats skill repositories print from hand-written bash suites: totals lines
//! (`Passed: N`, `Tests failed: N`, `7/9 passed`) and per-test markers (`✓ name`, `[FAIL] name`).

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, truncate_utf8,
};
use super::summary;
use crate::input::MAX_NAME_BYTES;

/// A failure's message keeps at most this many of the indented lines under its marker.
const MAX_MESSAGE_LINES: usize = 50;

/// Per-test markers that start a line; whitespace and the test's name must follow.
const SYMBOLS: &[(char, Outcome)] = &[
    ('✓', Outcome::Passed),
    ('✔', Outcome::Passed),
    ('✅', Outcome::Passed),
    ('✗', Outcome::Failed),
    ('✘', Outcome::Failed),
    ('❌', Outcome::Failed),
    // Jest and mocha mark failures with these; their passes use ✓/✔, so a jest or mocha run
    // that reaches this reader must not read as all passed.
    ('✕', Outcome::Failed),
    ('✖', Outcome::Failed),
    ('⏭', Outcome::Skipped),
];

/// Tags that start a line, upper case as scripts print them; the test's name must follow.
const TAGS: &[(&str, Outcome)] = &[
    ("[PASS]", Outcome::Passed),
    ("[PASSED]", Outcome::Passed),
    ("[FAIL]", Outcome::Failed),
    ("[FAILED]", Outcome::Failed),
    ("[SKIP]", Outcome::Skipped),
    ("[SKIPPED]", Outcome::Skipped),
    ("PASS:", Outcome::Passed),
    ("FAIL:", Outcome::Failed),
    ("SKIP:", Outcome::Skipped),
];

/// The ad-hoc shell formats, read line by line among any other output.
///
/// Rules:
/// - A totals line is a whole line (after an optional leading symbol such as `✅` or `📊`):
///   `Passed: N`, `Failed: N`, `Skipped: N`, `Errors: N`, `Total: N`, with `Tests ` or
///   `Total ` before the word allowed, in any case, several on one line separated by `,`, `|`,
///   `;`, `/` or `-` (`Passed: 8, Failed: 1`), `Passed: P/T` too; or `P/T passed` with
///   `tests`/`checks` before `passed` and a label such as `Results:` or `Test summary:` before
///   it allowed (`Results: 7/9 tests passed`; `Suite A: 3/4 passed` is one group's, not a total).
/// - Consecutive totals lines (blank lines and rules such as `=====` between them allowed) form
///   one block; a word seen twice starts a new block. A block counts only when its numbers are
///   complete and consistent: passed and failed, or a total and one of them; with all three,
///   passed + failed (+ skipped) = total. `P/T passed` is passed P of total T, so P ≤ T and
///   failed = T − P. Whether a total includes the skipped tests is unknown, so what is derived
///   from it errs towards failing: failed = T − P, passed = T − failed − skipped when that
///   fits. Errors count as failed.
/// - The last counted block wins: a script may print partial tallies before its final one.
/// - Explicit totals win over markers. Without any, the markers are counted: `✓ ✔ ✅`,
///   `[PASS]`, `PASS:` pass; `✗ ✘ ❌ ✕ ✖`, `[FAIL]`, `FAIL:` fail; `⏭`, `[SKIP]`, `SKIP:`
///   skip. Totals that print no skip count take the skips the markers counted. A
///   marker must start the (trimmed) line and be followed by a name. A marker line that is
///   itself a tally (`✓ All tests passed!`, `✗ 2 tests failed`) names no test and is not counted.
/// - A failure's message is the lines right after its failure marker that are indented deeper
///   than the marker (the first one always kept); a blank or shallower line ends it.
/// - When totals win, the failures named by markers are kept, at most as many as the totals
///   count as failed.
/// - A plain closing line (`N passed, N failed`) after the last totals block, or with no block,
///   is the summary reader's: this reader then returns `None` so that the explicit line wins
///   over counted markers.
/// - Words such as `passed` or `failed` inside other text never count. Nothing recognised:
///   `None`.
#[derive(Default)]
pub(crate) struct AdhocReader {
    block: Block,
    /// The last complete, consistent totals block, and whether it printed a skip count.
    totals: Option<(Counts, bool)>,
    /// A plain closing line came after the last totals block.
    plain_after_totals: bool,
    /// What the markers counted.
    marked: Counts,
    /// Failures named by markers, at most [`MAX_KEPT_FAILURES`].
    failures: Vec<TestCase>,
    /// The failure marker whose indented lines are being read.
    open: Option<OpenFailure>,
    /// Something was printed after the last totals line: they do not close the stream, so they
    /// may be a tally the tests printed, not the harness's summary.
    said_after_totals: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    passed: u64,
    failed: u64,
    skipped: u64,
}

/// The totals lines read since the block opened; `None` where a word was not printed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Block {
    passed: Option<u64>,
    failed: Option<u64>,
    errors: Option<u64>,
    skipped: Option<u64>,
    total: Option<u64>,
}

struct OpenFailure {
    indent: usize,
    name: String,
    message: String,
    lines: usize,
}

impl LineReader for AdhocReader {
    fn feed(&mut self, line: &str) {
        let text = line.trim();
        let indent = line.len() - line.trim_start().len();
        if let Some(open) = &mut self.open {
            if !text.is_empty()
                && indent > open.indent
                && parse_marker(text).is_none()
                && parse_totals(text).is_none()
            {
                open.push(text);
                return;
            }
            self.close_failure();
        }
        if let Some(fields) = parse_totals(text) {
            self.add_totals(fields);
            self.said_after_totals = false;
            return;
        }
        if is_rule(text) {
            return;
        }
        if !self.said_after_totals
            && (self.totals.is_some() || self.block != Block::default())
            && text.chars().any(char::is_alphanumeric)
        {
            self.said_after_totals = true;
        }
        self.end_block();
        if summary::parse_line(text).is_some() {
            self.plain_after_totals = true;
        } else if let Some((outcome, name)) = parse_marker(text) {
            self.mark(outcome, name, indent);
        }
    }

    /// A complete totals block that closes the stream (nothing but rules and blank lines after
    /// it) is the harness's own summary.
    fn claim(&self) -> Option<Claim> {
        if self.said_after_totals {
            return None;
        }
        let (mut totals, printed_skips) = match self.block.counts() {
            Some(counts) => counts,
            None if self.plain_after_totals => return None,
            None => self.totals?,
        };
        if !printed_skips {
            totals.skipped = self.marked.skipped;
        }
        Some(Claim::new(
            ReportFormat::Adhoc,
            totals.passed,
            totals.failed,
            totals.skipped,
        ))
    }

    fn finish(mut self: Box<Self>) -> Option<TestRun> {
        self.close_failure();
        self.end_block();
        if self.plain_after_totals {
            return None;
        }
        let counts = match self.totals {
            Some((mut totals, printed_skips)) => {
                self.failures
                    .truncate(usize::try_from(totals.failed).unwrap_or(usize::MAX));
                if !printed_skips {
                    totals.skipped = self.marked.skipped;
                }
                totals
            }
            None if self.marked != Counts::default() => self.marked,
            None => return None,
        };
        let mut run = TestRun::new(ReportFormat::Adhoc);
        run.passed = counts.passed;
        run.failed = counts.failed;
        run.skipped = counts.skipped;
        run.failures = self.failures;
        Some(run)
    }
}

impl AdhocReader {
    fn add_totals(&mut self, fields: Block) {
        if self.block.overlaps(&fields) {
            self.end_block();
        }
        self.block.fill(fields);
    }

    fn end_block(&mut self) {
        let block = std::mem::take(&mut self.block);
        if let Some(counts) = block.counts() {
            self.totals = Some(counts);
            self.plain_after_totals = false;
        }
    }

    fn mark(&mut self, outcome: Outcome, name: &str, indent: usize) {
        if is_tally(name) {
            return;
        }
        let counter = match outcome {
            Outcome::Passed => &mut self.marked.passed,
            Outcome::Failed => &mut self.marked.failed,
            Outcome::Skipped => &mut self.marked.skipped,
        };
        *counter = counter.saturating_add(1);
        if outcome == Outcome::Failed && self.failures.len() < MAX_KEPT_FAILURES {
            self.open = Some(OpenFailure {
                indent,
                name: truncate_utf8(name, MAX_NAME_BYTES),
                message: String::new(),
                lines: 0,
            });
        }
    }

    fn close_failure(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        let message = (!open.message.is_empty()).then_some(open.message);
        let mut case = TestCase::failed(open.name, message);
        // Scripts often put the reason on the marker line (`✗ yq: command not found`).
        case.kind = Some(classify_failure(&format!(
            "{}\n{}",
            case.name,
            case.message.as_deref().unwrap_or_default()
        )));
        self.failures.push(case);
    }
}

impl OpenFailure {
    fn push(&mut self, text: &str) {
        if self.lines >= MAX_MESSAGE_LINES || self.message.len() > MAX_MESSAGE_BYTES {
            return;
        }
        if !self.message.is_empty() {
            self.message.push('\n');
        }
        // One byte over the cap is enough for `TestCase::failed` to mark the cut.
        let room = (MAX_MESSAGE_BYTES + 1).saturating_sub(self.message.len());
        let mut end = text.len().min(room);
        while end > 0 && !text.is_char_boundary(end) {
            end -= 1;
        }
        self.message.push_str(text.get(..end).unwrap_or_default());
        self.lines += 1;
    }
}

impl Block {
    /// Whether `other` prints a word this block already has: the start of another block.
    fn overlaps(&self, other: &Block) -> bool {
        (self.passed.is_some() && other.passed.is_some())
            || (self.failed.is_some() && other.failed.is_some())
            || (self.errors.is_some() && other.errors.is_some())
            || (self.skipped.is_some() && other.skipped.is_some())
            || (self.total.is_some() && other.total.is_some())
    }

    fn fill(&mut self, other: Block) {
        self.passed = self.passed.or(other.passed);
        self.failed = self.failed.or(other.failed);
        self.errors = self.errors.or(other.errors);
        self.skipped = self.skipped.or(other.skipped);
        self.total = self.total.or(other.total);
    }

    /// The counts when the block is complete and consistent, and whether it printed skips.
    fn counts(&self) -> Option<(Counts, bool)> {
        let skipped = self.skipped.unwrap_or(0);
        let failed = match (self.failed, self.errors) {
            (None, None) => None,
            (f, e) => Some(f.unwrap_or(0).checked_add(e.unwrap_or(0))?),
        };
        let (passed, failed) = match (self.passed, failed, self.total) {
            (Some(p), Some(f), None) => (p, f),
            (Some(p), Some(f), Some(t)) => {
                let ran = p.checked_add(f)?;
                // The total may or may not include the skipped tests.
                (ran == t || ran.checked_add(skipped)? == t).then_some((p, f))?
            }
            // Erring towards failing: the skipped tests are not taken out of the failures...
            (Some(p), None, Some(t)) => (p, t.checked_sub(p)?),
            // ...but out of the passes when the total can hold them.
            (None, Some(f), Some(t)) => {
                let rest = t.checked_sub(f)?;
                (rest.checked_sub(skipped).unwrap_or(rest), f)
            }
            _ => return None,
        };
        let counts = Counts {
            passed,
            failed,
            skipped,
        };
        Some((counts, self.skipped.is_some()))
    }
}

/// A totals line, as the words it printed; `None` for any other line.
fn parse_totals(text: &str) -> Option<Block> {
    // `✅ Passed: 8`, `📊 Results: 7/9 passed`: a leading symbol is decoration.
    let text = text
        .trim_start_matches(|c: char| c.is_whitespace() || !(c.is_ascii() || c.is_alphanumeric()))
        .trim_end();
    parse_ratio_line(text).or_else(|| parse_pairs(text))
}

/// `[Label:] P/T [tests|checks] passed[.!]`.
fn parse_ratio_line(text: &str) -> Option<Block> {
    let counts = match text.split_once(':') {
        Some((label, rest)) if is_label(label) => rest.trim_start(),
        Some(_) => return None,
        None => text,
    };
    let (passed, rest) = number(counts)?;
    let (total, rest) = number(rest.strip_prefix('/')?)?;
    if passed > total {
        return None;
    }
    let rest = rest.strip_suffix(['.', '!']).unwrap_or(rest).to_lowercase();
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words.as_slice() {
        ["passed"] | ["tests" | "test" | "checks" | "check", "passed"] => {}
        _ => return None,
    }
    Some(Block {
        passed: Some(passed),
        total: Some(total),
        ..Block::default()
    })
}

/// One or two words that announce the run's result (`Results`, `Test summary`, `Total`), not
/// one test's or one group's (`Test 3`, `Suite A`), whose ratios are not the run's.
fn is_label(label: &str) -> bool {
    let words: Vec<String> = label.split_whitespace().map(str::to_lowercase).collect();
    !label.starts_with(char::is_whitespace)
        && (1..=2).contains(&words.len())
        && words.iter().all(|w| {
            matches!(
                w.as_str(),
                "results"
                    | "result"
                    | "summary"
                    | "total"
                    | "totals"
                    | "overall"
                    | "final"
                    | "tests"
                    | "test"
                    | "checks"
                    | "score"
            )
        })
}

/// `Word: N` pairs filling the whole line.
fn parse_pairs(text: &str) -> Option<Block> {
    let mut block = Block::default();
    let mut rest = text;
    let mut pairs = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || ",|;/-".contains(c));
        if rest.is_empty() {
            break;
        }
        let (key, after) = rest.split_once(':')?;
        let key: Vec<String> = key.split_whitespace().map(str::to_lowercase).collect();
        let key: Vec<&str> = key.iter().map(String::as_str).collect();
        let (value, after) = number(after.trim_start())?;
        let mut after = after;
        let slot = match key.as_slice() {
            ["passed" | "passing"] | ["tests" | "total", "passed"] => {
                // `Passed: 7/9`.
                if let Some((total, more)) = after.strip_prefix('/').and_then(number) {
                    if value > total || block.total.is_some() {
                        return None;
                    }
                    block.total = Some(total);
                    after = more;
                }
                &mut block.passed
            }
            ["failed" | "failing" | "failures"] | ["tests" | "total", "failed"] => {
                &mut block.failed
            }
            ["errors" | "errored"] | ["tests", "errored"] => &mut block.errors,
            ["skipped"] | ["tests" | "total", "skipped"] => &mut block.skipped,
            ["total" | "tests"] | ["total", "tests"] | ["tests", "run"] => &mut block.total,
            _ => return None,
        };
        if slot.replace(value).is_some() {
            return None;
        }
        rest = skip_percentage(after)?;
        pairs += 1;
    }
    (pairs > 0).then_some(block)
}

/// After a count: nothing, a separator, or a percentage in brackets (`Passed: 8 (80%)`).
fn skip_percentage(after: &str) -> Option<&str> {
    let trimmed = after.trim_start();
    if let Some(inner) = trimmed.strip_prefix('(') {
        let (inside, more) = inner.split_once(')')?;
        let is_percentage = inside.ends_with('%')
            && inside
                .trim_end_matches('%')
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.');
        return is_percentage.then_some(more);
    }
    // The count must end here: `Passed: 8 files` is prose.
    match after.chars().next() {
        None => Some(after),
        Some(c) if c.is_whitespace() || ",|;/-".contains(c) => Some(after),
        Some(_) => None,
    }
}

/// Leading ASCII digits as a number, and the rest.
fn number(s: &str) -> Option<(u64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let value = s.get(..digits)?.parse().ok()?;
    Some((value, s.get(digits..)?))
}

/// A blank line or a rule (`=====`, `-----`, `────`): it neither ends nor joins a block.
fn is_rule(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_whitespace() || "=-_*#~+|".contains(c) || ('\u{2500}'..='\u{257f}').contains(&c)
    })
}

/// A per-test marker at the start of `text` (already trimmed): its outcome and the test's name.
fn parse_marker(text: &str) -> Option<(Outcome, &str)> {
    let mut chars = text.chars();
    let first = chars.next()?;
    if let Some(&(_, outcome)) = SYMBOLS.iter().find(|(symbol, _)| *symbol == first) {
        let rest = chars.as_str();
        // The emoji presentation selector some terminals print after ✔ and ✖.
        let rest = rest.strip_prefix('\u{fe0f}').unwrap_or(rest);
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let name = rest.trim();
        return (!name.is_empty()).then_some((outcome, name));
    }
    TAGS.iter().find_map(|&(tag, outcome)| {
        let rest = text.strip_prefix(tag)?;
        // `[PASS]name` is not a tag; `PASS:name` is as scripts print it.
        if tag.ends_with(']') && !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let name = rest.trim();
        (!name.is_empty()).then_some((outcome, name))
    })
}

/// A marker's text that reports a tally rather than naming a test: `All tests passed!`,
/// `2 tests failed`, `7/9 passed`, `Some checks failed.`
fn is_tally(name: &str) -> bool {
    let lower = name.to_lowercase();
    let lower = lower.trim_end_matches(['.', '!']);
    let words: Vec<&str> = lower.split_whitespace().collect();
    let Some((last, before)) = words.split_last() else {
        return false;
    };
    matches!(*last, "passed" | "failed" | "succeeded")
        && before.iter().all(|w| {
            matches!(
                *w,
                "all"
                    | "some"
                    | "the"
                    | "of"
                    | "tests"
                    | "test"
                    | "test(s)"
                    | "checks"
                    | "check"
                    | "check(s)"
            ) || w.chars().all(|c| c.is_ascii_digit() || c == '/')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::Lines;
    use crate::input::terminal_text;
    use crate::results::model::FailureKind;
    use crate::results::read_output;
    use crate::results::testkit::fixture;

    fn read(text: &str) -> Option<TestRun> {
        let mut reader: Box<dyn LineReader> = Box::new(AdhocReader::default());
        for line in text.lines() {
            reader.feed(line);
        }
        reader.finish()
    }

    fn counts(text: &str) -> Option<(u64, u64, u64)> {
        read(text).map(|run| {
            assert_eq!(run.framework, "adhoc");
            assert_eq!(run.format, ReportFormat::Adhoc);
            (run.passed, run.failed, run.skipped)
        })
    }

    fn names(run: &TestRun) -> Vec<&str> {
        run.failures.iter().map(|c| c.name.as_str()).collect()
    }

    /// A fixture's output read as the runner reads it: line by line, colour stripped.
    fn read_fixture(name: &str) -> Option<TestRun> {
        let file = std::fs::File::open(fixture(&format!("adhoc/{name}.stdout"))).expect("open");
        let mut lines = Lines::new(std::io::BufReader::new(file));
        let mut reader: Box<dyn LineReader> = Box::new(AdhocReader::default());
        while let Some(line) = lines.next_line().expect("read") {
            reader.feed(&terminal_text(line));
        }
        reader.finish()
    }

    /// What the script itself counted (`<name>.expected`): counts and failed names.
    fn expected(name: &str) -> ((u64, u64, u64), Vec<String>) {
        let text = std::fs::read_to_string(fixture(&format!("adhoc/{name}.expected")))
            .expect("expected file");
        let mut counts = (None, None, None);
        let mut failed = Vec::new();
        for line in text.lines() {
            let (key, value) = line.split_once('=').expect("key=value");
            match key {
                "passed" => counts.0 = value.parse().ok(),
                "failed" => counts.1 = value.parse().ok(),
                "skipped" => counts.2 = value.parse().ok(),
                "failed_test" => failed.push(value.to_owned()),
                _ => panic!("unknown key {key}"),
            }
        }
        let counts = (
            counts.0.expect("passed"),
            counts.1.expect("failed"),
            counts.2.expect("skipped"),
        );
        (counts, failed)
    }

    #[test]
    fn fixtures_read_as_their_scripts_counted() {
        // (script, passed / failed / skipped as the script's own counters say, how it is read)
        for (name, want) in [
            // `Passed:`/`Failed:` in a ruled box; the closing `✗ 2 test(s) failed` is a tally.
            ("counters", (6, 2, 0)),
            // Three running `Tests passed/failed` tallies; the last block, with skips, wins.
            ("tests-passed", (4, 3, 1)),
            // `Results: 7/9 tests passed` (T counts what ran); the `[SKIP]` marker adds the skip.
            ("ratio", (7, 2, 1)),
            // No totals: ✅/❌/⏭️ markers counted; `❌ 2 checks failed` is a tally.
            ("emoji", (5, 2, 1)),
            // `PASS:`/`FAIL:` lines, then `Passed: 4 | Failed: 2 | Skipped: 1`.
            ("pass-colon", (4, 2, 1)),
            // Partial `Passed:  Failed:` lines per section, a final block with `Total:`.
            ("sections", (5, 1, 1)),
        ] {
            let run = read_fixture(name).unwrap_or_else(|| panic!("{name}: no run"));
            let (truth, failed_names) = expected(name);
            assert_eq!(truth, want, "{name}: the script's own counts");
            assert_eq!((run.passed, run.failed, run.skipped), want, "{name}");
            assert_eq!(names(&run), failed_names, "{name}");
        }
    }

    #[test]
    fn fixture_failure_messages_are_the_indented_lines() {
        let run = read_fixture("counters").expect("run");
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("expected: 'cafe'\nactual:   'caf'")
        );
        let run = read_fixture("tests-passed").expect("run");
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("scripts/merge.sh: mode 644\nhelp: chmod +x scripts/merge.sh")
        );
        let run = read_fixture("emoji").expect("run");
        let bs4 = &run.failures[0];
        assert_eq!(
            bs4.message.as_deref(),
            Some("→ ModuleNotFoundError: No module named 'bs4_that_is_not_installed'")
        );
        assert_eq!(bs4.kind, Some(FailureKind::Dependency));
        assert_eq!(run.failures[1].kind, Some(FailureKind::Timeout));
        // `PASS:`/`FAIL:` scripts put their details on stderr: the names stand alone.
        let run = read_fixture("pass-colon").expect("run");
        assert_eq!(run.failures[0].message, None);
    }

    #[test]
    fn the_detector_puts_adhoc_after_tap_and_before_the_plain_line() {
        let run = read_output(
            &fixture("adhoc/sections.stdout"),
            &fixture("adhoc/sections.stderr"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.format, ReportFormat::Adhoc);
        assert_eq!((run.passed, run.failed, run.skipped), (5, 1, 1));
        // The plain closing line after ✓/✗ markers is still the summary reader's.
        let run = read_output(
            &fixture("summary/stdout.txt"),
            &fixture("summary/stderr.txt"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.format, ReportFormat::Summary);
        // TAP with `✓` in its descriptions stays TAP.
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("stdout");
        std::fs::write(
            &out,
            "TAP version 13\n✓ noise\nok 1 - a\n1..1\nPassed: 9\nFailed: 0\n",
        )
        .expect("write");
        let run = read_output(&out, &dir.path().join("missing"))
            .expect("read")
            .expect("results");
        assert_eq!(run.format, ReportFormat::Tap);
    }

    #[test]
    fn totals_lines_in_their_forms() {
        assert_eq!(counts("Passed: 8\nFailed: 2"), Some((8, 2, 0)));
        assert_eq!(
            counts("Tests passed: 8\nTests failed: 0\nTests skipped: 1"),
            Some((8, 0, 1))
        );
        assert_eq!(counts("PASSED: 3, FAILED: 1, SKIPPED: 2"), Some((3, 1, 2)));
        assert_eq!(counts("Passed: 3 | Failed: 1"), Some((3, 1, 0)));
        assert_eq!(counts("✅ Passed: 4\n❌ Failed: 1"), Some((4, 1, 0)));
        assert_eq!(counts("Passed: 8 (80%)\nFailed: 2 (20%)"), Some((8, 2, 0)));
        assert_eq!(counts("Total: 10\nPassed: 10"), Some((10, 0, 0)));
        assert_eq!(counts("Total: 10\nFailed: 3"), Some((7, 3, 0)));
        assert_eq!(counts("Passed: 7/9"), Some((7, 2, 0)));
        assert_eq!(counts("Passed: 2\nFailed: 1\nErrors: 1"), Some((2, 2, 0)));
        assert_eq!(counts("7/9 passed"), Some((7, 2, 0)));
        assert_eq!(counts("Results: 7/9 tests passed"), Some((7, 2, 0)));
        assert_eq!(
            counts("📊 Test results: 9/9 checks passed!"),
            Some((9, 0, 0))
        );
        assert_eq!(counts("0/0 passed"), Some((0, 0, 0)));
        // Whether a total holds the skipped tests is unknown: the failures are not reduced.
        assert_eq!(counts("7/10 passed\nSkipped: 1"), Some((7, 3, 1)));
        assert_eq!(counts("Total: 10\nFailed: 2\nSkipped: 1"), Some((7, 2, 1)));
        assert_eq!(counts("Total: 2\nFailed: 2\nSkipped: 1"), Some((0, 2, 1)));
    }

    #[test]
    fn a_block_runs_across_blank_lines_and_rules() {
        let text = "==========\nTest Summary\n==========\nTotal:   10\n\nPassed:  7\n----------\n\
                    Failed:  2\nSkipped: 1\n==========\n";
        assert_eq!(counts(text), Some((7, 2, 1)));
    }

    #[test]
    fn totals_must_be_complete_and_consistent() {
        for text in [
            "Passed: 3",
            "Failed: 1",
            "Total: 4",
            "9/7 passed",
            "Passed: 9/7",
            "Total: 10\nPassed: 8\nFailed: 1",
            "Total: 3\nPassed: 5",
            "Passed: 3\nsome text\nFailed: 1",
        ] {
            assert_eq!(counts(text), None, "{text:?}");
        }
        // Passed + failed may leave the skipped out of the total, or count them in.
        assert_eq!(
            counts("Total: 8\nPassed: 7\nFailed: 1\nSkipped: 2"),
            Some((7, 1, 2))
        );
        assert_eq!(
            counts("Total: 10\nPassed: 7\nFailed: 1\nSkipped: 2"),
            Some((7, 1, 2))
        );
    }

    #[test]
    fn the_last_totals_block_wins() {
        let text = "Passed: 3\nFailed: 0\n✓ a\nPassed: 5\nFailed: 1\n";
        assert_eq!(counts(text), Some((5, 1, 0)));
        // Back to back, a repeated word starts the next block.
        assert_eq!(
            counts("Passed: 3\nFailed: 0\nPassed: 5\nFailed: 1"),
            Some((5, 1, 0))
        );
        assert_eq!(
            counts("Results: 2/4 passed\nResults: 4/4 passed"),
            Some((4, 0, 0))
        );
        // An incomplete later block does not undo a complete one.
        assert_eq!(
            counts("Passed: 5\nFailed: 1\nlater\nPassed: 9"),
            Some((5, 1, 0))
        );
    }

    #[test]
    fn a_totals_block_is_the_claim_and_holds_on_any_interleaving() {
        let (claim, run) = crate::results::testkit::read_with(
            ReportFormat::Adhoc,
            &[
                "✓ one".to_owned(),
                "✗ two".to_owned(),
                "Passed: 7".to_owned(),
                "Failed: 1".to_owned(),
            ],
        );
        let claim = claim.expect("a totals block");
        assert_eq!((claim.passed, claim.failed, claim.skipped), (7, 1, 0));
        let run = run.expect("a run");
        assert_eq!((run.passed, run.failed), (7, 1));
        // Totals with the suite's output after them may be a tally a test printed.
        let (claim, run) = crate::results::testkit::read_with(
            ReportFormat::Adhoc,
            &[
                "Passed: 7".to_owned(),
                "Failed: 1".to_owned(),
                "✓ three".to_owned(),
            ],
        );
        assert_eq!(claim, None);
        assert!(run.is_some());
        // Markers alone are no summary.
        let (claim, _) = crate::results::testkit::read_with(
            ReportFormat::Adhoc,
            &["✓ one".to_owned(), "✗ two".to_owned()],
        );
        assert_eq!(claim, None);
        for name in ["counters", "sections", "tests-passed", "ratio"] {
            let text =
                std::fs::read_to_string(fixture(&format!("adhoc/{name}.stdout"))).expect("fixture");
            crate::results::testkit::assert_claims_hold(ReportFormat::Adhoc, &text, 300);
        }
    }

    #[test]
    fn totals_win_over_markers_and_keep_their_failures() {
        let text = "✓ one\n✗ two\n  expected 2\n✗ three\n[SKIP] four\n✓ All tests passed\n\
                    Passed: 7\nFailed: 1\n";
        let run = read(text).expect("run");
        // The totals print no skip count: the skip markers fill it in.
        assert_eq!((run.passed, run.failed, run.skipped), (7, 1, 1));
        assert_eq!(
            counts("[SKIP] a\nPassed: 1\nFailed: 0\nSkipped: 0"),
            Some((1, 0, 0))
        );
        // At most as many named failures as the totals count.
        assert_eq!(names(&run), ["two"]);
        assert_eq!(run.failures[0].message.as_deref(), Some("expected 2"));
    }

    #[test]
    fn markers_are_counted_without_totals() {
        let text = "\
Running checks
  ✓ parses arguments
  ✔ renders a page
  ✔\u{fe0f} emoji check
✅ writes the file
  ✗ merges two files
      expected 2 pages
      got 1
  note: unindented enough to end the message
✘ cleans up
❌ uploads
✖ jest-style failure
[PASS] lint
[FAIL] yq: command not found
[SKIP] network test
PASS: shellcheck
FAIL: timeout after 30s
SKIP: gpu
⏭\u{fe0f}  slow test (skipped)
✓ All 9 tests passed!
✗ 3 tests failed
";
        let run = read(text).expect("run");
        // The two tally lines at the end name no test.
        assert_eq!((run.passed, run.failed, run.skipped), (6, 6, 3));
        assert_eq!(
            names(&run),
            [
                "merges two files",
                "cleans up",
                "uploads",
                "jest-style failure",
                "yq: command not found",
                "timeout after 30s",
            ]
        );
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("expected 2 pages\ngot 1")
        );
        assert_eq!(run.failures[1].message, None);
        assert_eq!(run.failures[0].kind, Some(FailureKind::Assertion));
        assert_eq!(run.failures[4].kind, Some(FailureKind::Dependency));
        assert_eq!(run.failures[5].kind, Some(FailureKind::Timeout));
    }

    #[test]
    fn words_are_never_counted() {
        for text in [
            "",
            "all good",
            "3 tests passed so far",
            "The build passed: 3",
            "Passed: 3 files",
            "passed: yes",
            "Status: passed",
            "Tests passed: 3 of 4",
            "    echo \"✓ name\"",
            "✓",
            "✓   ",
            "✓name",
            "[PASS]",
            "[PASS]name",
            "[pass] lower case",
            "PASS:",
            "ok - tap is not ours",
            "not ok 1 - tap is not ours",
            "check ✓ done",
            "Here is why: 7/9 passed",
            "Suite A: 3/4 passed",
            "Test 3: 1/2 passed",
            "7/9 passed in 3s",
            "-7/9 passed",
            "99999999999999999999999/99999999999999999999999 passed",
            "Passed: 99999999999999999999999\nFailed: 0",
            "Passed: 18446744073709551615\nFailed: 1\nErrors: 18446744073709551615",
            "✓ All tests passed!",
            "==========",
        ] {
            assert_eq!(counts(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_plain_closing_line_is_left_to_the_summary_reader() {
        // The explicit closing line wins over the counted markers...
        assert_eq!(counts("✓ a\n✓ b\n✗ c\nResults: 1 passed, 1 failed"), None);
        // ...unless a totals block of ours comes after it.
        assert_eq!(
            counts("3 passed, 1 failed\nPassed: 4\nFailed: 0"),
            Some((4, 0, 0))
        );
    }

    #[test]
    fn messages_and_names_are_bounded() {
        let mut text = format!("✗ {}\n", "n".repeat(MAX_NAME_BYTES * 2));
        for _ in 0..MAX_MESSAGE_LINES + 10 {
            text.push_str(&format!("    {}\n", "é".repeat(200)));
        }
        let run = read(&text).expect("run");
        let case = &run.failures[0];
        assert!(case.name.len() <= MAX_NAME_BYTES);
        let message = case.message.as_deref().expect("message");
        assert!(message.len() <= MAX_MESSAGE_BYTES, "{}", message.len());
        assert!(message.ends_with('…'));
        assert!(message.starts_with("éé"));
    }

    #[test]
    fn counts_stay_exact_beyond_the_kept_failures() {
        let text: String = (0..MAX_KEPT_FAILURES + 7)
            .map(|i| format!("[FAIL] t{i}\n"))
            .collect();
        let run = read(&text).expect("run");
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 7) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
    }

    #[test]
    fn hostile_lines_never_panic() {
        let lines = [
            "✓\u{fe0f}",
            "✗\u{fe0f} ",
            "Passed:",
            "Passed: ",
            ":",
            "::::",
            "Passed: 1/",
            "Passed: 1/x",
            "/ passed",
            "1/ passed",
            "(",
            "Passed: 1 (",
            "Passed: 1 (5",
            "Passed: 1 (%)",
            "\u{0}\u{1b}[\u{fffd}",
            "  \t  ",
            "é:é:é",
        ];
        let mut reader: Box<dyn LineReader> = Box::new(AdhocReader::default());
        for line in lines {
            reader.feed(line);
        }
        assert_eq!(reader.finish(), None);
    }

    #[test]
    fn random_mixes_of_the_tokens_never_panic() {
        const PIECES: &[&str] = &[
            "✓",
            "✗",
            " ",
            "  ",
            "\t",
            "Passed",
            "passed",
            "Failed",
            "Total",
            "Tests",
            ":",
            "7",
            "9",
            "18446744073709551615",
            "/",
            ",",
            "|",
            "-",
            "(",
            "%",
            ")",
            "\u{fe0f}",
            "[PASS]",
            "[FAIL]",
            "FAIL:",
            "é",
            "!",
            ".",
            "Results",
        ];
        // A fixed linear congruential sequence: the same inputs on every run.
        let mut state: u64 = 0x5eed;
        let mut reader: Box<dyn LineReader> = Box::new(AdhocReader::default());
        for _ in 0..5000 {
            let mut line = String::new();
            for _ in 0..(state >> 60) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                line.push_str(PIECES[(state >> 33) as usize % PIECES.len()]);
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            reader.feed(&line);
        }
        if let Some(run) = reader.finish() {
            assert!(run.failures.len() as u64 <= run.failed);
        }
    }
}
