//! A suite that needed more than one run: the tier is decided on the last run, and the reasons
//! say so, naming the tests that failed first and then passed (flaky).

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::Signals;

/// How many flaky names a reason lists before "and N more".
const NAMED: usize = 5;

pub struct Retries;

impl Criterion for Retries {
    fn key(&self) -> &'static str {
        "retries"
    }

    fn always_listed(&self) -> bool {
        true
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        if signals.attempts <= 1 && signals.flaky.is_empty() {
            return None;
        }
        let runs = signals.attempts;
        let passed =
            signals.suite_failure.is_none() && signals.tests.is_some_and(|t| t.failed == 0);
        let mut reason = if passed && runs > 1 {
            let failed = runs - 1;
            let plural = if failed == 1 { "" } else { "s" };
            format!("the suite passed on attempt {runs}, after {failed} failed attempt{plural}")
        } else if runs > 1 {
            format!("the suite failed on all {runs} attempts; the last one counts")
        } else {
            "the test framework re-ran tests that failed".to_owned()
        };
        if !signals.flaky.is_empty() {
            let names: Vec<&str> = signals
                .flaky
                .iter()
                .take(NAMED)
                .map(String::as_str)
                .collect();
            reason.push_str(&format!("; flaky: {}", names.join(", ")));
            if signals.flaky.len() > NAMED {
                reason.push_str(&format!(" and {} more", signals.flaky.len() - NAMED));
            }
        }
        // Flaky tests are reported, not punished: the pass rate of the last attempt decides. The
        // check says whether the tests passed on their first run.
        let mut assessment = Assessment::new(
            "tests that pass on their first run",
            serde_json::json!({ "attempts": runs, "flaky_tests": signals.flaky.len() }),
            Demand::Auto,
            reason,
        );
        assessment.check.passed = runs <= 1 && signals.flaky.is_empty();
        Some(assessment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::ChangeKind;
    use crate::signals::{CoverageSignal, SuiteSignal, TestCounts};

    fn signals(attempts: u32, failed: u64, flaky: &[&str]) -> Signals {
        Signals {
            change: ChangeKind::Modified,
            lint_errors: Vec::new(),
            suite: SuiteSignal::Ran,
            tests: Some(TestCounts {
                passed: 10,
                failed,
                skipped: 0,
            }),
            suite_failure: None,
            results_unread: None,
            self_reported: None,
            coverage_unread: None,
            results_disagree: None,
            coverage: CoverageSignal::Unknown,
            declared_risk: None,
            declared_approval_level: None,
            required_pass_rate: 0.95,
            attempts,
            flaky: flaky.iter().map(|s| (*s).to_owned()).collect(),
            analysis: None,
            risk: None,
            breaking: Vec::new(),
            category_change: None,
            uncovered: None,
            tests_not_run: None,
        }
    }

    fn reason(s: &Signals) -> Option<String> {
        Retries.evaluate(s, &Policy::default()).map(|a| a.reason)
    }

    #[test]
    fn a_first_run_pass_says_nothing() {
        assert_eq!(reason(&signals(1, 0, &[])), None);
    }

    #[test]
    fn reasons_name_the_attempts_and_the_flaky_tests() {
        assert_eq!(
            reason(&signals(2, 0, &["login works", "db connects"])).as_deref(),
            Some(
                "the suite passed on attempt 2, after 1 failed attempt; flaky: login works, db connects"
            )
        );
        assert_eq!(
            reason(&signals(3, 2, &[])).as_deref(),
            Some("the suite failed on all 3 attempts; the last one counts")
        );
        let many: Vec<String> = (1..=7).map(|i| format!("t{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(
            reason(&signals(2, 0, &many)).as_deref(),
            Some(
                "the suite passed on attempt 2, after 1 failed attempt; flaky: t1, t2, t3, t4, t5 and 2 more"
            )
        );
        let assessed = Retries
            .evaluate(&signals(2, 0, &["a"]), &Policy::default())
            .expect("assessed");
        assert_eq!(assessed.demand, Demand::Auto);
    }
}
