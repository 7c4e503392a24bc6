//! What a job may trust: the config and the category templates as the pull request's base has
//! them, never as the pull request changes them.

use std::path::Path;

use crate::config::Config;
use crate::error::Error;
use crate::git::{Git, short};
use crate::github::{self, Session};
use crate::policy::template::CategoryTemplate;
use crate::store::Store;
use crate::warning::{Warning, WarningKind};

use super::scope::repo_prefix;

/// The config a job applies. In a pull request job it is the base's: a pull request does not
/// choose its own policy, routing or audit branch (its change applies once merged). `--config`
/// is the user's own choice and wins.
pub fn trusted_config(
    repo: &Path,
    explicit: Option<&Path>,
    session: &Session,
    warnings: &mut Vec<Warning>,
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
pub fn config_at_base(
    repo: &Path,
    here: Option<Config>,
    pull: &github::PullRequest,
    session: &Session,
    warnings: &mut Vec<Warning>,
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
        warnings.push(Warning::new(
            WarningKind::Config,
            format!(
                "the pull request changes {}: this run applies the base's; the change applies once merged",
                crate::config::FILE_NAME
            ),
        ));
    }
    Ok(trusted)
}

/// The category templates of the audit database as it is at the pull request's base: the
/// checkout's copy is the pull request's to change. An explicit `--db` is the user's own.
pub fn base_templates(
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
