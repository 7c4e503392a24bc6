//! The results document (`skillgate.results/1`): one gate run, what `check --out` writes and
//! what `publish` will read. Also the seed's stored test-results schema.

use serde::{Deserialize, Serialize};

use crate::analysis::secrets::redact_text;

use crate::changes::ChangeKind;
use crate::config::FailOn;
use crate::exit_codes;
use crate::policy::{Decision, Verdict};
use crate::results::{FailureKind, ReportFormat, TestRun};
use crate::signals::Signals;
use crate::skill::{Finding, Tier};
use crate::suite::Suite;

pub const SCHEMA: &str = "skillgate.results/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateRun {
    pub schema: String,
    pub tool: Tool,
    pub run: RunInfo,
    pub summary: Summary,
    /// Findings that belong to no skill (a symlink loop under a skill root, …).
    pub findings: Vec<Finding>,
    pub skills: Vec<SkillResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Self {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// Where and on what the gate ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// `owner/name` in Actions, else the repository directory's name.
    pub repository: String,
    pub pull_request: Option<u64>,
    /// The pull request's head commit, which the check run goes on (`head` is the commit
    /// tested: in a `pull_request` job, the merge of head into base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request_head: Option<String>,
    pub base: Option<String>,
    /// The head commit; `None` for a directory without git.
    pub head: Option<String>,
    /// Whether uncommitted changes were tested along with `head`.
    pub dirty: bool,
    /// `local`, or the GitHub event name.
    pub event: String,
    pub run_id: Option<String>,
    pub run_attempt: u32,
    /// `changed` (skills touched between base and head) or `all`.
    pub scope: String,
    pub started_at: String,
    pub finished_at: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub skills: usize,
    pub auto: usize,
    pub escalate: usize,
    pub human: usize,
    pub needs_correction: usize,
}

/// One gated skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillResult {
    pub name: String,
    /// Repository-relative directory (its old place when deleted).
    pub dir: String,
    pub skill_file: String,
    pub change: ChangeKind,
    pub content_hash: Option<String>,
    pub version: Option<String>,
    pub category: Option<String>,
    pub owner: Option<String>,
    pub team: Option<String>,
    pub tags: Vec<String>,
    pub generated_by: Option<String>,
    pub phase4_pattern_id: Option<i64>,
    pub lint: Vec<Finding>,
    pub suite: Option<SuiteReport>,
    /// The seed's test-results JSON, stored as `approval_history.test_results`.
    pub tests: Option<TestResults>,
    pub coverage: Option<CoverageReport>,
    pub signals: Signals,
    pub decision: Decision,
}

/// How the suite was run and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    #[serde(flatten)]
    pub suite: Option<Suite>,
    /// `exit 0`, `timed out after 10m`, `not run: …`.
    pub outcome: String,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// Of the last attempt.
    pub duration_ms: u64,
    /// Runs of the suite: 1, more when it failed and `retries` allowed re-running it; 0 when
    /// it did not run.
    #[serde(default)]
    pub attempts: u32,
    /// How long each earlier (failed) attempt took.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_attempts_ms: Vec<u64>,
    /// Where the results were read from: report files, `stdout`, or `exit code`.
    pub results_from: Vec<String>,
}

/// Coverage as reported: measured (with its format and line counts) or declared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageReport {
    pub ratio: f64,
    /// `measured` or `declared`.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// What the measured counts are: `lines`, or `statements` (Go coverprofiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_covered: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_total: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statements_covered: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statements_total: Option<u64>,
}

impl CoverageReport {
    /// Measured coverage, its counts under the keys of its unit.
    pub fn measured(coverage: &crate::coverage::Coverage) -> Self {
        let lines = coverage.unit == crate::coverage::CoverageUnit::Lines;
        let counts = |is: bool, n: u64| is.then_some(n);
        Self {
            ratio: coverage.ratio().unwrap_or(0.0),
            source: "measured".to_owned(),
            format: Some(coverage.format.as_str().to_owned()),
            unit: Some(coverage.unit.as_str().to_owned()),
            lines_covered: counts(lines, coverage.covered),
            lines_total: counts(lines, coverage.total),
            statements_covered: counts(!lines, coverage.covered),
            statements_total: counts(!lines, coverage.total),
        }
    }
}

