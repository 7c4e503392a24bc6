//! One run of a skill's suite, read: what it reported, where from, and how it failed; and
//! across retries, which tests were flaky.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::coverage::{self, Coverage};
use crate::gate::Redacted;
use crate::results::{self, TestCase, TestRun};
use crate::runner::{Finished, Job};
use crate::skill::{Finding, SkillMeta};

/// The source named when only the exit code said anything.
const EXIT_CODE: &str = "exit code";

/// Where an attempt's test results were read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultsSource {
    /// A report file, relative to the report directory or the skill.
    Report(String),
    /// The suite's output (`output`).
    Output,
    /// Nothing but its exit code (`exit code`).
    ExitCode,
}

impl std::fmt::Display for ResultsSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Report(file) => file,
            Self::Output => "output",
            Self::ExitCode => EXIT_CODE,
        })
    }
}

/// What one run of a skill's suite left behind, read: its tests, coverage, where they were read
/// from, and how the suite failed beyond its tests.
#[derive(Debug)]
pub struct Attempt {
    pub finished: Finished,
    pub run: TestRun,
    pub coverage: Option<Coverage>,
    /// Report files, the output, or the exit code.
    pub sources: Vec<ResultsSource>,
    /// Timed out, killed, could not start, or exited non-zero with no failed test.
    pub failure: Option<String>,
    /// Findings about the skill's declared report paths and its output, redacted as the
    /// document takes them (`gate::ReportedFinding`).
    pub lint: Vec<Finding>,
    /// Reports that could not be read.
    pub warnings: Vec<String>,
    /// Why the counts were held to a closing summary that disagreed with them (a decision's
    /// reason), when they were.
    pub disagreement: Option<String>,
    /// Why coverage is unknown though a report was written: it was empty, or covered nothing.
    pub coverage_unread: Option<String>,
    /// Why the counts stand for the exit code alone (`no test results could be read (exit code
    /// 0 only)`), when nothing in the output or the reports could be read as test results.
    pub unread: Option<String>,
    /// The files the skill's `test-report`/`coverage-report` globs matched, as they were.
    declared: Vec<Stamp>,
}

/// A file as an attempt found it: a later attempt reads it only if it was written anew (the
/// globs match files in the skill, which outlive the attempt that wrote them).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    modified: Option<std::time::SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(path: &Path) -> Self {
        let meta = std::fs::metadata(path).ok();
        Self {
            path: path.to_path_buf(),
            modified: meta.as_ref().and_then(|m| m.modified().ok()),
            len: meta.map_or(0, |m| m.len()),
        }
    }
}

impl Attempt {
    /// Whether the suite failed: a test failed, or the suite itself.
    pub fn failed(&self) -> bool {
        self.failure.is_some() || self.run.failed > 0
    }

    /// Whether running it again could tell something: it failed, but not by timing out (which
    /// would cost the whole time limit again) or by not starting at all.
    pub fn worth_retrying(&self) -> bool {
        self.failed() && !self.finished.timed_out && self.finished.spawn_error.is_none()
    }

    /// Whether its results were read from a report or the output, not only the exit code.
    fn has_results(&self) -> bool {
        self.sources
            .last()
            .is_some_and(|s| *s != ResultsSource::ExitCode)
    }
}

