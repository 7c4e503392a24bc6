//! `skillgate check`: discover → run → read → decide → record → render, on a local checkout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::analysis::risk::{self, RiskInputs};
use crate::analysis::{self, Sources};
use crate::attempt::{self, Attempt};
use crate::changes::{ChangeKind, SkillChange, gated_changes};
use crate::cli::{CheckArgs, OutputFormat};
use crate::commands::publish;
use crate::config::Config;
use crate::discover::{Layout, SkillDir, Tree, skill_files};
use crate::error::Error;
use crate::gate::{
    CoverageReport, GateRun, RunInfo, SCHEMA, SkillResult, SuiteReport, TestResults, Tool,
};
use crate::git::Git;
use crate::github::{self, Session, Token};
use crate::lint;
use crate::policy::decide;
use crate::policy::stricter::{self, BaseCategory};
use crate::policy::template::CategoryTemplate;
use crate::progress::Progress;
use crate::render;

use crate::runner::{self, Job};
use crate::signals::{Analysis, CategoryChange, CoverageSignal, Signals, SuiteSignal, TestCounts};
use crate::skill::{self, Finding, Severity, SkillMeta};
use crate::store::Store;
use crate::suite::{self, REPORT_DIR, Resolution, Suite};

/// What the binary prints and how it exits.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    pub warnings: Vec<String>,
    pub exit_code: u8,
}

/// The skills to gate and the revisions they were compared between.
struct Scope {
    changes: Vec<SkillChange>,
    base: Option<String>,
    head: Option<String>,
    dirty: bool,
    /// For reading deleted skills' files at the base.
    base_reader: Option<BaseReader>,
    /// What the run says beyond its skills: changed `SKILL.md` files that are no skill.
    findings: Vec<Finding>,
}

/// Reads files as they were at the base commit: with git, or through the API when a shallow
/// checkout does not have the base.
pub(crate) struct BaseReader {
    pub git: Git,
    pub base: String,
    /// `--repo` relative to the top of the git repository (empty at the top).
    pub prefix: String,
    pub api: Option<github::session::FileSource>,
}

impl BaseReader {
    fn read(&self, path: &str) -> Option<String> {
        let full = if self.prefix.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", self.prefix)
        };
        match &self.api {
            Some(api) => api.read(&full, &self.base),
            None => self.git.read_file_at(&self.base, &full).ok().flatten(),
        }
    }
}

/// A skill read from disk, ready to run.
pub(crate) struct Prepared {
    pub(crate) change: SkillChange,
    pub(crate) name: String,
    pub(crate) meta: SkillMeta,
    pub(crate) lint: Vec<Finding>,
    pub(crate) content_hash: Option<String>,
    pub(crate) resolution: Resolution,
    /// What the skill's files show; `None` for a deleted skill.
    pub(crate) analysis: Option<Analysis>,
    /// What breaks for the skill's users against the base: `name` changed, a major version, a
    /// documented input or field removed.
    pub(crate) breaking: Vec<String>,
    /// The base's `category` when the change gives the skill another one.
    pub(crate) category_change: Option<CategoryChange>,
    /// The skill's `category` as the base had it, unknown for a new skill: the head's is the
    /// pull request's word and only tightens the policy.
    pub(crate) base_category: BaseCategory,
    /// Why the skill is gated though no skill root covers it (a changed `SKILL.md` outside the
    /// roots): a maintainer decides.
    pub(crate) uncovered: Option<String>,
}

/// Said when `check` would publish from a pull request's own job.
pub const PR_TOKEN_WARNING: &str = "this pull_request job runs the pull request's code with a write token in reach: a suite can read it from the job's processes. Run `check --publish none --out results.json` here and `publish` from a workflow_run job (see docs/workflows/ and SECURITY.md)";

