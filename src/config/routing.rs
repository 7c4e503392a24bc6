//! `[routing]`: who reviews a skill the gate did not approve, per escalation category, for any
//! escalation and for the human tier; who may approve any skill; and how many approvals it needs.

use serde::Deserialize;

use crate::skill::Tier;

/// Users and teams asked to review, and how many approvals a skill needs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Route {
    /// GitHub logins.
    pub users: Vec<String>,
    /// `org/team-slug`.
    pub teams: Vec<String>,
    /// Approvals needed before the skill counts as reviewed.
    pub approvals: u32,
}

impl Default for Route {
    fn default() -> Self {
        Self {
            users: Vec::new(),
            teams: Vec::new(),
            approvals: 1,
        }
    }
}

/// One optional route per escalation category, one for any escalation, one for the human tier.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Routing {
    pub coverage: Option<Route>,
    pub pass_rate: Option<Route>,
    pub risk: Option<Route>,
    pub complexity: Option<Route>,
    pub dependencies: Option<Route>,
    pub infrastructure: Option<Route>,
    pub database: Option<Route>,
    pub declared: Option<Route>,
    pub rollout: Option<Route>,
    pub unanalysed: Option<Route>,
    /// A suite whose results could not be read (its exit code alone).
    pub test_results: Option<Route>,
    /// A skill that changed its `category`.
    pub category_change: Option<Route>,
    /// A category whose template or config allows no better than escalate.
    pub category_level: Option<Route>,
    /// Any escalation whose category has no route of its own.
    pub escalate: Option<Route>,
    /// The human tier (and skills that need correction, once corrected).
    pub human: Option<Route>,
    /// Logins whose approval counts for any skill, routed to them or not.
    pub reviewers: Vec<String>,
}

impl Routing {
    /// The route of a pending decision: by its first escalation category, else `escalate`; the
    /// human tier by `human`.
    pub fn route_for(&self, tier: Tier, categories: &[String]) -> Option<&Route> {
        match tier {
            Tier::Auto => None,
            Tier::Human => self.human.as_ref(),
            Tier::Escalate => categories
                .first()
                .and_then(|c| {
                    self.entries()
                        .into_iter()
                        .find(|(key, _)| key == c)
                        .map(|(_, r)| r)
                })
                .or(self.escalate.as_ref()),
        }
    }

    /// Whether `login`'s review counts for a decision of this tier and these categories: a
    /// user of its route, or one of `reviewers`. Teams cannot be told from a login here.
    pub fn is_eligible(&self, login: &str, tier: Tier, categories: &[String]) -> bool {
        let same = |u: &String| u.eq_ignore_ascii_case(login);
        self.reviewers.iter().any(same)
            || self
                .route_for(tier, categories)
                .is_some_and(|r| r.users.iter().any(same))
    }

    /// Approvals a decision of this tier and these categories needs (1 without a route).
    pub fn required(&self, tier: Tier, categories: &[String]) -> u32 {
        self.route_for(tier, categories).map_or(1, |r| r.approvals)
    }

    /// Every route with its key, for validation.
    pub fn entries(&self) -> Vec<(&'static str, &Route)> {
        [
            ("coverage", &self.coverage),
            ("pass-rate", &self.pass_rate),
            ("risk", &self.risk),
            ("complexity", &self.complexity),
            ("dependencies", &self.dependencies),
            ("infrastructure", &self.infrastructure),
            ("database", &self.database),
            ("declared", &self.declared),
            ("rollout", &self.rollout),
            ("unanalysed", &self.unanalysed),
            ("test-results", &self.test_results),
            ("category-change", &self.category_change),
            ("category-level", &self.category_level),
            ("escalate", &self.escalate),
            ("human", &self.human),
        ]
        .into_iter()
        .filter_map(|(key, route)| route.as_ref().map(|r| (key, r)))
        .collect()
    }

    /// A message for the first malformed login or team.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if let Some(user) = self.reviewers.iter().find(|u| !is_login(u)) {
            return Some(("reviewers", format!("`{user}` is not a GitHub login")));
        }
        for (key, route) in self.entries() {
            for user in &route.users {
                if !is_login(user) {
                    return Some((key, format!("`{user}` is not a GitHub login")));
                }
            }
            for team in &route.teams {
                let valid = team
                    .split_once('/')
                    .is_some_and(|(org, slug)| is_login(org) && is_slug(slug));
                if !valid {
                    return Some((
                        key,
                        format!("`{team}` is not a team; write it as `org/team-slug`"),
                    ));
                }
            }
            if route.approvals == 0 {
                return Some((key, "`approvals` must be at least 1".to_owned()));
            }
        }
        None
    }
}

/// A GitHub login: 1–39 letters, digits and single hyphens, not at either end.
pub fn is_login(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 39
        && !text.starts_with('-')
        && !text.ends_with('-')
        && !text.contains("--")
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn is_slug(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 100
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_and_teams_are_checked() {
        assert!(is_login("octo-cat"));
        assert!(is_login("a1"));
        for bad in ["", "-a", "a-", "a--b", "a b", "a@b", &"x".repeat(40)] {
            assert!(!is_login(bad), "{bad}");
        }
        let routing = Routing {
            infrastructure: Some(Route {
                teams: vec!["infra".to_owned()],
                ..Route::default()
            }),
            ..Routing::default()
        };
        assert_eq!(
            routing.problem(),
            Some((
                "infrastructure",
                "`infra` is not a team; write it as `org/team-slug`".to_owned()
            ))
        );
    }
}