/// Read a finished suite's results: report files first (its report directory, then declared
/// globs, less the files `earlier` attempts read that were not written again), then its output,
/// then its exit code. Coverage from the same files.
pub fn read(
    repo: &Path,
    skill_dir: &Path,
    meta: &SkillMeta,
    job: &Job,
    finished: Finished,
    timeout: Duration,
    earlier: &[Attempt],
) -> Attempt {
    let mut lint = Vec::new();
    let mut warnings = Vec::new();
    let skill_file = format!(
        "{}/SKILL.md",
        skill_dir.strip_prefix(repo).unwrap_or(skill_dir).display()
    );
    let mut files = list_files(&job.report_dir);
    let mut declared = Vec::new();
    // Files the skill names as coverage: read as coverage even when they hold nothing.
    let mut declared_coverage = Vec::new();
    for (glob, is_coverage) in [(&meta.test_report, false), (&meta.coverage_report, true)] {
        let Some(glob) = glob else { continue };
        match declared_reports(repo, skill_dir, glob) {
            Ok(found) => {
                for file in found {
                    let stamp = Stamp::of(&file);
                    if earlier.iter().all(|a| !a.declared.contains(&stamp)) {
                        if is_coverage {
                            declared_coverage.push(file.clone());
                        }
                        files.push(file);
                        declared.push(stamp);
                    }
                }
            }
            Err(message) => lint.push(Finding::error("path-escape", &skill_file, None, message)),
        }
    }
    files.sort();
    files.dedup();
    let mut run: Option<TestRun> = None;
    // One total per unit: lines and statements do not add up.
    let mut by_unit: Vec<Coverage> = Vec::new();
    let mut sources = Vec::new();
    // Coverage reports that measured nothing, and why: coverage is then unknown, never 0/0.
    let mut coverage_unread: Vec<String> = Vec::new();
    for file in &files {
        let name = file
            .strip_prefix(&job.report_dir)
            .or_else(|_| file.strip_prefix(skill_dir))
            .unwrap_or(file)
            .display()
            .to_string();
        match results::read_report_file(file) {
            Ok(Some(mut found)) => {
                for claim in &mut found.claims {
                    claim.origin.clone_from(&name);
                }
                sources.push(ResultsSource::Report(name));
                match &mut run {
                    Some(run) => run.merge(found),
                    None => run = Some(found),
                }
                continue;
            }
            Ok(None) => {}
            Err(err) => {
                warnings.push(err.to_string());
                continue;
            }
        }
        match coverage::read_coverage_file(file) {
            Ok(Some(found)) if found.total == 0 => coverage_unread.push(format!(
                "the {} report {name} covers nothing (0 of 0 {})",
                found.format.as_str(),
                found.unit.as_str()
            )),
            Ok(Some(found)) => {
                // Reports add up within a unit (lines, statements), never across.
                let mut pending = Some(found);
                for so_far in &mut by_unit {
                    if let Some(found) = pending.take() {
                        pending = so_far.merge(found).err().map(|mixed| mixed.other);
                    }
                }
                by_unit.extend(pending);
            }
            Ok(None)
                if (declared_coverage.contains(file) || named_coverage(&name))
                    && is_blank(file) =>
            {
                coverage_unread.push(format!("the coverage report {name} is empty"));
            }
            Ok(None) => {}
            Err(err) => warnings.push(err.to_string()),
        }
    }
    let coverage = lowest(by_unit).map(|(lowest, mixed)| {
        if let Some(mixed) = mixed {
            lint.push(Finding::warning(
                "coverage-mixed",
                &skill_file,
                None,
                format!(
                    "the coverage reports count {mixed}: they do not add up, so the lowest, \
                     {:.2} ({} {}), is used",
                    lowest.ratio().unwrap_or(0.0),
                    lowest.format.as_str(),
                    lowest.unit.as_str()
                ),
            ));
        }
        lowest
    });
    let coverage_unread = coverage
        .is_none()
        .then(|| coverage_unread.join("; "))
        .filter(|why| !why.is_empty());
    let mut run = match run {
        // The output's closing summaries are the floor of what the reports say, too.
        Some(mut run) => {
            run.claims.extend(results::read_claims(
                &job.stdout,
                &job.stderr,
                &mut warnings,
            ));
            run
        }
        None => match results::read_output(&job.stdout, &job.stderr) {
            Ok(Some(run)) => {
                sources.push(ResultsSource::Output);
                run
            }
            Ok(None) => {
                sources.push(ResultsSource::ExitCode);
                results::from_exit_code(finished.exit_code, Some(&finished.describe(timeout)))
            }
            Err(err) => {
                // A stream that could not be read (a document cut short) is no result, but the
                // other's summaries still hold the exit code to what they say.
                warnings.push(err.to_string());
                sources.push(ResultsSource::ExitCode);
                let mut run =
                    results::from_exit_code(finished.exit_code, Some(&finished.describe(timeout)));
                run.claims.extend(results::read_claims(
                    &job.stdout,
                    &job.stderr,
                    &mut Vec::new(),
                ));
                run
            }
        },
    };
    let shown: Vec<String> = sources.iter().map(ToString::to_string).collect();
    let read_from = format!("{} ({})", shown.join(", "), run.format.as_str());
    let from_output = sources.iter().all(|s| *s == ResultsSource::Output);
    let disagreement = results::floor::apply(&mut run, &read_from, from_output).and_then(|d| {
        lint.push(Finding::warning(
            "report-disagrees",
            &skill_file,
            None,
            d.to_string(),
        ));
        // Only skips missing from a report (pending tests a JUnit writer leaves out) are
        // counted from the summary without holding the skill back.
        d.unsettled
            .then(|| Redacted::new(&d.reason()).into_string())
    });
    let unread = match (sources.last(), finished.exit_code) {
        (Some(ResultsSource::ExitCode), Some(code)) if finished.spawn_error.is_none() => {
            lint.push(Finding::warning(
                "results-unreadable",
                &skill_file,
                None,
                unreadable_message(code, &job.stdout, &job.stderr),
            ));
            Some(format!(
                "no test results could be read (exit code {code} only)"
            ))
        }
        _ => None,
    };
    let failure = suite_failure(&finished, &run, &sources, timeout);
    // Show the failure among the failed tests too, unless the exit code already stands for one.
    if let Some(failure) = &failure
        && sources.last().is_none_or(|s| *s != ResultsSource::ExitCode)
    {
        run.record(TestCase::failed(
            results::EXIT_STATUS_CASE,
            Some(failure.clone()),
        ));
    }
    Attempt {
        finished,
        run,
        coverage,
        sources,
        failure,
        lint,
        warnings,
        unread,
        disagreement,
        coverage_unread,
        declared,
    }
}

