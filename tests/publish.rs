//! Publishing to GitHub, against a fake GitHub on loopback that validates every request against
//! GitHub's OpenAPI description: check run, sticky comment, reviewers, job summary and outputs,
//! forks, retries and rate limits.

mod common;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Repo, run};
use serde_json::{Value, json};
use support::github::FakeGitHub;

const OWNER: &str = "Codertocat";
const REPO: &str = "Hello-World";
const AUTHOR: &str = "Codertocat";

/// A job's files: event payload, step summary, outputs.
struct Job {
    dir: tempfile::TempDir,
}

impl Job {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.path("summary.md")).unwrap_or_default()
    }

    fn outputs(&self) -> String {
        std::fs::read_to_string(self.path("output.txt")).unwrap_or_default()
    }

    /// Write a payload from the fixtures with the pull request's shas replaced.
    fn event(&self, fixture: &str, base: &str, head: &str) -> PathBuf {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/github/payloads")
                .join(fixture),
        )
        .expect("payload");
        let mut payload: Value = serde_json::from_str(&text).expect("json");
        if payload.get("pull_request").is_some() {
            payload["pull_request"]["base"]["sha"] = json!(base);
            payload["pull_request"]["head"]["sha"] = json!(head);
        }
        if payload.get("workflow_run").is_some() {
            payload["workflow_run"]["head_sha"] = json!(head);
        }
        let path = self.path("event.json");
        std::fs::write(&path, payload.to_string()).expect("write event");
        path
    }

    /// The environment Actions gives a job, pointed at the fake.
    fn env(&self, cmd: &mut Command, fake: &FakeGitHub, event_name: &str, event: &Path) {
        let repository = if event_name == "workflow_run" {
            RUN_REPO
        } else {
            "Codertocat/Hello-World"
        };
        cmd.env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", event_name)
            .env("GITHUB_EVENT_PATH", event)
            .env("GITHUB_REPOSITORY", repository)
            .env("GITHUB_API_URL", fake.url())
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_TOKEN", fake.token())
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("GITHUB_OUTPUT", self.path("output.txt"));
    }
}

const ROUTING: &str = r#"
[routing]
coverage = { users = ["alice"] }
human = { users = ["maintainer1", "Codertocat"], teams = ["octo-org/maintainers"] }
"#;

/// Two skills changed by a pull request: alpha passes (escalated for coverage), beta fails two
/// of five tests (human). Returns (repo, base, head).
fn pull_request_repo() -> (Repo, String, String) {
    let repo = Repo::git();
    repo.write(".skillgate.toml", ROUTING);
    repo.skill(".claude/skills/alpha", "alpha", 5, 0);
    repo.skill(".claude/skills/beta", "beta", 5, 0);
    let base = repo.commit("two skills");
    repo.skill(".claude/skills/alpha", "alpha", 6, 0);
    repo.skill(".claude/skills/beta", "beta", 3, 2);
    let head = repo.commit("alpha grows, beta regresses");
    (repo, base, head)
}

fn fake_for(base: &str, head: &str, head_repo: &str) -> FakeGitHub {
    let fake = FakeGitHub::start();
    fake.set_repo(OWNER, REPO);
    fake.set_pull(2, head, base, AUTHOR, head_repo, &format!("{OWNER}/{REPO}"));
    fake
}

fn check(
    repo: &Repo,
    job: &Job,
    fake: &FakeGitHub,
    event_name: &str,
    event: &Path,
) -> (i32, String, String) {
    let mut cmd = repo.skillgate(&["check"]);
    job.env(&mut cmd, fake, event_name, event);
    run(cmd)
}

fn assert_no_token(fake: &FakeGitHub, texts: &[&str]) {
    for text in texts {
        assert!(!text.contains(&fake.token()), "the token leaked: {text}");
    }
}

#[test]
fn a_first_run_posts_a_check_run_a_comment_and_requests_reviewers() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);

    let (code, stdout, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    fake.assert_no_violations();
    assert_eq!(code, 3, "review required\n{stdout}\n{stderr}");

    let runs = fake.check_runs();
    assert_eq!(runs.len(), 1);
    let check = &runs[0];
    assert_eq!(check.name, "skillgate");
    assert_eq!(check.head_sha, head, "on the pull request's head");
    assert_eq!(check.status, "completed");
    assert_eq!(check.conclusion.as_deref(), Some("action_required"));
    assert_eq!(
        check.details_url.as_deref(),
        Some("https://github.com/Codertocat/Hello-World/actions/runs/4242")
    );
    assert_eq!(
        check.title.as_deref(),
        Some("2 skills gated: 0 auto, 1 escalate, 1 human")
    );
    let summary = check.summary.as_deref().unwrap_or_default();
    assert!(
        summary.contains("| alpha | modified | **escalate** |"),
        "{summary}"
    );
    assert!(
        summary.contains("| beta | modified | **human** | 0.60 (3/5) |"),
        "{summary}"
    );
    // Two failed tests of beta, at its test file.
    let failed: Vec<&Value> = check
        .annotations
        .iter()
        .filter(|a| a["title"].as_str().is_some_and(|t| t.ends_with(" failed")))
        .collect();
    assert_eq!(failed.len(), 2, "{:?}", check.annotations);
    assert_eq!(failed[0]["title"], "beta: fails 1 failed");
    assert_eq!(failed[0]["path"], ".claude/skills/beta/SKILL.md");

    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.starts_with("<!-- skillgate:summary -->\n"));
    assert!(comments[0].body.contains("### skillgate: 2 skills gated"));
    assert_eq!(comments[0].issue_number, 2);

    // Users and teams in separate calls; the author is never asked.
    let asked = fake.reviewer_requests();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0].reviewers, ["alice", "maintainer1"]);
    assert!(asked[0].team_reviewers.is_empty());
    assert!(asked[1].reviewers.is_empty());
    assert_eq!(asked[1].team_reviewers, ["maintainers"]);

    let summary_file = job.summary();
    assert!(
        summary_file.contains("### skillgate: 2 skills gated"),
        "{summary_file}"
    );
    let outputs = job.outputs();
    assert!(outputs.contains("tier<<skillgate_"), "{outputs}");
    assert!(outputs.contains("\nhuman\n"), "{outputs}");
    assert!(outputs.contains("decision<<skillgate_"), "{outputs}");
    assert!(outputs.contains("\nescalated\n"), "{outputs}");
    assert!(outputs.contains("results<<skillgate_"), "{outputs}");
    assert!(
        outputs.contains("\"schema\": \"skillgate.results/1\""),
        "{outputs}"
    );
    assert_no_token(
        &fake,
        &[&stdout, &stderr, &summary_file, &outputs, &comments[0].body],
    );
}

#[test]
fn a_rerun_updates_in_place() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    let (first, ..) = check(&repo, &job, &fake, "pull_request", &event);
    let (second, _, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    fake.assert_no_violations();
    assert_eq!((first, second), (3, 3), "{stderr}");

    assert_eq!(fake.check_runs().len(), 1, "no second check run");
    assert_eq!(fake.requests_for("checks/create").len(), 1);
    assert_eq!(fake.comments().len(), 1, "no second comment");
    assert_eq!(fake.requests_for("issues/create-comment").len(), 1);
    // The same annotations are not appended twice.
    assert_eq!(fake.check_runs()[0].annotations.len(), 2);
    // Reviewers already requested are not requested again.
    assert_eq!(fake.reviewer_requests().len(), 2);
}

