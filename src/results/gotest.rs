//! `go test -json` events (test2json) and `go test -v` or plain `go test` text, read line by
//! line. One stream may hold both: go before 1.24 prints build failures as text amid the JSON.

use std::collections::HashMap;

use serde::Deserialize;

use super::line_reader::LineReader;
use super::model::{
    FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, truncate_utf8,
};
use crate::input::{MAX_NAME_BYTES, strip_ansi};

/// Tests started but not reported yet that are tracked at once (with their output); the ones
/// beyond are still counted when they report, without a message or subtests of their own.
const MAX_OPEN: usize = 1024;
/// Packages of a JSON stream tracked at once (`go test -p` runs them in parallel).
const MAX_PACKAGES: usize = 256;
/// `# pkg` compiler blocks whose first error is kept until the package's `FAIL` line.
const MAX_BUILD_ERRORS: usize = 256;
/// go indents a subtest's result line by this much per level.
const INDENT: usize = 4;
/// Deeper text result lines are ignored: no suite nests subtests this far.
const MAX_DEPTH: usize = 64;

/// A go test stream. Lines that are not go output are ignored.
///
/// Counting rules:
/// - Only leaves are counted: a test whose subtests ran is their parent and is not counted
///   itself, unless it failed while none of its subtests did (a `t.Error` after the subtests
///   passed): then it is one failure.
/// - A package that fails without a failing test (a panic in `init` or `TestMain`, a timeout,
///   a build or setup failure) is one failed case named after the package.
/// - Plain `go test` without `-v` prints only failures: passes are not counted from it.
/// - The stream is go's when it holds a test2json event, a `=== RUN` marker, a
///   `--- PASS/FAIL/SKIP: name (0.00s)` line or a package's `ok`/`FAIL`/`?` line.
pub(crate) struct GoTestReader {
    run: TestRun,
    seen: bool,
    /// JSON packages by import path, until their closing event.
    packages: HashMap<String, Package>,
    /// Text lines belong to one package at a time, named only by its closing line.
    text: Package,
    /// Text result lines whose subtests may still follow: go prints a parent's result line
    /// before its subtests' lines, indented one level deeper.
    pending: Vec<Pending>,
    /// The text test that output lines belong to.
    current: Option<String>,
    /// Open tests in all packages, against [`MAX_OPEN`].
    open_count: usize,
    /// The first compiler error of each package that failed to build, by import path.
    build_errors: HashMap<String, Collector>,
    /// The package of the `# pkg` compiler block being read (text).
    build_block: Option<String>,
}

#[derive(Default)]
struct Package {
    /// Tests started and not reported yet, by name.
    open: HashMap<String, Open>,
    /// A test of this package failed, so a failing package is explained.
    failed: bool,
    /// Output outside any test (a panic in `init`, a timeout).
    output: Collector,
    /// Where this package's kept failures start in the run (text, to name their suite).
    first_kept: usize,
}

#[derive(Default)]
struct Open {
    has_children: bool,
    child_failed: bool,
    output: Collector,
}

struct Pending {
    depth: usize,
    name: String,
    outcome: Outcome,
    duration_ms: Option<u64>,
    has_children: bool,
    child_failed: bool,
}

/// One test2json event. Unknown fields (`Time`, …) are ignored.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Event {
    action: String,
    package: Option<String>,
    test: Option<String>,
    elapsed: Option<f64>,
    output: Option<String>,
    /// `build-output` and `build-fail` events (go 1.24+).
    import_path: Option<String>,
    /// On a package's `fail` event when its build failed (go 1.24+).
    failed_build: Option<String>,
}

/// A package's closing text line: `ok  \tpkg\t0.01s`, `FAIL\tpkg [build failed]`, `?   \tpkg\t[no test files]`.
struct PackageEnd<'a> {
    package: &'a str,
    failed: bool,
    /// `[build failed]` or `[setup failed]`.
    build: Option<&'a str>,
    seconds: Option<f64>,
}

impl LineReader for GoTestReader {
    fn feed(&mut self, line: &str) {
        let trimmed = line.trim_start();
        if trimmed.starts_with('{')
            && trimmed.contains("\"Action\"")
            && let Ok(event) = serde_json::from_str::<Event>(trimmed)
            && self.event(event)
        {
            return;
        }
        self.text_line(line);
    }

    fn finish(mut self: Box<Self>) -> Option<TestRun> {
        self.resolve_pending(0);
        self.seen.then_some(self.run)
    }
}

impl GoTestReader {
    pub(crate) fn new() -> Self {
        Self {
            run: TestRun::new(ReportFormat::GoTest),
            seen: false,
            packages: HashMap::new(),
            text: Package::default(),
            pending: Vec::new(),
            current: None,
            open_count: 0,
            build_errors: HashMap::new(),
            build_block: None,
        }
    }

