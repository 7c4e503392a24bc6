//! Delivering a verdict: to GitHub (check run, comment, reviewers), to the job summary and the
//! step outputs. `check` delivers its own run; `publish` delivers finished runs read from
//! results documents (matrix shards, or a fork's read-only job).

use std::path::Path;

use crate::config::Config;
use crate::error::Error;
use crate::gate::GateRun;
use crate::git::short;
use crate::github::publish::{self as gh, Target};
use crate::github::session::get_pull;
use crate::github::{GithubError, PullRequest, Session, outputs};
use crate::render;
use crate::warning::{Warning, WarningKind};

/// Where a job publishes: `--publish`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishMode {
    /// To GitHub when the job runs in GitHub Actions, for an event skillgate knows.
    Auto,
    /// To GitHub, or fail.
    Github,
    /// Nowhere but the job summary and outputs.
    None,
}

/// Which command delivers: `check` never writes for a fork; `publish` runs where the token can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Check,
    Publish,
}

/// GitHub drops a step's summary over 1 MiB entirely.
const STEP_SUMMARY_MAX_BYTES: usize = 1_000_000;

/// Says why a fork's pull request got only a job summary.
pub const FORK_NOTE: &str = "This pull request comes from a fork, so its token is read-only: skillgate wrote only the job summary. To post the check run and the comment, run `skillgate check --publish none --out results.json` here, upload results.json as an artifact, and run `skillgate publish --results results.json` from a `workflow_run` workflow (see the README).";

/// Whether this job writes to GitHub, decided before any suite runs (a `--publish github`
/// that cannot happen fails at once).
#[derive(Debug, Default)]
pub struct Plan {
    pub write: bool,
    /// Lines for the job summary and the comment.
    pub notes: Vec<String>,
    /// Lines for the log only.
    pub warnings: Vec<Warning>,
    /// Where `publish` posts, found before anything is recorded.
    pub target: Option<(Option<PullRequest>, String)>,
}

pub fn plan(mode: PublishMode, session: &Session, stage: Stage) -> Result<Plan, Error> {
    let mut plan = Plan {
        write: match mode {
            PublishMode::None => false,
            PublishMode::Github => true,
            PublishMode::Auto => {
                session.in_actions && session.event.as_ref().is_some_and(|e| e.is_supported())
            }
        },
        ..Plan::default()
    };
    if plan.write && stage == Stage::Check && session.pull().is_some_and(|p| p.is_fork()) {
        plan.write = false;
        plan.notes.push(FORK_NOTE.to_owned());
    }
    if plan.write && session.repo.is_none() {
        if mode == PublishMode::Github {
            return Err(GithubError::Unavailable(
                "--publish github: no repository (GITHUB_REPOSITORY is not set)".to_owned(),
            )
            .into());
        }
        plan.write = false;
    }
    if plan.write && session.token.is_none() {
        if mode == PublishMode::Github {
            return Err(GithubError::Unavailable(
                "--publish github: no GitHub token (GITHUB_TOKEN is not set)".to_owned(),
            )
            .into());
        }
        plan.warnings.push(Warning::new(
            WarningKind::Publish,
            "not publishing to GitHub: GITHUB_TOKEN is not set (pass `env: GITHUB_TOKEN: ${{ github.token }}`)",
        ));
        plan.write = false;
    }
    Ok(plan)
}

/// Deliver `run`: to GitHub when the plan says so, then the job summary and outputs. Returns
/// warnings for the log.
pub fn deliver(
    run: &GateRun,
    config: &Config,
    plan: Plan,
    session: &Session,
    stage: Stage,
) -> Result<Vec<Warning>, Error> {
    let Plan {
        write,
        mut notes,
        mut warnings,
        target,
    } = plan;
    // A failure to publish still leaves the job summary and outputs written, then fails.
    let mut failed = None;
    if write {
        match publish_to_github(run, config, session, stage, target, notes.clone()) {
            Ok(published) => notes = published,
            Err(err) => {
                notes.push(format!("publishing to GitHub failed: {err}"));
                failed = Some(err);
            }
        }
    }
    if let Some(path) = &session.step_summary {
        // Notes first: a long report is cut at its end, never the notes.
        let mut text = String::new();
        for note in &notes {
            text.push_str(&format!("> {}\n\n", render::markdown_text(note)));
        }
        text.push_str(&render::markdown(run));
        let text = render::trim_bytes(
            &text,
            STEP_SUMMARY_MAX_BYTES,
            "the results document (--out)",
        );
        outputs::append_summary(path, &text).map_err(|err| Error::io("write", path, err))?;
    }
    if let Some(path) = &session.output {
        outputs::write_outputs(path, run).map_err(|err| Error::io("write", path, err))?;
    }
    if let Some(err) = failed {
        return Err(err);
    }
    warnings.extend(Warning::all(WarningKind::Publish, notes));
    Ok(warnings)
}

