//! Detection by content: any bytes as a report file, as a suite's output, and as coverage.
#![no_main]

#[path = "input.rs"]
mod input;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    input::auto(data);
});
