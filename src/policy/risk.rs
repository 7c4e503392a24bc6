//! The risk score against the auto ceiling and the human floor: measured from the skill, raised
//! by a declared `risk-score`.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand, fraction};
use crate::signals::Signals;

pub struct Risk;

impl Criterion for Risk {
    fn key(&self) -> &'static str {
        "risk_score"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let (risk, source) = match &signals.risk {
            Some(risk) => {
                let source = match risk.declared {
                    Some(declared) if declared > risk.measured => {
                        format!("declared; measured {}", fraction(risk.measured))
                    }
                    _ => "measured".to_owned(),
                };
                (risk.score, source)
            }
            None => (signals.declared_risk?, "declared".to_owned()),
        };
        let (auto, human) = (policy.auto.risk, policy.human.risk);
        let shown = fraction(risk);
        let (demand, reason) = if risk > human + 1e-9 {
            (
                Demand::Human,
                format!("risk {shown} > {} ({source})", fraction(human)),
            )
        } else if risk > auto + 1e-9 {
            (
                Demand::Escalate(Category::Risk),
                format!("risk {shown} > {} ({source})", fraction(auto)),
            )
        } else {
            (
                Demand::Auto,
                format!("risk {shown} ≤ {} ({source})", fraction(auto)),
            )
        };
        Some(Assessment::new(format!("<= {auto}"), risk, demand, reason))
    }
}
