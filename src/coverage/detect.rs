//! Which reader a coverage file needs, judged by content (never by file name), and the input
//! handling the readers share: head sniffing, bounded XML and JSON streaming, number limits.

use crate::results::encoding::Utf8Reader;
use crate::xml_input::{Capped, TooLong, line_at};
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;

use super::model::{Coverage, CoverageFormat};
use super::{cobertura, coveragepy, gocover, istanbul, jacoco, lcov};
use crate::results::detect::{SNIFF_BYTES, strip_bom};
use crate::results::{ReadError, truncate_utf8};

/// What a coverage file is called in errors.
pub(crate) const WHAT: &str = "coverage report";

/// More lines than any codebase has: a count above it is a broken or hostile file, and keeping
/// every count below it lets callers add counts of many reports without overflow.
pub(crate) const MAX_LINES: u64 = 1_000_000_000_000;

/// The highest line number a source file is believed to have. Go blocks span line ranges, so
/// one absurd number would otherwise count billions of lines.
pub(crate) const MAX_LINE_NUMBER: u64 = 10_000_000;

/// JSON reports larger than this are refused: the readers stream, but a path or key is held
/// whole, and no real summary comes near this size.
pub(crate) const MAX_JSON_BYTES: u64 = 256 * 1024 * 1024;

/// Deeper XML nesting is refused: real reports nest a few levels, hostile ones to exhaust memory.
pub(crate) const MAX_XML_DEPTH: usize = 256;

/// Read a coverage report, detecting its format by content. `Ok(None)` when the file is not a
/// coverage report (a JUnit report, a log, a binary); `Err` when it is one but is broken.
pub fn read_coverage_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
    let head = read_head(path)?;
    let head = strip_bom(&head);
    // Reports are text; images, archives and databases nearly always hold NUL bytes.
    if head.contains(&0) {
        return Ok(None);
    }
    // The sniffs are exclusive (an XML root name, JSON keys, a first text line), so the first
    // that matches decides; lcov comes last because its reader is the most forgiving.
    type Sniff = fn(&[u8]) -> bool;
    let readers: [(Sniff, CoverageFormat); 6] = [
        (cobertura::sniff, CoverageFormat::Cobertura),
        (jacoco::sniff, CoverageFormat::Jacoco),
        (coveragepy::sniff, CoverageFormat::CoveragePy),
        (istanbul::sniff, CoverageFormat::Istanbul),
        (gocover::sniff, CoverageFormat::GoCover),
        (lcov::sniff, CoverageFormat::Lcov),
    ];
    match readers.iter().find(|(sniff, _)| sniff(head)) {
        Some(&(_, format)) => read_coverage_as(path, format),
        None => Ok(None),
    }
}

/// Read a coverage report as `format`, whatever it looks like. `Ok(None)` when the file does
/// not hold that format.
pub fn read_coverage_as(
    path: &Path,
    format: CoverageFormat,
) -> Result<Option<Coverage>, ReadError> {
    match format {
        CoverageFormat::Lcov => lcov::read_file(path),
        CoverageFormat::Cobertura => cobertura::read_file(path),
        CoverageFormat::Istanbul => istanbul::read_file(path),
        CoverageFormat::CoveragePy => coveragepy::read_file(path),
        CoverageFormat::GoCover => gocover::read_file(path),
        CoverageFormat::Jacoco => jacoco::read_file(path),
    }
}

/// The first [`SNIFF_BYTES`] of a file.
pub(crate) fn read_head(path: &Path) -> Result<Vec<u8>, ReadError> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    File::open(path)
        .and_then(|file| file.take(SNIFF_BYTES as u64).read_to_end(&mut head))
        .map_err(|e| ReadError::io(WHAT, path, e))?;
    Ok(head)
}

/// `covered` of `total` lines, both as a report states them: refused when covered exceeds total
/// or either is beyond [`MAX_LINES`].
pub(crate) fn check_counts(covered: u64, total: u64) -> Result<(), String> {
    if total > MAX_LINES {
        return Err(format!(
            "{total} lines is more than any codebase has (the limit is {MAX_LINES})"
        ));
    }
    if covered > total {
        return Err(format!(
            "{covered} covered lines is more than the {total} lines in total"
        ));
    }
    Ok(())
}

