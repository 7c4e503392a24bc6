//! Issue #14, point 3: an approval counts only when GitHub's list of the pull request's reviews
//! holds it. A correctly chained approval row in the audit database (a suite appended one "from"
//! `maintainer1`) never passes the check on its own word, nor does an approval of an older
//! commit, a dismissed one, or any approval when the reviews cannot be read.

mod common;
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Repo, run};
use serde_json::{Value, json};
use skillgate::store::{Review, ReviewDecision, Store};
use support::github::FakeGitHub;

const OWNER: &str = "Codertocat";
const REPO: &str = "Hello-World";
const AUTHOR: &str = "Codertocat";
const PULL: u64 = 2;
const AUDIT_BRANCH: &str = "skillgate/audit";

const ROUTING: &str = r#"
[routing]
coverage = { users = ["alice"] }
human = { users = ["maintainer1", "Codertocat"], teams = ["octo-org/maintainers"] }
"#;

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

    /// A payload from the fixtures with the pull request's shas replaced.
    fn event(&self, fixture: &str, base: &str, head: &str) -> PathBuf {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/github/payloads")
                .join(fixture),
        )
        .expect("payload");
        let mut payload: Value = serde_json::from_str(&text).expect("json");
        payload["pull_request"]["base"]["sha"] = json!(base);
        payload["pull_request"]["head"]["sha"] = json!(head);
        let path = self.path("event.json");
        std::fs::write(&path, payload.to_string()).expect("write event");
        path
    }

    /// The environment Actions gives a job, pointed at the fake.
    fn env(&self, cmd: &mut std::process::Command, fake: &FakeGitHub, name: &str, event: &Path) {
        cmd.env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", name)
            .env("GITHUB_EVENT_PATH", event)
            .env("GITHUB_REPOSITORY", format!("{OWNER}/{REPO}"))
            .env("GITHUB_API_URL", fake.url())
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_TOKEN", fake.token())
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("GITHUB_OUTPUT", self.path("output.txt"));
    }
}

/// Two skills changed by a pull request: alpha escalated for coverage (alice decides), beta
/// human (maintainer1 decides). The first `check` leaves the check run `action_required` and
/// the escalations on the audit branch.
struct Scenario {
    repo: Repo,
    fake: FakeGitHub,
    base: String,
    head: String,
}

impl Scenario {
    fn new() -> Self {
        let repo = Repo::git();
        repo.write(".skillgate.toml", ROUTING);
        repo.skill(".claude/skills/alpha", "alpha", 5, 0);
        repo.skill(".claude/skills/beta", "beta", 5, 0);
        let base = repo.commit("two skills");
        repo.skill(".claude/skills/alpha", "alpha", 6, 0);
        repo.skill(".claude/skills/beta", "beta", 3, 2);
        let head = repo.commit("alpha grows, beta regresses");
        let fake = FakeGitHub::start();
        fake.set_repo(OWNER, REPO);
        let full = format!("{OWNER}/{REPO}");
        fake.set_pull(PULL, &head, &base, AUTHOR, &full, &full);
        let scenario = Self {
            repo,
            fake,
            base,
            head,
        };
        let (code, _, stderr) = scenario.check();
        assert_eq!(code, 3, "{stderr}");
        assert_eq!(scenario.conclusion().as_deref(), Some("action_required"));
        scenario
    }

    /// `skillgate check` on the pull request's `pull_request` event (a first run, or "Re-run
    /// jobs").
    fn check(&self) -> (i32, String, String) {
        let job = Job::new();
        let event = job.event("pull_request.opened.json", &self.base, &self.head);
        let mut cmd = self.repo.skillgate(&["check"]);
        job.env(&mut cmd, &self.fake, "pull_request", &event);
        cmd.env("GITHUB_RUN_ATTEMPT", "2");
        run(cmd)
    }