#[test]
fn a_fork_gets_no_writes_only_the_job_summary() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, "forker/Hello-World");
    let job = Job::new();
    let event = job.event("pull_request.opened.fork.derived.json", &base, &head);
    let (code, _, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    assert_eq!(code, 3, "{stderr}");
    fake.assert_no_violations();
    let writes = fake.writes();
    assert!(writes.is_empty(), "no write may be attempted: {writes:?}");
    let summary = job.summary();
    assert!(
        summary.contains("### skillgate: 2 skills gated"),
        "{summary}"
    );
    assert!(summary.contains("comes from a fork"), "{summary}");
    assert!(summary.contains("workflow\\_run"), "{summary}");
    assert!(stderr.contains("comes from a fork"), "{stderr}");
}

#[test]
fn without_history_the_changed_files_come_from_the_api() {
    let (repo, base, head) = pull_request_repo();
    // A base the checkout does not have, as after a shallow clone; on GitHub, beta was a
    // security skill there.
    let fake = FakeGitHub::start();
    fake.set_repo(OWNER, REPO);
    let base_skill = "---\nname: beta\ndescription: The beta skill, for tests.\nmetadata:\n  version: \"1.0.0\"\n  category: security\n---\n# beta\n";
    let missing = fake.commit_files(
        "main",
        &[(".claude/skills/beta/SKILL.md", base_skill.as_bytes())],
        "the base",
    );
    fake.set_pull(
        2,
        &head,
        &missing,
        AUTHOR,
        &format!("{OWNER}/{REPO}"),
        &format!("{OWNER}/{REPO}"),
    );
    let files = (0..150)
        .map(|i| support::github::PullFile::new(&format!("docs/page-{i}.md"), "added"))
        .chain([support::github::PullFile::new(
            ".claude/skills/beta/test.sh",
            "modified",
        )])
        .collect();
    fake.set_pull_files(2, files);
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &missing, &head);
    let mut cmd = repo.skillgate(&["check", "--format", "json", "--publish", "none"]);
    job.env(&mut cmd, &fake, "pull_request", &event);
    let (code, stdout, stderr) = run(cmd);
    fake.assert_no_violations();
    assert_eq!(code, 3, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).expect("json");
    let gated: Vec<&str> = doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(gated, ["beta"], "only the skill the API lists");
    assert_eq!(doc["run"]["base"], missing.as_str());
    // The base's SKILL.md came from the API: the category change is seen.
    let reasons = doc["skills"][0]["decision"]["reasons"].to_string();
    assert!(
        reasons.contains("category changed security → testing"),
        "{reasons}"
    );
    // Two pages of 100.
    let pages = fake.requests_for("pulls/list-files");
    assert_eq!(pages.len(), 2);
    assert!(
        pages
            .iter()
            .all(|r| r.query.get("per_page").map(String::as_str) == Some("100"))
    );
    assert!(fake.writes().is_empty(), "--publish none writes nothing");
    let _ = base;
}

thread_local! {
    /// The repository, base and head commit of the last document this test made: `publish`
    /// reads the skills' files from git at the head, as a publishing job does.
    static TESTED: std::cell::RefCell<Option<(PathBuf, String, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// The head commit of the last document made on this thread.
fn head() -> String {
    TESTED
        .with(|t| t.borrow().as_ref().map(|(_, _, h)| h.clone()))
        .expect("a document was made first")
}

/// The base commit of the last document made on this thread.
fn base() -> String {
    TESTED
        .with(|t| t.borrow().as_ref().map(|(_, b, _)| b.clone()))
        .expect("a document was made first")
}

/// A results document from a real run, with the volatile fields fixed so it renders the same
/// every time. The repository becomes a git repository whose head commit holds the skills,
/// on top of a base commit: the pull request `publish` reads.
fn document(repo: &Repo) -> Value {
    let dir = repo.path();
    if !dir.join(".git").exists() {
        common::git(dir, &["init", "-q", "-b", "main"]);
        // The local trail and the publishing job's config are not the pull request's files.
        std::fs::write(
            dir.join(".git/info/exclude"),
            "/.skillgate/\n/.skillgate.toml\n",
        )
        .expect("exclude");
        common::git(dir, &["commit", "-q", "--allow-empty", "-m", "base"]);
        common::git(dir, &["add", "-A"]);
        common::git(dir, &["commit", "-q", "--allow-empty", "-m", "head"]);
    } else if !common::git(dir, &["status", "--porcelain"]).is_empty() {
        common::git(dir, &["add", "-A"]);
        common::git(dir, &["commit", "-q", "-m", "head"]);
    }
    let head = common::git(dir, &["rev-parse", "HEAD"]);
    let base = common::git(dir, &["rev-parse", "HEAD~1"]);
    TESTED.with(|t| *t.borrow_mut() = Some((dir.to_path_buf(), base, head.clone())));
    let out = dir.join(".git/results.json");
    let out_arg = format!("--out={}", out.display());
    let cmd = repo.skillgate(&["check", "--all", "--publish", "none", &out_arg]);
    let (code, _, stderr) = run(cmd);
    assert!(code == 0 || code == 3 || code == 4, "{stderr}");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("results")).expect("json");
    doc["run"]["repository"] = json!(RUN_REPO);
    doc["run"]["pull_request"] = json!(2);
    doc["run"]["pull_request_head"] = json!(head);
    doc["run"]["head"] = json!(head);
    doc["run"]["started_at"] = json!("2026-11-30T09:00:00Z");
    doc["run"]["finished_at"] = json!("2026-11-30T09:01:00Z");
    for skill in doc["skills"].as_array_mut().expect("skills") {
        if skill["suite"].is_object() {
            skill["suite"]["duration_ms"] = json!(100);
        }
        if skill["tests"].is_object() {
            skill["tests"]["duration_ms"] = json!(100);
            skill["tests"]["timestamp"] = json!("2026-11-30T09:01:00Z");
        }
    }
    doc
}

/// The repository of the `workflow_run` payload.
const RUN_REPO: &str = "octo-org/octo-repo";

/// The command a `workflow_run` job runs to publish `doc`, with `repo` (default: the job's
/// directory) holding the config.
fn publish_command(job: &Job, fake: &FakeGitHub, doc: &Value, repo: Option<&Path>) -> Command {
    let results = job.path("results.json");
    std::fs::write(&results, doc.to_string()).expect("write results");
    let event = job.event(
        "workflow_run.completed.with-pull-requests.json",
        &base(),
        &head(),
    );
    let repo = repo.map_or_else(tested_repo, Path::to_path_buf);
    let mut cmd = common::skillgate();
    cmd.arg("publish")
        .arg("--results")
        .arg(&results)
        .arg("--repo")
        .arg(&repo);
    // The job's own config, not the one at the pull request's base (these bases have none).
    let config = repo.join(".skillgate.toml");
    if config.exists() {
        cmd.arg("--config").arg(config);
    }
    job.env(&mut cmd, fake, "workflow_run", &event);
    cmd
}

/// The repository of the last document made on this thread.
fn tested_repo() -> PathBuf {
    TESTED
        .with(|t| t.borrow().as_ref().map(|(r, _, _)| r.clone()))
        .expect("a document was made first")
}

/// `skillgate publish --results` as a `workflow_run` job would run it.
fn publish(doc: &Value, fake: &FakeGitHub, config: &str) -> (i32, String, String, Job) {
    let job = Job::new();
    // The publishing job's checkout: the default branch, whose config applies.
    std::fs::write(tested_repo().join(".skillgate.toml"), config).expect("config");
    let (code, stdout, stderr) = run(publish_command(&job, fake, doc, None));
    (code, stdout, stderr, job)
}

fn published_fake() -> FakeGitHub {
    if TESTED.with(|t| t.borrow().is_none()) {
        run_document("0");
    }
    let fake = FakeGitHub::start();
    fake.set_repo("octo-org", "octo-repo");
    fake.set_pull(2, &head(), &base(), AUTHOR, RUN_REPO, RUN_REPO);
    fake
}

#[test]
fn a_hundred_and_twenty_failures_take_three_annotation_requests() {
    let repo = Repo::plain();
    repo.skill("skills/gamma", "gamma", 0, 120);
    let doc = document(&repo);
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let runs = fake.check_runs();
    assert_eq!(runs.len(), 1);
    let titles: Vec<&str> = runs[0]
        .annotations
        .iter()
        .filter_map(|a| a["title"].as_str())
        .filter(|t| t.ends_with(" failed"))
        .collect();
    assert_eq!(titles.len(), 120, "every failure is annotated");
    assert_eq!(titles[0], "gamma: fails 1 failed");
    assert_eq!(titles[119], "gamma: fails 120 failed");
    let carrying: Vec<usize> = fake
        .requests()
        .iter()
        .filter_map(|r| {
            r.body
                .pointer("/output/annotations")
                .and_then(Value::as_array)
        })
        .map(Vec::len)
        .collect();
    assert_eq!(carrying, [50, 50, 20], "50 per request");
    assert_eq!(runs[0].conclusion.as_deref(), Some("action_required"));
}

#[test]
fn a_two_hundred_kilobyte_summary_is_trimmed_and_says_so() {
    let repo = Repo::plain();
    for i in 0..1200 {
        repo.write(
            &format!("skills/delta-{i:03}/SKILL.md"),
            &format!(
                "---\nname: delta-{i:03}\ndescription: {} ✓ long description {i}\n---\nNo suite.\n",
                "é".repeat(100)
            ),
        );
    }
    let doc = document(&repo);
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let check = &fake.check_runs()[0];
    let summary = check.summary.as_deref().unwrap_or_default();
    assert!(summary.len() <= 65_535, "{}", summary.len());
    assert!(
        summary.len() > 60_000,
        "the limit is used, not wasted: {}",
        summary.len()
    );
    assert!(summary.contains("**Cut here:**"), "says what was cut");
    assert!(
        summary.contains("000 | added | **human** |"),
        "{}",
        &summary[..2000]
    );
    let comment = &fake.comments()[0].body;
    assert!(comment.chars().count() <= 65_536);
    assert!(comment.contains("**Cut here:**"));
}

#[test]
fn server_errors_are_retried_and_a_lost_post_is_not_repeated() {
    let repo = Repo::plain();
    repo.skill("skills/eps", "eps", 2, 1);
    let doc = document(&repo);
    let fake = published_fake();
    fake.fail_next(
        "checks/list-for-ref",
        2,
        502,
        &[],
        "<html>bad gateway</html>",
    );
    // The comment is created but its answer is lost: looking up finds it, no second POST.
    fake.fail_next_after_effect("issues/create-comment", 1, 502);
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fake.requests_for("checks/list-for-ref").len(),
        3,
        "502 twice, then success"
    );
    assert_eq!(fake.check_runs().len(), 1);
    assert_eq!(
        fake.comments().len(),
        1,
        "one comment although its answer was lost"
    );
    assert_eq!(fake.requests_for("issues/create-comment").len(), 1);
}

