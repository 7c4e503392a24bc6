//! The shape of a criterion: what it needs, what it found, and which tier that demands.

use serde::{Deserialize, Serialize};

use super::Policy;
use crate::signals::Signals;

/// One rule of the policy. Adding a criterion is a new file and a line in the registry.
pub trait Criterion: Sync {
    /// The key in the decision's criteria check (`test_pass_rate`, `test_coverage`, …).
    fn key(&self) -> &'static str;

    /// `None` when the criterion has no signal to judge (a deleted skill has no coverage).
    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment>;

    /// Whether its reason is listed even when it passes and something else decides the tier
    /// (a note every reviewer should read, like a suite that needed retries).
    fn always_listed(&self) -> bool {
        false
    }
}

/// The seed's `{required, actual, passed}` for one criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub required: serde_json::Value,
    pub actual: serde_json::Value,
    pub passed: bool,
}

/// What a criterion concluded: its check, the tier it demands, and why, in a reviewer's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub check: Check,
    pub demand: Demand,
    pub reason: String,
    /// The keys of other criteria whose failure this one's reason already explains (`no test
    /// suite` explains `coverage unknown`): `decide` lists this reason in their place, their
    /// checks stay in the criteria check.
    pub explains: &'static [&'static str],
}

impl Assessment {
    pub fn new(
        required: impl Into<serde_json::Value>,
        actual: impl Into<serde_json::Value>,
        demand: Demand,
        reason: String,
    ) -> Self {
        Self {
            check: Check {
                required: required.into(),
                actual: actual.into(),
                passed: demand == Demand::Auto,
            },
            demand,
            reason,
            explains: &[],
        }
    }

    /// The same assessment, its reason standing for the failures of the criteria `keys`.
    pub fn explaining(mut self, keys: &'static [&'static str]) -> Self {
        self.explains = keys;
        self
    }
}

/// The least a criterion will accept, from the lightest to the heaviest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Demand {
    Auto,
    Escalate(Category),
    Human,
    /// Blocks until fixed: an invalid `SKILL.md`, a hardcoded secret.
    Correction,
}

/// Why a skill is escalated; routing picks its reviewers from this (the seed's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Coverage 80–94%, declared only, or unknown: an expert validates the coverage strategy.
    Coverage,
    /// A pass rate between the human floor and the required rate.
    PassRate,
    /// Risk 0.31–0.60: an infrastructure specialist reviews.
    Risk,
    /// Complexity 6–15: a code quality reviewer assesses.
    Complexity,
    /// 1–3 external dependencies: an integration architect approves.
    Dependencies,
    /// An infrastructure change: a DevOps specialist.
    Infrastructure,
    /// A database write: a DBA.
    Database,
    /// The skill gives itself another `category`, and with it another policy: decided under
    /// the stricter of the two, and a reviewer confirms the new one.
    CategoryChange,
    /// The skill's category allows no better than escalate (a template or the config).
    CategoryLevel,
    /// The skill declares `approval-level: escalate`.
    Declared,
    /// Would need a maintainer, but the policy mode is `escalate` (the seed's rollout).
    Rollout,
    /// Files the gate could not analyse: an expert looks at them.
    Unanalysed,
    /// Nothing the suite printed or wrote could be read as test results: only its exit code
    /// spoke, and an exit code is not a test result.
    TestResults,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Coverage => "coverage",
            Self::PassRate => "pass-rate",
            Self::Risk => "risk",
            Self::Complexity => "complexity",
            Self::Dependencies => "dependencies",
            Self::Infrastructure => "infrastructure",
            Self::Database => "database",
            Self::CategoryChange => "category-change",
            Self::CategoryLevel => "category-level",
            Self::Declared => "declared",
            Self::Rollout => "rollout",
            Self::Unanalysed => "unanalysed",
            Self::TestResults => "test-results",
        }
    }
}

/// Two decimals, the way thresholds are written.
pub fn fraction(value: f64) -> String {
    format!("{value:.2}")
}

/// Rounded for the stored check, so `0.9572649…` reads as `0.957` (as in the seed).
pub fn rounded(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}
