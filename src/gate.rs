//! The results document (`skillgate.results/1`): one gate run, what `check --out` writes and
//! what `publish` will read. Also the seed's stored test-results schema. Text from a skill or
//! its tests is [`Redacted`] here, once: every renderer shows the document as it is.

mod redacted;

use serde::{Deserialize, Serialize};

pub use redacted::Redacted;

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
    pub findings: Vec<ReportedFinding>,
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
    pub scope: RunScope,
    pub started_at: String,
    pub finished_at: String,
}

/// Which skills a run gated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunScope {
    /// The skills touched between base and head (`changed`).
    Changed,
    /// Every skill in the repository (`all`).
    All,
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
    pub lint: Vec<ReportedFinding>,
    pub suite: Option<SuiteReport>,
    /// The seed's test-results JSON, stored as `approval_history.test_results`.
    pub tests: Option<TestResults>,
    pub coverage: Option<CoverageReport>,
    pub signals: Signals,
    pub decision: Decision,
}

/// A finding as the document holds it: its message redacted (a message can quote the skill, a
/// test's output).
pub type ReportedFinding = Finding<Redacted>;

impl From<Finding> for ReportedFinding {
    fn from(finding: Finding) -> Self {
        Self {
            rule: finding.rule,
            severity: finding.severity,
            file: finding.file,
            line: finding.line,
            column: finding.column,
            message: Redacted::new(&finding.message),
        }
    }
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

impl SuiteReport {
    /// `suite` as the document shows it: its command redacted, since a declared command can
    /// carry a token (`API_KEY=… pytest`). `Suite` is the resolver's type, so its command stays
    /// a `String`.
    pub fn shown_suite(suite: &Suite) -> Suite {
        Suite {
            command: Redacted::new(&suite.command).into_string(),
            ..suite.clone()
        }
    }
}

/// Coverage as reported: measured (with its format and line counts) or declared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageReport {
    pub ratio: f64,
    pub source: CoverageSource,
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

/// Where a coverage figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoverageSource {
    /// Read from a coverage report the suite wrote (`measured`).
    Measured,
    /// The skill's own `coverage` figure from its frontmatter (`declared`).
    Declared,
}

impl CoverageReport {
    /// Measured coverage, its counts under the keys of its unit.
    pub fn measured(coverage: &crate::coverage::Coverage) -> Self {
        let lines = coverage.unit == crate::coverage::CoverageUnit::Lines;
        let counts = |is: bool, n: u64| is.then_some(n);
        Self {
            ratio: coverage.ratio().unwrap_or(0.0),
            source: CoverageSource::Measured,
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
    pub flaky_tests: Vec<Redacted>,
    /// Extra: the report format the counts were read from.
    pub format: String,
    /// Extra: `exit-code` when nothing could be read as test results and the counts stand for
    /// the suite's exit code alone; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TestResultsSource>,
}

/// Where test counts come from, when not from a report: written as the `source` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TestResultsSource {
    /// Nothing could be read as test results: the counts stand for the exit code alone.
    #[serde(rename = "exit-code")]
    ExitCode,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailedTest {
    pub name: Redacted,
    /// A test may print a secret it was handed: never shown as it is.
    pub error: Option<Redacted>,
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<Redacted>,
    /// Where the report says the test is: a path, or whatever the report holds there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<Redacted>,
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
                    name: Redacted::new(&case.name),
                    error: case.message.as_deref().map(Redacted::new),
                    duration_ms: case.duration_ms,
                    suite: case.suite.as_deref().map(Redacted::new),
                    file: case.file.as_deref().map(Redacted::new),
                    line: case.line,
                    kind: case.kind,
                })
                .collect(),
            flaky_tests: run.flaky.iter().map(|name| Redacted::new(name)).collect(),
            format: run.format.as_str().to_owned(),
            source: (run.format == ReportFormat::ExitCode).then_some(TestResultsSource::ExitCode),
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

// ---- Reading results documents, and merging the shards of one run.

/// Results documents are at most this big (a run of thousands of skills is a few MB).
pub const MAX_DOCUMENT: u64 = 256 * 1024 * 1024;

/// Why results documents could not be read as one run.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("failed to read {}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not a document of this schema; the message says how.
    #[error("{}: {message}", path.display())]
    Invalid {
        path: std::path::PathBuf,
        message: String,
    },
    #[error("no results document to read")]
    Empty,
    #[error("{} and {} are not from the same run: their {what} differs", first.display(), other.display())]
    NotOneRun {
        first: std::path::PathBuf,
        other: std::path::PathBuf,
        what: &'static str,
    },
    #[error("{}: skill {dir} is also in another document (shards overlap)", path.display())]
    Overlap {
        path: std::path::PathBuf,
        dir: String,
    },
}

