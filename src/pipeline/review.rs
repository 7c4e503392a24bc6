//! `review`, on a `pull_request_review` event: an eligible reviewer's approval (or
//! change request) is recorded for the skills waiting at the pull request's head; once every
//! one has the approvals its tier needs, the check run passes.

use std::fmt::Write;

use std::path::PathBuf;

use crate::audit;
use crate::audit::Reads;
use crate::config::Config;
use crate::error::Error;
use crate::github::publish::{Conclusion, conclude};
use crate::github::reviews::{self, Reviews};
use crate::github::{Repo, Session, Token, outputs};
use crate::render::markdown_text as esc;
use crate::store::{Correction, Pending, Review, ReviewDecision, Store};

use crate::git::short;
use crate::warning::{Warning, WarningKind};

use super::check::now;
use super::deliver::{self, PublishMode, Stage};
use super::scope::open_repo;
use super::trail::open_trail;
use super::trust::trusted_config;

/// What `review` is asked to do.
#[derive(Debug)]
pub struct ReviewRequest {
    /// `--repo`: the checkout the config and the local trail are read from.
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
    pub publish: PublishMode,
    pub token: Option<Token>,
}

/// What `review` recorded: the report for the job summary and stdout, and the warnings for the
/// log.
#[derive(Debug)]
pub struct Reviewed {
    pub report: String,
    pub warnings: Vec<Warning>,
}

