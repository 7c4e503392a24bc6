//! Discovery on the layouts real skill repositories use (issue #15, points 1 and 2): a plugin
//! marketplace, a monorepo with fixtures, templates and vendored copies, a `SKILL.md` no root
//! covers, and the name rule `lint` and `check` share. Repositories are built in a temp dir.

mod common;

use std::collections::BTreeSet;

use common::{Repo, run, run_json, verdicts};

/// `(rule, severity, file)` of every finding `lint --format json` prints.
fn lint_findings(repo: &Repo) -> (i32, serde_json::Value, BTreeSet<(String, String, String)>) {
    let (code, stdout, stderr) = run(repo.skillgate(&["lint", "--format", "json"]));
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}: {stdout}{stderr}"));
    let findings = triples(doc["findings"].as_array().expect("findings"));
    (code, doc, findings)
}

/// `(rule, severity, file)` of every finding of a results document: the run's and each skill's.
fn check_findings(doc: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    let mut all = doc["findings"].as_array().expect("findings").clone();
    for skill in doc["skills"].as_array().expect("skills") {
        all.extend(skill["lint"].as_array().expect("lint").iter().cloned());
    }
    triples(&all)
}

fn triples(findings: &[serde_json::Value]) -> BTreeSet<(String, String, String)> {
    findings
        .iter()
        .map(|f| {
            let s = |key: &str| f[key].as_str().unwrap_or_default().to_owned();
            (s("rule"), s("severity"), s("file"))
        })
        .collect()
}

fn lint_files(doc: &serde_json::Value) -> Vec<&str> {
    doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| s["file"].as_str().expect("file"))
        .collect()
}

fn gated_dirs(doc: &serde_json::Value) -> Vec<&str> {
    doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| s["dir"].as_str().expect("dir"))
        .collect()
}

fn finding(rule: &str, severity: &str, file: &str) -> (String, String, String) {
    (rule.to_owned(), severity.to_owned(), file.to_owned())
}

/// Three plugins, two of them with a `setup` skill: the default roots find all three, and two
/// skills with one name in two plugins are two skills, no finding.
fn marketplace() -> Repo {
    let repo = Repo::git();
    repo.skill("plugins/a/skills/x", "x", 2, 0);
    repo.skill("plugins/b/skills/setup", "setup", 2, 0);
    repo.skill("plugins/c/skills/setup", "setup", 3, 0);
    repo.write("plugins/a/README.md", "# plugin a\n");
    repo
}

#[test]
fn a_marketplace_is_found_with_the_default_roots() {
    let repo = marketplace();
    let (code, doc, findings) = lint_findings(&repo);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(
        lint_files(&doc),
        vec![
            "plugins/a/skills/x/SKILL.md",
            "plugins/b/skills/setup/SKILL.md",
            "plugins/c/skills/setup/SKILL.md"
        ]
    );
    assert!(findings.is_empty(), "{findings:?}");

    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(
        gated_dirs(&doc),
        vec![
            "plugins/a/skills/x",
            "plugins/b/skills/setup",
            "plugins/c/skills/setup"
        ]
    );
    assert_ne!(code, 4, "two plugins' `setup` is no error: {doc}");
    assert_eq!(check_findings(&doc), findings, "lint and check agree");
}

