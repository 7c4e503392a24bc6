//! Vitest's default reporter. (Placeholder: reads nothing yet.)

use super::line_reader::LineReader;
use super::model::TestRun;

pub(crate) struct VitestTextReader {}

impl VitestTextReader {
    pub(crate) fn new() -> Self {
        Self {}
    }
}

impl LineReader for VitestTextReader {
    fn feed(&mut self, _line: &str) {}

    fn finish(self: Box<Self>) -> Option<TestRun> {
        None
    }
}