/// Record the review of the event, and pass the check run once every waiting skill is
/// approved.
pub fn review(request: &ReviewRequest) -> Result<Reviewed, Error> {
    let repo = open_repo(&request.repo)?;
    let session = Session::from_env(request.token.as_ref().map(Token::expose))?;
    let mut config_warnings = Vec::new();
    let config = trusted_config(
        &repo,
        request.config.as_deref(),
        &session,
        &mut config_warnings,
    )?;
    let event = session
        .event
        .as_ref()
        .filter(|e| e.name == "pull_request_review");
    let (Some(pull), Some(review)) = (
        event.and_then(|e| e.pull.as_ref()),
        event.and_then(|e| e.review.as_ref()),
    ) else {
        return Err(Error::usage(
            format!(
                "review runs on a pull_request_review event, not {}",
                session.event_name().unwrap_or("outside GitHub Actions")
            ),
            Some("run it from a workflow `on: pull_request_review` with GITHUB_EVENT_PATH set"),
        ));
    };
    let repository = session
        .repo
        .as_ref()
        .map(crate::github::Repo::full)
        .unwrap_or_default();
    // A fork's review job has a read-only token: it can record nothing where it lasts.
    let mut plan = deliver::plan(request.publish, &session, Stage::Check)?;
    if pull.is_fork() {
        plan.notes = vec![
            "This review is of a pull request from a fork, and its job's token is read-only: skillgate can neither record it on the audit branch nor update the check run. A maintainer's review of a branch in this repository can.".to_owned(),
        ];
    }
    let mut notes = plan.notes.clone();
    let mut warnings = plan.warnings.clone();
    warnings.extend(config_warnings);
    // Every row of this pull request: no segment whose rows all predate it holds one. A
    // payload that does not say when it was opened reads the whole trail.
    let reads = Reads::for_pull(Some(pull), Reads::All);
    let (mut trail, db_path) = open_trail(
        plan.write,
        &config,
        &session,
        &repo,
        request.db.as_deref(),
        reads,
    )?;
    // The decisions a review approves are read from the trail: only from one that is
    // skillgate's own, as the branch holds it.
    if let Some(trail) = &trail {
        trail.validate()?;
    }
    let mut store = Store::open(&db_path)?;
    let who = format!("@{}", review.reviewer);

    let decision = match review.state.as_str() {
        "approved" => Some(ReviewDecision::Approved),
        "changes_requested" => Some(ReviewDecision::NeedsCorrection),
        // GitHub marks a dismissed review `dismissed`: what it said no longer counts.
        "dismissed" => Some(ReviewDecision::Dismissed),
        other => {
            notes.push(format!(
                "{who}'s review is `{other}`: only an approval or a change request is a decision"
            ));
            None
        }
    };
    // A review without the commit it was given on is of no known head: stale too.
    let stale = review.commit_id.as_deref() != Some(pull.head_sha.as_str());
    if stale {
        notes.push(format!(
            "{who}'s review is of {}, but the pull request is at {}: it changes nothing (review the latest commit)",
            short(review.commit_id.as_deref().unwrap_or_default()),
            short(&pull.head_sha)
        ));
    }
    let submitted = Submitted {
        repository: &repository,
        pull_request: pull.number,
        head: &pull.head_sha,
        reviewer: &review.reviewer,
        body: &review.body,
        // A dismissal happens now, not when the review it withdraws was submitted.
        reviewed_at: review
            .submitted_at
            .clone()
            .filter(|_| review.state != "dismissed")
            .unwrap_or_else(now),
        review_id: review.id.to_string(),
    };
    let own = pull
        .author
        .as_deref()
        .is_some_and(|a| a.eq_ignore_ascii_case(&review.reviewer));
    if own && decision.is_some() {
        notes.push(format!(
            "{who} wrote this pull request: their own review does not count"
        ));
    }
    let decision = decision.filter(|_| !stale && !own);
    let mut recorded = 0;
    if let Some(decision) = decision {
        let outcome = submitted.record(&mut store, decision, &config)?;
        recorded = outcome.recorded;
        notes.extend(outcome.notes);
    }
    drop(store);

    if let (Some(trail), Some(decision)) = (&mut trail, decision) {
        let reapply = |path: &std::path::Path| -> Result<(), Error> {
            submitted.record(&mut Store::open(path)?, decision, &config)?;
            Ok(())
        };
        let message = format!(
            "skillgate: review by {} for #{} at {}",
            review.reviewer,
            pull.number,
            short(&pull.head_sha)
        );
        match trail.commit_with(&message, recorded > 0, &reapply)? {
            Some(Ok(commit)) => {
                warnings.push(Warning::new(
                    WarningKind::Audit,
                    format!(
                        "audit trail committed to {} ({})",
                        trail.branch(),
                        short(&commit)
                    ),
                ));
                warnings.extend(Warning::all(WarningKind::Audit, trail.size_warning()));
            }
            None => {}
            Some(Err(attempts)) => {
                return Err(audit::AuditError::ReviewLost {
                    branch: trail.branch().to_owned(),
                    attempts,
                }
                .into());
            }
        }
    }
    // What is recorded now (after any re-read and re-apply), not what was first read.
    let (mut pending, corrections) = {
        let store = Store::open(&db_path)?;
        (
            store.pending_escalations(&repository, pull.number, &pull.head_sha)?,
            store.corrections_at(&repository, pull.number, &pull.head_sha)?,
        )
    };
    // This review's own approval too: the reviewer may have said otherwise since the event.
    if pending.iter().any(|p| !p.approvers.is_empty()) {
        let listed = match session.repo.as_ref() {
            Some(repo_id) => list_reviews(&session, repo_id, pull.number),
            None => {
                Err("no repository to read them from (GITHUB_REPOSITORY is not set)".to_owned())
            }
        };
        notes.extend(confirm_approvals(
            &mut pending,
            listed.as_ref().map_err(String::as_str),
            &config,
        ));
    }
    let summary = status(&pending, &config);
    let conclusion = if pending.iter().any(|p| !p.changes_requested_by.is_empty()) {
        Some(Conclusion::Failure)
    } else if all_approved(&pending, &corrections, &config) {
        Some(Conclusion::Success)
    } else if decision == Some(ReviewDecision::Dismissed) {
        // A dismissed approval may have been the one that passed the check.
        Some(Conclusion::ActionRequired)
    } else {
        None
    };
    if !corrections.is_empty() {
        let names = names(&pending, &corrections);
        let corrected: Vec<String> = corrections
            .iter()
            .map(|c| shown(&c.skill, c.dir.as_deref(), &names))
            .collect();
        notes.push(format!(
            "{} still need{} correction: no review passes the check until a new commit fixes {}",
            corrected.join(", "),
            if corrections.len() == 1 { "s" } else { "" },
            if corrections.len() == 1 { "it" } else { "them" }
        ));
    }
    if plan.write
        && decision.is_some()
        && let (Some(conclusion), Some(repo_id)) = (conclusion, session.repo.as_ref())
    {
        let title = match conclusion {
            Conclusion::Success => "every skill waiting for review is approved".to_owned(),
            Conclusion::ActionRequired => {
                "a review was dismissed: skills wait for review".to_owned()
            }
            Conclusion::Neutral | Conclusion::Failure => "changes requested".to_owned(),
        };
        let text = format!("### skillgate: {title}\n\n{summary}");
        let found = session.with_client(async |client| {
            Ok(conclude(client, repo_id, &pull.head_sha, conclusion, &title, &text).await?)
        })?;
        if found.is_none() {
            notes.push(format!(
                "no skillgate check run on {} to update",
                short(&pull.head_sha)
            ));
        }
    }
    let mut report = String::from("### skillgate: review\n\n");
    for note in &notes {
        let _ = writeln!(report, "> {}\n", esc(note));
    }
    report.push_str(&summary);
    if let Some(path) = &session.step_summary {
        outputs::append_summary(path, &report).map_err(|err| Error::io("write", path, err))?;
    }
    warnings.extend(Warning::all(WarningKind::Review, notes));
    Ok(Reviewed { report, warnings })
}

