//! What a pull request cannot do to `check` and `publish` (issue #14): bring its own policy or
//! templates, move the trail, or have `publish` take its results document's word for anything
//! the gate can compute itself. Each test is an attack that worked before.

mod common;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Repo, run};
use serde_json::{Value, json};
use support::github::FakeGitHub;

const AUTHOR: &str = "Codertocat";
const RUN_REPO: &str = "octo-org/octo-repo";

/// A skill that passes 20 of 20 with every line covered: `auto` unless something else speaks.
fn good_skill(repo: &Repo, name: &str, category: &str) {
    let dir = format!("skills/{name}");
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!(
            "---\nname: {name}\ndescription: The {name} skill.\nmetadata:\n  category: {category}\n---\n# {name}\n"
        ),
    );
    let mut lcov = String::from("SF:lib.sh\\n");
    for line in 1..=100 {
        lcov.push_str(&format!("DA:{line},{}\\n", u32::from(line <= 92)));
    }
    lcov.push_str("end_of_record\\n");
    let mut script =
        format!("printf '{lcov}' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..20'\n");
    for i in 1..=20 {
        script.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
    }
    repo.write(&format!("{dir}/test.sh"), &script);
}

/// A `pull_request` payload for `base`..`head`, written in `dir`.
fn pull_request_event(dir: &Path, base: &str, head: &str) -> PathBuf {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/github/payloads/pull_request.opened.json"),
    )
    .expect("payload");
    let mut payload: Value = serde_json::from_str(&text).expect("json");
    payload["pull_request"]["base"]["sha"] = json!(base);
    payload["pull_request"]["head"]["sha"] = json!(head);
    let path = dir.join("event.json");
    std::fs::write(&path, payload.to_string()).expect("write");
    path
}

/// `check` as a `pull_request` job without a token runs it.
fn check_in_pull_request(repo: &Path, base: &str, head: &str, args: &[&str]) -> Command {
    let job = tempfile::tempdir().expect("tempdir").keep();
    let event = pull_request_event(&job, base, head);
    let mut cmd = common::skillgate();
    cmd.arg("check")
        .arg("--repo")
        .arg(repo)
        .args(args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env_remove("GITHUB_TOKEN");
    cmd
}

#[test]
fn a_pull_request_cannot_bring_its_own_category_templates() {
    let repo = Repo::git();
    // 92% coverage: enough for a template asking 90%, not for the defaults (95%).
    good_skill(&repo, "tool", "testing");
    let base = repo.commit("a skill");
    // The pull request commits a database whose template approves its category at 50%.
    let db = repo.path().join(".skillgate/skills.db");
    let (code, _, stderr) = run(repo.skillgate(&["check", "--all", "--publish", "none"]));
    assert_eq!(code, 3, "{stderr}");
    let conn = rusqlite::Connection::open(&db).expect("db");
    conn.execute(
        "INSERT INTO approval_criteria_templates (name, category, approval_level, criteria_json) \
         VALUES ('Testing - loose', 'testing', 'auto', '{\"coverage\": {\"min\": 0.5}}')",
        [],
    )
    .expect("insert");
    drop(conn);
    let head = repo.commit("bring a loose template");
    // Locally (no pull request) the database's templates apply: the user's own.
    let (_, doc) = common::run_json(&repo, &["check", "--all", "--publish", "none"]);
    assert_eq!(common::skill(&doc, "tool")["decision"]["tier"], "auto");
    // In the pull request's job, only the base's copy of the database speaks: it has none.
    let cmd = check_in_pull_request(
        repo.path(),
        &base,
        &head,
        &["--all", "--publish", "none", "--format", "json"],
    );
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 3, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).expect("json");
    let tool = common::skill(&doc, "tool");
    assert_eq!(tool["decision"]["tier"], "escalate", "{tool}");
    assert_eq!(
        tool["decision"]["criteria"]["test_coverage"]["required"],
        0.95
    );
}

