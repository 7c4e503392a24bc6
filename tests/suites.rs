//! Suite detection on skills written like real ones (issue #15, point 8): a CLI named like a
//! test is no pytest suite, but once pytest runs it runs every file it collects; `node --test`
//! runs what node's own patterns match; bun and bats suites are recognised, and a missing tool is
//! named with the command that installs it; tests of a framework the suite does not run are
//! named and escalate, in `check` and again in `publish`. The reports bun and bats write are read
//! from real outputs (`tests/fixtures/reports/{bun,bats}`).

mod common;
mod support;

use std::path::PathBuf;

use common::{Repo, run, skillgate};
use support::tools;

fn fixture(rel: &str) -> String {
    format!(
        "{}/tests/fixtures/reports/{rel}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `skillgate parse FILE`: (passed, failed, skipped).
fn counts(rel: &str) -> (u64, u64, u64) {
    let mut cmd = skillgate();
    cmd.arg("parse").arg(fixture(rel));
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let tests = &doc["tests"];
    let n = |k: &str| tests[k].as_u64().unwrap_or(u64::MAX);
    (n("pass_count"), n("fail_count"), n("skip_count"))
}

#[test]
fn bun_and_bats_reports_read_as_their_summaries_say() {
    // bun: ` 2 pass / 1 skip / 1 fail` (mixed.stdout.txt).
    assert_eq!(counts("bun/mixed.xml"), (2, 1, 1));
    // bats: `1..4`, `ok 3 later # skip`, `not ok 4` (mixed.tap), in JUnit and TAP alike.
    assert_eq!(counts("bats/mixed.xml"), (2, 1, 1));
    assert_eq!(counts("bats/mixed.tap"), (2, 1, 1));
    // A failing `setup_file` is bats' fifth case, `setup_file failed`.
    assert_eq!(counts("bats/broken.xml"), (2, 2, 1));
    assert_eq!(counts("bats/broken.tap"), (2, 2, 1));
}

#[test]
fn buns_lcov_reads_as_its_lines() {
    let mut cmd = skillgate();
    cmd.arg("parse")
        .arg(fixture("bun/mixed.xml"))
        .arg("--coverage")
        .arg(fixture("bun/mixed.lcov.info"));
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    // `LF:4`, `LH:3`: the branch for "C" is never reached.
    assert_eq!(doc["coverage"]["lines_total"], 4, "{doc}");
    assert_eq!(doc["coverage"]["lines_covered"], 3, "{doc}");
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill, for tests.\n---\n# {name}\n")
}

/// `PATH` with pytest's venv first and no directory that holds `bun` or `bats`: the tests of
/// missing tools do not depend on what this machine has.
fn path_without_bun_or_bats(first: PathBuf) -> std::ffi::OsString {
    let rest: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|dir| !dir.join("bun").exists() && !dir.join("bats").exists())
        .collect();
    std::env::join_paths(std::iter::once(first).chain(rest)).expect("PATH")
}

const CLI: &str = "#!/usr/bin/env python3\n\"\"\"Check that an API token works.\"\"\"\nimport \
                   argparse\nimport urllib.request\n\n\ndef test_api_authentication(token, \
                   api_url):\n    request = urllib.request.Request(api_url, headers={\"Authorization\": \
                   token})\n    return urllib.request.urlopen(request).status == 200\n\n\nif \
                   __name__ == \"__main__\":\n    parser = argparse.ArgumentParser()\n    \
                   parser.add_argument(\"--token\", required=True)\n    \
                   parser.add_argument(\"--api-url\", required=True)\n    args = \
                   parser.parse_args()\n    print(test_api_authentication(args.token, \
                   args.api_url))\n";

const NODE_TEST: &str = "const test = require(\"node:test\");\nconst assert = \
                         require(\"node:assert\");\ntest(\"adds\", () => \
                         assert.strictEqual(1 + 1, 2));\n";

/// A harness run by hand: under `test/`, so node's own scan runs it, and it fails.
const HARNESS: &str = "// Run by hand against a live server: node test/live-harness.js\n\
                       console.error(\"no server\");\nprocess.exit(1);\n";

#[test]
fn skills_get_the_suites_their_files_are_and_missing_tools_are_named_with_their_install() {
    let venv_bin = tools::python_with_pytest();
    let repo = Repo::git();
    let skill = |name: &str, files: &[(&str, &str)]| {
        repo.write(&format!("skills/{name}/SKILL.md"), &skill_md(name));
        for (rel, text) in files {
            repo.write(&format!("skills/{name}/{rel}"), text);
        }
    };
    skill("api-auth-cli", &[("scripts/test_api_auth.py", CLI)]);
    skill(
        "api-auth",
        &[
            ("scripts/test_api_auth.py", CLI),
            (
                "tests/test_slug.py",
                "def test_slug(tmp_path):\n    assert \"a b\".replace(\" \", \"-\") == \"a-b\"\n",
            ),
        ],
    );
    skill(
        "node-harness",
        &[
            ("test/grade.test.js", NODE_TEST),
            ("test/live-harness.js", HARNESS),
        ],
    );
    skill(
        "bun-grade",
        &[
            ("bunfig.toml", "[test]\n"),
            (
                "grade.test.ts",
                "import { expect, test } from \"bun:test\";\ntest(\"a\", () => \
                 expect(1).toBe(1));\n",
            ),
        ],
    );
    skill(
        "bats-grade",
        &[("tests/grade.bats", "@test \"true is true\" {\n  true\n}\n")],
    );
    repo.commit("skills");

    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--all",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", path_without_bun_or_bats(venv_bin));
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));

    // The CLI alone is no suite; beside a real test, pytest runs it too, and it errors with
    // its cause.
    let cli = common::skill(&doc, "api-auth-cli");
    assert!(cli["suite"]["framework"].is_null(), "{cli}");
    assert!(cli["tests"].is_null(), "{cli}");
    let auth = common::skill(&doc, "api-auth");
    assert_eq!(auth["suite"]["framework"], "pytest", "{auth}");
    assert!(
        !auth["suite"]["command"]
            .as_str()
            .is_some_and(|c| c.contains("--ignore")),
        "{auth}"
    );
    assert_eq!(
        (&auth["tests"]["pass_count"], &auth["tests"]["fail_count"]),
        (&1.into(), &1.into()),
        "{auth}"
    );
    let failed = auth["tests"]["failed_tests"].to_string();
    assert!(failed.contains("fixture 'token' not found"), "{failed}");

    // node runs what its own scan would: the harness under `test/` too, which fails.
    let node = common::skill(&doc, "node-harness");
    assert_eq!(
        node["suite"]["command"],
        "node --test --test-reporter=tap \
         --test-reporter-destination=\"$SKILLGATE_REPORT_DIR\"/node-test.tap \
         --test-reporter=spec --test-reporter-destination=stdout test/grade.test.js \
         test/live-harness.js",
        "{node}"
    );
    assert_eq!(
        (&node["tests"]["pass_count"], &node["tests"]["fail_count"]),
        (&1.into(), &1.into()),
        "{node}"
    );

    // bun and bats are recognised, and their absence says how to install them.
    for (name, framework, outcome) in [
        (
            "bun-grade",
            "bun",
            "not run: bun suite found, but `bun` is not installed (help: run `npm install -g \
             bun`)",
        ),
        (
            "bats-grade",
            "bats",
            "not run: bats suite found, but `bats` is not installed (help: run `apt-get install \
             bats`, or see https://bats-core.readthedocs.io/en/stable/installation.html)",
        ),
    ] {
        let skill = common::skill(&doc, name);
        assert_eq!(skill["suite"]["framework"], framework, "{skill}");
        assert_eq!(skill["suite"]["outcome"], outcome, "{skill}");
    }
}

