//! The risk score against the auto ceiling and the human floor: measured from the skill, raised
//! by a declared `risk-score`.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct Risk;

/// A risk as compared: three decimals (`0.305`), two when the third is 0 (`0.45`).
fn shown(value: f64) -> String {
    let text = format!("{value:.3}");
    text.strip_suffix('0').map_or(text.clone(), str::to_owned)
}

impl Criterion for Risk {
    fn key(&self) -> &'static str {
        "risk_score"
    }

    fn evaluate(&self, signals: &Signals, policy: &Policy) -> Option<Assessment> {
        let (risk, source) = match &signals.risk {
            Some(risk) => {
                let source = match risk.declared {
                    Some(declared) if declared > risk.measured => {
                        format!("declared; measured {}", shown(risk.measured))
                    }
                    _ => "measured".to_owned(),
                };
                (risk.score, source)
            }
            None => (signals.declared_risk?, "declared".to_owned()),
        };
        let (auto, human) = (policy.auto.risk, policy.human.risk);
        let value = shown(risk);
        let (demand, reason) = if risk > human + 1e-9 {
            (
                Demand::Human,
                format!("risk {value} > {} ({source})", shown(human)),
            )
        } else if risk > auto + 1e-9 {
            (
                Demand::Escalate(Category::Risk),
                format!("risk {value} > {} ({source})", shown(auto)),
            )
        } else {
            (
                Demand::Auto,
                format!("risk {value} ≤ {} ({source})", shown(auto)),
            )
        };
        Some(Assessment::new(format!("<= {auto}"), risk, demand, reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risks_show_the_decimals_that_decide() {
        assert_eq!(shown(0.305), "0.305");
        assert_eq!(shown(0.45), "0.45");
        assert_eq!(shown(0.3), "0.30");
        assert_eq!(shown(1.0), "1.00");
    }
}
