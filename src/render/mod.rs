//! Turning a gate run into text for a person or a machine: pure functions from values to strings.

mod cells;
mod escape;
mod github;
mod json;
mod lint;
mod markdown;
#[cfg(test)]
mod no_secrets;
mod text;

pub use escape::markdown_text;
pub use github::{
    Annotation, CHECK_TEXT_MAX_BYTES, COMMENT_MARKER, COMMENT_MAX_CHARS, CheckOutput, annotations,
    check_output, comment, trim_bytes, trim_chars,
};
pub use json::json;
pub use lint::{lint_json, lint_text};
pub use markdown::markdown;
pub use text::text;
