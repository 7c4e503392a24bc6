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
            Self::Template { .. } => Some(
                "fix the row in approval_criteria_templates, or delete it and set the category's \
                 thresholds in [policy.categories.NAME] of the config",
            ),
            _ => None,
        }
    }
}