const CALC: &str = "def add(a, b):\n    return a + b\n";

/// Put the skill's directory on `sys.path`, as the skills' own conftests do.
const PATH_CONFTEST: &str = "import os\nimport sys\n\nsys.path.insert(0, \
                             os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n";

/// A passing test, beside which each skill hides a failing one.
const OK_TEST: &str = "from calc import add\n\n\ndef test_ok():\n    assert add(1, 1) == 2\n";

#[test]
fn failing_tests_dressed_as_something_else_still_run() {
    let venv_bin = tools::python_with_pytest();
    let repo = Repo::git();
    // A repository-wide pytest configuration and fixtures, as monorepos keep them.
    repo.write("pytest.ini", "[pytest]\n");
    repo.write(
        "conftest.py",
        "import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return (2, 2)\n",
    );
    let failing: &[(&str, &[(&str, &str)])] = &[
        (
            "argparse-guard",
            &[(
                "tests/test_cli.py",
                "import argparse\nfrom calc import add\n\n\ndef test_add_big():\n    assert \
                 add(10**6, 1) == 10**6\n\n\nif __name__ == \"__main__\":\n    \
                 argparse.ArgumentParser(description=\"by hand\").parse_args()\n    \
                 test_add_big()\n",
            )],
        ),
        (
            "patched",
            &[(
                "tests/test_mocked.py",
                "from unittest.mock import patch\n\nimport calc\n\n\n@patch(\"calc.add\")\ndef \
                 test_add_is_used(add_mock):\n    add_mock.return_value = 5\n    assert \
                 calc.add(1, 1) == 6\n",
            )],
        ),
        (
            "plugged",
            &[
                (
                    "tests/fixtures_numbers.py",
                    "import pytest\n\n\n@pytest.fixture\ndef numbers():\n    return (2, 2)\n",
                ),
                (
                    "tests/test_plug.py",
                    "pytest_plugins = [\"fixtures_numbers\"]\nfrom calc import add\n\n\ndef \
                     test_add_numbers(numbers):\n    assert add(*numbers) == 5\n",
                ),
            ],
        ),
        (
            "imported-fixture",
            &[
                (
                    "tests/helpers.py",
                    "import pytest\n\n\n@pytest.fixture\ndef pair():\n    return (2, 2)\n",
                ),
                (
                    "tests/test_imp.py",
                    "from helpers import pair\nfrom calc import add\n\n\ndef \
                     test_add_pair(pair):\n    assert add(*pair) == 5\n",
                ),
            ],
        ),
        (
            "root-conftest",
            &[(
                "tests/test_shared.py",
                "from calc import add\n\n\ndef test_add_numbers(numbers):\n    assert \
                 add(*numbers) == 5\n",
            )],
        ),
    ];
    for (name, files) in failing {
        repo.write(&format!("skills/{name}/SKILL.md"), &skill_md(name));
        repo.write(&format!("skills/{name}/calc.py"), CALC);
        repo.write(&format!("skills/{name}/tests/conftest.py"), PATH_CONFTEST);
        repo.write(&format!("skills/{name}/tests/test_ok.py"), OK_TEST);
        for (rel, text) in *files {
            repo.write(&format!("skills/{name}/{rel}"), text);
        }
    }
    // A jest skill whose formatter runs through bunx: jest runs, not bun.
    repo.write("skills/jest-bunx/SKILL.md", &skill_md("jest-bunx"));
    repo.write(
        "skills/jest-bunx/package.json",
        "{\"private\":true,\"scripts\":{\"test\":\"jest\",\"format\":\"bunx prettier --write \
         .\"}}\n",
    );
    repo.write(
        "skills/jest-bunx/slug.test.js",
        "test(\"slug\", () => expect(\"a b\".replace(\" \", \"-\")).toBe(\"a_b\"));\n",
    );
    // node:test beside a plain script that throws: node runs both.
    repo.write("skills/node-plain/SKILL.md", &skill_md("node-plain"));
    repo.write("skills/node-plain/test/ok.test.js", NODE_TEST);
    repo.write(
        "skills/node-plain/test/plain.test.js",
        "const assert = require(\"node:assert\");\nassert.strictEqual(\"a\", \"b\");\n",
    );
    repo.write(".gitignore", "node_modules/\n");
    repo.commit("skills");
    tools::copy_tree(
        &tools::jest_install().join("node_modules"),
        &repo.path().join("node_modules"),
    );

    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--all",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", path_without_bun_or_bats(venv_bin));
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    for (name, framework) in failing
        .iter()
        .map(|(name, _)| (*name, "pytest"))
        .chain([("jest-bunx", "jest"), ("node-plain", "node:test")])
    {
        let skill = common::skill(&doc, name);
        assert_eq!(skill["suite"]["framework"], framework, "{skill}");
        assert!(
            skill["tests"]["fail_count"]
                .as_u64()
                .is_some_and(|n| n >= 1),
            "{name}: {skill}"
        );
        assert_ne!(skill["decision"]["tier"], "auto", "{name}: {skill}");
    }
    // Each hidden test ran and failed on its own assertion: the fixtures were supplied.
    for name in ["plugged", "imported-fixture", "root-conftest"] {
        let skill = common::skill(&doc, name);
        let failed = skill["tests"]["failed_tests"].to_string();
        assert!(failed.contains("assert 4 == 5"), "{name}: {failed}");
    }
}

