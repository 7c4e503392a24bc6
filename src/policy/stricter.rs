//! What a pull request says about a skill can only raise its bar: the skill's own declarations
//! tighten the policy and never loosen it, and a category it gives itself (a new skill, or a
//! changed `category`) is judged under the stricter of the policy it had and the one it asks for.

use std::cmp::Ordering;

use super::Policy;
use super::template::{self, CategoryTemplate};
use crate::config::{Mode, SelfReported, SkipHandling};
use crate::signals::CoverageSignal;

/// What the base knew of a skill's `category`: the category a pull request cannot choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseCategory {
    /// Nothing at the base vouches for a category: the skill is new, or its base version could
    /// not be read.
    Unknown,
    /// The skill's category at the base; `None` when it had none.
    Known(Option<String>),
}

impl BaseCategory {
    /// The base's category, when it had one.
    pub fn category(&self) -> Option<&str> {
        match self {
            Self::Known(category) => category.as_deref(),
            Self::Unknown => None,
        }
    }
}

/// The policy a changed skill is judged under. Its category at the head is the pull request's
/// word, so it only tightens: a new skill is judged under the stricter of the default policy and
/// its category's, a changed category under the stricter of the old and the new, an unchanged
/// one under its own.
pub fn policy_for_change(
    configured: &Policy,
    templates: &[CategoryTemplate],
    base: &BaseCategory,
    head: Option<&str>,
) -> Policy {
    let at_head = template::category_policy(configured, templates, head);
    if let BaseCategory::Known(base) = base
        && same_category(base.as_deref(), head)
    {
        return at_head;
    }
    template::category_policy(configured, templates, base.category()).stricter(&at_head)
}

/// Whether a skill weighs as critical in its risk score: when its category at the base or at
/// the head is, so leaving `security` does not lower the risk.
pub fn is_critical(policy: &Policy, base: &BaseCategory, head: Option<&str>) -> bool {
    [base.category(), head].into_iter().flatten().any(|c| {
        policy
            .critical_categories
            .iter()
            .any(|k| k.trim().eq_ignore_ascii_case(c.trim()))
    })
}

/// Categories are compared without case or surrounding spaces, as templates are found.
fn same_category(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.trim().eq_ignore_ascii_case(b.trim()),
        (None, None) => true,
        _ => false,
    }
}

/// The pass rate a skill must reach: its own `required-test-pass-rate` may ask for more than the
/// policy, never for less.
pub fn required_pass_rate(policy: &Policy, declared: Option<f64>) -> f64 {
    // `f64::max` ignores a NaN, so an unreadable declaration leaves the policy's rate.
    declared.map_or(policy.required_test_pass_rate, |declared| {
        policy.required_test_pass_rate.max(declared)
    })
}

/// The coverage the risk score may count: only what was measured. A declared `test-coverage`
/// would lower the score's coverage part (up to its whole weight) on the author's word alone,
/// enough to turn a maintainer's review into an expert's.
pub fn risk_coverage(coverage: &CoverageSignal) -> Option<f64> {
    match coverage {
        CoverageSignal::Measured { ratio, .. } => Some(*ratio),
        CoverageSignal::Declared { .. } | CoverageSignal::Unknown => None,
    }
}

