//! The one normalized model every test report is read into, and the seed's stored JSON schema.

use serde::{Deserialize, Serialize};

/// How many failed cases a run keeps in full; the counts stay exact beyond it.
pub const MAX_KEPT_FAILURES: usize = 200;

/// How long a failure message may be before it is cut (bytes, on a UTF-8 boundary).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// The format a report was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReportFormat {
    /// JUnit XML in its dialects (Surefire, pytest, jest-junit, go-junit-report, nextest, …).
    Junit,
    /// Jest's `--json` document.
    Jest,
    /// Mocha's `json` reporter document.
    Mocha,
    /// TAP 12, 13 and 14.
    Tap,
    /// pytest's terminal output.
    Pytest,
    /// Python unittest's output.
    Unittest,
    /// `go test -json` events or `go test -v` text.
    #[serde(rename = "gotest")]
    GoTest,
    /// cargo/libtest text or JSON.
    Libtest,
    /// node:test's spec reporter.
    NodeSpec,
    /// The shell formats skill repositories print (`Passed: N`, `✓`/`✗`, `[PASS]`, …).
    Adhoc,
    /// The plain closing line `N passed, N failed[, N skipped]`.
    Summary,
    /// Mocha's default `spec` reporter and its `dot` reporter (`N passing`, `N failing`).
    MochaSpec,
    /// Jest's default reporter (`Tests: N failed, N passed, N total`, on stderr).
    JestText,
    /// Vitest's default reporter (`Tests  N failed | N passed (N)`).
    VitestText,
    /// Perl's `prove` (`Files=N, Tests=N`, `Failed N/M subtests`, the Test Summary Report).
    Prove,
    /// No report could be read: the suite's exit code stands for one synthetic case.
    ExitCode,
}

impl ReportFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Junit => "junit",
            Self::Jest => "jest",
            Self::Mocha => "mocha",
            Self::Tap => "tap",
            Self::Pytest => "pytest",
            Self::Unittest => "unittest",
            Self::GoTest => "gotest",
            Self::Libtest => "libtest",
            Self::NodeSpec => "node-spec",
            Self::Adhoc => "adhoc",
            Self::Summary => "summary",
            Self::MochaSpec => "mocha-spec",
            Self::JestText => "jest-text",
            Self::VitestText => "vitest-text",
            Self::Prove => "prove",
            Self::ExitCode => "exit-code",
        }
    }
}

/// What became of one test case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passed,
    Failed,
    Skipped,
}

/// Why a test failed, per the seed's error-handling skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    Assertion,
    Timeout,
    Syntax,
    /// An import or module that could not be found.
    Dependency,
    Crash,
}

/// One test case. Runs keep only their failed cases; passes and skips are counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
}

impl TestCase {
    /// A failed case with a name and a message (cut to [`MAX_MESSAGE_BYTES`]).
    pub fn failed(name: impl Into<String>, message: Option<String>) -> Self {
        let message = message.map(|m| truncate_utf8(&m, MAX_MESSAGE_BYTES));
        let kind = Some(classify_failure(message.as_deref().unwrap_or("")));
        Self {
            name: name.into(),
            suite: None,
            file: None,
            line: None,
            duration_ms: None,
            outcome: Outcome::Failed,
            message,
            kind,
        }
    }
}

/// The result of reading one report (or one suite's output): exact counts, the failures kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestRun {
    /// The framework that produced the report when the report says so (`jest`, `pytest`, …),
    /// else the format's name.
    pub framework: String,
    pub format: ReportFormat,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Failed cases, at most [`MAX_KEPT_FAILURES`]; `failed` stays the exact count.
    pub failures: Vec<TestCase>,
    /// Names of tests that failed and then passed on a retry (counted as passed), at most
    /// [`MAX_KEPT_FAILURES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<String>,
    /// What frameworks' own closing summaries said, wherever they were printed (this run's
    /// format or another's): the floor the counts are checked against (`results::floor`).
    #[serde(skip)]
    pub claims: Vec<Claim>,
}