/// A skill whose bats suite fails, and a one-line passing pytest file beside it.
fn bats_and_pytest(repo: &Repo) {
    repo.write("skills/greet/SKILL.md", &skill_md("greet"));
    repo.write(
        "skills/greet/scripts/greet.sh",
        "#!/bin/sh\necho \"Hi, $1\"\n",
    );
    repo.write(
        "skills/greet/tests/greet.bats",
        "@test \"greets by name\" {\n  run sh scripts/greet.sh Ada\n  [ \"$output\" = \"Hello, \
         Ada!\" ]\n}\n",
    );
    repo.write(
        "skills/greet/tests/test_smoke.py",
        "def test_smoke():\n    assert True\n",
    );
}

const NOT_RUN: &str = "tests not run: tests/greet.bats (bats); the suite ran pytest; declare \
                       `test-suite` in SKILL.md to run them all";

#[test]
fn tests_of_a_framework_the_suite_does_not_run_escalate_in_check_and_publish() {
    let venv_bin = tools::python_with_pytest();
    let path = path_without_bun_or_bats(venv_bin);
    let repo = Repo::git();
    bats_and_pytest(&repo);
    repo.commit("greet");

    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--all",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", &path);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let mut doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let greet = common::skill(&doc, "greet");
    assert_eq!(greet["suite"]["framework"], "pytest", "{greet}");
    assert_eq!(greet["tests"]["pass_count"], 1, "{greet}");
    assert_eq!(greet["decision"]["tier"], "escalate", "{greet}");
    assert_eq!(
        greet["decision"]["escalation_categories"],
        serde_json::json!(["test-results"]),
        "{greet}"
    );
    let reasons = greet["decision"]["reasons"].to_string();
    assert!(reasons.contains(NOT_RUN), "{reasons}");
    assert_eq!(
        greet["suite"]["unrun"],
        serde_json::json!([{"framework": "bats", "files": ["tests/greet.bats"]}]),
        "{greet}"
    );

    // A document that says nothing was left out changes nothing: publish detects again from
    // the head's own files.
    let skills = doc["skills"].as_array_mut().expect("skills");
    for skill in skills.iter_mut() {
        if let Some(signals) = skill["signals"].as_object_mut() {
            signals.remove("tests_not_run");
        }
        skill["decision"]["tier"] = "auto".into();
        skill["decision"]["reasons"] = serde_json::json!([]);
    }
    let job = tempfile::tempdir().expect("tempdir");
    let results = job.path().join("results.json");
    std::fs::write(&results, doc.to_string()).expect("write");
    let mut cmd = skillgate();
    cmd.args([
        "publish",
        "--publish",
        "none",
        "--format",
        "json",
        "--results",
    ])
    .arg(&results)
    .arg("--repo")
    .arg(repo.path())
    .env("PATH", &path);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let published: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let greet = common::skill(&published, "greet");
    assert_eq!(greet["decision"]["tier"], "escalate", "{greet}");
    let reasons = greet["decision"]["reasons"].to_string();
    assert!(reasons.contains(NOT_RUN), "{reasons}");

    // Declared, the suite is what the author says runs: nothing is named as left out.
    repo.write(
        "skills/greet/SKILL.md",
        "---\nname: greet\ndescription: The greet skill, for tests.\ntest-suite: \
         python3 -m pytest -q\n---\n# greet\n",
    );
    repo.commit("declare the suite");
    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--all",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", &path);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let reasons = common::skill(&doc, "greet")["decision"]["reasons"].to_string();
    assert!(!reasons.contains("tests not run"), "{reasons}");
}

