//! A framework's own closing summary is the floor of what a suite is read as. The itemised
//! reading (test cases, markers, a report file) can miss what a reader does not understand; the
//! summary the framework printed (`5 failing`, `Tests: 5 failed, 12 total`, `FAILED
//! (failures=2)`, `# fail 2`) cannot be argued down. Pure: counts in, counts out.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::model::{Claim, ReportFormat, TestRun};

/// Summaries named in a finding, and places named for each; the rest are counted.
const SHOWN_SUMMARIES: usize = 4;
const SHOWN_ORIGINS: usize = 3;

/// Passed, failed and skipped tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

    fn add(self, other: Self) -> Self {
        Self {
            passed: self.passed.saturating_add(other.passed),
            failed: self.failed.saturating_add(other.failed),
            skipped: self.skipped.saturating_add(other.skipped),
        }
    }

    /// What several readings of one suite's tests add up to: the most failures, the most tests
    /// and the most skips any of them saw, the rest passed. No reading's failures, tests or
    /// skips are counted down, so the pass rate is never above the kindest reading's; a reading
    /// that has the most of all three is what it says.
    fn floor(readings: &[Self]) -> Self {
        let (mut failed, mut total, mut skipped) = (0u64, 0u64, 0u64);
        for t in readings {
            failed = failed.max(t.failed);
            total = total.max(t.total());
            skipped = skipped.max(t.skipped);
        }
        let skipped = skipped.min(total - failed.min(total));
        Self {
            passed: total.saturating_sub(failed).saturating_sub(skipped),
            failed,
            skipped,
        }
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

/// One distinct closing summary and the places it was printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub format: ReportFormat,
    pub tally: Tally,
    /// Where it was printed, in order, each once.
    pub origins: Vec<String>,
}

/// The itemised reading and the summaries disagreed: what each said, and what was counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// What the run was read as before the floor, and from where.
    pub read: Tally,
    pub read_from: String,
    /// The summaries, one per distinct format and count, in the order printed.
    pub summaries: Vec<Summary>,
    /// What the run counts now.
    pub counted: Tally,
    /// Whether the evidence contradicts itself in a way that matters to a verdict: failures or
    /// passes were counted differently, or summaries in one place disagree about failures. Not
    /// when only skips were missing (a JUnit writer that leaves pending tests out).
    pub unsettled: bool,
}

impl Disagreement {
    /// One line for a decision's reasons: the reading, the summary furthest from it, and what
    /// was counted.
    pub fn reason(&self) -> String {
        let furthest = self
            .summaries
            .iter()
            .max_by_key(|s| (s.tally.failed, s.tally.total()));
        match furthest {
            Some(s) => format!(
                "test counts disagree: read {}, but {} says {}; counted {}",
                self.read,
                describe(s.format),
                s.tally,
                self.counted
            ),
            None => format!("test counts disagree: counted {}", self.counted),
        }
    }
}

fn describe(format: ReportFormat) -> String {
    match format {
        ReportFormat::Summary => "the plain closing line".to_owned(),
        ReportFormat::Adhoc => "the harness's totals".to_owned(),
        other => format!("{}'s summary", other.as_str()),
    }
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "read {} from {}", self.read, self.read_from)?;
        for summary in self.summaries.iter().take(SHOWN_SUMMARIES) {
            let mut origins = summary
                .origins
                .iter()
                .take(SHOWN_ORIGINS)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if summary.origins.len() > SHOWN_ORIGINS {
                origins.push_str(&format!(
                    " and {} more",
                    summary.origins.len() - SHOWN_ORIGINS
                ));
            }
            let origins = if origins.is_empty() {
                String::new()
            } else {
                format!(" in {origins}")
            };
            write!(
                f,
                "; {}{origins} says {}",
                describe(summary.format),
                summary.tally
            )?;
        }
        if self.summaries.len() > SHOWN_SUMMARIES {
            write!(
                f,
                "; {} more summaries",
                self.summaries.len() - SHOWN_SUMMARIES
            )?;
        }
        if self.counted == self.read {
            write!(f, "; counted as read")
        } else {
            write!(f, "; counted {}", self.counted)
        }
    }
}

