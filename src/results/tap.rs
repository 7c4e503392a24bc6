//! TAP 12, 13 and 14 (plan, SKIP/TODO, `Bail out!`, YAML diagnostics, indented subtests), read
//! line by line from a report file or from a suite's captured output among other noise; node:test's
//! TAP reporter (`node --test --test-reporter=tap`) with its `type: 'suite'` diagnostics and its
//! closing `# tests/suites/pass/fail/cancelled/skipped/todo` comments.
//!
//! Counting rules (the full statement is on [`TapParser`]): only leaves count; `# SKIP` and
//! `# TODO` are skipped whatever `ok`/`not ok` says (a todo that fails is a todo); a node
//! `describe` that holds no counted test (empty, skipped, todo, all its tests filtered out) is
//! no test, unless it failed on its own; planned tests that never ran fail. node's closing
//! comments are its claim, `cancelled` a failure and `todo` skipped, less the tests with
//! subtests that node counts as tests too; the run is never read below it.

use super::line_reader::LineReader;
use super::model::{
    Claim, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, truncate_utf8,
};
use super::node_totals::{NodeTotals, Parents};
use crate::input::MAX_NAME_BYTES;

/// Subtests indent by this many spaces per level (TAP 14, node:test).
const INDENT: usize = 4;
/// Deeper subtest lines are ignored: no real producer nests this far.
const MAX_DEPTH: usize = 32;
/// A kept failure's YAML block is read up to this many bytes.
const MAX_YAML_BYTES: usize = 64 * 1024;

/// A TAP stream read line by line. Lines that are not TAP (other output) are ignored.
///
/// Counting rules:
/// - Only leaves are counted. A test point that closes an indented subtest block in which test
///   points were counted is a parent and is not counted itself, so a `describe` with three
///   `it`s counts three tests, not four. The one exception: a parent that is `not ok` although
///   none of its children failed (a failing `after` hook, a subtest plan gone wrong) is counted
///   as one failed case, so that failure is not lost.
/// - `# SKIP` and `# TODO` (any case) count as skipped, whatever `ok`/`not ok` says: node
///   prints a todo test that fails as `not ok … # TODO`, and counts it as a todo, not a failure.
/// - A test point whose diagnostics say `type: 'suite'` (node's `describe`) is not a test: when
///   no test inside it was counted (an empty `describe`, a skipped or todo one, one whose tests
///   all failed to be counted) it counts nothing, as node's `# tests` does not, unless it is
///   `not ok` without a directive (its callback threw, a hook failed): then it is one failure.
///   A `describe` whose tests a name pattern filtered out is a parent of skipped tests.
/// - Tests a plan announced but that never ran count as failed, named "missing test N"; more
///   test points than planned add one failed case, "plan mismatch".
/// - `Bail out!` ends the stream: one failed case named after the reason stands for it, and
///   the planned tests that did not run count as failed (at least one failure in all).
/// - The stream is TAP when it has a `TAP version` line or a plan, and at least one test point,
///   a `1..0` plan (zero tests) or a bail-out. A `TAP version` line after test points starts
///   another stream (the runner ran twice): the two add up, each with its own plan.
/// - node's closing comments (`# tests`, `# pass`, `# fail`, `# cancelled`, `# skipped`,
///   `# todo`, at the top level) are its summary: `fail` + `cancelled` failed, `skipped` +
///   `todo` skipped. node also counts a test with subtests as a test, which here is a parent:
///   the claim is node's totals less those parents, by their outcome, so that on node's own
///   output it equals the reading. Summaries add up. The run is never below its claim (fewer
///   failures or fewer tests), whatever lines were lost: the claim's counts are taken instead.
pub(crate) struct TapParser {
    run: TestRun,
    saw_version: bool,
    saw_plan: bool,
    saw_zero_plan: bool,
    saw_point: bool,
    bailed: bool,
    levels: Vec<Level>,
    pending: Option<Pending>,
    yaml: Option<YamlBlock>,
    /// node's closing comments (`# tests`, `# pass`, …), summed over the streams.
    totals: NodeTotals,
    /// Tests with subtests that were not counted (parents), by outcome: node counts them.
    parents: Parents,
    /// Top-level `# ` lines since the last top-level test point: what node:test prints of a test
    /// file's own stderr (`# Error: Cannot find module 'x'`) before the point that fails it.
    diagnostics: Vec<String>,
}

/// Top-level comment lines kept while waiting for the point they explain.
const MAX_DIAGNOSTICS: usize = 64;

#[derive(Default)]
struct Level {
    /// The subtest name this level was announced with (`# Subtest: name` one level up).
    name: Option<String>,
    /// A `# Subtest: name` seen at this level: the name of the next deeper block.
    announced: Option<String>,
    plan: Option<u64>,
    points: u64,
    /// What was counted in this level and below since it opened.
    tally: Tally,
    /// What the subtest block that just closed under this level counted.
    children: Tally,
}

#[derive(Default, Clone, Copy)]
struct Tally {
    counted: bool,
    failed: bool,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.counted |= other.counted;
        self.failed |= other.failed;
    }
}

/// The last test point, until its YAML block (if any) has been read: the block may say it is a
/// suite, and completes a failure kept.
struct Pending {
    depth: usize,
    outcome: Outcome,
    /// Counted as a leaf (or as a parent that failed on its own).
    counted: bool,
    /// Test points were counted in the subtest block it closes.
    parent: bool,
    /// Its diagnostics say `type: 'suite'`.
    suite: bool,
    /// A failure kept in full, completed by its YAML block.
    case: Option<TestCase>,
}

impl Pending {
    /// A suite counts only as a failure of its own; a test with subtests not at all.
    fn is_counted(&self, suite: bool) -> bool {
        self.counted && (!suite || self.outcome == Outcome::Failed)
    }

    /// The outcome of a test with subtests that is not counted, which node counts as a test.
    fn uncounted_parent(&self, suite: bool) -> Option<Outcome> {
        (self.parent && !suite && !self.is_counted(suite)).then_some(self.outcome)
    }
}

