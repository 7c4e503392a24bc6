//! Every report reader forced on any bytes: the first byte picks the format.
#![no_main]

#[path = "input.rs"]
mod input;

use libfuzzer_sys::fuzz_target;
use skillgate::results::ReportFormat;

const FORMATS: &[ReportFormat] = &[
    ReportFormat::Junit,
    ReportFormat::Jest,
    ReportFormat::Mocha,
    ReportFormat::Tap,
    ReportFormat::Pytest,
    ReportFormat::Unittest,
    ReportFormat::GoTest,
    ReportFormat::Libtest,
    ReportFormat::NodeSpec,
    ReportFormat::Adhoc,
    ReportFormat::Summary,
];

fuzz_target!(|data: &[u8]| {
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let format = FORMATS[usize::from(*first) % FORMATS.len()];
    let path = input::file_with(rest);
    if let Ok(Some(run)) = skillgate::results::read_report_as(&path, format) {
        assert!(run.failures.len() <= skillgate::results::MAX_KEPT_FAILURES);
        assert!(run.failures.len() as u64 <= run.failed);
    }
});
