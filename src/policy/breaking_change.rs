//! Removing or renaming a skill breaks whoever loads it by name, and so does changing its
//! `name` or its major version, or removing an input or field it documented
//! ([`crate::documented`]): a maintainer decides.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use crate::changes::ChangeKind;
use crate::signals::Signals;

pub struct BreakingChange;

impl Criterion for BreakingChange {
    fn key(&self) -> &'static str {
        "breaking_change"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        Some(match &signals.change {
            ChangeKind::Deleted => Assessment::new(
                "none",
                "skill removed",
                Demand::Human,
                "breaking change: skill removed".to_owned(),
            ),
            ChangeKind::Renamed { from } => Assessment::new(
                "none",
                "skill renamed",
                Demand::Human,
                format!("breaking change: skill renamed from {from}"),
            ),
            _ if !signals.breaking.is_empty() => Assessment::new(
                "none",
                signals.breaking.join("; "),
                Demand::Human,
                format!("breaking change: {}", signals.breaking.join("; ")),
            ),
            _ => Assessment::new(
                "none",
                "none",
                Demand::Auto,
                "no breaking change".to_owned(),
            ),
        })
    }
}
