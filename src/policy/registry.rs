//! Every criterion, in the order their reasons are listed.

use super::Criterion;
use super::{
    approval_level, breaking_change, coverage, lint, pass_rate, retries, risk, suite_exit,
    test_suite,
};

pub static CRITERIA: &[&dyn Criterion] = &[
    &lint::SkillMd,
    &breaking_change::BreakingChange,
    &test_suite::TestSuite,
    &suite_exit::SuiteExit,
    &retries::Retries,
    &pass_rate::PassRate,
    &coverage::Coverage,
    &risk::Risk,
    &approval_level::ApprovalLevel,
];