/// A re-run at a head whose waiting skills were all approved: the approvals still hold (the
/// same commit, the same content, and GitHub still lists them), so the check run passes again
/// instead of asking anew. Returns the warnings for the log.
pub(crate) fn still_approved(
    run: &crate::gate::GateRun,
    db: &std::path::Path,
    config: &Config,
    session: &Session,
) -> Result<Vec<Warning>, Error> {
    let (Some(pull), Some(repo)) = (session.pull(), session.repo.as_ref()) else {
        return Ok(Vec::new());
    };
    still_approved_at(run, db, config, session, repo, pull.number, &pull.head_sha)
}

/// `still_approved` for a pull request named by the caller (`publish` finds it through the
/// API, not the event).
pub(crate) fn still_approved_at(
    run: &crate::gate::GateRun,
    db: &std::path::Path,
    config: &Config,
    session: &Session,
    repo: &Repo,
    number: u64,
    head: &str,
) -> Result<Vec<Warning>, Error> {
    if crate::github::publish::conclusion(run) != Conclusion::ActionRequired {
        return Ok(Vec::new());
    }
    let store = Store::open(db)?;
    let mut pending = store.pending_escalations(&repo.full(), number, head)?;
    let corrections = store.corrections_at(&repo.full(), number, head)?;
    drop(store);
    if !all_approved(&pending, &corrections, config) {
        return Ok(Vec::new());
    }
    // The database says so; only GitHub's own list of reviews makes it so.
    let listed = list_reviews(session, repo, number);
    let mut warnings = confirm_approvals(
        &mut pending,
        listed.as_ref().map_err(String::as_str),
        config,
    );
    if !all_approved(&pending, &corrections, config) {
        return Ok(Warning::all(WarningKind::Review, warnings).collect());
    }
    let title = "every skill waiting for review is approved";
    let text = format!(
        "### skillgate: {title}\n\nApproved at this commit before this run.\n\n{}",
        status(&pending, config)
    );
    session.with_client(async |client| {
        Ok(conclude(client, repo, head, Conclusion::Success, title, &text).await?)
    })?;
    warnings.push(format!(
        "every skill waiting at {} was already approved: the check passes",
        short(head)
    ));
    Ok(Warning::all(WarningKind::Review, warnings).collect())
}

/// Whether every skill waiting at the head has the approvals its tier needs, and none needs
/// correction.
fn all_approved(pending: &[Pending], corrections: &[Correction], config: &Config) -> bool {
    !pending.is_empty()
        && corrections.is_empty()
        && pending
            .iter()
            .all(|p| p.is_approved(config.routing.required(p.tier, &p.categories)))
}

