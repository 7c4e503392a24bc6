//! The audit trail of a run: opened (from its branch, or the local file), recorded into, and
//! committed back.

use std::path::{Path, PathBuf};

use crate::audit;
use crate::config::Config;
use crate::error::Error;
use crate::gate::GateRun;
use crate::git::short;
use crate::github::Session;
use crate::store::Store;
use crate::warning::{Warning, WarningKind};

/// The audit trail of a run: read from its branch when the job publishes (and `[audit] commit`
/// is not `none`), else the local file (`--db`, or `[audit] db` in the repository). `reads`
/// says which segments of the branch's trail the run needs (a local file is read whole).
pub fn open_trail(
    publishing: bool,
    config: &Config,
    session: &Session,
    repo: &Path,
    db: Option<&Path>,
    reads: audit::Reads,
) -> Result<(Option<audit::Trail>, PathBuf), Error> {
    let trail = if publishing {
        audit::connect(&config.audit, session, repo, reads)?
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

/// Each decision a person must review names who is asked, from the trusted `[routing]` (never
/// the author of the pull request); the trail records it as `escalated_to`.
pub fn route(run: &mut GateRun, config: &Config, author: Option<&str>) {
    for skill in &mut run.skills {
        let reviewers = config.routing.reviewers([&*skill], author);
        skill.decision.reviewers = reviewers;
    }
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
) -> Result<Vec<Warning>, Error> {
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
            .map(|line| Warning::new(WarningKind::Audit, line))
            .collect()),
        Err(err @ audit::AuditError::Exhausted { .. }) => Err(err.into()),
        // Whatever stopped the commit, the run's results are not lost.
        Err(err) => Err(audit::AuditError::Unrecorded {
            message: err.to_string(),
            kept: audit::keep(run, &keep_dir)?,
        }
        .into()),
    }
}
