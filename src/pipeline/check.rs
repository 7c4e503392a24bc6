//! `check`: scope → prepare → run → assess → record → deliver, on a local checkout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::audit::Reads;
use crate::discover::Layout;
use crate::error::Error;
use crate::gate::{GateRun, ReportedFinding, RunInfo, RunScope, SCHEMA, Tool};
use crate::github::{self, Session, Token};
use crate::runner::Progress;
use crate::store::Store;
use crate::warning::{Warning, WarningKind};

use super::assess::{assess, policy_for};
use super::deliver::{self, PublishMode, Stage};
use super::evidence::Evidence;
use super::prepare::{Prepared, flag_duplicate_names, prepare};
use super::run::{Ran, run_suites};
use super::scope::{Scope, Selection, open_repo, select};
use super::trust::{base_templates, trusted_config};
use super::{review, trail};

/// What `check` is asked to do.
#[derive(Debug)]
pub struct CheckRequest {
    /// `--repo`: the checkout whose skills are gated.
    pub repo: PathBuf,
    pub selection: Selection,
    /// `--config`: the user's own choice, applied instead of the base's.
    pub config: Option<PathBuf>,
    /// `--db`: the audit database, instead of the one the config names.
    pub db: Option<PathBuf>,
    /// `--out`: where the results document is written.
    pub out: Option<PathBuf>,
    pub publish: PublishMode,
    pub token: Option<Token>,
    /// `--jobs`: suites run at once.
    pub jobs: Option<u16>,
}

/// What a `check` run decided, and the warnings for the log.
#[derive(Debug)]
pub struct Checked {
    pub run: GateRun,
    pub warnings: Vec<Warning>,
}

/// Said when `check` would publish from a pull request's own job.
pub const PR_TOKEN_WARNING: &str = "this pull_request job runs the pull request's code with a write token in reach: a suite can read it from the job's processes. Run `check --publish none --out results.json` here and `publish` from a workflow_run job (see docs/workflows/ and SECURITY.md)";