#[test]
fn a_secondary_rate_limit_is_waited_out() {
    let repo = Repo::plain();
    repo.skill("skills/zeta", "zeta", 2, 0);
    let doc = document(&repo);
    let fake = published_fake();
    fake.secondary_rate_limit_next("issues/list-comments", 1, 1);
    let started = Instant::now();
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retry-after honoured"
    );
    assert_eq!(fake.requests_for("issues/list-comments").len(), 2);
    assert_eq!(fake.comments().len(), 1);
}

#[test]
fn a_refused_team_is_a_warning_not_a_failure() {
    let repo = Repo::plain();
    repo.skill("skills/eta", "eta", 1, 3);
    let doc = document(&repo);
    let fake = published_fake();
    fake.set_reject_team_reviewers(true);
    let (code, _, stderr, job) = publish(&doc, &fake, ROUTING);
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let asked = fake.reviewer_requests();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].reviewers, ["maintainer1"]);
    assert_eq!(asked[1].status, 422);
    let note = "could not request the team maintainers: GitHub answered 422";
    assert!(stderr.contains(note), "{stderr}");
    assert!(job.summary().contains(note), "{}", job.summary());
    let check = &fake.check_runs()[0];
    assert!(check.summary.as_deref().unwrap_or_default().contains(note));
    assert!(fake.comments()[0].body.contains(note));
}

#[test]
fn markdown_hostile_names_are_inert() {
    let repo = Repo::plain();
    repo.write(
        "skills/theta/SKILL.md",
        "---\nname: theta\ndescription: \"Pings @octocat | <img src=x onerror=alert(1)> ```\"\nmetadata:\n  version: \"1.0.0\"\n---\n# theta\n",
    );
    repo.write(
        "skills/theta/test.sh",
        "echo '1..3'\necho 'ok 1 - fine'\necho 'not ok 2 - @octocat | <script>alert(1)</script> ``` [x](javascript:alert(1))'\necho 'not ok 3 - </details> **bold** #1 <!-- skillgate:summary -->'\n",
    );
    let doc = document(&repo);
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let comment = fake.comments()[0].body.clone();
    for raw in ["@octocat", "<script>", "<img", "[x](javascript", "| <"] {
        assert!(
            !comment.contains(raw),
            "`{raw}` reached the comment:\n{comment}"
        );
    }
    assert_eq!(comment.matches("<!-- skillgate:summary -->").count(), 1);
    let check = fake.check_runs()[0].clone();
    insta::assert_snapshot!("hostile_comment", comment);
    insta::assert_snapshot!("hostile_check_summary", check.summary.unwrap_or_default());
    insta::assert_snapshot!("hostile_check_text", check.text.unwrap_or_default());
    insta::assert_snapshot!(
        "hostile_annotations",
        serde_json::to_string_pretty(&check.annotations).expect("json")
    );
}

#[test]
fn publish_github_without_a_token_is_a_usage_error() {
    let repo = Repo::plain();
    repo.skill("skills/iota", "iota", 1, 0);
    let doc = document(&repo);
    let job = Job::new();
    let results = job.path("results.json");
    std::fs::write(&results, doc.to_string()).expect("write");
    let mut cmd = common::skillgate();
    cmd.args(["publish", "--publish", "github", "--results"])
        .arg(&results)
        .arg("--repo")
        .arg(job.dir.path());
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("no repository") || stderr.contains("no GitHub token"),
        "{stderr}"
    );
}

#[test]
fn documents_of_different_runs_are_not_merged() {
    let repo = Repo::plain();
    repo.skill("skills/kappa", "kappa", 1, 0);
    let doc = document(&repo);
    let mut other = doc.clone();
    other["run"]["head"] = json!(base());
    let job = Job::new();
    std::fs::write(job.path("a.json"), doc.to_string()).expect("write");
    std::fs::write(job.path("b.json"), other.to_string()).expect("write");
    let mut cmd = common::skillgate();
    cmd.args(["publish", "--publish", "none", "--results"])
        .arg(job.path("a.json"))
        .arg(job.path("b.json"))
        .arg("--repo")
        .arg(job.dir.path());
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("are not from the same run: their head commit differs"),
        "{stderr}"
    );
    std::fs::write(job.path("c.json"), "{\"schema\": \"other/2\"}").expect("write");
    let mut cmd = common::skillgate();
    cmd.args(["publish", "--publish", "none", "--results"])
        .arg(job.path("c.json"))
        .arg("--repo")
        .arg(job.dir.path());
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2);
    assert!(stderr.contains("c.json: schema is `other/2`"), "{stderr}");
}

