//! A category may allow no better than a tier (a template's `approval_level`, or
//! `approval-level` in `[policy.categories.NAME]`): the seed's frontend components are always
//! reviewed by an expert, however good their numbers.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;
use crate::skill::Tier;

pub struct CategoryLevel;

impl Criterion for CategoryLevel {
    fn key(&self) -> &'static str {
        "category_approval_level"
    }

    fn evaluate(&self, _signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let (level, source) = policy.approval_level.as_ref()?;
        let demand = match level {
            Tier::Auto => return None,
            Tier::Escalate => Demand::Escalate(Category::CategoryLevel),
            Tier::Human => Demand::Human,
        };
        let who = match level {
            Tier::Human => "a maintainer",
            _ => "an expert",
        };
        Some(Assessment::new(
            level.as_str(),
            level.as_str(),
            demand,
            format!("{source} sends every skill of its category to {who}"),
        ))
    }
}
