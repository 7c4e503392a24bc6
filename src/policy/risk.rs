//! The risk score against the auto ceiling and the human floor.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand, fraction};
use crate::signals::Signals;

pub struct Risk;

impl Criterion for Risk {
    fn key(&self) -> &'static str {
        "risk_score"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        // Only the declared floor is known until risk is measured from the skill itself.
        let risk = signals.declared_risk?;
        let (auto, human) = (policy.auto.risk, policy.human.risk);
        let shown = fraction(risk);
        let (demand, reason) = if risk > human + 1e-9 {
            (
                Demand::Human,
                format!("risk {shown} > {} (declared)", fraction(human)),
            )
        } else if risk > auto + 1e-9 {
            (
                Demand::Escalate(Category::Risk),
                format!("risk {shown} > {} (declared)", fraction(auto)),
            )
        } else {
            (
                Demand::Auto,
                format!("risk {shown} ≤ {} (declared)", fraction(auto)),
            )
        };
        Some(Assessment::new(format!("<= {auto}"), risk, demand, reason))
    }
}
