//! The bundled example repository gives every tier, each for its real reason: its suites run
//! (bash, python3, node's test runner), their reports and coverage are read, the gate decides.

mod common;

use std::path::Path;

use common::{copy_tree, run, skillgate, verdicts};

#[test]
fn the_examples_give_auto_escalate_and_human_for_honest_reasons() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("examples");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &repo,
    );
    let mut cmd = skillgate();
    cmd.args(["check", "--all", "--format", "json", "--repo"])
        .arg(&repo);
    let (code, stdout, stderr) = run(cmd);
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(code, 3, "review required: {stderr}");
    let got: Vec<(String, String)> = verdicts(&doc).into_iter().map(|v| (v.0, v.2)).collect();
    let want = [
        ("commit-message-style", "human"),
        ("csv-summary", "escalate"),
        ("semver-bump", "human"),
        ("slugify-title", "auto"),
        ("todo-scan", "escalate"),
    ];
    assert_eq!(
        got,
        want.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
    );

    let skill = |name: &str| common::skill(&doc, name).clone();
    let slugify = skill("slugify-title");
    assert_eq!(slugify["tests"]["pass_count"], 14);
    assert_eq!(slugify["tests"]["fail_count"], 0);
    assert_eq!(slugify["coverage"]["source"], "measured");
    assert_eq!(slugify["coverage"]["unit"], "lines");
    assert_eq!(slugify["coverage"]["lines_covered"], 79);
    assert_eq!(slugify["coverage"]["lines_total"], 81);

    let csv = skill("csv-summary");
    assert_eq!(csv["tests"]["pass_count"], 16);
    assert_eq!(csv["tests"]["framework"], "junit");
    assert_eq!(csv["coverage"]["lines_covered"], 81);
    assert_eq!(csv["coverage"]["lines_total"], 89);
    assert_eq!(
        csv["decision"]["reasons"][0],
        "coverage 0.91 < 0.95 (measured, lcov)"
    );
    assert_eq!(csv["decision"]["escalation_categories"][0], "coverage");

    let semver = skill("semver-bump");
    assert_eq!(semver["tests"]["pass_count"], 3);
    assert_eq!(semver["tests"]["fail_count"], 2);
    assert_eq!(
        semver["decision"]["reasons"][0],
        "pass rate 0.60 (3/5) < 0.80"
    );
    let failed: Vec<&str> = semver["tests"]["failed_tests"]
        .as_array()
        .expect("failed")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");

    let style = skill("commit-message-style");
    assert_eq!(style["decision"]["reasons"][0], "no test suite");

    let todo = skill("todo-scan");
    assert_eq!(todo["tests"]["pass_count"], 7);
    assert_eq!(todo["tests"]["framework"], "summary");
    assert_eq!(
        todo["decision"]["reasons"][0],
        "coverage unknown: no coverage report was found"
    );

    // The README's next steps: the week's report and a seed query on the trail just written.
    let mut report = skillgate();
    report
        .args(["report", "--format", "json", "--repo"])
        .arg(&repo);
    let (code, stdout, stderr) = run(report);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(doc["decisions_in_window"], 5);
    let tiers: Vec<(String, u64)> = doc["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .find(|s| s["section"] == "gate-performance")
        .and_then(|s| s["data"].as_array())
        .expect("gate performance")
        .iter()
        .map(|t| {
            (
                t["approval_level"].as_str().expect("tier").to_owned(),
                t["total"].as_u64().expect("total"),
            )
        })
        .collect();
    assert_eq!(
        tiers,
        [
            ("auto".to_owned(), 1),
            ("escalate".to_owned(), 2),
            ("human".to_owned(), 2)
        ]
    );
    let mut query = skillgate();
    query
        .args(["query", "gate-performance", "--format", "json", "--repo"])
        .arg(&repo);
    let (code, stdout, stderr) = run(query);
    assert_eq!(code, 0, "{stderr}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).expect("json rows");
    assert_eq!(rows.as_array().map(Vec::len), Some(3), "{rows}");
}