/// The lowest of the coverage totals, and when there are several (in different units), what
/// each measured (`lines 0.25 (lcov) and statements 1.00 (go-cover)`).
fn lowest(by_unit: Vec<Coverage>) -> Option<(Coverage, Option<String>)> {
    let ratio = |c: &Coverage| c.ratio().unwrap_or(0.0);
    let mixed = (by_unit.len() > 1).then(|| {
        by_unit
            .iter()
            .map(|c| {
                format!(
                    "{} {:.2} ({})",
                    c.unit.as_str(),
                    ratio(c),
                    c.format.as_str()
                )
            })
            .collect::<Vec<_>>()
            .join(" and ")
    });
    let lowest = by_unit
        .into_iter()
        .min_by(|a, b| ratio(a).total_cmp(&ratio(b)))?;
    Some((lowest, mixed))
}

/// A file of nothing but whitespace. Only the first few KiB are read: a larger file is not
/// blank, however large it claims to be.
fn is_blank(path: &Path) -> bool {
    use std::io::Read;
    const MAX: u64 = 4096;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(MAX + 1).read_to_end(&mut head));
    read.is_ok() && head.len() as u64 <= MAX && head.iter().all(u8::is_ascii_whitespace)
}

/// A report file named as coverage tools name theirs: `lcov.info`, `coverage.xml`,
/// `coverage-summary.json`, `coverage-final.json`, `cover.out`, `c.out.coverprofile`,
/// `jacoco.xml`, `cobertura.xml`, `clover.xml`.
fn named_coverage(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    [
        "coverage",
        "lcov",
        "jacoco",
        "cobertura",
        "clover",
        "coverprofile",
    ]
    .iter()
    .any(|word| file.contains(word))
        || file.starts_with("cover.")
}

/// How many of the output's first lines a `results-unreadable` finding shows, and how much of
/// each.
const SHOWN_LINES: usize = 3;
const SHOWN_LINE_CHARS: usize = 120;

/// Why nothing could be read, with the output's first lines (redacted) and what to do.
fn unreadable_message(code: i32, stdout: &Path, stderr: &Path) -> String {
    let first = first_lines(&[stdout, stderr]);
    let printed = if first.is_empty() {
        "the suite printed nothing".to_owned()
    } else {
        format!(
            "its output begins: {}",
            first
                .iter()
                .map(|l| format!("`{l}`"))
                .collect::<Vec<_>>()
                .join(" / ")
        )
    };
    format!(
        "no test results could be read from the suite's reports or output, only its exit code \
         {code}; {printed} (help: make the suite print a format skillgate reads, such as a \
         reporter flag (`--reporter tap`, `--junitxml=$SKILLGATE_REPORT_DIR/junit.xml`, `-v`), \
         or name its report file with `test-report` in SKILL.md)"
    )
}

/// Characters that reorder or hide text without showing anything themselves: zero-width
/// marks and joiners, bidirectional embeddings, overrides and isolates, the BOM.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// The first non-empty lines of the streams, as a terminal shows them, cut and redacted.
fn first_lines(paths: &[&Path]) -> Vec<String> {
    use std::io::Read;
    let mut out = Vec::new();
    for path in paths {
        let mut head = Vec::new();
        let read = std::fs::File::open(path).and_then(|f| f.take(8 * 1024).read_to_end(&mut head));
        if read.is_err() {
            continue;
        }
        let text = String::from_utf8_lossy(&head);
        for line in text.lines() {
            // Redacted whole before it is cut: a cut token is no longer recognised as one.
            let shown = Redacted::new(&crate::input::strip_ansi(line)).into_string();
            let shown: String = shown
                .chars()
                .filter(|c| !c.is_control() && !is_invisible_format(*c))
                .take(SHOWN_LINE_CHARS)
                .collect();
            let shown = shown.trim();
            if shown.is_empty() {
                continue;
            }
            out.push(shown.replace('`', "'"));
            if out.len() == SHOWN_LINES {
                return out;
            }
        }
    }
    out
}