/// The totals a framework's closing summary states (`3 passing`, `5 failing`; `Tests: 5
/// failed, 7 passed, 12 total`; `FAILED (failures=2)`), in this crate's counting rules (errors
/// are failures, pending and todo are skipped), and where it was printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The format whose summary it is.
    pub format: ReportFormat,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    /// Where it was printed (`stdout`, `stderr`, a report file); set by whoever reads the
    /// stream, empty until then.
    pub origin: String,
}

impl Claim {
    pub fn new(format: ReportFormat, passed: u64, failed: u64, skipped: u64) -> Self {
        Self {
            format,
            passed,
            failed,
            skipped,
            origin: String::new(),
        }
    }

    pub fn total(&self) -> u64 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }
}

impl TestRun {
    pub fn new(format: ReportFormat) -> Self {
        Self {
            framework: format.as_str().to_owned(),
            format,
            passed: 0,
            failed: 0,
            skipped: 0,
            duration_ms: None,
            failures: Vec::new(),
            flaky: Vec::new(),
            claims: Vec::new(),
        }
    }

    pub fn total(&self) -> u64 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }

    /// `passed / total`, or `None` when the run holds no tests at all ("no tests" is not 1.0).
    pub fn pass_rate(&self) -> Option<f64> {
        let total = self.total();
        (total > 0).then(|| self.passed as f64 / total as f64)
    }

    /// Count one case; keep it if it failed and there is room.
    pub fn record(&mut self, case: TestCase) {
        match case.outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::Failed => {
                self.failed += 1;
                if self.failures.len() < MAX_KEPT_FAILURES {
                    self.failures.push(case);
                }
            }
        }
    }

    /// Join two halves of one run told across two streams: the larger of each count (no test is
    /// counted twice, none lost), every named failure kept (up to the cap).
    pub fn merge_halves(&mut self, other: TestRun) {
        self.passed = self.passed.max(other.passed);
        self.failed = self.failed.max(other.failed);
        self.skipped = self.skipped.max(other.skipped);
        self.duration_ms = self.duration_ms.max(other.duration_ms);
        let room = MAX_KEPT_FAILURES.saturating_sub(self.failures.len());
        self.failures.extend(other.failures.into_iter().take(room));
        self.failed = self.failed.max(self.failures.len() as u64);
        let room = MAX_KEPT_FAILURES.saturating_sub(self.flaky.len());
        self.flaky.extend(other.flaky.into_iter().take(room));
        self.claims.extend(other.claims);
    }

    /// Add another run's counts and failures into this one (several reports from one suite).
    pub fn merge(&mut self, other: TestRun) {
        self.passed = self.passed.saturating_add(other.passed);
        self.failed = self.failed.saturating_add(other.failed);
        self.skipped = self.skipped.saturating_add(other.skipped);
        self.duration_ms = match (self.duration_ms, other.duration_ms) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        let room = MAX_KEPT_FAILURES.saturating_sub(self.failures.len());
        self.failures.extend(other.failures.into_iter().take(room));
        let room = MAX_KEPT_FAILURES.saturating_sub(self.flaky.len());
        self.flaky.extend(other.flaky.into_iter().take(room));
        self.claims.extend(other.claims);
    }
}

/// Classify a failure message into the seed's kinds. The words are the ones test frameworks
/// and interpreters print; anything unrecognised is an assertion failure.
pub fn classify_failure(message: &str) -> FailureKind {
    let m = message.to_ascii_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| m.contains(n));
    if has(&[
        "timed out",
        "timeout",
        "time limit exceeded",
        "deadline exceeded",
    ]) {
        FailureKind::Timeout
    } else if has(&[
        "modulenotfounderror",
        "importerror",
        "cannot find module",
        "err_module_not_found",
        "no module named",
        "command not found",
        "cannot find package",
    ]) {
        FailureKind::Dependency
    } else if has(&[
        "syntaxerror",
        "syntax error",
        "parseerror",
        "unexpected token",
    ]) {
        FailureKind::Syntax
    } else if has(&["assertion", "assert_eq", "assert!"]) {
        // Rust's failed assertions panic: they are assertions, not crashes.
        FailureKind::Assertion
    } else if has(&[
        "segmentation fault",
        "sigsegv",
        "sigabrt",
        "core dumped",
        "panicked",
        "killed by signal",
        "fatal error",
    ]) {
        FailureKind::Crash
    } else {
        FailureKind::Assertion
    }
}

