//! The risk score, 0.0–1.0: DESIGN.md's weighted sum of five parts, each normalised to 0–1
//! as below. The weights come from `[policy.risk-weights]` and add up to 1, so the score does
//! too. A declared `risk-score` raises the score, never lowers it.
//!
//! | part | 0 | 1 |
//! | --- | --- | --- |
//! | security | nothing found | a hardcoded secret or security-sensitive code (0.5 for an infrastructure change or a database write) |
//! | complexity | no code | the most complex function at 20 or more (linear between) |
//! | coverage | fully covered | nothing covered, or coverage unknown (1 − coverage) |
//! | dependencies | none | 4 or more (linear between) |
//! | criticality | other categories | a `category` listed in `policy.critical-categories` |

use crate::config::RiskWeights;
use crate::signals::{RiskParts, RiskScore};

/// A complexity at or above this is the most complex part there is.
pub const COMPLEXITY_CEILING: f64 = 20.0;

/// External dependencies at or above this count fully.
pub const DEPENDENCY_CEILING: f64 = 4.0;

/// What the score is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RiskInputs {
    /// A hardcoded secret or security-sensitive code.
    pub security_sensitive: bool,
    /// An infrastructure change or a database write.
    pub elevated: bool,
    /// The most complex function's cyclomatic complexity, when code was analysed.
    pub complexity: Option<u32>,
    /// Line coverage, measured or declared; `None` when unknown.
    pub coverage: Option<f64>,
    pub dependencies: usize,
    pub critical: bool,
    /// The skill's declared `risk-score`.
    pub declared: Option<f64>,
}

/// The risk score of `inputs` under `weights`.
pub fn score(inputs: &RiskInputs, weights: &RiskWeights) -> RiskScore {
    let parts = RiskParts {
        security: if inputs.security_sensitive {
            1.0
        } else if inputs.elevated {
            0.5
        } else {
            0.0
        },
        complexity: inputs
            .complexity
            .map_or(0.0, |c| (f64::from(c) / COMPLEXITY_CEILING).min(1.0)),
        coverage: 1.0 - inputs.coverage.map_or(0.0, unit),
        dependencies: (inputs.dependencies as f64 / DEPENDENCY_CEILING).min(1.0),
        criticality: if inputs.critical { 1.0 } else { 0.0 },
    };
    let measured = unit(
        weights.security * parts.security
            + weights.complexity * parts.complexity
            + weights.coverage * parts.coverage
            + weights.dependencies * parts.dependencies
            + weights.criticality * parts.criticality,
    );
    let declared = inputs.declared.map(unit);
    RiskScore {
        score: round(measured.max(declared.unwrap_or(0.0))),
        measured: round(measured),
        declared,
        parts,
    }
}

/// Clamped to 0–1; NaN counts as 0.
fn unit(value: f64) -> f64 {
    if value.is_nan() {
        0.0
    } else {
        value.clamp(0.0, 1.0)
    }
}

