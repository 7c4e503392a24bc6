//! Assessing a skill: from what its files show and what its suite showed, the signals, the
//! coverage, the risk score, and the decision of its policy.

use crate::analysis::risk::{self, RiskInputs};
use crate::changes::ChangeKind;
use crate::config::Config;
use crate::gate::{CoverageReport, CoverageSource, ReportedFinding, SkillResult};
use crate::policy::decide;
use crate::policy::stricter;
use crate::policy::template::CategoryTemplate;
use crate::signals::{Analysis, CoverageSignal, Signals, TestCounts};
use crate::skill::{Finding, Severity};

use super::evidence::Evidence;
use super::prepare::Prepared;

/// A secret-like value taken for an example (`file:line rule redacted (why)`), as a finding: a
/// warning shown in every report and annotated on its line, whatever the tier, so that the
/// judgement that it is an example is always in front of a reviewer.
fn secret_example(warning: &str) -> Finding {
    let (place, what) = warning.split_once(' ').unwrap_or((warning, ""));
    let (file, line) = match place.rsplit_once(':') {
        Some((file, line)) => match line.parse::<usize>() {
            Ok(line) => (file, Some(line)),
            Err(_) => (place, None),
        },
        None => (place, None),
    };
    Finding::warning(
        "secret-example",
        file,
        line,
        format!("taken for an example, not a secret: {what}; if it is real, remove and rotate it"),
    )
}

/// From what the skill's files show and what its suite showed, build the signals and decide.
pub fn assess(
    p: Prepared,
    evidence: Evidence,
    policy: crate::policy::Policy,
    previous_coverage: Option<f64>,
) -> SkillResult {
    // Redacted here, before anything (the signals' lint errors) quotes them.
    let mut lint: Vec<ReportedFinding> = p.lint.into_iter().map(ReportedFinding::from).collect();
    lint.extend(evidence.lint);
    if let Some(analysis) = &p.analysis {
        lint.extend(
            analysis
                .secret_warnings
                .iter()
                .map(|w| ReportedFinding::from(secret_example(w))),
        );
    }
    let coverage = match (&evidence.coverage, p.meta.test_coverage) {
        (Some(c), _) => CoverageSignal::Measured {
            ratio: c.ratio,
            format: c.format.clone().unwrap_or_default(),
        },
        (None, Some(ratio)) => CoverageSignal::Declared { ratio },
        (None, None) => CoverageSignal::Unknown,
    };
    let coverage_report = match &coverage {
        CoverageSignal::Measured { .. } => evidence.coverage.clone(),
        CoverageSignal::Declared { ratio } => Some(CoverageReport {
            ratio: *ratio,
            source: CoverageSource::Declared,
            format: None,
            unit: None,
            lines_covered: None,
            lines_total: None,
            statements_covered: None,
            statements_total: None,
        }),
        CoverageSignal::Unknown => None,
    };
    let coverage_delta = match (coverage.ratio(), previous_coverage) {
        (Some(now), Some(before)) => Some(((now - before) * 1000.0).round() / 10.0),
        _ => None,
    };
    let tests = evidence.tests.map(|mut tests| {
        tests.coverage = coverage.ratio().map(crate::gate::percent);
        tests.coverage_delta = coverage_delta;
        tests
    });
    let analysis = p.analysis;
    let risk = (p.change.kind != ChangeKind::Deleted).then(|| {
        let critical = stricter::is_critical(&policy, &p.base_category, p.meta.category.as_deref());
        risk::score(
            &risk_inputs(
                analysis.as_ref(),
                // Declared coverage would lower the score on the author's word alone.
                stricter::risk_coverage(&coverage),
                critical,
                p.meta.risk_score,
            ),
            &policy.risk_weights,
        )
    });
    let signals = Signals {
        change: p.change.kind.clone(),
        lint_errors: lint
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}", f.location(), f.message))
            .collect(),
        suite: evidence.suite,
        suite_failure: evidence.suite_failure,
        results_unread: evidence.results_unread,
        coverage_unread: evidence.coverage_unread,
        results_disagree: evidence.results_disagree,
        self_reported: evidence.self_reported,
        tests: tests.as_ref().map(|t| TestCounts {
            passed: t.pass_count,
            failed: t.fail_count,
            skipped: t.skip_count,
        }),
        coverage,
        declared_risk: p.meta.risk_score,
        declared_approval_level: p.meta.approval_level,
        required_pass_rate: stricter::required_pass_rate(&policy, p.meta.required_test_pass_rate),
        attempts: evidence.attempts,
        // Flaky across retries, and as the framework itself reported (reruns of its own).
        flaky: tests
            .as_ref()
            .map(|t| {
                t.flaky_tests
                    .iter()
                    .map(|n| n.as_str().to_owned())
                    .collect()
            })
            .unwrap_or_default(),
        analysis,
        risk,
        breaking: p.breaking,
        category_change: p.category_change,
        uncovered: p.uncovered,
        tests_not_run: p.resolution.tests_not_run(),
    };
    let decision = decide(&signals, &policy);
    SkillResult {
        name: p.name,
        dir: p.change.skill.dir.clone(),
        skill_file: p.change.skill.skill_file.clone(),
        change: p.change.kind,
        content_hash: p.content_hash,
        version: p.meta.version,
        category: p.meta.category,
        owner: p.meta.owner,
        team: p.meta.team,
        tags: p.meta.tags,
        generated_by: p.meta.generated_by,
        phase4_pattern_id: p.meta.phase4_pattern_id,
        lint,
        suite: evidence.report,
        tests,
        coverage: coverage_report,
        signals,
        decision,
    }
}

/// A skill's policy: the config's `[policy]`, its category's template, its
/// `[policy.categories.NAME]`; for a new skill or a changed category, the stricter of the
/// base's and the head's.
pub fn policy_for(
    p: &Prepared,
    config: &Config,
    templates: &[CategoryTemplate],
) -> crate::policy::Policy {
    stricter::policy_for_change(
        &config.policy,
        templates,
        &p.base_category,
        p.meta.category.as_deref(),
    )
}

/// The risk score's inputs from what the gate measured.
fn risk_inputs(
    analysis: Option<&Analysis>,
    coverage: Option<f64>,
    critical: bool,
    declared: Option<f64>,
) -> RiskInputs {
    RiskInputs {
        security_sensitive: analysis
            .is_some_and(|a| !a.secrets.is_empty() || !a.security_sensitive.is_empty()),
        elevated: analysis
            .is_some_and(|a| !a.infrastructure.is_empty() || !a.database_writes.is_empty()),
        complexity: analysis.and_then(|a| a.complexity.as_ref()).map(|c| c.max),
        coverage,
        dependencies: analysis.map_or(0, |a| a.dependency_count as usize),
        critical,
        declared,
    }
}
