//! Who reviews a skill the gate did not approve, by the `[routing]` rules
//! ([`crate::config::Routing`]). An escalation goes to the route of its first category
//! (`coverage`, `risk`, …), else to `escalate`; the human tier goes to `human`.

use crate::config::{Route, Routing};
use crate::gate::SkillResult;
use crate::policy::{Category, Verdict};
use crate::skill::Tier;

pub use crate::skill::Reviewers;

/// The routes of the skills of a gate run.
impl Routing {
    fn category(&self, category: Category) -> Option<&Route> {
        match category {
            Category::Coverage => self.coverage.as_ref(),
            Category::PassRate => self.pass_rate.as_ref(),
            Category::Risk => self.risk.as_ref(),
            Category::Complexity => self.complexity.as_ref(),
            Category::Dependencies => self.dependencies.as_ref(),
            Category::Infrastructure => self.infrastructure.as_ref(),
            Category::Database => self.database.as_ref(),
            Category::Declared => self.declared.as_ref(),
            Category::Rollout => self.rollout.as_ref(),
            Category::Unanalysed => self.unanalysed.as_ref(),
            Category::TestResults => self.test_results.as_ref(),
            Category::CategoryChange => self.category_change.as_ref(),
            Category::CategoryLevel => self.category_level.as_ref(),
        }
    }

    /// The route for one skill's decision; `None` for an approval.
    pub fn route(&self, skill: &SkillResult) -> Option<&Route> {
        let decision = &skill.decision;
        if decision.decision == Verdict::Approved {
            return None;
        }
        match decision.tier {
            Tier::Auto => None,
            Tier::Human => self.human.as_ref(),
            Tier::Escalate => decision
                .escalation_categories
                .first()
                .and_then(|c| self.category(*c))
                .or(self.escalate.as_ref()),
        }
    }

    /// Who to ask for these skills; never `author` (GitHub refuses to ask authors to review
    /// their own pull request).
    pub fn reviewers<'a>(
        &self,
        skills: impl IntoIterator<Item = &'a SkillResult>,
        author: Option<&str>,
    ) -> Reviewers {
        let mut out = Reviewers::default();
        for skill in skills {
            let Some(route) = self.route(skill) else {
                continue;
            };
            for user in &route.users {
                let is_author = author.is_some_and(|a| a.eq_ignore_ascii_case(user));
                if !is_author && !out.users.iter().any(|u| u.eq_ignore_ascii_case(user)) {
                    out.users.push(user.clone());
                }
            }
            for team in &route.teams {
                let slug = team.split_once('/').map_or(team.as_str(), |(_, s)| s);
                if !out.teams.iter().any(|t| t.eq_ignore_ascii_case(slug)) {
                    out.teams.push(slug.to_owned());
                }
            }
        }
        out
    }
}
