//! Category templates (the `approval_criteria_templates` table): the thresholds of a category,
//! between the built-in defaults and `[policy.categories.NAME]` in the config.
//!
//! Layering, for a skill of category `backend`: the defaults and `[policy]` of the config, then
//! the latest `backend` template's criteria, then `[policy.categories.backend]`.
//!
//! What a template's `criteria_json` sets (other keys are kept for people and ignored here):
//! - `unit_test_pass_rate`: `{"min": 0.95}` or `0.95`, the required pass rate;
//! - `coverage`: `{"min": 0.90}` or `0.90`, the least coverage for auto;
//! - `risk_score`: `{"max": 0.30}` or `0.30`, the highest risk for auto;
//! - `cyclomatic_complexity`: `{"max": 10}`, `10`, or the seed's `low` / `medium` / `high`
//!   (≤ 5, ≤ 15, and up to the human threshold, which still applies), the highest for auto;
//! - `external_dependencies`: `{"max": 0}` or `0`, the most for auto.
//!
//! Its `approval_level` is the best tier a skill of the category can get.

use serde_json::Value;

use super::Policy;
use crate::config::{CategoryAuto, CategoryPolicy, HumanThresholds};
use crate::skill::Tier;

/// A template read from the database, its criteria turned into a category policy.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryTemplate {
    pub name: String,
    pub category: String,
    pub policy: CategoryPolicy,
}

impl CategoryTemplate {
    /// Read one row. The error says what is wrong, for a message that names the template.
    pub fn parse(
        name: &str,
        category: &str,
        approval_level: &str,
        criteria_json: &str,
    ) -> Result<Self, String> {
        let level = Tier::parse(approval_level).ok_or_else(|| {
            format!("approval_level must be auto, escalate or human, not {approval_level:?}")
        })?;
        let criteria: Value = serde_json::from_str(criteria_json)
            .map_err(|err| format!("criteria_json is not JSON: {err}"))?;
        let Value::Object(criteria) = criteria else {
            return Err("criteria_json must be a JSON object of criteria".to_owned());
        };
        let fraction = |key: &str, bound: &str| -> Result<Option<f64>, String> {
            let Some(value) = bounded(&criteria, key, bound)? else {
                return Ok(None);
            };
            match value.as_f64() {
                Some(n) if (0.0..=1.0).contains(&n) => Ok(Some(n)),
                _ => Err(format!(
                    "criteria_json `{key}`: {bound} must be a number between 0.0 and 1.0, not {value}"
                )),
            }
        };
        let count = |key: &str| -> Result<Option<u32>, String> {
            let Some(value) = bounded(&criteria, key, "max")? else {
                return Ok(None);
            };
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    format!("criteria_json `{key}`: max must be a whole number, not {value}")
                })
        };
        let complexity = match bounded(&criteria, "cyclomatic_complexity", "max")? {
            Some(Value::String(level)) => Some(match level.to_ascii_lowercase().as_str() {
                "low" => 5,
                "medium" => 15,
                "high" => HumanThresholds::default().complexity,
                _ => {
                    return Err(format!(
                        "criteria_json `cyclomatic_complexity`: low, medium, high or a number, \
                         not {level:?}"
                    ));
                }
            }),
            Some(_) => count("cyclomatic_complexity")?,
            None => None,
        };
        Ok(Self {
            name: name.to_owned(),
            category: category.to_owned(),
            policy: CategoryPolicy {
                mode: None,
                approval_level: Some(level),
                required_test_pass_rate: fraction("unit_test_pass_rate", "min")?,
                auto: CategoryAuto {
                    coverage: fraction("coverage", "min")?,
                    risk: fraction("risk_score", "max")?,
                    complexity,
                    dependencies: count("external_dependencies")?,
                },
                human: Default::default(),
            },
        })
    }
}

/// `criteria[key]` as a bare value or the `bound` (`min` / `max`) of an object; `None` when the
/// template does not set it.
fn bounded<'v>(
    criteria: &'v serde_json::Map<String, Value>,
    key: &str,
    bound: &str,
) -> Result<Option<&'v Value>, String> {
    match criteria.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(inner)) => match inner.get(bound) {
            Some(value) => Ok(Some(value)),
            None => Err(format!("criteria_json `{key}` has no `{bound}`")),
        },
        Some(value) => Ok(Some(value)),
    }
}

/// The template for a skill's category (compared without case); the first of `templates` that
/// matches, so the caller orders them newest first.
pub fn for_category<'t>(
    templates: &'t [CategoryTemplate],
    category: Option<&str>,
) -> Option<&'t CategoryTemplate> {
    let category = category?.trim();
    templates
        .iter()
        .find(|t| t.category.trim().eq_ignore_ascii_case(category))
}

