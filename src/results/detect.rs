//! Which reader a report file or a suite's output needs, judged by content (never by file name),
//! and the input handling every reader shares: the BOM, bounded line reading, ANSI stripping.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::error::ReadError;
use super::line_reader::{self, Detector, Merge};
use super::lines::text_lines;
use super::model::{Claim, ReportFormat, TestRun};
use super::{floor, jest, junit, mocha};

/// How much of a file is looked at to decide what it is.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Names, suites and paths of kept failures are cut to this many bytes.
pub(crate) const MAX_NAME_BYTES: usize = 1024;

pub(crate) const WHAT_REPORT: &str = "test report";
pub(crate) const WHAT_OUTPUT: &str = "test output";

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

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

/// Read one report file, detecting its format by content.
///
/// `Ok(None)` when the file is not a test report at all (an lcov file, a log, a binary);
/// `Err` when it looks like a report but is broken (truncated XML).
pub fn read_report_file(path: &Path) -> Result<Option<TestRun>, ReadError> {
    let head = read_head(path).map_err(|e| ReadError::io(WHAT_REPORT, path, e))?;
    match sniff(&head) {
        Sniffed::Xml => junit::read_file(path),
        Sniffed::Jest => jest::read_file(path),
        Sniffed::Mocha => mocha::read_file(path),
        Sniffed::Text => {
            let first = String::from_utf8_lossy(strip_bom(&head));
            let first = first
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            if let Some(format) = line_reader::announced(&terminal_text(first))
                && let Some(reader) = line_reader::reader_for(format)
                && let Some(run) = read_lines(path, WHAT_REPORT, Detector::announced(reader))?
                && run.format == format
            {
                return Ok(Some(run));
            }
            read_lines(path, WHAT_REPORT, Detector::new())
        }
        Sniffed::Binary => Ok(None),
    }
}

/// Read one report file as `format`, whatever it looks like (`skillgate parse --format`).
/// `Ok(None)` when the file does not hold that format.
pub fn read_report_as(path: &Path, format: ReportFormat) -> Result<Option<TestRun>, ReadError> {
    match format {
        ReportFormat::Junit => return junit::read_file(path),
        ReportFormat::Jest => return jest::read_file(path),
        ReportFormat::Mocha => return mocha::read_file(path),
        _ => {}
    }
    match line_reader::reader_for(format) {
        Some(reader) => read_lines(path, WHAT_REPORT, Detector::only(reader)),
        None => Ok(None),
    }
}

/// Feed every line of a file to a detector.
fn read_lines(
    path: &Path,
    what: &'static str,
    mut detector: Detector,
) -> Result<Option<TestRun>, ReadError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if what == WHAT_OUTPUT && e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::io(what, path, e)),
    };
    let mut lines = text_lines(file).map_err(|e| ReadError::io(what, path, e))?;
    while let Some(line) = lines
        .next_line()
        .map_err(|e| ReadError::io(what, path, e))?
    {
        detector.feed(&terminal_text(line));
    }
    Ok(detector.finish(&origin_of(path, what)))
}

/// Where a claim was printed: `stdout` or `stderr` for a suite's captured output (named so by
/// the runner), else the file's name.
fn origin_of(path: &Path, what: &str) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if what == WHAT_OUTPUT {
        match name.as_str() {
            n if n.starts_with("stdout") => return "stdout".to_owned(),
            n if n.starts_with("stderr") => return "stderr".to_owned(),
            _ => {}
        }
    }
    name
}

