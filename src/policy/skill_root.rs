//! A `SKILL.md` no skill root covers is gated when a change touches it, but the gate cannot tell
//! a skill in an unexpected place from a page that shares the name: a maintainer decides (and
//! `[skills] roots` or `[skills] ignore` says it for the next change).

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::Signals;

pub struct SkillRoot;

impl Criterion for SkillRoot {
    fn key(&self) -> &'static str {
        "skill_root"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let reason = signals.uncovered.as_ref()?;
        Some(Assessment::new(
            "under a skill root",
            "under no skill root",
            Demand::Human,
            reason.clone(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(uncovered: Option<&str>) -> Signals {
        let mut value = serde_json::json!({
            "change": {"kind": "added"},
            "lint_errors": [],
            "suite": {"state": "missing"},
            "coverage": {"source": "unknown"},
            "required_pass_rate": 0.95,
        });
        if let Some(reason) = uncovered {
            value["uncovered"] = serde_json::json!(reason);
        }
        serde_json::from_value(value).expect("signals")
    }

    #[test]
    fn only_a_skill_outside_every_root_needs_a_maintainer() {
        assert_eq!(SkillRoot.evaluate(&signals(None), &Policy::default()), None);
        let assessment = SkillRoot
            .evaluate(
                &signals(Some("tools/foo/SKILL.md is under no root")),
                &Policy::default(),
            )
            .expect("judged");
        assert_eq!(assessment.demand, Demand::Human);
        assert_eq!(assessment.reason, "tools/foo/SKILL.md is under no root");
        assert!(!assessment.check.passed);
    }
}