/// Three decimals, as thresholds are compared and shown.
fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights() -> RiskWeights {
        RiskWeights::default()
    }

    #[test]
    fn each_part_weighs_as_designed() {
        let nothing = RiskInputs {
            coverage: Some(1.0),
            ..RiskInputs::default()
        };
        assert_eq!(score(&nothing, &weights()).score, 0.0);
        let secret = RiskInputs {
            security_sensitive: true,
            ..nothing
        };
        assert_eq!(score(&secret, &weights()).score, 0.35);
        let infra = RiskInputs {
            elevated: true,
            ..nothing
        };
        assert_eq!(score(&infra, &weights()).score, 0.175);
        let complex = RiskInputs {
            complexity: Some(10),
            ..nothing
        };
        assert_eq!(score(&complex, &weights()).score, 0.125);
        let half_covered = RiskInputs {
            coverage: Some(0.5),
            ..RiskInputs::default()
        };
        assert_eq!(score(&half_covered, &weights()).score, 0.1);
        let unknown_coverage = RiskInputs::default();
        assert_eq!(score(&unknown_coverage, &weights()).score, 0.2);
        let two_deps = RiskInputs {
            dependencies: 2,
            ..nothing
        };
        assert_eq!(score(&two_deps, &weights()).score, 0.075);
        let critical = RiskInputs {
            critical: true,
            ..nothing
        };
        assert_eq!(score(&critical, &weights()).score, 0.05);
        let everything = RiskInputs {
            security_sensitive: true,
            elevated: true,
            complexity: Some(40),
            coverage: Some(0.0),
            dependencies: 9,
            critical: true,
            declared: None,
        };
        assert_eq!(score(&everything, &weights()).score, 1.0);
    }

    #[test]
    fn a_declared_score_raises_never_lowers() {
        let secret = RiskInputs {
            security_sensitive: true,
            coverage: Some(1.0),
            declared: Some(0.1),
            ..RiskInputs::default()
        };
        let risk = score(&secret, &weights());
        assert_eq!(
            (risk.score, risk.measured, risk.declared),
            (0.35, 0.35, Some(0.1))
        );
        let raised = RiskInputs {
            declared: Some(0.8),
            ..secret
        };
        assert_eq!(score(&raised, &weights()).score, 0.8);
        let nonsense = RiskInputs {
            declared: Some(f64::NAN),
            ..secret
        };
        assert_eq!(score(&nonsense, &weights()).score, 0.35);
    }

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn fraction(&mut self) -> f64 {
            (self.next() % 1001) as f64 / 1000.0
        }

        fn inputs(&mut self) -> RiskInputs {
            RiskInputs {
                security_sensitive: self.next().is_multiple_of(2),
                elevated: self.next().is_multiple_of(2),
                complexity: (!self.next().is_multiple_of(4)).then(|| (self.next() % 40) as u32),
                coverage: (!self.next().is_multiple_of(4)).then(|| self.fraction()),
                dependencies: (self.next() % 8) as usize,
                critical: self.next().is_multiple_of(2),
                declared: self
                    .next()
                    .is_multiple_of(3)
                    .then(|| self.fraction() * 1.2 - 0.1),
            }
        }

        fn weights(&mut self) -> RiskWeights {
            let raw: Vec<f64> = (0..5).map(|_| self.fraction() + 0.001).collect();
            let sum: f64 = raw.iter().sum();
            RiskWeights {
                security: raw[0] / sum,
                complexity: raw[1] / sum,
                coverage: raw[2] / sum,
                dependencies: raw[3] / sum,
                criticality: raw[4] / sum,
            }
        }
    }

    #[test]
    fn always_between_zero_and_one() {
        let mut random = Random(0x5eed);
        for _ in 0..5000 {
            let (inputs, weights) = (random.inputs(), random.weights());
            let risk = score(&inputs, &weights);
            assert!(
                (0.0..=1.0).contains(&risk.score),
                "{inputs:?} {weights:?} {risk:?}"
            );
            assert!((0.0..=1.0).contains(&risk.measured));
        }
    }

    #[test]
    fn never_lower_when_any_input_gets_worse() {
        let mut random = Random(42);
        for _ in 0..5000 {
            let (base, weights) = (random.inputs(), random.weights());
            let before = score(&base, &weights).score;
            let worse = [
                RiskInputs {
                    security_sensitive: true,
                    ..base
                },
                RiskInputs {
                    elevated: true,
                    ..base
                },
                RiskInputs {
                    complexity: Some(base.complexity.unwrap_or(0) + 1 + (random.next() % 5) as u32),
                    ..base
                },
                RiskInputs {
                    coverage: base.coverage.map(|c| (c - 0.1).max(0.0)),
                    ..base
                },
                RiskInputs {
                    coverage: None,
                    ..base
                },
                RiskInputs {
                    dependencies: base.dependencies + 1,
                    ..base
                },
                RiskInputs {
                    critical: true,
                    ..base
                },
                RiskInputs {
                    declared: Some(base.declared.unwrap_or(0.0).max(0.0) + 0.05),
                    ..base
                },
            ];
            for input in worse {
                let after = score(&input, &weights).score;
                assert!(after >= before, "{base:?} → {input:?}: {before} > {after}");
            }
        }
    }
}
