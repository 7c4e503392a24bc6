//! What `publish` computes itself. A results document comes from a job that ran the pull
//! request's code, so it is the pull request's own word: `publish` reads the head's files
//! (never runs them), and finds the changed skills, lints them, measures every static signal
//! and applies the policy on its own. From the document it takes only what it cannot compute,
//! each skill's test counts, failures and coverage, and only for a skill whose files are the
//! ones the document's job tested.

use std::path::{Path, PathBuf};

use crate::changes::{ChangeKind, SkillChange};
use crate::config::{Config, SelfReported};
use crate::discover::Layout;
use crate::error::Error;
use crate::gate::{
    CoverageReport, CoverageSource, GateRun, Redacted, ReportedFinding, RunScope, SkillResult,
    SuiteReport, TestResults,
};
use crate::git::{ExportError, Git, short};
use crate::policy::template::CategoryTemplate;
use crate::signals::SuiteSignal;
use crate::store::Store;
use crate::suite::Resolution;

use super::assess::{assess, policy_for};
use super::evidence::Evidence;
use super::prepare::{Prepared, flag_duplicate_names, prepare};
use super::scope::{BaseReader, relative_change, repo_prefix, strip};

/// The commits to gate between, from what the publishing job trusts.
pub struct Revisions<'a> {
    /// The pull request's head commit (from the API), or the run's head without a pull request.
    pub head: &'a str,
    /// The pull request's base commit (from the API); `None` without a pull request.
    pub pull_base: Option<&'a str>,
    /// Whether the pull request comes from a fork.
    pub fork: bool,
}

/// The head's files, written out of git into a directory of their own: read, never run.
struct HeadTree {
    /// Removed when the tree is dropped.
    _dir: tempfile::TempDir,
    tree: PathBuf,
}

/// The run `document` reports, decided again from the head's own files: the document gives
/// only test counts, failures and coverage, for skills whose content it tested.
pub fn recompute(
    document: &GateRun,
    repo: &Path,
    config: &Config,
    templates: &[CategoryTemplate],
    store: &Store,
    revisions: &Revisions<'_>,
) -> Result<GateRun, Error> {
    let git = Git::open(repo).map_err(|err| {
        Error::usage(
            format!(
                "publish decides from the pull request's own files, and {} is not a git checkout: {err}",
                repo.display()
            ),
            Some("check out the repository in the publishing job (actions/checkout); publish fetches the head itself"),
        )
    })?;
    let prefix = repo_prefix(&git, repo)?;
    let head = have_commit(&git, revisions.head, "head")?;
    let base = match (revisions.pull_base, &document.run.base) {
        // What the pull request changed: from where its branch left the base, as GitHub's
        // "Files changed" shows it, whatever the base branch did since. The document's scope
        // and base are its own word and change nothing here.
        (Some(pull_base), _) => {
            let pull_base = have_commit(&git, pull_base, "base")?;
            Some(merge_base(&git, &pull_base, &head).ok_or_else(|| {
                Error::usage(
                    format!(
                        "cannot tell where the pull request's branch ({}) left its base ({}): the checkout lacks their shared history",
                        short(&head),
                        short(&pull_base)
                    ),
                    Some("check out with history in the publishing job (actions/checkout with `fetch-depth: 0`)"),
                )
            })?)
        }
        // No pull request (a push): the document's own base, as the job that made it compared.
        (None, Some(base)) => Some(have_commit(&git, base, "base")?),
        (None, None) => None,
    };
    let tree = HeadTree::export(&git, &head)?;
    let root = if prefix.is_empty() {
        tree.tree.clone()
    } else {
        tree.tree.join(&prefix)
    };
    let layout = Layout::new(&config.skills);
    let found = layout
        .find_skills(&root)
        .map_err(|err| Error::io("search for skills in", &root, err))?;
    let all =
        revisions.pull_base.is_none() && (document.run.scope == RunScope::All || base.is_none());
    let mut not_gated = Vec::new();
    let changes: Vec<SkillChange> = match (&base, all) {
        (Some(base), false) => {
            let files: Vec<_> = git
                .changes(base, Some(&head))?
                .into_iter()
                .filter_map(|change| relative_change(change, &prefix))
                .collect();
            let base_files = git.files_at(base)?;
            let base_found =
                layout.find_in_paths(base_files.iter().filter_map(|p| strip(p, &prefix)));
            let files = crate::changes::through_links(&found.links, &files);
            // As `check` gates them: a changed file in a directory no root covers too.
            let changes = crate::changes::gated_changes(&layout, &found, &base_found, &files);
            not_gated = crate::changes::not_gated(&changes, &files, &found.links);
            changes
        }
        _ => found
            .skills
            .iter()
            .map(|s| SkillChange {
                skill: s.clone(),
                kind: ChangeKind::Unchanged,
            })
            .collect(),
    };
    let reader = base.as_ref().map(|base| BaseReader {
        git,
        base: base.clone(),
        prefix: prefix.clone(),
        api: None,
    });
    let mut prepared: Vec<Prepared> = changes
        .iter()
        .map(|change| prepare(&root, &found, change, reader.as_ref(), config))
        .collect::<Result<_, _>>()?;
    flag_duplicate_names(&root, config, &found, &mut prepared);
    let trust = match config.policy.self_reported_tests {
        Some(mode) => mode,
        None if revisions.fork => SelfReported::Escalate,
        None => SelfReported::Trust,
    };
    let mut skills = Vec::with_capacity(prepared.len());
    for p in prepared {
        let reported = document.skills.iter().find(|s| s.dir == p.change.skill.dir);
        let evidence = evidence(&p, reported, trust, revisions);
        let previous = store.previous_coverage(&p.change, &p.name)?;
        let policy = policy_for(&p, config, templates);
        skills.push(assess(p, evidence, policy, previous));
    }
    let mut run = document.run.clone();
    run.base = base;
    run.head = Some(head.clone());
    run.dirty = false;
    if run.pull_request.is_some() {
        run.pull_request_head = Some(head);
    }
    run.scope = if all {
        RunScope::All
    } else {
        RunScope::Changed
    };
    Ok(GateRun {
        schema: crate::gate::SCHEMA.to_owned(),
        tool: crate::gate::Tool::default(),
        run,
        summary: GateRun::summarize(&skills),
        findings: found
            .findings
            .into_iter()
            .chain(not_gated)
            .map(ReportedFinding::from)
            .collect(),
        skills,
    })
}