/// `progress` hears of each suite as it starts and ends.
pub fn run(args: &CheckArgs, progress: &Arc<dyn Progress>) -> Result<Outcome, Error> {
    // The `git` to run, found before any suite could plant another on PATH.
    crate::git::resolve_git_early();
    let started_at = now();
    let repo = open_repo(&args.repo)?;
    if let Some(out) = &args.out {
        check_out_path(out)?;
    }
    let session = Session::from_env(args.github.token.as_ref().map(Token::expose))?;
    let mut warnings: Vec<String> = Vec::new();
    let config = trusted_config(&repo, args.config.as_deref(), &session, &mut warnings)?;
    let plan = publish::plan(args.github.publish, &session, publish::Stage::Check)?;
    let layout = Layout::new(&config.skills);
    let tree = layout
        .find_skills(&repo)
        .map_err(|err| Error::io("search for skills in", &repo, err))?;
    let scope = select(args, &repo, &layout, &tree, &session, &mut warnings)?;
    for uncovered in &tree.uncovered {
        warnings.push(format!(
            "{}: no skill root covers this SKILL.md (see the `{}` finding)",
            uncovered.skill_file_path(),
            crate::discover::UNCOVERED_RULE
        ));
    }
    if scope.dirty {
        warnings.push(
            "the working tree has uncommitted changes: they are tested as they are".to_owned(),
        );
    }

    if plan.write && session.pull().is_some() {
        warnings.push(PR_TOKEN_WARNING.to_owned());
    }
    if plan.write {
        crate::audit::pin(&config.audit, &repo)?;
    }
    // The trail as it is now, read and checked before minutes of suites are spent (a database
    // that is not skillgate's, a broken template, a branch that cannot be read stop the run
    // here); it is read again once they end, and that copy is the one recorded into.
    let branch_trail = {
        let (trail, db_path) =
            super::publish::open_trail(plan.write, &config, &session, &repo, args.db.as_deref())?;
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
            args.db.as_deref(),
        )?),
        None => None,
    };

    let mut prepared: Vec<Prepared> = scope
        .changes
        .iter()
        .map(|change| prepare(&repo, &tree, change, scope.base_reader.as_ref(), &config))
        .collect::<Result<_, _>>()?;
    flag_duplicate_names(&repo, &config, &tree, &mut prepared);

    // Each attempt's files sit under a random name, in a parent no suite may list.
    let workspace = runner::Workspace::new()?;
    let suites: Vec<(usize, &Suite)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.resolution {
            Resolution::Found(suite) if p.change.kind != ChangeKind::Deleted => Some((i, suite)),
            _ => None,
        })
        .collect();
    let settings = runner::Settings {
        jobs: args
            .jobs
            .or(config.runner.jobs)
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        timeout: config.runner.timeout,
        output_cap: config.runner.output_cap,
        env: runner::scrubbed_env(
            std::env::vars_os(),
            &config.runner.secret_env,
            &config.runner.env_allow,
        ),
    };
    // Every suite once, then the failed ones again while retries last.
    let mut attempts: Vec<Vec<Attempt>> = prepared.iter().map(|_| Vec::new()).collect();
    let mut pending: Vec<(usize, &Suite)> = suites;
    for number in 1..=1 + u32::from(config.runner.retries) {
        if pending.is_empty() {
            break;
        }
        let batch: Vec<Job> = pending
            .iter()
            .map(|(i, suite)| {
                let place = workspace.place()?;
                let p = &prepared[*i];
                let label = if number == 1 {
                    p.name.clone()
                } else {
                    format!("{} (attempt {number})", p.name)
                };
                Ok(job(label, &repo, &place, &p.change.skill, suite))
            })
            .collect::<Result<_, runner::RunnerError>>()?;
        let finished = runner::run_all(batch.clone(), &settings, progress)?;
        // A suite that went looking for the others' directories: no report can be trusted.
        workspace.intact()?;
        for (((i, _), job), done) in pending.iter().zip(&batch).zip(finished) {
            let p = &prepared[*i];
            let skill_dir = repo.join(&p.change.skill.dir);
            let read = attempt::read(
                &repo,
                &skill_dir,
                &p.meta,
                job,
                done,
                settings.timeout,
                &attempts[*i],
            );
            attempts[*i].push(read);
        }
        pending.retain(|(i, _)| attempts[*i].last().is_some_and(Attempt::worth_retrying));
    }
    // A signal while the last round's results were read: nothing is recorded.
    if let Some(name) = runner::interrupted() {
        return Err(runner::RunnerError::Interrupted(name).into());
    }

    // The audit trail is read only now, every suite having ended: in a job that publishes, from
    // the audit branch into a directory made for it; no suite ever saw it.
    let (mut trail, db_path) =
        super::publish::open_trail(plan.write, &config, &session, &repo, args.db.as_deref())?;
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
    let run = GateRun {
        schema: SCHEMA.to_owned(),
        tool: Tool::default(),
        run: run_info(&repo, &scope, &session, args.all, started_at, finished_at),
        summary: GateRun::summarize(&skills),
        findings: tree.findings.into_iter().chain(scope.findings).collect(),
        skills,
    };
    let stats = publish::record_run(&mut store, &run, trail.is_some(), &repo, &config)?;
    drop(store);
    if let Some(out) = &args.out {
        write_atomically(out, render::json(&run).as_bytes())?;
    }
    // The trail first: a review that comes in once the check run asks for it finds the
    // decisions it reviews. The pull request hears of the verdict even when the commit failed.
    let mut recorded = Ok(());
    if let Some(trail) = &mut trail {
        match publish::commit_trail(trail, &run, stats.inserted > 0, &repo, &config) {
            Ok(line) => warnings.extend(line),
            Err(err) => recorded = Err(err),
        }
    }
    let writes = plan.write;
    warnings.extend(publish::deliver(
        &run,
        &config,
        plan,
        &session,
        publish::Stage::Check,
    )?);
    recorded?;
    if writes && trail.is_some() {
        warnings.extend(super::review::still_approved(
            &run, &db_path, &config, &session,
        )?);
    }
    let stdout = match args.format {
        OutputFormat::Text => render::text(&run),
        OutputFormat::Markdown => render::markdown(&run),
        OutputFormat::Json => render::json(&run),
    };
    Ok(Outcome {
        stdout,
        warnings,
        exit_code: run.exit_code(args.fail_on),
    })
}

/// The config a job applies. In a pull request job it is the base's: a pull request does not
/// choose its own policy, routing or audit branch (its change applies once merged). `--config`
/// is the user's own choice and wins.
pub(crate) fn trusted_config(
    repo: &Path,
    explicit: Option<&Path>,
    session: &Session,
    warnings: &mut Vec<String>,
) -> Result<Config, Error> {
    let here = Config::load(repo, explicit)?;
    let Some(pull) = session.pull().filter(|_| explicit.is_none()) else {
        return Ok(here);
    };
    config_at_base(repo, Some(here), pull, session, warnings)
}

