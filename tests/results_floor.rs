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
    assert_ne!(partial["decision"]["tier"], "auto");
    assert_eq!(
        findings(partial, "report-disagrees"),
        [
            "read 3 passed, 0 failed, 0 skipped from junit.xml (junit); the plain closing line \
          in stdout says 3 passed, 2 failed, 0 skipped; counted 3 passed, 2 failed, 0 skipped \
          (the worse reading)"
        ]
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