/// A value from the file as an error quotes it: cut, so that a runaway attribute or line does
/// not become the message.
pub(crate) fn shown(value: &str) -> String {
    truncate_utf8(value, 80)
}

/// A count that is only asked whether it is zero: digits, optionally with a fraction (some
/// writers print `3.0`), of any length. `None` when it is not such a number.
pub(crate) fn nonzero_count(text: &str) -> Option<bool> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    Some(text.bytes().any(|b| b.is_ascii_digit() && b != b'0'))
}

// ----- XML -----

/// The local name of the root element, if the head gets that far: after a BOM, an XML
/// declaration, comments, processing instructions and a DOCTYPE (internal subset included).
pub(crate) fn xml_root(head: &[u8]) -> Option<&str> {
    let mut rest = strip_bom(head);
    loop {
        rest = rest.trim_ascii_start();
        if let Some(after) = rest.strip_prefix(b"<?") {
            rest = after.get(find(after, b"?>")? + 2..)?;
        } else if let Some(after) = rest.strip_prefix(b"<!--") {
            rest = after.get(find(after, b"-->")? + 3..)?;
        } else if let Some(after) = rest.strip_prefix(b"<!") {
            rest = after.get(doctype_end(after)?..)?;
        } else if let Some(after) = rest.strip_prefix(b"<") {
            let end = after
                .iter()
                .position(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')?;
            let name = std::str::from_utf8(after.get(..end)?).ok()?;
            return Some(name.rsplit(':').next().unwrap_or(name));
        } else {
            return None;
        }
    }
}

/// The offset just past the `>` closing a `<!DOCTYPE …>` whose `<!` was already taken, stepping
/// over quoted strings and an internal subset in brackets.
fn doctype_end(bytes: &[u8]) -> Option<usize> {
    let mut quote = None;
    let mut in_subset = false;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[') => in_subset = true,
            (None, b']') => in_subset = false,
            (None, b'>') if !in_subset => return Some(i + 1),
            _ => {}
        }
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Why an XML reader stopped early.
pub(crate) enum XmlStop {
    /// The document is not of the reader's format (another root element, no XML at all).
    Foreign,
    Io(io::Error),
    /// At a byte offset into the file.
    Malformed {
        offset: u64,
        message: String,
    },
}

impl XmlStop {
    pub(crate) fn at<R>(reader: &Reader<R>, message: impl Into<String>) -> Self {
        Self::Malformed {
            offset: reader.buffer_position(),
            message: message.into(),
        }
    }
}

pub(crate) type XmlReader = Reader<Capped<BufReader<Utf8Reader<File>>>>;

/// A streaming reader for an XML report. Nothing in a DTD is processed: entities are never
/// expanded and external ones never fetched (the readers look at attributes, not text).
pub(crate) fn xml_reader(path: &Path) -> Result<XmlReader, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT, path, e))?;
    let input = crate::results::encoding::Utf8Reader::new(file);
    Ok(Reader::from_reader(Capped::new(BufReader::new(input))))
}

/// The next event, each one held to [`MAX_EVENT_BYTES`](crate::xml_input::MAX_EVENT_BYTES).
pub(crate) fn next_event<'b>(
    reader: &mut XmlReader,
    buf: &'b mut Vec<u8>,
) -> Result<Event<'b>, XmlStop> {
    buf.clear();
    reader.get_mut().reset();
    match reader.read_event_into(buf) {
        Ok(event) => Ok(event),
        Err(quick_xml::Error::Io(io_error)) => {
            if TooLong::caused(&io_error) {
                return Err(XmlStop::at(reader, TooLong.to_string()));
            }
            Err(XmlStop::Io(io::Error::new(
                io_error.kind(),
                io_error.to_string(),
            )))
        }
        Err(e) => Err(XmlStop::Malformed {
            offset: reader.error_position(),
            message: format!("invalid XML: {e}"),
        }),
    }
}