/// What a skill's suite showed, as far as the document can say it: only for the files the
/// gate read itself, and never more favourable than the document.
fn evidence(
    p: &Prepared,
    reported: Option<&SkillResult>,
    trust: SelfReported,
    revisions: &Revisions<'_>,
) -> Evidence {
    let mut evidence = Evidence::not_run(p);
    let Resolution::Found(suite) = &p.resolution else {
        // No suite, or one that cannot run, in the head's files: nothing the document says
        // about tests is about this skill.
        return evidence;
    };
    if p.change.kind == ChangeKind::Deleted {
        return evidence;
    }
    let unverified = |reason: String| SuiteSignal::Unverified { reason };
    let Some(reported) = reported else {
        evidence.suite = unverified(
            "no test results for this skill: the results document does not hold it".to_owned(),
        );
        return evidence;
    };
    if reported.content_hash.is_none() || reported.content_hash != p.content_hash {
        evidence.suite = unverified(format!(
            "the results document tested other files than the pull request's head (content {}, head {})",
            reported.content_hash.as_deref().map_or("unknown", short),
            p.content_hash.as_deref().map_or("unknown", short),
        ));
        return evidence;
    }
    let report = reported.suite.clone().map(|report| SuiteReport {
        // The suite is what the head's files say it is, not what the document says.
        suite: Some(SuiteReport::shown_suite(suite)),
        ..report
    });
    match &reported.signals.suite {
        SuiteSignal::Ran => {}
        // The job could not run it (a missing tool): no better than that.
        SuiteSignal::Unavailable { reason } => {
            evidence.suite = SuiteSignal::Unavailable {
                reason: Redacted::new(reason).into_string(),
            };
            evidence.report = report;
            return evidence;
        }
        SuiteSignal::Missing | SuiteSignal::NotApplicable | SuiteSignal::Unverified { .. } => {
            evidence.suite = unverified(
                "the results document says the suite did not run, but the head's files have one"
                    .to_owned(),
            );
            return evidence;
        }
    }
    let Some(tests) = reported.tests.as_ref() else {
        evidence.suite = unverified(
            "the results document says the suite ran but holds no test results".to_owned(),
        );
        return evidence;
    };
    let signals = &reported.signals;
    evidence.suite = SuiteSignal::Ran;
    evidence.report = report;
    evidence.tests = Some(counted(tests));
    evidence.coverage = reported.coverage.as_ref().and_then(measured);
    // The document's own words, shown to people: redacted like every text it holds.
    let said = |text: &Option<String>| text.as_deref().map(|t| Redacted::new(t).into_string());
    evidence.suite_failure = said(&signals.suite_failure);
    evidence.results_unread = said(&signals.results_unread);
    evidence.coverage_unread = said(&signals.coverage_unread);
    evidence.results_disagree = said(&signals.results_disagree);
    evidence.attempts = signals.attempts.max(1);
    evidence.lint = reported
        .lint
        .iter()
        .filter(|f| RESULT_FINDINGS.contains(&f.rule.as_str()))
        .cloned()
        .collect();
    let changed = !matches!(p.change.kind, ChangeKind::Unchanged | ChangeKind::Deleted);
    if changed && trust == SelfReported::Escalate {
        evidence.self_reported = Some(format!(
            "test results self-reported by the job that ran the pull request's code{}: an expert confirms them",
            if revisions.fork { " (a fork)" } else { "" }
        ));
    }
    evidence
}