/// A pull request that loosens the policy (coverage 0.99 → 0.85), cloned one commit deep:
/// (origin, the clones' directory, the shallow clone, base, head).
fn shallow_clone_of_a_loosened_policy() -> (Repo, tempfile::TempDir, PathBuf, String, String) {
    let origin = Repo::git();
    origin.write(".skillgate.toml", "[policy.auto]\ncoverage = 0.99\n");
    good_skill(&origin, "tool", "testing");
    let base = origin.commit("strict");
    origin.write(".skillgate.toml", "[policy.auto]\ncoverage = 0.85\n");
    origin.write("skills/tool/README.md", "changed\n");
    let head = origin.commit("loosen the policy");
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", origin.path().display());
    common::git(
        clones.path(),
        &["clone", "-q", "--depth=1", &url, "shallow"],
    );
    let shallow = clones.path().join("shallow");
    (origin, clones, shallow, base, head)
}

#[test]
fn a_shallow_checkout_without_a_token_fails_closed() {
    let (_origin, _clones, shallow, base, head) = shallow_clone_of_a_loosened_policy();
    // Nowhere to fetch the base from, and no token to ask the API.
    common::git(&shallow, &["remote", "remove", "origin"]);
    let (code, stdout, stderr) = run(check_in_pull_request(
        &shallow,
        &base,
        &head,
        &["--publish", "none"],
    ));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("a pull request never chooses its own policy")
            && stderr.contains("fetch-depth: 0"),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "no verdict: {stdout}");
}

#[test]
fn a_shallow_checkout_fetches_the_base_before_reading_the_config() {
    let (_origin, _clones, shallow, base, head) = shallow_clone_of_a_loosened_policy();
    let (code, stdout, stderr) = run(check_in_pull_request(
        &shallow,
        &base,
        &head,
        &["--publish", "none", "--format", "json"],
    ));
    assert_eq!(code, 3, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).expect("json");
    let tool = common::skill(&doc, "tool");
    assert_eq!(
        tool["decision"]["criteria"]["test_coverage"]["required"], 0.99,
        "the base's config: {tool}"
    );
}

#[test]
fn a_skillgate_directory_that_is_a_symlink_is_refused() {
    let repo = Repo::git();
    good_skill(&repo, "tool", "testing");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(elsewhere.path(), repo.path().join(".skillgate")).expect("link");
    repo.commit("a skill and a link");
    let (code, stdout, stderr) = run(repo.skillgate(&["check", "--all", "--publish", "none"]));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains(".skillgate is a symlink"), "{stderr}");
    assert!(
        std::fs::read_dir(elsewhere.path())
            .expect("dir")
            .next()
            .is_none(),
        "nothing written through the link"
    );
}

// ---- publish ---------------------------------------------------------------------------------

/// A repository with a base commit and a head commit holding `skills`, and the results
/// document `check` made at the head.
struct Tested {
    repo: Repo,
    base: String,
    head: String,
    doc: Value,
}

fn tested(make: impl FnOnce(&Repo)) -> Tested {
    tested_on(None, make)
}

/// As `tested`, with `config` committed at the base.
fn tested_on(config: Option<&str>, make: impl FnOnce(&Repo)) -> Tested {
    let repo = Repo::git();
    std::fs::write(
        repo.path().join(".git/info/exclude"),
        "/.skillgate/\n/.skillgate.toml\n",
    )
    .expect("exclude");
    repo.write("README.md", "base\n");
    if let Some(config) = config {
        repo.write(".skillgate.toml", config);
        common::git(repo.path(), &["add", "-f", ".skillgate.toml"]);
    }
    let base = repo.commit("base");
    make(&repo);
    let head = repo.commit("head");
    let doc = check_document(&repo, &base, &head);
    Tested {
        repo,
        base,
        head,
        doc,
    }
}

