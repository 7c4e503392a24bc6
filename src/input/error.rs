//! The one error every report and coverage reader returns: which file, which line, and what was
//! wrong with it. Readers take streams and say only the line ([`InputError`]); the wrapper that
//! opened the file names it ([`ReadError`]).

use std::io;
use std::path::{Path, PathBuf};

/// Reading a report, a suite's output or a coverage file failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("failed to read {what} {}: {source}", .path.display())]
    Io {
        /// What the file was expected to hold: "test report", "test output", "coverage report".
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// The file is in a format we know, but its content is broken (a truncated XML file, a
    /// malformed record).
    #[error("failed to read {what} {}: line {line}: {message}", .path.display())]
    Malformed {
        what: &'static str,
        path: PathBuf,
        /// 1-based.
        line: u64,
        message: String,
    },
}

impl ReadError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            what,
            path: path.into(),
            source,
        }
    }

    pub(crate) fn malformed(
        what: &'static str,
        path: impl Into<PathBuf>,
        line: u64,
        message: impl Into<String>,
    ) -> Self {
        Self::Malformed {
            what,
            path: path.into(),
            line,
            message: message.into(),
        }
    }
}

/// Reading one stream failed; which file it was is not known yet.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The stream could not be read.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The stream is in a format we know, but its content is broken.
    #[error("line {line}: {message}")]
    Malformed {
        /// 1-based.
        line: u64,
        message: String,
    },
}

impl InputError {
    pub(crate) fn malformed(line: u64, message: impl Into<String>) -> Self {
        Self::Malformed {
            line,
            message: message.into(),
        }
    }

    /// The error naming the file the stream was read from, and what it was expected to hold.
    pub fn in_file(self, what: &'static str, path: &Path) -> ReadError {
        match self {
            Self::Io(source) => ReadError::io(what, path, source),
            Self::Malformed { line, message } => ReadError::malformed(what, path, line, message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_and_line() {
        let err = ReadError::malformed("test report", "target/x.xml", 12, "unexpected end of XML");
        assert_eq!(
            err.to_string(),
            "failed to read test report target/x.xml: line 12: unexpected end of XML"
        );
        let err = ReadError::io(
            "coverage report",
            "lcov.info",
            io::Error::new(io::ErrorKind::PermissionDenied, "permission denied"),
        );
        assert_eq!(
            err.to_string(),
            "failed to read coverage report lcov.info: permission denied"
        );
    }
}