impl Policy {
    /// The stricter of two policies, threshold by threshold: what either demands, both demand.
    ///
    /// - minimums (required and human pass rate, auto and human coverage): the higher;
    /// - maximums (auto and human risk, complexity and dependencies): the lower;
    /// - `skips`: `count` over `exclude` (a skipped failure still lowers the rate);
    /// - `self-reported-tests`: `escalate` over unset (which escalates a fork's) over `trust`;
    /// - `mode`: `enforce` over `escalate` over `warn`;
    /// - the best tier allowed (`approval_level`): the lower cap, with who set it; `self`'s on
    ///   a tie;
    /// - critical categories: both lists (a category critical in either is critical);
    /// - risk weights and `[policy.categories]`: `self`'s. Only `[policy]` sets them, never a
    ///   category or a template, so two policies of one config share them; and weights that add
    ///   up to 1 have no stricter mix (raising one lowers another).
    ///
    /// `auto` stays at least as strict as `human` when both policies keep it so.
    pub fn stricter(&self, other: &Policy) -> Policy {
        let (a, b) = (&self.auto, &other.auto);
        let (h, g) = (&self.human, &other.human);
        let mut critical = self.critical_categories.clone();
        for category in &other.critical_categories {
            if !critical.iter().any(|c| c.eq_ignore_ascii_case(category)) {
                critical.push(category.clone());
            }
        }
        Policy {
            required_test_pass_rate: self
                .required_test_pass_rate
                .max(other.required_test_pass_rate),
            skips: match (self.skips, other.skips) {
                (SkipHandling::Exclude, SkipHandling::Exclude) => SkipHandling::Exclude,
                _ => SkipHandling::Count,
            },
            self_reported_tests: match (self.self_reported_tests, other.self_reported_tests) {
                (Some(SelfReported::Escalate), _) | (_, Some(SelfReported::Escalate)) => {
                    Some(SelfReported::Escalate)
                }
                // Unset escalates a fork's results: tighter than `trust`.
                (None, _) | (_, None) => None,
                (Some(SelfReported::Trust), Some(SelfReported::Trust)) => Some(SelfReported::Trust),
            },
            mode: if mode_rank(other.mode) > mode_rank(self.mode) {
                other.mode
            } else {
                self.mode
            },
            auto: crate::config::AutoThresholds {
                coverage: a.coverage.max(b.coverage),
                risk: a.risk.min(b.risk),
                complexity: a.complexity.min(b.complexity),
                dependencies: a.dependencies.min(b.dependencies),
            },
            human: crate::config::HumanThresholds {
                coverage: h.coverage.max(g.coverage),
                pass_rate: h.pass_rate.max(g.pass_rate),
                risk: h.risk.min(g.risk),
                complexity: h.complexity.min(g.complexity),
                dependencies: h.dependencies.min(g.dependencies),
            },
            risk_weights: self.risk_weights.clone(),
            critical_categories: critical,
            categories: self.categories.clone(),
            approval_level: match (&self.approval_level, &other.approval_level) {
                (Some((mine, _)), Some((theirs, _))) if theirs.cmp(mine) == Ordering::Greater => {
                    other.approval_level.clone()
                }
                (None, Some(_)) => other.approval_level.clone(),
                _ => self.approval_level.clone(),
            },
        }
    }
}

