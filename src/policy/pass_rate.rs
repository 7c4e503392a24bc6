//! The pass rate against the required one (the policy's, or the skill's own when it asks for
//! more); below the human floor a maintainer looks, between the two an expert does.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand, fraction, rounded};
use super::stricter::required_pass_rate;
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
        // A skill's own `required-test-pass-rate` may raise the policy's, never lower it,
        // whatever filled the signal in.
        let required = required_pass_rate(policy, Some(signals.required_pass_rate));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A skill whose suite ran `passed` of `passed + failed` tests, asking for `own` itself.
    fn signals(passed: u64, failed: u64, own: f64) -> Signals {
        // From JSON, so fields this criterion does not read stay at their defaults.
        serde_json::from_value(serde_json::json!({
            "change": {"kind": "modified"},
            "lint_errors": [],
            "suite": {"state": "ran"},
            "tests": {"passed": passed, "failed": failed, "skipped": 0},
            "coverage": {"source": "unknown"},
            "required_pass_rate": own,
        }))
        .expect("signals")
    }

    fn judged(passed: u64, failed: u64, own: f64) -> (Demand, serde_json::Value, String) {
        let a = PassRate
            .evaluate(&signals(passed, failed, own), &Policy::default())
            .expect("tests ran");
        (a.demand, a.check.required, a.reason)
    }

    #[test]
    fn a_skill_cannot_lower_its_own_bar() {
        // The attack: 8/10 against a declared 0.80 once approved.
        assert_eq!(
            judged(8, 2, 0.80),
            (
                Demand::Escalate(Category::PassRate),
                serde_json::json!(0.95),
                "pass rate 0.80 (8/10) < 0.95".to_owned()
            )
        );
        assert_eq!(judged(19, 1, 0.0).0, Demand::Auto);
    }

    #[test]
    fn a_skill_can_raise_its_own_bar() {
        assert_eq!(
            judged(19, 1, 0.99),
            (
                Demand::Escalate(Category::PassRate),
                serde_json::json!(0.99),
                "pass rate 0.95 (19/20) < 0.99".to_owned()
            )
        );
        assert_eq!(judged(100, 0, 0.99).0, Demand::Auto);
    }
}