/// Read a suite's captured stdout and stderr (stdout first), each line by line through every
/// line format. The most specific format found in either stream wins; when both streams hold
/// it, their runs are merged (a plain closing line or a harness's totals are a whole, so the
/// later one wins instead, unless only the earlier printed its totals).
/// A file that does not exist counts as empty: runners skip writing an empty capture.
/// `Ok(None)` when neither holds results.
///
/// The run carries every framework's closing summary from both streams (the floor of its
/// counts), but a harness's tally only from a stream it was read from: a tally on the other
/// stream is as likely what the code under test printed.
pub fn read_output(stdout: &Path, stderr: &Path) -> Result<Option<TestRun>, ReadError> {
    let mut found: Vec<(TestRun, &str)> = Vec::new();
    for (path, origin) in [(stdout, "stdout"), (stderr, "stderr")] {
        // `jest --json` and `mocha --reporter json` print their document on stdout.
        let run = match read_head(path).map(|head| sniff(&head)) {
            Ok(Sniffed::Jest) => jest::read(path, WHAT_OUTPUT)?,
            Ok(Sniffed::Mocha) => mocha::read(path, WHAT_OUTPUT)?,
            _ => read_lines(path, WHAT_OUTPUT, Detector::new())?,
        };
        if let Some(run) = run {
            found.push((run, origin));
        }
    }
    let Some(best) = found.iter().map(|(r, _)| output_rank(r.format)).min() else {
        return Ok(None);
    };
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
    Ok(run.map(|run| TestRun { claims, ..run }))
}

/// Whether the run read so far printed its own format's summary in a stream it was read from.
fn first_has_summary(claims: &[Claim], first: &TestRun, counted: &[&str]) -> bool {
    claims
        .iter()
        .any(|c| c.format == first.format && counted.contains(&c.origin.as_str()))
}

/// The closing summaries printed in a suite's stdout and stderr, whatever else they hold: the
/// floor of results read from report files. Each stream is read on its own, as text; one that
/// cannot be read is a warning, and the other's summaries still count. A harness's tally
/// counts only when no framework printed a summary: beside one, it is as likely what the code
/// under test printed.
pub fn read_claims(stdout: &Path, stderr: &Path, warnings: &mut Vec<String>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for path in [stdout, stderr] {
        match read_lines(path, WHAT_OUTPUT, Detector::new()) {
            Ok(Some(run)) => claims.extend(run.claims),
            Ok(None) => {}
            Err(err) => warnings.push(err.to_string()),
        }
    }
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

/// The first [`SNIFF_BYTES`] of a file, as UTF-8 (UTF-16 reports are transcoded first).
fn read_head(path: &Path) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    File::open(path)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    if super::encoding::is_utf16(&head) {
        let mut utf8 = Vec::with_capacity(SNIFF_BYTES);
        super::encoding::Utf8Reader::new(head.as_slice()).read_to_end(&mut utf8)?;
        return Ok(utf8);
    }
    Ok(head)
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

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// What a terminal would show of one captured line: colour codes removed, and of text rewritten
/// in place with `\r` (progress counters) only the last rewrite.
pub(crate) fn terminal_text(line: &str) -> Cow<'_, str> {
    // One scan for the common case of a plain line.
    if memchr::memchr3(0x1b, 0x9b, b'\r', line.as_bytes()).is_none() {
        return Cow::Borrowed(line);
    }
    match strip_ansi(line) {
        Cow::Borrowed(s) => Cow::Borrowed(after_last_cr(s)),
        Cow::Owned(s) => {
            let visible = after_last_cr(&s);
            if visible.len() == s.len() {
                Cow::Owned(s)
            } else {
                Cow::Owned(visible.to_owned())
            }
        }
    }
}

fn after_last_cr(s: &str) -> &str {
    match memchr::memrchr(b'\r', s.as_bytes()) {
        Some(i) => s.get(i + 1..).unwrap_or_default(),
        None => s,
    }
}

/// Remove ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), the
/// other string sequences (DCS, SOS, PM, APC), charset selections and two-character escapes.
/// Borrows when there is nothing to remove.
pub fn strip_ansi(s: &str) -> Cow<'_, str> {
    const ESC: char = '\u{1b}';
    const CSI_8BIT: char = '\u{9b}';
    // A byte scan, not a char search: this runs on every line of every report. 0x9B also
    // appears inside other characters' encodings; those only take the careful path below.
    if memchr::memchr2(0x1b, 0x9b, s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string_sequence(&mut chars);
                }
                Some('(' | ')' | '*' | '+' | '-' | '.' | '/' | '#' | '%') => {
                    chars.next();
                    chars.next();
                }
                Some('0'..='~') => {
                    chars.next();
                }
                // A lone ESC (cut off, or before text) shows nothing either.
                _ => {}
            },
            CSI_8BIT => skip_csi(&mut chars),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // Parameter and intermediate bytes, then one final byte; anything else ends a broken
    // sequence without eating the text after it.
    while let Some(&c) = chars.peek() {
        match c {
            ' '..='?' => {
                chars.next();
            }
            '@'..='~' => {
                chars.next();
                return;
            }
            _ => return,
        }
    }
}

