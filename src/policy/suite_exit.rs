//! A suite that timed out, was killed, or failed without saying which test failed leaves a report
//! that cannot be trusted, however many passes it lists: a maintainer looks. Such a suite's
//! failure is one more failed case in its counts (`suite exit status`): when it is the only one,
//! this reason explains the pass rate.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::{Signals, SuiteSignal};

pub struct SuiteExit;

impl Criterion for SuiteExit {
    fn key(&self) -> &'static str {
        "suite_exit"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        if signals.suite != SuiteSignal::Ran {
            return None;
        }
        Some(match &signals.suite_failure {
            None => Assessment::new(
                "ended normally",
                "ended normally",
                Demand::Auto,
                "the suite ended normally".to_owned(),
            ),
            Some(failure) => {
                let assessment = Assessment::new(
                    "ended normally",
                    failure.as_str(),
                    Demand::Human,
                    failure.clone(),
                );
                // The runner adds exactly one failed case for the suite's own failure, so a
                // single failure is that case and the pass rate says nothing more.
                if signals.tests.is_some_and(|t| t.failed == 1) {
                    assessment.explaining(&["test_pass_rate"])
                } else {
                    assessment
                }
            }
        })
    }
}
