//! node:test's `spec` reporter (`node --test --test-reporter=spec`, node's default on a terminal),
//! read line by line: the test tree, the closing `ℹ` totals and the "failing tests" section.
//!
//! Counting rules (the full statement is on [`NodeSpecReader`]): only leaves count; `✖ … #
//! reason` is a todo that failed and counts as skipped, as node counts it; an empty `describe`
//! prints like a passing test and a skipped one like a skipped test, and node's own totals
//! (which count neither) cap the passes and skips. The claim is node's `ℹ` totals, `cancelled`
//! a failure and `todo` skipped, less every parent the tree shows (node counts a test with
//! subtests as a test; the spec output does not tell it from a `describe`, so the claim is a
//! floor that is exact for flat suites); the run is never read below it.

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, ReportFormat, TestCase, TestRun, classify_failure,
    truncate_utf8,
};
use super::node_totals::{NodeTotals, Parents};
use super::tap::hold_to_claim;
use crate::input::MAX_NAME_BYTES;

/// Children are indented by this much under their parent, and an error under its test.
const INDENT: usize = 2;
/// Deeper parents are not tracked: real suites nest a few levels, hostile text to use memory.
const MAX_DEPTH: usize = 64;
/// Lines of other output kept while looking for the error of a file that failed to load.
const MAX_CONTEXT_LINES: usize = 64;

/// node:test's spec output.
///
/// Counting rules:
/// - Only leaves count. A `▶ name` line opens a parent (a `describe`, or a test with
///   subtests); the line with the same name at the same indentation closes it and is not
///   counted, unless it failed while none of its children did (a failing hook), when it is one
///   failed case.
/// - `✔` passed, `✖` failed (cancelled tests too), `﹣` skipped; a `✔`/`✖` line that ends with
///   `# reason` is a todo and counts as skipped: a todo that fails (`✖ name (1ms) # TODO`) is
///   a todo for node too, and its entry in the "failing tests" section is no failure. The
///   children of a todo `describe` are ordinary tests.
/// - The `ℹ` totals cross-check the tree: an empty suite prints as a passing test and a skipped
///   suite as a skipped one, so neither count exceeds node's own; failures that node reports
///   but the tree does not show are taken from the totals. Without a tree, the totals count.
///   Without the totals (output cut short), an empty `describe` is one passed test: nothing
///   else tells it from a test.
/// - The claim is the `ℹ` totals, summed over runs: `fail` + `cancelled` failed, `skipped` +
///   `todo` skipped, less each closed parent by its outcome (node counts a test with subtests,
///   never a `describe`, and the two print alike). The run is never below it.
/// - The text is spec output when it holds the `ℹ tests/pass/fail` totals or a test line with
///   node's fractional duration (`✔ name (1.2ms)`); anything else is left to other readers.
pub(crate) struct NodeSpecReader {
    groups: Vec<Group>,
    passed: u64,
    failed: u64,
    skipped: u64,
    saw_tree: bool,
    saw_timed_line: bool,
    failures: Vec<Kept>,
    /// The `ℹ` totals, summed over every run in the text.
    totals: NodeTotals,
    /// `ℹ duration_ms`, summed over every run in the text.
    duration_ms: Option<f64>,
    in_failing_section: bool,
    block: Option<ErrorBlock>,
    /// The `test at file:line:column` line before an entry of the failing section.
    location: Option<(String, Option<u32>)>,
    /// Lines that are not spec output since the last test line: node prints there what a test
    /// file wrote to stderr before it died (a syntax error, a missing module).
    context: Vec<String>,
    /// Closed parents, not counted, by the outcome of their closing line.
    parents: Parents,
}

/// An open parent: its `▶ name` line was seen, its closing line not yet.
struct Group {
    indent: usize,
    name: String,
    failed_inside: bool,
}

struct Kept {
    case: TestCase,
    /// Named by an entry of the failing section already.
    matched: bool,
    /// Known only from the failing section, not from the tree.
    from_section: bool,
}

/// The error printed under a failed test, indented below it.
struct ErrorBlock {
    indent: usize,
    lines: Vec<String>,
    bytes: usize,
    target: Target,
    context: Vec<String>,
}

#[derive(Clone, Copy)]
enum Target {
    /// A kept failure, from its line in the tree.
    Tree(usize),
    /// A kept failure, from its entry in the failing section.
    Section(usize),
    /// A failure that is not kept, a todo, or a parent whose children failed.
    Discard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symbol {
    Pass,
    Fail,
    Skip,
    Parent,
}

struct TestLine<'a> {
    symbol: Symbol,
    name: &'a str,
    duration_ms: Option<f64>,
    /// The duration has a fraction, as node's always has in practice.
    fractional: bool,
    /// `# reason` after the duration: a skip or todo reason.
    directive: Option<&'a str>,
}

