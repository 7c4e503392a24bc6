//! What every XML report reader shares: a cap on the size of one event, the root element of a
//! head, a streaming reader, and the line of a byte offset for error messages. No DTD is ever
//! processed by the readers that use it.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Seek};

use quick_xml::Reader;
use quick_xml::events::Event;

use super::encoding::{Utf8Reader, strip_bom};
use super::error::InputError;

/// quick-xml holds one whole event (a tag, a text run) in memory; a larger one is refused so a
/// runaway `<system-out>` or a hostile file cannot take the memory with it.
pub(crate) const MAX_EVENT_BYTES: u64 = 64 * 1024 * 1024;

/// The error a [`Capped`] reader gives past [`MAX_EVENT_BYTES`].
#[derive(Debug)]
pub(crate) struct TooLong;

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a single XML tag or text run is longer than {} MiB",
            MAX_EVENT_BYTES / (1024 * 1024)
        )
    }
}

impl std::error::Error for TooLong {}

impl TooLong {
    /// Whether an I/O error is this one.
    pub(crate) fn caused(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|inner| inner.is::<TooLong>())
    }
}

/// A reader that refuses to hand out more than [`MAX_EVENT_BYTES`] between two resets (one
/// reset per XML event).
pub(crate) struct Capped<R> {
    inner: R,
    since_reset: u64,
}

impl<R> Capped<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            since_reset: 0,
        }
    }

    /// A new event starts: its bytes are counted from here.
    pub(crate) fn reset(&mut self) {
        self.since_reset = 0;
    }
}

impl<R: BufRead> Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        if let (Some(to), Some(from)) = (out.get_mut(..n), available.get(..n)) {
            to.copy_from_slice(from);
        }
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Capped<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.since_reset > MAX_EVENT_BYTES {
            return Err(io::Error::other(TooLong));
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.since_reset = self.since_reset.saturating_add(amount as u64);
        self.inner.consume(amount);
    }
}

/// The 1-based line holding byte `offset`, found by reading the input again from its start:
/// errors are rare, and counting lines while streaming would cost on every report.
pub(crate) fn line_at(input: &mut (impl Read + Seek), offset: u64) -> io::Result<u64> {
    input.rewind()?;
    let mut reader = BufReader::new(input.by_ref().take(offset));
    let mut newlines = 0u64;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(newlines + 1);
        }
        newlines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        let len = chunk.len();
        reader.consume(len);
    }
}

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
    /// At a byte offset into the input.
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

pub(crate) type XmlReader<R> = Reader<Capped<BufReader<Utf8Reader<R>>>>;

/// A streaming reader for an XML report. Nothing in a DTD is processed: entities are never
/// expanded and external ones never fetched (the readers look at attributes, not text).
pub(crate) fn xml_reader<R: Read>(input: R) -> XmlReader<R> {
    Reader::from_reader(Capped::new(BufReader::new(Utf8Reader::new(input))))
}

/// The next event, each one held to [`MAX_EVENT_BYTES`].
pub(crate) fn next_event<'b, R: Read>(
    reader: &mut XmlReader<R>,
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

/// A reader's outcome with the byte offset of a failure turned into a line number of `input`.
pub(crate) fn xml_result<T>(
    input: &mut (impl Read + Seek),
    result: Result<T, XmlStop>,
) -> Result<Option<T>, InputError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(XmlStop::Foreign) => Ok(None),
        Err(XmlStop::Io(e)) => Err(InputError::Io(e)),
        Err(XmlStop::Malformed { offset, message }) => {
            Err(InputError::malformed(line_at(input, offset)?, message))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_on_one_event_is_enforced() {
        let mut capped = Capped::new(io::Cursor::new(vec![b'a'; 10]));
        capped.since_reset = MAX_EVENT_BYTES + 1;
        let err = capped.fill_buf().expect_err("over the cap");
        assert!(TooLong::caused(&err));
        capped.reset();
        let mut out = Vec::new();
        capped.read_to_end(&mut out).expect("read");
        assert_eq!(out.len(), 10);
        assert_eq!(capped.since_reset, 10);
    }

    #[test]
    fn lines_of_offsets() {
        let mut input = io::Cursor::new(b"a\nb\nc");
        assert_eq!(line_at(&mut input, 0).expect("line"), 1);
        assert_eq!(line_at(&mut input, 2).expect("line"), 2);
        assert_eq!(line_at(&mut input, 5).expect("line"), 3);
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
}