    /// Apply one test2json event; false when it is not one (an unknown action).
    fn event(&mut self, event: Event) -> bool {
        let package = truncate_utf8(event.package.as_deref().unwrap_or(""), MAX_NAME_BYTES);
        let test = event
            .test
            .as_deref()
            .map(|t| truncate_utf8(t, MAX_NAME_BYTES));
        let outcome = match event.action.as_str() {
            "pass" => Some(Outcome::Passed),
            "fail" => Some(Outcome::Failed),
            "skip" => Some(Outcome::Skipped),
            _ => None,
        };
        match (event.action.as_str(), outcome, test) {
            ("start", _, _) => {
                packages_entry(&mut self.packages, &package);
            }
            ("run", _, Some(test)) => {
                if let Some(pkg) = packages_entry(&mut self.packages, &package) {
                    start(pkg, &test, &mut self.open_count);
                }
            }
            ("output", _, test) => {
                let output = strip_ansi(event.output.as_deref().unwrap_or(""));
                if let Some(pkg) = packages_entry(&mut self.packages, &package) {
                    for line in output.lines() {
                        output_line(pkg, test.as_deref(), line, &mut self.open_count);
                    }
                }
            }
            (_, Some(outcome), Some(test)) => {
                let duration_ms = event.elapsed.and_then(seconds_to_ms);
                let mut scratch = Package::default();
                let Self {
                    run,
                    packages,
                    open_count,
                    ..
                } = self;
                let pkg = match packages_entry(packages, &package) {
                    Some(pkg) => pkg,
                    // No room to track the package: the test is still counted.
                    None => &mut scratch,
                };
                let suite = (!package.is_empty()).then_some(package.as_str());
                report(run, pkg, open_count, &test, outcome, duration_ms, suite);
            }
            (_, Some(outcome), None) => {
                let pkg = self.packages.remove(&package).unwrap_or_default();
                self.open_count = self.open_count.saturating_sub(pkg.open.len());
                self.add_duration(event.elapsed);
                if outcome == Outcome::Failed && !pkg.failed {
                    let build = event
                        .failed_build
                        .as_deref()
                        .map(|b| self.build_errors.remove(import_path(b)).unwrap_or_default());
                    let name = if package.is_empty() {
                        "go test"
                    } else {
                        package.as_str()
                    };
                    let case = package_failure(name, pkg, build.map(|c| (c, "build failed")));
                    self.run.record(case);
                }
            }
            ("build-output", _, _) => {
                let key = import_path(event.import_path.as_deref().unwrap_or(""));
                let output = strip_ansi(event.output.as_deref().unwrap_or(""));
                if let Some(collector) = build_collector(&mut self.build_errors, key) {
                    for line in output.lines() {
                        collector.push(line);
                    }
                }
            }
            // Counted by the package's own `fail` event; the rest carry no result.
            ("build-fail" | "pause" | "cont" | "bench" | "run", _, _) => {}
            _ => return false,
        }
        self.seen = true;
        true
    }

    fn text_line(&mut self, line: &str) {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some((outcome, name, seconds)) = parse_result(trimmed) {
            self.seen = true;
            self.build_block = None;
            let depth = indent / INDENT;
            if depth <= MAX_DEPTH {
                self.text_result(depth, name, outcome, seconds);
            }
        } else if let Some((verb, name)) = parse_marker(line) {
            self.seen = true;
            self.build_block = None;
            let name = truncate_utf8(name, MAX_NAME_BYTES);
            if verb == "RUN" {
                start(&mut self.text, &name, &mut self.open_count);
            }
            self.current = Some(name);
        } else if let Some(end) = parse_package_line(line) {
            self.seen = true;
            self.text_package_end(&end);
        } else if let Some(header) = line.strip_prefix("# ")
            && is_build_header(header)
        {
            // The compiler's errors for one package follow; its `FAIL … [build failed]` line
            // comes later (or on the other stream).
            let key = truncate_utf8(import_path(header), MAX_NAME_BYTES);
            let room = build_collector(&mut self.build_errors, &key).is_some();
            self.build_block = room.then_some(key);
        } else if let Some(block) = &self.build_block {
            if let Some(collector) = self.build_errors.get_mut(block) {
                collector.push(line);
            }
        } else if !matches!(line.trim(), "PASS" | "FAIL") {
            output_line(
                &mut self.text,
                self.current.as_deref(),
                line,
                &mut self.open_count,
            );
        }
    }

    fn text_result(&mut self, depth: usize, name: &str, outcome: Outcome, seconds: Option<f64>) {
        self.resolve_pending(depth);
        let name = truncate_utf8(name, MAX_NAME_BYTES);
        if let Some(parent) = self.pending.last_mut()
            && is_child(&parent.name, &name)
        {
            parent.has_children = true;
            parent.child_failed |= outcome == Outcome::Failed;
        }
        self.pending.push(Pending {
            depth,
            name: name.clone(),
            outcome,
            duration_ms: seconds.and_then(seconds_to_ms),
            has_children: false,
            child_failed: false,
        });
        self.current = Some(name);
    }

    /// Count the pending text results at `depth` and deeper: their subtests are all known.
    fn resolve_pending(&mut self, depth: usize) {
        while self.pending.last().is_some_and(|p| p.depth >= depth) {
            let Some(p) = self.pending.pop() else {
                break;
            };
            let open = take_open(&mut self.text, &p.name, &mut self.open_count);
            if p.outcome == Outcome::Failed {
                self.text.failed = true;
            }
            let has_children = p.has_children || open.has_children;
            let child_failed = p.child_failed || open.child_failed;
            if !has_children || (p.outcome == Outcome::Failed && !child_failed) {
                count(&mut self.run, p.outcome, || {
                    test_failure(&p.name, None, p.duration_ms, open.output)
                });
            }
        }
    }

