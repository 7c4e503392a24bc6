//! `publish`: results documents merged, the target confirmed through the API, the run decided
//! again from the head's own files, recorded and delivered.

use std::path::PathBuf;

use crate::audit::Reads;
use crate::error::Error;
use crate::gate::{DocumentError, GateRun};
use crate::github::{PullRequest, Session, Token, outputs};
use crate::render;
use crate::store::Store;
use crate::warning::{Warning, WarningKind};

use super::deliver::{self, PublishMode, Stage, plan, publish_target};
use super::recompute::{Revisions, recompute};
use super::review;
use super::scope::open_repo;
use super::trail::{commit_trail, open_trail, record_run, route};
use super::trust::{base_templates, config_at_base, trusted_config};

/// What `publish` is asked to do.
#[derive(Debug)]
pub struct PublishRequest {
    /// `--results`: the documents of one run (matrix shards), at least one.
    pub results: Vec<PathBuf>,
    /// `--repo`: the checkout the skills' files are read from (through git).
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
    pub publish: PublishMode,
    pub token: Option<Token>,
}

/// What `publish` did: the run it decided and recorded, or none (the warnings say why), and
/// the warnings for the log.
#[derive(Debug)]
pub struct Published {
    pub run: Option<GateRun>,
    pub warnings: Vec<Warning>,
}

