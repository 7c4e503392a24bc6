//! Detection by content: any bytes as a report file and as a suite's output.
#![no_main]

#[path = "input.rs"]
mod input;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = input::file_with(data);
    let _ = skillgate::results::read_report_file(&path);
    let _ = skillgate::results::read_output(&path, &path);
});
