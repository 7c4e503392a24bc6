//! Test results: one normalized model read from every format suites print (JUnit, Jest, Mocha,
//! TAP, pytest, unittest, go, libtest, node:test, shell tallies), or from the exit code.

mod adhoc;
pub(crate) mod detect;
pub(crate) mod encoding;
mod error;
mod exit_code;
pub mod floor;
mod gotest;
mod jest;
mod jest_text;
mod junit;
mod libtest;
mod line_reader;
pub(crate) mod lines;
mod mocha;
mod mocha_spec;
mod model;
mod node_spec;
mod node_totals;
mod prove;
mod pytest;
mod summary;
mod tap;
#[cfg(test)]
pub(crate) mod testkit;
mod unittest;
mod vitest_text;

pub use detect::{read_claims, read_output, read_report_as, read_report_file, strip_ansi};
pub use error::ReadError;
pub use exit_code::{EXIT_STATUS_CASE, from_exit_code};
pub use model::{
    Claim, FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase,
    TestRun, classify_failure, truncate_utf8,
};