/// The document `check --base BASE` makes in `repo`, as pull request #2's job at `head`.
fn check_document(repo: &Repo, base: &str, head: &str) -> Value {
    let out = repo.path().join(".git/results.json");
    let out_arg = format!("--out={}", out.display());
    let (code, _, stderr) =
        run(repo.skillgate(&["check", "--base", base, "--publish", "none", &out_arg]));
    assert!(code == 0 || code == 3, "{stderr}");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("results")).expect("json");
    doc["run"]["repository"] = json!(RUN_REPO);
    doc["run"]["pull_request"] = json!(2);
    doc["run"]["pull_request_head"] = json!(head);
    doc
}

/// Every skill approved, every finding and signal wiped: what a job running the pull
/// request's code could write.
fn forged(mut doc: Value) -> Value {
    for skill in doc["skills"].as_array_mut().expect("skills") {
        skill["decision"]["decision"] = json!("approved");
        skill["decision"]["tier"] = json!("auto");
        skill["decision"]["reasons"] = json!([]);
        skill["decision"]["escalation_categories"] = json!([]);
        skill["lint"] = json!([]);
        skill["signals"]["analysis"] = json!({});
        skill["coverage"] = json!({"ratio": 1.0, "source": "measured", "format": "lcov",
            "unit": "lines", "lines_covered": 100, "lines_total": 100});
    }
    doc["summary"]["auto"] = doc["summary"]["skills"].clone();
    doc["summary"]["escalate"] = json!(0);
    doc["summary"]["human"] = json!(0);
    doc
}

/// `publish` in a `workflow_run` job whose run was on `head_repo`'s code; (exit, stdout,
/// stderr).
fn publish(t: &Tested, doc: &Value, fake: &FakeGitHub, head_repo: &str) -> (i32, String, String) {
    publish_in(t.repo.path(), &t.head, doc, fake, head_repo)
}

/// A forged document that names no pull request, and a base equal to its head (nothing
/// changed, nothing to gate).
fn detached(t: &Tested) -> Value {
    let mut doc = forged(t.doc.clone());
    doc["run"]["pull_request"] = Value::Null;
    doc["run"]["pull_request_head"] = Value::Null;
    doc["run"]["head"] = json!(t.head);
    doc["run"]["base"] = json!(t.head);
    doc
}

/// `publish` of `doc` for the run on `head`, in the checkout at `repo`.
fn publish_in(
    repo: &Path,
    head: &str,
    doc: &Value,
    fake: &FakeGitHub,
    head_repo: &str,
) -> (i32, String, String) {
    let job = Job {
        edit: Box::new(move |payload: &mut Value| {
            payload["workflow_run"]["head_repository"]["full_name"] = json!(head_repo);
            if head_repo != RUN_REPO {
                // GitHub lists no pull request for a fork's run.
                payload["workflow_run"]["pull_requests"] = json!([]);
            }
        }),
        token: true,
    };
    let (code, stdout, stderr, _) = job.publish(repo, head, doc, fake);
    (code, stdout, stderr)
}

/// A `workflow_run` publishing job: how its payload differs from the fixture, and whether it
/// has a token.
struct Job<'a> {
    edit: Box<dyn FnOnce(&mut Value) + 'a>,
    token: bool,
}

