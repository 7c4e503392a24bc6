//! The gate leaves no trace in the checkout it gates (issue #15, point 7): a pytest-cov, a
//! hypothesis, a jest, a node:test and a cargo skill (a crate without a `Cargo.lock`) run for
//! real, twice, and `git status --ignored` shows nothing new but the gate's own trail; the second
//! run gates what the first did, unchanged, and no warning says the working tree has
//! uncommitted changes.

mod common;
mod support;

use std::path::Path;
use std::process::Command;

use common::{Repo, git, run, skillgate};
use support::tools;

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Grades a score, for tests.\n---\nGrades a score.\n")
}

const GRADE_PY: &str = "def grade(n):\n    if n >= 90:\n        return \"A\"\n    if n >= 50:\n        \
                        return \"B\"\n    return \"C\"\n";

const TEST_GRADE_PY: &str = "from grade import grade\n\n\ndef test_a():\n    assert grade(95) == \
                             \"A\"\n\n\ndef test_b(tmp_path):\n    assert grade(60) == \"B\"\n";

const GRADE_JS: &str = "function grade(n) {\n  if (n >= 90) return \"A\";\n  if (n >= 50) return \
                        \"B\";\n  return \"C\";\n}\nmodule.exports = { grade };\n";

/// The repository: `main` holds only a `.gitignore` that hides what frameworks leave (as many
/// users' do; `--ignored` sees through it), `feature` adds the five skills. jest is in the
/// ignored `node_modules` at the top, where the gate finds hoisted binaries.
fn repository() -> Repo {
    // Under the target directory: jest's tree is hard-linked from `target/test-tools/`.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let repo = Repo { dir };
    repo.git_cmd(&["init", "-q", "-b", "main"]);
    repo.git_cmd(&["config", "user.email", "test@example.com"]);
    repo.git_cmd(&["config", "user.name", "Test"]);
    repo.git_cmd(&["config", "commit.gpgsign", "false"]);
    repo.write(
        ".gitignore",
        "node_modules/\n__pycache__/\n.pytest_cache/\n.coverage\ncoverage/\n.hypothesis/\n\
         target/\n",
    );
    repo.commit("base");
    repo.git_cmd(&["checkout", "-q", "-b", "feature"]);

    let skills = ".claude/skills";
    repo.write(
        &format!("{skills}/pytest-grade/SKILL.md"),
        &skill_md("pytest-grade"),
    );
    repo.write(&format!("{skills}/pytest-grade/grade.py"), GRADE_PY);
    repo.write(
        &format!("{skills}/pytest-grade/tests/test_grade.py"),
        TEST_GRADE_PY,
    );
    repo.write(
        &format!("{skills}/pytest-grade/tests/conftest.py"),
        "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \
         \"..\"))\n",
    );

    repo.write(
        &format!("{skills}/jest-grade/SKILL.md"),
        &skill_md("jest-grade"),
    );
    repo.write(&format!("{skills}/jest-grade/grade.js"), GRADE_JS);
    repo.write(
        &format!("{skills}/jest-grade/package.json"),
        "{ \"name\": \"jest-grade\", \"private\": true, \"scripts\": { \"test\": \"jest\" } }\n",
    );
    repo.write(
        &format!("{skills}/jest-grade/grade.test.js"),
        "const { grade } = require(\"./grade\");\ntest(\"a\", () => \
         expect(grade(95)).toBe(\"A\"));\ntest(\"b\", () => expect(grade(60)).toBe(\"B\"));\n",
    );

    repo.write(
        &format!("{skills}/node-grade/SKILL.md"),
        &skill_md("node-grade"),
    );
    repo.write(&format!("{skills}/node-grade/grade.js"), GRADE_JS);
    repo.write(
        &format!("{skills}/node-grade/test/grade.test.js"),
        "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst \
         { grade } = require(\"../grade\");\ntest(\"a\", () => assert.strictEqual(grade(95), \
         \"A\"));\ntest(\"b\", () => assert.strictEqual(grade(60), \"B\"));\n",
    );
    repo.write(
        &format!("{skills}/hypothesis-grade/SKILL.md"),
        &skill_md("hypothesis-grade"),
    );
    repo.write(&format!("{skills}/hypothesis-grade/grade.py"), GRADE_PY);
    repo.write(
        &format!("{skills}/hypothesis-grade/test_grade.py"),
        "from hypothesis import given, strategies as st\n\nfrom grade import grade\n\n\n\
         @given(st.integers(min_value=90, max_value=100))\ndef test_a(n):\n    assert grade(n) \
         == \"A\"\n",
    );

    // No `Cargo.lock` committed: `cargo test` writes one.
    repo.write(
        &format!("{skills}/cargo-grade/SKILL.md"),
        &skill_md("cargo-grade"),
    );
    repo.write(
        &format!("{skills}/cargo-grade/Cargo.toml"),
        "[package]\nname = \"grade\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    repo.write(
        &format!("{skills}/cargo-grade/src/lib.rs"),
        "pub fn grade(n: u32) -> char {\n    if n >= 90 { 'A' } else { 'B' }\n}\n\n#[test]\nfn \
         a() {\n    assert_eq!(grade(95), 'A');\n}\n",
    );
    repo.commit("five skills");
    tools::copy_tree(
        &tools::jest_install().join("node_modules"),
        &repo.path().join("node_modules"),
    );
    repo
}

