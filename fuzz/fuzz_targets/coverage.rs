//! Coverage detection and reading on any bytes.
#![no_main]

#[path = "input.rs"]
mod input;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = input::file_with(data);
    if let Ok(Some(coverage)) = skillgate::coverage::read_coverage_file(&path) {
        assert!(coverage.lines_covered <= coverage.lines_total);
    }
});