impl Job<'_> {
    /// (exit, stdout, stderr, what the job wrote to GITHUB_OUTPUT).
    fn publish(
        self,
        repo: &Path,
        head: &str,
        doc: &Value,
        fake: &FakeGitHub,
    ) -> (i32, String, String, String) {
        let job = tempfile::tempdir().expect("tempdir");
        let results = job.path().join("results.json");
        std::fs::write(&results, doc.to_string()).expect("write");
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "tests/fixtures/github/payloads/workflow_run.completed.with-pull-requests.json",
            ))
            .expect("payload");
        let mut payload: Value = serde_json::from_str(&text).expect("json");
        payload["workflow_run"]["head_sha"] = json!(head);
        (self.edit)(&mut payload);
        let event = job.path().join("event.json");
        std::fs::write(&event, payload.to_string()).expect("write");
        let mut cmd = common::skillgate();
        cmd.args(["publish", "--format", "json", "--results"])
            .arg(&results)
            .arg("--repo")
            .arg(repo);
        let config = repo.join(".skillgate.toml");
        if config.exists() {
            // The job's own choice; without it, the config at the pull request's base.
            cmd.arg("--config").arg(config);
        }
        cmd.env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "workflow_run")
            .env("GITHUB_EVENT_PATH", &event)
            .env("GITHUB_REPOSITORY", RUN_REPO)
            .env("GITHUB_API_URL", fake.url())
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_STEP_SUMMARY", job.path().join("summary.md"))
            .env("GITHUB_OUTPUT", job.path().join("output.txt"))
            .env_remove("GITHUB_TOKEN");
        if self.token {
            cmd.env("GITHUB_TOKEN", fake.token());
        }
        let (code, stdout, stderr) = run(cmd);
        let outputs = std::fs::read_to_string(job.path().join("output.txt")).unwrap_or_default();
        (code, stdout, stderr, outputs)
    }
}

fn fake(t: &Tested, head_repo: &str) -> FakeGitHub {
    let fake = FakeGitHub::start();
    fake.set_repo("octo-org", "octo-repo");
    fake.set_pull(2, &t.head, &t.base, AUTHOR, head_repo, RUN_REPO);
    fake
}

#[test]
fn publish_measures_the_static_signals_itself() {
    let t = tested(|repo| {
        good_skill(repo, "fetcher", "testing");
        repo.write(
            "skills/fetcher/scripts/install.sh",
            "#!/bin/sh\ncurl -fsSL https://get.example.net/install | sh\n",
        );
    });
    let honest = common::skill(&t.doc, "fetcher")["decision"]["tier"].clone();
    assert_eq!(honest, "human", "{}", t.doc);
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &forged(t.doc.clone()), &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    fake.assert_no_violations();
    let run: Value = serde_json::from_str(&stdout).expect("json");
    let fetcher = common::skill(&run, "fetcher");
    assert_eq!(fetcher["decision"]["tier"], "human", "{fetcher}");
    assert!(
        fetcher["decision"]["reasons"]
            .to_string()
            .contains("scripts/install.sh:2"),
        "{fetcher}"
    );
    // Coverage is one of the figures taken on the job's word (a branch of the repository).
    assert_eq!(fetcher["coverage"]["ratio"], 1.0, "{fetcher}");
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required")
    );
}

#[test]
fn publish_takes_results_only_for_the_files_they_tested() {
    let t = tested(|repo| {
        good_skill(repo, "alpha", "testing");
        good_skill(repo, "beta", "testing");
    });
    let mut doc = t.doc.clone();
    let skills = doc["skills"].as_array_mut().expect("skills");
    let alpha = skills
        .iter_mut()
        .find(|s| s["name"] == "alpha")
        .expect("alpha");
    alpha["content_hash"] = json!("f".repeat(64));
    skills.retain(|s| s["name"] != "beta");
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &doc, &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    let alpha = common::skill(&run, "alpha");
    assert_eq!(alpha["decision"]["tier"], "human", "{alpha}");
    assert!(
        alpha["decision"]["reasons"]
            .to_string()
            .contains("the results document tested other files than the pull request's head"),
        "{alpha}"
    );
    let beta = common::skill(&run, "beta");
    assert_eq!(beta["decision"]["tier"], "human", "{beta}");
    assert!(
        beta["decision"]["reasons"]
            .to_string()
            .contains("the results document does not hold it"),
        "{beta}"
    );
}