#[test]
fn above_the_apis_file_cap_git_is_asked_and_its_failure_explained() {
    let (repo, _, head) = pull_request_repo();
    let missing = "2222222222222222222222222222222222222222";
    let fake = fake_for(missing, &head, &format!("{OWNER}/{REPO}"));
    fake.update_pull(2, |pr| pr["changed_files"] = json!(3_500));
    let job = Job::new();
    let path = job.event("pull_request.opened.json", missing, &head);
    let mut event: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("event")).expect("json");
    event["pull_request"]["changed_files"] = json!(3_500);
    std::fs::write(&path, event.to_string()).expect("write");
    let mut cmd = repo.skillgate(&["check", "--publish", "none"]);
    job.env(&mut cmd, &fake, "pull_request", &path);
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "cannot tell what pull request #2 changed: the pull request changes more files than GitHub's API lists (3,000), and fetching base 222222222222 failed"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("fetch-depth: 0"), "{stderr}");
    assert!(
        fake.requests_for("pulls/list-files").is_empty(),
        "a list that stops at the cap is not read"
    );
}

#[test]
fn of_two_sticky_comments_the_oldest_stays() {
    let repo = Repo::plain();
    repo.skill("skills/lambda", "lambda", 2, 0);
    let doc = document(&repo);
    let fake = published_fake();
    fake.add_issue_comment(2, "an unrelated comment", "octocat");
    let oldest =
        fake.add_issue_comment(2, "<!-- skillgate:summary -->\nold", "github-actions[bot]");
    // Enough other comments that the second sticky one is on a later page.
    for i in 0..120 {
        fake.add_issue_comment(2, &format!("comment {i}"), "octocat");
    }
    let newer =
        fake.add_issue_comment(2, "<!-- skillgate:summary -->\nrace", "github-actions[bot]");
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let sticky: Vec<_> = fake
        .comments()
        .into_iter()
        .filter(|c| c.body.starts_with("<!-- skillgate:summary -->"))
        .collect();
    assert_eq!(sticky.len(), 1);
    assert_eq!(sticky[0].id, oldest);
    assert!(sticky[0].body.contains("### skillgate: 1 skill gated"));
    assert!(
        fake.comments().iter().all(|c| c.id != newer),
        "the newer one is deleted"
    );
    assert_eq!(
        fake.requests_for("issues/update-comment").len(),
        1,
        "edited with PATCH"
    );
    assert!(fake.requests_for("issues/create-comment").is_empty());
    assert_eq!(
        fake.requests_for("issues/list-comments").len(),
        2,
        "both pages read"
    );
    assert_eq!(fake.comments().len(), 122);
}

#[test]
fn matrix_shards_are_published_as_one_run() {
    let repo = Repo::plain();
    repo.skill("skills/mu", "mu", 2, 0);
    repo.skill("skills/nu", "nu", 1, 1);
    let doc = document(&repo);
    let (mut first, mut second) = (doc.clone(), doc.clone());
    first["skills"] = json!([doc["skills"][0]]);
    second["skills"] = json!([doc["skills"][1]]);
    let job = Job::new();
    std::fs::write(job.path("shard-1.json"), first.to_string()).expect("write");
    std::fs::write(job.path("shard-2.json"), second.to_string()).expect("write");
    let fake = published_fake();
    let event = job.event(
        "workflow_run.completed.with-pull-requests.json",
        &base(),
        &head(),
    );
    let mut cmd = common::skillgate();
    cmd.args(["publish", "--format", "json", "--results"])
        .arg(job.path("shard-1.json"))
        .arg(job.path("shard-2.json"))
        .arg("--repo")
        .arg(tested_repo());
    job.env(&mut cmd, &fake, "workflow_run", &event);
    let (code, stdout, stderr) = run(cmd);
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let merged: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(merged["summary"]["skills"], 2);
    let check = &fake.check_runs()[0];
    assert_eq!(check.head_sha, head());
    assert!(
        check
            .title
            .as_deref()
            .unwrap_or_default()
            .starts_with("2 skills gated")
    );
    assert_eq!(fake.comments().len(), 1);
}

#[test]
fn a_failure_to_publish_fails_the_job_but_keeps_its_summary() {
    let repo = Repo::plain();
    repo.skill("skills/xi", "xi", 2, 0);
    let doc = document(&repo);
    let fake = published_fake();
    // More 502s than the client retries.
    fake.fail_next("checks/list-for-ref", 10, 502, &[], "bad gateway");
    let (code, _, stderr, job) = publish(&doc, &fake, "");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error: GitHub answered GET /repos/octo-org/octo-repo/commits/"),
        "{stderr}"
    );
    assert!(stderr.contains("with 502"), "{stderr}");
    assert_eq!(
        fake.requests_for("checks/list-for-ref").len(),
        5,
        "1 + 4 retries"
    );
    let summary = job.summary();
    assert!(
        summary.contains("### skillgate: 1 skill gated"),
        "{summary}"
    );
    assert!(summary.contains("publishing to GitHub failed"), "{summary}");
    assert!(job.outputs().contains("tier<<skillgate_"));
}

// ---- the audit trail on its branch ---------------------------------------------------------

const AUDIT_BRANCH: &str = "skillgate/audit";

/// The branch's whole trail on the fake as one database (the registry with every segment's
/// rows, as `audit export` writes it).
fn branch_trail(fake: &FakeGitHub) -> Vec<u8> {
    common::whole_trail(&|path| fake.file_at(AUDIT_BRANCH, path)).expect("a trail on the branch")
}

/// The whole trail at `rev` of the bare repository `bare`.
fn remote_trail(bare: &Path, rev: &str) -> Vec<u8> {
    common::whole_trail(&|path| common::git_file(bare, &format!("{rev}:{path}")))
        .unwrap_or_else(|| panic!("a trail at {rev}"))
}

