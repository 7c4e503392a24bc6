//! Formats read from text one line at a time (a suite's output, or a text report file): every
//! reader is fed every line, and the most specific format that recognised the text wins.

use super::model::{ReportFormat, TestRun};
use super::{adhoc, gotest, libtest, node_spec, pytest, summary, tap, unittest};

/// A format read from text, one line at a time.
pub(crate) trait LineReader {
    /// Feed one line: no line ending, ANSI codes removed, `\r` rewrites resolved.
    fn feed(&mut self, line: &str);

    /// The run, or `None` when the lines fed were not this format.
    fn finish(self: Box<Self>) -> Option<TestRun>;
}

/// The line formats, most specific first: when several recognise the same text (a TAP stream
/// may end with a plain closing line too), the first wins.
const ORDER: &[ReportFormat] = &[
    // Their closing lines are unmistakable, and tests run with `pytest -s` may print TAP.
    ReportFormat::Pytest,
    ReportFormat::Unittest,
    ReportFormat::Tap,
    ReportFormat::GoTest,
    ReportFormat::Libtest,
    // Before the shell tallies, which would read its ✔/✖ lines as markers.
    ReportFormat::NodeSpec,
    ReportFormat::Adhoc,
    ReportFormat::Summary,
];

/// The reader of one format; `None` for formats that are not read by line.
pub(crate) fn reader_for(format: ReportFormat) -> Option<Box<dyn LineReader>> {
    match format {
        ReportFormat::Pytest => Some(Box::new(pytest::PytestReader::new())),
        ReportFormat::Unittest => Some(Box::new(unittest::UnittestReader::new())),
        ReportFormat::Tap => Some(Box::new(tap::TapParser::new())),
        ReportFormat::GoTest => Some(Box::new(gotest::GoTestReader::new())),
        ReportFormat::Libtest => Some(Box::new(libtest::LibtestReader::new())),
        ReportFormat::NodeSpec => Some(Box::new(node_spec::NodeSpecReader::new())),
        ReportFormat::Adhoc => Some(Box::new(adhoc::AdhocReader::default())),
        ReportFormat::Summary => Some(Box::new(summary::SummaryReader::default())),
        // Read as documents, not by line; or not implemented yet.
        _ => None,
    }
}

/// A fresh reader for each line format, in priority order.
fn readers() -> Vec<Box<dyn LineReader>> {
    ORDER.iter().filter_map(|f| reader_for(*f)).collect()
}

/// Whether two streams' runs of `format` add up. Totals printed by a harness (the plain
/// closing line, ad-hoc tallies) are a whole, not a part: the later stream's wins instead.
pub(crate) fn merges(format: ReportFormat) -> bool {
    !matches!(format, ReportFormat::Summary | ReportFormat::Adhoc)
}

/// How specific a format is: lower wins.
pub(crate) fn rank(format: ReportFormat) -> usize {
    ORDER
        .iter()
        .position(|f| *f == format)
        .unwrap_or(ORDER.len())
}

/// Feed `lines` to every reader; the first (most specific) that recognised them wins.
pub(crate) struct Detector {
    readers: Vec<Box<dyn LineReader>>,
}

impl Detector {
    pub(crate) fn new() -> Self {
        Self { readers: readers() }
    }

    /// Only one format, as `--format` asks.
    pub(crate) fn only(reader: Box<dyn LineReader>) -> Self {
        Self {
            readers: vec![reader],
        }
    }

    pub(crate) fn feed(&mut self, line: &str) {
        for reader in &mut self.readers {
            reader.feed(line);
        }
    }

    /// The first recognised run, in priority order.
    pub(crate) fn finish(self) -> Option<TestRun> {
        self.readers.into_iter().find_map(|reader| reader.finish())
    }
}
