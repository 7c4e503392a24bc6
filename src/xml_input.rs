//! What every XML report reader shares: a cap on the size of one event, and the line of a byte
//! offset for error messages. No DTD is ever processed by the readers that use it.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

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

/// The 1-based line holding byte `offset`, found by reading the file again: errors are rare,
/// and counting lines while streaming would cost on every report.
pub(crate) fn line_at(path: &Path, offset: u64) -> io::Result<u64> {
    let mut reader = BufReader::new(File::open(path)?.take(offset));
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
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("x.xml");
        std::fs::write(&path, "a\nb\nc").expect("write");
        assert_eq!(line_at(&path, 0).expect("line"), 1);
        assert_eq!(line_at(&path, 2).expect("line"), 2);
        assert_eq!(line_at(&path, 5).expect("line"), 3);
    }
}
