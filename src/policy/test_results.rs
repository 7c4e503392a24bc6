//! An exit code is not a test result, and counts that contradict the framework's own summary
//! are not settled ones: a suite whose output and reports held nothing readable as tests, or
//! whose itemised results and closing summaries disagree, never approves itself. An expert
//! looks at what it printed. Its counts are then the exit code's one case, so this reason
//! explains the pass rate they give.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::{Signals, SuiteSignal};

pub struct TestResults;

impl Criterion for TestResults {
    fn key(&self) -> &'static str {
        "test_results"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        if signals.suite != SuiteSignal::Ran {
            return None;
        }
        let required = "read from a report or the output, agreeing with its summaries";
        Some(match (&signals.results_unread, &signals.results_disagree) {
            (Some(reason), _) => Assessment::new(
                required,
                "exit code only",
                Demand::Escalate(Category::TestResults),
                reason.clone(),
            )
            .explaining(&["test_pass_rate"]),
            (None, Some(reason)) => Assessment::new(
                required,
                "disagree",
                Demand::Escalate(Category::TestResults),
                reason.clone(),
            ),
            (None, None) if signals.self_reported.is_some() => Assessment::new(
                required,
                "self-reported",
                Demand::Escalate(Category::TestResults),
                signals.self_reported.clone().unwrap_or_default(),
            ),
            (None, None) => Assessment::new(
                required,
                "read",
                Demand::Auto,
                "test results read from a report or the output".to_owned(),
            ),
        })
    }
}
