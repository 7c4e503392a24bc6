//! The top-level error: each module's error wrapped, with its exit code and a hint where one helps.

use std::path::PathBuf;

use crate::exit_codes;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),

    #[error(transparent)]
    Git(#[from] crate::git::GitError),

    #[error(transparent)]
    Store(#[from] crate::store::StoreError),

    #[error(transparent)]
    Runner(#[from] crate::runner::RunnerError),

    #[error(transparent)]
    Github(#[from] crate::github::GithubError),

    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),

    /// A report or coverage file is in a known format but broken (names the file and line).
    #[error(transparent)]
    Read(#[from] crate::input::ReadError),

    /// The command line names something that does not exist or cannot be used.
    #[error("{message}")]
    Usage {
        message: String,
        help: Option<String>,
    },

    #[error("failed to {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub fn usage(message: impl Into<String>, help: Option<&str>) -> Self {
        Self::Usage {
            message: message.into(),
            help: help.map(str::to_owned),
        }
    }

    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Config(_) | Self::Usage { .. } => exit_codes::USAGE,
            Self::Git(err) if err.is_usage() => exit_codes::USAGE,
            Self::Github(crate::github::GithubError::Unavailable(_)) => exit_codes::USAGE,
            Self::Audit(err) => err.exit_code(),
            _ => exit_codes::ERROR,
        }
    }

    /// A hint for the mistakes users make often.
    pub fn help(&self) -> Option<&str> {
        match self {
            Self::Usage { help, .. } => help.as_deref(),
            Self::Config(err) => err.help(),
            Self::Git(err) => err.help(),
            Self::Store(err) => err.help(),
            Self::Github(err) => err.help(),
            Self::Audit(err) => err.help(),
            _ => None,
        }
    }
}