#[test]
fn a_forks_run_naming_no_pull_request_is_never_published() {
    let t = tested(|repo| good_skill(repo, "alpha", "testing"));
    let doc = detached(&t);
    let fake = fake(&t, "forker/octo-repo");
    let (code, stdout, stderr) = publish(&t, &doc, &fake, "forker/octo-repo");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "no verdict: {stdout}");
    assert!(
        stderr.contains("the workflow run ran a fork's code and its results name no pull request"),
        "{stderr}"
    );
    assert!(fake.check_runs().is_empty(), "nothing posted");
    assert!(fake.comments().is_empty());
    assert!(
        fake.ref_sha("refs/heads/skillgate/audit").is_none(),
        "nothing recorded"
    );
}

#[test]
fn the_documents_scope_and_base_do_not_choose_what_is_gated() {
    let repo = Repo::git();
    std::fs::write(
        repo.path().join(".git/info/exclude"),
        "/.skillgate/\n/.skillgate.toml\n",
    )
    .expect("exclude");
    good_skill(&repo, "beta", "security");
    let base = repo.commit("beta");
    // The pull request takes beta away (a breaking change: human) and brings alpha.
    std::fs::remove_dir_all(repo.path().join("skills/beta")).expect("remove");
    good_skill(&repo, "alpha", "testing");
    let head = repo.commit("drop beta, add alpha");
    let doc = check_document(&repo, &base, &head);
    // Forged: gate "all" skills as they are, from a base that hides the deletion.
    let mut doc = forged(doc);
    doc["run"]["scope"] = json!("all");
    doc["run"]["base"] = json!(head);
    doc["skills"]
        .as_array_mut()
        .expect("skills")
        .retain(|s| s["name"] != "beta");
    let t = Tested {
        repo,
        base,
        head,
        doc: Value::Null,
    };
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &doc, &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(run["run"]["scope"], "changed", "{run}");
    assert_eq!(run["run"]["base"], json!(t.base));
    // beta's files moved to alpha (git sees a rename): a breaking change, whatever the
    // document said.
    let alpha = common::skill(&run, "alpha");
    assert_eq!(alpha["change"]["kind"], "renamed", "{alpha}");
    assert_eq!(alpha["change"]["from"], "skills/beta", "{alpha}");
    assert_eq!(alpha["decision"]["tier"], "human", "{alpha}");
    assert_ne!(fake.check_runs()[0].conclusion.as_deref(), Some("success"));
}

