//! Files the gate could not analyse (too large, unreadable, past the per-skill budget, or code
//! in a language it does not parse) were not checked for secrets, dependencies or complexity:
//! an expert looks at them rather than the skill passing unseen.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use super::dependencies::list;
use crate::signals::Signals;

pub struct AnalysisComplete;

impl Criterion for AnalysisComplete {
    fn key(&self) -> &'static str {
        "analysis_complete"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let skipped = &signals.analysis.as_ref()?.skipped;
        Some(if skipped.is_empty() {
            Assessment::new(true, true, Demand::Auto, "every file analysed".to_owned())
        } else {
            Assessment::new(
                true,
                false,
                Demand::Escalate(Category::Unanalysed),
                format!("not analysed: {}", list(skipped)),
            )
        })
    }
}
