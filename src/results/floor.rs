//! A framework's own closing summary is the floor of what a suite is read as. The itemised
//! reading (test cases, markers, a report file) can miss what a reader does not understand; the
//! summary the framework printed (`5 failing`, `Tests: 5 failed, 12 total`, `FAILED
//! (failures=2)`, `# fail 2`) cannot be argued down. Pure: counts in, counts out.

use std::fmt;

use super::model::{Claim, ReportFormat, TestRun};

/// Passed, failed and skipped tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl Tally {
    pub fn of_run(run: &TestRun) -> Self {
        Self {
            passed: run.passed,
            failed: run.failed,
            skipped: run.skipped,
        }
    }

    fn of_claim(claim: &Claim) -> Self {
        Self {
            passed: claim.passed,
            failed: claim.failed,
            skipped: claim.skipped,
        }
    }

    pub fn total(self) -> u64 {
        self.passed
            .saturating_add(self.failed)
            .saturating_add(self.skipped)
    }

    /// At least as many failures and as many tests as `other`.
    fn covers(self, other: Self) -> bool {
        self.failed >= other.failed && self.total() >= other.total()
    }

    /// The worst of several readings. When one has at least every other's failures and tests,
    /// it is taken whole: it saw all the others did. When none does (one more failures, another
    /// more tests), none is trusted over the rest: the most failures, the most tests, the fewest
    /// passes, and the tests no reading accounts for as skipped, so the pass rate is at most
    /// any one's.
    fn worst(readings: &[Self]) -> Option<Self> {
        if let Some(all) = readings
            .iter()
            .find(|t| readings.iter().all(|o| t.covers(*o)))
        {
            return Some(*all);
        }
        let failed = readings.iter().map(|t| t.failed).max()?;
        let passed = readings.iter().map(|t| t.passed).min()?;
        let total = readings.iter().map(|t| t.total()).max()?;
        Some(Self {
            passed,
            failed,
            skipped: total.saturating_sub(failed).saturating_sub(passed),
        })
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// The itemised reading and the summaries disagreed: what each said, and what was counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// What the run was read as before the floor, and from where.
    pub read: Tally,
    pub read_from: String,
    /// The summaries, one per distinct count, in the order printed.
    pub summaries: Vec<Claim>,
    /// What the run counts now.
    pub counted: Tally,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "read {} from {}", self.read, self.read_from)?;
        for claim in &self.summaries {
            let origin = if claim.origin.is_empty() {
                String::new()
            } else {
                format!(" in {}", claim.origin)
            };
            let what = match claim.format {
                ReportFormat::Summary => "the plain closing line".to_owned(),
                other => format!("{}'s summary", other.as_str()),
            };
            write!(f, "; {what}{origin} says {}", Tally::of_claim(claim))?;
        }
        if self.counted == self.read {
            write!(f, "; counted as read (the worse reading)")
        } else {
            write!(f, "; counted {} (the worse reading)", self.counted)
        }
    }
}

