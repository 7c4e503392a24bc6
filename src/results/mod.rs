//! Test results: one normalized model read from every format suites print (JUnit, Jest, Mocha,
//! TAP, pytest, unittest, go, libtest, node:test, shell tallies), or from the exit code.

mod adhoc;
mod detect;
mod exit_code;
mod files;
pub mod floor;
mod gotest;
mod jest;
mod jest_text;
mod junit;
mod libtest;
mod line_reader;
mod mocha;
mod mocha_spec;
mod model;
mod node_spec;
mod node_totals;
mod prove;
mod pytest;
mod streams;
mod summary;
mod tap;
#[cfg(test)]
pub(crate) mod testkit;
mod unittest;
mod vitest_text;

/// The errors the readers here return (their home is the input layer).
pub use crate::input::{InputError, ReadError};
pub use detect::{parse_claims, parse_output, parse_report, parse_report_as};
pub use exit_code::{EXIT_STATUS_CASE, from_exit_code};
pub use files::{read_claims, read_output, read_report_as, read_report_file};
pub use model::{
    Claim, FailureKind, MAX_KEPT_FAILURES, MAX_MESSAGE_BYTES, Outcome, ReportFormat, TestCase,
    TestRun, classify_failure, truncate_utf8,
};
pub use streams::{merge_output, read_streams};