    /// `skillgate review` for a review event by `login` in `state` of `commit`.
    fn review(&self, id: u64, login: &str, state: &str, commit: &str) -> (i32, String, String) {
        let job = Job::new();
        let path = job.event("pull_request_review.submitted.json", &self.base, &self.head);
        let mut event: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("event")).expect("json");
        event["review"]["id"] = json!(id);
        event["review"]["user"]["login"] = json!(login);
        event["review"]["state"] = json!(state);
        event["review"]["commit_id"] = json!(commit);
        event["review"]["body"] = json!("Looks right to me.");
        event["review"]["submitted_at"] = json!(now());
        std::fs::write(&path, event.to_string()).expect("write");
        let mut cmd = self.repo.skillgate(&["review"]);
        job.env(&mut cmd, &self.fake, "pull_request_review", &path);
        run(cmd)
    }

    /// The two-job flow: the pull request's job runs `check --publish none --out`, then a
    /// `workflow_run` job runs `publish` on its document (a re-run of both, here).
    fn check_then_publish(&self) -> (i32, String, String) {
        let job = Job::new();
        let event = job.event("pull_request.opened.json", &self.base, &self.head);
        let results = job.path("results.json");
        let out = format!("--out={}", results.display());
        let mut cmd = self.repo.skillgate(&["check", "--publish", "none", &out]);
        job.env(&mut cmd, &self.fake, "pull_request", &event);
        cmd.env_remove("GITHUB_TOKEN");
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 3, "{stderr}");
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "tests/fixtures/github/payloads/workflow_run.completed.with-pull-requests.json",
            ))
            .expect("payload");
        let mut payload: Value = serde_json::from_str(&text).expect("json");
        payload["workflow_run"]["head_sha"] = json!(self.head);
        payload["workflow_run"]["head_repository"]["full_name"] = json!(format!("{OWNER}/{REPO}"));
        payload["workflow_run"]["pull_requests"] = json!([]);
        payload["repository"]["full_name"] = json!(format!("{OWNER}/{REPO}"));
        payload["repository"]["name"] = json!(REPO);
        payload["repository"]["owner"]["login"] = json!(OWNER);
        let run_event = job.path("workflow_run.json");
        std::fs::write(&run_event, payload.to_string()).expect("write");
        let mut cmd = common::skillgate();
        cmd.arg("publish")
            .arg("--results")
            .arg(&results)
            .arg("--repo")
            .arg(self.repo.path());
        job.env(&mut cmd, &self.fake, "workflow_run", &run_event);
        run(cmd)
    }

    fn conclusion(&self) -> Option<String> {
        let runs = self.fake.check_runs();
        assert_eq!(runs.len(), 1, "one check run, updated in place");
        runs[0].conclusion.clone()
    }

    /// What a suite did to the working copy of the database: append approval rows through the
    /// gate's own code, so they chain like the real ones, and let them reach the audit branch.
    fn forge_approvals(&self, approvals: &[(&str, &str)]) {
        let bytes = common::whole_trail(&|p| self.fake.file_at(AUDIT_BRANCH, p))
            .expect("the first check committed the trail");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        std::fs::write(&path, bytes).expect("write db");
        {
            let mut store = Store::open(&path).expect("open db");
            let pending = store
                .pending_escalations(&format!("{OWNER}/{REPO}"), PULL, &self.head)
                .expect("pending");
            for (i, (skill, login)) in approvals.iter().enumerate() {
                let p = pending
                    .iter()
                    .find(|p| p.skill == *skill)
                    .unwrap_or_else(|| panic!("{skill} waits: {pending:?}"));
                let review = Review {
                    approver: (*login).to_owned(),
                    decision: ReviewDecision::Approved,
                    reasoning: format!("approved by @{login}"),
                    reviewed_at: now(),
                    review_id: (900 + i).to_string(),
                };
                assert!(store.record_review(p, &review).expect("append"));
            }
        }
        let forged = std::fs::read(&path).expect("read db");
        let files = common::segmented_files(&forged);
        let files: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
            .collect();
        self.fake
            .commit_files(AUDIT_BRANCH, &files, "a suite's approvals");
        let mut verify = common::skillgate();
        verify.args(["audit", "verify", "--db"]).arg(&path);
        let (code, stdout, stderr) = run(verify);
        assert_eq!(code, 0, "the forged rows chain: {stdout}{stderr}");
    }
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now() + Duration::from_secs(600))
        .to_string()
}

fn short(sha: &str) -> &str {
    &sha[..12]
}

#[test]
fn a_forged_approval_row_does_not_pass_a_rerun() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    // GitHub has alice's approval of the head, and nothing from maintainer1.
    s.fake.add_review(PULL, "alice", "APPROVED");

    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        !stderr.contains("was already approved"),
        "the database's word is not enough: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "approval by maintainer1 recorded for beta is not among the pull request's reviews at {} (they have not reviewed the pull request): not counted",
            short(&s.head)
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("approval by alice"), "{stderr}");
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    // Read once, with every page asked for.
    let listed = s.fake.requests_for("pulls/list-reviews");
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].query.get("per_page").map(String::as_str),
        Some("100")
    );
    s.fake.assert_no_violations();
}

#[test]
fn publish_counts_only_approvals_github_confirms() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    s.fake.add_review(PULL, "alice", "APPROVED");
    let (code, _, stderr) = s.check_then_publish();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(
            "approval by maintainer1 recorded for beta is not among the pull request's reviews"
        ),
        "{stderr}"
    );
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    // Once GitHub holds maintainer1's approval of the head, the re-run passes.
    s.fake.add_review(PULL, "maintainer1", "APPROVED");
    let (code, _, stderr) = s.check_then_publish();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("was already approved: the check passes"),
        "{stderr}"
    );
    assert_eq!(s.conclusion().as_deref(), Some("success"));
    s.fake.assert_no_violations();
}

