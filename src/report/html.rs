//! The report as one self-contained HTML page: inline CSS and SVG charts, no script, no external
//! asset, readable in light and dark mode.

use super::Report;

/// The report as an HTML document.
pub fn render(report: &Report) -> String {
    let _ = report;
    todo!("html report")
}
