//! The renderers on a fixed results document (the examples' run, with hostile text added):
//! reviewed as snapshots, like code.

use skillgate::gate::GateRun;
use skillgate::render;

fn fixture() -> GateRun {
    let text = include_str!("fixtures/render/gate-run.json");
    serde_json::from_str(text).expect("the fixture is a results document")
}

#[test]
fn text_report() {
    let text = render::text(&fixture());
    assert!(
        !text.contains('\u{1b}'),
        "no terminal escapes from tests reach the screen"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn markdown_report_escapes_what_came_from_tests() {
    let markdown = render::markdown(&fixture());
    assert!(!markdown.contains("@octocat"), "no mention pings");
    assert!(!markdown.contains("<b>"), "no raw HTML from tests");
    insta::assert_snapshot!(markdown);
}

#[test]
fn json_round_trips() {
    let run = fixture();
    let again: GateRun = serde_json::from_str(&render::json(&run)).expect("json parses");
    assert_eq!(again, run);
}

/// The fixture with `semver-bump`'s suite replaced by a pytest run whose modules failed at
/// collection (`tests/fixtures/causes/pytest-collect.xml`, made by pytest 9.2), every skill
/// decided again by today's policy.
fn collection_failures() -> GateRun {
    let mut run = fixture();
    let report = std::path::Path::new("tests/fixtures/causes/pytest-collect.xml");
    let read = skillgate::results::read_report_file(report)
        .expect("the report reads")
        .expect("it holds results");
    let semver = run
        .skills
        .iter_mut()
        .find(|s| s.name == "semver-bump")
        .expect("semver-bump");
    semver.tests = Some(skillgate::gate::TestResults::from_run(
        &read,
        210,
        "2026-12-01T14:25:23Z",
        None,
        None,
    ));
    semver.signals.tests = Some(skillgate::signals::TestCounts {
        passed: read.passed,
        failed: read.failed,
        skipped: read.skipped,
    });
    let policy = skillgate::policy::Policy::default();
    for skill in &mut run.skills {
        skill.decision = skillgate::policy::decide(&skill.signals, &policy);
    }
    run
}

#[test]
fn reports_show_why_test_files_did_not_load() {
    let run = collection_failures();
    let text = render::text(&run);
    insta::assert_snapshot!("text_report_collection_failures", text);
    let markdown = render::markdown(&run);
    insta::assert_snapshot!("markdown_report_collection_failures", markdown);
    for report in [&text, &markdown] {
        assert!(
            report.contains("ModuleNotFoundError: No module named 'notion"),
            "{report}"
        );
        assert!(!report.contains("\n      collection failure\n"), "{report}");
    }
}
