//! The one error every report reader returns: which file, which line, and what was wrong with it.

use std::io;
use std::path::PathBuf;

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
