//! External dependencies: none for auto, 1–3 for an integration architect, more for a
//! maintainer. The count is the number of entries of `Analysis::dependencies` (one per service,
//! other host, manifest, declared name, and the unnamed endpoint of network tools: see
//! `analysis::dependencies`), and the reason names them with their `file:line`.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

/// How many dependencies a reason names before "and N more".
const NAMED: usize = 5;

pub struct Dependencies;

impl Criterion for Dependencies {
    fn key(&self) -> &'static str {
        "external_dependencies"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let analysis = signals.analysis.as_ref()?;
        let found = &analysis.dependencies;
        let count = analysis.dependency_count;
        let (auto, human) = (policy.auto.dependencies, policy.human.dependencies);
        let listed = list(found);
        let (demand, reason) = if count > human {
            (
                Demand::Human,
                format!("{count} external dependencies > {human}: {listed}"),
            )
        } else if count > auto {
            let noun = if count == 1 {
                "dependency"
            } else {
                "dependencies"
            };
            (
                Demand::Escalate(Category::Dependencies),
                format!("{count} external {noun}: {listed}"),
            )
        } else {
            (Demand::Auto, "no external dependencies".to_owned())
        };
        Some(Assessment::new(format!("<= {auto}"), count, demand, reason))
    }
}

/// `a, b, c and 2 more`.
pub(super) fn list(items: &[String]) -> String {
    let mut listed = items
        .iter()
        .take(NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        listed.push_str(&format!(" and {} more", items.len() - NAMED));
    }
    listed
}
