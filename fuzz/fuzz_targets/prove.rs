//! The prove reader on any bytes.
#![no_main]

#[path = "input.rs"]
mod input;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    input::report(data, skillgate::results::ReportFormat::Prove);
});
