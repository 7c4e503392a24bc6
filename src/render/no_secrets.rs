//! The renderers never show a secret: a results document's text is redacted by its types, so a
//! document read from JSON with tokens in it renders without them, whatever the renderer.

use crate::analysis::secrets::testing::fixture_value;
use crate::gate::GateRun;

/// The render fixture with `token` in a failed test's name, error, file and suite, a flaky test's name, a
/// skill's lint finding and a run-level finding: as a pull request's job could write it.
fn document_with(token: &str) -> GateRun {
    let text = include_str!("../../tests/fixtures/render/gate-run.json");
    let mut value: serde_json::Value = serde_json::from_str(text).expect("the fixture is JSON");
    let skill = &mut value["skills"][2];
    assert_eq!(skill["name"], "semver-bump", "a skill with failed tests");
    let failed = &mut skill["tests"]["failed_tests"][0];
    failed["name"] = format!("posts with {token}").into();
    failed["error"] = format!("401 for Authorization: token {token}").into();
    failed["file"] = format!("tests/{token}.py").into();
    failed["suite"] = format!("suite {token}").into();
    skill["tests"]["flaky_tests"] = serde_json::json!([format!("retries {token}")]);
    skill["lint"] = serde_json::json!([{
        "rule": "report-disagrees",
        "severity": "warning",
        "file": ".claude/skills/semver-bump/SKILL.md",
        "message": format!("the output says {token}"),
    }]);
    value["findings"][0]["message"] = format!("a loop at {token}").into();
    serde_json::from_value(value).expect("a results document")
}

#[test]
fn a_document_read_from_json_renders_without_its_secrets() {
    let token = fixture_value("ghp", 7).expect("a fixture token");
    let run = document_with(&token);
    let notes: Vec<String> = Vec::new();
    let output = super::check_output(&run, &notes);
    let annotations = super::annotations(&run);
    let mut shown = vec![
        ("text", super::text(&run)),
        ("markdown", super::markdown(&run)),
        ("json", super::json(&run)),
        ("comment", super::comment(&run, &notes)),
        ("check run summary", output.summary),
        ("check run text", output.text),
    ];
    for annotation in &annotations {
        shown.push(("annotation title", annotation.title.clone()));
        shown.push(("annotation message", annotation.message.clone()));
    }
    let leaking: Vec<&str> = shown
        .iter()
        // Markdown breaks a long run of letters and digits with joiners and escapes `_`: what
        // is left when those are taken out is what a reader copies.
        .filter(|(_, text)| text.replace(['\u{200d}', '\\'], "").contains(&token))
        .map(|(what, _)| *what)
        .collect();
    assert!(leaking.is_empty(), "these show the token: {leaking:?}");
    // Each place was rendered, redacted: the token's prefix is there, its body is not.
    let text = super::text(&run);
    for place in [
        "posts with ghp_",
        "token ghp_",
        "the output says ghp_",
        "a loop at ghp_",
    ] {
        assert!(text.contains(place), "{place}: {text}");
    }
    assert!(super::json(&run).contains("retries ghp_"));
    assert!(
        annotations
            .iter()
            .any(|a| a.title.contains("posts with ghp_") && a.message.contains("token ghp_")),
        "{annotations:?}"
    );
}
