//! The pass rate against the skill's `required_test_pass_rate`; below the human floor a
//! maintainer looks, between the two an expert does.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand, fraction, rounded};
use crate::config::SkipHandling;
use crate::signals::Signals;

pub struct PassRate;

impl Criterion for PassRate {
    fn key(&self) -> &'static str {
        "test_pass_rate"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let tests = signals.tests?;
        let total = match policy.skips {
            SkipHandling::Count => tests.total(),
            SkipHandling::Exclude => tests.passed.saturating_add(tests.failed),
        };
        if total == 0 {
            return None;
        }
        let rate = tests.passed as f64 / total as f64;
        let required = signals.required_pass_rate;
        let counts = format!("{}/{total}", tests.passed);
        // The human floor holds whatever a skill asks of itself.
        let (demand, reason) = if !meets(rate, policy.human.pass_rate) {
            (
                Demand::Human,
                format!(
                    "pass rate {} ({counts}) < {}",
                    fraction(rate),
                    fraction(policy.human.pass_rate)
                ),
            )
        } else if meets(rate, required) {
            (
                Demand::Auto,
                format!(
                    "pass rate {} ({counts}) ≥ {}",
                    fraction(rate),
                    fraction(required)
                ),
            )
        } else {
            (
                Demand::Escalate(Category::PassRate),
                format!(
                    "pass rate {} ({counts}) < {}",
                    fraction(rate),
                    fraction(required)
                ),
            )
        };
        Some(Assessment::new(required, rounded(rate), demand, reason))
    }
}

/// `value ≥ threshold`, forgiving the last bits of float noise (19/20 meets 0.95).
pub fn meets(value: f64, threshold: f64) -> bool {
    value + 1e-9 >= threshold
}