/// The config as it is at `pull`'s base commit: fetched when the checkout lacks the base, else
/// read through the API; a run that can do neither fails closed. `here` is the pull request's
/// own, when the checkout is its (a warning says when it differs); `publish` checks out the
/// default branch, which is not the pull request's word.
pub(crate) fn config_at_base(
    repo: &Path,
    here: Option<Config>,
    pull: &github::PullRequest,
    session: &Session,
    warnings: &mut Vec<String>,
) -> Result<Config, Error> {
    let base = &pull.base_sha;
    let git = Git::open(repo).ok();
    let prefix = git
        .as_ref()
        .and_then(|g| repo_prefix(g, repo).ok())
        .unwrap_or_default();
    let rel = if prefix.is_empty() {
        crate::config::FILE_NAME.to_owned()
    } else {
        format!("{prefix}/{}", crate::config::FILE_NAME)
    };
    // A shallow checkout lacks the base: fetch it before reading any config, or ask the API.
    let have_base = git
        .as_ref()
        .is_some_and(|g| g.resolve(base).is_ok() || g.fetch_commit(base).is_ok());
    let from_git = git
        .as_ref()
        .filter(|_| have_base)
        .map(|g| g.read_file_at(base, &rel))
        .transpose()?;
    let text = match from_git {
        Some(text) => text,
        None => match github::session::FileSource::new(session) {
            Some(api) => api.read_checked(&rel, base).map_err(|err| {
                Error::usage(
                    format!(
                        "pull request #{}: the base's {} cannot be read from the API ({err}), and a pull request never chooses its own policy",
                        pull.number,
                        crate::config::FILE_NAME
                    ),
                    Some("check out with history (actions/checkout with `fetch-depth: 0`), or pass --config FILE"),
                )
            })?,
            None => {
                return Err(Error::usage(
                    format!(
                        "pull request #{}: the base's {} cannot be read (base {} is not in the checkout, fetching it failed, and there is no token to ask the API), and a pull request never chooses its own policy",
                        pull.number,
                        crate::config::FILE_NAME,
                        short(base)
                    ),
                    Some("check out with history (actions/checkout with `fetch-depth: 0`), or pass --config FILE"),
                ));
            }
        },
    };
    let label = std::path::PathBuf::from(format!("{}:{rel}", short(base)));
    let trusted = match &text {
        Some(text) => Config::parse(text, &label)?,
        None => Config::default(),
    };
    if here.is_some_and(|here| trusted != here) {
        warnings.push(format!(
            "the pull request changes {}: this run applies the base's; the change applies once merged",
            crate::config::FILE_NAME
        ));
    }
    Ok(trusted)
}

/// The category templates of the audit database as it is at the pull request's base: the
/// checkout's copy is the pull request's to change. An explicit `--db` is the user's own.
pub(crate) fn base_templates(
    repo: &Path,
    config: &Config,
    session: &Session,
    base: &str,
    db: Option<&Path>,
) -> Result<Vec<CategoryTemplate>, Error> {
    if let Some(db) = db {
        return Ok(Store::open(db)?.category_templates()?);
    }
    let git = Git::open(repo).ok();
    let prefix = match &git {
        Some(git) => repo_prefix(git, repo)?,
        None => String::new(),
    };
    let rel = config.audit.db.replace('\\', "/");
    let path = if prefix.is_empty() {
        rel
    } else {
        format!("{prefix}/{rel}")
    };
    let unreadable = |why: String| {
        Error::usage(
            format!(
                "the audit database {path} at the pull request's base {} cannot be read ({why}), and its category templates are the policy",
                short(base)
            ),
            Some(
                "check out with history (actions/checkout with `fetch-depth: 0`), or pass --db FILE",
            ),
        )
    };
    // From git when the base is here (or can be fetched), else through the API. Not at the
    // base: the defaults and the config's own categories. There but unreadable: the run stops
    // (a looser policy is never the fallback).
    let local = git
        .as_ref()
        .filter(|g| g.resolve(base).is_ok() || g.fetch_commit(base).is_ok());
    let bytes = match (local, github::session::FileSource::new(session)) {
        (Some(git), _) => git.read_bytes_at(base, &path)?,
        (None, Some(api)) => api.read_bytes_checked(&path, base).map_err(unreadable)?,
        (None, None) => {
            return Err(unreadable(
                "the base is not in the checkout and there is no token to ask the API".to_owned(),
            ));
        }
    };
    let Some(bytes) = bytes else {
        return Ok(Vec::new());
    };
    let dir = tempfile::Builder::new()
        .prefix("skillgate-base-db-")
        .tempdir()
        .map_err(|err| Error::io("create a directory in", std::env::temp_dir(), err))?;
    let copy = dir.path().join("skills.db");
    std::fs::write(&copy, &bytes).map_err(|err| Error::io("write", &copy, err))?;
    Store::open(&copy)
        .and_then(|store| store.category_templates())
        .map_err(|err| {
            // Named as the user knows it, not as the temporary copy it was read from.
            let why = err
                .to_string()
                .replace(&copy.display().to_string(), "the copy");
            unreadable(if bytes.starts_with(b"version https://git-lfs") {
                format!("{why}; it is a Git LFS pointer: keep the database out of LFS")
            } else {
                why
            })
        })
}

/// Fail before minutes of suites, not after, when the results document cannot be written.
fn check_out_path(out: &Path) -> Result<(), Error> {
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

/// `--repo`, canonical; a usage error when it is not a directory.
pub(crate) fn open_repo(path: &Path) -> Result<PathBuf, Error> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => path
            .canonicalize()
            .map_err(|err| Error::io("resolve", path, err)),
        Ok(_) => Err(Error::usage(
            format!("--repo {} is not a directory", path.display()),
            None,
        )),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Err(Error::usage(
            format!("--repo {} does not exist", path.display()),
            None,
        )),
        Err(err) => Err(Error::io("read", path, err)),
    }
}

