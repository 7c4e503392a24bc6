//! `decide`: every criterion's demand, the heaviest one wins.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::criterion::{Category, Check, Demand};
use super::{CRITERIA, Policy};
use crate::signals::Signals;
use crate::skill::Tier;

/// The seed's `approval_history.decision` for a gate run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    Escalated,
    NeedsCorrection,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Escalated => "escalated",
            Self::NeedsCorrection => "needs_correction",
        }
    }
}

/// The gate's decision on one skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Who reviews: auto (nobody), escalate (an expert), human (a maintainer). A skill that
    /// needs correction is in the human tier until it is fixed.
    pub tier: Tier,
    pub decision: Verdict,
    /// Why, in a reviewer's words: the failing criteria, or what an approval rests on.
    pub reasons: Vec<String>,
    /// `{criterion: {required, actual, passed}}`.
    pub criteria: BTreeMap<String, Check>,
    /// For the escalate tier: why, the first one picks the reviewers.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub escalation_categories: Vec<Category>,
}

/// Judge one skill. Pure: the same signals and policy always give the same decision.
pub fn decide(signals: &Signals, policy: &Policy) -> Decision {
    let mut criteria = BTreeMap::new();
    let mut demands = Vec::new();
    for criterion in CRITERIA {
        if let Some(assessment) = criterion.evaluate(signals, policy) {
            criteria.insert(criterion.key().to_owned(), assessment.check);
            demands.push((
                assessment.demand,
                assessment.reason,
                criterion.always_listed(),
            ));
        }
    }
    let heaviest = demands
        .iter()
        .map(|(d, _, _)| *d)
        .max()
        .unwrap_or(Demand::Auto);
    let (tier, decision) = match heaviest {
        Demand::Auto => (Tier::Auto, Verdict::Approved),
        Demand::Escalate(_) => (Tier::Escalate, Verdict::Escalated),
        Demand::Human => (Tier::Human, Verdict::Escalated),
        Demand::Correction => (Tier::Human, Verdict::NeedsCorrection),
    };
    let mut escalation_categories = Vec::new();
    if tier == Tier::Escalate {
        for (demand, _, _) in &demands {
            if let Demand::Escalate(category) = demand
                && !escalation_categories.contains(category)
            {
                escalation_categories.push(*category);
            }
        }
    }
    // An approval lists what it rests on; anything else lists what stands in the way, heaviest
    // first, in registry order within a weight, and the notes that are always listed.
    let mut reasons: Vec<(Demand, String)> = demands
        .into_iter()
        .filter(|(d, _, always)| heaviest == Demand::Auto || *d != Demand::Auto || *always)
        .map(|(d, r, _)| (d, r))
        .collect();
    reasons.sort_by_key(|(d, _)| std::cmp::Reverse(weight(*d)));
    Decision {
        tier,
        decision,
        reasons: reasons.into_iter().map(|(_, r)| r).collect(),
        criteria,
        escalation_categories,
    }
}