/// The GitHub half: find the pull request and the commit, then post. Returns the notes.
fn publish_to_github(
    run: &GateRun,
    config: &Config,
    session: &Session,
    stage: Stage,
    target: Option<(Option<PullRequest>, String)>,
    mut notes: Vec<String>,
) -> Result<Vec<String>, Error> {
    let Some(repo) = session.repo.as_ref() else {
        return Ok(notes);
    };
    let published = session.with_client(async |client| {
        let resolved = match target.clone() {
            Some(found) => Some(found),
            None => publish_target(client, repo, session, stage, run, &mut notes).await?,
        };
        let Some((pull, head)) = resolved else {
            return Ok(None);
        };
        let target = Target {
            repo,
            pull: pull.as_ref(),
            head_sha: &head,
            details_url: session.details_url(),
        };
        Ok(Some(
            gh::publish(client, &target, run, &config.routing, notes.clone()).await?,
        ))
    })?;
    Ok(match published {
        Some(published) => published.notes,
        None => notes,
    })
}

/// The pull request and the commit to publish on, from what this job can trust: the event's
/// payload and the API, never the results document alone. `None` (with a note) when the
/// document does not match them: nothing is posted.
pub(crate) async fn publish_target(
    client: &crate::github::Client,
    repo: &crate::github::Repo,
    session: &Session,
    stage: Stage,
    run: &GateRun,
    notes: &mut Vec<String>,
) -> Result<Option<(Option<PullRequest>, String)>, GithubError> {
    let event = session.event.as_ref();
    if stage == Stage::Check {
        let pull = session.pull().cloned();
        let head = match &pull {
            Some(pull) => Some(pull.head_sha.clone()),
            None => run.run.head.clone().or_else(|| event?.sha.clone()),
        };
        return Ok(head.map(|head| (pull, head)));
    }
    let mut refuse = |why: String| {
        notes.push(format!("nothing was posted to GitHub: {why}"));
        Ok(None)
    };
    let pull = match (session.pull(), run.run.pull_request) {
        // A publish job of the same pull request (matrix shards): the payload says which.
        (Some(pull), number) => {
            if number.is_some_and(|n| n != pull.number) {
                return refuse(format!(
                    "the results are for pull request #{}, this job for #{}",
                    number.unwrap_or_default(),
                    pull.number
                ));
            }
            Some(pull.clone())
        }
        (None, Some(number)) => {
            // The run's own pull requests (GitHub lists them for a branch of the repository):
            // a document cannot name another one.
            let listed = event.map_or(&[][..], |e| e.workflow_run_pulls.as_slice());
            if !listed.is_empty() && !listed.contains(&number) {
                return refuse(format!(
                    "the results are for pull request #{number}, but the workflow run was for #{}",
                    listed[0]
                ));
            }
            Some(get_pull(client, repo, number).await?)
        }
        // A document naming no pull request, from a run GitHub says was for one: the run's.
        (None, None) => match event.and_then(|e| e.workflow_run_pulls.first()) {
            Some(&number) => Some(get_pull(client, repo, number).await?),
            None => None,
        },
    };
    // The commit the workflow that made the document ran on, when this is its `workflow_run`.
    let ran_on = event.and_then(|e| e.workflow_run_head.clone());
    let head = match &pull {
        Some(pull) => {
            if let Some(ran_on) = &ran_on
                && *ran_on != pull.head_sha
            {
                return refuse(format!(
                    "the workflow run was for {}, but pull request #{} is at {}",
                    short(ran_on),
                    pull.number,
                    short(&pull.head_sha)
                ));
            }
            pull.head_sha.clone()
        }
        None => match ran_on.or_else(|| event.and_then(|e| e.sha.clone())) {
            Some(head) => head,
            None => return refuse("no commit to publish on".to_owned()),
        },
    };
    let tested = run.run.pull_request_head.as_deref().or(run
        .run
        .head
        .as_deref()
        .filter(|_| pull.is_none()));
    if let Some(tested) = tested
        && tested != head
    {
        return refuse(format!(
            "the results are for {}, but the commit to publish on is {}",
            short(tested),
            short(&head)
        ));
    }
    Ok(Some((pull, head)))
}

/// Write the results document (`--out`) of `run`.
pub fn write_document(path: &Path, run: &GateRun) -> Result<(), Error> {
    write_atomically(path, render::json(run).as_bytes())
}

/// Write to a sibling temporary file, then rename: a reader never sees half a document.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|err| Error::io("write", path, err))?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(|err| Error::io("write", path, err))?;
    tmp.persist(path)
        .map_err(|err| Error::io("write", path, err.error))?;
    Ok(())
}