#[test]
fn the_same_rows_pass_once_github_holds_the_reviews() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    s.fake.add_review(PULL, "alice", "COMMENTED");
    s.fake.add_review(PULL, "alice", "APPROVED");
    // A comment after an approval leaves it standing, as on GitHub.
    s.fake.add_review(PULL, "maintainer1", "APPROVED");
    s.fake.add_review(PULL, "maintainer1", "COMMENTED");

    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "the gate's own verdict is unchanged: {stderr}");
    assert!(
        stderr.contains(&format!(
            "every skill waiting at {} was already approved: the check passes",
            short(&s.head)
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("not counted"), "{stderr}");
    assert_eq!(s.conclusion().as_deref(), Some("success"));
    s.fake.assert_no_violations();
}

#[test]
fn reviews_are_read_across_pages() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    s.fake.add_review(PULL, "alice", "APPROVED");
    for _ in 0..150 {
        s.fake.add_review(PULL, "bystander", "COMMENTED");
    }
    // On the second page of a hundred.
    s.fake.add_review(PULL, "maintainer1", "APPROVED");

    let (_, _, stderr) = s.check();
    assert_eq!(s.conclusion().as_deref(), Some("success"), "{stderr}");
    assert_eq!(s.fake.requests_for("pulls/list-reviews").len(), 2);
    s.fake.assert_no_violations();
}

#[test]
fn an_approval_of_an_older_commit_does_not_count_for_the_new_head() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    s.fake.add_review(PULL, "alice", "APPROVED");
    s.fake
        .add_review_of(PULL, "maintainer1", "APPROVED", &s.base);

    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "approval by maintainer1 recorded for beta is not among the pull request's reviews at {} (their latest approval is of {}): not counted",
            short(&s.head),
            short(&s.base)
        )),
        "{stderr}"
    );
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    s.fake.assert_no_violations();
}

#[test]
fn an_approval_dismissed_on_github_does_not_count_though_recorded() {
    let s = Scenario::new();
    s.fake.add_review(PULL, "alice", "APPROVED");
    s.fake.add_review(PULL, "maintainer1", "APPROVED");
    let (_, _, stderr) = s.review(61, "alice", "approved", &s.head);
    let (_, _, stderr2) = s.review(62, "maintainer1", "approved", &s.head);
    assert_eq!(
        s.conclusion().as_deref(),
        Some("success"),
        "{stderr}{stderr2}"
    );
    // A maintainer dismisses maintainer1's review, and the dismissal's job never ran: the
    // database still holds the approval.
    s.fake.dismiss_reviews(PULL, "maintainer1");
    // Someone re-runs the check: it asks again.
    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(
            "approval by maintainer1 recorded for beta is not among the pull request's reviews"
        ) && stderr.contains("(their latest review is dismissed): not counted"),
        "{stderr}"
    );
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    s.fake.assert_no_violations();
}

#[test]
fn a_review_does_not_pass_the_check_on_a_forged_row_beside_it() {
    let s = Scenario::new();
    s.forge_approvals(&[("beta", "maintainer1")]);
    // alice really approves alpha; the database also says maintainer1 approved beta.
    s.fake.add_review(PULL, "alice", "APPROVED");
    let (code, stdout, stderr) = s.review(71, "alice", "approved", &s.head);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("alice's approval of alpha"), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "approval by maintainer1 recorded for beta is not among the pull request's reviews at {} (they have not reviewed the pull request): not counted",
            short(&s.head)
        )),
        "{stderr}"
    );
    assert!(stdout.contains("| beta | human | 0/1 |"), "{stdout}");
    assert!(stdout.contains("| alpha | escalate | 1/1"), "{stdout}");
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    s.fake.assert_no_violations();
}

#[test]
fn when_the_reviews_cannot_be_read_nothing_is_approved() {
    let s = Scenario::new();
    s.forge_approvals(&[("alpha", "alice"), ("beta", "maintainer1")]);
    s.fake.add_review(PULL, "alice", "APPROVED");
    s.fake.add_review(PULL, "maintainer1", "APPROVED");
    s.fake.fail_next(
        "pulls/list-reviews",
        1,
        403,
        &[],
        r#"{"message":"Resource not accessible by integration"}"#,
    );

    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "could not read the pull request's reviews to confirm the approvals recorded at {}:",
            short(&s.head)
        )) && stderr.contains("403")
            && stderr.contains(
                "no approval counts on the audit database's word, the skills wait for review"
            ),
        "{stderr}"
    );
    assert!(!stderr.contains(&s.fake.token()), "{stderr}");
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
}

#[test]
fn a_forged_row_from_someone_not_routed_does_not_count_though_they_approved() {
    let s = Scenario::new();
    // bob's approval is real on GitHub, but beta is maintainer1's to decide: the gate never
    // wrote this row.
    s.forge_approvals(&[("alpha", "alice"), ("beta", "bob")]);
    s.fake.add_review(PULL, "alice", "APPROVED");
    s.fake.add_review(PULL, "bob", "APPROVED");

    let (code, _, stderr) = s.check();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(
            "approval by bob recorded for beta is not from one of its reviewers in `[routing]`: not counted"
        ),
        "{stderr}"
    );
    assert_eq!(s.conclusion().as_deref(), Some("action_required"));
    s.fake.assert_no_violations();
}