/// `git status --porcelain --ignored`: every untracked and ignored path, one a line.
fn status(repo: &Path) -> Vec<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["status", "--porcelain", "--ignored"])
        .output()
        .expect("git status");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// One gate run over the feature branch: (skills as `name change content-hash`, the document,
/// stderr).
fn check(repo: &Repo, path_var: &std::ffi::OsStr) -> (Vec<String>, serde_json::Value, String) {
    let mut cmd = skillgate();
    cmd.args([
        "check",
        "--base",
        "main",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--jobs",
        "1",
        "--repo",
    ])
    .arg(repo.path())
    .env("PATH", path_var);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let mut gated: Vec<String> = doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            format!(
                "{} {} {}",
                s["name"].as_str().unwrap_or_default(),
                s["change"]["kind"].as_str().unwrap_or_default(),
                s["content_hash"].as_str().unwrap_or_default()
            )
        })
        .collect();
    gated.sort();
    (gated, doc, stderr)
}

#[test]
fn two_checks_leave_the_checkout_as_it_was_and_the_second_gates_nothing_new() {
    let venv_bin = tools::python_with_hypothesis();
    let repo = repository();
    let path_var = std::env::join_paths(std::iter::once(venv_bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let before = status(repo.path());
    assert_eq!(before, vec!["!! node_modules/".to_owned()]);

    let (first, doc, stderr) = check(&repo, &path_var);
    assert!(!stderr.contains("uncommitted changes"), "{stderr}");
    assert_eq!(first.len(), 5, "{first:?}");
    // Each suite really ran, with the framework that writes caches and coverage data.
    for (name, framework, passed) in [
        ("pytest-grade", "pytest", 2),
        ("hypothesis-grade", "pytest", 1),
        ("jest-grade", "jest", 2),
        ("node-grade", "node:test", 2),
        ("cargo-grade", "cargo", 1),
    ] {
        let skill = common::skill(&doc, name);
        assert_eq!(skill["suite"]["framework"], framework, "{skill}");
        assert_eq!(skill["tests"]["pass_count"], passed, "{name}: {skill}");
        assert_eq!(skill["tests"]["fail_count"], 0, "{name}: {skill}");
    }
    // pytest-cov and jest measured coverage: they ran with their data files somewhere.
    for name in ["pytest-grade", "jest-grade"] {
        let skill = common::skill(&doc, name);
        assert!(
            skill["coverage"]["lines_total"].as_u64().unwrap_or(0) > 0,
            "{name}: {skill}"
        );
    }
    // The trail is the gate's own, by design (`.skillgate/skills.db`); nothing else is new.
    let trail = "?? .skillgate/".to_owned();
    let after_first = status(repo.path());
    let mut expected = before.clone();
    expected.push(trail.clone());
    expected.sort();
    let mut got = after_first.clone();
    got.sort();
    assert_eq!(got, expected);

    let (second, _, stderr) = check(&repo, &path_var);
    assert!(!stderr.contains("uncommitted changes"), "{stderr}");
    assert_eq!(second, first);
    assert_eq!(status(repo.path()), after_first);
    // Nothing a framework writes is anywhere in the skills, ignored or not.
    let leftovers = git(
        repo.path(),
        &[
            "ls-files",
            "--others",
            "--exclude-standard",
            "--ignored",
            ".claude",
        ],
    );
    assert_eq!(leftovers, "");
}