/// The pull request's reviews, or why they could not be read (the reason names no token).
fn list_reviews(session: &Session, repo: &Repo, number: u64) -> Result<Reviews, String> {
    session
        .with_client(async |client| Ok(reviews::list(client, repo, number).await?))
        .map_err(|err| err.to_string())
}

/// Keep only the approvals GitHub confirms: an approval row in the audit database counts when
/// its reviewer is one of the skill's in `[routing]` and their latest review on the pull
/// request approves that head. A row is only the gate's memory, and a database can be forged;
/// when the reviews cannot be read, no approval counts. Returns a warning per approval dropped.
fn confirm_approvals(
    pending: &mut [Pending],
    listed: Result<&Reviews, &str>,
    config: &Config,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let labels = labels(pending);
    for (p, skill) in pending.iter_mut().zip(&labels) {
        let (tier, categories) = (p.tier, p.categories.clone());
        p.approvers.retain(|approver| {
            let eligible = config.routing.is_eligible(approver, tier, &categories);
            if !eligible {
                warnings.push(format!(
                    "approval by {} recorded for {skill} is not from one of its reviewers in `[routing]`: not counted",
                    crate::untrusted::printable(approver, 100),
                ));
            }
            eligible
        });
    }
    let reviews = match listed {
        Ok(reviews) => reviews,
        Err(why) => {
            let Some(head) = pending
                .iter()
                .find(|p| !p.approvers.is_empty())
                .map(|p| p.head_sha.clone())
            else {
                return warnings;
            };
            for p in pending.iter_mut() {
                p.approvers.clear();
            }
            warnings.push(format!(
                "could not read the pull request's reviews to confirm the approvals recorded at {}: {why}; no approval counts on the audit database's word, the skills wait for review",
                short(&head)
            ));
            return warnings;
        }
    };
    for (p, skill) in pending.iter_mut().zip(&labels) {
        let head = p.head_sha.clone();
        p.approvers.retain(|approver| match reviews.confirm(approver, &head) {
            Ok(()) => true,
            Err(why) => {
                warnings.push(format!(
                    "approval by {} recorded for {skill} is not among the pull request's reviews at {} ({why}): not counted",
                    crate::untrusted::printable(approver, 100),
                    short(&head)
                ));
                false
            }
        });
    }
    warnings
}

/// How a reviewer reads a skill: its name, with its directory when another skill listed has the
/// same name (two plugins' `setup` skills are two skills).
fn shown(name: &str, dir: Option<&str>, names: &[&str]) -> String {
    match dir {
        Some(dir) if names.iter().filter(|n| **n == name).count() > 1 => format!("{name} ({dir})"),
        _ => name.to_owned(),
    }
}

/// The names of every skill listed at a head.
fn names<'a>(pending: &'a [Pending], corrections: &'a [Correction]) -> Vec<&'a str> {
    pending
        .iter()
        .map(|p| p.skill.as_str())
        .chain(corrections.iter().map(|c| c.skill.as_str()))
        .collect()
}

/// Each pending skill as `shown` names it, made printable for the log (names come from the
/// database).
fn labels(pending: &[Pending]) -> Vec<String> {
    let names = names(pending, &[]);
    pending
        .iter()
        .map(|p| crate::untrusted::printable(&shown(&p.skill, p.dir.as_deref(), &names), 400))
        .collect()
}

/// One line per skill waiting at this head: tier, approvals against what it needs.
fn status(pending: &[Pending], config: &Config) -> String {
    let names = names(pending, &[]);
    if pending.is_empty() {
        return "No skill waits for a review at this head.\n".to_owned();
    }
    let mut out = String::from(
        "| skill | tier | approvals | changes requested by |\n| --- | --- | --- | --- |\n",
    );
    for p in pending {
        let required = config.routing.required(p.tier, &p.categories);
        let approvers: Vec<String> = p
            .approvers
            .iter()
            .map(|a| format!("@\u{200d}{}", esc(a)))
            .collect();
        let changes: Vec<String> = p
            .changes_requested_by
            .iter()
            .map(|a| format!("@\u{200d}{}", esc(a)))
            .collect();
        let by = if approvers.is_empty() {
            String::new()
        } else {
            format!(" ({})", approvers.join(", "))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {}/{required}{by} | {} |",
            esc(&shown(&p.skill, p.dir.as_deref(), &names)),
            p.tier.as_str(),
            p.approvers.len(),
            if changes.is_empty() {
                "—".to_owned()
            } else {
                changes.join(", ")
            }
        );
    }
    out
}

