//! Report bytes as UTF-8, whatever they arrive as: invalid sequences become U+FFFD (a broken
//! byte in one message must not lose the whole report), and UTF-16 with a byte-order mark is
//! transcoded. Streaming: memory stays one buffer whatever the size.

use std::io::{self, Read};

const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// The byte order mark a UTF-8 file may start with.
pub(super) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

/// A reader yielding valid UTF-8.
pub(crate) struct Utf8Reader<R> {
    inner: R,
    encoding: Option<Encoding>,
    /// Bytes read but not yet converted (an incomplete sequence at a buffer's end).
    pending: Vec<u8>,
    /// Converted bytes not yet handed out.
    out: Vec<u8>,
    out_pos: usize,
    eof: bool,
}

impl<R: Read> Utf8Reader<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            encoding: None,
            pending: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            eof: false,
        }
    }

    /// Read and convert the next chunk into `out`.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        let mut chunk = [0u8; 64 * 1024];
        while self.out.is_empty() && !self.eof {
            let n = self.inner.read(&mut chunk)?;
            if n == 0 {
                self.eof = true;
            }
            self.pending
                .extend_from_slice(chunk.get(..n).unwrap_or_default());
            if self.encoding.is_none() {
                if self.pending.len() < 2 && !self.eof {
                    continue;
                }
                self.encoding = Some(match self.pending.get(..2) {
                    Some([0xFF, 0xFE]) => Encoding::Utf16Le,
                    Some([0xFE, 0xFF]) => Encoding::Utf16Be,
                    _ => Encoding::Utf8,
                });
                if self.encoding != Some(Encoding::Utf8) {
                    self.pending.drain(..2);
                }
            }
            match self.encoding {
                Some(Encoding::Utf16Le) => self.utf16(u16::from_le_bytes),
                Some(Encoding::Utf16Be) => self.utf16(u16::from_be_bytes),
                _ => self.utf8(),
            }
        }
        Ok(())
    }

    fn utf8(&mut self) {
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    self.out.extend_from_slice(valid.as_bytes());
                    rest = &[];
                    break;
                }
                Err(err) => {
                    let (valid, after) = rest.split_at(err.valid_up_to());
                    self.out.extend_from_slice(valid);
                    match err.error_len() {
                        Some(bad) => {
                            self.out.extend_from_slice(REPLACEMENT);
                            rest = after.get(bad..).unwrap_or_default();
                        }
                        // An incomplete sequence: wait for more bytes, unless there are none.
                        None if self.eof => {
                            self.out.extend_from_slice(REPLACEMENT);
                            rest = &[];
                            break;
                        }
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        let keep = rest.len();
        let start = self.pending.len() - keep;
        self.pending.drain(..start);
    }

    fn utf16(&mut self, unit: fn([u8; 2]) -> u16) {
        let whole = self.pending.len() / 2 * 2;
        let units = self.pending[..whole]
            .chunks_exact(2)
            .map(|pair| unit([pair[0], pair[1]]));
        let mut buf = [0u8; 4];
        let mut lone_high = false;
        for decoded in char::decode_utf16(units) {
            lone_high = decoded.is_err();
            let c = decoded.unwrap_or(char::REPLACEMENT_CHARACTER);
            self.out
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        // A surrogate pair split across reads shows as a lone high surrogate at the end: keep
        // its two bytes for the next read instead of replacing it.
        let mut keep_from = whole;
        if lone_high && !self.eof && whole >= 2 {
            let last = unit([self.pending[whole - 2], self.pending[whole - 1]]);
            if (0xD800..0xDC00).contains(&last) {
                self.out.truncate(self.out.len() - REPLACEMENT.len());
                keep_from = whole - 2;
            }
        }
        if self.eof && self.pending.len() > whole {
            self.out.extend_from_slice(REPLACEMENT);
            keep_from = self.pending.len();
        }
        self.pending.drain(..keep_from);
    }
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Fast path, nearly always taken: valid UTF-8 read straight into the caller's buffer,
        // checked in place, no copy.
        if self.encoding == Some(Encoding::Utf8)
            && self.pending.is_empty()
            && self.out_pos >= self.out.len()
            && !self.eof
            && buf.len() >= 4
        {
            let n = self.inner.read(buf)?;
            if n == 0 {
                self.eof = true;
                return Ok(0);
            }
            let read = buf.get(..n).unwrap_or_default();
            match std::str::from_utf8(read) {
                Ok(_) => return Ok(n),
                // Valid up to a sequence the next read completes: hand out the valid part.
                Err(err) if err.error_len().is_none() && err.valid_up_to() > 0 => {
                    let valid = err.valid_up_to();
                    self.pending
                        .extend_from_slice(read.get(valid..).unwrap_or_default());
                    return Ok(valid);
                }
                // Broken bytes: convert this chunk the slow way.
                Err(_) => {
                    self.pending.extend_from_slice(read);
                    self.out.clear();
                    self.out_pos = 0;
                    self.utf8();
                    // Only the start of a sequence so far: read on until something converts.
                    if self.out.is_empty() {
                        self.refill()?;
                    }
                }
            }
        } else if self.out_pos >= self.out.len() {
            self.refill()?;
        }
        let available = self.out.get(self.out_pos..).unwrap_or_default();
        let n = available.len().min(buf.len());
        if let (Some(to), Some(from)) = (buf.get_mut(..n), available.get(..n)) {
            to.copy_from_slice(from);
        }
        self.out_pos += n;
        Ok(n)
    }
}

/// Whether bytes start with a UTF-16 byte-order mark.
pub(crate) fn is_utf16(head: &[u8]) -> bool {
    matches!(head.get(..2), Some([0xFF, 0xFE] | [0xFE, 0xFF]))
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read through a reader that hands out `step` bytes at a time, to split sequences.
    fn convert(bytes: &[u8], step: usize) -> String {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = String::new();
        Utf8Reader::new(Trickle(bytes, step))
            .read_to_string(&mut out)
            .expect("valid UTF-8 out");
        out
    }

    #[test]
    fn utf8_passes_and_invalid_bytes_become_replacements() {
        for step in [1, 2, 3, 1000] {
            assert_eq!(convert("héllo ✓ 𝄞".as_bytes(), step), "héllo ✓ 𝄞");
            assert_eq!(convert(b"a\xffb\xc3", step), "a\u{fffd}b\u{fffd}");
        }
    }

    #[test]
    fn utf16_with_a_bom_is_transcoded() {
        let text = "<testsuite name=\"é 𝄞\"/>";
        let mut le = vec![0xFF, 0xFE];
        le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let mut be = vec![0xFE, 0xFF];
        be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
        for step in [1, 3, 1000] {
            assert_eq!(convert(&le, step), text);
            assert_eq!(convert(&be, step), text);
        }
        assert_eq!(convert(&[0xFF, 0xFE, 0x41, 0x00, 0x42], 1), "A\u{fffd}");
        assert!(is_utf16(&le) && is_utf16(&be) && !is_utf16(b"<x"));
    }
}