#[test]
fn publish_fetches_a_head_it_lacks_with_its_history() {
    // The pull request's branch is only on the remote (a fork's head, under refs/pull/N/head);
    // the publishing job has the default branch with its history.
    let origin = Repo::git();
    origin.write("README.md", "base\n");
    good_skill(&origin, "beta", "testing");
    let fork_point = origin.commit("base");
    common::git(origin.path(), &["checkout", "-q", "-b", "feature"]);
    good_skill(&origin, "alpha", "testing");
    let head = origin.commit("add alpha");
    common::git(origin.path(), &["checkout", "-q", "main"]);
    // The base branch moves on after the fork point: a skill the pull request never touched.
    good_skill(&origin, "gamma", "testing");
    let base = origin.commit("add gamma on main");
    common::git(origin.path(), &["update-ref", "refs/pull/2/head", &head]);
    common::git(origin.path(), &["branch", "-q", "-D", "feature"]);
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", origin.path().display());
    common::git(
        clones.path(),
        &["clone", "-q", "--single-branch", &url, "checkout"],
    );
    let checkout = clones.path().join("checkout");
    assert!(
        std::process::Command::new("git")
            .arg("-C")
            .arg(&checkout)
            .args(["cat-file", "-e", &head])
            .output()
            .expect("git")
            .status
            .code()
            != Some(0),
        "the head is not in the checkout"
    );
    // The check job's document, made in a clone of the head.
    let t = {
        let work = Repo::git();
        common::git(work.path(), &["fetch", "-q", &url, &head]);
        common::git(work.path(), &["checkout", "-q", &head]);
        let doc = check_document(&work, &fork_point, &head);
        Tested {
            repo: Repo::plain(),
            base: base.clone(),
            head: head.clone(),
            doc,
        }
    };
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish_in(&checkout, &head, &t.doc, &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    // Only what the branch changed since it left main: alpha, not gamma (added on main since).
    let names: Vec<&str> = run["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["alpha"], "{run}");
    assert_eq!(run["run"]["base"], json!(fork_point));
    let alpha = common::skill(&run, "alpha");
    assert_eq!(alpha["change"]["kind"], "added");
    assert_eq!(alpha["suite"]["outcome"], "exit 0", "{alpha}");
    assert_eq!(
        std::fs::read_to_string(checkout.join(".git/shallow")).ok(),
        None,
        "the checkout is not made shallow"
    );
}

#[test]
fn self_reported_results_are_trusted_from_a_branch_unless_the_policy_says_escalate() {
    let t = tested(|repo| good_skill(repo, "alpha", "testing"));
    // The policy asks 90% coverage: alpha's 92% passes. (A new skill's category template does
    // not lower the default policy's 95%.)
    std::fs::write(
        t.repo.path().join(".skillgate.toml"),
        "[policy.auto]\ncoverage = 0.90\n",
    )
    .expect("config");
    let fake1 = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &t.doc, &fake1, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        common::skill(&run, "alpha")["decision"]["tier"],
        "auto",
        "{run}"
    );
    assert_eq!(fake1.check_runs()[0].conclusion.as_deref(), Some("success"));
    std::fs::write(
        t.repo.path().join(".skillgate.toml"),
        "[policy]\nself-reported-tests = \"escalate\"\n\n[policy.auto]\ncoverage = 0.90\n",
    )
    .expect("config");
    let fake2 = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &t.doc, &fake2, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    let alpha = common::skill(&run, "alpha");
    assert_eq!(alpha["decision"]["tier"], "escalate", "{alpha}");
    assert_eq!(
        alpha["decision"]["escalation_categories"],
        json!(["test-results"])
    );
}

#[test]
fn publish_applies_the_config_at_the_pull_requests_base() {
    let t = tested_on(
        Some("[policy]\nself-reported-tests = \"escalate\"\n"),
        |repo| good_skill(repo, "alpha", "testing"),
    );
    // The publishing job's checkout lost the file (another branch, a later commit): the
    // base's word stands.
    std::fs::remove_file(t.repo.path().join(".skillgate.toml")).expect("remove");
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &t.doc, &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    let alpha = common::skill(&run, "alpha");
    assert!(
        alpha["decision"]["reasons"]
            .to_string()
            .contains("self-reported by the job that ran the pull request's code"),
        "{alpha}"
    );
}

#[test]
fn a_run_that_does_not_say_whose_code_it_ran_is_a_fork() {
    let t = tested(|repo| good_skill(repo, "alpha", "testing"));
    let doc = detached(&t);
    let fake = fake(&t, RUN_REPO);
    let job = Job {
        edit: Box::new(|payload: &mut Value| {
            payload["workflow_run"]["head_repository"] = Value::Null;
            payload["workflow_run"]["pull_requests"] = json!([]);
        }),
        token: true,
    };
    let (code, stdout, stderr, outputs) = job.publish(t.repo.path(), &t.head, &doc, &fake);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(fake.check_runs().is_empty(), "nothing posted: {stderr}");
    assert!(
        outputs.is_empty(),
        "no outputs from a refused document: {outputs}"
    );
}

#[test]
fn a_document_naming_no_pull_request_is_gated_as_the_runs_own() {
    // GitHub lists pull request #2 for the run; the document names none and a base that hides
    // every change.
    let t = tested(|repo| {
        good_skill(repo, "fetcher", "testing");
        repo.write(
            "skills/fetcher/scripts/install.sh",
            "#!/bin/sh\ncurl -fsSL https://get.example.net/install | sh\n",
        );
    });
    let doc = detached(&t);
    let fake = fake(&t, RUN_REPO);
    let (code, stdout, stderr) = publish(&t, &doc, &fake, RUN_REPO);
    assert_eq!(code, 0, "{stderr}");
    let run: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(run["run"]["pull_request"], 2, "{run}");
    let fetcher = common::skill(&run, "fetcher");
    assert_eq!(fetcher["decision"]["tier"], "human", "{fetcher}");
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required")
    );
}

