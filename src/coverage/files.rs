//! Coverage report files read from disk: each is opened, handed to the detector as a stream,
//! and named in the error when it cannot be read.

use std::fs::File;
use std::path::Path;

use super::detect::{parse_coverage, parse_coverage_as};
use super::model::{Coverage, CoverageFormat};
use crate::input::ReadError;

/// What a coverage file is called in errors.
const WHAT: &str = "coverage report";

/// Read a coverage report, detecting its format by content. `Ok(None)` when the file is not a
/// coverage report (a JUnit report, a log, a binary); `Err` when it is one but is broken.
pub fn read_coverage_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT, path, e))?;
    parse_coverage(file).map_err(|e| e.in_file(WHAT, path))
}

/// Read a coverage report as `format`, whatever it looks like. `Ok(None)` when the file does
/// not hold that format.
pub fn read_coverage_as(
    path: &Path,
    format: CoverageFormat,
) -> Result<Option<Coverage>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT, path, e))?;
    parse_coverage_as(file, format).map_err(|e| e.in_file(WHAT, path))
}

/// Coverage text written to a file and read by one reader, for the readers' tests.
#[cfg(test)]
pub(crate) struct Sample {
    /// The file name the text is written under (and that errors name).
    pub(crate) file: &'static str,
    pub(crate) reader: fn(&Path) -> Result<Option<Coverage>, ReadError>,
}

#[cfg(test)]
impl Sample {
    pub(crate) fn read(&self, text: &str) -> Result<Option<Coverage>, ReadError> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(self.file);
        std::fs::write(&path, text).expect("write");
        (self.reader)(&path)
    }

    /// Covered and total lines of text that must read as a report.
    pub(crate) fn totals(&self, text: &str) -> (u64, u64) {
        let coverage = self.read(text).expect("read").expect("a coverage report");
        (coverage.covered, coverage.total)
    }

    /// The message of the error text must give, after the file name.
    pub(crate) fn error(&self, text: &str) -> String {
        let err = self.read(text).expect_err("an error").to_string();
        err.rsplit_once(&format!("{}: ", self.file))
            .map(|(_, message)| message.to_owned())
            .unwrap_or(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::testkit::fixture;

    #[test]
    fn every_fixture_is_told_apart_by_content() {
        let cases: &[(&str, CoverageFormat, u64, u64)] = &[
            ("lcov/node.info", CoverageFormat::Lcov, 65, 66),
            (
                "cobertura/coveragepy.xml",
                CoverageFormat::Cobertura,
                32,
                36,
            ),
            ("cobertura/istanbul.xml", CoverageFormat::Cobertura, 7, 11),
            ("cobertura/gcovr.xml", CoverageFormat::Cobertura, 14, 22),
            (
                "istanbul/jest-summary.json",
                CoverageFormat::Istanbul,
                7,
                11,
            ),
            ("istanbul/nyc-final.json", CoverageFormat::Istanbul, 7, 11),
            (
                "coveragepy/coverage.json",
                CoverageFormat::CoveragePy,
                32,
                36,
            ),
            ("gocover/set.out", CoverageFormat::GoCover, 10, 15),
            ("jacoco/jacoco.xml", CoverageFormat::Jacoco, 17, 24),
        ];
        for &(rel, format, covered, total) in cases {
            let coverage = read_coverage_file(&fixture(rel))
                .expect("read")
                .unwrap_or_else(|| panic!("{rel} is a coverage report"));
            assert_eq!(
                (coverage.format, coverage.covered, coverage.total),
                (format, covered, total),
                "{rel}"
            );
        }
    }

    #[test]
    fn coverage_reports_are_not_test_reports() {
        // The gate offers each report file to the test-result readers first: none may claim a
        // coverage report, or its coverage would never be read.
        for rel in [
            "cobertura/coveragepy.xml",
            "cobertura/istanbul.xml",
            "cobertura/gcovr.xml",
            "istanbul/jest-summary.json",
            "istanbul/nyc-final.json",
            "coveragepy/coverage.json",
            "gocover/merged.out",
            "jacoco/jacoco.xml",
        ] {
            let run = crate::results::read_report_file(&fixture(rel)).expect("read");
            assert!(run.is_none(), "{rel}: {run:?}");
        }
    }

    #[test]
    fn other_files_are_not_coverage() {
        for rel in [
            "junit/pytest-xunit2.xml",
            "junit/entity-bomb.xml",
            "tap/node.tap",
            "summary/stdout.txt",
            "lcov/generate.sh",
            "cobertura/coveragepy.report.txt",
            "gocover/set.func.txt",
            "istanbul/project/package.json",
            "README.md",
        ] {
            assert_eq!(
                read_coverage_file(&fixture(rel)).expect("read"),
                None,
                "{rel}"
            );
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, content) in [
            ("empty", &b""[..]),
            ("blank", b"\n\n  \n"),
            ("png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            ("array.json", b"[1, 2, 3]"),
            ("other.json", b"{\"name\": \"x\", \"version\": \"1.0.0\"}"),
            ("html", b"<!DOCTYPE html><html><body>coverage</body></html>"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, content).expect("write");
            assert_eq!(read_coverage_file(&path).expect("read"), None, "{name}");
        }
    }

    #[test]
    fn a_forced_format_reads_only_that_format() {
        let jacoco = fixture("jacoco/jacoco.xml");
        assert_eq!(
            read_coverage_as(&jacoco, CoverageFormat::Cobertura).expect("read"),
            None
        );
        let coverage = read_coverage_as(&jacoco, CoverageFormat::Jacoco)
            .expect("read")
            .expect("jacoco");
        assert_eq!(coverage.covered, 17);
        for format in [
            CoverageFormat::Lcov,
            CoverageFormat::Istanbul,
            CoverageFormat::CoveragePy,
            CoverageFormat::GoCover,
        ] {
            assert_eq!(
                read_coverage_as(&jacoco, format).expect("read"),
                None,
                "{format:?}"
            );
        }
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let err =
            read_coverage_file(Path::new("target/no-such-coverage.xml")).expect_err("missing");
        assert!(
            err.to_string()
                .starts_with("failed to read coverage report target/no-such-coverage.xml: "),
            "{err}"
        );
    }
}
