//! Report files and a suite's captured output read from disk: each is opened, handed to the
//! detector as a stream, and named in the error when it cannot be read.

use std::fs::File;
use std::io;
use std::path::Path;

use super::detect::{parse_claims, parse_output, parse_report, parse_report_as};
use super::model::{Claim, ReportFormat, TestRun};
use super::streams::{read_streams, summaries_first};
use crate::input::ReadError;

/// What a report file is called in errors.
const WHAT_REPORT: &str = "test report";
/// What a suite's captured output is called in errors.
const WHAT_OUTPUT: &str = "test output";

/// Read one report file, detecting its format by content.
///
/// `Ok(None)` when the file is not a test report at all (an lcov file, a log, a binary);
/// `Err` when it looks like a report but is broken (truncated XML).
pub fn read_report_file(path: &Path) -> Result<Option<TestRun>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT_REPORT, path, e))?;
    parse_report(file, &origin_of(path, WHAT_REPORT)).map_err(|e| e.in_file(WHAT_REPORT, path))
}

/// Read one report file as `format`, whatever it looks like (`skillgate parse --format`).
/// `Ok(None)` when the file does not hold that format.
pub fn read_report_as(path: &Path, format: ReportFormat) -> Result<Option<TestRun>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT_REPORT, path, e))?;
    parse_report_as(file, format, &origin_of(path, WHAT_REPORT))
        .map_err(|e| e.in_file(WHAT_REPORT, path))
}

/// Read a suite's captured stdout and stderr (stdout first), each through every format, and
/// combine them as [`read_streams`] does. A file that does not exist counts as empty: runners
/// skip writing an empty capture. `Ok(None)` when neither holds results.
pub fn read_output(stdout: &Path, stderr: &Path) -> Result<Option<TestRun>, ReadError> {
    read_streams(|origin| {
        let path = if origin == "stdout" { stdout } else { stderr };
        let Some(file) = open_output(path)? else {
            return Ok(None);
        };
        parse_output(file, &origin_of(path, WHAT_OUTPUT)).map_err(|e| e.in_file(WHAT_OUTPUT, path))
    })
}

/// The closing summaries printed in a suite's stdout and stderr, whatever else they hold: the
/// floor of results read from report files. Each stream is read on its own, as text; one that
/// cannot be read is a warning, and the other's summaries still count. A harness's tally
/// counts only when no framework printed a summary: beside one, it is as likely what the code
/// under test printed.
pub fn read_claims(stdout: &Path, stderr: &Path, warnings: &mut Vec<String>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for path in [stdout, stderr] {
        let read = open_output(path).and_then(|file| match file {
            Some(file) => parse_claims(file, &origin_of(path, WHAT_OUTPUT))
                .map_err(|e| e.in_file(WHAT_OUTPUT, path)),
            None => Ok(Vec::new()),
        });
        match read {
            Ok(read) => claims.extend(read),
            Err(err) => warnings.push(err.to_string()),
        }
    }
    summaries_first(claims)
}

/// A suite's capture, `None` when the runner never wrote it.
fn open_output(path: &Path) -> Result<Option<File>, ReadError> {
    match File::open(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ReadError::io(WHAT_OUTPUT, path, e)),
    }
}

