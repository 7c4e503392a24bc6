//! A skill with no suite, a suite that cannot run, or a suite with zero tests proves nothing.
//! Its reason says so once: a suite that did not run explains why coverage is unknown, and one
//! whose tests were all skipped explains its pass rate of 0.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::{Signals, SuiteSignal};

pub struct TestSuite;

/// What a suite that did not run leaves unknown: its coverage.
const NOT_RUN: &[&str] = &["test_coverage"];

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
            )
            .explaining(NOT_RUN),
            (SuiteSignal::Unavailable { reason }, _) => Assessment::new(
                required,
                "unavailable",
                Demand::Human,
                format!("test suite could not run: {reason}"),
            )
            .explaining(NOT_RUN),
            (SuiteSignal::Unverified { reason }, _) => {
                Assessment::new(required, "unverified", Demand::Human, reason.clone())
                    .explaining(NOT_RUN)
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
            )
            .explaining(&["test_pass_rate"]),
            (SuiteSignal::Ran, _) => Assessment::new(
                required,
                0,
                Demand::Human,
                "test suite ran zero tests".to_owned(),
            ),
        })
    }
}