fn weight(demand: Demand) -> u8 {
    match demand {
        Demand::Auto => 0,
        Demand::Escalate(_) => 1,
        Demand::Human => 2,
        Demand::Correction => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::ChangeKind;
    use crate::config::SkipHandling;
    use crate::signals::{CoverageSignal, SuiteSignal, TestCounts};

    /// A skill that meets every auto criterion.
    fn good() -> Signals {
        Signals {
            change: ChangeKind::Modified,
            lint_errors: Vec::new(),
            suite: SuiteSignal::Ran,
            tests: Some(TestCounts {
                passed: 20,
                failed: 0,
                skipped: 0,
            }),
            suite_failure: None,
            coverage: CoverageSignal::Measured {
                ratio: 0.97,
                format: "lcov".into(),
            },
            declared_risk: None,
            declared_approval_level: None,
            required_pass_rate: 0.95,
            attempts: 1,
            flaky: Vec::new(),
        }
    }

    fn counts(passed: u64, failed: u64) -> Option<TestCounts> {
        Some(TestCounts {
            passed,
            failed,
            skipped: 0,
        })
    }

    fn measured(ratio: f64) -> CoverageSignal {
        CoverageSignal::Measured {
            ratio,
            format: "lcov".into(),
        }
    }

    #[test]
    fn every_rule_of_the_tables() {
        type Edit = fn(&mut Signals);
        let cases: &[(&str, Edit, Tier, Verdict)] = &[
            ("all criteria met", |_| {}, Tier::Auto, Verdict::Approved),
            // pass rate vs required_test_pass_rate, and the human floor
            (
                "pass rate exactly 0.95",
                |s| s.tests = counts(19, 1),
                Tier::Auto,
                Verdict::Approved,
            ),
            (
                "pass rate 0.90 escalates",
                |s| s.tests = counts(18, 2),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "pass rate exactly 0.80 escalates",
                |s| s.tests = counts(16, 4),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "pass rate 0.79 is human",
                |s| s.tests = counts(79, 21),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "own required rate 0.90",
                |s| {
                    s.tests = counts(18, 2);
                    s.required_pass_rate = 0.90
                },
                Tier::Auto,
                Verdict::Approved,
            ),
            // coverage
            (
                "coverage exactly 0.95",
                |s| s.coverage = measured(0.95),
                Tier::Auto,
                Verdict::Approved,
            ),
            (
                "coverage 0.94 escalates",
                |s| s.coverage = measured(0.94),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "coverage exactly 0.80 escalates",
                |s| s.coverage = measured(0.80),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "coverage 0.79 is human",
                |s| s.coverage = measured(0.79),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "coverage unknown escalates",
                |s| s.coverage = CoverageSignal::Unknown,
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "declared 0.99 never approves",
                |s| s.coverage = CoverageSignal::Declared { ratio: 0.99 },
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "declared 0.50 is human",
                |s| s.coverage = CoverageSignal::Declared { ratio: 0.50 },
                Tier::Human,
                Verdict::Escalated,
            ),
            // test suite present with at least one test
            (
                "no suite is human",
                |s| {
                    s.suite = SuiteSignal::Missing;
                    s.tests = None
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "zero tests is human",
                |s| s.tests = counts(0, 0),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "only skipped tests is human",
                |s| {
                    s.tests = Some(TestCounts {
                        passed: 0,
                        failed: 0,
                        skipped: 5,
                    })
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "a suite that timed out is human however much passed",
                |s| s.suite_failure = Some("the suite timed out after 1s".into()),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "a skill cannot set its bar below the human floor",
                |s| {
                    s.tests = counts(1, 9);
                    s.required_pass_rate = 0.1
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "unavailable suite is human",
                |s| {
                    s.suite = SuiteSignal::Unavailable {
                        reason: "`go` is not installed".into(),
                    };
                    s.tests = None
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            // declared risk
            (
                "risk 0.30 approves",
                |s| s.declared_risk = Some(0.30),
                Tier::Auto,
                Verdict::Approved,
            ),
            (
                "risk 0.31 escalates",
                |s| s.declared_risk = Some(0.31),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "risk 0.60 escalates",
                |s| s.declared_risk = Some(0.60),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "risk 0.61 is human",
                |s| s.declared_risk = Some(0.61),
                Tier::Human,
                Verdict::Escalated,
            ),
            // declared approval level raises only
            (
                "declared auto changes nothing",
                |s| s.declared_approval_level = Some(Tier::Auto),
                Tier::Auto,
                Verdict::Approved,
            ),
            (
                "declared escalate raises",
                |s| s.declared_approval_level = Some(Tier::Escalate),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "declared human raises",
                |s| s.declared_approval_level = Some(Tier::Human),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "declared auto does not lower",
                |s| {
                    s.declared_approval_level = Some(Tier::Auto);
                    s.coverage = measured(0.5)
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            // breaking changes
            (
                "deleted skill is human",
                |s| {
                    s.change = ChangeKind::Deleted;
                    s.suite = SuiteSignal::NotApplicable;
                    s.tests = None;
                    s.coverage = CoverageSignal::Unknown
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "renamed skill is human",
                |s| {
                    s.change = ChangeKind::Renamed {
                        from: "s/old".into(),
                    }
                },
                Tier::Human,
                Verdict::Escalated,
            ),
            // needs correction beats everything
            (
                "invalid SKILL.md",
                |s| s.lint_errors = vec!["SKILL.md:1: no frontmatter".into()],
                Tier::Human,
                Verdict::NeedsCorrection,
            ),
        ];
        for (name, edit, tier, verdict) in cases {
            let mut signals = good();
            edit(&mut signals);
            let decision = decide(&signals, &Policy::default());
            assert_eq!(
                (decision.tier, decision.decision),
                (*tier, *verdict),
                "case: {name}: {decision:?}"
            );
            assert!(!decision.reasons.is_empty(), "case {name} has no reasons");
        }
    }

    #[test]
    fn criteria_check_has_the_seed_shape() {
        let mut signals = good();
        signals.tests = Some(TestCounts {
            passed: 45,
            failed: 0,
            skipped: 2,
        });
        signals.coverage = measured(0.88);
        let decision = decide(&signals, &Policy::default());
        let json = serde_json::to_value(&decision.criteria).expect("json");
        assert_eq!(
            json["test_pass_rate"],
            serde_json::json!({"required": 0.95, "actual": 0.957, "passed": true})
        );
        assert_eq!(
            json["test_coverage"],
            serde_json::json!({"required": 0.95, "actual": 0.88, "passed": false})
        );
        assert_eq!(decision.escalation_categories, vec![Category::Coverage]);
        assert_eq!(
            decision.reasons,
            vec!["coverage 0.88 < 0.95 (measured, lcov)"]
        );
    }

    #[test]
    fn reasons_list_heaviest_first_and_approvals_list_what_they_rest_on() {
        let mut signals = good();
        signals.coverage = measured(0.85);
        signals.tests = counts(3, 2);
        let decision = decide(&signals, &Policy::default());
        assert_eq!(
            decision.reasons,
            vec![
                "pass rate 0.60 (3/5) < 0.80",
                "coverage 0.85 < 0.95 (measured, lcov)"
            ]
        );
        let approved = decide(&good(), &Policy::default());
        assert_eq!(
            approved.reasons,
            vec![
                "SKILL.md is valid",
                "no breaking change",
                "20 tests ran",
                "the suite ended normally",
                "pass rate 1.00 (20/20) ≥ 0.95",
                "coverage 0.97 ≥ 0.95 (measured, lcov)"
            ]
        );
    }

    #[test]
    fn skips_count_in_the_total_unless_excluded() {
        let mut signals = good();
        signals.tests = Some(TestCounts {
            passed: 18,
            failed: 0,
            skipped: 2,
        });
        assert_eq!(decide(&signals, &Policy::default()).tier, Tier::Escalate);
        let policy = Policy {
            skips: SkipHandling::Exclude,
            ..Policy::default()
        };
        assert_eq!(decide(&signals, &policy).tier, Tier::Auto);
        signals.tests = Some(TestCounts {
            passed: 0,
            failed: 0,
            skipped: 5,
        });
        assert_eq!(decide(&signals, &policy).tier, Tier::Human, "nothing ran");
    }
}
