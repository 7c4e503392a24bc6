//! Formats read from text one line at a time (a suite's output, or a text report file): every
//! reader is fed every line, and the most specific format that recognised the text wins.

use super::model::{Claim, ReportFormat, TestRun};
use super::{
    adhoc, gotest, jest_text, libtest, mocha_spec, node_spec, prove, pytest, summary, tap,
    unittest, vitest_text,
};

/// A format read from text, one line at a time.
pub(crate) trait LineReader {
    /// Feed one line: no line ending, ANSI codes removed, `\r` rewrites resolved.
    fn feed(&mut self, line: &str);

    /// What this format's own closing summary said of the lines fed so far, in this crate's
    /// counting rules (`3 passing` / `5 failing`, `Tests: 5 failed, 12 total`, `FAILED
    /// (failures=2)`); several summaries in one stream (the framework ran twice) add up.
    /// `None` when no summary was printed, or the format has none. A reader that claims must
    /// also return a run from [`LineReader::finish`].
    fn claim(&self) -> Option<Claim> {
        None
    }

    /// The run, or `None` when the lines fed were not this format.
    fn finish(self: Box<Self>) -> Option<TestRun>;
}

/// The line formats, most specific first: when several recognise the same text (a TAP stream
/// may end with a plain closing line too), the first wins.
const ORDER: &[ReportFormat] = &[
    // Their closing lines are unmistakable, and tests run with `pytest -s` may print TAP.
    ReportFormat::Pytest,
    ReportFormat::Unittest,
    // `prove -v` echoes the TAP it reads: its own summary knows the files and the plans.
    ReportFormat::Prove,
    ReportFormat::Tap,
    ReportFormat::GoTest,
    ReportFormat::Libtest,
    // Before the shell tallies, which would read their ✓/✔/✕/✖ lines as markers.
    ReportFormat::JestText,
    ReportFormat::VitestText,
    ReportFormat::MochaSpec,
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
        ReportFormat::MochaSpec => Some(Box::new(mocha_spec::MochaSpecReader::new())),
        ReportFormat::JestText => Some(Box::new(jest_text::JestTextReader::new())),
        ReportFormat::VitestText => Some(Box::new(vitest_text::VitestTextReader::new())),
        ReportFormat::Prove => Some(Box::new(prove::ProveReader::new())),
        // Read as documents, not by line; or not implemented yet.
        _ => None,
    }
}

/// The format a report file announces in its first line, when it does: a file that opens with
/// a TAP plan is read by the TAP reader alone (several times faster than offering every line to
/// every format). The caller falls back to all formats when that reader finds nothing.
pub(crate) fn announced(first_line: &str) -> Option<ReportFormat> {
    let line = first_line.trim();
    let is_plan = line.strip_prefix("1..").is_some_and(|rest| {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = rest[digits..].trim_start();
        digits > 0 && (after.is_empty() || after.starts_with('#'))
    });
    let compact: String = line
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(24)
        .collect();
    if line.starts_with("TAP version ") || is_plan {
        Some(ReportFormat::Tap)
    } else if compact.starts_with("{\"Time\":") || compact.starts_with("{\"Action\":") {
        Some(ReportFormat::GoTest)
    } else if compact.starts_with("{\"type\":\"suite\"") {
        Some(ReportFormat::Libtest)
    } else if line.starts_with('=') && line.contains(" test session starts ") {
        Some(ReportFormat::Pytest)
    } else {
        None
    }
}

/// A fresh reader for each line format, in priority order.
fn readers() -> Vec<Box<dyn LineReader>> {
    ORDER.iter().filter_map(|f| reader_for(*f)).collect()
}

/// How two streams' runs of one format combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Merge {
    /// Each stream ran tests of its own: they add up.
    Add,
    /// Totals printed by a harness (the plain closing line, ad-hoc tallies) are a whole, not a
    /// part: the later stream's wins.
    LaterWins,
    /// One run told across both streams (vitest: the tests and the summary on stdout, the
    /// failures' details on stderr): the larger of each count, and every named failure.
    OneRun,
}

pub(crate) fn merge_rule(format: ReportFormat) -> Merge {
    match format {
        ReportFormat::Summary | ReportFormat::Adhoc => Merge::LaterWins,
        ReportFormat::VitestText => Merge::OneRun,
        _ => Merge::Add,
    }
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

    /// The format a file announced, and the plain closing line beside it: a script that prints
    /// TAP may close with its own tally, which is the floor of the stream's counts.
    pub(crate) fn announced(reader: Box<dyn LineReader>) -> Self {
        Self {
            readers: vec![reader, Box::new(summary::SummaryReader::default())],
        }
    }

    pub(crate) fn feed(&mut self, line: &str) {
        for reader in &mut self.readers {
            reader.feed(line);
        }
    }

    /// The first recognised run, in priority order, carrying every format's closing summary
    /// (its own and the others': the floor its counts are checked against), each marked as
    /// printed in `origin`.
    pub(crate) fn finish(self, origin: &str) -> Option<TestRun> {
        let claims: Vec<Claim> = self
            .readers
            .iter()
            .filter_map(|reader| reader.claim())
            .map(|claim| Claim {
                origin: origin.to_owned(),
                ..claim
            })
            .collect();
        let mut run = self
            .readers
            .into_iter()
            .find_map(|reader| reader.finish())?;
        run.claims.extend(claims);
        Some(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_lines_that_announce_a_format() {
        assert_eq!(announced("TAP version 14"), Some(ReportFormat::Tap));
        assert_eq!(announced("1..12"), Some(ReportFormat::Tap));
        assert_eq!(announced("1..0 # SKIP no db"), Some(ReportFormat::Tap));
        assert_eq!(announced("1..12 tests"), None);
        assert_eq!(
            announced(r#"{"Time":"2026-11-30T10:00:00Z","Action":"start","Package":"x"}"#),
            Some(ReportFormat::GoTest)
        );
        assert_eq!(
            announced(r#"{ "type": "suite", "event": "started", "test_count": 3 }"#),
            Some(ReportFormat::Libtest)
        );
        assert_eq!(
            announced(
                "============================= test session starts =============================="
            ),
            Some(ReportFormat::Pytest)
        );
        assert_eq!(announced("ok 1 - something"), None);
        assert_eq!(announced("Running tests..."), None);
    }
}
