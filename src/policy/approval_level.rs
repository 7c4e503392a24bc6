//! A skill may declare the least tier it needs; it can raise the verdict, never lower it.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;
use crate::skill::Tier;

pub struct ApprovalLevel;

impl Criterion for ApprovalLevel {
    fn key(&self) -> &'static str {
        "approval_level"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let declared = signals.declared_approval_level?;
        let demand = match declared {
            Tier::Auto => Demand::Auto,
            Tier::Escalate => Demand::Escalate(Category::Declared),
            Tier::Human => Demand::Human,
        };
        Some(Assessment::new(
            "auto",
            declared.as_str(),
            demand,
            format!("the skill declares approval-level {}", declared.as_str()),
        ))
    }
}