    fn text_package_end(&mut self, end: &PackageEnd<'_>) {
        self.resolve_pending(0);
        self.current = None;
        self.build_block = None;
        let pkg = std::mem::take(&mut self.text);
        self.open_count = self.open_count.saturating_sub(pkg.open.len());
        let suite = truncate_utf8(end.package, MAX_NAME_BYTES);
        for case in self.run.failures.iter_mut().skip(pkg.first_kept) {
            if case.suite.is_none() {
                case.suite = Some(suite.clone());
            }
        }
        self.add_duration(end.seconds);
        if end.failed && !pkg.failed {
            let build = end.build.map(|note| {
                let collector = self.build_errors.remove(&suite).unwrap_or_default();
                let fallback = if note.contains("setup") {
                    "setup failed"
                } else {
                    "build failed"
                };
                (collector, fallback)
            });
            self.run.record(package_failure(&suite, pkg, build));
        }
        self.text.first_kept = self.run.failures.len();
    }

    fn add_duration(&mut self, seconds: Option<f64>) {
        if let Some(ms) = seconds.and_then(seconds_to_ms) {
            self.run.duration_ms = Some(self.run.duration_ms.unwrap_or(0).saturating_add(ms));
        }
    }
}

/// A JSON package's state, made on first sight while there is room.
fn packages_entry<'a>(
    packages: &'a mut HashMap<String, Package>,
    package: &str,
) -> Option<&'a mut Package> {
    if !packages.contains_key(package) && packages.len() >= MAX_PACKAGES {
        return None;
    }
    Some(packages.entry(package.to_owned()).or_default())
}

/// A test started: track it, and mark its parent (the longest open prefix) as having subtests.
fn start(pkg: &mut Package, test: &str, open_count: &mut usize) {
    if let Some(parent) = parent_of(&mut pkg.open, test) {
        parent.has_children = true;
    }
    open_entry(pkg, test, open_count);
}

fn open_entry<'a>(
    pkg: &'a mut Package,
    test: &str,
    open_count: &mut usize,
) -> Option<&'a mut Open> {
    if !pkg.open.contains_key(test) {
        if *open_count >= MAX_OPEN {
            return None;
        }
        *open_count += 1;
    }
    Some(pkg.open.entry(test.to_owned()).or_default())
}

fn take_open(pkg: &mut Package, test: &str, open_count: &mut usize) -> Open {
    match pkg.open.remove(test) {
        Some(open) => {
            *open_count = open_count.saturating_sub(1);
            open
        }
        None => Open::default(),
    }
}

fn output_line(pkg: &mut Package, test: Option<&str>, line: &str, open_count: &mut usize) {
    match test {
        Some(test) => {
            if let Some(open) = open_entry(pkg, test, open_count) {
                open.output.push(line);
            }
        }
        None => pkg.output.push(line),
    }
}

/// A JSON test's result: count it unless it is a parent whose subtests explain it.
fn report(
    run: &mut TestRun,
    pkg: &mut Package,
    open_count: &mut usize,
    test: &str,
    outcome: Outcome,
    duration_ms: Option<u64>,
    suite: Option<&str>,
) {
    let open = take_open(pkg, test, open_count);
    if outcome == Outcome::Failed {
        pkg.failed = true;
        if let Some(parent) = parent_of(&mut pkg.open, test) {
            parent.has_children = true;
            parent.child_failed = true;
        }
    }
    if !open.has_children || (outcome == Outcome::Failed && !open.child_failed) {
        count(run, outcome, || {
            test_failure(test, suite, duration_ms, open.output)
        });
    }
}

fn parent_of<'a>(open: &'a mut HashMap<String, Open>, test: &str) -> Option<&'a mut Open> {
    // Subtest names may hold `/` themselves, so the longest open prefix is the parent.
    let parent = test
        .rmatch_indices('/')
        .filter_map(|(i, _)| test.get(..i))
        .find(|prefix| open.contains_key(*prefix))?;
    open.get_mut(parent)
}

fn is_child(parent: &str, name: &str) -> bool {
    name.strip_prefix(parent)
        .is_some_and(|rest| rest.starts_with('/'))
}

fn count(run: &mut TestRun, outcome: Outcome, failure: impl FnOnce() -> TestCase) {
    match outcome {
        Outcome::Passed => run.passed += 1,
        Outcome::Skipped => run.skipped += 1,
        Outcome::Failed if run.failures.len() < MAX_KEPT_FAILURES => run.record(failure()),
        Outcome::Failed => run.failed += 1,
    }
}

fn build_collector<'a>(
    errors: &'a mut HashMap<String, Collector>,
    key: &str,
) -> Option<&'a mut Collector> {
    if !errors.contains_key(key) && errors.len() >= MAX_BUILD_ERRORS {
        return None;
    }
    Some(errors.entry(key.to_owned()).or_default())
}

/// `example.com/p` or `example.com/p [example.com/p.test]`, as go heads a package's compiler
/// errors; a Markdown heading has more words.
fn is_build_header(header: &str) -> bool {
    let mut words = header.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(_), None, None) => true,
        (Some(_), Some(test), None) => test.starts_with('[') && test.ends_with(".test]"),
        _ => false,
    }
}

/// `example.com/p [example.com/p.test]` → `example.com/p`.
fn import_path(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("")
}