/// The policy of a skill of `category`: the config's `[policy]`, the category's newest
/// template, then its `[policy.categories.NAME]` (the layering above).
pub fn category_policy(
    configured: &Policy,
    templates: &[CategoryTemplate],
    category: Option<&str>,
) -> Policy {
    let template = for_category(templates, category).map(|t| (t.name.as_str(), &t.policy));
    configured.for_category_over(category, template)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKEND: &str = r#"{
"unit_test_pass_rate": {"min": 0.95, "framework": "jest"},
"coverage": {"min": 0.90, "type": "statement"},
"risk_score": {"max": 0.30},
"cyclomatic_complexity": {"max": 10},
"security_review_required": false,
"integration_tests": {"min": 0.85}
}"#;

    #[test]
    fn the_seeds_backend_template_sets_its_thresholds() {
        let t = CategoryTemplate::parse("Backend", "backend", "auto", BACKEND).expect("valid");
        assert_eq!(t.policy.approval_level, Some(Tier::Auto));
        assert_eq!(t.policy.required_test_pass_rate, Some(0.95));
        assert_eq!(t.policy.auto.coverage, Some(0.90));
        assert_eq!(t.policy.auto.risk, Some(0.30));
        assert_eq!(t.policy.auto.complexity, Some(10));
        assert_eq!(t.policy.auto.dependencies, None);
        assert_eq!(t.policy.mode, None);
    }

    #[test]
    fn bare_numbers_and_complexity_levels() {
        let t = CategoryTemplate::parse(
            "x",
            "x",
            "escalate",
            r#"{"coverage": 0.85, "cyclomatic_complexity": "low", "external_dependencies": 2}"#,
        )
        .expect("valid");
        assert_eq!(t.policy.approval_level, Some(Tier::Escalate));
        assert_eq!(t.policy.auto.coverage, Some(0.85));
        assert_eq!(t.policy.auto.complexity, Some(5));
        assert_eq!(t.policy.auto.dependencies, Some(2));
        let level = |l: &str| {
            CategoryTemplate::parse(
                "x",
                "x",
                "auto",
                &format!(r#"{{"cyclomatic_complexity": "{l}"}}"#),
            )
            .map(|t| t.policy.auto.complexity)
        };
        assert_eq!(level("medium"), Ok(Some(15)));
        assert_eq!(level("HIGH"), Ok(Some(15)));
    }

    #[test]
    fn bad_criteria_say_what_is_wrong() {
        let err = |level: &str, json: &str| {
            CategoryTemplate::parse("x", "x", level, json).expect_err("invalid")
        };
        assert!(
            err("auto", "{coverage: 1}")
                .starts_with("criteria_json is not JSON: key must be a string")
        );
        assert_eq!(
            err("auto", "[1]"),
            "criteria_json must be a JSON object of criteria"
        );
        assert_eq!(
            err("auto", r#"{"coverage": {"min": 1.5}}"#),
            "criteria_json `coverage`: min must be a number between 0.0 and 1.0, not 1.5"
        );
        assert_eq!(
            err("auto", r#"{"risk_score": {"min": 0.2}}"#),
            "criteria_json `risk_score` has no `max`"
        );
        assert_eq!(
            err("auto", r#"{"cyclomatic_complexity": -3}"#),
            "criteria_json `cyclomatic_complexity`: max must be a whole number, not -3"
        );
        assert_eq!(
            err("auto", r#"{"cyclomatic_complexity": "tiny"}"#),
            "criteria_json `cyclomatic_complexity`: low, medium, high or a number, not \"tiny\""
        );
        assert_eq!(
            err("sometimes", "{}"),
            "approval_level must be auto, escalate or human, not \"sometimes\""
        );
    }

    #[test]
    fn a_category_policy_is_the_config_then_the_template_then_the_category() {
        let config = crate::config::Config::parse(
            "[policy]\nrequired-test-pass-rate = 0.9\n\n\
             [policy.categories.backend]\nauto = { coverage = 0.93 }\n",
            std::path::Path::new(".skillgate.toml"),
        )
        .expect("valid");
        let templates =
            [CategoryTemplate::parse("Backend", "backend", "auto", BACKEND).expect("valid")];
        let backend = category_policy(&config.policy, &templates, Some("Backend"));
        assert_eq!(backend.required_test_pass_rate, 0.95, "the template's");
        assert_eq!(backend.auto.coverage, 0.93, "the config's category");
        assert_eq!(backend.auto.complexity, 10, "the template's");
        assert_eq!(
            backend.approval_level,
            Some((Tier::Auto, "template Backend".to_owned()))
        );
        let other = category_policy(&config.policy, &templates, Some("docs"));
        assert_eq!(other, config.policy.for_category(None));
        assert_eq!(other.required_test_pass_rate, 0.9);
    }

    #[test]
    fn the_template_of_a_category_is_the_first_that_matches() {
        let t = |name: &str, category: &str| CategoryTemplate {
            name: name.to_owned(),
            category: category.to_owned(),
            policy: CategoryPolicy::default(),
        };
        let templates = [
            t("newer", "backend"),
            t("older", "backend"),
            t("fe", "frontend"),
        ];
        assert_eq!(
            for_category(&templates, Some("Backend")).map(|t| t.name.as_str()),
            Some("newer")
        );
        assert_eq!(for_category(&templates, Some("testing")), None);
        assert_eq!(for_category(&templates, None), None);
    }
}