/// Which skills to gate: all of them, or those changed between base and head; then `--skill`.
fn select(
    args: &CheckArgs,
    repo: &Path,
    layout: &Layout<'_>,
    tree: &Tree,
    session: &Session,
    warnings: &mut Vec<String>,
) -> Result<Scope, Error> {
    let mut scope = if args.all {
        let git = Git::open(repo).ok();
        let head = git.as_ref().and_then(|g| g.head().ok().flatten());
        let dirty = head.is_some()
            && git
                .as_ref()
                .is_some_and(|g| g.is_dirty(repo).unwrap_or(false));
        Scope {
            changes: tree
                .skills
                .iter()
                .map(|s| SkillChange {
                    skill: s.clone(),
                    kind: ChangeKind::Unchanged,
                })
                .collect(),
            base: None,
            head,
            dirty,
            base_reader: None,
            findings: Vec::new(),
        }
    } else {
        changed(args, repo, layout, tree, session, warnings)?
    };
    if !args.skills.is_empty() {
        let mut picked: Vec<SkillChange> = Vec::new();
        for wanted in &args.skills {
            // A path names one skill (`plugins/a/skills/setup`, or its SKILL.md); a name, every
            // skill whose directory has it (two plugins' `setup` are both gated).
            let path = crate::discover::SKILL_FILES
                .iter()
                .find_map(|file| wanted.strip_suffix(&format!("/{file}")))
                .unwrap_or(wanted)
                .trim_end_matches('/');
            // `.` or a bare `SKILL.md`: the repository itself (a root of `.`).
            let top = path == "." || crate::discover::skill_file_rank(path).is_some();
            let matches = |skill: &SkillDir| {
                if top {
                    skill.dir.is_empty()
                } else if path.contains('/') {
                    skill.dir == path
                } else {
                    skill.dir_name() == path
                }
            };
            let found: Vec<SkillChange> = scope
                .changes
                .iter()
                .filter(|c| matches(&c.skill))
                .cloned()
                .chain(
                    tree.skills
                        .iter()
                        .filter(|s| {
                            matches(s) && !scope.changes.iter().any(|c| c.skill.dir == s.dir)
                        })
                        .map(|s| SkillChange {
                            skill: s.clone(),
                            kind: ChangeKind::Unchanged,
                        }),
                )
                .collect();
            if found.is_empty() {
                let known: Vec<&str> = tree.skills.iter().map(|s| s.dir.as_str()).collect();
                return Err(Error::usage(
                    format!("no skill named `{wanted}` in {}", repo.display()),
                    Some(&format!(
                        "name a skill by its directory's name or its path; skills found: {}",
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    )),
                ));
            }
            for change in found {
                if !picked.iter().any(|p| p.skill == change.skill) {
                    picked.push(change);
                }
            }
        }
        scope.changes = picked;
    }
    Ok(scope)
}

fn changed(
    args: &CheckArgs,
    repo: &Path,
    layout: &Layout<'_>,
    tree: &Tree,
    session: &Session,
    warnings: &mut Vec<String>,
) -> Result<Scope, Error> {
    let git = Git::open(repo)?;
    let Some(checked_out) = git.head()? else {
        return Err(Error::usage(
            format!("{} has no commits yet, so nothing changed", repo.display()),
            Some("commit the skills first, or use --all to gate every skill as it is"),
        ));
    };
    // Paths from git are relative to the top of the repository; skills to `--repo`.
    let prefix = repo_prefix(&git, repo)?;
    let head = match &args.head {
        Some(rev) => {
            let sha = git.resolve(rev)?;
            if sha != checked_out {
                return Err(Error::usage(
                    format!(
                        "--head {rev} ({}) is not the checked-out commit ({})",
                        short(&sha),
                        short(&checked_out)
                    ),
                    Some("check out the head revision first: suites run from the working tree"),
                ));
            }
            Some(sha)
        }
        None => None,
    };
    let dirty = git.is_dirty(repo)?;
    // In a pull request job the base is the pull request's; with a shallow checkout it may not
    // be here, and then the API says what changed.
    let pull_base = match (&args.base, session.pull()) {
        (None, Some(pull)) => Some(pull.base_sha.clone()),
        _ => None,
    };
    let from_api = match &pull_base {
        Some(base) if git.resolve(base).is_err() => {
            changes_without_history(&git, base, session, warnings)?
        }
        _ => None,
    };
    let base_from_api = from_api
        .as_ref()
        .and_then(|_| github::session::FileSource::new(session));
    let (base, files, base_files) = match (pull_base.clone(), from_api) {
        (Some(base), Some(files)) => {
            // The base's files: the checkout's, less what the pull request added, plus what it
            // removed.
            let mut base_files = git.files_at(&checked_out)?;
            for change in &files {
                match change {
                    crate::git::FileChange::Added(p) => base_files.retain(|f| f != p),
                    crate::git::FileChange::Deleted(p) => base_files.push(p.clone()),
                    crate::git::FileChange::Renamed { from, to } => {
                        base_files.retain(|f| f != to);
                        base_files.push(from.clone());
                    }
                    crate::git::FileChange::Modified(_) => {}
                }
            }
            (base, files, base_files)
        }
        _ => {
            let base = match pull_base.as_ref().or(args.base.as_ref()) {
                Some(rev) => git.resolve(rev)?,
                None => git.default_base()?.ok_or_else(|| {
                    Error::usage(
                        "no base revision: there is no default branch to compare with",
                        Some("pass --base REV, or --all to gate every skill"),
                    )
                })?,
            };
            let files = git.changes(&base, head.as_deref())?;
            let base_files = git.files_at(&base)?;
            (base, files, base_files)
        }
    };
    let files: Vec<_> = files
        .into_iter()
        .filter_map(|change| relative_change(change, &prefix))
        .collect();
    let base_found = layout.find_in_paths(base_files.iter().filter_map(|p| strip(p, &prefix)));
    // A change behind a symlink in a skill is a change to the skill.
    let files = crate::changes::through_links(&tree.links, &files);
    // A changed file in a directory whose `SKILL.md` no root covers gates that directory too.
    let changes = gated_changes(layout, tree, &base_found, &files);
    let findings = crate::changes::not_gated(&changes, &files, &tree.links);
    Ok(Scope {
        changes,
        base: Some(base.clone()),
        head: Some(checked_out),
        dirty,
        base_reader: Some(BaseReader {
            git,
            base,
            prefix,
            api: base_from_api,
        }),
        findings,
    })
}

