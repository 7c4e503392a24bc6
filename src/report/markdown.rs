//! The report as GitHub-flavoured Markdown: a table per section and Mermaid `xychart-beta`
//! charts, under GitHub's 65,536-character limit for an issue body.

use super::Report;

/// GitHub's limit on an issue body (and a comment), in characters.
pub const MAX_CHARS: usize = 65_536;

/// The report as Markdown, at most [`MAX_CHARS`] characters.
pub fn render(report: &Report) -> String {
    render_within(report, MAX_CHARS)
}

/// The report as Markdown in at most `limit` characters: the longest tables are trimmed first,
/// each with a line saying how many rows were left out.
pub fn render_within(report: &Report, limit: usize) -> String {
    let _ = (report, limit);
    todo!("markdown report")
}
