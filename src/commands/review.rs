//! `skillgate review`, on a `pull_request_review` event: an eligible reviewer's approval (or
//! change request) is recorded for the skills waiting at the pull request's head; once every
//! one has the approvals its tier needs, the check run passes.

use std::fmt::Write;

use crate::audit;
use crate::cli::ReviewArgs;
use crate::config::Config;
use crate::error::Error;
use crate::github::publish::conclude;
use crate::github::{Session, Token, outputs};
use crate::render::markdown_text as esc;
use crate::store::{Pending, Review, ReviewDecision, Store};

use super::check::Outcome;
use super::publish::{self, Stage};

pub fn run(args: &ReviewArgs) -> Result<Outcome, Error> {
    let repo = super::check::open_repo(&args.repo)?;
    let session = Session::from_env(args.github.token.as_ref().map(Token::expose))?;
    let mut config_warnings = Vec::new();
    let config = super::check::trusted_config(
        &repo,
        args.config.as_deref(),
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
    let mut plan = publish::plan(args.github.publish, &session, Stage::Check)?;
    if pull.is_fork() {
        plan.notes = vec![
            "This review is of a pull request from a fork, and its job's token is read-only: skillgate can neither record it on the audit branch nor update the check run. A maintainer's review of a branch in this repository can.".to_owned(),
        ];
    }
    let mut notes = plan.notes.clone();
    let mut warnings = plan.warnings.clone();
    warnings.extend(config_warnings);
    let (mut trail, db_path) =
        super::publish::open_trail(plan.write, &config, &session, &repo, args.db.as_deref())?;
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
            .unwrap_or_else(super::check::now),
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
                warnings.push(format!(
                    "audit trail committed to {} ({})",
                    trail.branch(),
                    short(&commit)
                ));
                warnings.extend(trail.size_warning());
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
    let (pending, corrections) = {
        let store = Store::open(&db_path)?;
        (
            store.pending_escalations(&repository, pull.number, &pull.head_sha)?,
            store.corrections_at(&repository, pull.number, &pull.head_sha)?,
        )
    };
    let summary = status(&pending, &config);
    let conclusion = if pending.iter().any(|p| !p.changes_requested_by.is_empty()) {
        Some("failure")
    } else if !pending.is_empty()
        && corrections.is_empty()
        && pending
            .iter()
            .all(|p| p.is_approved(config.routing.required(p.tier, &p.categories)))
    {
        Some("success")
    } else if decision == Some(ReviewDecision::Dismissed) {
        // A dismissed approval may have been the one that passed the check.
        Some("action_required")
    } else {
        None
    };
    if !corrections.is_empty() {
        notes.push(format!(
            "{} still need{} correction: no review passes the check until a new commit fixes {}",
            corrections.join(", "),
            if corrections.len() == 1 { "s" } else { "" },
            if corrections.len() == 1 { "it" } else { "them" }
        ));
    }
    if plan.write
        && decision.is_some()
        && let (Some(conclusion), Some(repo_id)) = (conclusion, session.repo.as_ref())
    {
        let title = match conclusion {
            "success" => "every skill waiting for review is approved".to_owned(),
            "action_required" => "a review was dismissed: skills wait for review".to_owned(),
            _ => "changes requested".to_owned(),
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
    warnings.extend(notes);
    Ok(Outcome {
        stdout: report,
        warnings,
        exit_code: crate::exit_codes::OK,
    })
}

/// A re-run at a head whose waiting skills were all approved: the approvals still hold (the
/// same commit, the same content), so the check run passes again instead of asking anew.
pub(crate) fn still_approved(
    run: &crate::gate::GateRun,
    db: &std::path::Path,
    config: &Config,
    session: &Session,
) -> Result<Option<String>, Error> {
    let (Some(pull), Some(repo)) = (session.pull(), session.repo.as_ref()) else {
        return Ok(None);
    };
    if crate::github::publish::conclusion(run) != "action_required" {
        return Ok(None);
    }
    let store = Store::open(db)?;
    let pending = store.pending_escalations(&repo.full(), pull.number, &pull.head_sha)?;
    let corrections = store.corrections_at(&repo.full(), pull.number, &pull.head_sha)?;
    let approved = !pending.is_empty()
        && corrections.is_empty()
        && pending
            .iter()
            .all(|p| p.is_approved(config.routing.required(p.tier, &p.categories)));
    if !approved {
        return Ok(None);
    }
    let title = "every skill waiting for review is approved";
    let text = format!(
        "### skillgate: {title}\n\nApproved at this commit before this run.\n\n{}",
        status(&pending, config)
    );
    session.with_client(async |client| {
        Ok(conclude(client, repo, &pull.head_sha, "success", title, &text).await?)
    })?;
    Ok(Some(format!(
        "every skill waiting at {} was already approved: the check passes",
        short(&pull.head_sha)
    )))
}

/// One line per skill waiting at this head: tier, approvals against what it needs.
fn status(pending: &[Pending], config: &Config) -> String {
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
            esc(&p.skill),
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
        let mut ineligible = Vec::new();
        for p in &pending {
            if !config
                .routing
                .is_eligible(self.reviewer, p.tier, &p.categories)
            {
                ineligible.push(p.skill.clone());
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
                    p.skill
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

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}