/// The pull request's files from the API, when the base commit was not fetched. Above GitHub's
/// cap of 3,000 files the list is not whole: then the base commit is fetched with git, and
/// `None` says to diff with git.
fn changes_without_history(
    git: &Git,
    base: &str,
    session: &Session,
    warnings: &mut Vec<String>,
) -> Result<Option<Vec<crate::git::FileChange>>, Error> {
    let (Some(pull), Some(repo)) = (session.pull(), session.repo.as_ref()) else {
        return Err(crate::git::GitError::UnknownRevision {
            rev: base.to_owned(),
            repo: git.toplevel().to_path_buf(),
        }
        .into());
    };
    let mut why = "the base commit is not in the checkout and there is no token to ask the API";
    if session.token.is_some() {
        let listed = session.with_client(async |client| {
            Ok(github::session::pull_files(client, repo, pull).await?)
        })?;
        match listed {
            Some(files) => return Ok(Some(files)),
            None => {
                warnings.push(format!(
                    "pull request #{} changes more than the {} files GitHub's API lists: fetched base {} with git instead",
                    pull.number,
                    github::session::PR_FILES_CAP,
                    short(base)
                ));
                why = "the pull request changes more files than GitHub's API lists (3,000)";
            }
        }
    }
    git.fetch_commit(base).map_err(|err| {
        Error::usage(
            format!(
                "cannot tell what pull request #{} changed: {why}, and fetching base {} failed: {err}",
                pull.number,
                short(base)
            ),
            Some("check out with history: actions/checkout with `fetch-depth: 0`"),
        )
    })?;
    Ok(None)
}

/// `--repo` relative to the top of its git repository, `/`-separated (empty at the top).
pub(crate) fn repo_prefix(git: &Git, repo: &Path) -> Result<String, Error> {
    let top = git
        .toplevel()
        .canonicalize()
        .map_err(|err| Error::io("resolve", git.toplevel(), err))?;
    Ok(repo
        .strip_prefix(&top)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default())
}

pub(crate) fn short(sha: &str) -> &str {
    // At most 12 bytes, cut on a character: a document's "sha" may be anything.
    let end = (0..=sha.len().min(12))
        .rev()
        .find(|&i| sha.is_char_boundary(i))
        .unwrap_or(0);
    &sha[..end]
}

pub(crate) fn strip<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    if prefix.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(prefix)?.strip_prefix('/')
    }
}

pub(crate) fn relative_change(
    change: crate::git::FileChange,
    prefix: &str,
) -> Option<crate::git::FileChange> {
    use crate::git::FileChange as F;
    let s = |p: &str| strip(p, prefix).map(str::to_owned);
    Some(match change {
        F::Added(p) => F::Added(s(&p)?),
        F::Modified(p) => F::Modified(s(&p)?),
        F::Deleted(p) => F::Deleted(s(&p)?),
        F::Renamed { from, to } => match (s(&from), s(&to)) {
            (Some(from), Some(to)) => F::Renamed { from, to },
            (None, Some(to)) => F::Added(to),
            (Some(from), None) => F::Deleted(from),
            (None, None) => return None,
        },
    })
}