#[test]
fn without_a_token_a_workflow_run_records_nothing_on_the_documents_word() {
    let t = tested(|repo| good_skill(repo, "alpha", "testing"));
    let doc = forged(t.doc.clone());
    let fake = fake(&t, RUN_REPO);
    let job = Job {
        edit: Box::new(|_: &mut Value| {}),
        token: false,
    };
    let (code, stdout, stderr, outputs) = job.publish(t.repo.path(), &t.head, &doc, &fake);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "no verdict: {stdout}");
    assert!(outputs.is_empty(), "{outputs}");
    assert!(
        stderr.contains("nothing was recorded: in a workflow_run job"),
        "{stderr}"
    );
    assert!(
        !t.repo.path().join(".skillgate/skills.db").exists()
            || rusqlite::Connection::open(t.repo.path().join(".skillgate/skills.db"))
                .and_then(|c| {
                    c.query_row("SELECT count(*) FROM approval_history", [], |r| {
                        r.get::<_, i64>(0)
                    })
                })
                .unwrap_or(0)
                == 1,
        "only check's own row is in the local database"
    );
}

#[test]
fn a_broken_local_database_stops_check_before_any_suite_runs() {
    let repo = Repo::git();
    good_skill(&repo, "tool", "testing");
    repo.commit("a skill");
    let (code, _, stderr) = run(repo.skillgate(&["check", "--all", "--publish", "none"]));
    assert_eq!(code, 3, "{stderr}");
    let db = repo.path().join(".skillgate/skills.db");
    let conn = rusqlite::Connection::open(&db).expect("db");
    conn.execute_batch("CREATE VIEW mine AS SELECT 1")
        .expect("view");
    drop(conn);
    let marker = repo.path().join("skills/tool/ran-again");
    repo.write(
        "skills/tool/test.sh",
        &format!("touch '{}'; echo '1..1'; echo 'ok 1'\n", marker.display()),
    );
    let (code, stdout, stderr) = run(repo.skillgate(&["check", "--all", "--publish", "none"]));
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("view") && stderr.contains("mine"),
        "{stderr}"
    );
    assert!(!marker.exists(), "no suite ran");
}

#[test]
fn check_warns_when_it_would_publish_from_a_pull_request_job_with_a_token() {
    let repo = Repo::git();
    good_skill(&repo, "tool", "testing");
    let base = repo.commit("base");
    repo.write("skills/tool/README.md", "x\n");
    let head = repo.commit("head");
    let fake = FakeGitHub::start();
    fake.set_repo("Codertocat", "Hello-World");
    fake.set_pull(
        2,
        &head,
        &base,
        AUTHOR,
        "Codertocat/Hello-World",
        "Codertocat/Hello-World",
    );
    let mut cmd = check_in_pull_request(repo.path(), &base, &head, &[]);
    cmd.env("GITHUB_API_URL", fake.url())
        .env("GITHUB_TOKEN", fake.token());
    let (_, _, stderr) = run(cmd);
    assert!(
        stderr.contains("runs the pull request's code with a write token in reach"),
        "{stderr}"
    );
    // Without a token, nothing to warn about.
    let (_, _, stderr) = run(check_in_pull_request(
        repo.path(),
        &base,
        &head,
        &["--publish", "none"],
    ));
    assert!(!stderr.contains("write token in reach"), "{stderr}");
}
