//! Causes in front (#15, point 9): the text and Markdown reports show why a test file did not
//! load, reasons come in one order in every row, and no reason restates another. Built on
//! repositories made with real git, with suites that fail the way skill repositories' do.

mod common;

use common::{Repo, run, run_json, skill};

/// pytest's JUnit XML for a suite whose modules fail at collection (a client library that is
/// not installed, a syntax error): `tests/fixtures/causes/generate.sh` made it with pytest 9.2.
const PYTEST_COLLECT_XML: &str = include_str!("fixtures/causes/pytest-collect.xml");

/// The cause pytest printed for the module whose import failed.
const NOTION_CAUSE: &str = "ModuleNotFoundError: No module named 'notion_client'";

fn skill_md(repo: &Repo, dir: &str, name: &str) {
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n# {name}\n"),
    );
}

/// A skill whose suite stands for a pytest run that failed at collection: it writes the
/// committed report where the gate reads reports, and exits as pytest did (2, interrupted).
fn pytest_collection_skill(repo: &Repo, dir: &str) {
    skill_md(repo, dir, "notion-sync");
    repo.write(&format!("{dir}/pytest-report.xml"), PYTEST_COLLECT_XML);
    repo.write(
        &format!("{dir}/test.sh"),
        "cp pytest-report.xml \"$SKILLGATE_REPORT_DIR/pytest.xml\"\nexit 2\n",
    );
}

/// A python unittest suite, run for real, whose second module imports a client library that
/// is not installed.
fn unittest_import_skill(repo: &Repo, dir: &str) {
    skill_md(repo, dir, "page-sync");
    repo.write(
        &format!("{dir}/tests/test_format.py"),
        "import unittest\n\n\nclass FormatTest(unittest.TestCase):\n    \
         def test_title(self):\n        self.assertEqual(\"a b\".title(), \"A B\")\n",
    );
    repo.write(
        &format!("{dir}/tests/test_sync.py"),
        "import unittest\n\nfrom skillgate_causes_client import Client\n\n\n\
         class SyncTest(unittest.TestCase):\n    def test_client(self):\n        \
         self.assertIsNotNone(Client)\n",
    );
}

/// A suite that prints nothing the gate reads and fails: only its exit code speaks.
fn exit_code_skill(repo: &Repo, dir: &str) {
    skill_md(repo, dir, "exit-only");
    repo.write(&format!("{dir}/test.sh"), "echo 'checking'\nexit 1\n");
}

#[test]
fn collection_failures_show_their_cause_in_text_and_markdown() {
    let repo = Repo::git();
    pytest_collection_skill(&repo, "skills/notion-sync");
    repo.commit("a skill whose suite fails at collection");

    let (code, text, stderr) = run(repo.skillgate(&["check", "--all"]));
    assert_eq!(code, 3, "a maintainer looks: {text}\n{stderr}");
    let import = format!("collection failure in tests/test_sync.py: {NOTION_CAUSE}");
    let syntax = "collection failure in tests/test_pages.py: SyntaxError: invalid syntax";
    // In the table, with the decision's reasons...
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("notion-sync"))
        .take_while(|l| !l.is_empty())
        .map(str::trim)
        .collect::<Vec<_>>();
    assert_eq!(
        row[1..],
        [
            "coverage unknown: no coverage report was found",
            syntax,
            import.as_str()
        ],
        "{text}"
    );
    assert!(row[0].ends_with("pass rate 0.00 (0/2) < 0.80"), "{text}");
    // ...and under each failed test, where `collection failure` alone was shown before.
    let failed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("failed tests in notion-sync"))
        .collect();
    assert_eq!(
        failed[..5],
        [
            "failed tests in notion-sync (2 of 2):",
            "  ✗ tests.test_pages (tests/test_pages.py)",
            &format!("      {syntax}"),
            "  ✗ tests.test_sync (tests/test_sync.py)",
            &format!("      {import}"),
        ],
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.trim() == "collection failure"),
        "{text}"
    );

    let (_, markdown, _) = run(repo.skillgate(&["check", "--all", "--format", "markdown"]));
    let escaped = "collection failure in tests/test\\_sync.py: ModuleNotFoundError: No module \
                   named 'notion\\_client'";
    let row = markdown
        .lines()
        .find(|l| l.starts_with("| notion-sync |"))
        .unwrap_or_else(|| panic!("a row for notion-sync: {markdown}"));
    assert!(
        row.ends_with(&format!(
            "| pass rate 0.00 (0/2) &lt; 0.80<br>coverage unknown: no coverage report was \
             found<br>collection failure in tests/test\\_pages.py: SyntaxError: invalid \
             syntax<br>{escaped} |"
        )),
        "{row}"
    );
    assert!(
        markdown.contains(&format!("\n- tests.test\\_sync: {escaped}\n")),
        "{markdown}"
    );

    // The results document keeps the whole message: the cause is picked when shown.
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let sync = &skill(&doc, "notion-sync")["tests"]["failed_tests"][1];
    assert_eq!(sync["name"], "tests.test_sync");
    let error = sync["error"].as_str().expect("an error");
    assert!(
        error.starts_with("collection failure\nImportError while importing"),
        "{error}"
    );
    assert!(error.ends_with(&format!("E   {NOTION_CAUSE}")), "{error}");
}

