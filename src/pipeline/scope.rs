//! Which skills a run gates, in which checkout: every skill, or those changed between the base
//! and the head (through git, or the API when a shallow checkout lacks the base); then `--skill`.

use std::path::{Path, PathBuf};

use crate::changes::{ChangeKind, SkillChange, gated_changes};
use crate::discover::{Layout, SkillDir, Tree};
use crate::error::Error;
use crate::git::{Git, short};
use crate::github::{self, Session};
use crate::skill::Finding;
use crate::warning::{Warning, WarningKind};

/// Which skills to gate, as the command line asks.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Every skill of the tree, changed or not.
    pub all: bool,
    pub base: Option<String>,
    pub head: Option<String>,
    /// `--skill`: names or paths, each one skill or more.
    pub skills: Vec<String>,
}

/// The skills to gate and the revisions they were compared between.
pub struct Scope {
    pub changes: Vec<SkillChange>,
    pub base: Option<String>,
    pub head: Option<String>,
    pub dirty: bool,
    /// For reading deleted skills' files at the base.
    pub base_reader: Option<BaseReader>,
    /// What the run says beyond its skills: changed `SKILL.md` files that are no skill.
    pub findings: Vec<Finding>,
}

/// Reads files as they were at the base commit: with git, or through the API when a shallow
/// checkout does not have the base.
pub struct BaseReader {
    pub git: Git,
    pub base: String,
    /// `--repo` relative to the top of the git repository (empty at the top).
    pub prefix: String,
    pub api: Option<github::session::FileSource>,
}

impl BaseReader {
    pub(crate) fn read(&self, path: &str) -> Option<String> {
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

/// `--repo`, canonical; a usage error when it is not a directory.
pub fn open_repo(path: &Path) -> Result<PathBuf, Error> {
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
pub fn select(
    selection: &Selection,
    repo: &Path,
    layout: &Layout<'_>,
    tree: &Tree,
    session: &Session,
    warnings: &mut Vec<Warning>,
) -> Result<Scope, Error> {
    let mut scope = if selection.all {
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
        changed(selection, repo, layout, tree, session, warnings)?
    };
    if !selection.skills.is_empty() {
        let mut picked: Vec<SkillChange> = Vec::new();
        for wanted in &selection.skills {
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
    selection: &Selection,
    repo: &Path,
    layout: &Layout<'_>,
    tree: &Tree,
    session: &Session,
    warnings: &mut Vec<Warning>,
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
    let head = match &selection.head {
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
    let pull_base = match (&selection.base, session.pull()) {
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
                    crate::changes::FileChange::Added(p) => base_files.retain(|f| f != p),
                    crate::changes::FileChange::Deleted(p) => base_files.push(p.clone()),
                    crate::changes::FileChange::Renamed { from, to } => {
                        base_files.retain(|f| f != to);
                        base_files.push(from.clone());
                    }
                    crate::changes::FileChange::Modified(_) => {}
                }
            }
            (base, files, base_files)
        }
        _ => {
            let base = match pull_base.as_ref().or(selection.base.as_ref()) {
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
    warnings: &mut Vec<Warning>,
) -> Result<Option<Vec<crate::changes::FileChange>>, Error> {
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
                warnings.push(Warning::new(
                    WarningKind::Scope,
                    format!(
                        "pull request #{} changes more than the {} files GitHub's API lists: fetched base {} with git instead",
                        pull.number,
                        github::session::PR_FILES_CAP,
                        short(base)
                    ),
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
pub fn repo_prefix(git: &Git, repo: &Path) -> Result<String, Error> {
    let top = git
        .toplevel()
        .canonicalize()
        .map_err(|err| Error::io("resolve", git.toplevel(), err))?;
    Ok(repo
        .strip_prefix(&top)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default())
}

pub fn strip<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    if prefix.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(prefix)?.strip_prefix('/')
    }
}

pub fn relative_change(
    change: crate::changes::FileChange,
    prefix: &str,
) -> Option<crate::changes::FileChange> {
    use crate::changes::FileChange as F;
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