impl RunInfo {
    /// What two shards of one run must agree on, the first that differs named: `None` when
    /// `other` is of the same run.
    fn differs_from(&self, other: &RunInfo) -> Option<&'static str> {
        [
            ("repository", self.repository == other.repository),
            ("pull request", self.pull_request == other.pull_request),
            ("head commit", self.head == other.head),
            ("base commit", self.base == other.base),
            ("scope", self.scope == other.scope),
            (
                "pull request head",
                self.pull_request_head == other.pull_request_head,
            ),
        ]
        .into_iter()
        .find_map(|(what, equal)| (!equal).then_some(what))
    }
}

impl GateRun {
    /// The results document at `path`, of this schema, at most [`MAX_DOCUMENT`] bytes.
    pub fn read(path: &std::path::Path) -> Result<Self, DocumentError> {
        let invalid = |message: String| DocumentError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let read_error = |source| DocumentError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(read_error)?;
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_DOCUMENT + 1), &mut text)
            .map_err(read_error)?;
        if text.len() as u64 > MAX_DOCUMENT {
            return Err(invalid(format!("larger than {MAX_DOCUMENT} bytes")));
        }
        let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
            invalid(format!(
                "not JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        match value.get("schema").and_then(serde_json::Value::as_str) {
            Some(SCHEMA) => {}
            Some(other) => {
                return Err(invalid(format!(
                    "schema is `{other}`; this skillgate reads `{SCHEMA}`"
                )));
            }
            None => return Err(invalid(format!("no `schema` key: not a {SCHEMA} document"))),
        }
        serde_json::from_value(value)
            .map_err(|e| invalid(format!("not a valid {SCHEMA} document: {e}")))
    }

    /// One run from several documents of the same pull request and commit (matrix shards).
    pub fn merge(paths: &[std::path::PathBuf]) -> Result<Self, DocumentError> {
        let mut runs = paths.iter().map(|p| Self::read(p).map(|run| (p, run)));
        let Some(first) = runs.next() else {
            return Err(DocumentError::Empty);
        };
        let (first_path, mut merged) = first?;
        for next in runs {
            let (path, run) = next?;
            if let Some(what) = merged.run.differs_from(&run.run) {
                return Err(DocumentError::NotOneRun {
                    first: first_path.clone(),
                    other: path.clone(),
                    what,
                });
            }
            for skill in run.skills {
                if let Some(other) = merged.skills.iter().find(|s| s.dir == skill.dir) {
                    return Err(DocumentError::Overlap {
                        path: path.clone(),
                        dir: other.dir.clone(),
                    });
                }
                merged.skills.push(skill);
            }
            // Run-level findings (a symlink loop under a skill root) are the same in every shard.
            for finding in run.findings {
                if !merged.findings.contains(&finding) {
                    merged.findings.push(finding);
                }
            }
            if run.run.started_at < merged.run.started_at {
                merged.run.started_at = run.run.started_at;
            }
            if run.run.finished_at > merged.run.finished_at {
                merged.run.finished_at = run.run.finished_at;
            }
        }
        merged.skills.sort_by(|a, b| a.dir.cmp(&b.dir));
        merged.summary = Self::summarize(&merged.skills);
        Ok(merged)
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

    #[test]
    fn scopes_and_sources_read_and_write_the_words_they_always_did() {
        fn round_trip<T>(value: T, word: &str)
        where
            T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
        {
            let written = serde_json::to_string(&value).expect("write");
            assert_eq!(written, format!("\"{word}\""));
            let read: T = serde_json::from_str(&written).expect("read");
            assert_eq!(read, value);
        }
        round_trip(RunScope::All, "all");
        round_trip(RunScope::Changed, "changed");
        round_trip(CoverageSource::Measured, "measured");
        round_trip(CoverageSource::Declared, "declared");
        round_trip(TestResultsSource::ExitCode, "exit-code");
    }
}