impl LineReader for NodeSpecReader {
    fn feed(&mut self, line: &str) {
        NodeSpecReader::feed(self, line);
    }

    fn claim(&self) -> Option<Claim> {
        NodeSpecReader::claim(self)
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        NodeSpecReader::finish(*self)
    }
}

impl Default for NodeSpecReader {
    fn default() -> Self {
        Self::new()
    }
}

impl NodeSpecReader {
    pub(crate) fn new() -> Self {
        Self {
            groups: Vec::new(),
            passed: 0,
            failed: 0,
            skipped: 0,
            saw_tree: false,
            saw_timed_line: false,
            failures: Vec::new(),
            totals: NodeTotals::default(),
            duration_ms: None,
            in_failing_section: false,
            block: None,
            location: None,
            context: Vec::new(),
            parents: Parents::default(),
        }
    }

    /// Feed one line, already stripped of its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let text = line.trim();
        if let Some(block) = &mut self.block {
            if text.is_empty() || indent > block.indent {
                block.push(line, indent);
                return;
            }
            self.end_block();
        }
        if text.is_empty() {
            return;
        }
        if indent == 0 {
            if let Some(rest) = text.strip_prefix("ℹ ")
                && self.total(rest)
            {
                return;
            }
            if text == "✖ failing tests:" {
                self.in_failing_section = true;
                self.groups.clear();
                return;
            }
            if self.in_failing_section
                && let Some(location) = parse_location(text)
            {
                self.location = Some(location);
                return;
            }
        }
        let Some(test) = parse_test_line(text) else {
            if self.context.len() < MAX_CONTEXT_LINES {
                self.context.push(truncate_utf8(line, MAX_MESSAGE_BYTES));
            }
            return;
        };
        if self.in_failing_section {
            if indent == 0 && test.symbol == Symbol::Fail {
                self.failing_entry(&test);
                return;
            }
            // Anything else starts the tree of another run printed after this one.
            self.in_failing_section = false;
        }
        self.tree_line(indent, &test);
    }

    /// The run, or `None` when what was fed is not spec output.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        self.end_block();
        let totals = &self.totals;
        if !(totals.complete() || self.saw_timed_line) {
            return None;
        }
        let mut run = TestRun::new(ReportFormat::NodeSpec);
        // Node's own figures in this crate's rules, added without overflow (hostile text).
        let (passed, failed, skipped) = totals.counts();
        let from_totals = totals.complete() && (!self.saw_tree || (self.failed == 0 && failed > 0));
        if self.saw_tree {
            run.passed = self.passed;
            run.skipped = self.skipped;
            if totals.complete() {
                run.passed = run.passed.min(passed);
                run.skipped = run.skipped.min(skipped);
            }
        } else {
            run.passed = passed;
            run.skipped = skipped;
        }
        run.failed = if from_totals { failed } else { self.failed };
        run.duration_ms = self
            .duration_ms
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map(|ms| ms.round() as u64);
        if let Some(claim) = self.claim() {
            hold_to_claim(&mut run, &claim);
        }
        run.failures = self
            .failures
            .into_iter()
            .filter(|kept| from_totals || !kept.from_section)
            .map(|kept| kept.case)
            .take(MAX_KEPT_FAILURES)
            .collect();
        Some(run)
    }

    /// node's `ℹ` totals in this crate's rules, less the parents the tree closed; `None` until
    /// `tests`, `pass` and `fail` were read.
    pub(crate) fn claim(&self) -> Option<Claim> {
        self.totals
            .complete()
            .then(|| self.totals.claim(ReportFormat::NodeSpec, &self.parents))
    }

    /// `ℹ key value` from the closing totals; false when the line is some other `ℹ` line.
    fn total(&mut self, rest: &str) -> bool {
        let mut words = rest.split_whitespace();
        let (Some(key), Some(value), None) = (words.next(), words.next(), words.next()) else {
            return false;
        };
        if key == "duration_ms" {
            let Ok(ms) = value.parse::<f64>() else {
                return false;
            };
            self.duration_ms = Some(self.duration_ms.unwrap_or(0.0) + ms);
            return true;
        }
        let Ok(n) = value.parse::<u64>() else {
            return false;
        };
        // `suites` is a total too, but counts no test; any other key makes some other line.
        key == "suites" || self.totals.add(key, n)
    }

    fn tree_line(&mut self, indent: usize, test: &TestLine<'_>) {
        self.saw_tree = true;
        self.saw_timed_line |= test.fractional;
        let context = std::mem::take(&mut self.context);
        // Parents deeper than this line were never closed (the run was cut short).
        while self.groups.last().is_some_and(|g| g.indent > indent) {
            self.groups.pop();
        }
        let opens = test.symbol == Symbol::Parent && test.duration_ms.is_none();
        if !opens
            && let Some(group) = self.groups.last()
            && group.indent == indent
            && group.name == truncate_utf8(test.name, MAX_NAME_BYTES)
        {
            self.close_group(indent, test, context);
            return;
        }
        while self.groups.last().is_some_and(|g| g.indent >= indent) {
            self.groups.pop();
        }
        if opens {
            if self.groups.len() >= MAX_DEPTH {
                return;
            }
            self.groups.push(Group {
                indent,
                name: truncate_utf8(test.name, MAX_NAME_BYTES),
                failed_inside: false,
            });
            return;
        }
        match (test.symbol, test.directive) {
            (Symbol::Skip, _) => self.skipped += 1,
            (Symbol::Pass, Some(_)) => self.skipped += 1,
            (Symbol::Fail, Some(_)) => {
                // A todo that fails is still a todo; its error is not a failure's.
                self.skipped += 1;
                self.discard_error(indent);
            }
            (Symbol::Pass, None) => self.passed += 1,
            (Symbol::Fail, None) => self.count_failure(indent, test, context),
            // A parent's closing line without its opening line: nothing to count.
            (Symbol::Parent, _) => {}
        }
    }

    fn close_group(&mut self, indent: usize, test: &TestLine<'_>, context: Vec<String>) {
        let Some(group) = self.groups.pop() else {
            return;
        };
        let p = &mut self.parents;
        let uncounted = match (test.symbol, test.directive) {
            (Symbol::Skip, _) | (_, Some(_)) => &mut p.skipped,
            (Symbol::Pass | Symbol::Parent, None) => &mut p.passed,
            (Symbol::Fail, None) if group.failed_inside => &mut p.failed,
            (Symbol::Fail, None) => {
                // Failed on its own (a hook): counted as one failure.
                self.count_failure(indent, test, context);
                return;
            }
        };
        *uncounted = uncounted.saturating_add(1);
        if test.symbol == Symbol::Fail {
            // Its failure is its children's, counted already; or it is a todo.
            self.discard_error(indent);
        }
    }

    fn count_failure(&mut self, indent: usize, test: &TestLine<'_>, context: Vec<String>) {
        self.failed += 1;
        for group in &mut self.groups {
            group.failed_inside = true;
        }
        if self.failures.len() >= MAX_KEPT_FAILURES {
            self.discard_error(indent);
            return;
        }
        let mut case = TestCase::failed(truncate_utf8(test.name, MAX_NAME_BYTES), None);
        let path: Vec<&str> = self.groups.iter().map(|g| g.name.as_str()).collect();
        if !path.is_empty() {
            case.suite = Some(truncate_utf8(&path.join(" > "), MAX_NAME_BYTES));
        }
        case.duration_ms = test
            .duration_ms
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map(|ms| ms.round() as u64);
        self.failures.push(Kept {
            case,
            matched: false,
            from_section: false,
        });
        self.block = Some(ErrorBlock::new(
            indent,
            Target::Tree(self.failures.len() - 1),
            context,
        ));
    }

    fn discard_error(&mut self, indent: usize) {
        self.block = Some(ErrorBlock::new(indent, Target::Discard, Vec::new()));
    }

    /// An entry of the failing section: the failure it repeats gets its location and error.
    fn failing_entry(&mut self, test: &TestLine<'_>) {
        let location = self.location.take();
        if test.directive.is_some() {
            // A todo that failed: listed by node, counted as a todo.
            self.discard_error(0);
            return;
        }
        let found = self.failures.iter().position(|kept| {
            !kept.matched && kept.case.name == truncate_utf8(test.name, MAX_NAME_BYTES)
        });
        let index = match found {
            Some(index) => index,
            // Known from here only: kept in case the tree did not show it (finish decides).
            None if self.failed == 0 && self.failures.len() < MAX_KEPT_FAILURES => {
                self.failures.push(Kept {
                    case: TestCase::failed(truncate_utf8(test.name, MAX_NAME_BYTES), None),
                    matched: false,
                    from_section: true,
                });
                self.failures.len() - 1
            }
            None => {
                self.discard_error(0);
                return;
            }
        };
        if let Some(kept) = self.failures.get_mut(index) {
            kept.matched = true;
            if let Some((file, line)) = location {
                kept.case.file = Some(file);
                kept.case.line = line;
            }
        }
        self.block = Some(ErrorBlock::new(0, Target::Section(index), Vec::new()));
    }

    fn end_block(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        let index = match block.target {
            Target::Tree(index) | Target::Section(index) => index,
            Target::Discard => return,
        };
        let Some(kept) = self.failures.get_mut(index) else {
            return;
        };
        let mut message = error_text(&block.lines);
        // node's stand-in for a test file whose process failed: the real error, if any, came
        // just before it as the file's own output.
        if message.as_deref() == Some(TEST_FAILED) {
            if let Target::Section(_) = block.target
                && kept.case.message.is_some()
            {
                return;
            }
            message = error_from_context(&block.context).or(message);
        }
        if let Some(message) = message {
            kept.case.kind = Some(classify_failure(&message));
            kept.case.message = Some(message);
        }
    }
}

