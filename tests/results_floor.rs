//! What a suite says of itself, end to end: a framework's closing summary is the floor of its
//! counts, an exit code alone is not a test result, and an empty coverage report is no coverage.
//! Every suite here exits 0 and writes full coverage, so only the reading stands between it and
//! `auto`; the first test shows that such a suite is approved when its results are read.

mod common;

use common::{Repo, run, run_json};

/// A skill whose `test.sh` writes an lcov report covering every line, then runs `body`.
fn skill(repo: &Repo, name: &str, body: &str) {
    let dir = format!(".claude/skills/{name}");
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n# {name}\n"),
    );
    repo.write(&format!("{dir}/lib.sh"), "echo hi\n");
    repo.write(
        &format!("{dir}/test.sh"),
        &format!(
            "printf 'SF:lib.sh\\nDA:1,1\\nend_of_record\\n' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\n{body}\nexit 0\n"
        ),
    );
}

/// A committed report fixture, as a suite prints it.
fn fixture(rel: &str) -> String {
    format!(
        "{}/tests/fixtures/reports/{rel}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn findings<'d>(skill: &'d serde_json::Value, rule: &str) -> Vec<&'d str> {
    skill["lint"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["rule"] == rule)
        .filter_map(|f| f["message"].as_str())
        .collect()
}

#[test]
fn a_suite_whose_results_are_read_and_clean_is_approved() {
    let repo = Repo::plain();
    skill(
        &repo,
        "clean",
        "echo '1..3'; echo 'ok 1 - a'; echo 'ok 2 - b'; echo 'ok 3 - c'",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let clean = &doc["skills"][0];
    assert_eq!(clean["decision"]["tier"], "auto", "{clean}");
    assert_eq!(clean["tests"]["pass_count"], 3);
    assert!(clean["tests"].get("source").is_none(), "{clean}");
    assert!(findings(clean, "report-disagrees").is_empty());
    assert_eq!(code, 0);
}

#[test]
fn a_summary_with_more_failures_than_the_report_is_the_floor() {
    let repo = Repo::plain();
    // The JUnit report lists three passing cases; the closing line the suite prints says two
    // more tests ran and failed.
    skill(
        &repo,
        "partial",
        "cat > \"$SKILLGATE_REPORT_DIR/junit.xml\" <<'EOF'\n\
         <testsuites><testsuite name=\"s\"><testcase name=\"a\"/><testcase name=\"b\"/><testcase name=\"c\"/></testsuite></testsuites>\n\
         EOF\n\
         echo 'Results: 3 passed, 2 failed'",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let partial = &doc["skills"][0];
    assert_eq!(partial["tests"]["pass_count"], 3);
    assert_eq!(partial["tests"]["fail_count"], 2);
    assert_eq!(partial["tests"]["total_count"], 5);
    assert_eq!(partial["decision"]["tier"], "human");
    assert_eq!(
        findings(partial, "report-disagrees"),
        [
            "read 3 passed, 0 failed, 0 skipped from junit.xml (junit); the plain closing line \
          in stdout says 3 passed, 2 failed, 0 skipped; counted 3 passed, 2 failed, 0 skipped"
        ]
    );
    let reasons = partial["decision"]["reasons"].to_string();
    assert!(
        reasons.contains(
            "test counts disagree: read 3 passed, 0 failed, 0 skipped, but the plain closing \
             line says 3 passed, 2 failed, 0 skipped; counted 3 passed, 2 failed, 0 skipped"
        ),
        "{reasons}"
    );
    assert_eq!(code, 3);

    // The text report shows the finding too.
    let (_, stdout, _) = run(repo.skillgate(&["check", "--all"]));
    assert!(
        stdout.contains("warning[report-disagrees]: read 3 passed, 0 failed, 0 skipped"),
        "{stdout}"
    );
}

#[test]
fn an_exit_code_alone_is_not_a_test_result() {
    let repo = Repo::plain();
    skill(
        &repo,
        "silent",
        "echo 'checking the slugs...'\necho 'all good'",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let silent = &doc["skills"][0];
    assert_eq!(silent["decision"]["tier"], "escalate", "{silent}");
    assert_eq!(
        silent["decision"]["escalation_categories"][0],
        "test-results"
    );
    assert_eq!(
        silent["decision"]["reasons"][0],
        "no test results could be read (exit code 0 only)"
    );
    assert_eq!(
        silent["decision"]["criteria"]["test_results"]["passed"],
        false
    );
    assert_eq!(silent["tests"]["source"], "exit-code");
    assert_eq!(silent["tests"]["format"], "exit-code");
    let finding = findings(silent, "results-unreadable");
    assert_eq!(finding.len(), 1);
    assert!(
        finding[0].contains(
            "only its exit code 0; its output begins: `checking the slugs...` / `all good`"
        ),
        "{}",
        finding[0]
    );
    assert!(finding[0].contains("`test-report`"), "{}", finding[0]);
    assert_eq!(code, 3);
}

#[test]
fn an_empty_coverage_report_is_unknown_coverage_naming_it() {
    let repo = Repo::plain();
    skill(
        &repo,
        "hollow",
        ": > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..1'; echo 'ok 1 - a'",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let hollow = &doc["skills"][0];
    assert!(
        hollow.get("coverage").is_none_or(|c| c.is_null()),
        "{hollow}"
    );
    assert_eq!(hollow["decision"]["tier"], "escalate");
    assert_eq!(
        hollow["decision"]["reasons"][0],
        "coverage unknown: the coverage report lcov.info is empty"
    );
}

#[test]
fn the_issues_mocha_run_counts_its_five_failures() {
    // The issue's case: mocha's default reporter printed `3 passing`, `5 pending`, `5 failing`
    // and the wrapper exited 0 with full coverage. It was read as 1.00 (3/3).
    let repo = Repo::plain();
    skill(
        &repo,
        "mocha-wrapped",
        &format!(
            "cat '{}'",
            fixture("mocha-spec/issue.spec.color.stdout.txt")
        ),
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    let tests = &skill["tests"];
    assert_eq!(tests["format"], "mocha-spec");
    assert_eq!(
        (
            &tests["pass_count"],
            &tests["fail_count"],
            &tests["skip_count"]
        ),
        (
            &serde_json::json!(3),
            &serde_json::json!(5),
            &serde_json::json!(5)
        )
    );
    assert_eq!(tests["failed_tests"].as_array().map(Vec::len), Some(5));
    assert_eq!(skill["decision"]["tier"], "human");
    assert_eq!(code, 3);
}

#[test]
fn the_issues_jest_and_vitest_runs_count_their_failures() {
    // jest's default reporter prints on stderr, vitest's on both streams; each wrapper exits
    // 0 with full coverage. jest's run was read as one passing test (the exit code) and
    // approved.
    for (name, stdout, stderr, format) in [
        (
            "jest-wrapped",
            "jest-text/issue.stdout.txt",
            "jest-text/issue.color.stderr.txt",
            "jest-text",
        ),
        (
            "vitest-wrapped",
            "vitest-text/issue.stdout.txt",
            "vitest-text/issue.stderr.txt",
            "vitest-text",
        ),
    ] {
        let repo = Repo::plain();
        skill(
            &repo,
            name,
            &format!("cat '{}'\ncat '{}' >&2", fixture(stdout), fixture(stderr)),
        );
        let (code, doc) = run_json(&repo, &["check", "--all"]);
        let skill = &doc["skills"][0];
        let tests = &skill["tests"];
        assert_eq!(tests["format"], format, "{name}");
        assert_eq!(
            (
                &tests["pass_count"],
                &tests["fail_count"],
                &tests["skip_count"]
            ),
            (
                &serde_json::json!(7),
                &serde_json::json!(5),
                &serde_json::json!(0)
            ),
            "{name}"
        );
        assert_eq!(
            tests["failed_tests"].as_array().map(Vec::len),
            Some(5),
            "{name}"
        );
        assert!(
            findings(skill, "report-disagrees").is_empty(),
            "{name}: {skill}"
        );
        assert_eq!(skill["decision"]["tier"], "human", "{name}");
        assert_eq!(code, 3);
    }
}

#[test]
fn counts_that_disagree_never_approve_even_when_the_summary_is_kinder() {
    // The report names 18 passes and a failure (0.947); the closing line says 19 passed. The
    // summary's counts are taken (0.95), but contradicting evidence is not settled evidence.
    let mut cases = String::new();
    for i in 0..18 {
        cases.push_str(&format!("<testcase name=\"t{i}\"/>"));
    }
    cases.push_str("<testcase name=\"bad\"><failure message=\"no\"/></testcase>");
    let repo = Repo::plain();
    skill(
        &repo,
        "kinder",
        &format!(
            "echo '<testsuites><testsuite name=\"s\">{cases}</testsuite></testsuites>' > \"$SKILLGATE_REPORT_DIR/junit.xml\"\necho 'Results: 19 passed, 1 failed'"
        ),
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let kinder = &doc["skills"][0];
    assert_eq!(kinder["tests"]["pass_count"], 19);
    assert_eq!(kinder["tests"]["fail_count"], 1);
    assert_eq!(kinder["decision"]["tier"], "escalate", "{kinder}");
    assert_eq!(
        kinder["decision"]["escalation_categories"][0],
        "test-results"
    );
    assert_eq!(
        kinder["decision"]["criteria"]["test_results"]["actual"],
        "disagree"
    );
}

#[test]
fn a_tally_a_test_printed_midway_is_not_the_suites_summary() {
    // A test of a command-line tool prints its tally; the suite's own TAP goes on after it.
    let repo = Repo::plain();
    skill(
        &repo,
        "cli",
        "echo '1..3'; echo 'ok 1 - a'; echo 'Results: 2 passed, 1 failed'; echo 'ok 2 - b'; echo 'ok 3 - c'",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let cli = &doc["skills"][0];
    assert_eq!(cli["tests"]["pass_count"], 3);
    assert_eq!(cli["tests"]["fail_count"], 0);
    assert!(findings(cli, "report-disagrees").is_empty(), "{cli}");
    assert_eq!(cli["decision"]["tier"], "auto", "{cli}");
    assert_eq!(code, 0);
}

#[test]
fn a_stream_that_cannot_be_read_does_not_hide_the_others_summary() {
    // The report names three passes; stdout holds a jest document cut short (the output cap
    // does that); stderr closes with a line that says two more failed.
    let repo = Repo::plain();
    skill(
        &repo,
        "cut",
        "echo '<testsuites><testsuite name=\"s\"><testcase name=\"a\"/><testcase name=\"b\"/><testcase name=\"c\"/></testsuite></testsuites>' > \"$SKILLGATE_REPORT_DIR/junit.xml\"\n\
         printf '{\"numFailedTestSuites\":0,\"numFailedTests\":0,\"testResults\":[{' \n\
         echo 'Results: 3 passed, 2 failed' >&2",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let cut = &doc["skills"][0];
    assert_eq!(cut["tests"]["fail_count"], 2, "{cut}");
    assert_eq!(cut["decision"]["tier"], "human");
    assert_eq!(findings(cut, "report-disagrees").len(), 1);
}

#[test]
fn coverage_in_two_units_keeps_the_lower() {
    // Lines: 1 of 4, then 96 of 96 (97 %); statements: 1 of 2 (50 %). They do not add up, and
    // a later report in one unit cannot raise what the other measured.
    let repo = Repo::plain();
    let mut lines = String::from("SF:lib.sh\\n");
    for line in 1..=96 {
        lines.push_str(&format!("DA:{line},1\\n"));
    }
    lines.push_str("end_of_record\\n");
    skill(
        &repo,
        "mixed",
        &format!(
            "printf 'SF:lib.sh\\nDA:1,1\\nDA:2,0\\nDA:3,0\\nDA:4,0\\nend_of_record\\n' > \"$SKILLGATE_REPORT_DIR/a.info\"\n\
             printf 'mode: set\\nx.go:1.1,2.1 1 1\\nx.go:3.1,4.1 1 0\\n' > \"$SKILLGATE_REPORT_DIR/cover.out\"\n\
             printf '{lines}' > \"$SKILLGATE_REPORT_DIR/z.info\"\n\
             rm \"$SKILLGATE_REPORT_DIR/lcov.info\"\n\
             echo '1..1'; echo 'ok 1 - a'"
        ),
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let mixed = &doc["skills"][0];
    assert_eq!(mixed["coverage"]["ratio"], 0.5, "{mixed}");
    assert_eq!(mixed["coverage"]["unit"], "statements");
    assert_eq!(mixed["coverage"]["statements_covered"], 1);
    assert_eq!(mixed["decision"]["tier"], "human");
    assert_eq!(
        findings(mixed, "coverage-mixed"),
        [
            "the coverage reports count lines 0.97 (lcov) and statements 0.50 (go-cover): they do \
          not add up, so the lowest, 0.50 (go-cover statements), is used"
        ]
    );
}

#[test]
fn an_empty_declared_coverage_report_is_named() {
    let repo = Repo::plain();
    skill(
        &repo,
        "declared",
        "mkdir -p out; : > out/results.dat\necho '1..1'; echo 'ok 1 - a'",
    );
    repo.write(
        ".claude/skills/declared/SKILL.md",
        "---\nname: declared\ndescription: Declares its coverage file.\nmetadata:\n  coverage-report: out/results.dat\n---\n",
    );
    // The lcov the helper writes is made empty too, so only the declared file names coverage.
    let script = std::fs::read_to_string(repo.path().join(".claude/skills/declared/test.sh"))
        .expect("script")
        .replace("DA:1,1\\n", "");
    repo.write(".claude/skills/declared/test.sh", &script);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let declared = &doc["skills"][0];
    let reason = declared["decision"]["reasons"].to_string();
    assert!(
        reason.contains("coverage unknown: the coverage report out/results.dat is empty; the lcov report lcov.info covers nothing (0 of 0 lines)"),
        "{reason}"
    );
}

#[test]
fn two_frameworks_in_one_output_count_both_and_settle() {
    // `pytest && node --test`: pytest's 4 passes are read, node's TAP summary says 3 more
    // leaves passed (4 tests, one of them the parent of the others).
    let repo = Repo::plain();
    skill(
        &repo,
        "both",
        &format!(
            "cat '{}'\ncat '{}'",
            fixture("pytest/pass-plain.txt"),
            fixture("tap/node-hooks.tap")
        ),
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let both = &doc["skills"][0];
    assert_eq!(both["tests"]["format"], "pytest");
    assert_eq!(both["tests"]["pass_count"], 7, "{both}");
    assert_eq!(both["tests"]["fail_count"], 0);
    assert!(findings(both, "report-disagrees").is_empty(), "{both}");
    assert_eq!(both["decision"]["tier"], "auto", "{both}");
    assert_eq!(code, 0);
}