/// How the suite failed beyond its report: timed out, killed, could not start, or exited
/// non-zero while its report lists no failed test.
fn suite_failure(
    done: &Finished,
    run: &TestRun,
    sources: &[ResultsSource],
    timeout: Duration,
) -> Option<String> {
    if let Some(err) = &done.spawn_error {
        return Some(format!("the suite could not start: {err}"));
    }
    if done.timed_out {
        return Some(format!("the suite {}", done.describe(timeout)));
    }
    if let (None, Some(signal)) = (done.exit_code, done.signal) {
        return Some(format!("the suite was killed by signal {signal}"));
    }
    let from_exit_code = sources.last() == Some(&ResultsSource::ExitCode);
    match done.exit_code {
        Some(code) if code != 0 && run.failed == 0 && !from_exit_code => Some(format!(
            "the suite exited with status {code} but reported no failed test"
        )),
        _ => None,
    }
}

fn list_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                stack.push(entry.path());
            } else if file_type.is_file() {
                out.push(entry.path());
            }
        }
    }
    out
}

/// Files a skill's `test-report`/`coverage-report` glob names, confined to the repository.
fn declared_reports(repo: &Path, skill_dir: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    if pattern.starts_with('/') || pattern.split('/').any(|s| s == "..") {
        return Err(format!(
            "report path `{pattern}` leaves the skill directory; refused"
        ));
    }
    let mut found = Vec::new();
    for file in list_files(skill_dir) {
        let Ok(rel) = file.strip_prefix(skill_dir) else {
            continue;
        };
        if !crate::glob::matches(pattern, &rel.to_string_lossy()) {
            continue;
        }
        match file.canonicalize() {
            Ok(real) if real.starts_with(repo) => found.push(file),
            Ok(real) => {
                return Err(format!(
                    "report `{}` resolves outside the repository (to {}); refused",
                    rel.display(),
                    real.display()
                ));
            }
            Err(_) => {}
        }
    }
    Ok(found)
}

