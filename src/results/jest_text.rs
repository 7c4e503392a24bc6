//! Jest's default reporter, as `npx jest` prints it on stderr. (Placeholder: reads nothing yet.)

use super::line_reader::LineReader;
use super::model::TestRun;

pub(crate) struct JestTextReader {}

impl JestTextReader {
    pub(crate) fn new() -> Self {
        Self {}
    }
}

impl LineReader for JestTextReader {
    fn feed(&mut self, _line: &str) {}

    fn finish(self: Box<Self>) -> Option<TestRun> {
        None
    }
}
