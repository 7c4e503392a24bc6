//! Lines of a text report, read in chunks: every line format (and lcov, Go coverprofiles) reads
//! through here, so this is the hot loop when a suite prints a million test lines.
//!
//! Each chunk read is cut after its last newline and converted to text once (one vectorised
//! UTF-8 check over the whole chunk, a lossy decode only for a chunk with broken bytes); lines
//! are then handed out as slices of that text, without a copy or a second check each.

use std::fs::File;
use std::io::{self, Read};

use super::encoding::{Utf8Reader, is_utf16};

/// The longest line a reader keeps; the rest of a longer line is skipped, so one runaway line
/// (a minified bundle, a binary blob) cannot take the memory with it.
pub(crate) const MAX_LINE_BYTES: usize = 1024 * 1024;

/// How much is read at a time.
const CHUNK_BYTES: usize = 64 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The lines of a text file. UTF-8 (or anything else) is read as it is, each chunk decoded
/// lossily; only a file that opens with a UTF-16 byte-order mark goes through the transcoder.
pub(crate) fn text_lines(mut file: File) -> io::Result<Lines<Box<dyn Read>>> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let head = io::Cursor::new(head.get(..got).unwrap_or_default().to_vec());
    let input = head.chain(file);
    let reader: Box<dyn Read> = if is_utf16(input.get_ref().0.get_ref()) {
        Box::new(Utf8Reader::new(input))
    } else {
        Box::new(input)
    };
    Ok(Lines::new(reader))
}

/// Lines of a text stream, at most [`MAX_LINE_BYTES`] each (the rest skipped), decoded lossily,
/// without the line ending (`\n` or `\r\n`) or a leading BOM.
pub(crate) struct Lines<R> {
    reader: R,
    /// Bytes read but not converted yet: the start of a line whose end is still to come.
    raw: Vec<u8>,
    /// Whole lines, each ending in `\n`, converted from `raw`.
    text: String,
    /// Where the next line starts in `text`.
    pos: usize,
    /// The start of the stream has been read (and a BOM removed from it).
    started: bool,
    /// In the middle of an over-long line, whose kept part was handed out already.
    skipping: bool,
    eof: bool,
}

