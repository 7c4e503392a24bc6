//! Lines of a text report or a suite's output, read in chunks: every line format (and lcov, Go coverprofiles) reads
//! through here, so this is the hot loop when a suite prints a million test lines.
//!
//! Each chunk read is cut after its last newline and converted to text once (one vectorised
//! UTF-8 check over the whole chunk, a lossy decode only for a chunk with broken bytes); lines
//! are then handed out as slices of that text, without a copy or a second check each.

use std::io::{self, Read};

use super::encoding::{UTF8_BOM, Utf8Reader, is_utf16};

/// The longest line a reader keeps; the rest of a longer line is skipped, so one runaway line
/// (a minified bundle, a binary blob) cannot take the memory with it.
pub(crate) const MAX_LINE_BYTES: usize = 1024 * 1024;

/// How much is read at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The lines of a text stream. UTF-8 (or anything else) is read as it is, each chunk decoded
/// lossily; only a stream that opens with a UTF-16 byte-order mark goes through the transcoder.
pub(crate) fn text_lines<'a>(mut file: impl Read + 'a) -> io::Result<Lines<Box<dyn Read + 'a>>> {
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
    let reader: Box<dyn Read + 'a> = if is_utf16(input.get_ref().0.get_ref()) {
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
    raw: Pending,
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
            raw: Pending::default(),
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
                let line = line.strip_suffix('\r').unwrap_or(line);
                return Ok(Some(cap(line)));
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
            // What was there before this read holds no newline: only the new bytes are searched,
            // so a long line arriving in small reads is not scanned over and over.
            let mut fresh = self.raw.len() - read;
            if self.skipping {
                // Drop the rest of an over-long line, up to its end.
                match memchr::memchr(b'\n', self.raw.bytes().get(fresh..).unwrap_or_default()) {
                    Some(i) => {
                        self.raw.drain_front(fresh + i + 1);
                        self.skipping = false;
                        fresh = 0;
                    }
                    None => {
                        self.raw.truncate(fresh);
                        continue;
                    }
                }
            }
            if !self.started
                && (self.raw.len() >= UTF8_BOM.len() || self.raw.bytes().contains(&b'\n'))
            {
                self.started = true;
                if self.raw.bytes().starts_with(UTF8_BOM) {
                    self.raw.drain_front(UTF8_BOM.len());
                    fresh = fresh.saturating_sub(UTF8_BOM.len());
                }
            }
            if let Some(last) =
                memchr::memrchr(b'\n', self.raw.bytes().get(fresh..).unwrap_or_default())
            {
                self.convert(fresh + last + 1);
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
        loop {
            match self.raw.read_from(&mut self.reader) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }

    /// Move the first `len` bytes of `raw` into `text`.
    fn convert(&mut self, len: usize) {
        let bytes = self.raw.bytes().get(..len).unwrap_or_default();
        match std::str::from_utf8(bytes) {
            Ok(text) => self.text.push_str(text),
            Err(_) => self.text.push_str(&String::from_utf8_lossy(bytes)),
        }
        self.raw.drain_front(len);
    }
}

/// Bytes read and not converted yet, in a buffer that only grows: each read goes into room
/// that was zeroed once, not again (a pipe handing out a byte at a time stays cheap).
#[derive(Default)]
struct Pending {
    buf: Vec<u8>,
    len: usize,
}

impl Pending {
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn room(&mut self, more: usize) {
        if self.buf.len() < self.len + more {
            self.buf.resize(self.len + more, 0);
        }
    }

    fn read_from(&mut self, reader: &mut impl Read) -> io::Result<usize> {
        self.room(CHUNK_BYTES);
        let read = reader.read(self.buf.get_mut(self.len..).unwrap_or_default())?;
        self.len += read;
        Ok(read)
    }

    fn push(&mut self, byte: u8) {
        self.room(1);
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = byte;
        }
        self.len += 1;
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Remove the first `n` bytes.
    fn drain_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.buf.copy_within(n..self.len, 0);
        self.len -= n;
    }
}

/// A line cut to [`MAX_LINE_BYTES`] at a character boundary. Lines are cut as they are read,
/// but a read can bring a longer line's end together with its middle.
fn cap(line: &str) -> &str {
    if line.len() <= MAX_LINE_BYTES {
        return line;
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

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

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// What the lines should be: split at `\n`, without a trailing `\r` or a leading BOM,
    /// each decoded lossily on its own.
    fn expected(bytes: &[u8]) -> Vec<String> {
        let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        lines
            .into_iter()
            .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
            .collect()
    }

    #[test]
    fn any_bytes_in_any_reads_give_the_lines_a_plain_split_gives() {
        let pieces: [&[u8]; 12] = [
            b"ok 1 - a",
            b"\n",
            b"\r\n",
            b"\r",
            "é✓𝄞".as_bytes(),
            b"\xff",
            b"\xc3",
            b"\xe2\x9c",
            b"\xf0\x9d\x84",
            UTF8_BOM,
            b" # SKIP",
            b"",
        ];
        let mut random = Random(0x5eed);
        for _ in 0..3000 {
            let mut input = Vec::new();
            for _ in 0..random.below(40) {
                input.extend_from_slice(pieces[random.below(pieces.len() as u64) as usize]);
            }
            let step = 1 + random.below(16) as usize;
            assert_eq!(
                lines(&input, step),
                expected(&input),
                "{input:?} read {step} at a time"
            );
        }
    }

    #[test]
    fn no_line_is_longer_than_the_cap_whatever_the_reads() {
        let mut random = Random(42);
        for _ in 0..6 {
            let long = MAX_LINE_BYTES - 8 + random.below(CHUNK_BYTES as u64) as usize;
            let mut input = "é".repeat(long / 2).into_bytes();
            input.extend_from_slice(b"\nafter\n");
            let step = 1000 + random.below(70_000) as usize;
            let got = lines(&input, step);
            assert!(
                got[0].len() <= MAX_LINE_BYTES,
                "{} read {step} at a time",
                got[0].len()
            );
            assert!(got[0].len() >= MAX_LINE_BYTES - 4, "{}", got[0].len());
            assert_eq!(got[1..], ["after"], "read {step} at a time");
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
