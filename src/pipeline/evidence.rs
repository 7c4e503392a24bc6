//! What a skill's suite showed, before the skill is assessed.

use crate::changes::ChangeKind;
use crate::gate::{CoverageReport, ReportedFinding, SuiteReport, TestResults};
use crate::runner;
use crate::signals::SuiteSignal;
use crate::suite::Resolution;
use crate::warning::{Warning, WarningKind};

use super::attempt::{self, Attempt};
use super::prepare::Prepared;

/// What a skill's suite showed: read from its attempts by `check`, or taken from a results
/// document by `publish` (which computes everything else itself).
#[derive(Debug, Clone)]
pub struct Evidence {
    pub suite: SuiteSignal,
    pub report: Option<SuiteReport>,
    /// The counts and failures; their coverage fields are set when the skill is decided.
    pub tests: Option<TestResults>,
    /// Measured coverage only: declared coverage comes from the skill's own files.
    pub coverage: Option<CoverageReport>,
    pub suite_failure: Option<String>,
    pub results_unread: Option<String>,
    pub coverage_unread: Option<String>,
    pub results_disagree: Option<String>,
    /// Why the counts are the pull request's own word, when the policy does not trust that.
    pub self_reported: Option<String>,
    pub attempts: u32,
    /// Findings made while reading the results (declared report paths, unreadable output).
    pub lint: Vec<ReportedFinding>,
}

impl Evidence {
    /// No suite ran: a deleted skill, no suite, or one that could not run.
    pub fn not_run(p: &Prepared) -> Self {
        let (suite, report) = match &p.resolution {
            _ if p.change.kind == ChangeKind::Deleted => (SuiteSignal::NotApplicable, None),
            Resolution::Unavailable { suite, reason, .. } => (
                SuiteSignal::Unavailable {
                    reason: reason.clone(),
                },
                Some(SuiteReport {
                    suite: suite.clone(),
                    outcome: format!("not run: {reason}"),
                    exit_code: None,
                    timed_out: false,
                    duration_ms: 0,
                    attempts: 0,
                    earlier_attempts_ms: Vec::new(),
                    results_from: Vec::new(),
                }),
            ),
            _ => (SuiteSignal::Missing, None),
        };
        Self {
            suite,
            report,
            tests: None,
            coverage: None,
            suite_failure: None,
            results_unread: None,
            coverage_unread: None,
            results_disagree: None,
            self_reported: None,
            attempts: 0,
            lint: Vec::new(),
        }
    }

    /// What the suite's attempts showed: the last one counts, earlier ones name flaky tests.
    pub fn from_attempts(
        p: &Prepared,
        mut attempts: Vec<Attempt>,
        settings: &runner::Settings,
        timestamp: &str,
        warnings: &mut Vec<Warning>,
    ) -> Self {
        let count = u32::try_from(attempts.len()).unwrap_or(u32::MAX);
        let flaky = attempt::flaky(&attempts);
        let (Resolution::Found(suite), Some(last)) = (&p.resolution, attempts.pop()) else {
            return Self::not_run(p);
        };
        if p.change.kind == ChangeKind::Deleted {
            return Self::not_run(p);
        }
        let done = &last.finished;
        let report = SuiteReport {
            suite: Some(SuiteReport::shown_suite(suite)),
            outcome: done.describe(settings.timeout),
            exit_code: done.exit_code,
            timed_out: done.timed_out,
            duration_ms: millis(done.duration),
            attempts: count,
            earlier_attempts_ms: attempts
                .iter()
                .map(|a| millis(a.finished.duration))
                .collect(),
            results_from: last.sources.iter().map(ToString::to_string).collect(),
        };
        warnings.extend(Warning::all(WarningKind::Results, last.warnings));
        let mut run = last.run;
        for name in &flaky {
            if !run.flaky.contains(name) {
                run.flaky.push(name.clone());
            }
        }
        let coverage = last
            .coverage
            .as_ref()
            .filter(|c| c.ratio().is_some())
            .map(CoverageReport::measured);
        Self {
            suite: SuiteSignal::Ran,
            tests: Some(TestResults::from_run(
                &run,
                report.duration_ms,
                timestamp,
                None,
                None,
            )),
            report: Some(report),
            coverage,
            suite_failure: last.failure,
            results_unread: last.unread,
            coverage_unread: last.coverage_unread,
            results_disagree: last.disagreement,
            self_reported: None,
            attempts: count,
            lint: last.lint.into_iter().map(ReportedFinding::from).collect(),
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
