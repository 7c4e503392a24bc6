//! A hardcoded secret blocks until it is removed (and rotated): the skill needs correction.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use super::dependencies::list;
use crate::signals::Signals;

pub struct Secrets;

impl Criterion for Secrets {
    fn key(&self) -> &'static str {
        "hardcoded_secrets"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let found = &signals.analysis.as_ref()?.secrets;
        Some(if found.is_empty() {
            Assessment::new(0, 0, Demand::Auto, "no hardcoded secrets".to_owned())
        } else {
            let noun = if found.len() == 1 {
                "secret"
            } else {
                "secrets"
            };
            Assessment::new(
                0,
                found.len(),
                Demand::Correction,
                format!(
                    "{} hardcoded {noun} (remove and rotate): {}",
                    found.len(),
                    list(found)
                ),
            )
        })
    }
}
