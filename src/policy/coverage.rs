//! Measured coverage against the auto and human thresholds. Declared coverage counts for the
//! thresholds but never satisfies auto; unknown coverage is escalated.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand, fraction, rounded};
use super::pass_rate::meets;
use crate::signals::{CoverageSignal, Signals, SuiteSignal};

pub struct Coverage;

impl Criterion for Coverage {
    fn key(&self) -> &'static str {
        "test_coverage"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        if signals.suite == SuiteSignal::NotApplicable {
            return None;
        }
        let auto = policy.auto.coverage;
        let human = policy.human.coverage;
        let (ratio, source) = match &signals.coverage {
            CoverageSignal::Unknown => {
                let why = match (&signals.suite, &signals.coverage_unread) {
                    (SuiteSignal::Ran, Some(why)) => why.as_str(),
                    (SuiteSignal::Ran, None) => "no coverage report was found",
                    (SuiteSignal::Unverified { .. }, _) => "no results for these files",
                    _ => "the suite did not run",
                };
                return Some(Assessment::new(
                    auto,
                    serde_json::Value::Null,
                    Demand::Escalate(Category::Coverage),
                    format!("coverage unknown: {why}"),
                ));
            }
            CoverageSignal::Measured { ratio, format } => (*ratio, format!("measured, {format}")),
            CoverageSignal::Declared { ratio } => (*ratio, "declared".to_owned()),
        };
        let declared = matches!(signals.coverage, CoverageSignal::Declared { .. });
        let shown = fraction(ratio);
        let (demand, reason) = if !meets(ratio, human) {
            (
                Demand::Human,
                format!("coverage {shown} < {} ({source})", fraction(human)),
            )
        } else if !meets(ratio, auto) {
            (
                Demand::Escalate(Category::Coverage),
                format!("coverage {shown} < {} ({source})", fraction(auto)),
            )
        } else if declared {
            (
                Demand::Escalate(Category::Coverage),
                format!("coverage {shown} is declared, not measured: it cannot approve by itself"),
            )
        } else {
            (
                Demand::Auto,
                format!("coverage {shown} ≥ {} ({source})", fraction(auto)),
            )
        };
        Some(Assessment::new(auto, rounded(ratio), demand, reason))
    }
}