fn test_failure(
    name: &str,
    suite: Option<&str>,
    duration_ms: Option<u64>,
    output: Collector,
) -> TestCase {
    let mut case = output.into_case(name);
    case.suite = suite.map(str::to_owned);
    case.duration_ms = duration_ms;
    case
}

/// The one failure of a package that failed without a failing test. With `build`, the
/// compiler's first error and the message to use without one.
fn package_failure(name: &str, pkg: Package, build: Option<(Collector, &str)>) -> TestCase {
    if let Some((errors, fallback)) = build {
        let mut case = errors.into_case(name);
        let message = case.message.get_or_insert_with(|| fallback.to_owned());
        case.kind = Some(build_kind(message));
        return case;
    }
    // A test left running when the binary died (a timeout, a panic in a goroutine) may hold
    // the reason when the package's own output does not.
    let output = if pkg.output.has_message() {
        pkg.output
    } else {
        let mut open: Vec<(String, Open)> = pkg.open.into_iter().collect();
        open.sort_by(|a, b| a.0.cmp(&b.0));
        let best = open
            .iter()
            .position(|(_, o)| o.output.panic)
            .or_else(|| open.iter().position(|(_, o)| o.output.has_message()));
        match best {
            Some(i) => open.swap_remove(i).1.output,
            None => pkg.output,
        }
    };
    let mut case = output.into_case(name);
    if case.message.is_none() {
        case.message = Some("package failed without a failing test".to_owned());
        case.kind = Some(FailureKind::Crash);
    }
    case
}

/// A build failure is a dependency problem when the compiler says a package is missing;
/// anything else stops the code from compiling, which we call syntax.
fn build_kind(message: &str) -> FailureKind {
    let m = message.to_ascii_lowercase();
    let missing = [
        "cannot find module providing package",
        "no required module provides package",
        "is not in goroot",
        "is not in std",
        "missing go.sum entry",
        "could not import",
        "module lookup disabled",
        "unknown revision",
        "no matching versions",
    ];
    if missing.iter().any(|n| m.contains(n)) || classify_failure(message) == FailureKind::Dependency
    {
        FailureKind::Dependency
    } else {
        FailureKind::Syntax
    }
}

/// A test's (or a package's) output, reduced to what explains a failure: its first log entry
/// (`x_test.go:12: message` and its continuation lines), or a panic and the first stack frame
/// outside the runtime, or else its first line of other output.
#[derive(Default)]
struct Collector {
    message: Option<String>,
    file: Option<String>,
    line: Option<u32>,
    panic: bool,
    /// The first log entry's indent, while its deeper-indented continuation lines may follow.
    entry_indent: Option<usize>,
    want_frame: bool,
    fallback: Option<String>,
}

impl Collector {
    fn push(&mut self, line: &str) {
        let text = line.trim();
        let indent = line.len() - line.trim_start().len();
        if text.is_empty() {
            self.entry_indent = None;
            return;
        }
        if self.want_frame
            && let Some((file, number)) = parse_frame(text)
        {
            if !is_runtime(file) {
                self.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
                self.line = Some(number);
                self.want_frame = false;
            }
            return;
        }
        if let Some(panic) = text.strip_prefix("panic: ") {
            if !self.panic {
                // A panic ends the binary: it explains the failure better than any log line.
                let panic = panic.split(" [recovered").next().unwrap_or(panic);
                self.message = Some(truncate_utf8(&format!("panic: {panic}"), MAX_MESSAGE_BYTES));
                self.panic = true;
                self.file = None;
                self.line = None;
                self.want_frame = true;
                self.entry_indent = None;
            }
            return;
        }
        if self.panic {
            return;
        }
        if let Some(entry_indent) = self.entry_indent {
            // go indents a message's further lines under its first; its own markers end it.
            if indent > entry_indent && !text.starts_with("--- ") && !text.starts_with("=== ") {
                if let Some(message) = &mut self.message {
                    append_line(message, text);
                }
                return;
            }
            self.entry_indent = None;
        }
        if self.message.is_none()
            && let Some((file, number, message)) = split_go_location(text)
        {
            self.file = Some(truncate_utf8(file, MAX_NAME_BYTES));
            self.line = Some(number);
            self.message = Some(truncate_utf8(message, MAX_MESSAGE_BYTES));
            self.entry_indent = Some(indent);
            return;
        }
        if self.fallback.is_none() && !is_noise(text) {
            self.fallback = Some(truncate_utf8(text, MAX_MESSAGE_BYTES));
        }
    }

    fn has_message(&self) -> bool {
        self.message.is_some() || self.fallback.is_some()
    }

    fn into_case(self, name: &str) -> TestCase {
        let message = self
            .message
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .or(self.fallback);
        let mut case = TestCase::failed(truncate_utf8(name, MAX_NAME_BYTES), message);
        if self.panic && case.kind == Some(FailureKind::Assertion) {
            case.kind = Some(FailureKind::Crash);
        }
        case.file = self.file;
        case.line = self.line;
        case
    }
}

fn append_line(message: &mut String, text: &str) {
    if message.len() + text.len() < MAX_MESSAGE_BYTES {
        if !message.is_empty() {
            message.push('\n');
        }
        message.push_str(text);
    }
}

/// go's own markers and closing lines, never the reason of a failure.
fn is_noise(text: &str) -> bool {
    [
        "=== ",
        "--- ",
        "ok  ",
        "?   ",
        "FAIL",
        "PASS",
        "exit status ",
        "testing: warning",
        "# ",
    ]
    .iter()
    .any(|p| text.starts_with(p))
        || text.starts_with("coverage: ")
}