/// (rows, distinct runs, whether every row chains to the one before) of a database file.
fn trail_rows(bytes: &[u8]) -> (usize, usize, bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    std::fs::write(&path, bytes).expect("write db");
    let conn = rusqlite::Connection::open(&path).expect("open db");
    let mut stmt = conn
        .prepare("SELECT run_id, prev_hash, row_hash FROM approval_history ORDER BY id")
        .expect("query");
    let rows: Vec<(Option<String>, Option<String>, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    let mut runs: Vec<&Option<String>> = rows.iter().map(|r| &r.0).collect();
    runs.sort();
    runs.dedup();
    let chained = rows
        .windows(2)
        .all(|w| w[1].1 == w[0].2 && w[1].2.is_some());
    (rows.len(), runs.len(), chained)
}

thread_local! {
    /// The repository of `run_document`: one per test, so its runs share a head commit.
    static RUNS: std::cell::OnceCell<Repo> = const { std::cell::OnceCell::new() };
}

fn run_document(run_id: &str) -> Value {
    let mut doc = RUNS.with(|runs| {
        document(runs.get_or_init(|| {
            let repo = Repo::plain();
            repo.skill("skills/omicron", "omicron", 2, 0);
            repo.skill("skills/pi", "pi", 1, 1);
            repo
        }))
    });
    doc["run"]["run_id"] = json!(run_id);
    doc
}

#[test]
fn the_audit_branch_is_created_then_advanced_and_a_rerun_adds_nothing() {
    let fake = published_fake();
    let first = run_document("100");
    let (code, _, stderr, _job) = publish(&first, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("audit trail committed to skillgate/audit"),
        "{stderr}"
    );
    let head = fake
        .ref_sha("refs/heads/skillgate/audit")
        .expect("branch created");
    assert!(
        fake.git_commit(&head).expect("commit").parents.is_empty(),
        "an orphan commit"
    );
    assert_eq!(trail_rows(&branch_trail(&fake)), (2, 1, true));

    // The same job again: nothing new, no commit.
    let (code, _, stderr, _job) = publish(&first, &fake, "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        fake.ref_sha("refs/heads/skillgate/audit"),
        Some(head.clone())
    );
    assert_eq!(fake.requests_for("git/create-commit").len(), 1);

    // Another run lands on top.
    let (code, _, stderr, _job) = publish(&run_document("101"), &fake, "");
    assert_eq!(code, 0, "{stderr}");
    let next = fake.ref_sha("refs/heads/skillgate/audit").expect("branch");
    assert_eq!(fake.git_commit(&next).expect("commit").parents, [head]);
    assert_eq!(trail_rows(&branch_trail(&fake)), (4, 2, true));
    fake.assert_no_violations();
}

#[test]
fn a_run_that_loses_the_race_rereads_and_lands() {
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&run_document("200"), &fake, "");
    assert_eq!(code, 0, "{stderr}");
    // Another run's trail, committed (as the files of a segmented trail) while this one is
    // between reading and updating.
    let other = {
        let (code, _, stderr, _job) = publish(&run_document("201"), &fake, "");
        assert_eq!(code, 0, "{stderr}");
        common::segmented_files(&branch_trail(&fake))
    };
    let other: Vec<(&str, &[u8])> = other
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    // Each commit uploads two blobs: the registry and the newest segment.
    let blobs = fake.requests_for("git/create-blob").len();
    // Slow enough between the blob and the update for another run to move the branch.
    fake.delay_next("git/create-tree", 1, Duration::from_millis(800));
    let job = Job::new();
    let child = publish_command(&job, &fake, &run_document("202"), None)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Move the branch once this run has read it and uploaded its blobs.
    let deadline = Instant::now() + Duration::from_secs(20);
    while fake.requests_for("git/create-blob").len() < blobs + 2 {
        assert!(
            Instant::now() < deadline,
            "the run never uploaded its database"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    fake.commit_files(AUDIT_BRANCH, &other, "a racing run");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    fake.assert_no_violations();
    let moved: Vec<_> = fake
        .requests_for("git/update-ref")
        .into_iter()
        .map(|r| r.status)
        .collect();
    assert!(
        moved.contains(&422),
        "the first update lost the race: {moved:?}"
    );
    // Runs 200 and 201 (in the racer's trail) and 202, each once, chained.
    assert_eq!(trail_rows(&branch_trail(&fake)), (6, 3, true));
}

#[test]
fn eight_concurrent_publishers_all_land() {
    let fake = published_fake();
    let jobs: Vec<(Job, std::process::Child)> = (0..8)
        .map(|i| {
            let job = Job::new();
            let child = publish_command(&job, &fake, &run_document(&format!("30{i}")), None)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn");
            (job, child)
        })
        .collect();
    for (_job, child) in jobs {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    fake.assert_no_violations();
    // On the segmented layout: the registry and one segment, whichever run made the branch.
    assert_eq!(fake_files(&fake, AUDIT_BRANCH), SEGMENTED);
    // The whole trail, as `audit export` writes it: every segment's rows in one database.
    let bytes = branch_trail(&fake);
    assert_eq!(
        trail_rows(&bytes),
        (16, 8, true),
        "every run once, one chain"
    );
    assert_verifies(&bytes);
}

#[test]
fn git_mode_pushes_the_audit_branch_to_the_remote() {
    let remote = tempfile::tempdir().expect("tempdir");
    let (bare, url) = common::bare_remote(remote.path(), "origin.git");
    let git = |args: &[&str], dir: &Path| common::git(dir, args);
    let fake = published_fake();
    let work = tested_repo();
    git(&["remote", "add", "origin", &url], &work);
    std::fs::write(work.join(".skillgate.toml"), "[audit]\ncommit = \"git\"\n").expect("config");
    let publish_in = |doc: &Value| {
        let job = Job::new();
        let (code, _, stderr) = run(publish_command(&job, &fake, doc, Some(&work)));
        assert_eq!(code, 0, "{stderr}");
        stderr
    };
    let stderr = publish_in(&run_document("400"));
    assert!(
        stderr.contains("audit trail committed to skillgate/audit"),
        "{stderr}"
    );
    assert_eq!(trail_rows(&remote_trail(&bare, AUDIT_BRANCH)), (2, 1, true));
    publish_in(&run_document("401"));
    publish_in(&run_document("401"));
    assert_eq!(trail_rows(&remote_trail(&bare, AUDIT_BRANCH)), (4, 2, true));
    let log = git(
        &[
            "--git-dir",
            bare.to_str().expect("utf8"),
            "rev-list",
            "--count",
            "skillgate/audit",
        ],
        remote.path(),
    );
    assert_eq!(log, "2", "the re-run committed nothing");
    assert!(
        fake.requests_for("git/create-commit").is_empty(),
        "git mode uses no Git Data API"
    );
    // The checkout's own branch, index and working tree are untouched.
    assert_eq!(git(&["status", "--porcelain"], &work), "");
}

/// The segmented layout, from a trail's first commit: the registry and its first segment, no
/// single file.
const SEGMENTED: [&str; 2] = [common::TRAIL_REGISTRY, ".skillgate/trail/000001.db"];

/// A trail as skillgate wrote it before segments (schema version 4): one file holding run
/// `run_id`, chained.
fn single_file_trail(run_id: &str) -> Vec<u8> {
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&run_document(run_id), &fake, "");
    assert_eq!(code, 0, "{stderr}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    std::fs::write(&path, branch_trail(&fake)).expect("write");
    // Version 5 added `trail_segments`, version 6 six indexes.
    rusqlite::Connection::open(&path)
        .expect("open")
        .execute_batch(
            "DROP INDEX idx_approval_history_skill_timestamp; DROP INDEX idx_usage_loaded_at;
             DROP INDEX idx_skills_created_at; DROP INDEX idx_approval_history_escalated;
             DROP INDEX idx_approval_history_change; DROP INDEX idx_usage_effectiveness;
             DROP TABLE trail_segments;
             PRAGMA user_version = 4;",
        )
        .expect("version 4");
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(trail_rows(&bytes), (2, 1, true));
    bytes
}

/// `row_hash` of every row of a database, by id.
fn row_hashes(bytes: &[u8]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    std::fs::write(&path, bytes).expect("write db");
    rusqlite::Connection::open(&path)
        .expect("open db")
        .prepare("SELECT row_hash FROM approval_history ORDER BY id")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("hashes")
}

/// `skillgate audit verify --db` on a whole trail's bytes passes.
fn assert_verifies(bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("skills.db"), bytes).expect("write");
    let mut verify = common::skillgate();
    verify
        .args(["audit", "verify", "--db"])
        .arg(dir.path().join("skills.db"));
    let (code, stdout, stderr) = run(verify);
    assert_eq!(code, 0, "the chain verifies: {stdout}{stderr}");
}

/// Every file of `reference` on the fake, by path.
fn fake_files(fake: &FakeGitHub, reference: &str) -> Vec<String> {
    let sha = fake
        .ref_sha(&format!("refs/heads/{reference}"))
        .expect("branch");
    let answer = support::github::client::send(
        &fake.url(),
        "GET",
        &format!("/repos/{RUN_REPO}/git/trees/{sha}?recursive=1"),
        &[
            ("authorization", &format!("token {}", fake.token())),
            ("user-agent", "t"),
            ("accept", "application/vnd.github+json"),
        ],
        None,
    );
    assert_eq!(answer.status, 200);
    let mut files: Vec<String> = answer.json()["tree"]
        .as_array()
        .expect("tree")
        .iter()
        .filter(|entry| entry["type"] == "blob")
        .map(|entry| entry["path"].as_str().expect("path").to_owned())
        .collect();
    files.sort();
    files
}

#[test]
fn api_mode_writes_the_registry_and_a_segment_and_converts_a_single_file() {
    let single = single_file_trail("800");

    // A new branch: the segmented layout from its first commit.
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&run_document("801"), &fake, "");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(fake_files(&fake, AUDIT_BRANCH), SEGMENTED);
    assert_eq!(fake.file_at(AUDIT_BRANCH, common::TRAIL_SINGLE), None);
    assert_eq!(trail_rows(&branch_trail(&fake)), (2, 1, true));

    // A branch holding the single file of a trail before segments: converted in one commit
    // (the single file removed by a `sha: null` tree entry), every row kept, the chain
    // continued.
    let fake = published_fake();
    let before = fake.commit_files(
        AUDIT_BRANCH,
        &[(common::TRAIL_SINGLE, &single)],
        "skillgate 4's trail",
    );
    assert_eq!(fake_files(&fake, AUDIT_BRANCH), [common::TRAIL_SINGLE]);
    let (code, _, stderr, _job) = publish(&run_document("802"), &fake, "");
    assert_eq!(code, 0, "{stderr}");
    let after = fake.ref_sha("refs/heads/skillgate/audit").expect("branch");
    assert_eq!(
        fake.git_commit(&after).expect("commit").parents,
        [before],
        "one commit converts and records"
    );
    assert_eq!(fake_files(&fake, AUDIT_BRANCH), SEGMENTED);
    let whole = branch_trail(&fake);
    assert_eq!(trail_rows(&whole), (4, 2, true));
    assert_eq!(row_hashes(&whole)[..2], row_hashes(&single)[..]);
    assert_verifies(&whole);
    fake.assert_no_violations();
}

#[test]
fn git_mode_writes_the_registry_and_a_segment_and_converts_a_single_file() {
    let single = single_file_trail("810");
    let work = tested_repo();
    std::fs::write(work.join(".skillgate.toml"), "[audit]\ncommit = \"git\"\n").expect("config");
    let fake = published_fake();
    let remote = tempfile::tempdir().expect("tempdir");
    let files = |bare: &Path| -> Vec<String> {
        let listed = common::git(bare, &["ls-tree", "-r", "--name-only", AUDIT_BRANCH]);
        listed.lines().map(str::to_owned).collect()
    };
    let publish_to = |bare: &Path, run_id: &str| {
        common::git(
            &work,
            &[
                "remote",
                "set-url",
                "origin",
                &format!("file://{}", bare.display()),
            ],
        );
        let job = Job::new();
        let (code, _, stderr) = run(publish_command(
            &job,
            &fake,
            &run_document(run_id),
            Some(&work),
        ));
        assert_eq!(code, 0, "{stderr}");
    };
    let bare_repo = |name: &str| -> PathBuf { common::bare_remote(remote.path(), name).0 };
    common::git(&work, &["remote", "add", "origin", "unset"]);

    // A new branch: the segmented layout from its first commit.
    let fresh = bare_repo("fresh.git");
    publish_to(&fresh, "811");
    assert_eq!(files(&fresh), SEGMENTED);
    assert_eq!(
        trail_rows(&remote_trail(&fresh, AUDIT_BRANCH)),
        (2, 1, true)
    );

    // A branch holding the single file of a trail before segments, pushed there by an older
    // skillgate: converted in one commit, every row kept, the chain continued.
    let old = bare_repo("old.git");
    let seed = remote.path().join("seed");
    common::git(remote.path(), &["init", "-q", "-b", AUDIT_BRANCH, "seed"]);
    std::fs::create_dir_all(seed.join(".skillgate")).expect("mkdir");
    std::fs::write(seed.join(common::TRAIL_SINGLE), &single).expect("write");
    common::git(&seed, &["add", "-A"]);
    common::git(&seed, &["commit", "-qm", "skillgate 4's trail"]);
    common::git(
        &seed,
        &["push", "-q", old.to_str().expect("utf8"), AUDIT_BRANCH],
    );
    let before = common::git(&old, &["rev-parse", AUDIT_BRANCH]);
    assert_eq!(files(&old), [common::TRAIL_SINGLE]);
    publish_to(&old, "812");
    assert_eq!(
        common::git(&old, &["rev-parse", &format!("{AUDIT_BRANCH}^")]),
        before,
        "one commit converts and records"
    );
    assert_eq!(files(&old), SEGMENTED);
    let whole = remote_trail(&old, AUDIT_BRANCH);
    assert_eq!(trail_rows(&whole), (4, 2, true));
    assert_eq!(row_hashes(&whole)[..2], row_hashes(&single)[..]);
    assert_verifies(&whole);
    assert!(
        fake.requests_for("git/create-commit").is_empty(),
        "git mode uses no Git Data API"
    );
}

// ---- what a hostile pull request or results document cannot do -------------------------------

/// Every skill approved: what a fork could write into its own results document.
fn forged_approval(mut doc: Value) -> Value {
    for skill in doc["skills"].as_array_mut().expect("skills") {
        skill["decision"]["decision"] = json!("approved");
        skill["decision"]["tier"] = json!("auto");
        skill["decision"]["reasons"] = json!([]);
        skill["decision"]["escalation_categories"] = json!([]);
    }
    doc["summary"]["auto"] = doc["summary"]["skills"].clone();
    doc["summary"]["escalate"] = json!(0);
    doc["summary"]["human"] = json!(0);
    doc["summary"]["needs_correction"] = json!(0);
    doc
}

#[test]
fn a_forks_document_never_passes_the_check_by_itself() {
    let repo = Repo::plain();
    repo.skill("skills/rho", "rho", 1, 4);
    let mut doc = forged_approval(document(&repo));
    doc["run"]["scope"] = json!("changed");
    let fake = FakeGitHub::start();
    fake.set_repo("octo-org", "octo-repo");
    fake.set_pull(2, &head(), &base(), AUTHOR, "forker/octo-repo", RUN_REPO);
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let check = &fake.check_runs()[0];
    assert_eq!(check.conclusion.as_deref(), Some("action_required"));
    let summary = check.summary.as_deref().unwrap_or_default();
    assert!(
        summary.contains("| rho | added | **human** |")
            && summary.contains("test results self-reported by the job that ran the pull request's code (a fork): an expert confirms them"),
        "{summary}"
    );
    // The trail holds what the fork claimed as waiting for a maintainer, not as approved.
    let bytes = branch_trail(&fake);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("db"), &bytes).expect("write");
    let conn = rusqlite::Connection::open(dir.path().join("db")).expect("open");
    let (decision, level): (String, String) = conn
        .query_row(
            "SELECT decision, approval_level FROM approval_history",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("row");
    assert_eq!((decision.as_str(), level.as_str()), ("escalated", "human"));
}

#[test]
fn a_document_for_another_commit_posts_nothing() {
    let repo = Repo::plain();
    repo.skill("skills/sigma", "sigma", 2, 0);
    let other = "cccccccccccccccccccccccccccccccccccccccc";
    let mut doc = document(&repo);
    doc["run"]["pull_request_head"] = json!(other);
    doc["run"]["head"] = json!(other);
    let fake = published_fake();
    let (code, _, stderr, job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        fake.check_runs().is_empty(),
        "no check run on a commit the document names"
    );
    assert!(fake.comments().is_empty());
    let note = format!(
        "nothing was posted to GitHub: the results are for cccccccccccc, but the commit to publish on is {}",
        &head()[..12]
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert!(
        job.summary()
            .contains("nothing was posted to GitHub: the results are for"),
        "{}",
        job.summary()
    );
    assert!(
        fake.ref_sha("refs/heads/skillgate/audit").is_none(),
        "nor recorded"
    );
}

#[test]
fn other_peoples_comments_and_check_runs_are_left_alone() {
    let repo = Repo::plain();
    repo.skill("skills/tau", "tau", 2, 0);
    let doc = document(&repo);
    let fake = published_fake();
    let mallory = fake.add_issue_comment(2, "<!-- skillgate:summary -->\nAll good", "mallory");
    // The workflow job itself, named skillgate, still running.
    let job_run = fake.add_check_run("skillgate", &head(), "in_progress", None);
    let (code, _, stderr, _job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    let comments = fake.comments();
    assert_eq!(comments.len(), 2, "a comment of our own beside mallory's");
    let theirs = comments.iter().find(|c| c.id == mallory).expect("kept");
    assert_eq!(theirs.body, "<!-- skillgate:summary -->\nAll good");
    let runs = fake.check_runs();
    assert_eq!(runs.len(), 2);
    let untouched = runs.iter().find(|r| r.id == job_run).expect("job run");
    assert_eq!(untouched.status, "in_progress");
}

#[test]
fn names_from_a_document_cannot_issue_workflow_commands_or_escape() {
    let repo = Repo::plain();
    repo.skill("skills/upsilon", "upsilon", 1, 1);
    let mut doc = document(&repo);
    doc["skills"][0]["name"] = json!("upsilon\n::error title=pwned::injected");
    doc["skills"][0]["lint"] = json!([{
        "rule": "x\n::warning::rule",
        "severity": "error",
        "file": "../../../etc/passwd",
        "line": 3,
        "message": "<img src=x onerror=alert(1)> @octocat"
    }]);
    let fake = published_fake();
    let (code, stdout, stderr, job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    assert_eq!(code, 0, "{stderr}");
    for line in stdout.lines().chain(stderr.lines()) {
        assert!(
            !line.trim_start().starts_with("::"),
            "a workflow command: {line}"
        );
    }
    let comment = &fake.comments()[0].body;
    for text in [comment.as_str(), job.summary().as_str()] {
        assert!(!text.contains("<img"), "{text}");
        assert!(!text.contains("@octocat"), "{text}");
    }
    let annotations = &fake.check_runs()[0].annotations;
    assert!(
        annotations
            .iter()
            .all(|a| a["path"] == "skills/upsilon/SKILL.md"),
        "{annotations:?}"
    );
}

// ---- reviews --------------------------------------------------------------------------------

/// `skillgate review` for a review by `login` in `state` of `commit`.
fn review(
    repo: &Repo,
    fake: &FakeGitHub,
    (base, head): (&str, &str),
    (id, login, state, commit): (u64, &str, &str, &str),
) -> (i32, String, String) {
    let job = Job::new();
    let path = job.event("pull_request_review.submitted.json", base, head);
    let mut event: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("event")).expect("json");
    event["review"]["id"] = json!(id);
    event["review"]["user"]["login"] = json!(login);
    event["review"]["state"] = json!(state);
    event["review"]["commit_id"] = json!(commit);
    event["review"]["body"] = json!("Looks right to me. cc @octocat <b>");
    event["review"]["submitted_at"] = json!(
        humantime::format_rfc3339_seconds(std::time::SystemTime::now() + Duration::from_secs(600))
            .to_string()
    );
    std::fs::write(&path, event.to_string()).expect("write");
    let mut cmd = repo.skillgate(&["review"]);
    job.env(&mut cmd, fake, "pull_request_review", &path);
    run(cmd)
}

#[test]
fn eligible_approvals_are_recorded_and_pass_the_check_when_all_are_in() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    let (code, _, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required")
    );
    let shas = (base.as_str(), head.as_str());

    // Someone nobody routed to: nothing recorded.
    let (code, stdout, stderr) = review(&repo, &fake, shas, (11, "bob", "approved", &head));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("bob's review does not count for alpha, beta"),
        "{stdout}"
    );
    // A review of an older commit: nothing recorded.
    let (_, stdout, _) = review(&repo, &fake, shas, (12, "alice", "approved", &base));
    assert!(stdout.contains("it changes nothing"), "{stdout}");
    fake.add_review(2, "alice", "APPROVED");
    // alice is routed the coverage escalation (alpha).
    let (code, stdout, stderr) = review(&repo, &fake, shas, (13, "alice", "approved", &head));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("alice's approval of alpha"), "{stdout}");
    assert!(
        stdout.contains("@bob") || !stdout.contains("beta | human | 1/1"),
        "{stdout}"
    );
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required"),
        "beta still waits for a maintainer"
    );
    // The same review delivered twice records nothing more.
    let commits = fake.requests_for("git/create-commit").len();
    review(&repo, &fake, shas, (13, "alice", "approved", &head));
    assert_eq!(fake.requests_for("git/create-commit").len(), commits);
    // The maintainer approves beta: every skill is approved, the check passes.
    fake.add_review(2, "maintainer1", "APPROVED");
    let (code, stdout, stderr) = review(&repo, &fake, shas, (14, "maintainer1", "approved", &head));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("maintainer1's approval of beta"),
        "{stdout}"
    );
    let check = &fake.check_runs()[0];
    assert_eq!(check.conclusion.as_deref(), Some("success"));
    assert_eq!(
        check.title.as_deref(),
        Some("every skill waiting for review is approved")
    );
    fake.assert_no_violations();

    // The trail on the branch: two approvals with approver, escaped reasoning and minutes.
    let bytes = branch_trail(&fake);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("db"), &bytes).expect("write");
    let conn = rusqlite::Connection::open(dir.path().join("db")).expect("open");
    let rows: Vec<(String, String, String, i64)> = conn
        .prepare(
            "SELECT s.name, ah.approver, ah.reasoning, ah.review_duration_minutes \
             FROM approval_history ah JOIN skills s ON s.id = ah.skill_id \
             WHERE ah.decision = 'approved' ORDER BY ah.id",
        )
        .expect("query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!((rows[0].0.as_str(), rows[0].1.as_str()), ("alpha", "alice"));
    assert_eq!(
        (rows[1].0.as_str(), rows[1].1.as_str()),
        ("beta", "maintainer1")
    );
    assert_eq!(
        rows[0].2,
        "Looks right to me. cc @\u{200d}octocat &lt;b&gt;"
    );
    assert!(
        (9..=11).contains(&rows[0].3),
        "about ten minutes: {}",
        rows[0].3
    );
    let mut verify = common::skillgate();
    verify
        .args(["audit", "verify", "--db"])
        .arg(dir.path().join("db"));
    let (code, stdout, stderr) = run(verify);
    assert_eq!(code, 0, "{stdout}{stderr}");

    // "Re-run jobs" at the same commit: the approvals still hold, the check stays passed.
    let mut rerun = repo.skillgate(&["check"]);
    job.env(&mut rerun, &fake, "pull_request", &event);
    rerun.env("GITHUB_RUN_ATTEMPT", "2");
    let (code, _, stderr) = run(rerun);
    assert_eq!(code, 3, "the gate's own verdict is unchanged: {stderr}");
    assert!(
        stderr.contains("was already approved: the check passes"),
        "{stderr}"
    );
    assert_eq!(fake.check_runs().len(), 1);
    assert_eq!(fake.check_runs()[0].conclusion.as_deref(), Some("success"));
    fake.assert_no_violations();
}

