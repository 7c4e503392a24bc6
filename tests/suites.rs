//! Suite detection on skills written like real ones (issue #15, point 8): a CLI named like a
//! test is no pytest test, `node --test` runs only node's own test files, bun and bats suites are
//! recognised, and a missing tool is named with the command that installs it. The reports bun
//! and bats write are read from real outputs (`tests/fixtures/reports/{bun,bats}`).

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

/// A harness run by hand: under `test/`, so node's own scan would run it, and it fails.
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

    // The CLI alone is no suite; beside a real test, pytest is told not to collect it.
    let cli = common::skill(&doc, "api-auth-cli");
    assert!(cli["suite"]["framework"].is_null(), "{cli}");
    assert!(cli["tests"].is_null(), "{cli}");
    let auth = common::skill(&doc, "api-auth");
    assert_eq!(auth["suite"]["framework"], "pytest", "{auth}");
    assert!(
        auth["suite"]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with(" --ignore=scripts/test_api_auth.py")),
        "{auth}"
    );
    assert_eq!(
        (&auth["tests"]["pass_count"], &auth["tests"]["fail_count"]),
        (&1.into(), &0.into()),
        "{auth}"
    );

    // node runs its test file by name, not the harness beside it.
    let node = common::skill(&doc, "node-harness");
    assert_eq!(
        node["suite"]["command"],
        "node --test --test-reporter=tap \
         --test-reporter-destination=\"$SKILLGATE_REPORT_DIR\"/node-test.tap \
         --test-reporter=spec --test-reporter-destination=stdout test/grade.test.js",
        "{node}"
    );
    assert_eq!(
        (&node["tests"]["pass_count"], &node["tests"]["fail_count"]),
        (&1.into(), &0.into()),
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
