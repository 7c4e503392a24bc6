//! Signals measured from a skill's own files, never asked of its author: one file per signal.
//! Every analysis reads the same bounded [`Sources`]: what cannot be read is skipped with a
//! note, so hostile files (binaries, minified bundles, invalid UTF-8) cost bounded time and
//! memory.

pub mod code_lines;
pub mod complexity;
pub mod database;
pub mod dependencies;
pub mod destructive;
pub mod dynamic;
pub mod evidence;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod generated;
pub mod gitlinks;
pub mod imports;
pub mod infrastructure;
pub mod invoked;
pub mod line_commands;
mod measure;
pub mod paths;
pub mod patterns;
pub mod risk;
pub(crate) mod runs;
pub mod secrets;
pub mod sensitive;
pub mod shell;
mod sources;
pub mod syntax;

pub use measure::measure;
pub use sources::{MAX_FILE_BYTES, MAX_TOTAL_BYTES, Source, Sources};
