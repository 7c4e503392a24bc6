//! Which reader a report or a suite's output needs, judged by content (never by file name).

use std::io::{Read, Seek};

use super::line_reader::{self, Detector};
use super::model::{Claim, ReportFormat, TestRun};
use super::{jest, junit, mocha};
use crate::input::InputError;
use crate::input::encoding::strip_bom;
use crate::input::head::read_head_utf8;
use crate::input::lines::text_lines;
use crate::input::terminal_text;

/// What the first bytes of a file say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sniffed {
    /// Starts like a JUnit XML document; the root element decides.
    Xml,
    /// Holds Jest's `--json` document, maybe after other output.
    Jest,
    /// Holds Mocha's `json` reporter document, maybe after other output.
    Mocha,
    /// Text: every line format gets to read it.
    Text,
    /// Binary (holds NUL bytes): not a report.
    Binary,
}

/// Read one report, detecting its format by content; `origin` names it in the claims read.
///
/// `Ok(None)` when the input is not a test report at all (an lcov file, a log, a binary);
/// `Err` when it looks like a report but is broken (truncated XML).
pub fn parse_report<R: Read + Seek>(
    mut input: R,
    origin: &str,
) -> Result<Option<TestRun>, InputError> {
    let head = read_head_utf8(&mut input)?;
    match sniff(&head) {
        Sniffed::Xml => junit::read(input),
        Sniffed::Jest => jest::read(input),
        Sniffed::Mocha => mocha::read(input),
        Sniffed::Text => {
            let first = String::from_utf8_lossy(strip_bom(&head));
            let first = first
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            if let Some(format) = line_reader::announced(&terminal_text(first))
                && let Some(reader) = line_reader::reader_for(format)
                && let Some(run) = parse_lines(&mut input, origin, Detector::announced(reader))?
                && run.format == format
            {
                return Ok(Some(run));
            }
            parse_lines(&mut input, origin, Detector::new())
        }
        Sniffed::Binary => Ok(None),
    }
}

/// Read one report as `format`, whatever it looks like (`skillgate parse --format`).
/// `Ok(None)` when the input does not hold that format.
pub fn parse_report_as<R: Read + Seek>(
    mut input: R,
    format: ReportFormat,
    origin: &str,
) -> Result<Option<TestRun>, InputError> {
    match format {
        ReportFormat::Junit => return junit::read(input),
        ReportFormat::Jest => return jest::read(input),
        ReportFormat::Mocha => return mocha::read(input),
        _ => {}
    }
    match line_reader::reader_for(format) {
        Some(reader) => parse_lines(&mut input, origin, Detector::only(reader)),
        None => Ok(None),
    }
}

/// Read one stream of a suite's output: a Jest or Mocha document (`jest --json` and `mocha
/// --reporter json` print theirs on stdout), else every line through every line format.
pub fn parse_output<R: Read + Seek>(
    mut input: R,
    origin: &str,
) -> Result<Option<TestRun>, InputError> {
    match read_head_utf8(&mut input).map(|head| sniff(&head)) {
        Ok(Sniffed::Jest) => jest::read(input),
        Ok(Sniffed::Mocha) => mocha::read(input),
        _ => parse_lines(&mut input, origin, Detector::new()),
    }
}

/// The closing summaries printed in one stream of a suite's output, read as text.
pub fn parse_claims<R: Read + Seek>(mut input: R, origin: &str) -> Result<Vec<Claim>, InputError> {
    Ok(parse_lines(&mut input, origin, Detector::new())?
        .map(|run| run.claims)
        .unwrap_or_default())
}

/// Feed every line of `input`, from its start, to a detector; `origin` names where the claims
/// were printed.
fn parse_lines<R: Read + Seek>(
    input: &mut R,
    origin: &str,
    mut detector: Detector,
) -> Result<Option<TestRun>, InputError> {
    input.rewind()?;
    let mut lines = text_lines(input)?;
    while let Some(line) = lines.next_line()? {
        detector.feed(&terminal_text(line));
    }
    Ok(detector.finish(origin))
}

fn sniff(head: &[u8]) -> Sniffed {
    let head = strip_bom(head);
    // Text reports hold no NUL; images, archives and databases nearly always do.
    if head.contains(&0) {
        return Sniffed::Binary;
    }
    if looks_like_junit(head) {
        return Sniffed::Xml;
    }
    if jest::sniff(head) {
        return Sniffed::Jest;
    }
    if mocha::sniff(head) {
        return Sniffed::Mocha;
    }
    Sniffed::Text
}

/// The first non-whitespace content is an XML declaration, a comment, or a
/// `<testsuites>`/`<testsuite>` tag. The JUnit reader then checks the root element.
fn looks_like_junit(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = head.get(start..).unwrap_or_default();
    if rest.starts_with(b"<?xml") || rest.starts_with(b"<!--") {
        return true;
    }
    let Some(after) = rest.strip_prefix(b"<testsuite") else {
        return false;
    };
    matches!(
        after.first(),
        Some(b's' | b'>' | b'/' | b' ' | b'\t' | b'\r' | b'\n') | None
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_goes_by_content() {
        assert_eq!(
            sniff(b"\xEF\xBB\xBF  <?xml version=\"1.0\"?>"),
            Sniffed::Xml
        );
        assert_eq!(sniff(b"<testsuites>"), Sniffed::Xml);
        assert_eq!(sniff(b"<!-- by a tool -->\n<testsuites>"), Sniffed::Xml);
        assert_eq!(sniff(b"<testsuite name=\"x\">"), Sniffed::Xml);
        assert_eq!(sniff(b"<testsuiteX>"), Sniffed::Text);
        assert_eq!(sniff(b"noise\nTAP version 14\n"), Sniffed::Text);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Sniffed::Binary);
        assert_eq!(sniff(b""), Sniffed::Text);
    }
}
