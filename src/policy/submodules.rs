//! Git submodules in a skill: their code comes from a URL at a commit the diff does not show,
//! so a reviewer looks whatever the dependency thresholds allow.

use super::Policy;
use super::content::judge;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct Submodules;

impl Criterion for Submodules {
    fn key(&self) -> &'static str {
        "git_submodules"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        // Judged only when found: a skill without any keeps the criteria it had.
        let found = &signals.analysis.as_ref()?.submodules;
        if found.is_empty() {
            return None;
        }
        Some(judge(
            found,
            Demand::Escalate(Category::Dependencies),
            "git submodule (code from another repository)",
        ))
    }
}
