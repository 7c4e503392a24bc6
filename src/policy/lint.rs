//! An invalid `SKILL.md` needs correction before anything else is worth judging.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::Signals;

pub struct SkillMd;

impl Criterion for SkillMd {
    fn key(&self) -> &'static str {
        "skill_md"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let errors = &signals.lint_errors;
        Some(match errors.as_slice() {
            [] => Assessment::new(
                "valid",
                "valid",
                Demand::Auto,
                "SKILL.md is valid".to_owned(),
            ),
            [only] => Assessment::new(
                "valid",
                "1 error",
                Demand::Correction,
                format!("invalid SKILL.md: {only}"),
            ),
            [first, rest @ ..] => Assessment::new(
                "valid",
                format!("{} errors", errors.len()),
                Demand::Correction,
                format!("invalid SKILL.md: {first} (and {} more)", rest.len()),
            ),
        })
    }
}
