//! An infrastructure change (Dockerfile, Terraform, Kubernetes, workflows, a shell granted in
//! `allowed-tools`) goes to a DevOps specialist.

use super::Policy;
use super::content::judge;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct Infrastructure;

impl Criterion for Infrastructure {
    fn key(&self) -> &'static str {
        "infrastructure_change"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let found = &signals.analysis.as_ref()?.infrastructure;
        Some(judge(
            found,
            Demand::Escalate(Category::Infrastructure),
            "infrastructure change",
        ))
    }
}