/// How much of the tables a rollout mode applies.
fn mode_rank(mode: Mode) -> u8 {
    match mode {
        Mode::Warn => 0,
        Mode::Escalate => 1,
        Mode::Enforce => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CategoryAuto, CategoryHuman, CategoryPolicy, Config};
    use crate::skill::Tier;

    fn config(toml: &str) -> Config {
        Config::parse(toml, std::path::Path::new(".skillgate.toml")).expect("valid config")
    }

    fn template(category: &str, policy: CategoryPolicy) -> CategoryTemplate {
        CategoryTemplate {
            name: format!("{category} template"),
            category: category.to_owned(),
            policy,
        }
    }

    /// The default policy with one field changed.
    fn with(change: impl FnOnce(&mut Policy)) -> Policy {
        let mut policy = Policy::default();
        change(&mut policy);
        policy
    }

    /// `stricter` both ways round gives the same `field`, and it is `expected`.
    fn both_ways<T: PartialEq + std::fmt::Debug>(
        a: &Policy,
        b: &Policy,
        field: impl Fn(&Policy) -> T,
        expected: T,
    ) {
        assert_eq!(field(&a.stricter(b)), expected, "a.stricter(b)");
        assert_eq!(field(&b.stricter(a)), expected, "b.stricter(a)");
    }

    #[test]
    fn minimums_take_the_higher() {
        let low = with(|p| {
            p.required_test_pass_rate = 0.80;
            p.auto.coverage = 0.90;
            p.human.coverage = 0.70;
            p.human.pass_rate = 0.60;
        });
        let high = with(|p| {
            p.required_test_pass_rate = 0.99;
            p.auto.coverage = 0.97;
            p.human.coverage = 0.85;
            p.human.pass_rate = 0.90;
        });
        both_ways(&low, &high, |p| p.required_test_pass_rate, 0.99);
        both_ways(&low, &high, |p| p.auto.coverage, 0.97);
        both_ways(&low, &high, |p| p.human.coverage, 0.85);
        both_ways(&low, &high, |p| p.human.pass_rate, 0.90);
    }

    #[test]
    fn maximums_take_the_lower() {
        let tight = with(|p| {
            p.auto.risk = 0.20;
            p.auto.complexity = 3;
            p.auto.dependencies = 0;
            p.human.risk = 0.50;
            p.human.complexity = 10;
            p.human.dependencies = 1;
        });
        let loose = with(|p| {
            p.auto.risk = 0.40;
            p.auto.complexity = 12;
            p.auto.dependencies = 2;
            p.human.risk = 0.80;
            p.human.complexity = 25;
            p.human.dependencies = 6;
        });
        both_ways(&tight, &loose, |p| p.auto.risk, 0.20);
        both_ways(&tight, &loose, |p| p.auto.complexity, 3);
        both_ways(&tight, &loose, |p| p.auto.dependencies, 0);
        both_ways(&tight, &loose, |p| p.human.risk, 0.50);
        both_ways(&tight, &loose, |p| p.human.complexity, 10);
        both_ways(&tight, &loose, |p| p.human.dependencies, 1);
    }

    #[test]
    fn thresholds_mix_field_by_field() {
        // Neither policy is the stricter as a whole: each field comes from the one that has it.
        let a = with(|p| {
            p.auto.coverage = 0.99;
            p.auto.risk = 0.50;
        });
        let b = with(|p| {
            p.auto.coverage = 0.90;
            p.auto.risk = 0.10;
        });
        let both = a.stricter(&b);
        assert_eq!((both.auto.coverage, both.auto.risk), (0.99, 0.10));
    }

    #[test]
    fn skips_count_unless_both_exclude() {
        let count = with(|p| p.skips = SkipHandling::Count);
        let exclude = with(|p| p.skips = SkipHandling::Exclude);
        both_ways(&count, &exclude, |p| p.skips, SkipHandling::Count);
        both_ways(&exclude, &exclude, |p| p.skips, SkipHandling::Exclude);
    }

    #[test]
    fn self_reported_tests_escalate_over_unset_over_trust() {
        let trust = with(|p| p.self_reported_tests = Some(SelfReported::Trust));
        let escalate = with(|p| p.self_reported_tests = Some(SelfReported::Escalate));
        let unset = Policy::default();
        let field = |p: &Policy| p.self_reported_tests;
        both_ways(&trust, &escalate, field, Some(SelfReported::Escalate));
        both_ways(&unset, &escalate, field, Some(SelfReported::Escalate));
        both_ways(&unset, &trust, field, None);
        both_ways(&trust, &trust, field, Some(SelfReported::Trust));
    }

    #[test]
    fn the_mode_that_applies_more_of_the_tables() {
        let mode = |m| with(|p| p.mode = m);
        both_ways(
            &mode(Mode::Warn),
            &mode(Mode::Escalate),
            |p| p.mode,
            Mode::Escalate,
        );
        both_ways(
            &mode(Mode::Warn),
            &mode(Mode::Enforce),
            |p| p.mode,
            Mode::Enforce,
        );
        both_ways(
            &mode(Mode::Escalate),
            &mode(Mode::Enforce),
            |p| p.mode,
            Mode::Enforce,
        );
        both_ways(&mode(Mode::Warn), &mode(Mode::Warn), |p| p.mode, Mode::Warn);
    }

    #[test]
    fn the_lower_tier_cap_with_who_set_it() {
        let cap = |tier: Option<Tier>, who: &str| {
            with(|p| p.approval_level = tier.map(|t| (t, who.to_owned())))
        };
        let level = |p: &Policy| p.approval_level.clone();
        let human = Some((Tier::Human, "template Ops".to_owned()));
        let escalate = Some((Tier::Escalate, "[policy.categories.ui]".to_owned()));
        both_ways(
            &cap(None, ""),
            &cap(Some(Tier::Escalate), "[policy.categories.ui]"),
            level,
            escalate.clone(),
        );
        both_ways(
            &cap(Some(Tier::Human), "template Ops"),
            &cap(Some(Tier::Escalate), "[policy.categories.ui]"),
            level,
            human,
        );
        // `auto` caps nothing, but who said so is kept.
        both_ways(
            &cap(Some(Tier::Auto), "template Docs"),
            &cap(Some(Tier::Escalate), "[policy.categories.ui]"),
            level,
            escalate,
        );
        both_ways(&cap(None, ""), &cap(None, ""), level, None);
        // A tie keeps the receiver's source.
        let a = cap(Some(Tier::Escalate), "template A");
        let b = cap(Some(Tier::Escalate), "template B");
        assert_eq!(
            a.stricter(&b).approval_level,
            Some((Tier::Escalate, "template A".to_owned()))
        );
    }

    #[test]
    fn critical_categories_are_both_lists() {
        let a = with(|p| p.critical_categories = vec!["security".into(), "auth".into()]);
        let b = with(|p| p.critical_categories = vec!["Auth".into(), "billing".into()]);
        assert_eq!(
            a.stricter(&b).critical_categories,
            vec!["security", "auth", "billing"]
        );
    }

    #[test]
    fn weights_and_categories_are_the_receivers() {
        let config = config(
            "[policy.risk-weights]\nsecurity = 0.5\ncomplexity = 0.2\ncoverage = 0.1\n\
             dependencies = 0.1\ncriticality = 0.1\n\n[policy.categories.docs]\nmode = \"warn\"\n",
        );
        let both = config.policy.stricter(&Policy::default());
        assert_eq!(both.risk_weights, config.policy.risk_weights);
        assert_eq!(both.categories, config.policy.categories);
    }

    #[test]
    fn a_policy_is_its_own_stricter() {
        let config = config("[policy]\nrequired-test-pass-rate = 0.9\nmode = \"escalate\"\n");
        assert_eq!(config.policy.stricter(&config.policy), config.policy);
    }

    /// A looser `docs` and a tighter `security`, one from a template and one from the config.
    fn categorised() -> (Policy, Vec<CategoryTemplate>) {
        let config = config(
            "[policy.categories.security]\nrequired-test-pass-rate = 1.0\n\
             auto = { coverage = 0.98, risk = 0.20 }\n",
        );
        let docs = template(
            "docs",
            CategoryPolicy {
                mode: Some(Mode::Warn),
                approval_level: Some(Tier::Auto),
                required_test_pass_rate: Some(0.50),
                auto: CategoryAuto {
                    coverage: Some(0.85),
                    risk: Some(0.55),
                    complexity: Some(15),
                    dependencies: Some(3),
                },
                human: CategoryHuman {
                    coverage: Some(0.10),
                    pass_rate: Some(0.10),
                    ..CategoryHuman::default()
                },
            },
        );
        let frontend = template(
            "frontend",
            CategoryPolicy {
                approval_level: Some(Tier::Escalate),
                ..CategoryPolicy::default()
            },
        );
        (config.policy, vec![docs, frontend])
    }

    #[test]
    fn a_new_skill_cannot_declare_a_looser_category() {
        let (configured, templates) = categorised();
        let new_docs = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Unknown,
            Some("docs"),
        );
        let default = template::category_policy(&configured, &templates, None);
        assert_eq!(new_docs.required_test_pass_rate, 0.95);
        assert_eq!(new_docs.mode, Mode::Enforce);
        assert_eq!(new_docs.auto, default.auto);
        assert_eq!(new_docs.human, default.human);
        assert_eq!(
            new_docs.approval_level,
            Some((Tier::Auto, "template docs template".to_owned()))
        );
        // The same skill, already `docs` at the base, keeps its category's policy.
        let old_docs = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Known(Some("Docs".to_owned())),
            Some("docs"),
        );
        assert_eq!(old_docs.required_test_pass_rate, 0.50);
        assert_eq!(old_docs.mode, Mode::Warn);
    }

    #[test]
    fn a_new_skill_declaring_a_tighter_category_gets_it() {
        let (configured, templates) = categorised();
        let new_security = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Unknown,
            Some("security"),
        );
        assert_eq!(new_security.required_test_pass_rate, 1.0);
        assert_eq!(new_security.auto.coverage, 0.98);
        assert_eq!(new_security.auto.risk, 0.20);
        let new_frontend = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Unknown,
            Some("frontend"),
        );
        assert_eq!(
            new_frontend.approval_level,
            Some((Tier::Escalate, "template frontend template".to_owned()))
        );
        // No category: the default policy, as before.
        assert_eq!(
            policy_for_change(&configured, &templates, &BaseCategory::Unknown, None),
            template::category_policy(&configured, &templates, None)
        );
    }

    #[test]
    fn a_category_change_keeps_the_stricter_of_old_and_new() {
        let (configured, templates) = categorised();
        let security = template::category_policy(&configured, &templates, Some("security"));
        let to_docs = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Known(Some("security".to_owned())),
            Some("docs"),
        );
        let to_security = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Known(Some("docs".to_owned())),
            Some("security"),
        );
        for (name, policy) in [
            ("security → docs", &to_docs),
            ("docs → security", &to_security),
        ] {
            assert_eq!(policy.required_test_pass_rate, 1.0, "{name}");
            assert_eq!(policy.auto, security.auto, "{name}");
            assert_eq!(policy.human, security.human, "{name}");
            assert_eq!(policy.mode, Mode::Enforce, "{name}");
        }
        // Leaving a category for none is a change too.
        let to_none = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Known(Some("security".to_owned())),
            None,
        );
        assert_eq!(to_none.required_test_pass_rate, 1.0);
        let from_none = policy_for_change(
            &configured,
            &templates,
            &BaseCategory::Known(None),
            Some("docs"),
        );
        assert_eq!(from_none.required_test_pass_rate, 0.95);
        assert_eq!(from_none.mode, Mode::Enforce);
    }

    #[test]
    fn critical_when_either_category_is() {
        let policy = Policy::default();
        let known = |c: &str| BaseCategory::Known(Some(c.to_owned()));
        assert!(is_critical(&policy, &known("security"), Some("docs")));
        assert!(is_critical(&policy, &known("docs"), Some(" Security ")));
        assert!(is_critical(&policy, &BaseCategory::Unknown, Some("auth")));
        assert!(!is_critical(&policy, &known("docs"), Some("testing")));
        assert!(!is_critical(&policy, &BaseCategory::Known(None), None));
        assert!(!is_critical(&policy, &BaseCategory::Unknown, None));
    }

    #[test]
    fn a_declared_pass_rate_only_raises_the_bar() {
        let policy = Policy::default();
        assert_eq!(required_pass_rate(&policy, None), 0.95);
        assert_eq!(required_pass_rate(&policy, Some(0.80)), 0.95);
        assert_eq!(required_pass_rate(&policy, Some(0.0)), 0.95);
        assert_eq!(required_pass_rate(&policy, Some(0.99)), 0.99);
        assert_eq!(required_pass_rate(&policy, Some(f64::NAN)), 0.95);
    }

    #[test]
    fn declared_coverage_never_lowers_the_risk() {
        assert_eq!(
            risk_coverage(&CoverageSignal::Measured {
                ratio: 0.9,
                format: "lcov".to_owned()
            }),
            Some(0.9)
        );
        assert_eq!(
            risk_coverage(&CoverageSignal::Declared { ratio: 1.0 }),
            None
        );
        assert_eq!(risk_coverage(&CoverageSignal::Unknown), None);
        // What it is for: secret-handling code of complexity 20 needs a maintainer (0.80 >
        // 0.60), and a declared 100% coverage would have made it an expert's (0.60).
        let inputs = |coverage| crate::analysis::risk::RiskInputs {
            security_sensitive: true,
            complexity: Some(20),
            coverage,
            ..Default::default()
        };
        let weights = crate::config::RiskWeights::default();
        let declared = CoverageSignal::Declared { ratio: 1.0 };
        let honest = crate::analysis::risk::score(&inputs(risk_coverage(&declared)), &weights);
        assert_eq!(honest.score, 0.80);
        let trusting = crate::analysis::risk::score(&inputs(declared.ratio()), &weights);
        assert_eq!(trusting.score, 0.60);
    }
}