struct YamlBlock {
    indent: usize,
    /// Dedented lines; empty when the block belongs to a point whose details are not kept.
    lines: Vec<String>,
    bytes: usize,
    keep: bool,
    /// A top-level `type: 'suite'` line was seen.
    suite: bool,
}

impl LineReader for TapParser {
    fn feed(&mut self, line: &str) {
        TapParser::feed(self, line);
    }

    fn claim(&self) -> Option<Claim> {
        TapParser::claim(self)
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        TapParser::finish(*self)
    }
}

impl TapParser {
    pub(crate) fn new() -> Self {
        Self {
            run: TestRun::new(ReportFormat::Tap),
            saw_version: false,
            saw_plan: false,
            saw_zero_plan: false,
            saw_point: false,
            bailed: false,
            levels: vec![Level::default()],
            pending: None,
            yaml: None,
            totals: NodeTotals::default(),
            parents: Parents::default(),
            diagnostics: Vec::new(),
        }
    }

    /// Feed one line, already stripped of its line ending and ANSI codes.
    pub(crate) fn feed(&mut self, line: &str) {
        if self.bailed {
            return;
        }
        let indent = line.bytes().take_while(|&b| b == b' ').count();
        let text = line.trim_ascii();

        if let Some(yaml) = &mut self.yaml {
            if text == "..." && indent == yaml.indent {
                self.end_yaml();
                return;
            }
            if text.is_empty() || indent >= yaml.indent {
                yaml.push(line);
                return;
            }
            // Dedented without `...`: the block was not closed; the line is TAP again.
            self.end_yaml();
        }
        if let Some(pending) = &self.pending
            && text == "---"
            && indent > pending.depth * INDENT
            && indent < (pending.depth + 1) * INDENT
        {
            let keep = pending.case.is_some();
            self.yaml = Some(YamlBlock {
                indent,
                lines: Vec::new(),
                bytes: 0,
                keep,
                suite: false,
            });
            return;
        }
        self.flush_pending();

        let depth = indent / INDENT;
        if depth > MAX_DEPTH {
            return;
        }
        // By the first byte, so that a test point (nearly every line) is tried once.
        match text.as_bytes().first() {
            Some(b'o' | b'n') => {
                if let Some(point) = parse_point(text) {
                    self.point(depth, &point);
                }
            }
            Some(b'0'..=b'9') => {
                if let Some(plan) = parse_plan(text) {
                    self.plan(depth, plan);
                }
            }
            Some(b'T') if text.starts_with("TAP version ") => {
                if depth == 0 {
                    self.end_stream();
                }
                self.saw_version = true;
            }
            Some(b'B') => {
                if let Some(reason) = text.strip_prefix("Bail out!") {
                    self.bail(reason.trim());
                }
            }
            Some(b'#') => self.comment(depth, text),
            _ => {}
        }
    }