#[test]
fn a_change_request_fails_the_check() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    check(&repo, &job, &fake, "pull_request", &event);
    let (code, stdout, stderr) = review(
        &repo,
        &fake,
        (&base, &head),
        (21, "maintainer1", "changes_requested", &head),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("maintainer1's change request of beta"),
        "{stdout}"
    );
    assert_eq!(fake.check_runs()[0].conclusion.as_deref(), Some("failure"));
    fake.assert_no_violations();
}

#[test]
fn a_branch_that_keeps_moving_fails_loudly_and_keeps_the_results() {
    let fake = published_fake();
    let (code, _, stderr, _job) = publish(&run_document("499"), &fake, "");
    assert_eq!(code, 0, "an earlier run made the branch: {stderr}");
    let doc = run_document("500");
    // Every update loses the race.
    fake.fail_next(
        "git/update-ref",
        10,
        422,
        &[],
        r#"{"message":"Update is not a fast forward"}"#,
    );
    let (code, _, stderr, _job) = publish(&doc, &fake, "[audit]\nattempts = 2\n");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "audit branch skillgate/audit: other runs kept moving it; gave up after 2 attempts"
        ),
        "{stderr}"
    );
    let kept = tested_repo().join(".skillgate/unrecorded-500-1.json");
    assert!(stderr.contains(&kept.display().to_string()), "{stderr}");
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&kept).expect("kept")).expect("json");
    assert_eq!(saved["run"]["run_id"], "500");
    assert!(stderr.contains("skillgate publish --results"), "{stderr}");
    // The pull request still heard of the verdict.
    assert_eq!(fake.check_runs().len(), 1);
    assert!(
        fake.check_runs()[0]
            .summary
            .as_deref()
            .unwrap_or_default()
            .contains("| omicron |")
    );
}