/// Hold `run` to the summaries it carries: when it counts fewer failures or fewer tests than a
/// summary says, it takes the worse reading's counts (keeping the failures it named), and the
/// disagreement is returned. Summaries printed in the same place (the suite's output, one file) that
/// disagree on failures are returned too (stdout and stderr are one place), the worst one applied: in different places they may
/// count different tests (several report files), and the run is only held to each. `read_from` names where the run was read (`output (tap)`).
pub fn apply(run: &mut TestRun, read_from: &str) -> Option<Disagreement> {
    let mut summaries: Vec<Claim> = Vec::new();
    for claim in &run.claims {
        let same = summaries
            .iter_mut()
            .find(|c| c.format == claim.format && Tally::of_claim(c) == Tally::of_claim(claim));
        match same {
            // The same summary seen twice (stdout teed into a report file) is one.
            Some(seen) => {
                if !claim.origin.is_empty() && !seen.origin.split(", ").any(|o| o == claim.origin) {
                    if !seen.origin.is_empty() {
                        seen.origin.push_str(", ");
                    }
                    seen.origin.push_str(&claim.origin);
                }
            }
            None => summaries.push(claim.clone()),
        }
    }
    let claimed: Vec<Tally> = summaries.iter().map(Tally::of_claim).collect();
    let worst = Tally::worst(&claimed)?;
    let read = Tally::of_run(run);
    // Summaries printed in different files may count different tests (a report file each);
    // two printed by one suite's output, or in one file, about different failures cannot both
    // be right.
    let place = |origin: &str| match origin {
        "stdout" | "stderr" => "output".to_owned(),
        file => file.to_owned(),
    };
    let same_place = |a: &Claim, b: &Claim| {
        a.origin
            .split(", ")
            .any(|o| b.origin.split(", ").any(|p| place(p) == place(o)))
    };
    let summaries_conflict = summaries.iter().enumerate().any(|(i, a)| {
        summaries
            .iter()
            .skip(i + 1)
            .any(|b| a.failed != b.failed && same_place(a, b))
    });
    if read.covers(worst) && !summaries_conflict {
        return None;
    }
    let counted = Tally::worst(&[claimed, vec![read]].concat())?;
    run.passed = counted.passed;
    run.failed = counted.failed;
    run.skipped = counted.skipped;
    Some(Disagreement {
        read,
        read_from: read_from.to_owned(),
        summaries,
        counted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::model::TestCase;
    use crate::results::testkit::Rng;

    fn run(passed: u64, failed: u64, skipped: u64, claims: Vec<Claim>) -> TestRun {
        let mut run = TestRun::new(ReportFormat::Adhoc);
        run.passed = passed;
        run.failed = failed;
        run.skipped = skipped;
        run.claims = claims;
        run
    }

    fn claim(format: ReportFormat, counts: (u64, u64, u64), origin: &str) -> Claim {
        Claim {
            origin: origin.to_owned(),
            ..Claim::new(format, counts.0, counts.1, counts.2)
        }
    }

    fn tally(run: &TestRun) -> (u64, u64, u64) {
        (run.passed, run.failed, run.skipped)
    }

    #[test]
    fn the_issues_mocha_case_counts_the_summarys_failures() {
        // ✔ markers read as 3/3; mocha said 3 passing, 5 pending, 5 failing.
        let mut r = run(
            3,
            0,
            0,
            vec![claim(ReportFormat::MochaSpec, (3, 5, 5), "stdout")],
        );
        r.failures.push(TestCase::failed("named", None));
        let d = apply(&mut r, "output (adhoc)").expect("a disagreement");
        assert_eq!(tally(&r), (3, 5, 5));
        assert_eq!(r.failures.len(), 1, "named failures are kept");
        assert_eq!(
            d.to_string(),
            "read 3 passed, 0 failed, 0 skipped from output (adhoc); mocha-spec's summary in \
             stdout says 3 passed, 5 failed, 5 skipped; counted 3 passed, 5 failed, 5 skipped \
             (the worse reading)"
        );
    }

    #[test]
    fn agreement_or_a_fuller_reading_changes_nothing() {
        let mut r = run(
            2,
            5,
            2,
            vec![
                claim(ReportFormat::Pytest, (2, 5, 2), "stdout"),
                claim(ReportFormat::Pytest, (2, 5, 2), "out.txt"),
            ],
        );
        assert_eq!(apply(&mut r, "report.xml (junit)"), None);
        assert_eq!(tally(&r), (2, 5, 2));
        // Read more failures than the summary says (cancelled counts as failed here): fine.
        let mut r = run(4, 3, 2, vec![claim(ReportFormat::Tap, (4, 2, 2), "stdout")]);
        assert_eq!(apply(&mut r, "output (tap)"), None);
        // No summary at all.
        let mut r = run(1, 0, 0, Vec::new());
        assert_eq!(apply(&mut r, "output (adhoc)"), None);
    }

    #[test]
    fn fewer_tests_than_the_summary_take_the_summary() {
        let mut r = run(
            3,
            0,
            0,
            vec![claim(ReportFormat::Pytest, (5, 0, 0), "stderr")],
        );
        let d = apply(&mut r, "output (summary)").expect("disagrees");
        assert_eq!(tally(&r), (5, 0, 0));
        assert_eq!(
            d.read,
            Tally {
                passed: 3,
                failed: 0,
                skipped: 0
            }
        );
    }

    #[test]
    fn crossing_readings_are_never_more_favourable_than_either() {
        // 10 read passing; the summary says 3 passed, 1 failed: neither covers the other.
        let mut r = run(
            10,
            0,
            0,
            vec![claim(ReportFormat::JestText, (3, 1, 0), "stderr")],
        );
        apply(&mut r, "output (adhoc)").expect("disagrees");
        assert_eq!(tally(&r), (3, 1, 6));
    }

    #[test]
    fn summaries_that_disagree_are_a_finding_and_the_worse_wins() {
        let claims = vec![
            claim(ReportFormat::Summary, (12, 0, 0), "stdout"),
            claim(ReportFormat::JestText, (7, 5, 0), "stderr"),
        ];
        // The itemised reading already holds the worse: counts stay, the finding is made.
        let mut r = run(7, 5, 0, claims.clone());
        let d = apply(&mut r, "output (jest-text)").expect("disagrees");
        assert_eq!(tally(&r), (7, 5, 0));
        assert_eq!(d.summaries.len(), 2);
        assert!(
            d.to_string()
                .ends_with("counted as read (the worse reading)"),
            "{d}"
        );
        // Read as the better one: the worse summary wins.
        let mut r = run(12, 0, 0, claims);
        apply(&mut r, "output (summary)").expect("disagrees");
        assert_eq!(tally(&r), (7, 5, 0));
    }

    #[test]
    fn summaries_in_different_places_may_count_different_tests() {
        // Two report files, each with its own summary; the run is both files merged.
        let mut r = run(
            7,
            4,
            4,
            vec![
                claim(ReportFormat::Tap, (4, 3, 2), "node.tap"),
                claim(ReportFormat::Summary, (3, 1, 2), "stdout.txt"),
            ],
        );
        assert_eq!(apply(&mut r, "node.tap, stdout.txt (tap)"), None);
        assert_eq!(tally(&r), (7, 4, 4));
    }

    #[test]
    fn a_summary_printed_twice_is_one_with_both_origins() {
        let mut r = run(
            0,
            0,
            0,
            vec![
                claim(ReportFormat::MochaSpec, (1, 1, 0), "stdout"),
                claim(ReportFormat::MochaSpec, (1, 1, 0), "out.txt"),
                claim(ReportFormat::MochaSpec, (1, 1, 0), "stdout"),
            ],
        );
        let d = apply(&mut r, "output (adhoc)").expect("disagrees");
        assert_eq!(d.summaries.len(), 1);
        assert_eq!(d.summaries[0].origin, "stdout, out.txt");
    }

    /// Random readings and summaries: the counts after the floor hold at least the failures and
    /// the tests of every reading; they are a reading that covers all the others, when one
    /// does, and otherwise no kinder a pass rate than any.
    #[test]
    fn the_floor_holds_for_random_counts() {
        let mut rng = Rng::new(13);
        let rate = |t: Tally| (t.total() > 0).then(|| t.passed as f64 / t.total() as f64);
        for case in 0..5000 {
            let pick = |rng: &mut Rng| Tally {
                passed: rng.below(20) as u64,
                failed: rng.below(6) as u64,
                skipped: rng.below(4) as u64,
            };
            let read = pick(&mut rng);
            let claims: Vec<Claim> = (0..rng.below(4))
                .map(|_| {
                    let t = pick(&mut rng);
                    claim(
                        ReportFormat::Summary,
                        (t.passed, t.failed, t.skipped),
                        "stdout",
                    )
                })
                .collect();
            let mut r = run(read.passed, read.failed, read.skipped, claims.clone());
            apply(&mut r, "output");
            let after = Tally::of_run(&r);
            let all: Vec<Tally> = claims.iter().map(Tally::of_claim).chain([read]).collect();
            for other in &all {
                assert!(after.covers(*other), "case {case}: {after} below {other}");
            }
            let dominant = all.iter().any(|t| all.iter().all(|o| t.covers(*o)));
            if dominant {
                assert!(
                    all.contains(&after),
                    "case {case}: {after} is none of {all:?}"
                );
            } else {
                for other in &all {
                    if let (Some(a), Some(o)) = (rate(after), rate(*other)) {
                        assert!(a <= o + 1e-12, "case {case}: {after} kinder than {other}");
                    }
                }
            }
        }
    }
}