/// Gate the skills `request` selects; `progress` hears of each suite as it starts and ends.
pub fn check(request: &CheckRequest, progress: &Arc<dyn Progress>) -> Result<Checked, Error> {
    // The `git` to run, found before any suite could plant another on PATH.
    crate::git::resolve_git_early();
    let started_at = now();
    let repo = open_repo(&request.repo)?;
    if let Some(out) = &request.out {
        check_out_path(out)?;
    }
    let session = Session::from_env(request.token.as_ref().map(Token::expose))?;
    let mut warnings: Vec<Warning> = Vec::new();
    let config = trusted_config(&repo, request.config.as_deref(), &session, &mut warnings)?;
    let plan = deliver::plan(request.publish, &session, Stage::Check)?;
    let layout = Layout::new(&config.skills);
    let tree = layout
        .find_skills(&repo)
        .map_err(|err| Error::io("search for skills in", &repo, err))?;
    let scope = select(
        &request.selection,
        &repo,
        &layout,
        &tree,
        &session,
        &mut warnings,
    )?;
    for uncovered in &tree.uncovered {
        warnings.push(Warning::new(
            WarningKind::Scope,
            format!(
                "{}: no skill root covers this SKILL.md (see the `{}` finding)",
                uncovered.skill_file_path(),
                crate::discover::UNCOVERED_RULE
            ),
        ));
    }
    if scope.dirty {
        warnings.push(Warning::new(
            WarningKind::Scope,
            "the working tree has uncommitted changes: they are tested as they are",
        ));
    }

    if plan.write && session.pull().is_some() {
        warnings.push(Warning::new(WarningKind::Publish, PR_TOKEN_WARNING));
    }
    if plan.write {
        crate::audit::pin(&config.audit, &repo)?;
    }
    // The trail as it is now, read and checked before minutes of suites are spent (a database
    // that is not skillgate's, a broken template, a branch that cannot be read stop the run
    // here); it is read again once they end, and that copy is the one recorded into.
    let branch_trail = {
        let (trail, db_path) = trail::open_trail(
            plan.write,
            &config,
            &session,
            &repo,
            request.db.as_deref(),
            crate::audit::Reads::Registry,
        )?;
        Store::open(&db_path)?.category_templates()?;
        trail.is_some()
    };
    // In a pull request's job without the audit branch, the database in the checkout is the
    // pull request's: category templates are its base's copy's, read before any suite runs.
    let base_templates = match session.pull().filter(|_| !branch_trail) {
        Some(pull) => Some(base_templates(
            &repo,
            &config,
            &session,
            &pull.base_sha,
            request.db.as_deref(),
        )?),
        None => None,
    };

    let mut prepared: Vec<Prepared> = scope
        .changes
        .iter()
        .map(|change| prepare(&repo, &tree, change, scope.base_reader.as_ref(), &config))
        .collect::<Result<_, _>>()?;
    flag_duplicate_names(&repo, &config, &tree, &mut prepared);

    let Ran { attempts, settings } = run_suites(&repo, &prepared, &config, request.jobs, progress)?;

    // The audit trail is read only now, every suite having ended: in a job that publishes, from
    // the audit branch into a directory made for it; no suite ever saw it.
    // For a pull request, every segment that can hold its decisions and reviews (a re-run reads
    // who approved and who asked for changes); else the newest, which holds this run's rows if
    // a run of this very job recorded them already.
    let reads = Reads::for_pull(session.pull(), Reads::Since(None));
    let (mut trail, db_path) = trail::open_trail(
        plan.write,
        &config,
        &session,
        &repo,
        request.db.as_deref(),
        reads,
    )?;
    let mut store = Store::open(&db_path)?;
    // Category templates sit between the defaults and the config; a broken one stops the run.
    let templates = match base_templates {
        Some(templates) => templates,
        None => store.category_templates()?,
    };

    let finished_at = now();
    let mut skills = Vec::with_capacity(prepared.len());
    for (p, attempts) in prepared.into_iter().zip(attempts) {
        let previous = store.previous_coverage(&p.change, &p.name)?;
        let policy = policy_for(&p, &config, &templates);
        let evidence =
            Evidence::from_attempts(&p, attempts, &settings, &finished_at, &mut warnings);
        skills.push(assess(p, evidence, policy, previous));
    }
    let mut run = GateRun {
        schema: SCHEMA.to_owned(),
        tool: Tool::default(),
        run: run_info(
            &repo,
            &scope,
            &session,
            request.selection.all,
            started_at,
            finished_at,
        ),
        summary: GateRun::summarize(&skills),
        findings: tree
            .findings
            .into_iter()
            .chain(scope.findings)
            .map(ReportedFinding::from)
            .collect(),
        skills,
    };
    trail::route(
        &mut run,
        &config,
        session.pull().and_then(|p| p.author.as_deref()),
    );
    let stats = trail::record_run(&mut store, &run, trail.is_some(), &repo, &config)?;
    drop(store);
    if let Some(out) = &request.out {
        deliver::write_document(out, &run)?;
    }
    // The trail first: a review that comes in once the check run asks for it finds the
    // decisions it reviews. The pull request hears of the verdict even when the commit failed.
    let mut recorded = Ok(());
    if let Some(trail) = &mut trail {
        match trail::commit_trail(trail, &run, stats.inserted > 0, &repo, &config) {
            Ok(line) => warnings.extend(line),
            Err(err) => recorded = Err(err),
        }
    }
    let writes = plan.write;
    warnings.extend(deliver::deliver(
        &run,
        &config,
        plan,
        &session,
        Stage::Check,
    )?);
    recorded?;
    if writes && trail.is_some() {
        warnings.extend(review::still_approved(&run, &db_path, &config, &session)?);
    }
    Ok(Checked { run, warnings })
}

/// Fail before minutes of suites, not after, when the results document cannot be written.
pub(crate) fn check_out_path(out: &Path) -> Result<(), Error> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(Error::usage(
            format!(
                "--out {}: the directory {} does not exist",
                out.display(),
                dir.display()
            ),
            None,
        ))
    }
}

fn run_info(
    repo: &Path,
    scope: &Scope,
    session: &Session,
    all: bool,
    started_at: String,
    finished_at: String,
) -> RunInfo {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    RunInfo {
        repository: session.repo.as_ref().map_or_else(
            || {
                repo.file_name()
                    .map_or_else(|| "local".to_owned(), |n| n.to_string_lossy().into_owned())
            },
            github::Repo::full,
        ),
        pull_request: session.pull().map(|p| p.number),
        pull_request_head: session.pull().map(|p| p.head_sha.clone()),
        base: scope.base.clone(),
        head: scope.head.clone(),
        dirty: scope.dirty,
        event: env("GITHUB_EVENT_NAME").unwrap_or_else(|| "local".to_owned()),
        run_id: env("GITHUB_RUN_ID"),
        run_attempt: env("GITHUB_RUN_ATTEMPT")
            .and_then(|a| a.parse().ok())
            .unwrap_or(1),
        scope: if all {
            RunScope::All
        } else {
            RunScope::Changed
        },
        started_at,
        finished_at,
    }
}

pub(crate) fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
