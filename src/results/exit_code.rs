//! The last resort when a suite left no report and printed no results: its exit status stands
//! for one synthetic case.

use super::model::{Outcome, ReportFormat, TestCase, TestRun};

/// The name of the one case an exit-code run holds.
pub const EXIT_STATUS_CASE: &str = "suite exit status";

/// One synthetic case: passed when `code` is `Some(0)`, failed otherwise. The failure message
/// is `detail` when given (the runner's "killed by signal 9", "timed out after 5m"), else says
/// the exit code.
pub fn from_exit_code(code: Option<i32>, detail: Option<&str>) -> TestRun {
    let mut run = TestRun::new(ReportFormat::ExitCode);
    if code == Some(0) {
        run.record(TestCase {
            name: EXIT_STATUS_CASE.to_owned(),
            suite: None,
            file: None,
            line: None,
            duration_ms: None,
            outcome: Outcome::Passed,
            message: None,
            kind: None,
        });
        return run;
    }
    let message = match (detail.map(str::trim).filter(|d| !d.is_empty()), code) {
        (Some(detail), _) => detail.to_owned(),
        (None, Some(code)) => format!("exited with code {code}"),
        (None, None) => "exited without an exit code".to_owned(),
    };
    run.record(TestCase::failed(EXIT_STATUS_CASE, Some(message)));
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::FailureKind;

    #[test]
    fn zero_is_one_passed_case() {
        let run = from_exit_code(Some(0), Some("ignored"));
        assert_eq!(run.framework, "exit-code");
        assert_eq!((run.passed, run.failed, run.skipped), (1, 0, 0));
        assert!(run.failures.is_empty());
    }

    #[test]
    fn anything_else_is_one_failed_case_saying_why() {
        let run = from_exit_code(Some(2), None);
        assert_eq!((run.passed, run.failed), (0, 1));
        let case = &run.failures[0];
        assert_eq!(case.name, "suite exit status");
        assert_eq!(case.message.as_deref(), Some("exited with code 2"));
        assert_eq!(case.kind, Some(FailureKind::Assertion));

        let run = from_exit_code(None, Some("killed by signal 9"));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("killed by signal 9")
        );
        assert_eq!(run.failures[0].kind, Some(FailureKind::Crash));

        let run = from_exit_code(None, Some("timed out after 5m"));
        assert_eq!(run.failures[0].kind, Some(FailureKind::Timeout));

        let run = from_exit_code(None, Some("  "));
        assert_eq!(
            run.failures[0].message.as_deref(),
            Some("exited without an exit code")
        );
    }
}
