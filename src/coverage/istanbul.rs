//! istanbul JSON (nyc, jest, c8): `coverage-summary.json`'s `total.lines`, or line coverage worked
//! out from `coverage-final.json`'s statements the way istanbul itself does. Streamed with serde.

use std::collections::HashMap;
use std::fmt;
use std::io::{Read, Seek};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::limits::{MAX_LINE_NUMBER, check_counts, read_json};
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::head::read_head;
use crate::input::json::json_keys;

/// Read an istanbul summary or final report. `Ok(None)` when the input is neither.
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    let report: Report = read_json(&mut input)?;
    let (covered, total) = match (report.total, report.files) {
        (Some(total), _) => (total.lines.covered, total.lines.total),
        (None, 0) => return Ok(None),
        (None, _) => (report.covered, report.lines),
    };
    Ok(Some(Coverage {
        format: CoverageFormat::Istanbul,
        unit: CoverageUnit::Lines,
        covered,
        total,
    }))
}

/// A JSON object whose first key is `total` holding istanbul's summary kinds
/// (`coverage-summary.json`), or whose entries hold a `statementMap` (`coverage-final.json`,
/// also when wrapped in `data` as older writers do).
pub(crate) fn sniff(head: &[u8]) -> bool {
    let Some(keys) = json_keys(head) else {
        return false;
    };
    let summary = keys.windows(2).any(|pair| {
        matches!(pair, [(1, total), (2, kind)]
            if total == "total"
                && ["lines", "statements", "functions", "branches"].contains(&kind.as_str()))
    });
    summary
        || keys
            .iter()
            .any(|(depth, key)| (*depth == 2 || *depth == 3) && key == "statementMap")
}

/// The top-level object: `total` in a summary, otherwise one entry per source file.
#[derive(Default)]
struct Report {
    total: Option<Total>,
    /// Source files with a `statementMap`.
    files: u64,
    /// Lines of those files, and the covered ones among them.
    lines: u64,
    covered: u64,
}

#[derive(Deserialize)]
struct Total {
    lines: Counts,
}

#[derive(Deserialize)]
#[serde(try_from = "RawCounts")]
struct Counts {
    total: u64,
    covered: u64,
}

#[derive(Deserialize)]
struct RawCounts {
    total: u64,
    covered: u64,
}

impl TryFrom<RawCounts> for Counts {
    type Error = String;