/// Read a skill's `SKILL.md`, lint it, hash it and find its suite.
pub(crate) fn prepare(
    repo: &Path,
    tree: &Tree,
    change: &SkillChange,
    base: Option<&BaseReader>,
    config: &Config,
) -> Result<Prepared, Error> {
    let skill = &change.skill;
    let file = skill.skill_file_path();
    // A `SKILL.md` no root covers, gated because it changed: a maintainer decides.
    let uncovered = crate::discover::gated_reason(&Layout::new(&config.skills), skill);
    if change.kind == ChangeKind::Deleted {
        // The skill is gone from the working tree: its last frontmatter is at the base.
        let text = base.and_then(|b| b.read(&file));
        let meta = text
            .map(|t| skill::read_meta(&t, &file, skill.dir_name()).0)
            .unwrap_or_default();
        // `meta` is the base's own.
        let base_category = BaseCategory::Known(meta.category.clone());
        return Ok(Prepared {
            change: change.clone(),
            name: skill.dir_name().to_owned(),
            meta,
            lint: Vec::new(),
            content_hash: None,
            resolution: Resolution::None,
            analysis: None,
            breaking: Vec::new(),
            category_change: None,
            base_category,
            uncovered,
        });
    }
    let dir = repo.join(&skill.dir);
    let files = skill_files(repo, skill, &tree.skills)
        .map_err(|err| Error::io("list the files of", &dir, err))?;
    let lint::Linted {
        meta,
        findings: mut lint,
    } = lint::lint_skill(repo, repo, skill, &files, &config.lint);
    let content_hash = skill::content_hash(&dir, &files)
        .map_err(|err| Error::io("hash the files of", &dir, err))?;
    let resolution = suite::resolve(&dir, repo, &meta, &files);
    if let Resolution::Unavailable { reason, .. } = &resolution
        && reason.contains("outside the repository")
    {
        lint.push(Finding::error("path-escape", &file, None, reason.clone()));
    }
    // A name that holds a secret is not a name to record or show.
    let secret_name = meta
        .name
        .as_deref()
        .is_some_and(|n| crate::analysis::secrets::redact_text(n) != n);
    if secret_name {
        lint.push(Finding::error(
            "name-secret",
            &file,
            None,
            "the `name` holds what looks like a secret: it is not recorded or shown",
        ));
    }
    let name = meta
        .name
        .clone()
        .filter(|n| skill::name_problem(n).is_none() && !secret_name)
        .unwrap_or_else(|| crate::analysis::secrets::redact_text(skill.dir_name()));
    let sources = Sources::read(repo, &dir, &files);
    let analysis = analysis::measure(&sources, &meta, &skill.dir);
    // The skill as it was at the base, for what its users see change.
    let base_file = match &change.kind {
        ChangeKind::Renamed { from } => Some(
            SkillDir {
                dir: from.clone(),
                skill_file: skill.skill_file.clone(),
            }
            .skill_file_path(),
        ),
        ChangeKind::Modified => Some(file.clone()),
        _ => None,
    };
    let before_text = base_file.and_then(|path| base.and_then(|b| b.read(&path)));
    let before = before_text
        .as_deref()
        .map(|text| skill::read_meta(text, &file, skill.dir_name()).0);
    let mut breaking = before
        .as_ref()
        .map(|before| skill::breaking_changes(before, &meta))
        .unwrap_or_default();
    // Inputs and fields the base documented that the head no longer does.
    if let Some(before_text) = &before_text
        && let Some(now) = read_skill_md(&dir.join(&skill.skill_file))
    {
        breaking.extend(crate::documented::removed(before_text, &now));
    }
    let breaking = breaking
        .iter()
        .map(|b| crate::analysis::secrets::redact_text(b))
        .collect();
    // A category picks the policy: the skill cannot choose a looser one for itself.
    let category_change = before.as_ref().and_then(|before| {
        CategoryChange::between(before.category.as_deref(), meta.category.as_deref()).map(
            |change| CategoryChange {
                from: change
                    .from
                    .map(|c| crate::analysis::secrets::redact_text(&c)),
                to: change.to.map(|c| crate::analysis::secrets::redact_text(&c)),
            },
        )
    });
    let base_category = match (&change.kind, &before) {
        // `--all` gates the tree as it is: no pull request chose the category.
        (ChangeKind::Unchanged, _) => BaseCategory::Known(meta.category.clone()),
        (_, Some(before)) => BaseCategory::Known(before.category.clone()),
        (_, None) => BaseCategory::Unknown,
    };
    Ok(Prepared {
        change: change.clone(),
        name,
        meta,
        lint,
        content_hash: Some(content_hash),
        resolution,
        analysis: Some(analysis),
        breaking,
        category_change,
        base_category,
        uncovered,
    })
}

/// A `SKILL.md` as text, unless it is too large or unreadable (lint reports why).
fn read_skill_md(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, skill::MAX_SKILL_FILE_BYTES + 1),
        &mut text,
    )
    .ok()?;
    (text.len() as u64 <= skill::MAX_SKILL_FILE_BYTES).then_some(text)
}

/// The rules across skills ([`lint::duplicate_names`]) over every skill of the tree, as `lint`
/// applies them; each gated skill gets the findings about it. The `name` of a skill not gated
/// is read from its `SKILL.md` (one that cannot be read has none).
pub(crate) fn flag_duplicate_names(
    repo: &Path,
    config: &Config,
    tree: &Tree,
    prepared: &mut [Prepared],
) {
    let layout = Layout::new(&config.skills);
    let gated = |skill: &SkillDir| {
        prepared
            .iter()
            .find(|p| p.change.kind != ChangeKind::Deleted && p.change.skill.dir == skill.dir)
    };
    let roots: Vec<Option<String>> = tree.skills.iter().map(|s| layout.root_of(&s.dir)).collect();
    // Only a skill under the root of a gated one can share its name within that root: the
    // others' `SKILL.md` files are not read (a run that gates one skill of thousands reads one
    // root's).
    let gated_roots: std::collections::HashSet<&Option<String>> = tree
        .skills
        .iter()
        .zip(&roots)
        .filter(|(skill, _)| gated(skill).is_some())
        .map(|(_, root)| root)
        .collect();
    let names: Vec<Option<String>> = tree
        .skills
        .iter()
        .zip(&roots)
        .map(|(skill, root)| match gated(skill) {
            Some(p) => p.meta.name.clone(),
            None if !gated_roots.contains(root) => None,
            None => {
                let file = skill.skill_file_path();
                lint::read_skill_file(repo, &repo.join(&file), &file)
                    .ok()
                    .and_then(|text| skill::read_meta(&text, &file, skill.dir_name()).0.name)
            }
        })
        .collect();
    let placed: Vec<lint::Placed<'_>> = tree
        .skills
        .iter()
        .zip(&names)
        .zip(&roots)
        .map(|((skill, name), root)| lint::Placed {
            skill,
            root: root.as_deref(),
            name: name.as_deref(),
        })
        .collect();
    for finding in lint::duplicate_names(&placed) {
        if let Some(p) = prepared.iter_mut().find(|p| {
            p.change.kind != ChangeKind::Deleted && p.change.skill.skill_file_path() == finding.file
        }) {
            p.lint.push(finding);
        }
    }
}