/// The tests that failed in an earlier attempt and not in the last, when the last attempt's
/// results can be trusted (read from a report or the output, the suite ending normally): those
/// are flaky. The exit-status case stands for a suite that failed without naming a test.
/// Only the failures each attempt kept are compared (the first [`results::MAX_KEPT_FAILURES`]).
pub fn flaky(attempts: &[Attempt]) -> Vec<String> {
    let Some((last, earlier)) = attempts.split_last() else {
        return Vec::new();
    };
    // The last attempt must name what it counted as failed, or a test that still fails
    // could not be told from one that passed.
    let names_its_failures = last.run.failures.len() as u64 == last.run.failed
        || last.run.failures.len() >= results::MAX_KEPT_FAILURES;
    if last.failure.is_some() || !last.has_results() || !names_its_failures {
        return Vec::new();
    }
    // A test that stopped failing may have been skipped, or not run at all: only earlier
    // attempts whose tests all ran again, with no more skipped, are compared.
    let comparable =
        |a: &&Attempt| last.run.skipped <= a.run.skipped && last.run.total() >= a.run.total();
    let earlier: Vec<&Attempt> = earlier.iter().filter(comparable).collect();
    let still_failing = |case: &TestCase| {
        last.run
            .failures
            .iter()
            .any(|f| f.name == case.name && f.suite == case.suite)
    };
    let mut flaky: Vec<String> = Vec::new();
    for case in earlier.iter().flat_map(|a| &a.run.failures) {
        if !still_failing(case) && !flaky.contains(&case.name) {
            flaky.push(case.name.clone());
        }
    }
    flaky
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ReportFormat;

    fn attempt(failures: &[&str], source: &str, failure: Option<&str>) -> Attempt {
        // Three tests each time.
        let mut run = TestRun::new(ReportFormat::Tap);
        run.passed = 3 - failures.len() as u64;
        for name in failures {
            run.record(TestCase::failed(*name, None));
        }
        Attempt {
            finished: Finished {
                exit_code: Some(i32::from(!failures.is_empty())),
                signal: None,
                timed_out: false,
                duration: Duration::from_millis(5),
                spawn_error: None,
                stdout_bytes: 0,
                stderr_bytes: 0,
            },
            run,
            coverage: None,
            sources: vec![match source {
                "output" => ResultsSource::Output,
                EXIT_CODE => ResultsSource::ExitCode,
                file => ResultsSource::Report(file.to_owned()),
            }],
            failure: failure.map(str::to_owned),
            lint: Vec::new(),
            warnings: Vec::new(),
            unread: None,
            disagreement: None,
            coverage_unread: None,
            declared: Vec::new(),
        }
    }

    #[test]
    fn the_output_shown_is_redacted_whole_and_shows_no_invisible_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("stdout.log");
        let token = crate::analysis::secrets::testing::fixture_value("ghp", 7).expect("a token");
        // The token starts past the cut: cut first, its head would no longer look like one.
        let line = format!(
            "{} {token}\n\u{202e}evil\u{200b} text\n\n\u{1b}[31mred\u{1b}[0m\nfourth\n",
            "x".repeat(100)
        );
        std::fs::write(&out, line).expect("write");
        let shown = first_lines(&[&out, &dir.path().join("missing")]);
        assert_eq!(shown.len(), SHOWN_LINES);
        assert!(shown[0].ends_with(" ghp_…"), "{shown:?}");
        assert!(!shown[0].contains(&token[4..12]), "{shown:?}");
        assert!(shown[0].chars().count() <= SHOWN_LINE_CHARS, "{shown:?}");
        assert_eq!(shown[1], "evil text");
        assert_eq!(shown[2], "red");
        let message = unreadable_message(0, &out, &out);
        assert!(
            message.contains("only its exit code 0; its output begins: `xxx"),
            "{message}"
        );
        assert!(
            unreadable_message(0, &dir.path().join("none"), &dir.path().join("none"))
                .contains("the suite printed nothing"),
        );
    }

    #[test]
    fn only_coverage_files_by_name_and_small_blank_files_are_empty_coverage() {
        for name in [
            "lcov.info",
            "coverage/coverage-final.json",
            "cover.out",
            "jacoco.xml",
            "x.coverprofile",
        ] {
            assert!(named_coverage(name), "{name}");
        }
        for name in ["discovery.log", "recovery.txt", "junit.xml", "out.txt"] {
            assert!(!named_coverage(name), "{name}");
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let blank = dir.path().join("blank");
        std::fs::write(&blank, " \n\t\n").expect("write");
        assert!(is_blank(&blank));
        let large = dir.path().join("large");
        std::fs::write(&large, " ".repeat(5000)).expect("write");
        assert!(
            !is_blank(&large),
            "read no further than needed, and not blank"
        );
        assert!(!is_blank(&dir.path().join("missing")));
    }

    #[test]
    fn failed_earlier_and_not_at_the_end_is_flaky() {
        let attempts = [
            attempt(&["a", "b"], "output", None),
            attempt(&["b", "c"], "output", None),
            attempt(&["b"], "output", None),
        ];
        assert_eq!(flaky(&attempts), ["a", "c"]);
        assert!(attempts[0].failed() && attempts[2].failed());
    }

    #[test]
    fn nothing_is_flaky_when_the_last_attempt_cannot_be_trusted() {
        let crashed = attempt(&[], "output", Some("the suite was killed by signal 9"));
        assert!(crashed.failed());
        assert!(flaky(&[attempt(&["a"], "output", None), crashed]).is_empty());
        let exit_code_only = attempt(&[], EXIT_CODE, None);
        assert!(flaky(&[attempt(&["a"], "output", None), exit_code_only]).is_empty());
        assert!(flaky(&[attempt(&["a"], "output", None)]).is_empty());
        assert!(flaky(&[]).is_empty());
    }

    #[test]
    fn nothing_is_flaky_when_the_last_attempt_skipped_more_ran_fewer_or_named_none() {
        let mut skipped = attempt(&[], "output", None);
        skipped.run.passed = 2;
        skipped.run.skipped = 1;
        assert!(flaky(&[attempt(&["a"], "output", None), skipped]).is_empty());
        let mut fewer = attempt(&[], "output", None);
        fewer.run.passed = 2;
        assert!(flaky(&[attempt(&["a"], "output", None), fewer]).is_empty());
        let mut unnamed = attempt(&[], "output", None);
        unnamed.run.failed = 1;
        assert!(flaky(&[attempt(&["a", "b"], "output", None), unnamed]).is_empty());
    }

    #[test]
    fn a_suite_that_failed_without_names_then_passed_is_flaky_as_a_whole() {
        let attempts = [
            attempt(&[results::EXIT_STATUS_CASE], EXIT_CODE, None),
            attempt(&[], "junit.xml", None),
        ];
        assert_eq!(flaky(&attempts), [results::EXIT_STATUS_CASE]);
    }
}