    fn try_from(raw: RawCounts) -> Result<Self, String> {
        check_counts(raw.covered, raw.total).map_err(|e| format!("total.lines: {e}"))?;
        Ok(Self {
            total: raw.total,
            covered: raw.covered,
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
        f.write_str("an istanbul coverage object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Report, A::Error> {
        let mut report = Report::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == "total" && report.total.is_none() {
                report.total = Some(map.next_value()?);
                continue;
            }
            // One file at a time: its statements are dropped once its lines are counted.
            let file: FileCoverage = map.next_value()?;
            if let Some((covered, lines)) = file.lines() {
                report.files += 1;
                report.lines = report.lines.saturating_add(lines);
                report.covered = report.covered.saturating_add(covered);
                check_counts(report.covered, report.lines).map_err(de::Error::custom)?;
            }
        }
        Ok(report)
    }
}

/// One entry of `coverage-final.json`, or of a summary's per-file entries (which hold no
/// `statementMap` and are passed over).
#[derive(Deserialize)]
struct FileCoverage {
    #[serde(rename = "statementMap")]
    statement_map: Option<HashMap<String, Location>>,
    /// Statement id → executed at least once.
    s: Option<HashMap<String, Hit>>,
    /// Older istanbul writers wrap the entry in `data`.
    data: Option<Box<FileCoverage>>,
}

impl FileCoverage {
    /// (covered, total) lines, as istanbul's `getLineCoverage`: each statement counts for the
    /// line it starts on, and a line is covered when any statement starting there ran.
    fn lines(&self) -> Option<(u64, u64)> {
        if let Some(inner) = &self.data {
            return inner.lines();
        }
        let statement_map = self.statement_map.as_ref()?;
        let mut lines: HashMap<u32, bool> = HashMap::new();
        for (id, hit) in self.s.iter().flatten() {
            if let Some(location) = statement_map.get(id) {
                *lines.entry(location.start.line.0).or_insert(false) |= hit.0;
            }
        }
        let covered = lines.values().filter(|&&hit| hit).count() as u64;
        Some((covered, lines.len() as u64))
    }
}

#[derive(Deserialize)]
struct Location {
    start: Position,
}

#[derive(Deserialize)]
struct Position {
    line: LineNumber,
}

#[derive(Deserialize)]
#[serde(try_from = "u64")]
struct LineNumber(u32);

impl TryFrom<u64> for LineNumber {
    type Error = String;

    fn try_from(line: u64) -> Result<Self, String> {
        u32::try_from(line)
            .ok()
            .filter(|&line| u64::from(line) <= MAX_LINE_NUMBER)
            .map(Self)
            .ok_or_else(|| format!("line {line} is beyond {MAX_LINE_NUMBER}"))
    }
}

/// A statement's execution count, of which only "ever ran" matters. JavaScript writes large
/// counts as floats (`1e+21`); a negative count is a broken file.
struct Hit(bool);

impl<'de> Deserialize<'de> for Hit {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(HitVisitor)
    }
}

struct HitVisitor;

impl Visitor<'_> for HitVisitor {
    type Value = Hit;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an execution count")
    }

    fn visit_u64<E: de::Error>(self, count: u64) -> Result<Hit, E> {
        Ok(Hit(count > 0))
    }

    fn visit_i64<E: de::Error>(self, count: i64) -> Result<Hit, E> {
        if count < 0 {
            return Err(E::custom(format!("negative execution count {count}")));
        }
        Ok(Hit(count > 0))
    }

    fn visit_f64<E: de::Error>(self, count: f64) -> Result<Hit, E> {
        if !(count.is_finite() && count >= 0.0) {
            return Err(E::custom(format!("invalid execution count {count}")));
        }
        Ok(Hit(count > 0.0))
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
        crate::coverage::read_coverage_as(path, CoverageFormat::Istanbul)
    }

    fn read(rel: &str) -> (u64, u64) {
        let coverage = read_file(&fixture(&format!("istanbul/{rel}")))
            .expect("read")
            .expect("an istanbul report");
        assert_eq!(coverage.format, CoverageFormat::Istanbul);
        (coverage.covered, coverage.total)
    }

    const SAMPLE: Sample = Sample {
        file: "coverage.json",
        reader: read_file,
    };

    #[test]
    fn summaries_match_the_text_summary() {
        // jest.text-summary.txt and nyc.text-summary.txt: "Lines : 63.63% ( 7/11 )".
        assert_eq!(read("jest-summary.json"), (7, 11));
        assert_eq!(read("nyc-summary.json"), (7, 11));
    }

    #[test]
    fn final_reports_count_lines_as_istanbul_does() {
        // Statement coverage is 10/14 in the same summaries; by the line each statement
        // starts on, 7 of 11 lines (math.js line 9 holds three statements).
        assert_eq!(read("jest-final.json"), (7, 11));
        assert_eq!(read("nyc-final.json"), (7, 11));
    }

    #[test]
    fn statements_on_one_line_count_once() {
        let json = r#"{
  "/a.js": {"path": "/a.js",
    "statementMap": {"0": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 9}},
                     "1": {"start": {"line": 1, "column": 10}, "end": {"line": 1, "column": 19}},
                     "2": {"start": {"line": 2, "column": 0}, "end": {"line": 4, "column": 1}},
                     "3": {"start": {"line": 3, "column": 2}, "end": {"line": 3, "column": 9}}},
    "fnMap": {}, "branchMap": {}, "f": {}, "b": {},
    "s": {"0": 0, "1": 2, "2": 1e+21, "3": 0, "99": 5}},
  "/b.js": {"data": {"s": {"0": 0}, "statementMap": {"0": {"start": {"line": 7}}}}}
}"#;
        // a.js: line 1 (one of two statements ran), 2 ran, 3 did not; the count for a
        // statement missing from the map is passed over, as istanbul does. b.js: line 7 missed.
        assert_eq!(SAMPLE.totals(json), (2, 4));
    }

    #[test]
    fn per_file_summary_entries_are_not_added_to_the_total() {
        assert_eq!(
            SAMPLE.totals(
                r#"{"total": {"lines": {"total": 0, "covered": 0, "skipped": 0, "pct": "Unknown"}},
                    "/x.js": {"lines": {"total": 3, "covered": 3, "pct": 100}}}"#
            ),
            (0, 0)
        );
    }

    #[test]
    fn other_json_is_not_istanbul() {
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(SAMPLE.read("{}").expect("read"), None);
        assert_eq!(SAMPLE.read("[{\"statementMap\": {}}]").expect("read"), None);
        assert_eq!(
            SAMPLE
                .read(r#"{"name": "x", "total": 3, "lines": {"total": 1}}"#)
                .expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("\u{0}\u{1}{\u{2}").expect("read"), None);
        assert_eq!(
            read_file(&fixture("coveragepy/coverage.json")).expect("read"),
            None
        );
    }

    #[test]
    fn broken_reports_name_the_line() {
        let summary =
            std::fs::read_to_string(fixture("istanbul/jest-summary.json")).expect("fixture");
        let cut: String = summary.chars().take(400).collect();
        let message = SAMPLE.error(&cut);
        assert!(
            message.starts_with("line 2: unexpected end of JSON: EOF while parsing"),
            "{message}"
        );
        assert_eq!(
            SAMPLE.error("{\"total\": {\"lines\": {\"total\": 10,\n \"covered\": \"7\"}}}"),
            "line 2: column 15: invalid type: string \"7\", expected u64"
        );
        assert_eq!(
            SAMPLE.error("{\"total\": {\"lines\": {\"total\": 10, \"covered\": -1}}}"),
            "line 1: column 48: invalid value: integer `-1`, expected u64"
        );
        assert_eq!(
            SAMPLE.error("{\"total\": {\"lines\": {\"total\": 10, \"covered\": 2.5}}}"),
            "line 1: column 49: invalid type: floating point `2.5`, expected u64"
        );
        let message = SAMPLE.error("{\"total\": {\"lines\": {\"total\": 10,\n\"covered\": 11}}}");
        assert_eq!(
            message,
            "line 2: column 15: total.lines: 11 covered lines is more than the 10 lines in total"
        );
        let message = SAMPLE.error("{\"total\": {\"lines\": {\"total\": 1e300, \"covered\": 1}}}");
        assert!(message.contains("expected u64"), "{message}");
        let message =
            SAMPLE.error("{\"total\": {\"lines\": {\"total\": 99999999999999, \"covered\": 1}}}");
        assert!(
            message.ends_with(
                "99999999999999 lines is more than any codebase has (the limit is 1000000000000)"
            ),
            "{message}"
        );
        let message = SAMPLE.error("{\"total\": {\"statements\": {\"total\": 1, \"covered\": 1}}}");
        assert!(message.contains("missing field `lines`"), "{message}");
        let message = SAMPLE
            .error(r#"{"/a.js": {"statementMap": {"0": {"start": {"line": 1}}}, "s": {"0": -2}}}"#);
        assert!(message.contains("negative execution count -2"), "{message}");
        let message = SAMPLE.error(
            r#"{"/a.js": {"statementMap": {"0": {"start": {"line": 4294967296}}}, "s": {}}}"#,
        );
        assert!(
            message.contains("line 4294967296 is beyond 10000000"),
            "{message}"
        );
        let message = SAMPLE.error(r#"{"/a.js": {"statementMap": [], "s": {}}}"#);
        assert!(
            message.contains("invalid type: sequence, expected a map"),
            "{message}"
        );
        let message =
            SAMPLE.error("{\"total\": {\"lines\": {\"total\": 1, \"covered\": 1}}} trailing");
        assert!(message.contains("trailing characters"), "{message}");
    }

    #[test]
    fn deep_nesting_is_no_stack_overflow() {
        // What is skipped is skipped without recursion; what is read (`data` wrappers) stops at
        // serde_json's recursion limit.
        let skipped = format!(
            "{{\"/a.js\": {{\"statementMap\": {{}}, \"x\": {}{}}}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(SAMPLE.totals(&skipped), (0, 0));
        let wrapped = format!(
            "{{\"/a.js\": {{\"statementMap\": {{}}, {}{}}}}}",
            "\"data\": {".repeat(100_000),
            "}".repeat(100_000)
        );
        let message = SAMPLE.error(&wrapped);
        assert!(message.contains("recursion limit exceeded"), "{message}");
    }
}
