//! The report as CSV: one file per section (`pass-rates.csv`, …), RFC 4180.

use super::Report;

/// One `(file name, contents)` per section of the report.
pub fn render(report: &Report) -> Vec<(String, String)> {
    let _ = report;
    todo!("csv report")
}