/// Where a claim was printed: `stdout` or `stderr` for a suite's captured output (named so by
/// the runner), else the file's name.
fn origin_of(path: &Path, what: &str) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if what == WHAT_OUTPUT {
        match name.as_str() {
            n if n.starts_with("stdout") => return "stdout".to_owned(),
            n if n.starts_with("stderr") => return "stderr".to_owned(),
            _ => {}
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::testkit::fixture;

    #[test]
    fn report_files_are_told_apart_by_content() {
        let junit = read_report_file(&fixture("junit/pytest-xunit2.xml"))
            .expect("read")
            .expect("a report");
        assert_eq!(junit.framework, "junit");
        let tap = read_report_file(&fixture("tap/node.tap"))
            .expect("read")
            .expect("a report");
        assert_eq!(tap.framework, "tap");
        // A text file is read by every line format: a suite that saves its output in the
        // report directory has it read from there.
        let summary = read_report_file(&fixture("summary/stdout.txt"))
            .expect("read")
            .expect("a closing line");
        assert_eq!((summary.passed, summary.failed, summary.skipped), (3, 1, 2));
        // pytest's terminal output saved beside its JUnit report reads the same.
        let pytest = read_report_file(&fixture("junit/pytest.stdout.txt"))
            .expect("read")
            .expect("pytest output");
        assert_eq!(pytest.framework, "pytest");
        assert_eq!((pytest.passed, pytest.failed, pytest.skipped), (2, 5, 2));
        for not_a_report in ["lcov/node.info", "tap/generate.sh"] {
            assert_eq!(
                read_report_file(&fixture(not_a_report)).expect("read"),
                None,
                "{not_a_report}"
            );
        }
    }

    #[test]
    fn a_missing_report_file_is_an_error_naming_it() {
        let err =
            read_report_file(Path::new("target/does-not-exist.xml")).expect_err("missing file");
        let text = err.to_string();
        assert!(
            text.starts_with("failed to read test report target/does-not-exist.xml: "),
            "{text}"
        );
    }

    /// Random interleavings of real failing runs' lines, split across stdout and stderr with
    /// other formats' lines among them: whatever format wins, after the floor no framework's
    /// closing summary that survived the shuffle claims more failures or tests than counted.
    #[test]
    fn no_summary_in_the_output_is_counted_down() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        for rel in [
            "mocha-spec/issue.spec.stdout.txt",
            "jest-text/issue.stderr.txt",
            "vitest-text/mixed.stdout.txt",
            "prove/fail.stdout.txt",
            "unittest/mixed-v.txt",
            "tap/node.tap",
            "pytest/mixed-v.txt",
        ] {
            let text = std::fs::read_to_string(fixture(rel)).expect("fixture");
            let lines: Vec<&str> = text.lines().collect();
            for seed in 0..40 {
                let mixed = crate::results::testkit::interleaving(&lines, seed);
                let cut = mixed.len() / 2 + usize::try_from(seed % 7).unwrap_or(0);
                let (first, second) = mixed.split_at(cut.min(mixed.len()));
                std::fs::write(&out, first.join("\n")).expect("write");
                std::fs::write(&err, second.join("\n")).expect("write");
                let Some(mut run) = read_output(&out, &err).expect("read") else {
                    continue;
                };
                let claims = run.claims.clone();
                crate::results::floor::apply(&mut run, "output", true);
                for claim in &claims {
                    assert!(
                        run.failed >= claim.failed && run.total() >= claim.total(),
                        "{rel} seed {seed}: {}/{}/{} below {claim:?}",
                        run.passed,
                        run.failed,
                        run.skipped
                    );
                }
            }
        }
    }

    #[test]
    fn a_tally_on_the_other_stream_is_not_the_suites() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        // unittest reports on stderr; the code under test printed its own tally on stdout.
        std::fs::write(&out, "Passed: 3\nFailed: 1\n").expect("write");
        std::fs::write(
            &err,
            "test_a (t.T.test_a) ... ok\n\n----------------------------------------------------------------------\nRan 5 tests in 0.001s\n\nOK\n",
        )
        .expect("write");
        let mut run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!(run.format, ReportFormat::Unittest);
        assert!(
            run.claims
                .iter()
                .all(|c| c.format == ReportFormat::Unittest),
            "{:?}",
            run.claims
        );
        assert_eq!(crate::results::floor::apply(&mut run, "output", true), None);
        // TAP on stdout; the command under test wrote its totals to stderr.
        std::fs::write(&out, "1..2\nok 1 - a\nok 2 - b\n").expect("write");
        std::fs::write(&err, "Total: 10\nErrors: 2\n").expect("write");
        let mut run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!(crate::results::floor::apply(&mut run, "output", true), None);
        assert_eq!((run.passed, run.failed), (2, 0));
        // Beside a report file, a framework's summary makes a tally beside it no summary.
        std::fs::write(&out, "Passed: 3\nFailed: 1\n").expect("write");
        std::fs::write(&err, "Tests:       5 passed, 5 total\n").expect("write");
        let claims = read_claims(&out, &err, &mut Vec::new());
        assert!(
            claims.iter().all(|c| c.format == ReportFormat::JestText),
            "{claims:?}"
        );
    }

    #[test]
    fn totals_in_one_stream_win_over_markers_in_the_other() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (out, err) = (dir.path().join("stdout.log"), dir.path().join("stderr.log"));
        std::fs::write(&out, "[PASS] a\n[PASS] b\nPassed: 2\nFailed: 0\n").expect("write");
        std::fs::write(&err, "❌ Error: missing.csv not found\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("a run");
        assert_eq!((run.passed, run.failed), (2, 0));
    }

    #[test]
    fn output_prefers_tap_then_the_last_plain_line() {
        // The summary fixture: colour codes, a `\r` progress rewrite, an intermediate tally,
        // noise such as "3 tests passed so far"; its own closing line is the expectation.
        let run = read_output(
            &fixture("summary/stdout.txt"),
            &fixture("summary/stderr.txt"),
        )
        .expect("read")
        .expect("results");
        assert_eq!(run.framework, "summary");
        assert_eq!((run.passed, run.failed, run.skipped), (3, 1, 2));

        // TAP wins over a plain line anywhere in the output.
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("stdout");
        let err = dir.path().join("stderr");
        std::fs::write(&out, "TAP version 13\nok 1 - a\nnot ok 2 - b\n1..2\n").expect("write");
        std::fs::write(&err, "Results: 9 passed, 0 failed\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("results");
        assert_eq!(run.framework, "tap");
        assert_eq!((run.passed, run.failed), (1, 1));

        // Stdout is read first, so a closing line on stderr is the last one.
        std::fs::write(&out, "4 passed, 0 failed\n").expect("write");
        std::fs::write(&err, "Summary: 4 passed, 1 failed\n").expect("write");
        let run = read_output(&out, &err).expect("read").expect("results");
        assert_eq!((run.passed, run.failed), (4, 1));

        // A capture that was never written is empty; nothing at all is no results.
        std::fs::write(&out, "all good\n").expect("write");
        let missing = dir.path().join("missing");
        assert_eq!(read_output(&out, &missing).expect("read"), None);
    }
}
