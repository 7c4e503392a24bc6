//! `decide`: every criterion's demand, the heaviest one wins. Its reasons come in one fixed
//! order, and none restates another.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::criterion::{Category, Check, Demand};
use super::{CRITERIA, Policy};
use crate::config::Mode;
use crate::signals::Signals;
use crate::skill::{Reviewers, Tier};

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
    /// The tier `enforce` would have given, when the policy mode softened it (`warn` approves
    /// with warnings, `escalate` sends a maintainer's review to an expert).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub softened_from: Option<Tier>,
    /// Who is asked to review it: set from the trusted `[routing]` once the run is decided
    /// (never read from a results document), empty for an approval.
    #[serde(skip_serializing_if = "Reviewers::is_empty", default)]
    pub reviewers: Reviewers,
}

/// The key of the criterion that reads a skill's declared `approval-level`.
const DECLARED_LEVEL: &str = "approval_level";

/// Judge one skill. Pure: the same signals and policy always give the same decision.
pub fn decide(signals: &Signals, policy: &Policy) -> Decision {
    let mut criteria = BTreeMap::new();
    let mut demands = Vec::new();
    // The skill's own `approval-level`: the rollout never softens what the author asked for.
    let mut declared = Demand::Auto;
    for criterion in CRITERIA {
        if let Some(assessment) = criterion.evaluate(signals, policy) {
            criteria.insert(criterion.key().to_owned(), assessment.check);
            if criterion.key() == DECLARED_LEVEL {
                declared = assessment.demand;
            }
            demands.push(Listed {
                key: criterion.key(),
                demand: assessment.demand,
                reason: assessment.reason,
                always: criterion.always_listed(),
                explains: assessment.explains,
            });
        }
    }
    let heaviest = demands
        .iter()
        .map(|l| l.demand)
        .max()
        .unwrap_or(Demand::Auto);
    // The gradual rollout softens what the tables demand, never a correction.
    let softened = match (policy.mode, heaviest) {
        (_, Demand::Correction) | (Mode::Enforce, _) => heaviest,
        (Mode::Warn, _) => Demand::Auto,
        (Mode::Escalate, Demand::Human) => Demand::Escalate(Category::Rollout),
        (Mode::Escalate, demand) => demand,
    };
    let applied = softened.max(declared);
    let (tier, decision) = match applied {
        Demand::Auto => (Tier::Auto, Verdict::Approved),
        Demand::Escalate(_) => (Tier::Escalate, Verdict::Escalated),
        Demand::Human => (Tier::Human, Verdict::Escalated),
        Demand::Correction => (Tier::Human, Verdict::NeedsCorrection),
    };
    let mut escalation_categories = Vec::new();
    if tier == Tier::Escalate {
        for Listed { demand, .. } in &demands {
            if let Demand::Escalate(category) = demand
                && !escalation_categories.contains(category)
            {
                escalation_categories.push(*category);
            }
        }
        if let Demand::Escalate(Category::Rollout) = applied {
            escalation_categories.insert(0, Category::Rollout);
        }
    }
    // An approval lists what it rests on; anything else lists what stands in the way, and the
    // notes that are always listed.
    let listed: Vec<Listed> = demands
        .into_iter()
        .filter(|l| heaviest == Demand::Auto || l.demand != Demand::Auto || l.always)
        .collect();
    let mut reasons = ordered(listed);
    if applied != heaviest {
        let would = match heaviest {
            Demand::Human => "a maintainer",
            _ => "an expert",
        };
        let note = match policy.mode {
            Mode::Warn => format!(
                "policy mode warn: approved with warnings; enforced, this would need {would}"
            ),
            _ => "policy mode escalate: sent to an expert; enforced, this would need a maintainer"
                .to_owned(),
        };
        reasons.insert(0, note);
    }
    let softened_from = (applied != heaviest).then_some(match heaviest {
        Demand::Auto => Tier::Auto,
        Demand::Escalate(_) => Tier::Escalate,
        Demand::Human | Demand::Correction => Tier::Human,
    });
    Decision {
        tier,
        decision,
        reasons,
        criteria,
        escalation_categories,
        softened_from,
        reviewers: Reviewers::default(),
    }
}