/// What node prints under a test file that exited with an error.
const TEST_FAILED: &str = "'test failed'";

impl ErrorBlock {
    fn new(indent: usize, target: Target, context: Vec<String>) -> Self {
        Self {
            indent,
            lines: Vec::new(),
            bytes: 0,
            target,
            context,
        }
    }

    fn push(&mut self, line: &str, indent: usize) {
        if matches!(self.target, Target::Discard) || self.bytes > MAX_MESSAGE_BYTES {
            return;
        }
        let dedented = line
            .get(indent.min(self.indent + INDENT)..)
            .unwrap_or_default()
            .trim_end();
        self.bytes += dedented.len() + 1;
        self.lines.push(dedented.to_owned());
    }
}

/// The first lines of an error: up to its first stack frame, without the blank lines around.
fn error_text(lines: &[String]) -> Option<String> {
    let lines: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !is_stack_frame(l))
        .collect();
    let text = lines.join("\n");
    let text = text.trim_end();
    (!text.is_empty()).then(|| truncate_utf8(text, MAX_MESSAGE_BYTES))
}

/// From a test file's own output before it died: the error line (`SyntaxError: …`,
/// `Error [ERR_MODULE_NOT_FOUND]: …`) and what follows it up to the stack.
fn error_from_context(context: &[String]) -> Option<String> {
    let start = context.iter().position(|l| is_error_header(l))?;
    error_text(context.get(start..)?)
}