fn skip_string_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // Ends at BEL, ST (ESC \ or the 8-bit 0x9C), or any other ESC (a new sequence: unterminated
    // OSC are common in the wild and should not swallow the rest of the line).
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

/// A committed report fixture, for the readers' tests.
#[cfg(test)]
pub(crate) fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reports")
        .join(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colour_cursor_and_hyperlink_sequences() {
        assert_eq!(strip_ansi("plain"), Cow::Borrowed("plain"));
        assert_eq!(strip_ansi("\u{1b}[32m3 passed\u{1b}[0m"), "3 passed");
        assert_eq!(strip_ansi("\u{1b}[1;31;48;5;200mred\u{1b}[K"), "red");
        assert_eq!(
            strip_ansi("\u{1b}]8;;https://x.test\u{7}link\u{1b}]8;;\u{1b}\\ after"),
            "link after"
        );
        assert_eq!(strip_ansi("\u{1b}(Bx\u{1b}=y\u{1b}"), "xy");
        assert_eq!(strip_ansi("\u{9b}2Jcleared"), "cleared");
        // A cut-off CSI must not eat the text after it.
        assert_eq!(strip_ansi("\u{1b}[12ü ok"), "ü ok");
    }

    #[test]
    fn terminal_text_keeps_the_last_carriage_return_rewrite() {
        assert_eq!(
            terminal_text("progress 5/6\r\u{1b}[32m✓\u{1b}[0m done"),
            "✓ done"
        );
        assert_eq!(terminal_text("no rewrite"), "no rewrite");
    }

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

    #[test]
    fn report_files_are_told_apart_by_content() {
        let junit = read_report_file(&fixture("junit/pytest-xunit2.xml"))
            .expect("read")
            .expect("a report");
        assert_eq!(junit.framework, "junit");
        let tap = read_report_file(&fixture("tap/node.tap"))
            .expect("read")
            .expect("a report");
        assert_eq!(tap.framework, "tap");
        // A text file is read by every line format: a suite that saves its output in the
        // report directory has it read from there.
        let summary = read_report_file(&fixture("summary/stdout.txt"))
            .expect("read")
            .expect("a closing line");
        assert_eq!((summary.passed, summary.failed, summary.skipped), (3, 1, 2));
        // pytest's terminal output saved beside its JUnit report reads the same.
        let pytest = read_report_file(&fixture("junit/pytest.stdout.txt"))
            .expect("read")
            .expect("pytest output");
        assert_eq!(pytest.framework, "pytest");
        assert_eq!((pytest.passed, pytest.failed, pytest.skipped), (2, 5, 2));
        for not_a_report in ["lcov/node.info", "tap/generate.sh"] {
            assert_eq!(
                read_report_file(&fixture(not_a_report)).expect("read"),
                None,
                "{not_a_report}"
            );
        }
    }

    #[test]
    fn a_missing_report_file_is_an_error_naming_it() {
        let err =
            read_report_file(Path::new("target/does-not-exist.xml")).expect_err("missing file");
        let text = err.to_string();
        assert!(
            text.starts_with("failed to read test report target/does-not-exist.xml: "),
            "{text}"
        );
    }

    /// Random interleavings of real failing runs' lines, split across stdout and stderr with
    /// other formats' lines among them: whatever format wins, after the floor no framework's
    /// closing summary that survived the shuffle claims more failures or tests than counted.
    #[test]
    fn no_summary_in_the_output_is_counted_down() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        for rel in [
            "mocha-spec/issue.spec.stdout.txt",
            "jest-text/issue.stderr.txt",
            "vitest-text/mixed.stdout.txt",
            "prove/fail.stdout.txt",
            "unittest/mixed-v.txt",
            "tap/node.tap",
            "pytest/mixed-v.txt",
        ] {
            let text = std::fs::read_to_string(fixture(rel)).expect("fixture");
            let lines: Vec<&str> = text.lines().collect();
            for seed in 0..40 {
                let mixed = crate::results::testkit::interleaving(&lines, seed);
                let cut = mixed.len() / 2 + usize::try_from(seed % 7).unwrap_or(0);
                let (first, second) = mixed.split_at(cut.min(mixed.len()));
                std::fs::write(&out, first.join("\n")).expect("write");
                std::fs::write(&err, second.join("\n")).expect("write");
                let Some(mut run) = read_output(&out, &err).expect("read") else {
                    continue;
                };
                let claims = run.claims.clone();
                super::super::floor::apply(&mut run, "output", true);
                for claim in &claims {
                    assert!(
                        run.failed >= claim.failed && run.total() >= claim.total(),
                        "{rel} seed {seed}: {}/{}/{} below {claim:?}",
                        run.passed,
                        run.failed,
                        run.skipped
                    );
                }
            }
        }
    }

    #[test]
    fn a_tally_on_the_other_stream_is_not_the_suites() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        // unittest reports on stderr; the code under test printed its own tally on stdout.
        std::fs::write(&out, "Passed: 3\nFailed: 1\n").expect("write");
        std::fs::write(
            &err,
            "test_a (t.T.test_a) ... ok\n\n----------------------------------------------------------------------\nRan 5 tests in 0.001s\n\nOK\n",
        )
        .expect("write");
        let mut run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!(run.format, ReportFormat::Unittest);
        assert!(
            run.claims
                .iter()
                .all(|c| c.format == ReportFormat::Unittest),
            "{:?}",
            run.claims
        );
        assert_eq!(super::super::floor::apply(&mut run, "output", true), None);
        // TAP on stdout; the command under test wrote its totals to stderr.
        std::fs::write(&out, "1..2\nok 1 - a\nok 2 - b\n").expect("write");
        std::fs::write(&err, "Total: 10\nErrors: 2\n").expect("write");
        let mut run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!(super::super::floor::apply(&mut run, "output", true), None);
        assert_eq!((run.passed, run.failed), (2, 0));
        // Beside a report file, a framework's summary makes a tally beside it no summary.
        std::fs::write(&out, "Passed: 3\nFailed: 1\n").expect("write");
        std::fs::write(&err, "Tests:       5 passed, 5 total\n").expect("write");
        let claims = read_claims(&out, &err, &mut Vec::new());
        assert!(
            claims.iter().all(|c| c.format == ReportFormat::JestText),
            "{claims:?}"
        );
    }

    #[test]
    fn totals_in_one_stream_win_over_markers_in_the_other() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        std::fs::write(&out, "[PASS] a\n[PASS] b\nPassed: 2\nFailed: 0\n").expect("write");
        std::fs::write(&err, "❌ Error: missing.csv not found\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!((run.passed, run.failed), (2, 0));
    }

    #[test]
    fn output_prefers_tap_then_the_last_plain_line() {
        // The summary fixture: colour codes, a `\r` progress rewrite, an intermediate tally,
        // noise such as "3 tests passed so far"; its own closing line is the expectation.
        let run = read_output(
            &fixture("summary/stdout.txt"),
            &fixture("summary/stderr.txt"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.framework, "summary");
        assert_eq!((run.passed, run.failed, run.skipped), (3, 1, 2));

        // TAP wins over a plain line anywhere in the output.
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("stdout");
        let err = dir.path().join("stderr");
        std::fs::write(&out, "TAP version 13\nok 1 - a\nnot ok 2 - b\n1..2\n").expect("write");
        std::fs::write(&err, "Results: 9 passed, 0 failed\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("results");
        assert_eq!(run.framework, "tap");
        assert_eq!((run.passed, run.failed), (1, 1));

        // Stdout is read first, so a closing line on stderr is the last one.
        std::fs::write(&out, "4 passed, 0 failed\n").expect("write");
        std::fs::write(&err, "Summary: 4 passed, 1 failed\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("results");
        assert_eq!((run.passed, run.failed), (4, 1));

        // A capture that was never written is empty; nothing at all is no results.
        std::fs::write(&out, "all good\n").expect("write");
        let missing = dir.path().join("missing");
        assert_eq!(read_output(&out, &missing).expect("read"), None);
    }
}