/// A submitted review, recorded against whatever waits at its head.
struct Submitted<'a> {
    repository: &'a str,
    pull_request: u64,
    head: &'a str,
    reviewer: &'a str,
    body: &'a str,
    reviewed_at: String,
    review_id: String,
}

struct Recorded {
    recorded: usize,
    notes: Vec<String>,
}

impl Submitted<'_> {
    /// Record the review for each skill waiting at the head that the reviewer may decide.
    /// Once-only: the same review recorded again adds nothing.
    fn record(
        &self,
        store: &mut Store,
        decision: ReviewDecision,
        config: &Config,
    ) -> Result<Recorded, Error> {
        let who = format!("@{}", self.reviewer);
        let mut out = Recorded {
            recorded: 0,
            notes: Vec::new(),
        };
        let pending = store.pending_escalations(self.repository, self.pull_request, self.head)?;
        if pending.is_empty() {
            out.notes.push(format!(
                "no skill waits for a review at {}: {who}'s review changes nothing",
                short(self.head)
            ));
        }
        let names = names(&pending, &[]);
        let mut ineligible = Vec::new();
        for p in &pending {
            let skill = shown(&p.skill, p.dir.as_deref(), &names);
            if !config
                .routing
                .is_eligible(self.reviewer, p.tier, &p.categories)
            {
                ineligible.push(skill);
                continue;
            }
            let entry = Review {
                approver: self.reviewer.to_owned(),
                decision,
                reasoning: if decision == ReviewDecision::Dismissed {
                    format!("{who}'s review was dismissed: it no longer counts")
                } else if self.body.trim().is_empty() {
                    format!("{} by {who}", decision.as_str().replace('_', " "))
                } else {
                    esc(self.body)
                },
                reviewed_at: self.reviewed_at.clone(),
                review_id: self.review_id.clone(),
            };
            if store.record_review(p, &entry)? {
                out.recorded += 1;
                out.notes.push(format!(
                    "recorded {who}'s {} of {}",
                    match decision {
                        ReviewDecision::Approved => "approval",
                        ReviewDecision::NeedsCorrection => "change request",
                        ReviewDecision::Dismissed => "dismissed review",
                    },
                    skill
                ));
            }
        }
        if !ineligible.is_empty() {
            out.notes.push(format!(
                "{who}'s review does not count for {}: not among their reviewers in `[routing]` (add the login to the route, or to `reviewers`; team membership cannot be checked with this token)",
                ineligible.join(", ")
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::reviews::{PullReview, ReviewState};
    use crate::skill::Tier;

    const HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    const OLD: &str = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";

    fn pending(skill: &str, approvers: &[&str]) -> Pending {
        Pending {
            escalation_id: 1,
            skill_id: 1,
            skill: skill.to_owned(),
            dir: Some(format!("skills/{skill}")),
            tier: Tier::Human,
            categories: Vec::new(),
            escalated_at: "2026-11-30 09:00:00".to_owned(),
            repository: "octo-org/octo-repo".to_owned(),
            pull_request: 2,
            head_sha: HEAD.to_owned(),
            approvers: approvers.iter().map(|a| (*a).to_owned()).collect(),
            changes_requested_by: Vec::new(),
        }
    }

    /// beta (human) is maintainer1's and bob's to decide, alpha (human too) alice's as well.
    fn config() -> Config {
        Config::parse(
            "[routing]\nreviewers = [\"alice\"]\nhuman = { users = [\"maintainer1\", \"bob\"] }\n",
            std::path::Path::new(".skillgate.toml"),
        )
        .expect("config")
    }

    fn approval(id: u64, login: &str, commit: &str) -> PullReview {
        PullReview {
            id,
            login: login.to_owned(),
            state: ReviewState::Approved,
            commit_id: Some(commit.to_owned()),
        }
    }

    #[test]
    fn two_skills_with_one_name_are_told_apart_by_their_directory() {
        let mut waiting = [
            pending("setup", &[]),
            pending("setup", &[]),
            pending("lint", &[]),
        ];
        waiting[0].dir = Some("plugins/a/skills/setup".to_owned());
        waiting[1].dir = Some("plugins/b/skills/setup".to_owned());
        assert_eq!(
            status(&waiting, &config()),
            "| skill | tier | approvals | changes requested by |\n| --- | --- | --- | --- |\n\
             | setup (plugins/a/skills/setup) | human | 0/1 | — |\n\
             | setup (plugins/b/skills/setup) | human | 0/1 | — |\n\
             | lint | human | 0/1 | — |\n"
        );
        assert_eq!(
            labels(&waiting),
            [
                "setup (plugins/a/skills/setup)",
                "setup (plugins/b/skills/setup)",
                "lint"
            ]
        );
    }

    #[test]
    fn only_approvals_github_lists_for_the_head_are_kept() {
        let reviews = Reviews::new([approval(1, "Alice", HEAD), approval(2, "bob", OLD)]);
        let mut waiting = [
            pending("alpha", &["alice"]),
            pending("beta", &["bob", "maintainer1"]),
        ];
        let warnings = confirm_approvals(&mut waiting, Ok(&reviews), &config());
        assert_eq!(waiting[0].approvers, ["alice"]);
        assert!(waiting[1].approvers.is_empty());
        assert_eq!(
            warnings,
            [
                "approval by bob recorded for beta is not among the pull request's reviews at ec26c3e57ca3 (their latest approval is of f95f852bd8fc): not counted",
                "approval by maintainer1 recorded for beta is not among the pull request's reviews at ec26c3e57ca3 (they have not reviewed the pull request): not counted",
            ]
        );
    }

    #[test]
    fn unread_reviews_leave_nothing_approved() {
        let mut waiting = [pending("alpha", &["alice"]), pending("beta", &[])];
        let warnings = confirm_approvals(&mut waiting, Err("GitHub answered 500"), &config());
        assert!(waiting.iter().all(|p| p.approvers.is_empty()));
        assert_eq!(
            warnings,
            [
                "could not read the pull request's reviews to confirm the approvals recorded at ec26c3e57ca3: GitHub answered 500; no approval counts on the audit database's word, the skills wait for review"
            ]
        );
        // Nothing to confirm, nothing to say.
        let mut none = [pending("alpha", &[])];
        assert!(confirm_approvals(&mut none, Err("GitHub answered 500"), &config()).is_empty());
    }

    #[test]
    fn a_login_from_the_database_cannot_write_workflow_commands() {
        let mut waiting = [pending("alpha", &["x\n::add-mask::y"])];
        let warnings = confirm_approvals(&mut waiting, Ok(&Reviews::default()), &config());
        assert_eq!(
            warnings,
            [
                "approval by x?::add-mask::y recorded for alpha is not from one of its reviewers in `[routing]`: not counted"
            ]
        );
    }

    #[test]
    fn an_approval_github_holds_counts_only_from_a_routed_reviewer() {
        // Carol did approve on GitHub, but nobody routed beta to her: a row saying she
        // approved it was not written by the gate.
        let reviews = Reviews::new([approval(1, "carol", HEAD), approval(2, "bob", HEAD)]);
        let mut waiting = [pending("beta", &["bob", "carol"])];
        let warnings = confirm_approvals(&mut waiting, Ok(&reviews), &config());
        assert_eq!(waiting[0].approvers, ["bob"]);
        assert_eq!(
            warnings,
            [
                "approval by carol recorded for beta is not from one of its reviewers in `[routing]`: not counted"
            ]
        );
    }
}
