//! lcov tracefiles (node:test, c8, nyc, gcov/lcov, llvm-cov, …), read line by line; records for
//! the same source file merge by line.

use std::collections::HashMap;
use std::io::{Read, Seek};

use super::limits::check_counts;
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::encoding::strip_bom;
use crate::input::head::read_head;
use crate::input::lines::text_lines;

/// The record types lcov defines; a line of any other shape before the first `SF:`/`TN:` means
/// the file is not lcov.
const KEYS: &[&str] = &[
    "TN", "SF", "VER", "FN", "FNA", "FNL", "FNDA", "FNF", "FNH", "BRDA", "BRF", "BRH", "DA", "LF",
    "LH",
];

/// Read an lcov tracefile. `Ok(None)` when the input is not one.
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    read_lcov(input)
}

/// The first lines are lcov records, up to an `SF:` or `TN:` line within the head.
pub(crate) fn sniff(head: &[u8]) -> bool {
    for line in strip_bom(head).split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let key = line.split_once(':').map_or(line, |(key, _)| key);
        if key == "SF" || key == "TN" {
            return true;
        }
        if !(KEYS.contains(&key) || line == "end_of_record") {
            return false;
        }
    }
    false
}

/// Lines covered, per source file, merged over every record for it.
#[derive(Default)]
struct FileLines {
    /// From `DA:` lines: line number → hit in any record.
    lines: HashMap<u32, bool>,
    /// From `LF:`/`LH:` of records without `DA:` lines: (found, hit), the largest seen.
    summary: Option<(u64, u64)>,
}

/// The record being read (between `SF:` and `end_of_record`).
struct Record {
    file: String,
    has_lines: bool,
    found: Option<u64>,
    hit: Option<u64>,
}

fn read_lcov(input: impl Read) -> Result<Option<Coverage>, InputError> {
    let mut lines = text_lines(input)?;
    let mut files: HashMap<String, FileLines> = HashMap::new();
    let mut record: Option<Record> = None;
    let mut detected = false;
    let mut number = 0u64;

    while let Some(line) = lines.next_line()? {
        number += 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once(':') {
            Some((key, value)) => (key, value),
            None => (line, ""),
        };
        if !detected {
            if key == "SF" || key == "TN" {
                detected = true;
            } else if KEYS.contains(&key) || line == "end_of_record" {
                continue;
            } else {
                return Ok(None);
            }
        }
        let malformed = |message: String| InputError::malformed(number, message);
        match key {
            "SF" => {
                // Some writers leave out `end_of_record` between files: a new `SF:` ends the
                // record before it.
                if let Some(done) = record.take() {
                    close(&mut files, done);
                }
                record = Some(Record {
                    file: value.to_owned(),
                    has_lines: false,
                    found: None,
                    hit: None,
                });
            }
            "DA" => {
                let Some(current) = &mut record else {
                    return Err(malformed("DA record before any SF: line".to_owned()));
                };
                let (number, hit) = parse_da(value).ok_or_else(|| {
                    malformed(format!(
                        "invalid DA record {value:?}: expected DA:<line>,<hits>[,<checksum>]"
                    ))
                })?;
                current.has_lines = true;
                let entry = files.entry(current.file.clone()).or_default();
                *entry.lines.entry(number).or_insert(false) |= hit;
            }
            "LF" | "LH" => {
                let count: u64 = value.trim().parse().map_err(|_| {
                    malformed(format!("invalid {key} record {value:?}: expected a count"))
                })?;
                check_counts(0, count)
                    .map_err(|e| malformed(format!("invalid {key} record: {e}")))?;
                if let Some(current) = &mut record {
                    if key == "LF" {
                        current.found = Some(count);
                    } else {
                        current.hit = Some(count);
                    }
                }
            }
            "end_of_record" => {
                if let Some(done) = record.take() {
                    close(&mut files, done);
                }
            }
            // Functions, branches, test names, versions: line coverage does not need them.
            _ => {}
        }
    }

    if !detected {
        return Ok(None);
    }
    if let Some(open) = record {
        return Err(InputError::malformed(
            number,
            format!(
                "unexpected end of lcov data: the record for {} has no end_of_record (help: \
                 the coverage tool may have been stopped before it finished writing)",
                open.file
            ),
        ));
    }

    let mut coverage = Coverage {
        format: CoverageFormat::Lcov,
        unit: CoverageUnit::Lines,
        covered: 0,
        total: 0,
    };
    for file in files.values() {
        let (covered, total) = if file.lines.is_empty() {
            match file.summary {
                Some((found, hit)) => (hit.min(found), found),
                None => (0, 0),
            }
        } else {
            let covered = file.lines.values().filter(|&&hit| hit).count() as u64;
            (covered, file.lines.len() as u64)
        };
        coverage.covered = coverage.covered.saturating_add(covered);
        coverage.total = coverage.total.saturating_add(total);
    }
    check_counts(coverage.covered, coverage.total)
        .map_err(|e| InputError::malformed(number, format!("totals: {e}")))?;
    Ok(Some(coverage))
}

/// A record's `LF:`/`LH:` count only when it had no `DA:` lines of its own: lines can be merged
/// across records, totals cannot, so for the same file the largest totals stand.
fn close(files: &mut HashMap<String, FileLines>, record: Record) {
    if record.has_lines {
        return;
    }
    let Some(found) = record.found else {
        return;
    };
    let hit = record.hit.unwrap_or(0);
    let entry = files.entry(record.file).or_default();
    entry.summary = Some(match entry.summary {
        Some((f, h)) => (f.max(found), h.max(hit)),
        None => (found, hit),
    });
}

