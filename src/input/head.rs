//! The first bytes of an input, which readers look at to decide what it is.

use std::io::{self, Read, Seek};

use super::encoding::{Utf8Reader, is_utf16};

/// How much of an input is looked at to decide what it is.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// The first [`SNIFF_BYTES`] of `input`, as they are; `input` is left at its start.
pub(crate) fn read_head(input: &mut (impl Read + Seek)) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    input.rewind()?;
    input
        .by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    input.rewind()?;
    Ok(head)
}

/// The first [`SNIFF_BYTES`] of `input` as UTF-8 (UTF-16 is transcoded first); `input` is left
/// at its start.
pub(crate) fn read_head_utf8(input: &mut (impl Read + Seek)) -> io::Result<Vec<u8>> {
    let head = read_head(input)?;
    if is_utf16(&head) {
        let mut utf8 = Vec::with_capacity(SNIFF_BYTES);
        Utf8Reader::new(head.as_slice()).read_to_end(&mut utf8)?;
        return Ok(utf8);
    }
    Ok(head)
}
