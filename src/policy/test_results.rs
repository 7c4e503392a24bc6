//! An exit code is not a test result: a suite whose output and reports held nothing readable
//! as tests never approves itself by exiting 0. An expert looks at what it printed.

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
        Some(match &signals.results_unread {
            None => Assessment::new(
                "read from a report or the output",
                "read",
                Demand::Auto,
                "test results read from a report or the output".to_owned(),
            ),
            Some(reason) => Assessment::new(
                "read from a report or the output",
                "exit code only",
                Demand::Escalate(Category::TestResults),
                reason.clone(),
            ),
        })
    }
}
