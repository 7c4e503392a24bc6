//! Delivering a verdict: to GitHub (check run, comment, reviewers), to the job summary and the
//! step outputs. `check` delivers its own run; `skillgate publish` delivers finished runs read
//! from results documents (matrix shards, or a fork's read-only job).

use std::path::{Path, PathBuf};

use crate::audit;
use crate::cli::{PublishArgs, PublishMode};
use crate::config::Config;
use crate::error::Error;
use crate::gate::{GateRun, SCHEMA};
use crate::github::publish::{self as gh, Target};
use crate::github::session::get_pull;
use crate::github::{GithubError, PullRequest, Session, Token, outputs};
use crate::render;
use crate::store::Store;

use super::check::Outcome;

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
    pub warnings: Vec<String>,
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
        plan.warnings.push(
            "not publishing to GitHub: GITHUB_TOKEN is not set (pass `env: GITHUB_TOKEN: ${{ github.token }}`)"
                .to_owned(),
        );
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
) -> Result<Vec<String>, Error> {
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
    warnings.extend(notes);
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

/// The audit trail of a run: read from its branch when the job publishes (and `[audit] commit`
/// is not `none`), else the local file (`--db`, or `[audit] db` in the repository).
pub fn open_trail(
    publishing: bool,
    config: &Config,
    session: &Session,
    repo: &Path,
    db: Option<&Path>,
) -> Result<(Option<audit::Trail>, PathBuf), Error> {
    let trail = if publishing {
        audit::connect(&config.audit, session, repo)?
    } else {
        None
    };
    let path = match &trail {
        Some(trail) => trail.path(),
        None => {
            check_trail_path(repo, config, db)?;
            db.map_or_else(|| repo.join(&config.audit.db), Path::to_path_buf)
        }
    };
    Ok((trail, path))
}

/// The local trail's place in the repository (`[audit] db`) holds no symlink: a committed
/// `.skillgate` that links elsewhere would move the database out of the repository, into a
/// file the pull request chose. `--db` is the user's own choice.
fn check_trail_path(repo: &Path, config: &Config, db: Option<&Path>) -> Result<(), Error> {
    if db.is_some() {
        return Ok(());
    }
    let mut at = repo.to_path_buf();
    for part in Path::new(&config.audit.db).components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::usage(
                    format!(
                        "{} is a symlink: the audit database stays in the repository, and a link could put it anywhere",
                        at.display()
                    ),
                    Some(
                        "remove the link (the database is made where `[audit] db` says), or pass --db FILE",
                    ),
                ));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Record `run` in the trail's working copy. When the copy refuses it (a schema object that is
/// not skillgate's, a row the branch did not hold) in a job that commits, the run's results are
/// kept in a file, as for any other failure to commit.
pub fn record_run(
    store: &mut Store,
    run: &GateRun,
    committing: bool,
    repo: &Path,
    config: &Config,
) -> Result<crate::store::RecordStats, Error> {
    match store.record(run) {
        Ok(stats) => Ok(stats),
        Err(err) if committing => Err(audit::AuditError::Unrecorded {
            message: err.to_string(),
            kept: audit::keep(run, &keep_dir(repo, config))?,
        }
        .into()),
        Err(err) => Err(err.into()),
    }
}

/// Where a run's results wait when they could not be committed: beside the local trail.
fn keep_dir(repo: &Path, config: &Config) -> PathBuf {
    repo.join(&config.audit.db)
        .parent()
        .map_or_else(|| repo.to_path_buf(), Path::to_path_buf)
}

/// Commit the audit database back to its branch; lines for the log (what landed, and a
/// warning when the file grows large).
pub fn commit_trail(
    trail: &mut audit::Trail,
    run: &GateRun,
    changed: bool,
    repo: &Path,
    config: &Config,
) -> Result<Vec<String>, Error> {
    let keep_dir = keep_dir(repo, config);
    match trail.commit(run, changed, &keep_dir) {
        Ok(commit) => Ok(commit
            .map(|commit| {
                format!(
                    "audit trail committed to {} ({})",
                    trail.branch(),
                    short(&commit)
                )
            })
            .into_iter()
            .chain(trail.chain_warning())
            .chain(trail.size_warning())
            .collect()),
        Err(err @ Error::Audit(audit::AuditError::Exhausted { .. })) => Err(err),
        // Whatever stopped the commit, the run's results are not lost.
        Err(err) => Err(audit::AuditError::Unrecorded {
            message: err.to_string(),
            kept: audit::keep(run, &keep_dir)?,
        }
        .into()),
    }
}

/// The pull request and the commit to publish on, from what this job can trust: the event's
/// payload and the API, never the results document alone. `None` (with a note) when the
/// document does not match them: nothing is posted.
async fn publish_target(
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

fn short(sha: &str) -> &str {
    super::check::short(sha)
}

/// `skillgate publish --results FILE…`.
pub fn run(args: &PublishArgs) -> Result<Outcome, Error> {
    crate::git::resolve_git_early();
    let repo = super::check::open_repo(&args.repo)?;
    let session = Session::from_env(args.github.token.as_ref().map(Token::expose))?;
    let mut warnings = Vec::new();
    // A publishing job runs the default branch's workflow on its checkout; in a pull request's
    // own job (matrix shards) the config is the base's, as for `check`.
    let mut config =
        super::check::trusted_config(&repo, args.config.as_deref(), &session, &mut warnings)?;
    let document = merge(&args.results)?;
    let mut plan = plan(args.github.publish, &session, Stage::Publish)?;
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
                    .filter(|_| args.config.is_none() && session.pull().is_none())
                {
                    config =
                        super::check::config_at_base(&repo, None, pull, &session, &mut warnings)?;
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
        warnings.extend(plan.notes);
        return Ok(Outcome {
            stdout: String::new(),
            warnings,
            exit_code: crate::exit_codes::OK,
        });
    }
    let Some(head) = head else {
        return Err(Error::usage(
            "the results document names no commit: publish reads the skills' files at the commit it tested",
            Some("make the document with `skillgate check` in a git checkout"),
        ));
    };
    let (mut trail, db_path) =
        open_trail(plan.write, &config, &session, &repo, args.db.as_deref())?;
    let mut store = Store::open(&db_path)?;
    // In a pull request's own job without the audit branch, the database in the checkout is
    // the pull request's: its templates are the base's copy's.
    let templates = match (&trail, session.pull()) {
        (None, Some(pull)) => super::check::base_templates(
            &repo,
            &config,
            &session,
            &pull.base_sha,
            args.db.as_deref(),
        )?,
        _ => store.category_templates()?,
    };
    let revisions = super::recompute::Revisions {
        head: &head,
        pull_base: pull_base.as_deref().filter(|_| has_pull),
        fork,
    };
    let mut run =
        super::recompute::recompute(&document, &repo, &config, &templates, &store, &revisions)?;
    if let Some(repo_id) = session.repo.as_ref().filter(|_| plan.write) {
        run.run.repository = repo_id.full();
    }
    // The pull request the API confirmed, whatever the document named.
    if let Some((Some(pull), _)) = &plan.target {
        run.run.pull_request = Some(pull.number);
        run.run.pull_request_head = Some(head.clone());
    }
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
    warnings.extend(deliver(&run, &config, plan, &session, Stage::Publish)?);
    recorded?;
    if let (Some((number, head)), Some(repo_id)) = (approved_at, session.repo.as_ref()) {
        warnings.extend(super::review::still_approved_at(
            &run, &db_path, &config, &session, repo_id, number, &head,
        )?);
    }
    let stdout = match args.format {
        crate::cli::OutputFormat::Text => render::text(&run),
        crate::cli::OutputFormat::Markdown => render::markdown(&run),
        crate::cli::OutputFormat::Json => render::json(&run),
    };
    Ok(Outcome {
        stdout,
        warnings,
        exit_code: run.exit_code(args.fail_on),
    })
}

/// Results documents are at most this big (a run of thousands of skills is a few MB).
const MAX_DOCUMENT: u64 = 256 * 1024 * 1024;

fn read_document(path: &Path) -> Result<GateRun, Error> {
    let usage = |message: String| Error::usage(format!("{}: {message}", path.display()), None);
    let file = std::fs::File::open(path).map_err(|err| Error::io("read", path, err))?;
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_DOCUMENT + 1), &mut text)
        .map_err(|err| Error::io("read", path, err))?;
    if text.len() as u64 > MAX_DOCUMENT {
        return Err(usage(format!("larger than {MAX_DOCUMENT} bytes")));
    }
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
        usage(format!(
            "not JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    match value.get("schema").and_then(serde_json::Value::as_str) {
        Some(SCHEMA) => {}
        Some(other) => {
            return Err(usage(format!(
                "schema is `{other}`; this skillgate reads `{SCHEMA}`"
            )));
        }
        None => return Err(usage(format!("no `schema` key: not a {SCHEMA} document"))),
    }
    serde_json::from_value(value).map_err(|e| usage(format!("not a valid {SCHEMA} document: {e}")))
}

/// One run from several documents of the same pull request and commit (matrix shards).
pub fn merge(paths: &[PathBuf]) -> Result<GateRun, Error> {
    let mut runs = paths.iter().map(|p| read_document(p).map(|run| (p, run)));
    let Some(first) = runs.next() else {
        return Err(Error::usage(
            "publish needs at least one --results FILE",
            None,
        ));
    };
    let (first_path, mut merged) = first?;
    for next in runs {
        let (path, run) = next?;
        let same =
            |a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| format!("{a:?}") == format!("{b:?}");
        for (what, equal) in [
            (
                "repository",
                same(&merged.run.repository, &run.run.repository),
            ),
            (
                "pull request",
                same(&merged.run.pull_request, &run.run.pull_request),
            ),
            ("head commit", same(&merged.run.head, &run.run.head)),
            ("base commit", same(&merged.run.base, &run.run.base)),
            ("scope", same(&merged.run.scope, &run.run.scope)),
            (
                "pull request head",
                same(&merged.run.pull_request_head, &run.run.pull_request_head),
            ),
        ] {
            if !equal {
                return Err(Error::usage(
                    format!(
                        "{} and {} are not from the same run: their {what} differs",
                        first_path.display(),
                        path.display()
                    ),
                    Some("publish the documents of one pull request and commit together"),
                ));
            }
        }
        for skill in run.skills {
            if let Some(other) = merged.skills.iter().find(|s| s.dir == skill.dir) {
                return Err(Error::usage(
                    format!(
                        "{}: skill {} is also in another document (shards overlap)",
                        path.display(),
                        other.dir
                    ),
                    None,
                ));
            }
            merged.skills.push(skill);
        }
        // Run-level findings (a symlink loop under a skill root) are the same in every shard.
        for finding in run.findings {
            if !merged.findings.contains(&finding) {
                merged.findings.push(finding);
            }
        }
        if run.run.started_at < merged.run.started_at {
            merged.run.started_at = run.run.started_at;
        }
        if run.run.finished_at > merged.run.finished_at {
            merged.run.finished_at = run.run.finished_at;
        }
    }
    merged.skills.sort_by(|a, b| a.dir.cmp(&b.dir));
    merged.summary = GateRun::summarize(&merged.skills);
    Ok(merged)
}
