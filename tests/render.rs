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
