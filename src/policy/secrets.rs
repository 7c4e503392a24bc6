//! A hardcoded secret blocks until it is removed (and rotated): the skill needs correction. A
//! value that only looks like one where it stands (a test fixture, an example) is a warning:
//! listed with its reason, it changes no tier.

use super::Policy;
use super::criterion::{Assessment, Criterion, Demand};
use super::dependencies::list;
use crate::signals::Signals;

pub struct Secrets;

impl Criterion for Secrets {
    fn key(&self) -> &'static str {
        "hardcoded_secrets"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let analysis = signals.analysis.as_ref()?;
        Some(assess(&analysis.secrets, &analysis.secret_warnings))
    }
}

/// Secrets demand a correction; warnings only add to the reason.
fn assess(found: &[String], warned: &[String]) -> Assessment {
    let mut assessment = if found.is_empty() {
        Assessment::new(0, 0, Demand::Auto, "no hardcoded secrets".to_owned())
    } else {
        let noun = if found.len() == 1 {
            "secret"
        } else {
            "secrets"
        };
        Assessment::new(
            0,
            found.len(),
            Demand::Correction,
            format!(
                "{} hardcoded {noun} (remove and rotate): {}",
                found.len(),
                list(found)
            ),
        )
    };
    if !warned.is_empty() {
        let (noun, verb) = if warned.len() == 1 {
            ("value", "is")
        } else {
            ("values", "are")
        };
        assessment.reason.push_str(&format!(
            "; warning: {} secret-like {noun} {verb} taken for examples, check them: {}",
            warned.len(),
            list(warned)
        ));
    }
    assessment
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assess(secrets: &[&str], warnings: &[&str]) -> Assessment {
        let owned = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        super::assess(&owned(secrets), &owned(warnings))
    }

    #[test]
    fn warnings_are_listed_and_change_no_tier() {
        let only = assess(
            &[],
            &["tests/test_api.py:4 generic-secret q7Rk… (in a test fixture)"],
        );
        assert_eq!(only.demand, Demand::Auto);
        assert!(only.check.passed);
        assert_eq!(
            only.reason,
            "no hardcoded secrets; warning: 1 secret-like value is taken for examples, check \
             them: tests/test_api.py:4 generic-secret q7Rk… (in a test fixture)"
        );
        let both = assess(
            &["run.sh:4 github-token ghp_…"],
            &[
                "SKILL.md:9 generic-secret Pass… (a sample password (words, a sequence, a year))",
                "SKILL.md:12 generic-secret Stro… (`example` on its line)",
            ],
        );
        assert_eq!(both.demand, Demand::Correction);
        assert_eq!(both.check.actual, 1);
        assert_eq!(
            both.reason,
            "1 hardcoded secret (remove and rotate): run.sh:4 github-token ghp_…; warning: 2 \
             secret-like values are taken for examples, check them: SKILL.md:9 generic-secret \
             Pass… (a sample password (words, a sequence, a year)), SKILL.md:12 generic-secret \
             Stro… (`example` on its line)"
        );
        let none = assess(&[], &[]);
        assert_eq!(
            (none.demand, none.reason.as_str()),
            (Demand::Auto, "no hardcoded secrets")
        );
    }
}
