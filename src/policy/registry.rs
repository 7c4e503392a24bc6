//! Every criterion, in the order their reasons are listed.

use super::Criterion;
use super::{
    analysis_complete, approval_level, breaking_change, category_change, category_level,
    complexity, coverage, database_write, dependencies, dynamic_code, infrastructure, lint,
    pass_rate, retries, risk, secrets, security_sensitive, skill_root, submodules, suite_exit,
    test_results, test_suite, tests_not_run,
};

pub static CRITERIA: &[&dyn Criterion] = &[
    &lint::SkillMd,
    &secrets::Secrets,
    &breaking_change::BreakingChange,
    &skill_root::SkillRoot,
    &test_suite::TestSuite,
    &suite_exit::SuiteExit,
    &test_results::TestResults,
    &tests_not_run::TestsNotRun,
    &retries::Retries,
    &pass_rate::PassRate,
    &coverage::Coverage,
    &complexity::Complexity,
    &risk::Risk,
    &dependencies::Dependencies,
    &submodules::Submodules,
    &security_sensitive::SecuritySensitive,
    &dynamic_code::DynamicCode,
    &infrastructure::Infrastructure,
    &database_write::DatabaseWrite,
    &analysis_complete::AnalysisComplete,
    &approval_level::ApprovalLevel,
    &category_level::CategoryLevel,
    &category_change::CategoryChange,
];
