//! Perl's `prove`, with and without `-v`. (Placeholder: reads nothing yet.)

use super::line_reader::LineReader;
use super::model::TestRun;

pub(crate) struct ProveReader {}

impl ProveReader {
    pub(crate) fn new() -> Self {
        Self {}
    }
}

impl LineReader for ProveReader {
    fn feed(&mut self, _line: &str) {}

    fn finish(self: Box<Self>) -> Option<TestRun> {
        None
    }
}
