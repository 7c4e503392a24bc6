//! Test helpers for the line readers: a seeded generator and the property every reader that
//! claims a closing summary must hold on any interleaving of its lines.

use super::line_reader::reader_for;
use super::model::{Claim, ReportFormat, TestRun};

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
    let mut reader = reader_for(format).expect("a line format");
    for line in lines {
        reader.feed(&super::detect::terminal_text(line));
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
