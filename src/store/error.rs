//! What can go wrong with the audit database.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("failed to open audit database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("failed to create the directory for audit database {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "audit database {} has schema version {found}, newer than this skillgate knows ({known}); \
         it was left untouched",
        path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("failed to apply migration {name} to {}: {source}", path.display())]
    Migrate {
        path: PathBuf,
        name: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// A migration would leave a reference dangling that was not before it: rolled back.
    #[error(
        "failed to apply migration {name} to {}: {problem}; the file was left as it was",
        path.display()
    )]
    MigrateReferences {
        path: PathBuf,
        name: &'static str,
        problem: String,
    },
    #[error("failed to record the gate run in {}: {source}; nothing was written", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("audit database {}: template `{name}`: {message}", path.display())]
    Template {
        path: PathBuf,
        name: String,
        message: String,
    },
    #[error(
        "audit database {} fails its integrity check: {problem}{}",
        path.display(),
        if *more > 0 { format!(" (and {more} more problems)") } else { String::new() }
    )]
    Integrity {
        path: PathBuf,
        problem: String,
        more: usize,
    },
    #[error(
        "failed to fold the write-ahead log of {} into the file: {reason}",
        path.display()
    )]
    Checkpoint { path: PathBuf, reason: String },
    #[error("failed to record a review in {}: {message}", path.display())]
    Review { path: PathBuf, message: String },
    /// The schema is not skillgate's: an object it did not create, or another `user_version`.
    #[error("audit database {}: {problem}", path.display())]
    Schema {
        path: PathBuf,
        problem: super::SchemaProblem,
    },
    /// The rows are not what the branch held plus what this run recorded.
    #[error("audit database {}: {problem}", path.display())]
    Tampered { path: PathBuf, problem: String },
    /// A segment file is not what the registry recorded of it.
    #[error("audit trail segment {name} ({}): {message}", path.display())]
    Segment {
        path: PathBuf,
        name: String,
        message: String,
    },
    /// A segmented trail that cannot be read or written as one database.
    #[error("audit trail {}: {message}", path.display())]
    Trail { path: PathBuf, message: String },
    #[error("audit database {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl StoreError {
    pub fn help(&self) -> Option<&str> {
        match self {
            Self::TooNew { .. } => Some("upgrade skillgate, or point --db at another file"),
            Self::Integrity { .. } => Some(
                "the file was not committed; restore it from the audit branch's previous commit \
                 (`sqlite3 FILE .recover` can salvage rows)",
            ),
            Self::Checkpoint { .. } => Some("close other programs that have the database open"),
            Self::Template { .. } => Some(
                "fix the row in approval_criteria_templates, or delete it and set the category's \
                 thresholds in [policy.categories.NAME] of the config",
            ),
            Self::Schema { .. } => Some(
                "skillgate writes only to a database that holds its own schema, nothing more: \
                 a trigger or view there would rewrite or hide decisions; drop the object (keep \
                 your own tables in another file and ATTACH it), or restore the file from the \
                 audit branch",
            ),
            Self::Tampered { .. } => Some(
                "something other than this run wrote to the audit database while the run held \
                 it; nothing was committed, the audit branch is as it was",
            ),
            Self::Segment { .. } | Self::Trail { .. } => Some(
                "`skillgate audit verify --db REGISTRY` names every segment that is not what the \
                 registry records; restore the files from the audit branch's history",
            ),
            _ => None,
        }
    }
}
