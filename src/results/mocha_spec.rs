//! Mocha's default `spec` reporter and its `dot` reporter. (Placeholder: reads nothing yet.)

use super::line_reader::LineReader;
use super::model::TestRun;

pub(crate) struct MochaSpecReader {}

impl MochaSpecReader {
    pub(crate) fn new() -> Self {
        Self {}
    }
}

impl LineReader for MochaSpecReader {
    fn feed(&mut self, _line: &str) {}

    fn finish(self: Box<Self>) -> Option<TestRun> {
        None
    }
}