/// A failing node:test file, for a suite that does not name it.
const NODE_EDGE: &str = "const test = require(\"node:test\");\nconst assert = \
                         require(\"node:assert\");\ntest(\"edge\", () => \
                         assert.strictEqual(\"a-\", \"a\"));\n";

/// A failing pytest file, for a suite that never runs pytest.
const PY_FAILING: &str = "def test_slug():\n    assert \"a b\".replace(\" \", \"-\") == \"a_b\"\n";

/// A test script that runs one node file by name, as `test.sh` or a package's test script.
const NODE_ONE: &str = "node --test --test-reporter=tap --test-reporter-destination=stdout \
                        tests/slug.test.js";

#[test]
fn tests_a_script_neither_runs_nor_names_escalate() {
    // Issue #15 review, round 3: three ways a failing test was left unrun without a word.
    let venv_bin = tools::python_with_pytest();
    let repo = Repo::git();
    let skill = |name: &str, skill_md: &str, files: &[(&str, &str)]| {
        repo.write(&format!("skills/{name}/SKILL.md"), skill_md);
        for (rel, text) in files {
            repo.write(&format!("skills/{name}/{rel}"), text);
        }
    };
    let package = format!("{{\"private\":true,\"scripts\":{{\"test\":\"{NODE_ONE}\"}}}}\n");
    let test_sh =
        format!("#!/usr/bin/env bash\nset -euo pipefail\ncd \"$(dirname \"$0\")\"\n{NODE_ONE}\n");
    // The package's script names one node file; a failing one beside it is not run.
    skill(
        "npm-named",
        &skill_md("npm-named"),
        &[
            ("package.json", &package),
            ("tests/slug.test.js", NODE_TEST),
            ("tests/edge.test.js", NODE_EDGE),
        ],
    );
    // A pytest file whose fixture the conftest defines by assignment, beside that script.
    skill(
        "npm-pytest",
        &skill_md("npm-pytest"),
        &[
            ("package.json", &package),
            ("tests/slug.test.js", NODE_TEST),
            (
                "tests/conftest.py",
                "import pytest\n\n\ndef _token():\n    return \"t0k\"\n\n\ntoken = \
                 pytest.fixture(_token, name=\"token\")\n",
            ),
            (
                "tests/test_api.py",
                "def test_token_is_accepted(token):\n    assert token == \"expected\"\n",
            ),
        ],
    );
    // A conventional `test.sh` that runs node only, beside a failing pytest file.
    skill(
        "conv-node",
        &skill_md("conv-node"),
        &[
            ("test.sh", &test_sh),
            ("tests/slug.test.js", NODE_TEST),
            ("tests/test_slug.py", PY_FAILING),
        ],
    );
    // One that runs both: nothing is left out.
    skill(
        "conv-both",
        &skill_md("conv-both"),
        &[
            ("test.sh", &format!("{test_sh}python3 -m pytest -q tests\n")),
            ("tests/slug.test.js", NODE_TEST),
            ("tests/test_slug.py", PY_FAILING),
        ],
    );
    // The same node-only script declared: the author's word, not second-guessed.
    skill(
        "declared",
        "---\nname: declared\ndescription: The declared skill, for tests.\ntest-suite: \
         test.sh\n---\n# declared\n",
        &[
            ("test.sh", &test_sh),
            ("tests/slug.test.js", NODE_TEST),
            ("tests/test_slug.py", PY_FAILING),
        ],
    );
    repo.commit("skills");

    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--all",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", path_without_bun_or_bats(venv_bin));
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));

    for (name, ran, framework, file) in [
        ("npm-named", "node:test", "node:test", "tests/edge.test.js"),
        ("npm-pytest", "node:test", "pytest", "tests/test_api.py"),
        (
            "conv-node",
            "`bash test.sh`",
            "pytest",
            "tests/test_slug.py",
        ),
    ] {
        let skill = common::skill(&doc, name);
        // What ran passed: only the test left out could have failed.
        assert_eq!(
            (&skill["tests"]["pass_count"], &skill["tests"]["fail_count"]),
            (&1.into(), &0.into()),
            "{name}: {skill}"
        );
        assert_eq!(
            skill["suite"]["unrun"],
            serde_json::json!([{"framework": framework, "files": [file]}]),
            "{name}: {skill}"
        );
        assert_eq!(skill["decision"]["tier"], "escalate", "{name}: {skill}");
        let reasons = skill["decision"]["reasons"].to_string();
        let expected = format!(
            "tests not run: {file} ({framework}); the suite ran {ran}; declare `test-suite` in \
             SKILL.md to run them all"
        );
        assert!(reasons.contains(&expected), "{name}: {reasons}");
    }
    // The script that runs both ran the failing test; the declared one is taken at its word.
    let both = common::skill(&doc, "conv-both");
    assert_eq!(both["tests"]["fail_count"], 1, "{both}");
    assert!(both["suite"]["unrun"].is_null(), "{both}");
    let declared = common::skill(&doc, "declared");
    assert_eq!(declared["suite"]["source"], "declared", "{declared}");
    assert!(declared["suite"]["unrun"].is_null(), "{declared}");
    assert!(
        !declared["decision"]["reasons"]
            .to_string()
            .contains("tests not run"),
        "{declared}"
    );
}
