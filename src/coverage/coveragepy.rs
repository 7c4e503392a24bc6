//! coverage.py JSON (`coverage json`): `totals.covered_lines` of `totals.num_statements` (in
//! coverage.py's model each statement is a line). Streamed with serde; the per-file data is skipped.

use std::fmt;
use std::io::{Read, Seek};

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::limits::{check_counts, read_json};
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::head::read_head;
use crate::input::json::json_keys;

/// Read a coverage.py JSON report. `Ok(None)` when the input is not one (no `meta.version`).
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    let Report(totals) = read_json(&mut input)?;
    Ok(totals.map(|totals| Coverage {
        format: CoverageFormat::CoveragePy,
        unit: CoverageUnit::Lines,
        covered: totals.covered_lines,
        total: totals.num_statements,
    }))
}

/// A JSON object with coverage.py's `meta.version`, or (keys sorted, `meta` past the head) its
/// per-file `executed_lines` or its `totals.covered_lines`.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some(keys) = json_keys(head) else {
        return false;
    };
    let mut in_meta = false;
    for (depth, key) in &keys {
        match (*depth, key.as_str()) {
            (1, "meta") => in_meta = true,
            (1, _) => in_meta = false,
            (2, "version") if in_meta => return true,
            (3, "executed_lines") => return true,
            (2, "covered_lines" | "num_statements") if !in_meta => return true,
            _ => {}
        }
    }
    false
}

/// The totals, or `None` when the document has no `meta.version` (not coverage.py's).
struct Report(Option<Totals>);

#[derive(Deserialize)]
struct Meta {
    // Only its presence matters: it is what marks coverage.py's JSON.
    version: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(try_from = "RawTotals")]
struct Totals {
    covered_lines: u64,
    num_statements: u64,
}

#[derive(Deserialize)]
struct RawTotals {
    covered_lines: u64,
    num_statements: u64,
}

impl TryFrom<RawTotals> for Totals {
    type Error = String;

    fn try_from(raw: RawTotals) -> Result<Self, String> {
        check_counts(raw.covered_lines, raw.num_statements).map_err(|e| format!("totals: {e}"))?;
        Ok(Self {
            covered_lines: raw.covered_lines,
            num_statements: raw.num_statements,
        })
    }
}

impl<'de> Deserialize<'de> for Report {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ReportVisitor)
    }
}

struct ReportVisitor;

impl<'de> Visitor<'de> for ReportVisitor {
    type Value = Report;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a coverage.py JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Report, A::Error> {
        let mut versioned = false;
        let mut totals = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "meta" => versioned = map.next_value::<Meta>()?.version.is_some(),
                "totals" => totals = Some(map.next_value::<Totals>()?),
                // `files` (every line number of every file) is read past, never kept.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !versioned {
            return Ok(Report(None));
        }
        match totals {
            Some(totals) => Ok(Report(Some(totals))),
            None => Err(de::Error::custom(
                "the report has no \"totals\" object (help: write it with `coverage json`)",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::files::Sample;
    use crate::input::ReadError;
    use crate::results::testkit::fixture;
    use std::path::Path;

    fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
        crate::coverage::read_coverage_as(path, CoverageFormat::CoveragePy)
    }

    const SAMPLE: Sample = Sample {
        file: "coverage.json",
        reader: read_file,
    };

    #[test]
    fn matches_the_total_line_of_coverage_report() {
        // report.txt: "TOTAL 36 4 10 2 87%": 36 statements, 4 missed. The 87% mixes in
        // branches (branch coverage was on); line coverage is 32/36.
        let coverage = read_file(&fixture("coveragepy/coverage.json"))
            .expect("read")
            .expect("a coverage.py report");
        assert_eq!(coverage.format, CoverageFormat::CoveragePy);
        assert_eq!((coverage.covered, coverage.total), (32, 36));
    }

    #[test]
    fn sorted_keys_still_read() {
        // `jq -S` puts `files` first; `meta` may then lie past the head.
        let json = r#"{"files": {"a.py": {"executed_lines": [1], "summary": {}}},
                       "meta": {"format": 3, "version": "7.17.5"},
                       "totals": {"covered_lines": 1, "num_statements": 2, "percent_covered": 50.0}}"#;
        assert_eq!(SAMPLE.totals(json), (1, 2));
    }

    #[test]
    fn without_meta_version_it_is_not_coverage_py() {
        assert_eq!(
            SAMPLE
                .read(r#"{"totals": {"covered_lines": 1, "num_statements": 2}}"#)
                .expect("read"),
            None
        );
        assert_eq!(
            SAMPLE.read(
                r#"{"meta": {"format": 3}, "totals": {"covered_lines": 1, "num_statements": 2}}"#
            )
            .expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(
            SAMPLE
                .read("{\"name\": \"x\", \"version\": \"1\"}")
                .expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("\u{0}{").expect("read"), None);
        assert_eq!(
            read_file(&fixture("istanbul/jest-summary.json")).expect("read"),
            None
        );
    }

    #[test]
    fn broken_reports_name_the_line() {
        let full = std::fs::read_to_string(fixture("coveragepy/coverage.json")).expect("fixture");
        let cut: String = full.chars().take(300).collect();
        let message = SAMPLE.error(&cut);
        assert!(
            message.starts_with("line 1: unexpected end of JSON: EOF while parsing"),
            "{message}"
        );
        assert_eq!(
            SAMPLE.error(
                "{\"meta\": {\"version\": \"7\"},\n\"totals\": {\"covered_lines\": \"3\", \"num_statements\": 4}}"
            ),
            "line 2: column 31: invalid type: string \"3\", expected u64"
        );
        assert_eq!(
            SAMPLE.error(
                "{\"meta\": {\"version\": \"7\"},\n\"totals\": {\"covered_lines\": 5, \"num_statements\": 4}}"
            ),
            "line 2: column 52: totals: 5 covered lines is more than the 4 lines in total"
        );
        assert_eq!(
            SAMPLE.error(
                "{\"meta\": {\"version\": \"7\"}, \"totals\": {\"covered_lines\": -1, \"num_statements\": 4}}"
            ),
            "line 1: column 58: invalid value: integer `-1`, expected u64"
        );
        let message = SAMPLE.error("{\"meta\": {\"version\": \"7\"},\n\"files\": {}\n}");
        assert_eq!(
            message,
            "line 3: column 1: the report has no \"totals\" object (help: write it with `coverage json`)"
        );
        let message = SAMPLE.error(
            "{\"meta\": \"7.1\", \"totals\": {\"covered_lines\": 1, \"num_statements\": 1}}",
        );
        assert!(
            message.contains("invalid type: string \"7.1\", expected struct Meta"),
            "{message}"
        );
        let message =
            SAMPLE.error("{\"meta\": {\"version\": \"7\"}, \"totals\": {\"covered_lines\": 1}}");
        assert!(
            message.contains("missing field `num_statements`"),
            "{message}"
        );
    }
}