    /// A `#` line: a subtest announcement, node:test's closing duration, or a plain comment.
    fn comment(&mut self, depth: usize, text: &str) {
        if let Some(name) = text.strip_prefix("# Subtest:") {
            self.ensure_level(depth);
            if let Some(level) = self.levels.get_mut(depth) {
                level.announced = Some(truncate_utf8(name.trim(), MAX_NAME_BYTES));
            }
        } else if let Some(ms) = text.strip_prefix("# duration_ms ")
            && depth == 0
        {
            // node:test closes its stream with the run's wall time.
            if let Some(ms) = parse_millis(ms.trim()) {
                self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(ms));
            }
        } else if depth == 0
            && let Some(rest) = text.strip_prefix("# ")
        {
            if self.diagnostics.len() < MAX_DIAGNOSTICS {
                self.diagnostics
                    .push(truncate_utf8(rest.trim(), MAX_NAME_BYTES));
            }
            self.total(rest);
        }
    }

    /// `tests 9`, `pass 4`, … from node's closing comments; other comments are not.
    fn total(&mut self, rest: &str) {
        let mut words = rest.split(' ');
        let (Some(key), Some(value), None) = (words.next(), words.next(), words.next()) else {
            return;
        };
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return;
        }
        let Ok(n) = value.parse::<u64>() else {
            return;
        };
        // Any other `# key N` comment (`# suites 2`, a producer's own) is no total: ignored.
        self.totals.add(key, n);
    }

    /// node's closing comments in this crate's rules, less the parents node counts as tests;
    /// `None` without them (a bash producer, prove's TAP).
    pub(crate) fn claim(&self) -> Option<Claim> {
        if !(self.totals.complete() && self.is_tap()) {
            return None;
        }
        // The last point is counted by `finish`: as the claim is asked for before it, count it
        // here as it will be.
        let mut parents = self.parents;
        if let Some(pending) = &self.pending {
            let suite = pending.suite || self.yaml.as_ref().is_some_and(|y| y.suite);
            if let Some(outcome) = pending.uncounted_parent(suite) {
                parents.add(outcome);
            }
        }
        Some(self.totals.claim(ReportFormat::Tap, &parents))
    }

    /// The run, or `None` when what was fed is not a TAP stream.
    pub(crate) fn finish(mut self) -> Option<TestRun> {
        self.end_stream();
        if !self.is_tap() {
            return None;
        }
        if let Some(claim) = self.claim() {
            hold_to_claim(&mut self.run, &claim);
        }
        Some(self.run)
    }

    /// A `TAP version` line or a plan, and a test point, a `1..0` plan or a bail-out.
    fn is_tap(&self) -> bool {
        (self.saw_version || self.saw_plan) && (self.saw_point || self.saw_zero_plan || self.bailed)
    }

    /// Close the stream read so far: its open subtests and its plan. The next lines, if any,
    /// are a new stream.
    fn end_stream(&mut self) {
        self.end_yaml();
        self.flush_pending();
        if !self.bailed {
            while self.levels.len() > 1 {
                self.close_level();
            }
            if let Some(top) = self.levels.pop() {
                self.count_missing(&top, None);
            }
        }
        self.levels.clear();
        self.levels.push(Level::default());
    }

    fn plan(&mut self, depth: usize, count: u64) {
        self.ensure_level(depth);
        if depth == 0 {
            self.saw_plan = true;
            self.saw_zero_plan |= count == 0;
        }
        if let Some(level) = self.levels.get_mut(depth)
            && level.plan.is_none()
        {
            level.plan = Some(count);
        }
    }

    fn point(&mut self, depth: usize, point: &Point<'_>) {
        self.ensure_level(depth);
        self.saw_point = true;
        let outcome = match (point.directive, point.ok) {
            (Some(_), _) => Outcome::Skipped,
            (None, true) => Outcome::Passed,
            (None, false) => Outcome::Failed,
        };
        let suite = match outcome {
            Outcome::Failed => self.suite_path(depth),
            _ => None,
        };
        let Some(level) = self.levels.get_mut(depth) else {
            return;
        };
        level.points += 1;
        level.announced = None;
        let number = point.number.unwrap_or(level.points);
        let children = std::mem::take(&mut level.children);
        let counted = !children.counted || (outcome == Outcome::Failed && !children.failed);
        let mut case = None;
        if counted && outcome == Outcome::Failed && self.run.failures.len() < MAX_KEPT_FAILURES {
            let name = if point.description.is_empty() {
                format!("test {number}")
            } else {
                truncate_utf8(&unescape(point.description), MAX_NAME_BYTES)
            };
            let mut failed = TestCase::failed(name, None);
            failed.suite = suite;
            case = Some(failed);
        }
        // Counted once its diagnostics have said whether it is a suite.
        self.pending = Some(Pending {
            depth,
            outcome,
            counted,
            parent: children.counted,
            suite: false,
            case,
        });
    }

    fn bail(&mut self, reason: &str) {
        let top_missing = self
            .levels
            .first()
            .and_then(|top| Some(top.plan?.saturating_sub(top.points)))
            .unwrap_or(0);
        let name = if reason.is_empty() {
            "Bail out!".to_owned()
        } else {
            truncate_utf8(&format!("Bail out! {reason}"), MAX_NAME_BYTES)
        };
        let message = match self.levels.first().and_then(|top| top.plan) {
            Some(plan) => format!("bailed out with {top_missing} of {plan} planned tests not run"),
            None => "bailed out".to_owned(),
        };
        self.run.record(TestCase::failed(name, Some(message)));
        self.run.failed = self
            .run
            .failed
            .saturating_add(top_missing.saturating_sub(1));
        self.bailed = true;
        self.levels.clear();
    }

    /// Make `depth` the deepest open level: close the blocks below it, open the ones above.
    fn ensure_level(&mut self, depth: usize) {
        while self.levels.len() > depth + 1 {
            self.close_level();
        }
        while self.levels.len() < depth + 1 {
            let name = self
                .levels
                .last_mut()
                .and_then(|parent| parent.announced.take());
            self.levels.push(Level {
                name,
                ..Level::default()
            });
        }
    }

    fn close_level(&mut self) {
        let Some(child) = self.levels.pop() else {
            return;
        };
        let suite = self.suite_path_with(child.name.as_deref());
        let missing = self.count_missing(&child, suite);
        let mut tally = child.tally;
        if missing {
            tally.add(Tally {
                counted: true,
                failed: true,
            });
        }
        if let Some(parent) = self.levels.last_mut() {
            parent.children.add(tally);
            parent.tally.add(tally);
        }
    }

    /// Count what the level's plan announced but never ran, and more points than planned.
    /// True when anything was counted.
    fn count_missing(&mut self, level: &Level, suite: Option<String>) -> bool {
        let Some(plan) = level.plan else {
            return false;
        };
        if level.points > plan {
            let mut case = TestCase::failed(
                "plan mismatch",
                Some(format!("planned {plan} tests but ran {}", level.points)),
            );
            case.suite = suite;
            self.run.record(case);
            return true;
        }
        let missing = plan - level.points;
        let room = MAX_KEPT_FAILURES.saturating_sub(self.run.failures.len()) as u64;
        let named = missing.min(room);
        for i in 1..=named {
            let number = level.points + i;
            let mut case = TestCase::failed(
                format!("missing test {number}"),
                Some(format!(
                    "planned {plan} tests but test {number} never reported"
                )),
            );
            case.suite.clone_from(&suite);
            self.run.record(case);
        }
        self.run.failed = self.run.failed.saturating_add(missing - named);
        missing > 0
    }

    fn suite_path(&self, depth: usize) -> Option<String> {
        let names: Vec<&str> = self
            .levels
            .iter()
            .take(depth + 1)
            .filter_map(|level| level.name.as_deref())
            .collect();
        (!names.is_empty()).then(|| truncate_utf8(&names.join(" > "), MAX_NAME_BYTES))
    }

    /// The suite path of the levels still open, plus `innermost`.
    fn suite_path_with(&self, innermost: Option<&str>) -> Option<String> {
        let mut names: Vec<&str> = self
            .levels
            .iter()
            .filter_map(|level| level.name.as_deref())
            .collect();
        names.extend(innermost);
        (!names.is_empty()).then(|| truncate_utf8(&names.join(" > "), MAX_NAME_BYTES))
    }

    /// Count the last test point.
    fn flush_pending(&mut self) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        if pending.depth == 0 {
            self.diagnostics.clear();
        }
        if !pending.is_counted(pending.suite) {
            if let Some(outcome) = pending.uncounted_parent(pending.suite) {
                self.parents.add(outcome);
            }
            return;
        }
        if let Some(level) = self.levels.get_mut(pending.depth) {
            level.tally.add(Tally {
                counted: true,
                failed: pending.outcome == Outcome::Failed,
            });
        }
        match (pending.outcome, pending.case) {
            (Outcome::Passed, _) => self.run.passed = self.run.passed.saturating_add(1),
            (Outcome::Skipped, _) => self.run.skipped = self.run.skipped.saturating_add(1),
            (Outcome::Failed, Some(case)) => self.run.record(case),
            (Outcome::Failed, None) => self.run.failed = self.run.failed.saturating_add(1),
        }
    }

    fn end_yaml(&mut self) {
        let Some(yaml) = self.yaml.take() else {
            return;
        };
        if let Some(pending) = &mut self.pending {
            pending.suite |= yaml.suite;
            if let Some(case) = &mut pending.case {
                apply_yaml(case, &parse_yaml(&yaml.lines));
                if pending.depth == 0 {
                    explain_file_failure(case, &self.diagnostics);
                }
            }
        }
        self.flush_pending();
    }
}