/// One run of a suite, its files under `base`.
fn job(label: String, repo: &Path, base: &Path, skill: &SkillDir, suite: &Suite) -> Job {
    let report_dir = base.join("reports");
    Job {
        label,
        program: suite.program.clone(),
        // A detected framework is told to write its reports there.
        args: suite
            .args
            .iter()
            .map(|arg| arg.replace(REPORT_DIR, &report_dir.to_string_lossy()))
            .collect(),
        cwd: repo.join(&skill.dir),
        report_dir,
        stdout: base.join("stdout.log"),
        stderr: base.join("stderr.log"),
    }
}

/// What a skill's suite showed: read from its attempts by `check`, or taken from a results
/// document by `publish` (which computes everything else itself).
#[derive(Debug, Clone)]
pub(crate) struct Evidence {
    pub suite: SuiteSignal,
    pub report: Option<SuiteReport>,
    /// The counts and failures; their coverage fields are set when the skill is decided.
    pub tests: Option<TestResults>,
    /// Measured coverage only: declared coverage comes from the skill's own files.
    pub coverage: Option<CoverageReport>,
    pub suite_failure: Option<String>,
    pub results_unread: Option<String>,
    pub coverage_unread: Option<String>,
    pub results_disagree: Option<String>,
    /// Why the counts are the pull request's own word, when the policy does not trust that.
    pub self_reported: Option<String>,
    pub attempts: u32,
    /// Findings made while reading the results (declared report paths, unreadable output).
    pub lint: Vec<Finding>,
}

impl Evidence {
    /// No suite ran: a deleted skill, no suite, or one that could not run.
    pub(crate) fn not_run(p: &Prepared) -> Self {
        let (suite, report) = match &p.resolution {
            _ if p.change.kind == ChangeKind::Deleted => (SuiteSignal::NotApplicable, None),
            Resolution::Unavailable { suite, reason } => (
                SuiteSignal::Unavailable {
                    reason: reason.clone(),
                },
                Some(SuiteReport {
                    suite: suite.clone(),
                    outcome: format!("not run: {reason}"),
                    exit_code: None,
                    timed_out: false,
                    duration_ms: 0,
                    attempts: 0,
                    earlier_attempts_ms: Vec::new(),
                    results_from: Vec::new(),
                }),
            ),
            _ => (SuiteSignal::Missing, None),
        };
        Self {
            suite,
            report,
            tests: None,
            coverage: None,
            suite_failure: None,
            results_unread: None,
            coverage_unread: None,
            results_disagree: None,
            self_reported: None,
            attempts: 0,
            lint: Vec::new(),
        }
    }

    /// What the suite's attempts showed: the last one counts, earlier ones name flaky tests.
    fn from_attempts(
        p: &Prepared,
        mut attempts: Vec<Attempt>,
        settings: &runner::Settings,
        timestamp: &str,
        warnings: &mut Vec<String>,
    ) -> Self {
        let count = u32::try_from(attempts.len()).unwrap_or(u32::MAX);
        let flaky = attempt::flaky(&attempts);
        let (Resolution::Found(suite), Some(last)) = (&p.resolution, attempts.pop()) else {
            return Self::not_run(p);
        };
        if p.change.kind == ChangeKind::Deleted {
            return Self::not_run(p);
        }
        let done = &last.finished;
        let report = SuiteReport {
            // A declared command can carry a token (`API_KEY=… pytest`).
            suite: Some(Suite {
                command: crate::analysis::secrets::redact_text(&suite.command),
                ..suite.clone()
            }),
            outcome: done.describe(settings.timeout),
            exit_code: done.exit_code,
            timed_out: done.timed_out,
            duration_ms: millis(done.duration),
            attempts: count,
            earlier_attempts_ms: attempts
                .iter()
                .map(|a| millis(a.finished.duration))
                .collect(),
            results_from: last.sources,
        };
        warnings.extend(last.warnings);
        let mut run = last.run;
        for name in &flaky {
            if !run.flaky.contains(name) {
                run.flaky.push(name.clone());
            }
        }
        let coverage = last
            .coverage
            .as_ref()
            .filter(|c| c.ratio().is_some())
            .map(CoverageReport::measured);
        Self {
            suite: SuiteSignal::Ran,
            tests: Some(TestResults::from_run(
                &run,
                report.duration_ms,
                timestamp,
                None,
                None,
            )),
            report: Some(report),
            coverage,
            suite_failure: last.failure,
            results_unread: last.unread,
            coverage_unread: last.coverage_unread,
            results_disagree: last.disagreement,
            self_reported: None,
            attempts: count,
            lint: last.lint,
        }
    }
}

/// A secret-like value taken for an example (`file:line rule redacted (why)`), as a finding: a
/// warning shown in every report and annotated on its line, whatever the tier, so that the
/// judgement that it is an example is always in front of a reviewer.
fn secret_example(warning: &str) -> Finding {
    let (place, what) = warning.split_once(' ').unwrap_or((warning, ""));
    let (file, line) = match place.rsplit_once(':') {
        Some((file, line)) => match line.parse::<usize>() {
            Ok(line) => (file, Some(line)),
            Err(_) => (place, None),
        },
        None => (place, None),
    };
    Finding::warning(
        "secret-example",
        file,
        line,
        format!("taken for an example, not a secret: {what}; if it is real, remove and rotate it"),
    )
}