#[test]
fn a_pull_request_in_a_marketplace_gates_the_plugin_skill_it_changes() {
    let repo = marketplace();
    let base = repo.commit("marketplace");
    repo.skill("plugins/c/skills/setup", "setup", 2, 1);
    repo.commit("c's setup regresses");
    let (code, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(gated_dirs(&doc), vec!["plugins/c/skills/setup"]);
    assert_eq!(
        verdicts(&doc)[0],
        (
            "setup".to_owned(),
            "modified".to_owned(),
            "human".to_owned(),
            "escalated".to_owned()
        ),
        "a failing test needs a maintainer"
    );
    assert_eq!(code, 3);
}

#[test]
fn skill_selects_every_skill_of_a_name_or_one_by_its_path() {
    let repo = marketplace();
    let (_, doc) = run_json(&repo, &["check", "--all", "--skill", "setup"]);
    assert_eq!(
        gated_dirs(&doc),
        vec!["plugins/b/skills/setup", "plugins/c/skills/setup"]
    );
    for path in ["plugins/c/skills/setup", "plugins/c/skills/setup/SKILL.md"] {
        let (_, doc) = run_json(&repo, &["check", "--all", "--skill", path]);
        assert_eq!(gated_dirs(&doc), vec!["plugins/c/skills/setup"], "{path}");
    }
    let (code, _, stderr) = run(repo.skillgate(&["check", "--all", "--skill", "plugins/d"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("no skill named `plugins/d`"), "{stderr}");
    assert!(
        stderr.contains("plugins/a/skills/x, plugins/b/skills/setup, plugins/c/skills/setup"),
        "{stderr}"
    );
}

#[test]
fn a_monorepo_is_found_without_its_fixtures_templates_and_vendored_copies() {
    let repo = Repo::git();
    repo.skill("packages/web/skills/lint", "lint", 1, 0);
    repo.skill("packages/api/.claude/skills/deploy", "deploy", 1, 0);
    // A skill's own fixtures are its files, not skills; so are a project's test fixtures,
    // templates, vendored and installed copies.
    repo.write(
        "packages/web/skills/lint/tests/fixtures/broken/SKILL.md",
        "---\nname: Not_Valid\n---\n",
    );
    repo.write(
        "packages/web/tests/fixtures/skills/fake/SKILL.md",
        "---\nname: fake\n---\n",
    );
    repo.write("templates/SKILL.md", "---\nname: {{name}}\n---\n");
    repo.write(
        "packages/api/template/skills/new/SKILL.md",
        "---\nname: {{name}}\n---\n",
    );
    repo.write(
        "vendor/acme/skills/theirs/SKILL.md",
        "---\nname: theirs\n---\n",
    );
    repo.write(
        "node_modules/pkg/skills/dep/SKILL.md",
        "---\nname: dep\n---\n",
    );
    // A skill may be named like one of those directories.
    repo.skill("skills/tests", "tests", 1, 0);

    let (code, doc, findings) = lint_findings(&repo);
    assert_eq!(
        lint_files(&doc),
        vec![
            "packages/api/.claude/skills/deploy/SKILL.md",
            "packages/web/skills/lint/SKILL.md",
            "skills/tests/SKILL.md",
        ]
    );
    assert!(findings.is_empty(), "no false alarm: {findings:?}");
    assert_eq!(code, 0);

    // A change to the skill's own fixture gates the skill; one to a project fixture gates
    // nothing, and says so.
    let base = repo.commit("monorepo");
    repo.write(
        "packages/web/skills/lint/tests/fixtures/broken/SKILL.md",
        "---\nname: still-not\n---\n",
    );
    repo.commit("the skill's fixture");
    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(gated_dirs(&doc), vec!["packages/web/skills/lint"]);
    assert!(check_findings(&doc).is_empty(), "{doc}");

    let base = repo.commit("again");
    repo.write(
        "packages/web/tests/fixtures/skills/fake/SKILL.md",
        "---\nname: fake\ndescription: changed\n---\n",
    );
    repo.commit("a project fixture");
    let (code, stdout, stderr) = run(repo.skillgate(&["check", "--base", &base]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with(
            "skillgate: no skills to gate, but 1 changed SKILL.md is not a skill (see the findings)\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\n  packages/web/tests/fixtures/skills/fake/SKILL.md: warning[skill-not-gated]: this \
             SKILL.md changed but is not gated: it is no skill here (at the top of the \
             repository, in a test, template, vendored or build directory, or named by \
             `[skills] ignore`)"
        ),
        "{stdout}"
    );
}

/// A repository whose config names one root, with a skill outside it.
fn uncovered_repo() -> Repo {
    let repo = Repo::git();
    repo.write(".skillgate.toml", "[skills]\nroots = [\"skills\"]\n");
    repo.skill("skills/a", "a", 1, 0);
    repo.skill("tools/foo", "foo", 1, 0);
    repo
}

#[test]
fn a_skill_md_no_root_covers_is_a_warning_that_says_how_to_include_or_ignore_it() {
    let repo = uncovered_repo();
    let (code, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(code, 0, "a warning: {stdout}");
    assert_eq!(
        stdout,
        "tools/foo/SKILL.md: warning[skill-uncovered]: no skill root covers this SKILL.md: it is \
         not linted, and a change to it needs a maintainer's review; add `tools` to `[skills] \
         roots` in .skillgate.toml to gate it as a skill, or add `tools/foo/SKILL.md` to \
         `[skills] ignore` if it is not a skill\n\n1 skill: 0 errors, 1 warning\n"
    );

    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(gated_dirs(&doc), vec!["skills/a"]);
    let (_, _, lint) = lint_findings(&repo);
    assert_eq!(check_findings(&doc), lint, "lint and check agree");
    assert_eq!(
        lint,
        BTreeSet::from([finding("skill-uncovered", "warning", "tools/foo/SKILL.md")])
    );
    let (_, _, stderr) = run(repo.skillgate(&["check", "--all"]));
    assert!(
        stderr.contains(
            "warning: tools/foo/SKILL.md: no skill root covers this SKILL.md (see the `skill-uncovered` finding)"
        ),
        "{stderr}"
    );

    // Either way out silences it.
    repo.write(
        ".skillgate.toml",
        "[skills]\nroots = [\"skills\"]\nignore = [\"tools/foo/SKILL.md\"]\n",
    );
    let (_, stdout, _) = run(repo.skillgate(&["lint"]));
    assert_eq!(stdout, "1 skill: no findings\n");
    repo.write(
        ".skillgate.toml",
        "[skills]\nroots = [\"skills\", \"tools\"]\n",
    );
    let (_, doc, findings) = lint_findings(&repo);
    assert_eq!(
        lint_files(&doc),
        vec!["skills/a/SKILL.md", "tools/foo/SKILL.md"]
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn a_pull_request_that_changes_only_an_uncovered_skill_md_does_not_pass() {
    let repo = uncovered_repo();
    let base = repo.commit("two skills, one outside the roots");
    repo.write(
        "tools/foo/SKILL.md",
        "---\nname: foo\ndescription: Changed where no root looks.\n---\n# foo\n",
    );
    repo.commit("change the uncovered skill");

    let (code, stdout, stderr) = run(repo.skillgate(&["check", "--base", &base]));
    assert!(!stdout.contains("no skills to gate"), "{stdout}{stderr}");
    assert_eq!(code, 3, "a maintainer decides: {stdout}{stderr}");

    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(gated_dirs(&doc), vec!["tools/foo"]);
    let foo = &doc["skills"][0];
    assert_eq!(foo["decision"]["tier"], "human", "{foo}");
    let reasons: Vec<&str> = foo["decision"]["reasons"]
        .as_array()
        .expect("reasons")
        .iter()
        .map(|r| r.as_str().expect("reason"))
        .collect();
    assert!(
        reasons.contains(
            &"tools/foo/SKILL.md is under no skill root: gated as a skill because it changed; \
              add `tools` to `[skills] roots` in .skillgate.toml to gate it as a skill, or add \
              `tools/foo/SKILL.md` to `[skills] ignore` if it is not a skill"
        ),
        "{reasons:?}"
    );
    assert_eq!(
        foo["decision"]["criteria"]["skill_root"]["passed"], false,
        "{foo}"
    );

    // Deleting it is gated too.
    let base = repo.commit("again");
    repo.remove("tools/foo");
    repo.commit("remove it");
    let (code, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(gated_dirs(&doc), vec!["tools/foo"]);
    assert_eq!(doc["skills"][0]["change"]["kind"], "deleted");
    assert_eq!(code, 3);
}

#[test]
fn a_changed_skill_md_at_the_top_is_named_though_it_is_no_skill() {
    let repo = Repo::git();
    repo.skill("skills/a", "a", 1, 0);
    repo.write("SKILL.md", "---\nname: whole-repo\ndescription: d\n---\n");
    let (_, _, findings) = lint_findings(&repo);
    assert_eq!(
        findings,
        BTreeSet::from([finding("skill-uncovered", "warning", "SKILL.md")])
    );
    let base = repo.commit("a top-level SKILL.md");
    repo.write(
        "SKILL.md",
        "---\nname: whole-repo\ndescription: changed\n---\n",
    );
    repo.commit("change it");
    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert!(gated_dirs(&doc).is_empty(), "{doc}");
    let findings = check_findings(&doc);
    assert!(
        findings.contains(&finding("skill-not-gated", "warning", "SKILL.md")),
        "{findings:?}"
    );
}

#[test]
fn one_name_twice_under_one_root_is_a_warning_in_lint_and_check_alike() {
    let repo = Repo::git();
    repo.skill(".claude/skills/setup", "setup", 1, 0);
    repo.skill(".claude/skills/group/setup", "setup", 1, 0);
    // The same name under another root is another skill.
    repo.skill("plugins/p/skills/setup", "setup", 1, 0);

    let (code, _, lint) = lint_findings(&repo);
    assert_eq!(code, 0, "a warning, not an error");
    let expected = BTreeSet::from([
        finding(
            "name-duplicate",
            "warning",
            ".claude/skills/group/setup/SKILL.md",
        ),
        finding("name-duplicate", "warning", ".claude/skills/setup/SKILL.md"),
    ]);
    assert_eq!(lint, expected);
    let (_, stdout, _) = run(repo.skillgate(&["lint"]));
    assert!(
        stdout.contains(
            ".claude/skills/setup/SKILL.md: warning[name-duplicate]: `setup` under the skill root \
             `.claude/skills` is also the name of .claude/skills/group/setup"
        ),
        "{stdout}"
    );

    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(check_findings(&doc), expected, "lint and check agree");
    assert_ne!(code, 4, "no skill needs correction for its name: {doc}");
    for skill in doc["skills"].as_array().expect("skills") {
        assert_ne!(skill["decision"]["decision"], "needs_correction", "{skill}");
    }

    // A pull request that changes one of them: check says of it what lint says.
    let base = repo.commit("three setups");
    repo.skill(".claude/skills/group/setup", "setup", 2, 0);
    repo.commit("one setup changes");
    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(gated_dirs(&doc), vec![".claude/skills/group/setup"]);
    assert_eq!(
        check_findings(&doc),
        BTreeSet::from([finding(
            "name-duplicate",
            "warning",
            ".claude/skills/group/setup/SKILL.md"
        )])
    );
}