/// Publish the run of the documents `request` names.
pub fn publish(request: &PublishRequest) -> Result<Published, Error> {
    crate::git::resolve_git_early();
    let repo = open_repo(&request.repo)?;
    let session = Session::from_env(request.token.as_ref().map(Token::expose))?;
    let mut warnings = Vec::new();
    // A publishing job runs the default branch's workflow on its checkout; in a pull request's
    // own job (matrix shards) the config is the base's, as for `check`.
    let mut config = trusted_config(&repo, request.config.as_deref(), &session, &mut warnings)?;
    let document = read_documents(&request.results)?;
    let mut plan = plan(request.publish, &session, Stage::Publish)?;
    // Where to post, from the payload and the API, before anything is recorded: a document
    // that does not match them is neither posted nor recorded.
    let mut record = true;
    let mut pull_base = None;
    let mut head = document
        .run
        .pull_request_head
        .clone()
        .or_else(|| document.run.head.clone());
    // The run that made the document ran on another repository's code (or GitHub does not say
    // whose): a fork, whatever the document or the pull request list says.
    let workflow_run = session.event.as_ref().filter(|e| e.name == "workflow_run");
    let mut fork = workflow_run.is_some_and(|e| {
        match (e.workflow_run_head_repo.as_deref(), session.repo.as_ref()) {
            (Some(head_repo), Some(repo)) => !head_repo.eq_ignore_ascii_case(&repo.full()),
            _ => true,
        }
    });
    let mut has_pull = document.run.pull_request.is_some();
    if plan.write
        && let Some(repo_id) = session.repo.as_ref()
    {
        if !document
            .run
            .repository
            .eq_ignore_ascii_case(&repo_id.full())
        {
            return Err(Error::usage(
                format!(
                    "the results are for {}, but this job runs for {}",
                    document.run.repository,
                    repo_id.full()
                ),
                Some("publish results in the repository whose pull request they gate"),
            ));
        }
        let mut notes = Vec::new();
        let found = session.with_client(async |client| {
            publish_target(
                client,
                repo_id,
                &session,
                Stage::Publish,
                &document,
                &mut notes,
            )
            .await
        })?;
        plan.notes.extend(notes);
        match found {
            Some((pull, target_head)) => {
                fork |= pull.as_ref().is_some_and(PullRequest::is_fork);
                // A `workflow_run` job checks out the default branch: the policy is the one at
                // the base of the pull request it publishes for.
                if let Some(pull) = pull
                    .as_ref()
                    .filter(|_| request.config.is_none() && session.pull().is_none())
                {
                    config = config_at_base(&repo, None, pull, &session, &mut warnings)?;
                }
                pull_base = pull.as_ref().map(|p| p.base_sha.clone());
                has_pull = pull.is_some();
                head = Some(target_head.clone());
                plan.target = Some((pull, target_head));
            }
            None => {
                plan.write = false;
                record = false;
            }
        }
        // A fork's run with no pull request: what it changed is the fork's word alone (its
        // document names the base). There is nothing to publish it for.
        if record && fork && !has_pull {
            plan.notes.push(
                "nothing was posted to GitHub: the workflow run ran a fork's code and its results name no pull request".to_owned(),
            );
            plan.write = false;
            record = false;
        }
    }
    // In a `workflow_run` job the document's revisions count only once the API confirmed them;
    // without a token (or `--publish none`) they cannot be, and a verdict from them would be
    // the document's own. (Outside GitHub Actions, `publish` is the user's tool on documents
    // they made: their revisions stand.)
    if record && !plan.write && workflow_run.is_some() {
        plan.notes.push(
            "nothing was recorded: in a workflow_run job the results' pull request and commits are confirmed through the API, and this job does not publish (no token, or --publish none)".to_owned(),
        );
        record = false;
    }
    if !record {
        // No verdict: the notes say why, and nothing of the document is shown as one.
        if let Some(path) = &session.step_summary {
            let text: String = plan
                .notes
                .iter()
                .map(|note| format!("> {}\n\n", render::markdown_text(note)))
                .collect();
            outputs::append_summary(path, &text).map_err(|err| Error::io("write", path, err))?;
        }
        warnings.extend(plan.warnings);
        warnings.extend(Warning::all(WarningKind::Publish, plan.notes));
        return Ok(Published {
            run: None,
            warnings,
        });
    }
    let Some(head) = head else {
        return Err(Error::usage(
            "the results document names no commit: publish reads the skills' files at the commit it tested",
            Some("make the document with `skillgate check` in a git checkout"),
        ));
    };
    // For a pull request (as GitHub describes it), every segment that can hold its decisions
    // and reviews; else every segment that can hold the run's own rows (a document published
    // again), from when the document says the run started.
    let pull = plan
        .target
        .as_ref()
        .and_then(|(pull, _)| pull.as_ref())
        .or(session.pull());
    let reads = Reads::for_pull(pull, Reads::Since(Some(document.run.started_at.clone())));
    let (mut trail, db_path) = open_trail(
        plan.write,
        &config,
        &session,
        &repo,
        request.db.as_deref(),
        reads,
    )?;
    let mut store = Store::open(&db_path)?;
    // In a pull request's own job without the audit branch, the database in the checkout is
    // the pull request's: its templates are the base's copy's.
    let templates = match (&trail, session.pull()) {
        (None, Some(pull)) => base_templates(
            &repo,
            &config,
            &session,
            &pull.base_sha,
            request.db.as_deref(),
        )?,
        _ => store.category_templates()?,
    };
    let revisions = Revisions {
        head: &head,
        pull_base: pull_base.as_deref().filter(|_| has_pull),
        fork,
    };
    let mut run = recompute(&document, &repo, &config, &templates, &store, &revisions)?;
    if let Some(repo_id) = session.repo.as_ref().filter(|_| plan.write) {
        run.run.repository = repo_id.full();
    }
    // The pull request the API confirmed, whatever the document named.
    if let Some((Some(pull), _)) = &plan.target {
        run.run.pull_request = Some(pull.number);
        run.run.pull_request_head = Some(head.clone());
    }
    route(&mut run, &config, pull.and_then(|p| p.author.as_deref()));
    let mut recorded = Ok(());
    let stats = record_run(&mut store, &run, trail.is_some(), &repo, &config)?;
    drop(store);
    if let Some(trail) = &mut trail {
        match commit_trail(trail, &run, stats.inserted > 0, &repo, &config) {
            Ok(line) => warnings.extend(line),
            Err(err) => recorded = Err(err),
        }
    }
    // Once delivered, a re-run whose waiting skills were all approved keeps the check passed,
    // each approval confirmed against GitHub's reviews.
    let approved_at = plan
        .target
        .as_ref()
        .filter(|_| plan.write && trail.is_some())
        .and_then(|(pull, head)| pull.as_ref().map(|p| (p.number, head.clone())));
    // The pull request hears of the verdict even when the trail could not be committed.
    warnings.extend(deliver::deliver(
        &run,
        &config,
        plan,
        &session,
        Stage::Publish,
    )?);
    recorded?;
    if let (Some((number, head)), Some(repo_id)) = (approved_at, session.repo.as_ref()) {
        warnings.extend(review::still_approved_at(
            &run, &db_path, &config, &session, repo_id, number, &head,
        )?);
    }
    Ok(Published {
        run: Some(run),
        warnings,
    })
}

/// One run from the documents at `paths`: each read and checked, shards merged.
fn read_documents(paths: &[PathBuf]) -> Result<GateRun, Error> {
    if paths.is_empty() {
        return Err(Error::usage(
            "publish needs at least one --results FILE",
            None,
        ));
    }
    GateRun::merge(paths).map_err(|err| match err {
        DocumentError::Read { path, source } => Error::io("read", path, source),
        err @ DocumentError::NotOneRun { .. } => Error::usage(
            err.to_string(),
            Some("publish the documents of one pull request and commit together"),
        ),
        err => Error::usage(err.to_string(), None),
    })
}