/// The seed's stored test-results schema (section 7), plus a few extra keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResults {
    pub framework: String,
    pub pass_count: u64,
    pub fail_count: u64,
    pub skip_count: u64,
    pub total_count: u64,
    /// `pass_count / total_count`; `null` when no test ran.
    pub pass_rate: Option<f64>,
    pub duration_ms: u64,
    pub timestamp: String,
    /// `"88%"`, as in the seed; `null` when unknown.
    pub coverage: Option<String>,
    /// Change from the previous recorded coverage, in percentage points.
    pub coverage_delta: Option<f64>,
    pub failed_tests: Vec<FailedTest>,
    /// Extra: tests that failed and then passed on a rerun (counted as passed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky_tests: Vec<String>,
    /// Extra: the report format the counts were read from.
    pub format: String,
    /// Extra: `exit-code` when nothing could be read as test results and the counts stand for
    /// the suite's exit code alone; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedTest {
    pub name: String,
    pub error: Option<String>,
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
}

impl TestResults {
    /// The stored form of a run. `coverage` is a ratio; the seed writes it as a percentage.
    pub fn from_run(
        run: &TestRun,
        duration_ms: u64,
        timestamp: &str,
        coverage: Option<f64>,
        coverage_delta: Option<f64>,
    ) -> Self {
        Self {
            framework: run.framework.clone(),
            pass_count: run.passed,
            fail_count: run.failed,
            skip_count: run.skipped,
            total_count: run.total(),
            pass_rate: run.pass_rate().map(|r| (r * 1000.0).round() / 1000.0),
            duration_ms: run.duration_ms.unwrap_or(duration_ms),
            timestamp: timestamp.to_owned(),
            coverage: coverage.map(percent),
            coverage_delta,
            failed_tests: run
                .failures
                .iter()
                .map(|case| FailedTest {
                    name: redact_text(&case.name),
                    // A test may print a secret it was handed: never shown as it is.
                    error: case.message.as_deref().map(redact_text),
                    duration_ms: case.duration_ms,
                    suite: case.suite.clone(),
                    file: case.file.clone(),
                    line: case.line,
                    kind: case.kind,
                })
                .collect(),
            flaky_tests: run.flaky.iter().map(|name| redact_text(name)).collect(),
            format: run.format.as_str().to_owned(),
            source: (run.format == ReportFormat::ExitCode).then(|| "exit-code".to_owned()),
        }
    }
}

/// `0.884` → `"88.4%"`, `0.88` → `"88%"`.
pub fn percent(ratio: f64) -> String {
    let pct = (ratio * 1000.0).round() / 10.0;
    if pct.fract() == 0.0 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

impl GateRun {
    pub fn summarize(skills: &[SkillResult]) -> Summary {
        let mut summary = Summary {
            skills: skills.len(),
            ..Summary::default()
        };
        for skill in skills {
            match (skill.decision.decision, skill.decision.tier) {
                (Verdict::NeedsCorrection, _) => summary.needs_correction += 1,
                (_, Tier::Auto) => summary.auto += 1,
                (_, Tier::Escalate) => summary.escalate += 1,
                (_, Tier::Human) => summary.human += 1,
            }
        }
        summary
    }

    /// The exit code for this run under `--fail-on`.
    pub fn exit_code(&self, fail_on: FailOn) -> u8 {
        let s = &self.summary;
        match fail_on {
            FailOn::Never => exit_codes::OK,
            _ if s.needs_correction > 0 => exit_codes::CORRECTION_NEEDED,
            FailOn::Review if s.escalate + s.human > 0 => exit_codes::REVIEW_REQUIRED,
            _ => exit_codes::OK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_reads_like_the_seed() {
        assert_eq!(percent(0.88), "88%");
        assert_eq!(percent(0.884), "88.4%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.0), "0%");
    }
}