impl YamlBlock {
    fn push(&mut self, line: &str) {
        let dedented = line.get(self.indent..).unwrap_or_else(|| line.trim_start());
        if matches!(
            dedented.trim_end(),
            "type: 'suite'" | "type: suite" | "type: \"suite\""
        ) {
            self.suite = true;
        }
        if !self.keep || self.bytes > MAX_YAML_BYTES {
            return;
        }
        self.bytes += dedented.len() + 1;
        self.lines.push(dedented.to_owned());
    }
}

/// One `ok`/`not ok` line.
struct Point<'a> {
    ok: bool,
    number: Option<u64>,
    /// Still escaped (`\#`).
    description: &'a str,
    directive: Option<Directive>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Skip,
    Todo,
}

fn parse_point(line: &str) -> Option<Point<'_>> {
    let (ok, rest) = if let Some(rest) = line.strip_prefix("not ok") {
        (false, rest)
    } else {
        (true, line.strip_prefix("ok")?)
    };
    // "okay", "not okay" are words, not test points.
    if !(rest.is_empty() || rest.starts_with([' ', '\t', '#'])) {
        return None;
    }
    let mut rest = rest.trim_ascii_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let mut number = None;
    let after_digits = rest.get(digits..).unwrap_or_default();
    if digits > 0 && (after_digits.is_empty() || after_digits.starts_with([' ', '\t', '-', '#'])) {
        number = rest.get(..digits).and_then(|d| d.parse().ok());
        rest = after_digits.trim_ascii_start();
    }
    if let Some(after_dash) = rest.strip_prefix('-') {
        rest = after_dash.trim_ascii_start();
    }
    let (description, directive) = split_directive(rest);
    Some(Point {
        ok,
        number,
        description: description.trim_ascii_end(),
        directive,
    })
}

/// Split `desc # SKIP reason` at the first unescaped `#` that starts a directive. A `#` that
/// starts none (`fixes #12`) stays in the description.
fn split_directive(rest: &str) -> (&str, Option<Directive>) {
    let bytes = rest.as_bytes();
    for i in memchr::memchr_iter(b'#', bytes) {
        let escaped = i > 0 && bytes.get(i - 1) == Some(&b'\\');
        if escaped {
            continue;
        }
        let after = rest.get(i + 1..).unwrap_or_default().trim_start();
        let word: String = after
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect::<String>()
            .to_ascii_lowercase();
        let directive = match word.as_str() {
            "skip" | "skipped" | "skipping" => Some(Directive::Skip),
            "todo" => Some(Directive::Todo),
            _ => None,
        };
        if directive.is_some() {
            return (rest.get(..i).unwrap_or_default(), directive);
        }
    }
    (rest, None)
}

fn unescape(description: &str) -> String {
    description.replace("\\#", "#").replace("\\\\", "\\")
}

/// `1..N` with an optional `# reason`; the count.
fn parse_plan(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("1..")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let count = rest.get(..digits)?.parse().ok()?;
    let after = rest.get(digits..)?.trim();
    (after.is_empty() || after.starts_with('#')).then_some(count)
}

fn parse_millis(s: &str) -> Option<u64> {
    let ms: f64 = s.parse().ok()?;
    (ms.is_finite() && ms >= 0.0).then(|| ms.round() as u64)
}

/// A top-level YAML value, as far as TAP diagnostics need: scalars and one level of mapping.
#[derive(Debug, Clone, PartialEq)]
enum Yaml {
    Scalar(String),
    Map(Vec<(String, String)>),
}

/// The subset of YAML that TAP producers write in diagnostics: `key: scalar` (plain, quoted,
/// or `|`/`>` block scalars) and `key:` followed by an indented `key: scalar` mapping. Anything
/// else is skipped; nothing here can fail or expand (no anchors, no aliases).
fn parse_yaml(lines: &[String]) -> Vec<(String, Yaml)> {
    let mut entries = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        i += 1;
        if line.starts_with([' ', '\t', '#', '-']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, rest)) = split_key(line) else {
            continue;
        };
        let start = i;
        while lines
            .get(i)
            .is_some_and(|l| l.starts_with([' ', '\t']) || l.trim().is_empty())
        {
            i += 1;
        }
        let children = lines.get(start..i).unwrap_or_default();
        let value = if rest.starts_with(['|', '>']) {
            Yaml::Scalar(block_scalar(rest.starts_with('|'), children))
        } else if rest.is_empty() {
            nested(children)
        } else {
            let mut joined = rest.to_owned();
            for child in children {
                joined.push(' ');
                joined.push_str(child.trim());
            }
            Yaml::Scalar(inline_scalar(joined.trim()))
        };
        entries.push((key.to_owned(), value));
    }
    entries
}

/// `key: rest` → (key, rest trimmed); the key has no spaces.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    if key.is_empty() || key.contains([' ', '\t']) || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim()))
}

fn block_scalar(literal: bool, children: &[String]) -> String {
    let indent = children
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines = children
        .iter()
        .map(|l| l.get(indent..).unwrap_or_default().trim_end());
    let text = if literal {
        lines.collect::<Vec<_>>().join("\n")
    } else {
        let mut folded = String::new();
        for line in lines {
            if line.is_empty() {
                folded.push('\n');
            } else {
                if !folded.is_empty() && !folded.ends_with('\n') {
                    folded.push(' ');
                }
                folded.push_str(line);
            }
        }
        folded
    };
    text.trim_end().to_owned()
}