#[test]
fn a_database_from_a_newer_skillgate_is_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let newer = dir.path().join("newer.db");
    {
        let conn = rusqlite::Connection::open(&newer).expect("open");
        conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
            .expect("schema");
    }
    let bytes = std::fs::read(&newer).expect("read");
    // As the single file of a trail before segments (the branch has no registry: read whole),
    // and as the registry of a segmented trail.
    for path in [common::TRAIL_SINGLE, common::TRAIL_REGISTRY] {
        let fake = published_fake();
        let head = fake.commit_files(AUDIT_BRANCH, &[(path, &bytes)], "a newer skillgate");
        let (code, _, stderr, _job) = publish(&run_document("600"), &fake, "");
        assert_eq!(code, 1, "{path}: {stderr}");
        assert!(
            stderr.contains("99"),
            "{path}: names the database's version: {stderr}"
        );
        assert_eq!(
            fake.ref_sha("refs/heads/skillgate/audit"),
            Some(head),
            "{path}: the branch is untouched"
        );
        assert!(fake.requests_for("git/create-blob").is_empty(), "{path}");
    }
}

#[test]
fn no_review_passes_a_check_while_a_skill_needs_correction() {
    let repo = Repo::git();
    repo.write(".skillgate.toml", ROUTING);
    repo.skill(".claude/skills/alpha", "alpha", 5, 0);
    let base = repo.commit("alpha");
    repo.skill(".claude/skills/alpha", "alpha", 6, 0);
    repo.write(
        ".claude/skills/gamma/SKILL.md",
        "---\nname: gamma\n---\n# no description\n",
    );
    let head = repo.commit("alpha grows, gamma is broken");
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    let (code, _, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    assert_eq!(code, 4, "{stderr}");
    assert_eq!(fake.check_runs()[0].conclusion.as_deref(), Some("failure"));
    let shas = (base.as_str(), head.as_str());
    fake.add_review(2, "alice", "APPROVED");
    let (code, stdout, stderr) = review(&repo, &fake, shas, (31, "alice", "approved", &head));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("alice's approval of alpha"), "{stdout}");
    assert!(stdout.contains("gamma still needs correction"), "{stdout}");
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("failure"),
        "an approval of alpha does not pass gamma"
    );
    // The author's own approval never counts.
    let (_, stdout, _) = review(&repo, &fake, shas, (32, AUTHOR, "approved", &head));
    assert!(
        stdout.contains("their own review does not count"),
        "{stdout}"
    );
    fake.assert_no_violations();
}

