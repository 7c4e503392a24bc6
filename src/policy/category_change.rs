//! A skill's `category` picks its policy (`[policy.categories.NAME]`, mode included), so a change
//! that gives a skill another category must not pick a looser policy for itself: the skill is
//! decided under the stricter of the old and the new category's policies
//! (`policy::stricter::policy_for_change`), and an expert confirms the new category.

use super::Policy;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct CategoryChange;

impl Criterion for CategoryChange {
    fn key(&self) -> &'static str {
        "category_change"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let change = signals.category_change.as_ref()?;
        let from = change.from.as_deref().unwrap_or("(none)");
        let to = change.to.as_deref().unwrap_or("(none)");
        let whose = |category: &Option<String>| match category {
            Some(category) => format!("{category}'s"),
            None => "the default".to_owned(),
        };
        let under = format!(
            "the stricter of {} and {} policies",
            whose(&change.from),
            whose(&change.to)
        );
        Some(Assessment::new(
            from,
            to,
            Demand::Escalate(Category::CategoryChange),
            format!("category changed {from} → {to}; decided under {under}"),
        ))
    }

    /// Whatever else decides the tier, the reviewer should know which policy was applied.
    fn always_listed(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changes::ChangeKind;
    use crate::signals::{CategoryChange as Change, CoverageSignal, SuiteSignal};

    fn reason(from: Option<&str>, to: Option<&str>) -> Option<(Demand, String)> {
        let signals = Signals {
            change: ChangeKind::Modified,
            lint_errors: Vec::new(),
            suite: SuiteSignal::Missing,
            tests: None,
            suite_failure: None,
            results_unread: None,
            self_reported: None,
            coverage_unread: None,
            results_disagree: None,
            coverage: CoverageSignal::Unknown,
            declared_risk: None,
            declared_approval_level: None,
            required_pass_rate: 0.95,
            attempts: 0,
            flaky: Vec::new(),
            analysis: None,
            risk: None,
            breaking: Vec::new(),
            category_change: Change::between(from, to),
            uncovered: None,
            tests_not_run: None,
        };
        CategoryChange
            .evaluate(&signals, &Policy::default())
            .map(|a| (a.demand, a.reason))
    }

    #[test]
    fn a_new_category_escalates_and_names_the_policy_applied() {
        assert_eq!(
            reason(Some("backend"), Some("testing")),
            Some((
                Demand::Escalate(Category::CategoryChange),
                "category changed backend → testing; decided under the stricter of backend's and \
                 testing's policies"
                    .to_owned()
            ))
        );
        assert_eq!(
            reason(None, Some("testing")).map(|r| r.1),
            Some(
                "category changed (none) → testing; decided under the stricter of the default and \
                 testing's policies"
                    .to_owned()
            )
        );
        assert_eq!(
            reason(Some("backend"), None).map(|r| r.1),
            Some(
                "category changed backend → (none); decided under the stricter of backend's and \
                 the default policies"
                    .to_owned()
            )
        );
    }

    #[test]
    fn the_same_category_is_no_change() {
        assert_eq!(reason(Some("backend"), Some("backend")), None);
        assert_eq!(reason(Some("Backend"), Some("backend ")), None);
        assert_eq!(reason(None, None), None);
    }
}