fn nested(children: &[String]) -> Yaml {
    let indent = children
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut map = Vec::new();
    let mut text = Vec::new();
    for child in children {
        let Some(line) = child.get(indent..) else {
            continue;
        };
        if line.starts_with([' ', '\t']) || line.trim().is_empty() {
            continue;
        }
        match split_key(line) {
            Some((key, value)) => map.push((key.to_owned(), inline_scalar(value))),
            None => text.push(line.trim()),
        }
    }
    if map.is_empty() {
        Yaml::Scalar(text.join(" "))
    } else {
        Yaml::Map(map)
    }
}

/// A plain, single-quoted or double-quoted scalar on one line.
fn inline_scalar(value: &str) -> String {
    if let Some(body) = value.strip_prefix('\'') {
        let mut out = String::new();
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    return out;
                }
            }
            out.push(c);
        }
        return out;
    }
    if let Some(body) = value.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return out,
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('0') => out.push('\0'),
                    Some(other) => out.push(other),
                    None => {}
                },
                _ => out.push(c),
            }
        }
        return out;
    }
    match value.find(" #") {
        Some(comment) => value.get(..comment).unwrap_or(value).trim_end().to_owned(),
        None => value.to_owned(),
    }
}

/// Fill a failed case from its diagnostics: `message` (or node's `error`), `at` (a mapping with
/// `file`/`line`, or `file:line:column`), top-level `file`/`line`, node's `location`, and
/// `duration_ms`.
fn apply_yaml(case: &mut TestCase, yaml: &[(String, Yaml)]) {
    let scalar = |key: &str| {
        yaml.iter().find_map(|(k, v)| match v {
            Yaml::Scalar(s) if k == key && !s.is_empty() => Some(s.as_str()),
            _ => None,
        })
    };
    if let Some(message) = scalar("message").or_else(|| scalar("error")) {
        let message = truncate_utf8(message, MAX_MESSAGE_BYTES);
        let hint = scalar("failureType").unwrap_or_default();
        case.kind = Some(classify_failure(&format!("{message} {hint}")));
        case.message = Some(message);
    }
    let at = yaml.iter().find_map(|(k, v)| (k == "at").then_some(v));
    let location = match at {
        Some(Yaml::Map(map)) => {
            let get = |key: &str| map.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
            get("file").map(|file| (file.to_owned(), get("line").and_then(parse_line_number)))
        }
        Some(Yaml::Scalar(at)) => split_location(at),
        None => None,
    };
    let location = location
        .or_else(|| {
            scalar("file").map(|file| (file.to_owned(), scalar("line").and_then(parse_line_number)))
        })
        .or_else(|| scalar("location").and_then(split_location));
    if let Some((file, line)) = location {
        case.file = Some(truncate_utf8(&file, MAX_NAME_BYTES));
        case.line = line;
    }
    if let Some(ms) = scalar("duration_ms").and_then(parse_millis) {
        case.duration_ms = Some(ms);
    }
}

/// node:test fails a test file that threw while loading with the bare `error: 'test failed'`
/// and prints the file's stderr as top-level comments before it: the first line there that
/// names an error (`Error: Cannot find module '@notionhq/client'`, `SyntaxError: …`) becomes
/// the failure's message, ahead of node's own words.
fn explain_file_failure(case: &mut TestCase, diagnostics: &[String]) {
    if case.message.as_deref() != Some("test failed") || case.file.as_deref() != Some(&case.name) {
        return;
    }
    let Some(cause) = diagnostics.iter().find(|line| names_an_error(line)) else {
        return;
    };
    let message = format!("{cause}\ntest failed");
    case.kind = Some(classify_failure(&message));
    case.message = Some(truncate_utf8(&message, MAX_MESSAGE_BYTES));
}