#[test]
fn a_pull_request_does_not_choose_its_own_config() {
    let (repo, base, _) = pull_request_repo();
    // The pull request loosens the policy and names its own reviewer.
    repo.write(
        ".skillgate.toml",
        &format!("{ROUTING}reviewers = [\"buddy\"]\n\n[policy]\nmode = \"warn\"\n"),
    );
    let head = repo.commit("and a looser config");
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    let (code, _, stderr) = check(&repo, &job, &fake, "pull_request", &event);
    assert_eq!(code, 3, "decided under the base's policy: {stderr}");
    assert!(
        stderr.contains("the pull request changes .skillgate.toml: this run applies the base's"),
        "{stderr}"
    );
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required")
    );
    let (_, stdout, _) = review(
        &repo,
        &fake,
        (&base, &head),
        (41, "buddy", "approved", &head),
    );
    assert!(
        stdout.contains("buddy's review does not count for alpha, beta"),
        "{stdout}"
    );
    fake.assert_no_violations();
}

#[test]
fn a_branch_without_the_database_is_not_overwritten() {
    let fake = published_fake();
    let head = fake.commit_files("skillgate/audit", &[("README.md", b"other")], "someone's");
    let (code, _, stderr, job) = publish(&run_document("700"), &fake, "");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("audit branch skillgate/audit has no database at its head"),
        "{stderr}"
    );
    assert_eq!(fake.ref_sha("refs/heads/skillgate/audit"), Some(head));
    let _ = job;
}

#[test]
fn a_dismissed_approval_no_longer_counts() {
    let (repo, base, head) = pull_request_repo();
    let fake = fake_for(&base, &head, &format!("{OWNER}/{REPO}"));
    let job = Job::new();
    let event = job.event("pull_request.opened.json", &base, &head);
    check(&repo, &job, &fake, "pull_request", &event);
    let shas = (base.as_str(), head.as_str());
    fake.add_review(2, "alice", "APPROVED");
    review(&repo, &fake, shas, (51, "alice", "approved", &head));
    fake.add_review(2, "maintainer1", "APPROVED");
    review(&repo, &fake, shas, (52, "maintainer1", "approved", &head));
    assert_eq!(fake.check_runs()[0].conclusion.as_deref(), Some("success"));
    // A maintainer dismisses alice's approval: alpha waits again, and so does the check.
    fake.dismiss_reviews(2, "alice");
    let (code, stdout, stderr) = review(&repo, &fake, shas, (51, "alice", "dismissed", &head));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("alice's dismissed review of alpha"),
        "{stdout}"
    );
    assert!(
        stdout.contains("| alpha | escalate | 0/1 | — |"),
        "{stdout}"
    );
    assert_eq!(
        fake.check_runs()[0].conclusion.as_deref(),
        Some("action_required")
    );
    // Approving again passes it again.
    fake.add_review(2, "alice", "APPROVED");
    review(&repo, &fake, shas, (53, "alice", "approved", &head));
    assert_eq!(fake.check_runs()[0].conclusion.as_deref(), Some("success"));
    fake.assert_no_violations();
}

/// A token made at run time, so no literal token sits in the source.
fn made_up_token() -> String {
    let alphabet = b"abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let body: String = (0..36)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[(state >> 33) as usize % alphabet.len()] as char
        })
        .collect();
    format!("ghp_{body}")
}

#[test]
fn a_documents_own_words_are_redacted_before_anyone_sees_them() {
    let repo = Repo::plain();
    repo.skill("skills/phi", "phi", 1, 1);
    let mut doc = document(&repo);
    let token = made_up_token();
    let said = format!("the suite printed token={token} and stopped");
    for signal in [
        "suite_failure",
        "results_unread",
        "coverage_unread",
        "results_disagree",
    ] {
        doc["skills"][0]["signals"][signal] = json!(said);
    }
    doc["skills"][0]["tests"]["failed_tests"][0]["error"] = json!(said);
    let fake = published_fake();
    let (_, stdout, stderr, job) = publish(&doc, &fake, "");
    fake.assert_no_violations();
    let check = &fake.check_runs()[0];
    let comment = &fake.comments()[0].body;
    let annotations = format!("{:?}", check.annotations);
    let summary = job.summary();
    let texts = [
        stdout.as_str(),
        stderr.as_str(),
        comment.as_str(),
        summary.as_str(),
        check.summary.as_deref().unwrap_or(""),
        check.text.as_deref().unwrap_or(""),
        annotations.as_str(),
    ];
    // The document's words reach people (so the check below is not vacuous), without the token.
    assert!(
        texts.iter().any(|t| t.contains("the suite printed token=")),
        "{texts:?}"
    );
    for text in texts {
        assert!(!text.contains(&token), "the token leaked: {text}");
    }
}
