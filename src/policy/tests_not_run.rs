//! Tests the skill has that its suite does not run: a test framework detected beside the one
//! that runs (a one-line passing `tests/test_smoke.py` beside a failing `*.bats` suite), node
//! files a test script does not name, a file pytest would collect beside another suite, a
//! framework a conventional `test.sh` neither starts nor names the files of. Their results are
//! unknown, so the skill never approves itself: an expert looks, and declaring `test-suite` in
//! `SKILL.md` settles what runs.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct TestsNotRun;

impl Criterion for TestsNotRun {
    fn key(&self) -> &'static str {
        "tests_not_run"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let reason = signals.tests_not_run.as_ref()?;
        Some(Assessment::new(
            "every test framework found runs",
            "some not run",
            Demand::Escalate(Category::TestResults),
            reason.clone(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::ChangeKind;
    use crate::signals::{CoverageSignal, SuiteSignal, TestCounts};

    fn signals(tests_not_run: Option<&str>) -> Signals {
        Signals {
            change: ChangeKind::Modified,
            lint_errors: Vec::new(),
            suite: SuiteSignal::Ran,
            tests: Some(TestCounts {
                passed: 1,
                failed: 0,
                skipped: 0,
            }),
            suite_failure: None,
            results_unread: None,
            self_reported: None,
            coverage_unread: None,
            results_disagree: None,
            coverage: CoverageSignal::Measured {
                ratio: 1.0,
                format: "coverage.py".into(),
            },
            declared_risk: None,
            declared_approval_level: None,
            required_pass_rate: 0.95,
            attempts: 1,
            flaky: Vec::new(),
            analysis: None,
            risk: None,
            breaking: Vec::new(),
            category_change: None,
            uncovered: None,
            tests_not_run: tests_not_run.map(str::to_owned),
        }
    }

    #[test]
    fn tests_left_out_escalate_and_say_which_and_how_to_run_them() {
        let why = "tests not run: tests/greet.bats (bats); the suite ran pytest; declare \
                   `test-suite` in SKILL.md to run them all";
        let decision = crate::policy::decide(&signals(Some(why)), &Policy::default());
        assert_eq!(decision.tier, crate::skill::Tier::Escalate);
        assert_eq!(decision.escalation_categories, vec![Category::TestResults]);
        assert_eq!(decision.reasons, vec![why.to_owned()]);
        assert!(!decision.criteria["tests_not_run"].passed);
        // Every framework found ran: nothing to say.
        let decision = crate::policy::decide(&signals(None), &Policy::default());
        assert_eq!(decision.tier, crate::skill::Tier::Auto);
        assert!(!decision.criteria.contains_key("tests_not_run"));
    }
}
