//! Shared by every target: the readers take streams, so each input is fed to them from memory.

#![allow(dead_code, reason = "each target uses one of the two entry points")]

use std::io::Cursor;

use skillgate::coverage::CoverageFormat;
use skillgate::results::{InputError, MAX_KEPT_FAILURES, ReportFormat, TestRun};

/// `data` read as a suite's stdout and as its stderr, combined as the gate combines them.
fn output(data: &[u8]) -> Result<Option<TestRun>, InputError> {
    skillgate::results::read_streams(|origin| {
        skillgate::results::parse_output(Cursor::new(data), origin)
    })
}

/// Detect what `data` is, as a report, as output and as coverage.
pub fn auto(data: &[u8]) {
    let _ = skillgate::results::parse_report(Cursor::new(data), "report");
    if let Ok(Some(mut run)) = output(data) {
        // After the floor, no closing summary printed claims more failures or tests.
        let claims = run.claims.clone();
        skillgate::results::floor::apply(&mut run, "output", true);
        for claim in &claims {
            assert!(run.failed >= claim.failed && run.total() >= claim.total());
        }
    }
    if let Ok(Some(coverage)) = skillgate::coverage::parse_coverage(Cursor::new(data)) {
        assert!(coverage.covered <= coverage.total);
    }
}

/// Read `data` as a report of `format`; what is read must be consistent.
pub fn report(data: &[u8], format: ReportFormat) {
    if let Ok(Some(run)) = skillgate::results::parse_report_as(Cursor::new(data), format, "report")
    {
        assert!(run.failures.len() <= MAX_KEPT_FAILURES);
        assert!(run.failures.len() as u64 <= run.failed);
        // A reader never counts fewer failures or tests than its own closing summary.
        for claim in &run.claims {
            assert!(run.failed >= claim.failed && run.total() >= claim.total());
        }
    }
}

/// Read `data` as a coverage report of `format`: covered never exceeds total.
pub fn coverage(data: &[u8], format: CoverageFormat) {
    if let Ok(Some(coverage)) = skillgate::coverage::parse_coverage_as(Cursor::new(data), format) {
        assert!(coverage.covered <= coverage.total);
    }
}
