//! `skillgate check`: discover → run → read → decide → record → render, on a local checkout.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::analysis::risk::{self, RiskInputs};
use crate::analysis::{self, Sources};
use crate::attempt::{self, Attempt};
use crate::changes::{ChangeKind, SkillChange, skill_changes};
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
use crate::policy::template::{self, CategoryTemplate};
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
}

/// Reads files as they were at the base commit: with git, or through the API when a shallow
/// checkout does not have the base.
struct BaseReader {
    git: Git,
    base: String,
    /// `--repo` relative to the top of the git repository (empty at the top).
    prefix: String,
    api: Option<github::session::FileSource>,
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
struct Prepared {
    change: SkillChange,
    name: String,
    meta: SkillMeta,
    lint: Vec<Finding>,
    content_hash: Option<String>,
    resolution: Resolution,
    /// What the skill's files show; `None` for a deleted skill.
    analysis: Option<Analysis>,
    /// What breaks for the skill's users against the base: `name` changed, a major version, a
    /// documented input or field removed.
    breaking: Vec<String>,
    /// The base's `category` when the change gives the skill another one.
    category_change: Option<CategoryChange>,
}

/// `progress` hears of each suite as it starts and ends.
pub fn run(args: &CheckArgs, progress: &Arc<dyn Progress>) -> Result<Outcome, Error> {
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
    if scope.dirty {
        warnings.push(
            "the working tree has uncommitted changes: they are tested as they are".to_owned(),
        );
    }

    // In a job that publishes, the audit trail is the audit branch's; read it first.
    let (mut trail, db_path) =
        super::publish::open_trail(plan.write, &config, &session, &repo, args.db.as_deref())?;
    // Open (and migrate, or refuse) the audit trail before spending minutes on suites.
    let mut store = Store::open(&db_path)?;
    // Category templates sit between the defaults and the config; a broken one stops the run.
    let templates = store.category_templates()?;

    let mut prepared: Vec<Prepared> = scope
        .changes
        .iter()
        .map(|change| prepare(&repo, &tree, change, scope.base_reader.as_ref(), &config))
        .collect::<Result<_, _>>()?;
    flag_duplicate_names(&mut prepared);

    let workspace = tempfile::Builder::new()
        .prefix("skillgate-")
        .tempdir()
        .map_err(|err| Error::io("create a workspace in", std::env::temp_dir(), err))?;
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
                let place = workspace.path().join(format!("{i:04}/attempt-{number}"));
                let p = &prepared[*i];
                let label = if number == 1 {
                    p.name.clone()
                } else {
                    format!("{} (attempt {number})", p.name)
                };
                job(label, &repo, &place, &p.change.skill, suite)
            })
            .collect();
        let finished = runner::run_all(batch.clone(), &settings, progress)?;
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

    let finished_at = now();
    let mut skills = Vec::with_capacity(prepared.len());
    for (p, attempts) in prepared.into_iter().zip(attempts) {
        let previous = store.previous_coverage(&p.name)?;
        let policy = policy_for(&p, &config, &templates);
        skills.push(assess(
            p,
            attempts,
            policy,
            &settings,
            &finished_at,
            previous,
            &mut warnings,
        ));
    }
    let run = GateRun {
        schema: SCHEMA.to_owned(),
        tool: Tool::default(),
        run: run_info(&repo, &scope, &session, args.all, started_at, finished_at),
        summary: GateRun::summarize(&skills),
        findings: tree.findings,
        skills,
    };
    let stats = store.record(&run)?;
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
    let from_git = git
        .as_ref()
        .filter(|g| g.resolve(base).is_ok())
        .map(|g| g.read_file_at(base, &rel).ok().flatten());
    let text = match from_git {
        Some(text) => text,
        None => match github::session::FileSource::new(session) {
            Some(api) => api.read(&rel, base),
            None => {
                warnings.push(format!(
                    "the base's {} could not be read (no history, no token): this run applies the pull request's own",
                    crate::config::FILE_NAME
                ));
                return Ok(here);
            }
        },
    };
    let label = std::path::PathBuf::from(format!("{}:{rel}", short(base)));
    let trusted = match &text {
        Some(text) => Config::parse(text, &label)?,
        None => Config::default(),
    };
    if trusted != here {
        warnings.push(format!(
            "the pull request changes {}: this run applies the base's; the change applies once merged",
            crate::config::FILE_NAME
        ));
    }
    Ok(trusted)
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
        }
    } else {
        changed(args, repo, layout, tree, session, warnings)?
    };
    if !args.skills.is_empty() {
        let mut picked = Vec::new();
        for name in &args.skills {
            let found = scope
                .changes
                .iter()
                .find(|c| c.skill.dir_name() == name)
                .cloned()
                .or_else(|| {
                    tree.skills
                        .iter()
                        .find(|s| s.dir_name() == name)
                        .map(|s| SkillChange {
                            skill: s.clone(),
                            kind: ChangeKind::Unchanged,
                        })
                });
            match found {
                Some(change) => picked.push(change),
                None => {
                    let known: Vec<&str> = tree.skills.iter().map(SkillDir::dir_name).collect();
                    return Err(Error::usage(
                        format!("no skill named `{name}` in {}", repo.display()),
                        Some(&format!(
                            "skills found: {}",
                            if known.is_empty() {
                                "none".to_owned()
                            } else {
                                known.join(", ")
                            }
                        )),
                    ));
                }
            }
        }
        picked.dedup_by(|a, b| a.skill == b.skill);
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
    let base_skills = layout.skills_in_paths(base_files.iter().filter_map(|p| strip(p, &prefix)));
    let changes = skill_changes(&tree.skills, &base_skills, &files);
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
fn repo_prefix(git: &Git, repo: &Path) -> Result<String, Error> {
    let top = git
        .toplevel()
        .canonicalize()
        .map_err(|err| Error::io("resolve", git.toplevel(), err))?;
    Ok(repo
        .strip_prefix(&top)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default())
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

fn strip<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    if prefix.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(prefix)?.strip_prefix('/')
    }
}

