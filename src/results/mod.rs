//! Test results: one normalized model read from JUnit XML, TAP, the plain closing line, or, as
//! the last resort, a suite's exit code.

mod adhoc;
pub(crate) mod detect;
mod error;
mod exit_code;
mod junit;
mod line_reader;
mod model;
mod summary;
mod tap;

pub use detect::{read_output, read_report_as, read_report_file, strip_ansi};
pub use error::ReadError;
pub use exit_code::{EXIT_STATUS_CASE, from_exit_code};
pub use model::{
    FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase, TestRun,
    classify_failure, truncate_utf8,
};
