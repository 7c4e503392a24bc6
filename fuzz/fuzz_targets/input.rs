//! Shared by every target. The readers take paths (they stream files), so each input is written
//! to a file first: in /dev/shm when it exists, so the fuzzer is not bound by the disk.

#![allow(dead_code, reason = "each target uses one of the two entry points")]

use std::path::PathBuf;

use skillgate::coverage::CoverageFormat;
use skillgate::results::{MAX_KEPT_FAILURES, ReportFormat};

fn file_with(data: &[u8]) -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("skillgate-fuzz-{}", std::process::id()));
    std::fs::write(&path, data).expect("write the fuzz input");
    path
}

/// Detect what `data` is, as a report, as output and as coverage.
pub fn auto(data: &[u8]) {
    let path = file_with(data);
    let _ = skillgate::results::read_report_file(&path);
    if let Ok(Some(mut run)) = skillgate::results::read_output(&path, &path) {
        // After the floor, no closing summary printed claims more failures or tests.
        let claims = run.claims.clone();
        skillgate::results::floor::apply(&mut run, "output", true);
        for claim in &claims {
            assert!(run.failed >= claim.failed && run.total() >= claim.total());
        }
    }
    if let Ok(Some(coverage)) = skillgate::coverage::read_coverage_file(&path) {
        assert!(coverage.covered <= coverage.total);
    }
}

/// Read `data` as a report of `format`; what is read must be consistent.
pub fn report(data: &[u8], format: ReportFormat) {
    let path = file_with(data);
    if let Ok(Some(run)) = skillgate::results::read_report_as(&path, format) {
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
    let path = file_with(data);
    if let Ok(Some(coverage)) = skillgate::coverage::read_coverage_as(&path, format) {
        assert!(coverage.covered <= coverage.total);
    }
}