/// `x_test.go:12: message` or `pkg/x.go:7:24: message` → (file, line, message).
fn split_go_location(text: &str) -> Option<(&str, u32, &str)> {
    let at = text.find(".go:")?;
    let file = text.get(..at + 3)?;
    if file.len() <= 3 || file.contains(char::is_whitespace) {
        return None;
    }
    let rest = text.get(at + 4..)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number: u32 = rest.get(..digits)?.parse().ok().filter(|&n| n > 0)?;
    let after = rest.get(digits..)?.strip_prefix(':')?;
    let column = after.bytes().take_while(u8::is_ascii_digit).count();
    let message = if column > 0 {
        after.get(column..)?.strip_prefix(':')?
    } else {
        after
    };
    if !(message.is_empty() || message.starts_with(' ')) {
        return None;
    }
    Some((file, number, message.trim_start()))
}

/// A stack frame's location: `/path/x_test.go:9 +0x1a` → (path, 9).
fn parse_frame(text: &str) -> Option<(&str, u32)> {
    let at = text.rfind(".go:")?;
    let file = text.get(..at + 3)?;
    let rest = text.get(at + 4..)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let number = rest.get(..digits)?.parse().ok().filter(|&n| n > 0)?;
    let after = rest.get(digits..)?;
    (after.is_empty() || after.starts_with(" +")).then_some((file, number))
}

fn is_runtime(file: &str) -> bool {
    file.contains("/src/runtime/") || file.contains("/src/testing/")
}

/// `--- FAIL: TestX/sub (0.01s)` (indent removed) → (outcome, name, seconds).
fn parse_result(text: &str) -> Option<(Outcome, &str, Option<f64>)> {
    let (outcome, rest) = if let Some(rest) = text.strip_prefix("--- PASS: ") {
        (Outcome::Passed, rest)
    } else if let Some(rest) = text.strip_prefix("--- FAIL: ") {
        (Outcome::Failed, rest)
    } else {
        (Outcome::Skipped, text.strip_prefix("--- SKIP: ")?)
    };
    let (name, elapsed) = rest.strip_suffix(')')?.rsplit_once(" (")?;
    let seconds: f64 = elapsed.strip_suffix('s')?.parse().ok()?;
    let name = name.trim();
    (!name.is_empty()).then_some((outcome, name, Some(seconds)))
}

/// `=== RUN   TestX` (also `CONT`, `PAUSE`, `NAME`) → (verb, name).
fn parse_marker(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("=== ")?;
    let (verb, name) = rest.split_once(' ')?;
    let name = name.trim();
    (matches!(verb, "RUN" | "CONT" | "PAUSE" | "NAME") && !name.is_empty()).then_some((verb, name))
}

