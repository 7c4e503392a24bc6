//! A skill with no suite, a suite that cannot run, or a suite with zero tests proves nothing.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::{Signals, SuiteSignal};

pub struct TestSuite;

impl Criterion for TestSuite {
    fn key(&self) -> &'static str {
        "test_suite"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let required = ">= 1 test";
        Some(match (&signals.suite, signals.tests) {
            (SuiteSignal::NotApplicable, _) => return None,
            (SuiteSignal::Missing, _) => Assessment::new(
                required,
                "no suite",
                Demand::Human,
                "no test suite".to_owned(),
            ),
            (SuiteSignal::Unavailable { reason }, _) => Assessment::new(
                required,
                "unavailable",
                Demand::Human,
                format!("test suite could not run: {reason}"),
            ),
            (SuiteSignal::Unverified { reason }, _) => {
                Assessment::new(required, "unverified", Demand::Human, reason.clone())
            }
            (SuiteSignal::Ran, Some(tests)) if tests.passed.saturating_add(tests.failed) > 0 => {
                Assessment::new(
                    required,
                    tests.passed.saturating_add(tests.failed),
                    Demand::Auto,
                    format!("{} tests ran", tests.passed.saturating_add(tests.failed)),
                )
            }
            (SuiteSignal::Ran, Some(tests)) if tests.skipped > 0 => Assessment::new(
                required,
                0,
                Demand::Human,
                format!("no test ran: all {} were skipped", tests.skipped),
            ),
            (SuiteSignal::Ran, _) => Assessment::new(
                required,
                0,
                Demand::Human,
                "test suite ran zero tests".to_owned(),
            ),
        })
    }
}