/// A reader's outcome with the byte offset of a failure turned into a line number.
pub(crate) fn xml_result(
    path: &Path,
    result: Result<Coverage, XmlStop>,
) -> Result<Option<Coverage>, ReadError> {
    match result {
        Ok(coverage) => Ok(Some(coverage)),
        Err(XmlStop::Foreign) => Ok(None),
        Err(XmlStop::Io(e)) => Err(ReadError::io(WHAT, path, e)),
        Err(XmlStop::Malformed { offset, message }) => {
            let line = line_at(path, offset).map_err(|e| ReadError::io(WHAT, path, e))?;
            Err(ReadError::malformed(WHAT, path, line, message))
        }
    }
}

/// The message for a file that ends inside an element.
pub(crate) fn unexpected_eof(open: &str) -> String {
    format!(
        "unexpected end of XML inside <{open}> (help: the coverage tool may have been stopped \
         before it finished writing the report)"
    )
}

// ----- JSON -----

/// Object keys in the head of a JSON document, each with its depth (1 for the keys of the
/// top-level object; arrays count as a level too), in document order. `None` unless the head starts with an object. A head
/// cut in the middle of the document yields the keys before the cut.
pub(crate) fn json_keys(head: &[u8]) -> Option<Vec<(usize, String)>> {
    const MAX_KEYS: usize = 512;
    const MAX_DEPTH: usize = 64;
    let head = strip_bom(head).trim_ascii_start();
    if head.first() != Some(&b'{') {
        return None;
    }
    let mut keys = Vec::new();
    // true for an object, false for an array.
    let mut stack: Vec<bool> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while let Some(&b) = head.get(i) {
        i += 1;
        match b {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    break;
                }
                stack.push(b == b'{');
                expect_key = b == b'{';
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                if stack.is_empty() {
                    break;
                }
            }
            b',' => expect_key = stack.last() == Some(&true),
            b':' => expect_key = false,
            b'"' => {
                let start = i;
                let mut escaped = false;
                let Some(len) = head.get(start..).and_then(|rest| {
                    rest.iter().position(|&c| {
                        let end = c == b'"' && !escaped;
                        escaped = c == b'\\' && !escaped;
                        end
                    })
                }) else {
                    break;
                };
                if expect_key {
                    let key = head.get(start..start + len).unwrap_or_default();
                    keys.push((stack.len(), String::from_utf8_lossy(key).into_owned()));
                    if keys.len() >= MAX_KEYS {
                        break;
                    }
                }
                expect_key = false;
                i = start + len + 1;
            }
            _ => {}
        }
    }
    Some(keys)
}

/// A JSON report opened for streaming, refused above [`MAX_JSON_BYTES`].
fn json_reader(path: &Path) -> Result<BufReader<Utf8Reader<io::Take<File>>>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT, path, e))?;
    let size = file
        .metadata()
        .map_err(|e| ReadError::io(WHAT, path, e))?
        .len();
    if size > MAX_JSON_BYTES {
        return Err(ReadError::io(
            WHAT,
            path,
            io::Error::other(format!(
                "the file is {} MiB, more than the {} MiB a JSON coverage report may be \
                 (help: point skillgate at the summary report, e.g. coverage-summary.json)",
                size / (1024 * 1024),
                MAX_JSON_BYTES / (1024 * 1024)
            )),
        ));
    }
    // The file may grow after the size was read; what lies past the limit is never read.
    Ok(BufReader::new(Utf8Reader::new(file.take(MAX_JSON_BYTES))))
}

/// Deserialize a whole JSON report, streaming: what `T` does not keep is skipped as it is read.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReadError> {
    let mut de = serde_json::Deserializer::from_reader(json_reader(path)?);
    let value = T::deserialize(&mut de).map_err(|e| json_error(path, &e))?;
    de.end().map_err(|e| json_error(path, &e))?;
    Ok(value)
}