fn relative_change(change: crate::git::FileChange, prefix: &str) -> Option<crate::git::FileChange> {
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
fn prepare(
    repo: &Path,
    tree: &Tree,
    change: &SkillChange,
    base: Option<&BaseReader>,
    config: &Config,
) -> Result<Prepared, Error> {
    let skill = &change.skill;
    let file = skill.skill_file_path();
    if change.kind == ChangeKind::Deleted {
        // The skill is gone from the working tree: its last frontmatter is at the base.
        let text = base.and_then(|b| b.read(&file));
        let meta = text
            .map(|t| skill::read_meta(&t, &file, skill.dir_name()).0)
            .unwrap_or_default();
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
        ChangeKind::Renamed { from } => Some(format!("{from}/{}", skill.skill_file)),
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

/// Two skills may not share a name: the audit trail keys skills by it.
fn flag_duplicate_names(prepared: &mut [Prepared]) {
    for i in 1..prepared.len() {
        let (before, rest) = prepared.split_at_mut(i);
        let current = &mut rest[0];
        if let Some(first) = before.iter().find(|p| p.name == current.name) {
            let message = format!(
                "another skill has the name `{}`: {}",
                current.name, first.change.skill.dir
            );
            let file = current.change.skill.skill_file_path();
            current
                .lint
                .push(Finding::error("name-duplicate", &file, None, message));
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

/// From a skill's suite attempts (none when it did not run), build the signals and decide.
fn assess(
    p: Prepared,
    mut attempts: Vec<Attempt>,
    policy: crate::policy::Policy,
    settings: &runner::Settings,
    timestamp: &str,
    previous_coverage: Option<f64>,
    warnings: &mut Vec<String>,
) -> SkillResult {
    let mut lint = p.lint;
    let count = u32::try_from(attempts.len()).unwrap_or(u32::MAX);
    let flaky = attempt::flaky(&attempts);
    let last = attempts.pop();
    let mut coverage_unread = None;
    let mut results_disagree = None;
    let (suite_signal, suite_report, run, measured, suite_failure, results_unread) =
        match (&p.resolution, last) {
            (_, _) if p.change.kind == ChangeKind::Deleted => {
                (SuiteSignal::NotApplicable, None, None, None, None, None)
            }
            (Resolution::Found(suite), Some(last)) => {
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
                lint.extend(last.lint);
                warnings.extend(last.warnings);
                coverage_unread = last.coverage_unread;
                results_disagree = last.disagreement;
                let mut run = last.run;
                for name in &flaky {
                    if !run.flaky.contains(name) {
                        run.flaky.push(name.clone());
                    }
                }
                (
                    SuiteSignal::Ran,
                    Some(report),
                    Some(run),
                    last.coverage,
                    last.failure,
                    last.unread,
                )
            }
            (Resolution::Unavailable { suite, reason }, _) => (
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
                None,
                None,
                None,
                None,
            ),
            _ => (SuiteSignal::Missing, None, None, None, None, None),
        };
    let coverage = match (&measured, p.meta.test_coverage) {
        (Some(c), _) if c.ratio().is_some() => CoverageSignal::Measured {
            ratio: c.ratio().unwrap_or(0.0),
            format: c.format.as_str().to_owned(),
        },
        (_, Some(ratio)) => CoverageSignal::Declared { ratio },
        _ => CoverageSignal::Unknown,
    };
    let coverage_report = match &coverage {
        CoverageSignal::Measured { .. } => measured.as_ref().map(CoverageReport::measured),
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
    let tests = run.as_ref().map(|run| {
        let duration = suite_report.as_ref().map_or(0, |s| s.duration_ms);
        TestResults::from_run(run, duration, timestamp, coverage.ratio(), coverage_delta)
    });
    let decided_under =
        decided_under(p.category_change.as_ref(), p.meta.category.as_deref()).map(str::to_owned);
    let analysis = p.analysis;
    let risk = (p.change.kind != ChangeKind::Deleted).then(|| {
        // Critical if either category is: leaving `security` does not lower the risk.
        let critical = [decided_under.as_deref(), p.meta.category.as_deref()]
            .into_iter()
            .flatten()
            .any(|c| {
                policy
                    .critical_categories
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(c))
            });
        risk::score(
            &risk_inputs(
                analysis.as_ref(),
                coverage.ratio(),
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
        suite: suite_signal,
        suite_failure,
        results_unread,
        coverage_unread,
        results_disagree,
        tests: run.as_ref().map(|r| TestCounts {
            passed: r.passed,
            failed: r.failed,
            skipped: r.skipped,
        }),
        coverage,
        declared_risk: p.meta.risk_score,
        declared_approval_level: p.meta.approval_level,
        required_pass_rate: p
            .meta
            .required_test_pass_rate
            .unwrap_or(policy.required_test_pass_rate),
        attempts: count,
        // Flaky across retries, and as the framework itself reported (reruns of its own).
        flaky: run.as_ref().map(|r| r.flaky.clone()).unwrap_or_default(),
        analysis,
        risk,
        breaking: p.breaking,
        category_change: p.category_change,
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
        suite: suite_report,
        tests,
        coverage: coverage_report,
        signals,
        decision,
    }
}

/// The category whose policy decides a skill: a skill that changes its category is decided
/// under the base's, so it cannot pick a looser policy for itself.
fn decided_under<'p>(
    change: Option<&'p CategoryChange>,
    category: Option<&'p str>,
) -> Option<&'p str> {
    match change {
        Some(change) => change.from.as_deref(),
        None => category,
    }
}

/// A skill's policy: the config's `[policy]`, its category's template, its
/// `[policy.categories.NAME]`.
fn policy_for(
    p: &Prepared,
    config: &Config,
    templates: &[CategoryTemplate],
) -> crate::policy::Policy {
    let category = decided_under(p.category_change.as_ref(), p.meta.category.as_deref());
    let template =
        template::for_category(templates, category).map(|t| (t.name.as_str(), &t.policy));
    config.policy.for_category_over(category, template)
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