#[test]
fn a_module_unittest_could_not_import_shows_its_cause() {
    let repo = Repo::git();
    unittest_import_skill(&repo, "skills/page-sync");
    repo.commit("a unittest suite with a module that does not import");

    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let page = skill(&doc, "page-sync");
    assert_eq!(page["tests"]["framework"], "unittest", "{page}");
    assert_eq!(
        (&page["tests"]["pass_count"], &page["tests"]["fail_count"]),
        (&1.into(), &1.into())
    );
    let cause = "load failure in tests/test_sync.py: ModuleNotFoundError: No module named \
                 'skillgate_causes_client'";
    let (_, text, _) = run(repo.skillgate(&["check", "--all"]));
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // Once in the table, once under the failed test.
    assert_eq!(lines.iter().filter(|l| **l == cause).count(), 2, "{text}");
    let (_, markdown, _) = run(repo.skillgate(&["check", "--all", "--format", "markdown"]));
    assert!(
        markdown.contains(&format!("- test\\_sync: {}\n", cause.replace('_', "\\_"))),
        "{markdown}"
    );
}

/// node:test, run for real: a test file that requires a client library that is not installed
/// fails with node's bare `test failed`; the cause is what the file printed before it.
#[test]
fn a_node_test_file_that_did_not_load_shows_its_cause_from_the_skill() {
    let repo = Repo::git();
    let dir = "skills/notion-sync";
    skill_md(&repo, dir, "notion-sync");
    repo.write(
        &format!("{dir}/sync.test.js"),
        "const { test } = require('node:test');\n\
         const { Client } = require('@skillgate-causes/client');\n\
         test('syncs a page', () => new Client());\n",
    );
    repo.write(
        &format!("{dir}/format.test.js"),
        "const { test } = require('node:test');\ntest('formats', () => {});\n",
    );
    repo.commit("a node:test suite with a file that does not load");

    let (_, text, _) = run(repo.skillgate(&["check", "--all"]));
    let cause =
        "load failure in sync.test.js: Error: Cannot find module '@skillgate-causes/client'";
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // Once in the table, once under the failed test, which is named from the skill, not by
    // the runner's absolute path.
    assert_eq!(lines.iter().filter(|l| **l == cause).count(), 2, "{text}");
    assert!(lines.contains(&"✗ sync.test.js (sync.test.js:1)"), "{text}");
    assert!(!text.contains(&repo.path().display().to_string()), "{text}");
}

#[test]
fn reasons_restate_nothing_and_keep_one_order() {
    let repo = Repo::git();
    skill_md(&repo, "skills/no-suite", "no-suite");
    exit_code_skill(&repo, "skills/exit-only");
    pytest_collection_skill(&repo, "skills/notion-sync");
    repo.commit("three ways a suite proves nothing");

    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let none = &skill(&doc, "no-suite")["decision"];
    assert_eq!(none["tier"], "human");
    assert_eq!(none["reasons"], serde_json::json!(["no test suite"]));
    // The check left out of the reasons is in the document.
    assert_eq!(none["criteria"]["test_coverage"]["passed"], false);
    assert_eq!(
        none["criteria"]["test_coverage"]["actual"],
        serde_json::Value::Null
    );

    // The exit code is the whole pass rate: one reason says so, and stands for the tier.
    let exit = &skill(&doc, "exit-only")["decision"];
    assert_eq!(exit["tier"], "human");
    assert_eq!(
        exit["reasons"],
        serde_json::json!([
            "no test results could be read (exit code 1 only)",
            "coverage unknown: no coverage report was found"
        ])
    );
    assert_eq!(exit["criteria"]["test_pass_rate"]["passed"], false);

    // Every row lists what needs a maintainer before what needs an expert, and the criteria
    // in one order within each: the pass rate, then coverage.
    for name in ["no-suite", "exit-only", "notion-sync"] {
        let reasons: Vec<&str> = skill(&doc, name)["decision"]["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        let at = |prefix: &str| reasons.iter().position(|r| r.starts_with(prefix));
        if let (Some(rate), Some(coverage)) = (at("pass rate"), at("coverage")) {
            assert!(rate < coverage, "{name}: {reasons:?}");
        }
        assert!(
            !reasons
                .iter()
                .any(|r| r.starts_with("coverage unknown: the suite did not run")),
            "{name}: {reasons:?}"
        );
    }

    let (_, text, _) = run(repo.skillgate(&["check", "--all"]));
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("SKILL "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    let lines: Vec<&str> = table.iter().map(|l| l.trim()).collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[0].starts_with("exit-only"), "{text}");
    assert!(
        lines[0].ends_with("no test results could be read (exit code 1 only)"),
        "{text}"
    );
    assert_eq!(lines[1], "coverage unknown: no coverage report was found");
    assert!(lines[2].starts_with("no-suite"), "{text}");
    assert!(lines[2].ends_with("no test suite"), "{text}");
    assert!(lines[3].starts_with("notion-sync"), "{text}");
    assert!(lines[3].ends_with("pass rate 0.00 (0/2) < 0.80"), "{text}");
    assert_eq!(
        lines[4..],
        [
            "coverage unknown: no coverage report was found",
            "collection failure in tests/test_pages.py: SyntaxError: invalid syntax",
            &format!("collection failure in tests/test_sync.py: {NOTION_CAUSE}"),
        ]
    );
}
