//! What every report and coverage reader shares, below them all: the size caps, BOM and UTF-16
//! decoding, ANSI stripping, the capped XML reader, bounded JSON, chunked lines, and the one
//! error a reader returns. Readers take streams; only the files' wrappers open files.

mod ansi;
pub(crate) mod encoding;
mod error;
pub(crate) mod head;
pub(crate) mod json;
pub(crate) mod lines;
pub(crate) mod xml;

pub use ansi::strip_ansi;
pub(crate) use ansi::terminal_text;
pub use error::{InputError, ReadError};

/// Names, suites and paths of kept failures are cut to this many bytes.
pub(crate) const MAX_NAME_BYTES: usize = 1024;