/// Cut `s` to at most `max` bytes on a character boundary, marking the cut with `…`.
pub fn truncate_utf8(s: &str, max: usize) -> String {
    let mut out = String::new();
    push_truncated(&mut out, s, max);
    out
}

/// [`truncate_utf8`] onto the end of `out`, for buffers reused without allocating.
pub(crate) fn push_truncated(out: &mut String, s: &str, max: usize) {
    if s.len() <= max {
        out.push_str(s);
        return;
    }
    let ellipsis = "…";
    let mut end = max.saturating_sub(ellipsis.len());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(s.get(..end).unwrap_or_default());
    out.push_str(ellipsis);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_rate_counts_skips_in_the_total_and_is_none_without_tests() {
        let mut run = TestRun::new(ReportFormat::Tap);
        assert_eq!(run.pass_rate(), None);
        run.passed = 45;
        run.skipped = 2;
        let rate = run.pass_rate().expect("tests exist");
        assert!((rate - 45.0 / 47.0).abs() < 1e-12);
    }

    #[test]
    fn record_keeps_exact_counts_beyond_the_kept_failures() {
        let mut run = TestRun::new(ReportFormat::Junit);
        for i in 0..MAX_KEPT_FAILURES + 5 {
            run.record(TestCase::failed(format!("t{i}"), None));
        }
        assert_eq!(run.failed, (MAX_KEPT_FAILURES + 5) as u64);
        assert_eq!(run.failures.len(), MAX_KEPT_FAILURES);
    }

    #[test]
    fn merge_adds_flaky_names_up_to_the_cap_and_serde_omits_none() {
        let mut run = TestRun::new(ReportFormat::Junit);
        let json = serde_json::to_value(&run).expect("json");
        assert!(json.get("flaky").is_none(), "{json}");
        // Runs stored before the field existed still read.
        let back: TestRun = serde_json::from_value(json).expect("read back");
        assert!(back.flaky.is_empty());

        run.flaky = vec!["a".to_owned()];
        let mut other = TestRun::new(ReportFormat::Junit);
        other.flaky = (0..MAX_KEPT_FAILURES).map(|i| format!("t{i}")).collect();
        run.merge(other);
        assert_eq!(run.flaky.len(), MAX_KEPT_FAILURES);
        assert_eq!(run.flaky[..3], ["a", "t0", "t1"]);
        let json = serde_json::to_value(&run).expect("json");
        assert_eq!(json["flaky"][0], "a");
    }

    #[test]
    fn failure_kinds_follow_the_message() {
        assert_eq!(
            classify_failure("Timeout: 30000ms exceeded"),
            FailureKind::Timeout
        );
        assert_eq!(
            classify_failure("ModuleNotFoundError: No module named 'yaml'"),
            FailureKind::Dependency
        );
        assert_eq!(
            classify_failure("SyntaxError: invalid syntax"),
            FailureKind::Syntax
        );
        assert_eq!(
            classify_failure("Segmentation fault (core dumped)"),
            FailureKind::Crash
        );
        assert_eq!(
            classify_failure("expected 1, got 2"),
            FailureKind::Assertion
        );
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        let s = "ééééé"; // 10 bytes
        let cut = truncate_utf8(s, 6);
        assert!(cut.len() <= 6, "{cut}");
        assert!(cut.ends_with('…'));
        assert_eq!(truncate_utf8("short", 10), "short");
    }
}
