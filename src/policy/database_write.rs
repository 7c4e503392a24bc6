//! A database write (DDL or DML the scripts run) goes to a DBA.

use super::Policy;
use super::content::judge;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct DatabaseWrite;

impl Criterion for DatabaseWrite {
    fn key(&self) -> &'static str {
        "database_write"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let found = &signals.analysis.as_ref()?.database_writes;
        Some(judge(
            found,
            Demand::Escalate(Category::Database),
            "database write",
        ))
    }
}