/// Findings `check` makes while reading a suite's results: the only ones a document supplies.
/// Lint findings on the skill's files are the gate's own.
const RESULT_FINDINGS: &[&str] = &[
    "report-disagrees",
    "results-unreadable",
    "coverage-mixed",
    "report-missing",
    "report-unreadable",
];

/// The document's counts, with the totals and the rate computed here: a document cannot say
/// 1 of 10 passed and a pass rate of 1.
fn counted(tests: &TestResults) -> TestResults {
    let total = tests
        .pass_count
        .saturating_add(tests.fail_count)
        .saturating_add(tests.skip_count);
    // A document listing more failures than it counts is held to its list.
    let listed = u64::try_from(tests.failed_tests.len()).unwrap_or(u64::MAX);
    let (fail, total) = if listed > tests.fail_count {
        (listed, total.saturating_add(listed - tests.fail_count))
    } else {
        (tests.fail_count, total)
    };
    let rate = (total > 0).then(|| {
        let passed = tests.pass_count as f64 / total as f64;
        (passed * 1000.0).round() / 1000.0
    });
    // Names and errors were redacted as the document was read.
    TestResults {
        fail_count: fail,
        total_count: total,
        pass_rate: rate,
        coverage: None,
        coverage_delta: None,
        ..tests.clone()
    }
}

/// Measured coverage from a document, when it is a ratio: a declared figure is the skill's
/// own (read from its files), never the document's.
fn measured(report: &CoverageReport) -> Option<CoverageReport> {
    (report.source == CoverageSource::Measured && (0.0..=1.0).contains(&report.ratio))
        .then(|| report.clone())
}

/// `sha`, fetched from `origin` when the checkout does not have it.
fn have_commit(git: &Git, sha: &str, what: &str) -> Result<String, Error> {
    if let Ok(found) = git.resolve(sha) {
        return Ok(found);
    }
    fetch_history(git, sha).map_err(|err| {
        Error::usage(
            format!(
                "publish reads the pull request's files from git, and its {what} commit {} is not in the checkout and could not be fetched: {err}",
                short(sha)
            ),
            Some("check out the repository in the publishing job (actions/checkout, `fetch-depth: 0`)"),
        )
    })?;
    Ok(git.resolve(sha)?)
}

/// The commit where `head`'s history left `base`'s.
fn merge_base(git: &Git, base: &str, head: &str) -> Option<String> {
    git.merge_base(base, head)
        .filter(|sha| crate::github::event::is_sha(sha))
}

/// Fetch `sha` from `origin` with its history.
fn fetch_history(git: &Git, sha: &str) -> Result<(), String> {
    if !crate::github::event::is_sha(sha) {
        return Err(format!("`{sha}` is not a commit id"));
    }
    git.fetch_with_history(sha)
}

impl HeadTree {
    /// Every file of `commit`, written out through an index of its own: the checkout, its index
    /// and its working tree are left as they were.
    fn export(git: &Git, commit: &str) -> Result<Self, Error> {
        let dir = tempfile::Builder::new()
            .prefix("skillgate-head-")
            .tempdir()
            .map_err(|err| Error::io("create a directory in", std::env::temp_dir(), err))?;
        let index = dir.path().join("index");
        let tree = dir.path().join("tree");
        git.export_files(commit, &index, &tree)
            .map_err(|err| match err {
                ExportError::Spawn(err) => Error::io("run git in", git.toplevel(), err),
                ExportError::Git(err) => err.into(),
            })?;
        std::fs::create_dir_all(&tree).map_err(|err| Error::io("create", &tree, err))?;
        let _ = std::fs::remove_file(&index);
        // Files are read only inside the repository, compared canonically (a TMPDIR behind a
        // symlink, as macOS has it, would put every file "outside").
        let tree = tree
            .canonicalize()
            .map_err(|err| Error::io("resolve", &tree, err))?;
        Ok(Self { _dir: dir, tree })
    }
}