/// Where a summary was printed, for telling whether two describe the same tests: a suite's
/// stdout and stderr are one place (its output), each report file another.
fn place(origin: &str) -> &str {
    match origin {
        "stdout" | "stderr" => "output",
        file => file,
    }
}

/// Whether a format is a harness's own tally (a totals block, the plain closing line) rather
/// than a test framework's summary.
pub fn is_tally(format: ReportFormat) -> bool {
    matches!(format, ReportFormat::Adhoc | ReportFormat::Summary)
}

/// Whether a run was read as a test framework's own output (not a tally, not an exit code).
fn is_framework(format: ReportFormat) -> bool {
    !is_tally(format) && format != ReportFormat::ExitCode
}

/// Hold `run` to the summaries it carries.
///
/// - `read_from_output`: the run was read from the suite's output as a framework's. Another
///   framework's summary there counts tests of its own (a `test.sh` that runs pytest, then
///   `node --test`): they are added to the run, not compared with it. When the run came from
///   report files, or is a tally or an exit code, every summary is compared with it.
/// - When the run counts fewer failures, tests or skips than a summary, or summaries printed
///   in one place (the suite's output, or one report file) disagree about failures, the counts
///   become the floor of every reading ([`Tally::floor`]; the failures it named are kept) and
///   the disagreement is returned. Summaries in different files may count different tests,
///   so the run is held to each of them but they are not compared with each other.
///
/// `read_from` names where the run was read (`output (tap)`).
pub fn apply(run: &mut TestRun, read_from: &str, read_from_output: bool) -> Option<Disagreement> {
    let mut summaries: Vec<Summary> = Vec::new();
    let mut index: HashMap<(ReportFormat, Tally), usize> = HashMap::new();
    let mut seen: HashSet<(usize, &str)> = HashSet::new();
    // The fewest and most failures said in each place.
    let mut by_place: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut others = Tally {
        passed: 0,
        failed: 0,
        skipped: 0,
    };
    let mut other_sets: HashSet<(ReportFormat, Tally)> = HashSet::new();
    for claim in &run.claims {
        let tally = Tally::of_claim(claim);
        if read_from_output
            && is_framework(run.format)
            && claim.format != run.format
            && !is_tally(claim.format)
            && place(&claim.origin) == "output"
        {
            if other_sets.insert((claim.format, tally)) {
                others = others.add(tally);
            }
            continue;
        }
        let at = *index.entry((claim.format, tally)).or_insert_with(|| {
            summaries.push(Summary {
                format: claim.format,
                tally,
                origins: Vec::new(),
            });
            summaries.len() - 1
        });
        if !claim.origin.is_empty()
            && seen.insert((at, claim.origin.as_str()))
            && let Some(summary) = summaries.get_mut(at)
        {
            summary.origins.push(claim.origin.clone());
        }
        let range = by_place
            .entry(place(&claim.origin))
            .or_insert((claim.failed, claim.failed));
        range.0 = range.0.min(claim.failed);
        range.1 = range.1.max(claim.failed);
    }
    if !other_sets.is_empty() {
        let with_others = Tally::of_run(run).add(others);
        run.passed = with_others.passed;
        run.failed = with_others.failed;
        run.skipped = with_others.skipped;
    }
    if summaries.is_empty() {
        return None;
    }
    let read = Tally::of_run(run);
    let readings: Vec<Tally> = summaries.iter().map(|s| s.tally).chain([read]).collect();
    let counted = Tally::floor(&readings);
    let conflict = by_place.values().any(|(least, most)| least != most);
    if counted == read && !conflict {
        return None;
    }
    run.passed = counted.passed;
    run.failed = counted.failed;
    run.skipped = counted.skipped;
    Some(Disagreement {
        read,
        read_from: read_from.to_owned(),
        summaries,
        counted,
        unsettled: conflict || counted.failed != read.failed || counted.passed != read.passed,
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
        let d = apply(&mut r, "output (adhoc)", false).expect("a disagreement");
        assert_eq!(tally(&r), (3, 5, 5));
        assert_eq!(r.failures.len(), 1, "named failures are kept");
        assert_eq!(
            d.to_string(),
            "read 3 passed, 0 failed, 0 skipped from output (adhoc); mocha-spec's summary in \
             stdout says 3 passed, 5 failed, 5 skipped; counted 3 passed, 5 failed, 5 skipped"
        );
        assert_eq!(
            d.reason(),
            "test counts disagree: read 3 passed, 0 failed, 0 skipped, but mocha-spec's summary \
             says 3 passed, 5 failed, 5 skipped; counted 3 passed, 5 failed, 5 skipped"
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
        assert_eq!(apply(&mut r, "report.xml (junit)", false), None);
        assert_eq!(tally(&r), (2, 5, 2));
        // Read more failures than the summary says (cancelled counts as failed here): fine.
        let mut r = run(4, 3, 2, vec![claim(ReportFormat::Tap, (4, 2, 2), "stdout")]);
        assert_eq!(apply(&mut r, "output (tap)", false), None);
        // No summary at all.
        let mut r = run(1, 0, 0, Vec::new());
        assert_eq!(apply(&mut r, "output (adhoc)", false), None);
    }

    #[test]
    fn fewer_tests_than_the_summary_take_the_summary() {
        let mut r = run(
            3,
            0,
            0,
            vec![claim(ReportFormat::Pytest, (5, 0, 0), "stderr")],
        );
        let d = apply(&mut r, "output (summary)", false).expect("disagrees");
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
    fn crossing_readings_count_the_most_failures_and_tests_of_any() {
        // 10 read passing; the summary says 3 passed, 1 failed: neither covers the other.
        let mut r = run(
            10,
            0,
            0,
            vec![claim(ReportFormat::JestText, (3, 1, 0), "stderr")],
        );
        apply(&mut r, "output (adhoc)", false).expect("disagrees");
        assert_eq!(tally(&r), (9, 1, 0));
        // Skips are never counted down either.
        let mut r = run(
            10,
            0,
            0,
            vec![claim(ReportFormat::JestText, (3, 1, 4), "stderr")],
        );
        apply(&mut r, "output (adhoc)", false).expect("disagrees");
        assert_eq!(tally(&r), (5, 1, 4));
    }

    #[test]
    fn summaries_that_disagree_are_a_finding_and_the_worse_wins() {
        let claims = vec![
            claim(ReportFormat::Summary, (12, 0, 0), "stdout"),
            claim(ReportFormat::JestText, (7, 5, 0), "stderr"),
        ];
        // The itemised reading already holds the worse: counts stay, the finding is made.
        let mut r = run(7, 5, 0, claims.clone());
        let d = apply(&mut r, "output (jest-text)", false).expect("disagrees");
        assert_eq!(tally(&r), (7, 5, 0));
        assert_eq!(d.summaries.len(), 2);
        assert!(d.to_string().ends_with("counted as read"), "{d}");
        // Read as the better one: the worse summary wins.
        let mut r = run(12, 0, 0, claims);
        apply(&mut r, "output (summary)", false).expect("disagrees");
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
        assert_eq!(apply(&mut r, "node.tap, stdout.txt (tap)", false), None);
        assert_eq!(tally(&r), (7, 4, 4));
    }

    #[test]
    fn another_frameworks_summary_in_the_output_is_tests_of_its_own() {
        // `pytest && node --test`: pytest's output was read; node's TAP summary counts more.
        let mut tap = TestRun::new(ReportFormat::Pytest);
        tap.passed = 5;
        tap.claims = vec![
            claim(ReportFormat::Pytest, (5, 0, 0), "stdout"),
            claim(ReportFormat::Tap, (6, 2, 0), "stdout"),
        ];
        assert_eq!(apply(&mut tap.clone(), "output (pytest)", true), None);
        apply(&mut tap, "output (pytest)", true);
        assert_eq!(tally(&tap), (11, 2, 0));
        // From a report file, the same summaries are about the report's tests.
        let mut junit = run(5, 0, 0, Vec::new());
        junit.format = ReportFormat::Junit;
        junit.claims = vec![claim(ReportFormat::Tap, (6, 2, 0), "stdout")];
        let d = apply(&mut junit, "junit.xml (junit)", false).expect("disagrees");
        assert!(d.unsettled);
        assert_eq!(tally(&junit), (6, 2, 0));
    }

    #[test]
    fn skips_a_report_left_out_are_counted_without_unsettling_anything() {
        // mocha-junit-reporter leaves pending tests out; mocha's own summary counts them.
        let mut r = run(
            5,
            0,
            0,
            vec![claim(ReportFormat::MochaSpec, (5, 0, 1), "stdout")],
        );
        let d = apply(&mut r, "junit.xml (junit)", false).expect("a finding");
        assert_eq!(tally(&r), (5, 0, 1));
        assert!(!d.unsettled, "{d}");
        // A pass the summary calls a skip is another matter.
        let mut r = run(
            6,
            0,
            0,
            vec![claim(ReportFormat::MochaSpec, (5, 0, 1), "stdout")],
        );
        let d = apply(&mut r, "junit.xml (junit)", false).expect("a finding");
        assert_eq!(tally(&r), (5, 0, 1));
        assert!(d.unsettled);
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
        let d = apply(&mut r, "output (adhoc)", false).expect("disagrees");
        assert_eq!(d.summaries.len(), 1);
        assert_eq!(d.summaries[0].origins, ["stdout", "out.txt"]);
    }

    #[test]
    fn a_finding_names_a_few_summaries_and_places_and_counts_the_rest() {
        let mut claims: Vec<Claim> = (0..10)
            .map(|i| claim(ReportFormat::Summary, (1, 1, 0), &format!("r{i}.txt")))
            .collect();
        claims.extend((0..6).map(|i| claim(ReportFormat::Tap, (i, 0, 0), "stdout")));
        let mut r = run(0, 0, 0, claims);
        let d = apply(&mut r, "output", false).expect("disagrees");
        let text = d.to_string();
        assert!(
            text.contains("the plain closing line in r0.txt, r1.txt, r2.txt and 7 more says"),
            "{text}"
        );
        assert!(text.contains("; 3 more summaries; counted"), "{text}");
    }

    /// Random readings and summaries in random places: the counts after the floor hold at least
    /// the failures and the tests of every reading; when one reading holds every other's, it
    /// is what is counted; otherwise the most failures, tests and skips of any.
    #[test]
    fn the_floor_holds_for_random_counts() {
        let mut rng = Rng::new(13);
        let formats = [
            ReportFormat::Summary,
            ReportFormat::Tap,
            ReportFormat::MochaSpec,
        ];
        let places = ["stdout", "stderr", "a.txt", "b.txt"];
        for case in 0..20_000 {
            let pick = |rng: &mut Rng| Tally {
                passed: rng.below(20) as u64,
                failed: rng.below(6) as u64,
                skipped: rng.below(4) as u64,
            };
            let read = pick(&mut rng);
            let claims: Vec<Claim> = (0..rng.below(5))
                .map(|_| {
                    let t = pick(&mut rng);
                    let format = formats[rng.below(formats.len())];
                    let place = places[rng.below(places.len())];
                    claim(format, (t.passed, t.failed, t.skipped), place)
                })
                .collect();
            let mut r = run(read.passed, read.failed, read.skipped, claims.clone());
            let applied = apply(&mut r, "output", false);
            let after = Tally::of_run(&r);
            let all: Vec<Tally> = claims.iter().map(Tally::of_claim).chain([read]).collect();
            let most = |f: fn(&Tally) -> u64| all.iter().map(f).max().unwrap_or(0);
            // The most failures, tests and skips of any reading; never a better pass rate
            // than every reading's.
            assert_eq!(after.failed, most(|t| t.failed), "case {case}");
            assert_eq!(after.total(), most(|t| t.total()), "case {case}");
            let room = after.total() - after.failed;
            assert_eq!(after.skipped, most(|t| t.skipped).min(room), "case {case}");
            let rate = |t: &Tally| (t.total() > 0).then(|| t.passed as f64 / t.total() as f64);
            if let Some(a) = rate(&after) {
                assert!(
                    all.iter().filter_map(rate).any(|o| a <= o + 1e-12),
                    "case {case}: {after} kinder than every reading"
                );
            }
            match applied {
                None => assert_eq!(after, read, "case {case}"),
                Some(d) => {
                    assert_eq!((d.read, d.counted), (read, after), "case {case}");
                    if after.failed != read.failed || after.passed != read.passed {
                        assert!(d.unsettled, "case {case}");
                    }
                }
            }
        }
    }
}
