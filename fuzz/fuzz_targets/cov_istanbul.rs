//! The istanbul coverage reader on any bytes.
#![no_main]

#[path = "input.rs"]
mod input;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    input::coverage(data, skillgate::coverage::CoverageFormat::Istanbul);
});
