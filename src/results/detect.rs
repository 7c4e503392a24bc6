//! Which reader a report or a suite's output needs, judged by content (never by file name), and
//! how the runs read from a suite's two streams combine.

use std::io::{Read, Seek};

use super::line_reader::{self, Detector, Merge};
use super::model::{Claim, ReportFormat, TestRun};
use super::{floor, jest, junit, mocha};
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

/// The runs read from a suite's stdout and stderr (stdout first), each with the stream it was
/// read from, as one. The most specific format found in either stream wins; when both streams
/// hold it, their runs are merged (a plain closing line or a harness's totals are a whole, so
/// the later one wins instead, unless only the earlier printed its totals).
/// `None` when neither holds results.
///
/// The run carries every framework's closing summary from both streams (the floor of its
/// counts), but a harness's tally only from a stream it was read from: a tally on the other
/// stream is as likely what the code under test printed.
pub fn merge_output(found: Vec<(TestRun, &str)>) -> Option<TestRun> {
    let best = found.iter().map(|(r, _)| output_rank(r.format)).min()?;
    let mut claims: Vec<Claim> = Vec::new();
    let mut run: Option<TestRun> = None;
    let mut counted: Vec<&str> = Vec::new();
    for (mut later, origin) in found {
        let own_summary = later.claims.iter().any(|c| c.format == later.format);
        claims.append(&mut later.claims);
        if output_rank(later.format) != best {
            continue;
        }
        match &mut run {
            Some(first) => match line_reader::merge_rule(first.format) {
                Merge::Add => first.merge(later),
                Merge::OneRun => first.merge_halves(later),
                // Totals a stream printed win over markers the other printed.
                Merge::LaterWins if !own_summary && first_has_summary(&claims, first, &counted) => {
                    continue;
                }
                Merge::LaterWins => {
                    counted.clear();
                    run = Some(later);
                }
            },
            None => run = Some(later),
        }
        counted.push(origin);
    }
    claims.retain(|c| !floor::is_tally(c.format) || counted.contains(&c.origin.as_str()));
    run.map(|run| TestRun { claims, ..run })
}

/// Whether the run read so far printed its own format's summary in a stream it was read from.
fn first_has_summary(claims: &[Claim], first: &TestRun, counted: &[&str]) -> bool {
    claims
        .iter()
        .any(|c| c.format == first.format && counted.contains(&c.origin.as_str()))
}

/// The closing summaries of a suite's streams as the floor of results read from report files:
/// a harness's tally counts only when no framework printed a summary, since beside one it is as
/// likely what the code under test printed.
pub(crate) fn summaries_first(mut claims: Vec<Claim>) -> Vec<Claim> {
    if claims.iter().any(|c| !floor::is_tally(c.format)) {
        claims.retain(|c| !floor::is_tally(c.format));
    }
    claims
}

/// Documents first (they are whole reports), then the line formats in their order.
fn output_rank(format: ReportFormat) -> usize {
    match format {
        ReportFormat::Jest | ReportFormat::Mocha => 0,
        other => 1 + line_reader::rank(other),
    }
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