/// A serde_json error as a read error naming the line (and, in the message, the column).
fn json_error(path: &Path, error: &serde_json::Error) -> ReadError {
    if error.is_io() {
        return ReadError::io(WHAT, path, io::Error::other(error.to_string()));
    }
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    let message = if error.is_eof() {
        format!(
            "unexpected end of JSON: {message} (help: the coverage tool may have been stopped \
             before it finished writing the report)"
        )
    } else {
        format!("column {}: {message}", error.column())
    };
    ReadError::malformed(WHAT, path, error.line().max(1) as u64, message)
}

/// Coverage text written to a file and read by one reader, for the readers' tests.
#[cfg(test)]
pub(crate) struct Sample {
    /// The file name the text is written under (and that errors name).
    pub(crate) file: &'static str,
    pub(crate) reader: fn(&Path) -> Result<Option<Coverage>, ReadError>,
}

#[cfg(test)]
impl Sample {
    pub(crate) fn read(&self, text: &str) -> Result<Option<Coverage>, ReadError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(self.file);
        std::fs::write(&path, text).expect("write");
        (self.reader)(&path)
    }

    /// Covered and total lines of text that must read as a report.
    pub(crate) fn totals(&self, text: &str) -> (u64, u64) {
        let coverage = self.read(text).expect("read").expect("a coverage report");
        (coverage.covered, coverage.total)
    }

    /// The message of the error text must give, after the file name.
    pub(crate) fn error(&self, text: &str) -> String {
        let err = self.read(text).expect_err("an error").to_string();
        err.rsplit_once(&format!("{}: ", self.file))
            .map(|(_, message)| message.to_owned())
            .unwrap_or(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::detect::fixture;

    #[test]
    fn every_fixture_is_told_apart_by_content() {
        let cases: &[(&str, CoverageFormat, u64, u64)] = &[
            ("lcov/node.info", CoverageFormat::Lcov, 65, 66),
            (
                "cobertura/coveragepy.xml",
                CoverageFormat::Cobertura,
                32,
                36,
            ),
            ("cobertura/istanbul.xml", CoverageFormat::Cobertura, 7, 11),
            ("cobertura/gcovr.xml", CoverageFormat::Cobertura, 14, 22),
            (
                "istanbul/jest-summary.json",
                CoverageFormat::Istanbul,
                7,
                11,
            ),
            ("istanbul/nyc-final.json", CoverageFormat::Istanbul, 7, 11),
            (
                "coveragepy/coverage.json",
                CoverageFormat::CoveragePy,
                32,
                36,
            ),
            ("gocover/set.out", CoverageFormat::GoCover, 10, 15),
            ("jacoco/jacoco.xml", CoverageFormat::Jacoco, 17, 24),
        ];
        for &(rel, format, covered, total) in cases {
            let coverage = read_coverage_file(&fixture(rel))
                .expect("read")
                .unwrap_or_else(|| panic!("{rel} is a coverage report"));
            assert_eq!(
                (coverage.format, coverage.covered, coverage.total),
                (format, covered, total),
                "{rel}"
            );
        }
    }

    #[test]
    fn coverage_reports_are_not_test_reports() {
        // The gate offers each report file to the test-result readers first: none may claim a
        // coverage report, or its coverage would never be read.
        for rel in [
            "cobertura/coveragepy.xml",
            "cobertura/istanbul.xml",
            "cobertura/gcovr.xml",
            "istanbul/jest-summary.json",
            "istanbul/nyc-final.json",
            "coveragepy/coverage.json",
            "gocover/merged.out",
            "jacoco/jacoco.xml",
        ] {
            let run = crate::results::read_report_file(&fixture(rel)).expect("read");
            assert!(run.is_none(), "{rel}: {run:?}");
        }
    }

    #[test]
    fn other_files_are_not_coverage() {
        for rel in [
            "junit/pytest-xunit2.xml",
            "junit/entity-bomb.xml",
            "tap/node.tap",
            "summary/stdout.txt",
            "lcov/generate.sh",
            "cobertura/coveragepy.report.txt",
            "gocover/set.func.txt",
            "istanbul/project/package.json",
            "README.md",
        ] {
            assert_eq!(
                read_coverage_file(&fixture(rel)).expect("read"),
                None,
                "{rel}"
            );
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, content) in [
            ("empty", &b""[..]),
            ("blank", b"\n\n  \n"),
            ("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            ("array.json", b"[1, 2, 3]"),
            ("other.json", b"{\"name\": \"x\", \"version\": \"1.0.0\"}"),
            ("html", b"<!DOCTYPE html><html><body>coverage</body></html>"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, content).expect("write");
            assert_eq!(read_coverage_file(&path).expect("read"), None, "{name}");
        }
    }

    #[test]
    fn a_forced_format_reads_only_that_format() {
        let jacoco = fixture("jacoco/jacoco.xml");
        assert_eq!(
            read_coverage_as(&jacoco, CoverageFormat::Cobertura).expect("read"),
            None
        );
        let coverage = read_coverage_as(&jacoco, CoverageFormat::Jacoco)
            .expect("read")
            .expect("jacoco");
        assert_eq!(coverage.covered, 17);
        for format in [
            CoverageFormat::Lcov,
            CoverageFormat::Istanbul,
            CoverageFormat::CoveragePy,
            CoverageFormat::GoCover,
        ] {
            assert_eq!(
                read_coverage_as(&jacoco, format).expect("read"),
                None,
                "{format:?}"
            );
        }
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let err =
            read_coverage_file(Path::new("target/no-such-coverage.xml")).expect_err("missing");
        assert!(
            err.to_string()
                .starts_with("failed to read coverage report target/no-such-coverage.xml: "),
            "{err}"
        );
    }

    #[test]
    fn the_xml_root_is_found_past_the_prolog() {
        assert_eq!(xml_root(b"<coverage line-rate=\"1\">"), Some("coverage"));
        assert_eq!(
            xml_root(
                b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- by a tool -->\n<!DOCTYPE report \
                  PUBLIC \"-//JACOCO//DTD Report 1.1//EN\" \"report.dtd\"><report name=\"x\">"
            ),
            Some("report")
        );
        assert_eq!(
            xml_root(b"<!DOCTYPE c [ <!ENTITY a \"<x>\"> ]><cov:coverage/>"),
            Some("coverage")
        );
        assert_eq!(xml_root(b"<?xml version=\"1.0\"?>"), None);
        assert_eq!(xml_root(b"<!-- never closed"), None);
        assert_eq!(xml_root(b"text <coverage>"), None);
        assert_eq!(xml_root(b""), None);
    }

    #[test]
    fn json_keys_come_with_their_depth() {
        let keys = json_keys(br#" {"a": {"b": [1, {"c": "x\"y"}], "d": "e"}, "f": tru"#)
            .expect("an object");
        let keys: Vec<(usize, &str)> = keys.iter().map(|(d, k)| (*d, k.as_str())).collect();
        assert_eq!(keys, [(1, "a"), (2, "b"), (4, "c"), (2, "d"), (1, "f")]);
        assert_eq!(json_keys(b"[{\"a\": 1}]"), None);
        assert_eq!(json_keys(b"mode: set"), None);
        // A head cut inside a string keeps the keys before it.
        let keys = json_keys(br#"{"meta": {"vers"#).expect("an object");
        assert_eq!(keys, [(1, "meta".to_owned())]);
    }

    #[test]
    fn counts_are_checked() {
        assert_eq!(check_counts(3, 4), Ok(()));
        assert!(check_counts(5, 4).is_err());
        assert!(check_counts(0, MAX_LINES + 1).is_err());
        assert_eq!(shown("12"), "12");
        assert_eq!(shown(&"9".repeat(1000)).len(), 80);
        assert_eq!(nonzero_count("0"), Some(false));
        assert_eq!(nonzero_count("000.0"), Some(false));
        assert_eq!(nonzero_count("3.0"), Some(true));
        assert_eq!(nonzero_count("123456789012345678901234567890"), Some(true));
        assert_eq!(nonzero_count("-1"), None);
        assert_eq!(nonzero_count("1e3"), None);
        assert_eq!(nonzero_count(""), None);
        assert_eq!(nonzero_count(".5"), None);
    }
}