/// `Error: …`, `TypeError: …`, `Error [ERR_MODULE_NOT_FOUND]: …`: a JavaScript error's first line.
fn names_an_error(line: &str) -> bool {
    let Some((head, _)) = line.split_once(": ") else {
        return false;
    };
    let name = head.split(" [").next().unwrap_or(head);
    name.ends_with("Error")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

fn parse_line_number(s: &str) -> Option<u32> {
    s.trim().parse().ok().filter(|&n| n > 0)
}

/// `path:line[:column]` → (path, line). A path without a numeric line is kept as it is.
fn split_location(at: &str) -> Option<(String, Option<u32>)> {
    let at = at.trim();
    if at.is_empty() {
        return None;
    }
    let mut parts = at.rsplitn(3, ':');
    let last = parts.next().unwrap_or_default();
    let middle = parts.next();
    let head = parts.next();
    match (head, middle, last.parse::<u32>().ok()) {
        // path:line:column
        (Some(path), Some(line), Some(_)) if line.parse::<u32>().is_ok() => {
            Some((path.to_owned(), parse_line_number(line)))
        }
        // path:line (the path may itself hold a colon)
        (head, Some(middle), Some(line)) => {
            let path = match head {
                Some(head) => format!("{head}:{middle}"),
                None => middle.to_owned(),
            };
            Some((path, Some(line).filter(|&n| n > 0)))
        }
        _ => Some((at.to_owned(), None)),
    }
}

/// Hold `run` to `claim`, a summary the framework printed: when it counts fewer failures or
/// fewer tests, it takes the worse of the two readings (as `results::floor` does): the claim's
/// counts when they cover the run's, else the most failures, the fewest passes and the rest
/// skipped. The failures it named are kept; those only the claim knows stay unnamed.
pub(crate) fn hold_to_claim(run: &mut TestRun, claim: &Claim) {
    let covers = |failed: u64, total: u64| failed >= claim.failed && total >= claim.total();
    if covers(run.failed, run.total()) {
        return;
    }
    if claim.failed >= run.failed && claim.total() >= run.total() {
        run.passed = claim.passed;
        run.failed = claim.failed;
        run.skipped = claim.skipped;
        return;
    }
    let total = run.total().max(claim.total());
    run.failed = run.failed.max(claim.failed);
    run.passed = run.passed.min(claim.passed);
    run.skipped = total.saturating_sub(run.failed).saturating_sub(run.passed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;
    use crate::results::testkit::{counts, fixture_text, names};
    use std::path::PathBuf;

    fn fixture(rel: &str) -> PathBuf {
        crate::results::testkit::fixture(&format!("tap/{rel}"))
    }

    fn read(rel: &str) -> TestRun {
        crate::results::read_report_as(&fixture(rel), ReportFormat::Tap)
            .expect("read")
            .expect("a TAP stream")
    }

    fn parse(text: &str) -> Option<TestRun> {
        let mut parser = TapParser::new();
        for line in text.lines() {
            parser.feed(line);
        }
        parser.finish()
    }

    #[test]
    fn a_node_test_file_that_did_not_load_is_failed_by_its_error() {
        // node 20: `tests 2, pass 1, fail 1`; sync.test.js requires a client that is not
        // installed and node says only `error: 'test failed'` for it.
        let run = read("node-load.tap");
        assert_eq!(counts(&run), (1, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "sync.test.js");
        assert_eq!(
            case.message.as_deref(),
            Some("Error: Cannot find module '@notionhq/client'\ntest failed")
        );
        assert_eq!(case.kind, Some(FailureKind::Dependency));
    }

    #[test]
    fn only_a_bare_file_failure_takes_the_error_printed_before_it() {
        let stream = "TAP version 13\n# Error: left over from an earlier file\n\
            # Subtest: adds\nnot ok 1 - adds\n  ---\n  location: 'a.test.js:2:1'\n  \
            error: 'test failed'\n  ...\n# TypeError: x is not a function\n\
            # Subtest: b.test.js\nnot ok 2 - b.test.js\n  ---\n  location: 'b.test.js:1:1'\n  \
            error: 'Expected values to be equal'\n  ...\n1..2\n";
        let run = parse(stream).expect("TAP");
        let messages: Vec<_> = run.failures.iter().map(|c| c.message.as_deref()).collect();
        // A test named unlike its file keeps node's words; so does a file failure with a
        // message of its own.
        assert_eq!(
            messages,
            [Some("test failed"), Some("Expected values to be equal")]
        );
    }

    #[test]
    fn node_test_reporter_with_nested_suites() {
        // node's own closing comments: tests 9, pass 4, fail 2, cancelled 1, skipped 1, todo 1.
        // Failed = fail + cancelled (the timeout); skipped = skipped + todo. The `describe`
        // blocks ("slugify", "hostile names") are parents and not counted.
        let run = read("node.tap");
        assert_eq!(run.framework, "tap");
        assert_eq!(run.format, ReportFormat::Tap);
        assert_eq!(counts(&run), (4, 3, 2));
        assert!(run.duration_ms.is_some());
        assert_eq!(
            names(&run),
            [
                "collapses punctuation",
                "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                "finishes in time",
            ]
        );

        let first = &run.failures[0];
        assert_eq!(first.suite.as_deref(), Some("slugify"));
        assert_eq!(
            first.message.as_deref(),
            Some("Expected values to be strictly equal:\n\n'a-b' !== 'a_b'")
        );
        assert_eq!(first.kind, Some(FailureKind::Assertion));
        assert_eq!(
            first.file.as_deref(),
            Some("/tmp/skillgate-fixtures/tap/node-project/sample-suite.mjs")
        );
        assert_eq!(first.line, Some(16));
        assert!(first.duration_ms.is_some());

        let hostile = &run.failures[1];
        assert_eq!(hostile.suite.as_deref(), Some("slugify > hostile names"));
        assert_eq!(hostile.line, Some(25));

        let timeout = &run.failures[2];
        assert_eq!(timeout.suite, None);
        assert_eq!(
            timeout.message.as_deref(),
            Some("test timed out after 50ms")
        );
        assert_eq!(timeout.kind, Some(FailureKind::Timeout));
        assert_eq!(timeout.line, Some(39));
    }

    #[test]
    fn a_parent_failing_on_its_own_is_counted() {
        // node's own summary says tests 4, pass 4, fail 0: it counts "parent test" as a test and
        // loses the failing `after` hook. Counting leaves gives 3 passed, and the suite whose
        // children all passed but which is `not ok` is the one failure.
        let run = read("node-hooks.tap");
        assert_eq!(counts(&run), (3, 1, 0));
        let hook = &run.failures[0];
        assert_eq!(hook.name, "with a failing hook");
        assert_eq!(hook.message.as_deref(), Some("cleanup failed"));
        assert_eq!(hook.line, Some(5));
    }

    fn claim_of(text: &str) -> Option<Claim> {
        let mut parser = TapParser::new();
        for line in text.lines() {
            parser.feed(line);
        }
        parser.claim()
    }

    fn text(rel: &str) -> String {
        fixture_text(&format!("tap/{rel}"))
    }

    #[test]
    fn failing_todos_are_todos_and_a_todo_suite_holds_tests() {
        // node: tests 8, suites 2, pass 2, fail 1, todo 5. The three todos that fail are
        // `not ok … # TODO` and skipped, as node counts them; the todo suite is not itself a
        // test, and its failing child is an ordinary failure: 2 / 1 / 5.
        let run = read("node-todo.tap");
        assert_eq!(counts(&run), (2, 1, 5));
        assert_eq!(names(&run), ["fails in a todo suite"]);
        let child = &run.failures[0];
        assert_eq!(child.suite.as_deref(), Some("todo suite"));
        assert_eq!(
            child.message.as_deref(),
            Some("a todo suite does not make its tests todo")
        );
        assert_eq!(child.line, Some(29));
        assert_eq!(
            claim_of(&text("node-todo.tap")),
            Some(Claim::new(ReportFormat::Tap, 2, 1, 5))
        );
    }

    #[test]
    fn an_empty_describe_is_no_test() {
        // node: tests 0, suites 1, pass 0. It prints the describe as `ok 1 - nothing here yet`
        // with `type: 'suite'`.
        let run = read("node-empty.tap");
        assert_eq!(counts(&run), (0, 0, 0));
        assert_eq!(run.pass_rate(), None);
        assert_eq!(
            claim_of(&text("node-empty.tap")),
            Some(Claim::new(ReportFormat::Tap, 0, 0, 0))
        );
    }

    #[test]
    fn suites_that_are_no_tests_under_a_name_pattern() {
        // `--test-name-pattern=kept`. node: tests 6, suites 5, pass 2, fail 2, skipped 2. The
        // empty describe, the skipped one and the empty todo one count nothing; the describe
        // whose tests the pattern left out is the parent of 2 skipped tests; node's second
        // failure is "kept parent", a test with subtests, which fails because its child did:
        // 2 / 1 / 2, and so is the claim.
        let run = read("node-pattern.tap");
        assert_eq!(counts(&run), (2, 1, 2));
        assert_eq!(names(&run), ["kept child fails"]);
        assert_eq!(run.failures[0].suite.as_deref(), Some("kept parent"));
        assert_eq!(
            claim_of(&text("node-pattern.tap")),
            Some(Claim::new(ReportFormat::Tap, 2, 1, 2))
        );
    }

    #[test]
    fn a_describe_that_throws_is_a_failure() {
        // node 20 prints this with `# fail 0` (a suite is no test) and exits 1.
        let run = parse(
            "TAP version 13\n\
             # Subtest: throws\n\
             not ok 1 - throws\n\
             \x20 ---\n\
             \x20 duration_ms: 0.044185\n\
             \x20 type: 'suite'\n\
             \x20 location: '/tmp/skillgate-fixtures/exp/more.mjs:13:1'\n\
             \x20 failureType: 'testCodeFailure'\n\
             \x20 error: 'describe body broke'\n\
             \x20 code: 'ERR_TEST_FAILURE'\n\
             \x20 ...\n\
             1..1\n\
             # tests 0\n# suites 1\n# pass 0\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0\n",
        )
        .expect("tap");
        assert_eq!(counts(&run), (0, 1, 0));
        assert_eq!(names(&run), ["throws"]);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("describe body broke")
        );
        assert_eq!(run.failures[0].line, Some(13));
    }

    #[test]
    fn claims_are_nodes_closing_comments() {
        // tests 9, pass 4, fail 2, cancelled 1, skipped 1, todo 1: the cancelled test fails,
        // the todo is skipped.
        assert_eq!(
            claim_of(&text("node.tap")),
            Some(Claim::new(ReportFormat::Tap, 4, 3, 2))
        );
        // tests 4, pass 4: "parent test" passed with its two children, and is not a test here.
        assert_eq!(
            claim_of(&text("node-hooks.tap")),
            Some(Claim::new(ReportFormat::Tap, 3, 0, 0))
        );
        // A bash producer prints no totals; prove's are prove's.
        for rel in ["bash-full.tap", "bash-died.tap", "bash-bail.tap"] {
            assert_eq!(claim_of(&text(rel)), None, "{rel}");
        }
        // Incomplete totals are not a summary.
        assert_eq!(claim_of("TAP version 13\nok 1\n1..1\n# pass 1\n"), None);
    }

    #[test]
    fn two_node_runs_in_one_stream_add_up() {
        let both = text("node.tap") + &text("node-todo.tap");
        let run = parse(&both).expect("tap");
        // Each stream with its own plan: no plan mismatch.
        assert_eq!(counts(&run), (6, 4, 7));
        assert_eq!(
            names(&run),
            [
                "collapses punctuation",
                "| pipes | `tick` @someone <b>bold</b> ünïcödé ✓",
                "finishes in time",
                "fails in a todo suite",
            ]
        );
        assert_eq!(
            claim_of(&both),
            Some(Claim::new(ReportFormat::Tap, 6, 4, 7))
        );
    }

    #[test]
    fn the_run_is_held_to_its_claim() {
        // The test points were lost; node's comments say 2 passed and 1 failed.
        let run = parse("TAP version 13\nok 1 - a\n# tests 3\n# pass 2\n# fail 1\n# cancelled 0\n")
            .expect("tap");
        assert_eq!(counts(&run), (2, 1, 0));
        assert!(run.failures.is_empty());
        // More failures read than claimed, fewer tests: the most failures, the fewest passes.
        let mut run = TestRun::new(ReportFormat::Tap);
        (run.passed, run.failed) = (1, 3);
        hold_to_claim(&mut run, &Claim::new(ReportFormat::Tap, 4, 1, 1));
        assert_eq!(counts(&run), (1, 3, 2));
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        for rel in [
            "node.tap",
            "node-todo.tap",
            "node-pattern.tap",
            "node-hooks.tap",
        ] {
            crate::results::testkit::assert_claims_hold(ReportFormat::Tap, &text(rel), 500);
        }
    }

    #[test]
    fn bash_producer_with_directives_yaml_and_noise() {
        // prove: Tests 7, Failed 2 (5, 7), 1 skipped, and the TODO counted among "4 okay".
        // Here the TODO counts as skipped: 3 passed, 2 failed, 2 skipped.
        let run = read("bash-full.tap");
        assert_eq!(counts(&run), (3, 2, 2));
        let validates = &run.failures[0];
        assert_eq!(
            validates.name,
            "validates | pipes | `tick` @someone <b>bold</b> ünïcödé"
        );
        assert_eq!(validates.message.as_deref(), Some("expected exit 0, got 2"));
        assert_eq!(validates.file.as_deref(), Some("scripts/deploy.sh"));
        assert_eq!(validates.line, Some(42));
        let dependency = &run.failures[1];
        assert_eq!(dependency.name, "dependency available");
        assert_eq!(dependency.message.as_deref(), Some("jq: command not found"));
        assert_eq!(dependency.kind, Some(FailureKind::Dependency));
        assert_eq!(dependency.file.as_deref(), Some("scripts/check.sh"));
        assert_eq!(dependency.line, Some(7));
    }

    #[test]
    fn a_producer_that_died_leaves_missing_tests() {
        // prove: "Failed 3/5 subtests", "You planned 5 tests but ran 3".
        let run = read("bash-died.tap");
        assert_eq!(counts(&run), (2, 3, 0));
        assert_eq!(names(&run), ["second", "missing test 4", "missing test 5"]);
    }

    #[test]
    fn bail_out_counts_the_rest_of_the_plan() {
        // prove stops at the bail-out ("Further testing stopped: database unreachable"). Planned
        // 4, ran 2 (1 failed), so the bail-out stands for the 2 that did not run.
        let run = read("bash-bail.tap");
        assert_eq!(counts(&run), (1, 3, 0));
        assert_eq!(names(&run), ["migrates", "Bail out! database unreachable"]);
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("bailed out with 2 of 4 planned tests not run")
        );
    }

    #[test]
    fn plans_decide_what_is_tap() {
        assert_eq!(parse("ok 1 - looks like TAP\nnot ok 2"), None);
        assert_eq!(parse("TAP version 14\n1..3\n"), None);
        let empty = parse("1..0 # SKIP no tests on this platform").expect("tap");
        assert_eq!(counts(&empty), (0, 0, 0));
        let run = parse("some noise\n1..2\nok 1\nok 2 - b\nmore noise").expect("tap");
        assert_eq!(counts(&run), (2, 0, 0));
        let bailed = parse("TAP version 13\nBail out!").expect("tap");
        assert_eq!(counts(&bailed), (0, 1, 0));
        assert_eq!(names(&bailed), ["Bail out!"]);
    }

    #[test]
    fn directives_are_case_insensitive_and_todo_wins_over_ok() {
        let run = parse(
            "TAP version 13\n\
             ok 1 - a # skip not here\n\
             not ok 2 - b # Skipped: later\n\
             ok 3 - c # todo\n\
             not ok 4 - d # TODO flaky\n\
             not ok 5 - fixes #12\n\
             ok 6 - escaped \\# SKIP is a name\n\
             1..6",
        )
        .expect("tap");
        assert_eq!(counts(&run), (1, 1, 4));
        assert_eq!(names(&run), ["fixes #12"]);
    }

    #[test]
    fn extra_tests_beyond_the_plan_are_a_failure() {
        let run = parse("1..1\nok 1\nok 2").expect("tap");
        assert_eq!(counts(&run), (2, 1, 0));
        assert_eq!(names(&run), ["plan mismatch"]);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("planned 1 tests but ran 2")
        );
    }

    #[test]
    fn subtests_without_a_subtest_comment_count_leaves() {
        let run = parse(
            "TAP version 14\n\
             \x20   ok 1 - inner a\n\
             \x20   not ok 2 - inner b\n\
             \x20   1..3\n\
             not ok 1 - outer\n\
             ok 2 - alone\n\
             1..2",
        )
        .expect("tap");
        // inner a, inner b, missing inner 3, alone; "outer" is their parent.
        assert_eq!(counts(&run), (2, 2, 0));
        assert_eq!(names(&run), ["inner b", "missing test 3"]);
    }

    #[test]
    fn unnamed_points_are_named_by_number() {
        let run = parse("TAP version 13\nnot ok\nnot ok 7\n1..2").expect("tap");
        assert_eq!(names(&run), ["test 1", "test 7"]);
    }

    #[test]
    fn yaml_blocks_do_not_leak_into_the_stream() {
        let run = parse(
            "TAP version 13\n\
             not ok 1 - a\n\
             \x20 ---\n\
             \x20 message: >\n\
             \x20   folded\n\
             \x20   text\n\
             \x20 data: |\n\
             \x20   ok 5 - not a test point\n\
             \x20 at: 'C:\\src\\x.sh:12:3'\n\
             \x20 ...\n\
             1..1",
        )
        .expect("tap");
        assert_eq!(counts(&run), (0, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.message.as_deref(), Some("folded text"));
        assert_eq!(case.file.as_deref(), Some("C:\\src\\x.sh"));
        assert_eq!(case.line, Some(12));
    }

    #[test]
    fn an_unclosed_yaml_block_ends_at_the_next_point() {
        let run = parse(
            "TAP version 13\n\
             not ok 1 - a\n\
             \x20 ---\n\
             \x20 message: \"quoted \\\"text\\\"\"\n\
             not ok 2 - b\n\
             1..2",
        )
        .expect("tap");
        assert_eq!(counts(&run), (0, 2, 0));
        assert_eq!(run.failures[0].message.as_deref(), Some("quoted \"text\""));
        assert_eq!(run.failures[1].message, None);
    }

    #[test]
    fn hostile_plans_do_not_loop_or_overflow() {
        let run = parse(&format!("1..{}\nok 1", u64::MAX)).expect("tap");
        assert_eq!(run.passed, 1);
        assert_eq!(run.failed, u64::MAX - 1);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        assert_eq!(parse("1..99999999999999999999999\nok 1"), None);
    }

    #[test]
    fn points_are_told_from_words() {
        assert!(parse_point("okay then").is_none());
        assert!(parse_point("not okay").is_none());
        let p = parse_point("ok 3rd - thing").expect("point");
        assert_eq!((p.number, p.description), (None, "3rd - thing"));
        let p = parse_point("not ok 12 # SKIP").expect("point");
        assert_eq!(
            (p.ok, p.number, p.directive),
            (false, Some(12), Some(Directive::Skip))
        );
        assert!(parse_plan("1..4").is_some());
        assert!(parse_plan("1..4 tests").is_none());
    }
}