fn parse_package_line(line: &str) -> Option<PackageEnd<'_>> {
    // go separates the fields with tabs; the words before them are padded to four columns.
    let (failed, rest) = if let Some(rest) = line.strip_prefix("ok  \t") {
        (false, rest)
    } else if let Some(rest) = line.strip_prefix("FAIL\t") {
        (true, rest)
    } else {
        (false, line.strip_prefix("?   \t")?)
    };
    let mut fields = rest.split('\t');
    let first = fields.next()?;
    let (package, build) = match first.split_once(' ') {
        Some((package, note @ ("[build failed]" | "[setup failed]"))) if failed => {
            (package, Some(note))
        }
        Some(_) => return None,
        None => (first, None),
    };
    if package.is_empty() {
        return None;
    }
    let seconds = fields
        .next()
        .and_then(|f| f.split(' ').next())
        .and_then(|f| f.strip_suffix('s'))
        .and_then(|f| f.parse().ok());
    Some(PackageEnd {
        package,
        failed,
        build,
        seconds,
    })
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
        read_report_as(&fixture(&format!("gotest/{rel}")), ReportFormat::GoTest)
            .expect("read")
            .expect("go test output")
    }

    fn parse(text: &str) -> Option<TestRun> {
        let mut reader = Box::new(GoTestReader::new());
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

    const HOSTILE: &str = "TestTable/|_pipe_|_`tick`_@someone_<b>bold</b>_ünïcödé_✓";

    /// The expectations shared by `go test -json` and `go test -v` of ./pass ./mixed.
    fn assert_mixed(run: &TestRun) {
        // go's result lines: 8 PASS, 8 FAIL, 2 SKIP (`grep -c -- '--- PASS'` in mixed.v.txt,
        // the same numbers of pass/fail/skip events with a Test in mixed.json). The parents
        // TestSplit, TestTable and TestTable/nested are not counted; TestParentFailsAlone is,
        // as its own t.Error failed it while its subtests passed.
        assert_eq!(run.framework, "gotest");
        assert_eq!(counts(run), (7, 6, 2));
        assert!(run.duration_ms.is_some());
        assert_eq!(
            names(run),
            [
                "TestFails",
                "TestTable/two",
                "TestTable/nested/deeper",
                HOSTILE,
                "TestParentFailsAlone",
                "TestDeadline",
            ]
        );
        for case in &run.failures {
            assert_eq!(case.suite.as_deref(), Some("example.com/fixtures/mixed"));
            assert_eq!(case.file.as_deref(), Some("mixed_test.go"), "{}", case.name);
            assert!(case.duration_ms.is_some(), "{}", case.name);
        }
        let fails = &run.failures[0];
        assert_eq!(
            fails.message.as_deref(),
            Some("expected 3, got 4\nsecond line of the message")
        );
        assert_eq!(fails.line, Some(15));
        assert_eq!(fails.kind, Some(FailureKind::Assertion));
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("two: want true, got false")
        );
        assert_eq!(run.failures[2].message.as_deref(), Some("deeper failed"));
        assert_eq!(run.failures[2].line, Some(30));
        assert_eq!(
            run.failures[3].message.as_deref(),
            Some("hostile name failed")
        );
        assert_eq!(
            run.failures[4].message.as_deref(),
            Some("cleanup failed after the children passed")
        );
        assert_eq!(run.failures[4].line, Some(41));
        let deadline = &run.failures[5];
        assert_eq!(
            deadline.message.as_deref(),
            Some("fetch: context deadline exceeded")
        );
        assert_eq!(deadline.kind, Some(FailureKind::Timeout));
    }

    #[test]
    fn json_events_count_leaves() {
        assert_mixed(&read("mixed.json"));
    }

    #[test]
    fn verbose_text_reads_like_the_json() {
        // go -v prints a parent's result line before its subtests' lines.
        let text = read("mixed.v.txt");
        assert_mixed(&text);
        // The same cases, apart from durations (each run has its own).
        let without_time = |run: TestRun| -> Vec<TestCase> {
            let mut failures = run.failures;
            for case in &mut failures {
                case.duration_ms = None;
            }
            failures
        };
        assert_eq!(without_time(text), without_time(read("mixed.json")));
    }

    #[test]
    fn plain_text_lists_only_failures() {
        // Without -v go prints 8 `--- FAIL` lines and no passes: the same 6 leaf failures.
        let run = read("mixed.txt");
        assert_eq!(counts(&run), (0, 6, 0));
        assert_eq!(names(&run), names(&read("mixed.json")));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("expected 3, got 4\nsecond line of the message")
        );
    }

    #[test]
    fn panics_are_crashes_and_a_failing_init_fails_its_package() {
        // go: `FAIL example.com/fixtures/panics` after TestBeforePanic passed and TestPanics
        // panicked, and `FAIL example.com/fixtures/initpanic` with no test at all.
        for rel in ["panic.json", "panic.v.txt"] {
            let run = read(rel);
            assert_eq!(counts(&run), (1, 2, 0), "{rel}");
            assert_eq!(
                names(&run),
                ["TestPanics", "example.com/fixtures/initpanic"],
                "{rel}"
            );
            let panic = &run.failures[0];
            assert_eq!(
                panic.message.as_deref(),
                Some("panic: runtime error: index out of range [3] with length 0")
            );
            assert_eq!(panic.kind, Some(FailureKind::Crash));
            assert_eq!(
                panic.file.as_deref(),
                Some("/tmp/skillgate-fixtures/gotest/project/panics/panics_test.go")
            );
            assert_eq!(panic.line, Some(9));
            assert_eq!(panic.suite.as_deref(), Some("example.com/fixtures/panics"));
            let init = &run.failures[1];
            assert_eq!(
                init.message.as_deref(),
                Some("panic: config file missing: settings.toml")
            );
            assert_eq!(init.kind, Some(FailureKind::Crash));
            assert_eq!(init.line, Some(6));
            assert_eq!(init.suite, None);
        }
    }

    #[test]
    fn a_generated_table_of_320_cases() {
        // 320 subtests: 318 pass, case_123 fails, case_250 skips (`grep -c` of the events);
        // their parent TestGenerated is not counted.
        let run = read("table.json");
        assert_eq!(counts(&run), (318, 1, 1));
        let case = &run.failures[0];
        assert_eq!(case.name, "TestGenerated/case_123");
        assert_eq!(case.message.as_deref(), Some("case 123: want 246, got 247"));
        assert_eq!(
            (case.file.as_deref(), case.line),
            (Some("table_test.go"), Some(15))
        );
    }

    #[test]
    fn packages_without_tests_are_go_output_with_no_tests() {
        // go: `ok … empty … [no tests to run]`, `? … notests [no test files]`.
        for rel in ["empty.json", "empty.v.txt"] {
            let run = read(rel);
            assert_eq!(counts(&run), (0, 0, 0), "{rel}");
            assert_eq!(run.pass_rate(), None);
        }
    }

    #[test]
    fn build_failures_are_one_case_per_package() {
        // go: `FAIL …/syntax [setup failed]`, `FAIL …/deps [setup failed]`,
        // `FAIL …/typeerr [build failed]`, `ok …/pass`. Both streams in one capture:
        // the compiler's first error of each package explains it.
        let run = read("build.v.txt");
        assert_eq!(counts(&run), (3, 3, 0));
        let expected = [
            (
                "example.com/fixtures/syntax",
                "syntax/syntax_test.go",
                7,
                "missing ',' before newline in argument list",
                FailureKind::Syntax,
            ),
            (
                "example.com/fixtures/deps",
                "deps/deps_test.go",
                6,
                "cannot find module providing package github.com/nope/missing: module lookup disabled by GOPROXY=off",
                FailureKind::Dependency,
            ),
            (
                "example.com/fixtures/typeerr",
                "typeerr/typeerr_test.go",
                6,
                "undefined: missingHelper",
                FailureKind::Syntax,
            ),
        ];
        for (case, (name, file, line, message, kind)) in run.failures.iter().zip(expected) {
            assert_eq!(case.name, name);
            assert_eq!(case.file.as_deref(), Some(file));
            assert_eq!(case.line, Some(line));
            assert_eq!(case.message.as_deref(), Some(message));
            assert_eq!(case.kind, Some(kind));
        }

        // go 1.19 with -json prints the FAIL lines as text amid the events, and the
        // compiler's errors on stderr, which holds no go test line of its own.
        let run = read_output(
            &fixture("gotest/build.json"),
            &fixture("gotest/build.json.stderr"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.framework, "gotest");
        assert_eq!(counts(&run), (3, 3, 0));
        let messages: Vec<_> = run.failures.iter().map(|c| c.message.as_deref()).collect();
        assert_eq!(
            messages,
            [
                Some("setup failed"),
                Some("setup failed"),
                Some("build failed")
            ]
        );
        assert!(
            run.failures
                .iter()
                .all(|c| c.kind == Some(FailureKind::Syntax))
        );
    }

    #[test]
    fn go_1_24_build_events_explain_the_package_failure() {
        // The events of cmd/go's test_json_build script (go 1.24+): build output has its own
        // actions, and the package's `fail` names the build that failed.
        let run = parse(concat!(
            r##"{"ImportPath":"m/builderror [m/builderror.test]","Action":"build-output","Output":"# m/builderror [m/builderror.test]\n"}"##,
            "\n",
            r#"{"ImportPath":"m/builderror [m/builderror.test]","Action":"build-output","Output":"builderror/main_test.go:3:11: undefined: y\n"}"#,
            "\n",
            r#"{"ImportPath":"m/builderror [m/builderror.test]","Action":"build-fail"}"#,
            "\n",
            r#"{"Time":"2024-11-17T07:00:51Z","Action":"start","Package":"m/builderror"}"#,
            "\n",
            r#"{"Time":"2024-11-17T07:00:51Z","Action":"output","Package":"m/builderror","Output":"FAIL\tm/builderror [build failed]\n"}"#,
            "\n",
            r#"{"Time":"2024-11-17T07:00:51Z","Action":"fail","Package":"m/builderror","Elapsed":0,"FailedBuild":"m/builderror [m/builderror.test]"}"#,
        ))
        .expect("go events");
        assert_eq!(counts(&run), (0, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "m/builderror");
        assert_eq!(case.message.as_deref(), Some("undefined: y"));
        assert_eq!(case.file.as_deref(), Some("builderror/main_test.go"));
        assert_eq!(case.line, Some(3));
        assert_eq!(case.kind, Some(FailureKind::Syntax));
    }

    #[test]
    fn standalone_test2json_has_no_package() {
        // `go tool test2json` over a test binary: no Package field, tab-indented logs.
        let run = parse(concat!(
            r#"{"Action":"start"}"#,
            "\n",
            r#"{"Action":"run","Test":"TestX"}"#,
            "\n",
            r#"{"Action":"output","Test":"TestX","Output":"\tx_test.go:8: boom\n"}"#,
            "\n",
            r#"{"Action":"fail","Test":"TestX"}"#,
            "\n",
            r#"{"Action":"fail"}"#,
        ))
        .expect("go events");
        assert_eq!(counts(&run), (0, 1, 0));
        let case = &run.failures[0];
        assert_eq!((case.name.as_str(), case.suite.as_deref()), ("TestX", None));
        assert_eq!(case.message.as_deref(), Some("boom"));
        assert_eq!(case.line, Some(8));
    }

    #[test]
    fn a_timeout_fails_the_package_with_its_panic() {
        let run = parse(
            "=== RUN   TestQuick\n\
             --- PASS: TestQuick (0.00s)\n\
             === RUN   TestSlow\n\
             panic: test timed out after 1s\n\
             \n\
             goroutine 7 [running]:\n\
             testing.(*M).startAlarm.func1()\n\
             \t/usr/local/go/src/testing/testing.go:2241 +0x3b9\n\
             FAIL\texample.com/slow\t1.012s\n\
             FAIL",
        )
        .expect("go output");
        assert_eq!(counts(&run), (1, 1, 0));
        let case = &run.failures[0];
        assert_eq!(case.name, "example.com/slow");
        assert_eq!(
            case.message.as_deref(),
            Some("panic: test timed out after 1s")
        );
        assert_eq!(case.kind, Some(FailureKind::Timeout));
        assert_eq!(case.file, None);
        assert_eq!(run.duration_ms, Some(1012));
    }

    #[test]
    fn only_compiler_headers_start_a_build_block() {
        let run = parse(
            "=== RUN   TestA\n\
             # Results of the run\n\
             panic: boom\n\
             # example.com/b [example.com/b.test]\n\
             b/b_test.go:3:1: syntax error: unexpected }\n\
             --- FAIL: TestA (0.00s)\n\
             FAIL\texample.com/a\t0.010s\n\
             FAIL\texample.com/b [build failed]",
        )
        .expect("go output");
        assert_eq!(counts(&run), (0, 2, 0));
        assert_eq!(run.failures[0].message.as_deref(), Some("panic: boom"));
        assert_eq!(
            run.failures[1].message.as_deref(),
            Some("syntax error: unexpected }")
        );
        assert_eq!(run.failures[1].kind, Some(FailureKind::Syntax));
        assert_eq!(run.failures[1].line, Some(3));
    }

    #[test]
    fn a_package_failing_silently_is_one_failure() {
        // TestMain calling os.Exit(1) after its tests passed.
        let run = parse("=== RUN   TestA\n--- PASS: TestA (0.00s)\nFAIL\texample.com/m\t0.003s")
            .expect("go output");
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(names(&run), ["example.com/m"]);
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("package failed without a failing test")
        );
        assert_eq!(run.failures[0].kind, Some(FailureKind::Crash));
    }

    #[test]
    fn other_output_is_not_go() {
        assert_eq!(parse(""), None);
        assert_eq!(
            parse("PASS\nFAIL\nok 1 - tap\n# heading\nok  pkg 0.1s"),
            None
        );
        assert_eq!(parse("--- FAIL: missing its duration"), None);
        assert_eq!(parse(r#"{"Action":"deploy","Package":"x"}"#), None);
        assert_eq!(parse(r#"{"type":"test","event":"ok","name":"x"}"#), None);
        for rel in [
            "tap/node.tap",
            "summary/stdout.txt",
            "junit/pytest.stdout.txt",
        ] {
            assert_eq!(
                read_report_as(&fixture(rel), ReportFormat::GoTest).expect("read"),
                None,
                "{rel}"
            );
        }
        // And go's output is detected as go among every line format.
        let run = read_report_file(&fixture("gotest/mixed.v.txt"))
            .expect("read")
            .expect("a report");
        assert_eq!(run.format, ReportFormat::GoTest);
    }

    #[test]
    fn broken_json_lines_are_skipped_and_deep_nesting_stays_bounded() {
        let open = "[".repeat(10_000);
        let close = "]".repeat(10_000);
        // serde_json skips an unknown field without recursing, so this is TestDeep's pass.
        let deep_unknown =
            format!(r#"{{"Action":"pass","Package":"p","Test":"TestDeep","X":{open}{close}}}"#);
        // Nesting where a string belongs is not an event. No field read here is recursive;
        // serde_json's recursion limit (on by default, never disabled) guards the rest.
        let deep_known = format!(r#"{{"Action":"pass","Package":"p","Test":{open}{close}}}"#);
        let deep_objects = format!("{}{}", r#"{"Action":"#.repeat(10_000), "}".repeat(10_000));
        let run = parse(&format!(
            "{}\n{}\n{deep_unknown}\n{deep_known}\n{deep_objects}\n{}\n{}\n{}",
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5"#,
            r#"{"Action":"pass","Package":"p","Test":7}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestB","Elapsed":1e300}"#,
            r#"{"Action":"fail","Package":"p","Test":"TestC","Elapsed":-3}"#,
        ))
        .expect("go events");
        // The cut line and the mistyped ones are skipped; TestB's absurd time saturates.
        assert_eq!(counts(&run), (2, 1, 0));
        assert_eq!(names(&run), ["TestC"]);
        assert_eq!(run.failures[0].duration_ms, None);
    }

    #[test]
    fn absurd_text_is_read_without_panicking() {
        let deep_indent = format!("{}--- PASS: TestDeep (0.00s)", " ".repeat(10_000));
        let long_name = format!("--- FAIL: Test{} (1e400s)", "x".repeat(100_000));
        let garbage = String::from_utf8_lossy(&[0xff, 0x00, 0xfe, b'\t', 0x80, b'\n', 0xc3]);
        let run = parse(&format!(
            "=== RUN   TestA\n{deep_indent}\n{long_name}\n{garbage}\n\
             --- PASS: TestZ (99999999999999999999999.00s)\nok  \tp\t1e999s"
        ))
        .expect("go output");
        // The result line indented past any real nesting is ignored; `1e400s` is a number
        // (infinite), so the runaway name is a failure, its name cut and its time dropped.
        assert_eq!(counts(&run), (1, 1, 0));
        assert_eq!(run.duration_ms, None);
        let case = &run.failures[0];
        assert!(case.name.len() <= MAX_NAME_BYTES);
        assert!(case.name.starts_with("Testxxx"));
        assert_eq!(case.duration_ms, None);
        assert_eq!(parse(&garbage), None);
    }

    #[test]
    fn counts_stay_exact_beyond_what_is_tracked() {
        let mut reader = Box::new(GoTestReader::new());
        for i in 0..3 * MAX_OPEN {
            reader.feed(&format!(
                r#"{{"Action":"run","Package":"p","Test":"T{i}"}}"#
            ));
            reader.feed(&format!(
                r#"{{"Action":"output","Package":"p","Test":"T{i}","Output":"x_test.go:1: no {i}\n"}}"#
            ));
        }
        for i in 0..3 * MAX_OPEN {
            reader.feed(&format!(
                r#"{{"Action":"fail","Package":"p","Test":"T{i}"}}"#
            ));
        }
        reader.feed(r#"{"Action":"fail","Package":"p"}"#);
        let run = reader.finish().expect("go events");
        assert_eq!(run.failed, 3 * MAX_OPEN as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
        assert_eq!(run.failures[0].message.as_deref(), Some("no 0"));
    }
}
