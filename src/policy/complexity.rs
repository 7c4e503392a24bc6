//! The cyclomatic complexity of the skill's most complex function: ≤ 5 auto, 6–15 a code
//! quality reviewer, above 15 a maintainer.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct Complexity;

impl Criterion for Complexity {
    fn key(&self) -> &'static str {
        "cyclomatic_complexity"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let analysis = signals.analysis.as_ref()?;
        let (auto, human) = (policy.auto.complexity, policy.human.complexity);
        // Not measured (no code in a language the gate parses): nothing to judge.
        let complexity = analysis.complexity.as_ref()?;
        let max = complexity.max;
        let at = complexity
            .at
            .as_deref()
            .map(|at| format!(" ({at})"))
            .unwrap_or_default();
        let (demand, reason) = if max > human {
            (Demand::Human, format!("complexity {max} > {human}{at}"))
        } else if max > auto {
            (
                Demand::Escalate(Category::Complexity),
                format!("complexity {max} > {auto}{at}"),
            )
        } else {
            (Demand::Auto, format!("complexity {max} ≤ {auto}"))
        };
        Some(Assessment::new(format!("<= {auto}"), max, demand, reason))
    }
}
