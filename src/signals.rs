//! What the gate knows about one skill when it decides: every input of the policy, no I/O.

use serde::{Deserialize, Serialize};

use crate::changes::ChangeKind;
use crate::skill::Tier;

/// Everything `decide` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signals {
    pub change: ChangeKind,
    /// Lint findings of severity error (invalid `SKILL.md`), as `file:line: message`.
    pub lint_errors: Vec<String>,
    pub suite: SuiteSignal,
    /// Test counts, when the suite ran and its results were read.
    pub tests: Option<TestCounts>,
    /// Why the counts were held to a closing summary they disagreed with (`test counts
    /// disagree: read …, but mocha-spec's summary says …`): the evidence contradicts itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_disagree: Option<String>,
    /// Why coverage is unknown though the suite wrote a coverage report (`the coverage report
    /// lcov.info is empty`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_unread: Option<String>,
    /// Why the counts stand for the suite's exit code alone (`no test results could be read
    /// (exit code 0 only)`): nothing it printed or wrote could be read as test results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_unread: Option<String>,
    /// Why the counts are taken on the word of the job that ran the pull request's code (a
    /// results document, in `publish`) and the policy does not trust that word for this skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_reported: Option<String>,
    /// How the suite itself failed beyond its reported tests (timed out, killed, could not start,
    /// or exited non-zero while reporting no failed test): its report cannot be trusted.
    pub suite_failure: Option<String>,
    pub coverage: CoverageSignal,
    /// The skill's declared risk floor.
    pub declared_risk: Option<f64>,
    /// The skill's declared minimum tier.
    pub declared_approval_level: Option<Tier>,
    /// The pass rate this skill needs (its own, else the policy's).
    pub required_pass_rate: f64,
    /// Runs of the suite (more than 1 when it was retried); 0 when it did not run.
    #[serde(default)]
    pub attempts: u32,
    /// Tests that failed in an earlier attempt and passed in the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<String>,
    /// What the skill's own files show; `None` for a deleted skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// The risk score, from the analysis, the coverage and the declared floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<RiskScore>,
    /// What breaks for the skill's users beyond removal or renaming: `name` changed, a major
    /// version bump, a documented input or field removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaking: Vec<String>,
    /// The skill's `category` at the base, when the change gives it another one: the skill is
    /// decided under the stricter of the base and head categories' policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category_change: Option<CategoryChange>,
    /// Why the skill is gated though no skill root covers it: a change touched a `SKILL.md`
    /// outside the roots, and whether it is a skill is a maintainer's call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncovered: Option<String>,
    /// Why some of the skill's tests are not run: test frameworks detected beside the one the
    /// suite runs, with their files (`tests not run: tests/greet.bats (bats); the suite ran
    /// pytest; …`). Only for a detected suite: a declared one says what runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests_not_run: Option<String>,
}

/// A `category` that differs between the base and the head (`None`: not set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryChange {
    pub from: Option<String>,
    pub to: Option<String>,
}

impl CategoryChange {
    /// `Some` when `from` and `to` name different categories (compared without case, as
    /// `[policy.categories]` are).
    pub fn between(from: Option<&str>, to: Option<&str>) -> Option<Self> {
        let same = match (from, to) {
            (Some(a), Some(b)) => a.trim().eq_ignore_ascii_case(b.trim()),
            (None, None) => true,
            _ => false,
        };
        (!same).then(|| Self {
            from: from.map(str::to_owned),
            to: to.map(str::to_owned),
        })
    }
}

/// The signals measured from a skill's files, each with the evidence a reviewer needs
/// (`file:line what`); secrets only ever redacted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The most complex function, when any code was analysed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complexity: Option<ComplexitySignal>,
    /// What counts as an external dependency, one entry each, with where it is
    /// (`Dependencies::counted_at`, then git submodules): a service, however its code reaches it
    /// (`notion (notion_client, skills/x/scripts/sync.py:3)`); any other host
    /// (`legacy.acme.io (skills/x/scripts/legacy.sh:3)`); a manifest
    /// (`packages: requests, httpx (skills/x/requirements.txt:1)`); the declared names found
    /// nowhere else (`declared: jq (skills/x/SKILL.md:4)`); and the network tools together when
    /// they reach no named host (`endpoint not named: curl (skills/x/scripts/get.sh:2)`).
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// The length of `dependencies`: what the policy's dependency thresholds compare.
    #[serde(default)]
    pub dependency_count: u32,
    /// Hardcoded secrets, redacted: `scripts/deploy.sh:4 github-token ghp_…`.
    #[serde(default)]
    pub secrets: Vec<String>,
    /// Values shaped like secrets that their place calls examples, redacted, with why:
    /// `tests/test_api.py:4 generic-secret q7Rk… (in a test fixture)`. Shown, never blocking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_warnings: Vec<String>,
    /// Security-sensitive code: auth, crypto, credentials, privilege.
    #[serde(default)]
    pub security_sensitive: Vec<String>,
    /// Dockerfiles, Terraform, Kubernetes, workflows, `allowed-tools` granting a shell.
    #[serde(default)]
    pub infrastructure: Vec<String>,
    /// DDL or DML the scripts run.
    #[serde(default)]
    pub database_writes: Vec<String>,
    /// Code whose text is only known when it runs: `eval`, `bash -c "$(…)"`, a variable
    /// command name, Python/JavaScript `exec`/`eval` of a non-literal (`what (file:line)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic_code: Vec<String>,
    /// Git submodules in the skill, with their URL and where they are declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub submodules: Vec<String>,
    /// Made by Phase 4 (`generated-by: phase4`), with its pattern id when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<String>,
    /// Files not analysed, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComplexitySignal {
    /// The highest cyclomatic complexity of any function.
    pub max: u32,
    /// The sum over all functions.
    pub total: u32,
    /// Where the most complex function is: `file:line name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// The risk score and how it came about (`analysis::risk::score`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RiskScore {
    /// `max(measured, declared)`.
    pub score: f64,
    pub measured: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<f64>,
    /// Each part, normalised to 0–1, before weighting.
    pub parts: RiskParts,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RiskParts {
    pub security: f64,
    pub complexity: f64,
    pub coverage: f64,
    pub dependencies: f64,
    pub criticality: f64,
}

/// Whether the skill has a suite that ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum SuiteSignal {
    /// No suite declared, conventional or detected.
    Missing,
    /// A suite exists but could not run; the reason says why.
    Unavailable {
        reason: String,
    },
    Ran,
    /// Results exist, but not for these files: a results document whose content hash differs
    /// from the head's, or that holds no results for the skill. The reason says which.
    Unverified {
        reason: String,
    },
    /// The skill was deleted: there is nothing to run.
    NotApplicable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCounts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl TestCounts {
    pub fn total(&self) -> u64 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }
}

/// Coverage as the gate knows it: measured beats declared; neither is unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum CoverageSignal {
    Measured { ratio: f64, format: String },
    Declared { ratio: f64 },
    Unknown,
}

impl CoverageSignal {
    pub fn ratio(&self) -> Option<f64> {
        match self {
            Self::Measured { ratio, .. } | Self::Declared { ratio } => Some(*ratio),
            Self::Unknown => None,
        }
    }
}