/// From what the skill's files show and what its suite showed, build the signals and decide.
pub(crate) fn assess(
    p: Prepared,
    evidence: Evidence,
    policy: crate::policy::Policy,
    previous_coverage: Option<f64>,
) -> SkillResult {
    let mut lint = p.lint;
    lint.extend(evidence.lint);
    if let Some(analysis) = &p.analysis {
        lint.extend(analysis.secret_warnings.iter().map(|w| secret_example(w)));
    }
    let coverage = match (&evidence.coverage, p.meta.test_coverage) {
        (Some(c), _) => CoverageSignal::Measured {
            ratio: c.ratio,
            format: c.format.clone().unwrap_or_default(),
        },
        (None, Some(ratio)) => CoverageSignal::Declared { ratio },
        (None, None) => CoverageSignal::Unknown,
    };
    let coverage_report = match &coverage {
        CoverageSignal::Measured { .. } => evidence.coverage.clone(),
        CoverageSignal::Declared { ratio } => Some(CoverageReport {
            ratio: *ratio,
            source: "declared".to_owned(),
            format: None,
            unit: None,
            lines_covered: None,
            lines_total: None,
            statements_covered: None,
            statements_total: None,
        }),
        CoverageSignal::Unknown => None,
    };
    let coverage_delta = match (coverage.ratio(), previous_coverage) {
        (Some(now), Some(before)) => Some(((now - before) * 1000.0).round() / 10.0),
        _ => None,
    };
    let tests = evidence.tests.map(|mut tests| {
        tests.coverage = coverage.ratio().map(crate::gate::percent);
        tests.coverage_delta = coverage_delta;
        tests
    });
    let analysis = p.analysis;
    let risk = (p.change.kind != ChangeKind::Deleted).then(|| {
        let critical = stricter::is_critical(&policy, &p.base_category, p.meta.category.as_deref());
        risk::score(
            &risk_inputs(
                analysis.as_ref(),
                // Declared coverage would lower the score on the author's word alone.
                stricter::risk_coverage(&coverage),
                critical,
                p.meta.risk_score,
            ),
            &policy.risk_weights,
        )
    });
    let signals = Signals {
        change: p.change.kind.clone(),
        lint_errors: lint
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}", f.location(), f.message))
            .collect(),
        suite: evidence.suite,
        suite_failure: evidence.suite_failure,
        results_unread: evidence.results_unread,
        coverage_unread: evidence.coverage_unread,
        results_disagree: evidence.results_disagree,
        self_reported: evidence.self_reported,
        tests: tests.as_ref().map(|t| TestCounts {
            passed: t.pass_count,
            failed: t.fail_count,
            skipped: t.skip_count,
        }),
        coverage,
        declared_risk: p.meta.risk_score,
        declared_approval_level: p.meta.approval_level,
        required_pass_rate: stricter::required_pass_rate(&policy, p.meta.required_test_pass_rate),
        attempts: evidence.attempts,
        // Flaky across retries, and as the framework itself reported (reruns of its own).
        flaky: tests
            .as_ref()
            .map(|t| t.flaky_tests.clone())
            .unwrap_or_default(),
        analysis,
        risk,
        breaking: p.breaking,
        category_change: p.category_change,
        uncovered: p.uncovered,
        tests_not_run: p.resolution.tests_not_run(),
    };
    let decision = decide(&signals, &policy);
    SkillResult {
        name: p.name,
        dir: p.change.skill.dir.clone(),
        skill_file: p.change.skill.skill_file.clone(),
        change: p.change.kind,
        content_hash: p.content_hash,
        version: p.meta.version,
        category: p.meta.category,
        owner: p.meta.owner,
        team: p.meta.team,
        tags: p.meta.tags,
        generated_by: p.meta.generated_by,
        phase4_pattern_id: p.meta.phase4_pattern_id,
        lint,
        suite: evidence.report,
        tests,
        coverage: coverage_report,
        signals,
        decision,
    }
}

/// A skill's policy: the config's `[policy]`, its category's template, its
/// `[policy.categories.NAME]`; for a new skill or a changed category, the stricter of the
/// base's and the head's.
pub(crate) fn policy_for(
    p: &Prepared,
    config: &Config,
    templates: &[CategoryTemplate],
) -> crate::policy::Policy {
    stricter::policy_for_change(
        &config.policy,
        templates,
        &p.base_category,
        p.meta.category.as_deref(),
    )
}

/// The risk score's inputs from what the gate measured.
fn risk_inputs(
    analysis: Option<&Analysis>,
    coverage: Option<f64>,
    critical: bool,
    declared: Option<f64>,
) -> RiskInputs {
    RiskInputs {
        security_sensitive: analysis
            .is_some_and(|a| !a.secrets.is_empty() || !a.security_sensitive.is_empty()),
        elevated: analysis
            .is_some_and(|a| !a.infrastructure.is_empty() || !a.database_writes.is_empty()),
        complexity: analysis.and_then(|a| a.complexity.as_ref()).map(|c| c.max),
        coverage,
        dependencies: analysis.map_or(0, |a| a.dependency_count as usize),
        critical,
        declared,
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
        scope: if all { "all" } else { "changed" }.to_owned(),
        started_at,
        finished_at,
    }
}

pub(crate) fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
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
