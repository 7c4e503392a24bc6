//! Test helpers for the line readers: reading fixtures and texts, a seeded generator and the
//! property every reader that claims a closing summary must hold on any interleaving of its
//! lines.

use std::path::{Path, PathBuf};

use super::line_reader::reader_for;
use super::model::{Claim, ReportFormat, TestCase, TestRun};
use crate::input::terminal_text;

/// A committed report fixture, for the readers' tests.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reports")
        .join(rel)
}

/// A committed report fixture's text (`rel` below `tests/fixtures/reports`).
pub(crate) fn fixture_text(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A fixture's stdout and stderr (`<dir>/<name>.stdout.txt` and `.stderr.txt`) read as a
/// suite's output: every format sees them.
pub(crate) fn read_output(dir: &str, name: &str) -> Option<TestRun> {
    let dir = fixture(dir);
    super::read_output(
        &dir.join(format!("{name}.stdout.txt")),
        &dir.join(format!("{name}.stderr.txt")),
    )
    .expect("read")
}

/// [`read_output`] of `<dir>/<name>`, held to its format's closing summary: a run of
/// `format` counting `expected` (passed, failed, skipped), whose only claim is `format`'s (no
/// other format reads the summary's lines as its own), equal to it and from
/// `<name>.<stream>.txt`.
pub(crate) fn read_output_claimed(
    dir: &str,
    name: &str,
    format: ReportFormat,
    stream: &str,
    expected: (u64, u64, u64),
) -> TestRun {
    let run = read_output(dir, name).unwrap_or_else(|| panic!("{name}: nothing read"));
    assert_eq!(run.format, format, "{name}");
    assert_eq!(counts(&run), expected, "{name}");
    let [claim] = run.claims.as_slice() else {
        panic!("{name}: {:?}", run.claims);
    };
    assert_eq!(claim.format, format, "{name}");
    assert_eq!(
        (claim.passed, claim.failed, claim.skipped),
        expected,
        "{name}"
    );
    assert_eq!(claim.origin, format!("{name}.{stream}.txt"));
    run
}

/// The files in a fixture folder (`dir` below `tests/fixtures/reports`), sorted.
pub(crate) fn fixture_files(dir: &str) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(fixture(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
}

/// `format`'s reader alone claims nothing and reads no run in any of the files `paths`, nor in
/// any of `texts`.
pub(crate) fn assert_not_read(format: ReportFormat, paths: &[PathBuf], texts: &[&str]) {
    for path in paths {
        let text = std::fs::read_to_string(path).expect("read");
        assert_eq!(read_text(format, &text), (None, None), "{}", path.display());
    }
    for text in texts {
        assert_eq!(read_text(format, text), (None, None), "{text:?}");
    }
}

/// A text through `format`'s reader alone, lines as the detector hands them over: its claim
/// and its run.
pub(crate) fn read_text(format: ReportFormat, text: &str) -> (Option<Claim>, Option<TestRun>) {
    read_lines(format, text.lines())
}

/// Passed, failed and skipped.
pub(crate) fn counts(run: &TestRun) -> (u64, u64, u64) {
    (run.passed, run.failed, run.skipped)
}

/// The names of the failures kept.
pub(crate) fn names(run: &TestRun) -> Vec<&str> {
    run.failures.iter().map(|c| c.name.as_str()).collect()
}

/// The first line of a case's message; empty without one.
pub(crate) fn first_line(case: &TestCase) -> &str {
    case.message
        .as_deref()
        .and_then(|m| m.lines().next())
        .unwrap_or_default()
}

/// xorshift64*: deterministic, so a failing seed reproduces.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Lines other formats print, mixed into the interleavings.
const NOISE: &[&str] = &[
    "",
    "  ✓ a passing test (3 ms)",
    "  ✗ something else",
    "ok 1 - tap",
    "not ok 2 - tap",
    "# fail 1",
    "3 passing (2ms)",
    "2 failing",
    "Tests:       1 failed, 1 passed, 2 total",
    "FAILED (failures=1)",
    "Files=1, Tests=2,  0 wallclock secs",
    "  1) suite",
    "       title:",
    "     Error: boom",
    "\u{1b}[31m✖ red\u{1b}[0m",
    "ℹ tests 4",
];

/// `lines` reordered, cut, repeated and mixed with other formats' lines, by `seed`.
pub(crate) fn interleaving(lines: &[&str], seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    for _ in 0..rng.below(8) + 1 {
        if out.is_empty() {
            break;
        }
        let at = rng.below(out.len());
        match rng.below(6) {
            // Move a window of lines elsewhere.
            0 => {
                let len = rng.below(out.len() - at) + 1;
                let window: Vec<String> = out.drain(at..at + len).collect();
                let to = rng.below(out.len() + 1);
                for (i, line) in window.into_iter().enumerate() {
                    out.insert(to + i, line);
                }
            }
            1 => {
                out.remove(at);
            }
            2 => {
                let line = out[at].clone();
                out.insert(rng.below(out.len() + 1), line);
            }
            3 => out.insert(at, NOISE[rng.below(NOISE.len())].to_owned()),
            // Cut a line short, on a character boundary.
            4 => {
                let line = &out[at];
                let mut end = rng.below(line.len() + 1);
                while !line.is_char_boundary(end) {
                    end -= 1;
                }
                out[at] = line[..end].to_owned();
            }
            _ => {
                let a = rng.below(out.len());
                out.swap(at, a);
            }
        }
    }
    out
}

/// Feed `lines` to `format`'s reader alone: its claim and its run.
pub(crate) fn read_with(
    format: ReportFormat,
    lines: &[String],
) -> (Option<Claim>, Option<TestRun>) {
    read_lines(format, lines.iter().map(String::as_str))
}

fn read_lines<'a>(
    format: ReportFormat,
    lines: impl IntoIterator<Item = &'a str>,
) -> (Option<Claim>, Option<TestRun>) {
    let mut reader = reader_for(format).expect("a line format");
    for line in lines {
        reader.feed(&terminal_text(line));
    }
    let claim = reader.claim();
    (claim, reader.finish())
}

/// On `cases` random interleavings of `text`'s lines: the reader never panics, a reader that
/// claims a summary returns a run, and that run never counts fewer failures or fewer tests than
/// its claim.
pub(crate) fn assert_claims_hold(format: ReportFormat, text: &str, cases: u64) {
    let lines: Vec<&str> = text.lines().collect();
    for seed in 0..cases {
        let mixed = interleaving(&lines, seed);
        let (claim, run) = read_with(format, &mixed);
        let Some(claim) = claim else { continue };
        let run = run.unwrap_or_else(|| panic!("seed {seed}: a claim {claim:?} without a run"));
        assert!(
            run.failed >= claim.failed && run.total() >= claim.total(),
            "seed {seed}: read {}/{}/{} below its own summary {claim:?}",
            run.passed,
            run.failed,
            run.skipped
        );
    }
}

/// Lines both JavaScript runners' readers (jest's and vitest's default reporters) are tried on:
/// each one's own lines and the other's, whole or cut short.
pub(crate) const JEST_AND_VITEST_PIECES: &[&str] = &[
    "FAIL ./a.test.js",
    "PASS ./é.test.ts",
    "  ● ",
    "  ● Test suite failed to run",
    "    at x (a.test.js:1:2)",
    "    > 3 |",
    "Test Suites: 1 failed, 1 of 2 total",
    "Tests:       1 failed, 2 total",
    "Tests:       18446744073709551615 passed, 1 total",
    "Ran all test suites.",
    "Summary of all failing tests",
    " ❯ a.test.ts (1 test | 1 failed) 3ms",
    " ❯ (",
    " Test Files  1 failed (1)",
    "      Tests  1 failed | 9 passed (3)",
    "     Errors  1 error",
    "   Duration  1.00s (x)",
    "⎯⎯ Failed Tests 1 ⎯⎯",
    "⎯⎯ Failed Suites 1 ⎯⎯",
    "⎯⎯ Unhandled Errors ⎯⎯",
    "⎯⎯ Uncaught Exception ⎯⎯",
    "⎯[1/1]⎯",
    "⎯",
    " FAIL  a.test.ts > ",
    " FAIL  |p| a.test.ts [ a.test.ts ]",
    "This error originated in \"\" test file.",
    " RUN  v3.2.7 /x",
    "\u{1b}[31m✕\u{1b}[0m ünïcödé",
    "",
];

/// On `seeds` texts of up to 39 lines, each a piece of `pieces` cut short on a character
/// boundary: the reader never panics, and a reader that claims a summary returns a run that
/// counts no fewer failures and no fewer tests than its claim.
pub(crate) fn assert_pieces_hold(format: ReportFormat, pieces: &[&str], seeds: u64) {
    for seed in 0..seeds {
        let mut rng = Rng::new(seed);
        let lines: Vec<String> = (0..rng.below(40))
            .map(|_| {
                let piece = pieces[rng.below(pieces.len())];
                let cut = rng.below(piece.len() + 1);
                let end = (0..=cut)
                    .rev()
                    .find(|i| piece.is_char_boundary(*i))
                    .unwrap_or(0);
                piece[..end].to_owned()
            })
            .collect();
        let (claim, run) = read_with(format, &lines);
        if let Some(claim) = claim {
            let run = run.expect("a claim comes with a run");
            assert!(
                run.failed >= claim.failed && run.total() >= claim.total(),
                "{seed}"
            );
        }
    }
}