/// `line,hits[,checksum]` → (line, hit?). Hits may be negative (gcov quirks: not hit) and larger
/// than any integer type; only whether they are zero matters.
fn parse_da(value: &str) -> Option<(u32, bool)> {
    let mut parts = value.split(',');
    let line = parts.next()?.trim().parse().ok()?;
    let hits = parts.next()?.trim();
    let (negative, digits) = match hits.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, hits),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((line, !negative && digits.bytes().any(|b| b != b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ReadError;
    use crate::results::testkit::fixture;
    use std::path::Path;

    fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
        crate::coverage::read_coverage_as(path, CoverageFormat::Lcov)
    }

    fn read_str(text: &str) -> Result<Option<Coverage>, ReadError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("lcov.info");
        std::fs::write(&path, text).expect("write");
        read_file(&path)
    }

    fn totals(coverage: &Coverage) -> (u64, u64) {
        (coverage.covered, coverage.total)
    }

    #[test]
    fn node_coverage_matches_its_own_table() {
        // node.coverage.txt: "all files | 98.48" line %, lib/slugify.mjs 94.12% (16 of 17).
        let coverage = read_file(&fixture("lcov/node.info"))
            .expect("read")
            .expect("lcov");
        assert_eq!(coverage.format, CoverageFormat::Lcov);
        assert_eq!(totals(&coverage), (65, 66));
        let ratio = coverage.ratio().expect("lines");
        assert!((ratio * 100.0 - 98.48).abs() < 0.005, "{ratio}");
    }

    #[test]
    fn concatenated_runs_merge_by_line() {
        // The two test files run apart: lib/slugify.mjs is in both files, each covering a
        // different half. Merged by line they give node's combined numbers.
        let coverage = read_file(&fixture("lcov/concatenated.info"))
            .expect("read")
            .expect("lcov");
        assert_eq!(totals(&coverage), (65, 66));
    }

    #[test]
    fn records_without_da_lines_use_their_totals() {
        let coverage = read_str(
            "TN:\nSF:a.c\nLF:10\nLH:4\nend_of_record\n\
             SF:a.c\nLF:10\nLH:6\nend_of_record\n\
             SF:b.c\nDA:1,1\nDA:2,0\nLF:99\nLH:99\nend_of_record\n",
        )
        .expect("read")
        .expect("lcov");
        // a.c: the larger of its totals, 6/10; b.c: its DA lines, 1/2.
        assert_eq!(totals(&coverage), (7, 12));
    }

    #[test]
    fn da_hits_and_checksums() {
        let coverage = read_str(
            "SF:x.py\nDA:1,0\nDA:2,-1\nDA:3,00\nDA:4,123456789012345678901234567890\n\
             DA:5,3,Xyz+checksum\nDA:5,0\nend_of_record\n",
        )
        .expect("read")
        .expect("lcov");
        assert_eq!(totals(&coverage), (2, 5));
    }

    #[test]
    fn other_files_are_not_lcov() {
        assert_eq!(read_str("").expect("read"), None);
        assert_eq!(read_str("hello\nSF:a\n").expect("read"), None);
        assert_eq!(
            read_str("<?xml version=\"1.0\"?><coverage/>").expect("read"),
            None
        );
        assert_eq!(
            read_file(&fixture("junit/pytest-xunit2.xml")).expect("read"),
            None
        );
        assert_eq!(read_file(&fixture("tap/node.tap")).expect("read"), None);
        // A version line may come first.
        let coverage = read_str("VER:2\nTN:t\nSF:a\nDA:1,1\nend_of_record\n")
            .expect("read")
            .expect("lcov");
        assert_eq!(totals(&coverage), (1, 1));
    }

    #[test]
    fn no_lines_is_no_ratio() {
        let coverage = read_str("TN:\nend_of_record\n")
            .expect("read")
            .expect("lcov");
        assert_eq!(totals(&coverage), (0, 0));
        assert_eq!(coverage.ratio(), None);
    }

    #[test]
    fn broken_records_name_the_line() {
        let err = read_str("TN:\nSF:a.js\nDA:1,1\nDA:two,1\nend_of_record\n").expect_err("bad DA");
        assert_eq!(
            err.to_string().rsplit_once("lcov.info: ").map(|(_, m)| m),
            Some("line 4: invalid DA record \"two,1\": expected DA:<line>,<hits>[,<checksum>]")
        );
        let err = read_str("TN:\nDA:1,1\n").expect_err("DA before SF");
        assert!(
            err.to_string()
                .contains("line 2: DA record before any SF: line"),
            "{err}"
        );
        let err = read_str("SF:a.js\nLF:x\n").expect_err("bad LF");
        assert!(
            err.to_string().contains("line 2: invalid LF record"),
            "{err}"
        );
        let err =
            read_str("SF:a.js\nLF:18446744073709551615\nend_of_record\n").expect_err("absurd");
        assert!(
            err.to_string().contains(
                "line 2: invalid LF record: 18446744073709551615 lines is more than any codebase has"
            ),
            "{err}"
        );
        let err = read_str("SF:a.js\nDA:1,1\nDA:2,1\n").expect_err("truncated");
        let text = err.to_string();
        assert!(
            text.starts_with("failed to read coverage report "),
            "{text}"
        );
        assert!(
            text.contains("lcov.info: line 3: unexpected end of lcov data: the record for a.js"),
            "{text}"
        );
    }
}