impl<R: Read> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self {
            reader,
            raw: Vec::new(),
            text: String::new(),
            pos: 0,
            started: false,
            skipping: false,
            eof: false,
        }
    }

    pub(crate) fn next_line(&mut self) -> io::Result<Option<&str>> {
        loop {
            let rest = self.text.as_bytes().get(self.pos..).unwrap_or_default();
            if let Some(newline) = memchr::memchr(b'\n', rest) {
                let start = self.pos;
                self.pos = start + newline + 1;
                let line = self.text.get(start..start + newline).unwrap_or_default();
                return Ok(Some(line.strip_suffix('\r').unwrap_or(line)));
            }
            if self.eof {
                return Ok(None);
            }
            self.refill()?;
        }
    }

    /// Replace `text` with the next whole lines of the input (at least one, unless it ended).
    fn refill(&mut self) -> io::Result<()> {
        self.text.clear();
        self.pos = 0;
        loop {
            let read = self.read_chunk()?;
            if read == 0 {
                self.eof = true;
                if !self.raw.is_empty() && !self.skipping {
                    // The last line, without a newline of its own.
                    self.raw.push(b'\n');
                    self.convert(self.raw.len());
                }
                return Ok(());
            }
            let fresh = self.raw.len() - read;
            if self.skipping {
                // Drop the rest of an over-long line, up to its end.
                match memchr::memchr(b'\n', self.raw.get(fresh..).unwrap_or_default()) {
                    Some(i) => {
                        self.raw.drain(..=fresh + i);
                        self.skipping = false;
                    }
                    None => {
                        self.raw.truncate(fresh);
                        continue;
                    }
                }
            }
            if !self.started && (self.raw.len() >= UTF8_BOM.len() || self.raw.contains(&b'\n')) {
                self.started = true;
                if self.raw.starts_with(UTF8_BOM) {
                    self.raw.drain(..UTF8_BOM.len());
                }
            }
            if let Some(last) = memchr::memrchr(b'\n', &self.raw) {
                self.convert(last + 1);
                return Ok(());
            }
            if self.raw.len() >= MAX_LINE_BYTES {
                // An over-long line: keep its start, skip to its end.
                self.raw.truncate(MAX_LINE_BYTES);
                self.raw.push(b'\n');
                self.convert(self.raw.len());
                self.skipping = true;
                return Ok(());
            }
        }
    }

    /// Read one chunk onto the end of `raw`; the number of bytes read.
    fn read_chunk(&mut self) -> io::Result<usize> {
        let old = self.raw.len();
        self.raw.resize(old + CHUNK_BYTES, 0);
        let result = loop {
            match self
                .reader
                .read(self.raw.get_mut(old..).unwrap_or_default())
            {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        let read = *result.as_ref().unwrap_or(&0);
        self.raw.truncate(old + read);
        result
    }

    /// Move the first `len` bytes of `raw` into `text`.
    fn convert(&mut self, len: usize) {
        let bytes = self.raw.get(..len).unwrap_or_default();
        match std::str::from_utf8(bytes) {
            Ok(text) => self.text.push_str(text),
            Err(_) => self.text.push_str(&String::from_utf8_lossy(bytes)),
        }
        self.raw.drain(..len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read through a reader that hands out `step` bytes at a time, to split lines and
    /// characters across reads.
    fn lines(bytes: &[u8], step: usize) -> Vec<String> {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut reader = Lines::new(Trickle(bytes, step));
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().expect("read") {
            out.push(line.to_owned());
        }
        out
    }

    #[test]
    fn lines_without_their_endings_whatever_the_reads() {
        for step in [1, 2, 3, 7, CHUNK_BYTES] {
            assert_eq!(lines(b"a\nb\r\n\nlast", step), ["a", "b", "", "last"]);
            assert_eq!(lines(b"one\n", step), ["one"]);
            assert_eq!(lines(b"", step), Vec::<String>::new());
            // A lone `\r` inside a line is text (progress rewrites are resolved later).
            assert_eq!(lines(b"50%\r100%\n", step), ["50%\r100%"]);
        }
    }

    #[test]
    fn broken_bytes_become_replacements_and_characters_survive_split_reads() {
        for step in [1, 2, 5, CHUNK_BYTES] {
            assert_eq!(
                lines("ok 1 - ✓ é 𝄞\nnot ok 2 - \u{ff}\n".as_bytes(), step),
                ["ok 1 - ✓ é 𝄞", "not ok 2 - \u{ff}"]
            );
            assert_eq!(lines(b"a\xffb\nc\xc3", step), ["a\u{fffd}b", "c\u{fffd}"]);
        }
    }

    #[test]
    fn the_bom_and_crlf_are_not_part_of_the_text() {
        for step in [1, 2, CHUNK_BYTES] {
            assert_eq!(
                lines(b"\xEF\xBB\xBFTAP version 13\r\nok 1\n", step),
                ["TAP version 13", "ok 1"]
            );
            // Only a leading BOM is removed.
            assert_eq!(lines(b"a\n\xEF\xBB\xBFb\n", step), ["a", "\u{feff}b"]);
            assert_eq!(lines(b"\n", step), [""]);
        }
    }

    #[test]
    fn long_lines_are_cut_and_the_rest_skipped() {
        let mut input = vec![b'a'; MAX_LINE_BYTES + CHUNK_BYTES + 10];
        input.extend_from_slice(b"\r\nnext\n");
        input.extend(std::iter::repeat_n(b'b', MAX_LINE_BYTES * 2));
        for step in [4096, CHUNK_BYTES] {
            let got = lines(&input, step);
            assert_eq!(got.len(), 3);
            assert_eq!(got[0].len(), MAX_LINE_BYTES);
            assert_eq!(got[1], "next");
            assert_eq!(got[2].len(), MAX_LINE_BYTES);
        }
    }

    #[test]
    fn utf16_files_are_transcoded_and_others_read_as_they_are() {
        let dir = tempfile::tempdir().expect("tempdir");
        let read = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            let mut reader = text_lines(File::open(&path).expect("open")).expect("lines");
            let mut out = Vec::new();
            while let Some(line) = reader.next_line().expect("read") {
                out.push(line.to_owned());
            }
            out
        };
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(
            "1..1\r\nok 1 - é\r\n"
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        );
        assert_eq!(read("le.tap", &utf16), ["1..1", "ok 1 - é"]);
        assert_eq!(read("plain.tap", b"1..1\nok 1\n"), ["1..1", "ok 1"]);
        assert_eq!(read("one-byte.txt", b"x"), ["x"]);
        assert_eq!(read("empty.txt", b""), Vec::<String>::new());
    }
}