fn is_error_header(line: &str) -> bool {
    let name_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let (Some(name), Some(rest)) = (line.get(..name_len), line.get(name_len..)) else {
        return false;
    };
    name.ends_with("Error") && (rest.starts_with(':') || rest.starts_with(" ["))
}

/// `at fn (file:line:column)`, `at file:line:column`, `at async fn (…)`.
fn is_stack_frame(line: &str) -> bool {
    let Some(frame) = line.trim_start().strip_prefix("at ") else {
        return false;
    };
    frame.ends_with(')')
        || frame
            .rsplit(':')
            .next()
            .is_some_and(|column| !column.is_empty() && column.bytes().all(|b| b.is_ascii_digit()))
}

/// `test at path:line:column` (also `suite at`, `hook at`) → (path, line).
fn parse_location(text: &str) -> Option<(String, Option<u32>)> {
    let (word, location) = text.split_once(" at ")?;
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let location = location.strip_prefix("file://").unwrap_or(location);
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?;
    let line = parts.next()?;
    let path = parts.next()?;
    if path.is_empty() || column.parse::<u32>().is_err() {
        return None;
    }
    let line = line.parse::<u32>().ok()?;
    Some((
        truncate_utf8(path, MAX_NAME_BYTES),
        (line > 0).then_some(line),
    ))
}