/// One criterion's reason, on its way to the decision's list.
struct Listed {
    key: &'static str,
    demand: Demand,
    reason: String,
    always: bool,
    explains: &'static [&'static str],
}

/// The reasons in their fixed order, none restating another. A reason that another failing
/// criterion's reason explains (`coverage unknown` after `no test suite`) is left out, and the
/// one that explains it takes its weight, so the first reason still accounts for the tier.
/// Then the heaviest first: what needs correction, what needs a maintainer, what needs an
/// expert, and the notes; within a weight, the registry's order.
fn ordered(listed: Vec<Listed>) -> Vec<String> {
    let mut weights: Vec<u8> = listed.iter().map(|l| weight(l.demand)).collect();
    let mut kept = vec![true; listed.len()];
    for (i, item) in listed.iter().enumerate() {
        // A reason left out explains nothing: two that named each other keep one.
        let by = (0..listed.len()).find(|&j| {
            j != i
                && kept[j]
                && listed[j].demand != Demand::Auto
                && listed[j].explains.contains(&item.key)
        });
        if let Some(j) = by {
            kept[i] = false;
            weights[j] = weights[j].max(weights[i]);
        }
    }
    let mut reasons: Vec<(u8, String)> = listed
        .into_iter()
        .zip(weights)
        .zip(kept)
        .filter(|(_, kept)| *kept)
        .map(|((l, w), _)| (w, l.reason))
        .collect();
    reasons.sort_by_key(|(w, _)| std::cmp::Reverse(*w));
    reasons.into_iter().map(|(_, r)| r).collect()
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
    use crate::analysis::risk::RiskInputs;
    use crate::changes::ChangeKind;
    use crate::config::SkipHandling;
    use crate::signals::{Analysis, ComplexitySignal, CoverageSignal, SuiteSignal, TestCounts};
    use crate::signals::{RiskParts, RiskScore};

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
            results_unread: None,
            self_reported: None,
            coverage_unread: None,
            results_disagree: None,
            coverage: CoverageSignal::Measured {
                ratio: 0.97,
                format: "lcov".into(),
            },
            declared_risk: None,
            declared_approval_level: None,
            required_pass_rate: 0.95,
            attempts: 1,
            flaky: Vec::new(),
            analysis: Some(Analysis {
                complexity: Some(ComplexitySignal {
                    max: 3,
                    total: 7,
                    at: None,
                }),
                ..Analysis::default()
            }),
            risk: None,
            breaking: Vec::new(),
            category_change: None,
            uncovered: None,
            tests_not_run: None,
        }
    }

    #[test]
    fn an_exit_code_alone_never_approves() {
        let mut signals = good();
        let policy = Policy::default();
        assert_eq!(decide(&signals, &policy).tier, Tier::Auto);
        signals.results_unread = Some("no test results could be read (exit code 0 only)".into());
        let decision = decide(&signals, &policy);
        assert_eq!(decision.tier, Tier::Escalate);
        assert_eq!(decision.escalation_categories, [Category::TestResults]);
        assert_eq!(
            decision.reasons,
            ["no test results could be read (exit code 0 only)"]
        );
        assert!(!decision.criteria["test_results"].passed);

        // Counts that contradict the framework's own summary are no settled evidence either.
        let mut signals = good();
        signals.results_disagree = Some("test counts disagree: read 20 passed, 0 failed, 0 skipped, but the plain closing line says 21 passed, 0 failed, 0 skipped; counted 21 passed, 0 failed, 0 skipped".into());
        let decision = decide(&signals, &policy);
        assert_eq!(decision.tier, Tier::Escalate);
        assert_eq!(decision.escalation_categories, [Category::TestResults]);
        assert_eq!(decision.criteria["test_results"].actual, "disagree");
    }

    fn analysis(s: &mut Signals) -> &mut Analysis {
        s.analysis.get_or_insert_with(Analysis::default)
    }

    fn complexity(s: &mut Signals, max: u32) {
        analysis(s).complexity = Some(ComplexitySignal {
            max,
            total: max + 10,
            at: Some("run.sh:3 main".into()),
        });
    }

    fn dependencies(s: &mut Signals, n: usize) {
        let a = analysis(s);
        a.dependencies = (1..=n).map(|i| format!("api{i}.vendor.io")).collect();
        a.dependency_count = u32::try_from(n).expect("small");
    }

    /// A measured risk of exactly `score`.
    fn measured_risk(s: &mut Signals, score: f64) {
        s.risk = Some(RiskScore {
            score,
            measured: score,
            declared: None,
            parts: RiskParts {
                security: 0.0,
                complexity: 0.0,
                coverage: 0.0,
                dependencies: 0.0,
                criticality: 0.0,
            },
        });
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
                "own required rate 0.90 does not lower the policy's 0.95",
                |s| {
                    s.tests = counts(18, 2);
                    s.required_pass_rate = 0.90
                },
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "own required rate 0.99 raises the policy's 0.95",
                |s| {
                    s.tests = counts(19, 1);
                    s.required_pass_rate = 0.99
                },
                Tier::Escalate,
                Verdict::Escalated,
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
            // measured risk, raised by a declared floor
            (
                "measured risk 0.20 approves",
                |s| measured_risk(s, 0.20),
                Tier::Auto,
                Verdict::Approved,
            ),
            // complexity
            (
                "complexity 5 approves",
                |s| complexity(s, 5),
                Tier::Auto,
                Verdict::Approved,
            ),
            (
                "complexity 6 escalates",
                |s| complexity(s, 6),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "complexity 15 escalates",
                |s| complexity(s, 15),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "complexity 16 is human",
                |s| complexity(s, 16),
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "no code approves",
                |s| analysis(s).complexity = None,
                Tier::Auto,
                Verdict::Approved,
            ),
            // external dependencies
            (
                "1 external dependency escalates",
                |s| dependencies(s, 1),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "3 external dependencies escalate",
                |s| dependencies(s, 3),
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "4 external dependencies are human",
                |s| dependencies(s, 4),
                Tier::Human,
                Verdict::Escalated,
            ),
            // content
            (
                "security-sensitive code is human",
                |s| analysis(s).security_sensitive = vec!["auth.py:3 jwt.decode".into()],
                Tier::Human,
                Verdict::Escalated,
            ),
            (
                "an infrastructure change escalates",
                |s| analysis(s).infrastructure = vec!["Dockerfile".into()],
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "a database write escalates",
                |s| analysis(s).database_writes = vec!["seed.sh:2 INSERT INTO users".into()],
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "a file not analysed escalates",
                |s| analysis(s).skipped = vec!["bundle.min.js: 2000000 bytes".into()],
                Tier::Escalate,
                Verdict::Escalated,
            ),
            (
                "a generated skill is decided like any other",
                |s| analysis(s).generated = Some("phase4 pattern 487".into()),
                Tier::Auto,
                Verdict::Approved,
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
                "a major version bump is human",
                |s| s.breaking = vec!["major version 1.2.0 → 2.0.0".into()],
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
            (
                "a hardcoded secret",
                |s| analysis(s).secrets = vec!["run.sh:4 github-token ghp_…".into()],
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
    fn measured_risk_boundaries_and_the_declared_floor() {
        for (score, tier) in [
            (0.30, Tier::Auto),
            (0.31, Tier::Escalate),
            (0.60, Tier::Escalate),
            (0.61, Tier::Human),
        ] {
            let mut signals = good();
            signals.coverage = measured(0.99);
            measured_risk(&mut signals, score);
            let decision = decide(&signals, &Policy::default());
            assert_eq!(decision.tier, tier, "risk {score}: {decision:?}");
        }
        let mut signals = good();
        let inputs = RiskInputs {
            coverage: Some(0.97),
            declared: Some(0.5),
            ..RiskInputs::default()
        };
        signals.risk = Some(crate::analysis::risk::score(
            &inputs,
            &crate::config::RiskWeights::default(),
        ));
        let decision = decide(&signals, &Policy::default());
        assert_eq!(decision.tier, Tier::Escalate);
        assert!(
            decision
                .reasons
                .contains(&"risk 0.50 > 0.30 (declared; measured 0.006)".to_owned()),
            "{:?}",
            decision.reasons
        );
    }

    #[test]
    fn escalations_name_their_category_and_reasons_read_like_a_reviewer() {
        type Edit = fn(&mut Signals);
        let cases: &[(Edit, &[Category], &str)] = &[
            (
                |s| s.coverage = measured(0.88),
                &[Category::Coverage],
                "coverage 0.88 < 0.95 (measured, lcov)",
            ),
            (
                |s| s.declared_risk = Some(0.45),
                &[Category::Risk],
                "risk 0.45 > 0.30 (declared)",
            ),
            (
                |s| complexity(s, 9),
                &[Category::Complexity],
                "complexity 9 > 5 (run.sh:3 main)",
            ),
            (
                |s| {
                    let a = analysis(s);
                    a.dependencies = vec!["api.stripe.com".into(), "hooks.slack.com".into()];
                    a.dependency_count = 2;
                },
                &[Category::Dependencies],
                "2 external dependencies: api.stripe.com, hooks.slack.com",
            ),
            (
                |s| analysis(s).infrastructure = vec!["Dockerfile".into()],
                &[Category::Infrastructure],
                "infrastructure change: Dockerfile",
            ),
            (
                |s| analysis(s).database_writes = vec!["seed.sh:2 INSERT INTO users".into()],
                &[Category::Database],
                "database write: seed.sh:2 INSERT INTO users",
            ),
            (
                |s| {
                    s.tests = counts(18, 2);
                    complexity(s, 7)
                },
                &[Category::PassRate, Category::Complexity],
                "complexity 7 > 5 (run.sh:3 main)",
            ),
        ];
        for (edit, categories, reason) in cases {
            let mut signals = good();
            edit(&mut signals);
            let decision = decide(&signals, &Policy::default());
            assert_eq!(decision.tier, Tier::Escalate, "{decision:?}");
            assert_eq!(decision.escalation_categories, *categories, "{decision:?}");
            assert!(
                decision.reasons.iter().any(|r| r == reason),
                "{reason} not in {:?}",
                decision.reasons
            );
        }
    }

    #[test]
    fn the_rollout_modes_soften_all_but_corrections() {
        let mut human = good();
        human.coverage = measured(0.5);
        let mut escalated = good();
        complexity(&mut escalated, 9);
        let mut secret = good();
        analysis(&mut secret).secrets = vec!["run.sh:4 github-token ghp_…".into()];
        let policy = |mode| Policy {
            mode,
            ..Policy::default()
        };

        let warned = decide(&human, &policy(Mode::Warn));
        assert_eq!(
            (warned.tier, warned.decision),
            (Tier::Auto, Verdict::Approved)
        );
        assert_eq!(
            warned.reasons[0],
            "policy mode warn: approved with warnings; enforced, this would need a maintainer"
        );
        assert!(
            warned
                .reasons
                .contains(&"coverage 0.50 < 0.80 (measured, lcov)".to_owned())
        );
        assert_eq!(
            decide(&escalated, &policy(Mode::Warn)).reasons[0],
            "policy mode warn: approved with warnings; enforced, this would need an expert"
        );

        let softened = decide(&human, &policy(Mode::Escalate));
        assert_eq!(softened.tier, Tier::Escalate);
        assert_eq!(softened.escalation_categories[0], Category::Rollout);
        assert_eq!(softened.softened_from, Some(Tier::Human));
        assert_eq!(
            decide(&escalated, &policy(Mode::Warn)).softened_from,
            Some(Tier::Escalate)
        );
        let kept = decide(&escalated, &policy(Mode::Escalate));
        assert_eq!(kept.escalation_categories, [Category::Complexity]);
        assert_eq!(kept.reasons[0], "complexity 9 > 5 (run.sh:3 main)");

        for mode in [Mode::Warn, Mode::Escalate, Mode::Enforce] {
            let decision = decide(&secret, &policy(mode));
            assert_eq!(decision.decision, Verdict::NeedsCorrection, "{mode:?}");
        }
        let enforced = decide(&human, &policy(Mode::Enforce));
        assert_eq!(enforced.tier, Tier::Human);
        assert_eq!(enforced.softened_from, None);
        // What the author declared is never softened.
        let mut declared = human.clone();
        declared.declared_approval_level = Some(Tier::Human);
        assert_eq!(decide(&declared, &policy(Mode::Warn)).tier, Tier::Human);
        assert_eq!(decide(&declared, &policy(Mode::Escalate)).tier, Tier::Human);
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
                "no hardcoded secrets",
                "no breaking change",
                "20 tests ran",
                "the suite ended normally",
                "test results read from a report or the output",
                "pass rate 1.00 (20/20) ≥ 0.95",
                "coverage 0.97 ≥ 0.95 (measured, lcov)",
                "complexity 3 ≤ 5",
                "no external dependencies",
                "no security-sensitive code",
                "no infrastructure change",
                "no database write",
                "every file analysed"
            ]
        );
    }

    /// What `decide` lists for `signals` under the default policy.
    fn reasons_of(signals: &Signals) -> Vec<String> {
        decide(signals, &Policy::default()).reasons
    }

    #[test]
    fn no_reason_restates_another() {
        // No suite: coverage is unknown because nothing ran, which "no test suite" says.
        let mut none = good();
        none.suite = SuiteSignal::Missing;
        none.tests = None;
        none.coverage = CoverageSignal::Unknown;
        let decision = decide(&none, &Policy::default());
        assert_eq!(decision.reasons, ["no test suite"]);
        assert_eq!(decision.tier, Tier::Human);
        // The check is kept: the criteria say what the reasons leave out.
        assert!(!decision.criteria["test_coverage"].passed);

        let mut unavailable = none.clone();
        unavailable.suite = SuiteSignal::Unavailable {
            reason: "`pytest` is not installed".into(),
        };
        assert_eq!(
            reasons_of(&unavailable),
            ["test suite could not run: `pytest` is not installed"]
        );
        let mut unverified = none.clone();
        unverified.suite = SuiteSignal::Unverified {
            reason: "the results document tested other files".into(),
        };
        assert_eq!(
            reasons_of(&unverified),
            ["the results document tested other files"]
        );

        // Only the exit code spoke: its one failed case is the whole pass rate. The reason
        // that explains it stands first, for the tier it explains (human, not escalate).
        let mut exit = good();
        exit.tests = counts(0, 1);
        exit.results_unread = Some("no test results could be read (exit code 1 only)".into());
        let decision = decide(&exit, &Policy::default());
        assert_eq!(decision.tier, Tier::Human);
        assert_eq!(
            decision.reasons,
            ["no test results could be read (exit code 1 only)"]
        );
        assert!(!decision.criteria["test_pass_rate"].passed);
        exit.coverage = measured(0.85);
        assert_eq!(
            reasons_of(&exit),
            [
                "no test results could be read (exit code 1 only)",
                "coverage 0.85 < 0.95 (measured, lcov)"
            ]
        );

        // Every test skipped, skips counted: the pass rate 0/5 is "no test ran".
        let mut skipped = good();
        skipped.tests = Some(TestCounts {
            passed: 0,
            failed: 0,
            skipped: 5,
        });
        assert_eq!(reasons_of(&skipped), ["no test ran: all 5 were skipped"]);

        // A suite that failed beyond its report adds one failed case: alone, it is the pass
        // rate; with a failure of the suite's own, the pass rate says more.
        let mut exited = good();
        exited.tests = counts(1, 1);
        exited.suite_failure =
            Some("the suite exited with status 3 but reported no failed test".into());
        assert_eq!(
            reasons_of(&exited),
            ["the suite exited with status 3 but reported no failed test"]
        );
        exited.tests = counts(1, 2);
        exited.suite_failure = Some("the suite timed out after 2s".into());
        assert_eq!(
            reasons_of(&exited),
            [
                "the suite timed out after 2s",
                "pass rate 0.33 (1/3) < 0.80"
            ]
        );

        // Coverage unknown for a suite that ran is a fact of its own, and stays.
        let mut ran = good();
        ran.coverage = CoverageSignal::Unknown;
        ran.tests = counts(3, 2);
        assert_eq!(
            reasons_of(&ran),
            [
                "pass rate 0.60 (3/5) < 0.80",
                "coverage unknown: no coverage report was found"
            ]
        );
    }

    #[test]
    fn reasons_explain_only_criteria_that_exist() {
        let keys: Vec<&str> = CRITERIA.iter().map(|c| c.key()).collect();
        let mut none = good();
        none.suite = SuiteSignal::Missing;
        let mut skipped = good();
        skipped.tests = Some(TestCounts {
            passed: 0,
            failed: 0,
            skipped: 2,
        });
        let mut unread = good();
        unread.results_unread = Some("no test results could be read (exit code 1 only)".into());
        let mut failed = good();
        failed.suite_failure = Some("the suite was killed by signal 9".into());
        failed.tests = counts(0, 1);
        let mut explained = 0;
        for signals in [none, skipped, unread, failed] {
            for criterion in CRITERIA {
                let Some(assessment) = criterion.evaluate(&signals, &Policy::default()) else {
                    continue;
                };
                for key in assessment.explains {
                    assert!(keys.contains(key), "{} explains {key}", criterion.key());
                    assert_ne!(*key, criterion.key(), "a reason explains another");
                    explained += 1;
                }
            }
        }
        assert_eq!(explained, 4, "each case has one reason explaining another");
    }

    #[test]
    fn reasons_keep_one_order_in_every_row() {
        // Correction, then a maintainer, then an expert; the registry's order within each,
        // whichever criterion weighs more in a row.
        let mut low_coverage = good();
        low_coverage.coverage = measured(0.70);
        complexity(&mut low_coverage, 8);
        dependencies(&mut low_coverage, 1);
        assert_eq!(
            reasons_of(&low_coverage),
            [
                "coverage 0.70 < 0.80 (measured, lcov)",
                "complexity 8 > 5 (run.sh:3 main)",
                "1 external dependency: api1.vendor.io"
            ]
        );
        let mut complex = good();
        complex.coverage = measured(0.85);
        complexity(&mut complex, 20);
        dependencies(&mut complex, 1);
        assert_eq!(
            reasons_of(&complex),
            [
                "complexity 20 > 15 (run.sh:3 main)",
                "coverage 0.85 < 0.95 (measured, lcov)",
                "1 external dependency: api1.vendor.io"
            ]
        );
        let mut both = complex.clone();
        complexity(&mut both, 8);
        analysis(&mut both).secrets = vec!["run.sh:2 github-token ghp_…".into()];
        both.lint_errors = vec!["SKILL.md:1: no frontmatter".into()];
        assert_eq!(
            reasons_of(&both),
            [
                "invalid SKILL.md: SKILL.md:1: no frontmatter",
                "1 hardcoded secret (remove and rotate): run.sh:2 github-token ghp_…",
                "coverage 0.85 < 0.95 (measured, lcov)",
                "complexity 8 > 5 (run.sh:3 main)",
                "1 external dependency: api1.vendor.io"
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
