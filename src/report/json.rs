//! The report as JSON (schema `skillgate.report/1`): the same data, with stable keys.

use super::Report;

/// The report as a pretty-printed JSON document, ending in a newline.
pub fn render(report: &Report) -> String {
    let _ = report;
    todo!("json report")
}