/// `✔ name (1.2ms)`, `✖ name`, `﹣ name (0.1ms) # SKIP`, `✔ name (0.2ms) # TODO`, `▶ name`.
fn parse_test_line(text: &str) -> Option<TestLine<'_>> {
    let mut chars = text.chars();
    let symbol = match chars.next()? {
        '✔' => Symbol::Pass,
        '✖' => Symbol::Fail,
        '﹣' => Symbol::Skip,
        '▶' => Symbol::Parent,
        _ => return None,
    };
    let rest = chars.as_str().strip_prefix(' ')?;
    if rest.trim().is_empty() {
        return None;
    }
    // The name may hold ` (` and ` # ` itself: the duration is the last ` (<number>ms)` that
    // ends the line or is followed by the directive.
    for (at, _) in rest.rmatch_indices(" (") {
        let after = rest.get(at + 2..).unwrap_or_default();
        let digits = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (Some(number), Some(tail)) = (after.get(..digits), after.get(digits..)) else {
            continue;
        };
        let Some(tail) = tail.strip_prefix("ms)") else {
            continue;
        };
        let directive = match tail.strip_prefix(" # ") {
            Some(directive) => Some(directive),
            None if tail.is_empty() => None,
            None => continue,
        };
        let Ok(ms) = number.parse::<f64>() else {
            continue;
        };
        return Some(TestLine {
            symbol,
            name: rest.get(..at).unwrap_or_default(),
            duration_ms: Some(ms),
            fractional: number.contains('.'),
            directive,
        });
    }
    // No duration: node leaves it out when it is zero or the test never started.
    let (name, directive) = match symbol {
        Symbol::Skip => rest
            .rsplit_once(" # ")
            .map_or((rest, None), |(name, d)| (name, Some(d))),
        _ => match rest.strip_suffix(" # TODO") {
            Some(name) => (name, Some("TODO")),
            None => (rest, None),
        },
    };
    Some(TestLine {
        symbol,
        name,
        duration_ms: None,
        fractional: false,
        directive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;
    use crate::results::testkit::fixture;
    use crate::results::testkit::{counts, first_line, fixture_text};
    use crate::results::{read_report_as, read_report_file};

    /// A fixture read as the detector reads any text: every line format sees it.
    fn read(rel: &str) -> TestRun {
        let run = read_report_file(&fixture(&format!("node-spec/{rel}")))
            .expect("read")
            .expect("results");
        assert_eq!(run.format, ReportFormat::NodeSpec, "{rel}");
        run
    }

    fn read_text(text: &str) -> Option<TestRun> {
        let mut reader = NodeSpecReader::new();
        for line in text.lines() {
            reader.feed(line);
        }
        reader.finish()
    }

    #[test]
    fn totals_at_the_edge_of_u64_add_up_without_overflow() {
        let text = "✖ a (1.0ms)\nℹ tests 2\nℹ pass 0\nℹ fail 18446744073709551615\nℹ cancelled 1\nℹ skipped 18446744073709551615\nℹ todo 1\n";
        let run = read_text(text).expect("spec output");
        assert_eq!(run.failed, u64::MAX);
    }

    #[test]
    fn all_pass() {
        // node: tests 2, suites 1, pass 2, fail 0.
        let run = read("pass.txt");
        assert_eq!(run.framework, "node-spec");
        assert_eq!(counts(&run), (2, 0, 0));
        assert!(run.failures.is_empty());
        assert_eq!(run.duration_ms, Some(155));
    }

    #[test]
    fn every_outcome_as_the_tap_and_junit_fixtures_have_it() {
        // node: tests 9, pass 4, fail 2, cancelled 1, skipped 1, todo 1. The cancelled test
        // (the timeout) is a failure and the todo is skipped: 4 / 3 / 2, as node.tap reads.
        for rel in ["sample.txt", "sample.color.txt"] {
            let run = read(rel);
            assert_eq!(counts(&run), (4, 3, 2), "{rel}");
            let names: Vec<_> = run.failures.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "collapses punctuation",
                    "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                    "finishes in time",
                ],
                "{rel}"
            );
        }
        let run = read("sample.txt");
        assert_eq!(run.duration_ms, Some(612));
        let first = &run.failures[0];
        assert_eq!(first.suite.as_deref(), Some("slugify"));
        assert_eq!(first.file.as_deref(), Some("sample-suite.mjs"));
        assert_eq!(first.line, Some(16));
        // 1.39126ms
        assert_eq!(first.duration_ms, Some(1));
        assert_eq!(first.kind, Some(FailureKind::Assertion));
        // The error's first lines, without its stack and the properties node prints after.
        assert_eq!(
            first.message.as_deref(),
            Some(
                "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n'a-b' !== 'a_b'"
            )
        );
        let hostile = &run.failures[1];
        assert_eq!(hostile.suite.as_deref(), Some("slugify > hostile names"));
        assert_eq!(hostile.line, Some(25));
        let timeout = &run.failures[2];
        assert_eq!(timeout.suite, None);
        assert_eq!(timeout.line, Some(39));
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        assert_eq!(
            timeout.message.as_deref(),
            Some("'test timed out after 50ms'")
        );
    }

    fn claim_of(rel: &str) -> Option<Claim> {
        // Lines as the detector hands them over, unlike `read_text`.
        crate::results::testkit::read_text(ReportFormat::NodeSpec, &fixture_text(rel)).0
    }

    #[test]
    fn failing_todos_are_todos_and_a_todo_suite_holds_tests() {
        // node: tests 8, suites 2, pass 2, fail 1, todo 5. The three todos that fail print as
        // `✖ … # reason` and are listed among the failing tests, but node counts them as
        // todos; the todo suite's failing child is an ordinary failure: 2 / 1 / 5.
        for rel in ["todo.txt", "todo.color.txt"] {
            let run = read(rel);
            assert_eq!(counts(&run), (2, 1, 5), "{rel}");
            let found: Vec<_> = run
                .failures
                .iter()
                .map(|c| {
                    (
                        c.name.as_str(),
                        c.suite.as_deref(),
                        c.file.as_deref(),
                        c.line,
                    )
                })
                .collect();
            assert_eq!(
                found,
                [(
                    "fails in a todo suite",
                    Some("todo suite"),
                    Some("todo-suite.mjs"),
                    Some(29)
                )],
                "{rel}"
            );
            assert_eq!(
                first_line(&run.failures[0]),
                "AssertionError [ERR_ASSERTION]: a todo suite does not make its tests todo",
                "{rel}"
            );
            // node's totals less the two parents ("todos" passed, "todo suite" a todo): the
            // spec output does not tell a describe from a test with subtests.
            assert_eq!(
                claim_of(&format!("node-spec/{rel}")),
                Some(Claim::new(ReportFormat::NodeSpec, 1, 1, 4)),
                "{rel}"
            );
        }
    }

    #[test]
    fn suites_that_are_no_tests_under_a_name_pattern() {
        // `--test-name-pattern=kept`. node: tests 6, suites 5, pass 2, fail 2, skipped 2. The
        // empty describe prints as `✔`, the skipped and the empty todo describe as skips; the
        // totals cap them. node's second failure is "kept parent", failed by its child: 2 / 1 / 2.
        let run = read("pattern.txt");
        assert_eq!(counts(&run), (2, 1, 2));
        let kept = &run.failures[0];
        assert_eq!(
            (kept.name.as_str(), kept.suite.as_deref(), kept.line),
            ("kept child fails", Some("kept parent"), Some(27))
        );
        assert_eq!(
            claim_of("node-spec/pattern.txt"),
            Some(Claim::new(ReportFormat::NodeSpec, 0, 1, 2))
        );
    }

    #[test]
    fn claims_are_nodes_totals_less_the_parents() {
        // tests 9, pass 4, fail 2, cancelled 1, skipped 1, todo 1; "slugify" and "hostile
        // names" closed as failed parents.
        assert_eq!(
            claim_of("node-spec/sample.txt"),
            Some(Claim::new(ReportFormat::NodeSpec, 4, 1, 2))
        );
        assert_eq!(
            claim_of("node-spec/sample.color.txt"),
            claim_of("node-spec/sample.txt")
        );
        // pass 4 with "parent test", a parent here; the failing hook is no parent of a failure.
        assert_eq!(
            claim_of("node-spec/hooks.txt"),
            Some(Claim::new(ReportFormat::NodeSpec, 3, 0, 0))
        );
        assert_eq!(
            claim_of("node-spec/empty.txt"),
            Some(Claim::new(ReportFormat::NodeSpec, 0, 0, 0))
        );
        // Two runs add up.
        let mut reader = NodeSpecReader::new();
        for rel in ["node-spec/pass.txt", "node-spec/hooks.txt"] {
            let text = std::fs::read_to_string(fixture(rel)).expect("read");
            text.lines().for_each(|line| reader.feed(line));
        }
        assert_eq!(
            reader.claim(),
            Some(Claim::new(ReportFormat::NodeSpec, 4, 0, 0))
        );
        // A tree without totals claims nothing.
        assert_eq!(claim_of("tap/node.tap"), None);
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for rel in [
            "sample.txt",
            "sample.color.txt",
            "nested.txt",
            "hooks.txt",
            "todo.txt",
            "pattern.txt",
            "files.txt",
        ] {
            let text = std::fs::read_to_string(fixture(&format!("node-spec/{rel}"))).expect("read");
            crate::results::testkit::assert_claims_hold(ReportFormat::NodeSpec, &text, 500);
        }
    }

    #[test]
    fn a_failing_hook_is_one_failure() {
        // node: tests 4, suites 1, pass 4, fail 0: it counts "parent test" and not the suite
        // whose `after` hook failed. Leaves only, and the failed suite as one case: 3 / 1 / 0,
        // as node-hooks.tap reads.
        let run = read("hooks.txt");
        assert_eq!(counts(&run), (3, 1, 0));
        let hook = &run.failures[0];
        assert_eq!(hook.name, "with a failing hook");
        assert_eq!(hook.message.as_deref(), Some("Error: cleanup failed"));
        assert_eq!(
            (hook.file.as_deref(), hook.line),
            (Some("hook-suite.mjs"), Some(5))
        );
    }

    #[test]
    fn nested_suites_subtests_and_run_time_skips() {
        // node: tests 9, suites 3, pass 3, fail 4, skipped 1, todo 1. Its 9 and its 4 count
        // "parent with subtests", a parent here; the todo that failed is skipped: 3 / 3 / 2.
        let run = read("nested.txt");
        assert_eq!(counts(&run), (3, 3, 2));
        let found: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.name.as_str(), c.suite.as_deref(), c.line))
            .collect();
        assert_eq!(
            found,
            [
                ("fails deep down", Some("outer > middle > inner"), Some(10)),
                (
                    "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                    Some("outer > middle"),
                    Some(15)
                ),
                ("child fails", Some("parent with subtests"), Some(25)),
            ]
        );
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some(
                "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n+   a: 1\n-   a: 2\n  }"
            )
        );
        assert_eq!(
            first_line(&run.failures[1]),
            "TypeError [Error]: names with <b>html</b> & `code`"
        );
    }

    #[test]
    fn many_tests_and_an_empty_suite() {
        // node: tests 320, pass 292, fail 20, skipped 8.
        let run = read("many.txt");
        assert_eq!(counts(&run), (292, 20, 8));
        assert_eq!(run.failures.len(), 20);
        assert_eq!(run.failures[19].name, "case 304");
        // node: tests 0, suites 1. The empty suite prints like a passing test; node's own
        // `pass 0` says it is not one.
        let run = read("empty.txt");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
    }

    #[test]
    fn files_that_fail_to_load() {
        // node: tests 4, pass 2, fail 2. Each file that cannot load is one failed test named
        // after it; node prints "'test failed'", the file's own error came just before.
        let run = read("files.txt");
        assert_eq!(counts(&run), (2, 2, 0));
        let broken = &run.failures[0];
        assert_eq!(
            broken.name,
            "/tmp/skillgate-fixtures/node-spec/broken.suite.mjs"
        );
        assert_eq!(broken.file.as_deref(), Some("broken.suite.mjs"));
        assert_eq!(
            broken.message.as_deref(),
            Some("SyntaxError: Unexpected token ')'")
        );
        assert_eq!(broken.kind, Some(FailureKind::Syntax));
        let missing = &run.failures[1];
        assert_eq!(missing.kind, Some(FailureKind::Dependency));
        assert!(
            first_line(missing).starts_with(
                "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/tmp/skillgate-fixtures/node-spec/not-installed.mjs'"
            ),
            "{missing:?}"
        );
    }

    #[test]
    fn skipped_and_todo_suites_and_cancelled_children() {
        // node 20: tests 4, suites 3, pass 2, fail 0, cancelled 2. The skipped suite prints
        // like a skipped test; node's `skipped 0` says it is none.
        let text = "\
﹣ skipped suite (5.611107ms) # SKIP
▶ todo suite
  ✔ three (0.900731ms)
✔ todo suite (1.464104ms) # TODO
▶ before fails
  ✖ four
    'test did not finish before its parent and was cancelled'

  ✖ five
    'test did not finish before its parent and was cancelled'

✖ before fails (0.523064ms)

  Error: nope
      at SuiteContext.<anonymous> (file:///tmp/nodeexp/a.mjs:4:55)

✔ zero (0.187286ms)
ℹ tests 4
ℹ suites 3
ℹ pass 2
ℹ fail 0
ℹ cancelled 2
ℹ skipped 0
ℹ todo 0
ℹ duration_ms 283.772231

✖ failing tests:

test at a.mjs:4:78
✖ four
  'test did not finish before its parent and was cancelled'

test at a.mjs:4:100
✖ five
  'test did not finish before its parent and was cancelled'

test at a.mjs:4:1
✖ before fails (0.523064ms)
  Error: nope
      at SuiteContext.<anonymous> (file:///tmp/nodeexp/a.mjs:4:55)
";
        let run = read_text(text).expect("spec output");
        assert_eq!(counts(&run), (2, 2, 0));
        let found: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.name.as_str(), c.suite.as_deref(), c.line))
            .collect();
        assert_eq!(
            found,
            [
                ("four", Some("before fails"), Some(4)),
                ("five", Some("before fails"), Some(4))
            ]
        );
    }

    #[test]
    fn totals_stand_in_for_a_tree_that_is_missing() {
        let totals =
            "ℹ tests 5\nℹ suites 0\nℹ pass 3\nℹ fail 1\nℹ cancelled 0\nℹ skipped 1\nℹ todo 0\n";
        let run = read_text(totals).expect("totals");
        assert_eq!(counts(&run), (3, 1, 1));
        assert!(run.failures.is_empty());
        // The tree shows no failure but node counted one: the failing section names it.
        let text = "✔ a (1.5ms)\nℹ tests 2\nℹ pass 1\nℹ fail 1\n\n✖ failing tests:\n\ntest at a.mjs:3:1\n✖ b (2.1ms)\n  Error: boom\n      at x (a.mjs:4:1)\n";
        let run = read_text(text).expect("spec output");
        assert_eq!(counts(&run), (1, 1, 0));
        let b = &run.failures[0];
        assert_eq!(b.name, "b");
        assert_eq!((b.file.as_deref(), b.line), (Some("a.mjs"), Some(3)));
        assert_eq!(b.message.as_deref(), Some("Error: boom"));
        // A run cut short before its totals: the tree alone.
        let text = "▶ s\n  ✔ a (1.2ms)\n  ✖ b (3.4ms)\n    Error: x\n";
        let run = read_text(text).expect("spec output");
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(run.failures[0].suite.as_deref(), Some("s"));
        assert_eq!(run.failures[0].message.as_deref(), Some("Error: x"));
    }

    #[test]
    fn a_failing_todo_in_the_failing_section_is_no_failure() {
        // The tree lost "b"; the totals and the failing section know it, and list the todo
        // that failed too.
        let text = "✔ a (1.5ms)\n✖ t (1.0ms) # TODO\n  Error: x\n\
                    ℹ tests 3\nℹ pass 1\nℹ fail 1\nℹ todo 1\n\n✖ failing tests:\n\n\
                    test at a.mjs:2:1\n✖ t (1.0ms) # TODO\n  Error: x\n\n\
                    test at a.mjs:3:1\n✖ b (2.1ms)\n  Error: boom\n";
        let run = read_text(text).expect("spec output");
        assert_eq!(counts(&run), (1, 1, 1));
        let b: Vec<_> = run
            .failures
            .iter()
            .map(|c| (c.name.as_str(), c.line, c.message.as_deref()))
            .collect();
        assert_eq!(b, [("b", Some(3), Some("Error: boom"))]);
    }

    #[test]
    fn two_runs_in_one_output_add_up() {
        let mut text = std::fs::read_to_string(fixture("node-spec/pass.txt")).expect("read");
        text.push_str(&std::fs::read_to_string(fixture("node-spec/hooks.txt")).expect("read"));
        text.push_str(&std::fs::read_to_string(fixture("node-spec/pass.txt")).expect("read"));
        let run = read_text(&text).expect("spec output");
        assert_eq!(counts(&run), (7, 1, 0));
        assert_eq!(run.failures[0].line, Some(5));
    }

    #[test]
    fn other_text_is_not_claimed() {
        for rel in [
            "tap/node.tap",
            "tap/bash-full.tap",
            "summary/stdout.txt",
            "junit/pytest.stdout.txt",
            "jest/mixed.stderr.txt",
        ] {
            let run = read_report_as(&fixture(rel), ReportFormat::NodeSpec).expect("read");
            assert_eq!(run, None, "{rel}");
        }
        for text in [
            "",
            "✔ Compiled successfully (1234ms)\n✖ lint failed\n",
            "✔ done\n✔ also done\n",
            "ℹ tests 3\n",
            "ℹ info: pass the salt\n",
        ] {
            assert_eq!(read_text(text), None, "{text:?}");
        }
    }

    #[test]
    fn test_lines() {
        let line =
            |text| parse_test_line(text).map(|t| (t.symbol, t.name, t.duration_ms, t.directive));
        assert_eq!(
            line("✔ f (x) (1.5ms)"),
            Some((Symbol::Pass, "f (x)", Some(1.5), None))
        );
        assert_eq!(
            line("✔ a # b (2ms) # TODO"),
            Some((Symbol::Pass, "a # b", Some(2.0), Some("TODO")))
        );
        assert_eq!(
            line("﹣ s (0.2ms) # not here"),
            Some((Symbol::Skip, "s", Some(0.2), Some("not here")))
        );
        assert_eq!(line("✖ four"), Some((Symbol::Fail, "four", None, None)));
        assert_eq!(
            line("﹣ s # SKIP"),
            Some((Symbol::Skip, "s", None, Some("SKIP")))
        );
        assert_eq!(line("▶ suite"), Some((Symbol::Parent, "suite", None, None)));
        assert_eq!(
            line("✖ t (1.ms) after"),
            Some((Symbol::Fail, "t (1.ms) after", None, None))
        );
        assert_eq!(line("✔"), None);
        assert_eq!(line("✔ "), None);
        assert_eq!(line("✓ ad-hoc"), None);
        assert_eq!(
            parse_location("test at dir/a b.mjs:12:3"),
            Some(("dir/a b.mjs".to_owned(), Some(12)))
        );
        assert_eq!(
            parse_location("test at file:///c:/x.mjs:1:1"),
            Some(("/c:/x.mjs".to_owned(), Some(1)))
        );
        assert_eq!(parse_location("Look at this: 1:2"), None);
    }

    #[test]
    fn limits_hold() {
        let mut text = String::from("▶ s\n");
        for i in 0..MAX_KEPT_FAILURES + 5 {
            text.push_str(&format!(
                "  ✖ t{i} (1.5ms)\n    Error: {}\n",
                "é".repeat(MAX_MESSAGE_BYTES)
            ));
        }
        text.push_str("✖ s (9.5ms)\n");
        let run = read_text(&text).expect("spec output");
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 5) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        let message = run.failures[0].message.as_deref().unwrap_or_default();
        assert!(message.len() <= MAX_MESSAGE_BYTES && message.ends_with('…'));

        // Parents nested absurdly deep are not all tracked, and nothing breaks.
        let mut text = String::new();
        for depth in 0..1_000 {
            text.push_str(&format!("{}▶ s{depth}\n", " ".repeat(depth * INDENT)));
        }
        text.push_str(&format!("{}✔ leaf (1.5ms)\n", " ".repeat(1_000 * INDENT)));
        let run = read_text(&text).expect("spec output");
        assert_eq!(counts(&run), (1, 0, 0));
    }
}
