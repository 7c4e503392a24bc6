//! `FakeGitHub`: the handle a test holds: start, configure, script faults, inspect.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;

use super::dispatch::Shared;
use super::git::put_commit;
use super::pulls::{PullSpec, pull_json};
use super::record::{RecordedRequest, Violation};
use super::server::{self, Server};
use super::spec::Spec;
use super::state::{
    CheckRun, Comment, Fault, GitCommit, Issue, Pull, PullFile, ReviewerRequest, State, TreeEntry,
};

/// The token the fake accepts unless started with another.
pub const DEFAULT_TOKEN: &str = "ghs_fake0123456789";

/// A GitHub REST API on `http://127.0.0.1:<port>`, stopped when dropped.
pub struct FakeGitHub {
    shared: Arc<Shared>,
    url: String,
    server: Server,
}

impl FakeGitHub {
    /// Starts a server accepting `DEFAULT_TOKEN`.
    pub fn start() -> Self {
        Self::start_with_token(DEFAULT_TOKEN)
    }

    pub fn start_with_token(token: &str) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let url = format!("http://127.0.0.1:{port}");
        let shared = Arc::new(Shared {
            spec: Spec::load(),
            state: Mutex::new(State::new(token)),
            base_url: url.clone(),
        });
        let server = server::spawn(Arc::clone(&shared), listener);
        Self {
            shared,
            url,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`, for `GITHUB_API_URL` or octocrab's `base_uri`.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    pub fn token(&self) -> String {
        self.state().token.clone()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state()
    }

    fn known_operation(&self, operation_id: &str) {
        assert!(
            self.shared.spec.operation(operation_id).is_some(),
            "`{operation_id}` is not an operation of openapi-subset.strict.json"
        );
    }

    // ---- configuration ---------------------------------------------------------------

    /// Requests for any other `owner/repo` become violations (by default any repo is served).
    pub fn set_repo(&self, owner: &str, repo: &str) {
        self.state().repo = Some((owner.to_string(), repo.to_string()));
    }

    /// The login new comments are created under (default `github-actions[bot]`).
    pub fn set_bot_login(&self, login: &str) {
        self.state().bot_login = login.to_string();
    }

    /// A read-only token (a fork's): every write answers 403 "Resource not accessible by
    /// integration".
    pub fn set_read_only(&self, read_only: bool) {
        self.state().read_only = read_only;
    }

    /// Team reviewer requests answer 422, as with the default workflow token.
    pub fn set_reject_team_reviewers(&self, reject: bool) {
        self.state().reject_team_reviewers = reject;
    }

    /// What `repos/get-collaborator-permission-level` says for `user` (default `read`).
    pub fn set_permission(&self, user: &str, permission: &str) {
        self.state()
            .permissions
            .insert(user.to_string(), permission.to_string());
    }

    // ---- pull requests ---------------------------------------------------------------

    pub fn set_pull(
        &self,
        number: u64,
        head_sha: &str,
        base_sha: &str,
        author_login: &str,
        head_repo_full_name: &str,
        base_repo_full_name: &str,
    ) {
        let json = pull_json(
            &self.shared.spec,
            &self.url,
            &PullSpec {
                number,
                head_sha,
                base_sha,
                author_login,
                head_repo_full_name,
                base_repo_full_name,
            },
        );
        let mut state = self.state();
        let pull = state.pulls.entry(number).or_insert_with(|| Pull {
            number,
            json: Value::Null,
            files: Vec::new(),
            requested_users: Vec::new(),
            requested_teams: Vec::new(),
            reviews: Vec::new(),
        });
        pull.json = json;
    }

    /// Edits the `pulls/get` answer of a pull set with `set_pull` (state, draft, labels…).
    pub fn update_pull(&self, number: u64, edit: impl FnOnce(&mut Value)) {
        let mut state = self.state();
        let pull = state
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("pull #{number} was not set with set_pull"));
        edit(&mut pull.json);
    }

    /// The files `pulls/list-files` lists (GitHub stops at 3,000).
    pub fn set_pull_files(&self, number: u64, files: Vec<PullFile>) {
        let mut state = self.state();
        let pull = state
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("pull #{number} was not set with set_pull"));
        pull.files = files;
    }

    /// A submitted review, listed by `pulls/list-reviews` (`APPROVED`, `CHANGES_REQUESTED`…).
    pub fn add_review(&self, number: u64, login: &str, review_state: &str) {
        let mut state = self.state();
        let pull = state
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("pull #{number} was not set with set_pull"));
        pull.reviews
            .push((login.to_string(), review_state.to_string(), None));
    }

    /// A submitted review of `commit_id` (an older head, say), listed by `pulls/list-reviews`.
    pub fn add_review_of(&self, number: u64, login: &str, review_state: &str, commit_id: &str) {
        let mut state = self.state();
        let pull = state
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("pull #{number} was not set with set_pull"));
        pull.reviews.push((
            login.to_string(),
            review_state.to_string(),
            Some(commit_id.to_string()),
        ));
    }

    /// Marks every review by `login` on the pull `DISMISSED`, as dismissing a review does.
    pub fn dismiss_reviews(&self, number: u64, login: &str) {
        let mut state = self.state();
        let pull = state
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("pull #{number} was not set with set_pull"));
        for review in pull.reviews.iter_mut().filter(|r| r.0 == login) {
            review.1 = "DISMISSED".to_string();
        }
    }

    /// Every `pulls/request-reviewers` call, accepted or not, in order.
    pub fn reviewer_requests(&self) -> Vec<ReviewerRequest> {
        self.state().reviewer_requests.clone()
    }

    /// `(users, teams)` currently requested on the pull.
    pub fn requested_reviewers(&self, number: u64) -> (Vec<String>, Vec<String>) {
        self.state()
            .pulls
            .get(&number)
            .map(|p| (p.requested_users.clone(), p.requested_teams.clone()))
            .unwrap_or_default()
    }

    // ---- comments --------------------------------------------------------------------

    /// Seeds a comment on the highest-numbered pull set with `set_pull` (or #1); returns its id.
    pub fn add_comment(&self, body: &str, user: &str) -> u64 {
        let mut state = self.state();
        let number = state.pulls.keys().next_back().copied().unwrap_or(1);
        state.add_comment(number, body, user)
    }

    pub fn add_issue_comment(&self, issue_number: u64, body: &str, user: &str) -> u64 {
        self.state().add_comment(issue_number, body, user)
    }

    /// All comments, oldest first.
    pub fn comments(&self) -> Vec<Comment> {
        self.state().comments.clone()
    }

    // ---- issues ----------------------------------------------------------------------

    /// Opens an issue by `user` (its number follows the pull requests'); returns its number.
    pub fn add_issue(&self, title: &str, body: &str, labels: &[&str], user: &str) -> u64 {
        let labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
        self.state().add_issue(title, Some(body), &labels, user)
    }

    /// All issues (pull requests aside), by number.
    pub fn issues(&self) -> Vec<Issue> {
        self.state().issues.values().cloned().collect()
    }

    /// The repository's labels, in the order they were created.
    pub fn labels(&self) -> Vec<String> {
        self.state().labels.clone()
    }

    // ---- check runs ------------------------------------------------------------------

    /// Seeds a check run (as a previous run of the gate would have left it); returns its id.
    pub fn add_check_run(
        &self,
        name: &str,
        head_sha: &str,
        status: &str,
        conclusion: Option<&str>,
    ) -> u64 {
        let mut state = self.state();
        let id = state.new_id();
        let now = state.tick();
        state.check_runs.push(CheckRun {
            id,
            name: name.to_string(),
            head_sha: head_sha.to_string(),
            status: status.to_string(),
            conclusion: conclusion.map(str::to_string),
            details_url: None,
            external_id: None,
            started_at: Some(now.clone()),
            completed_at: (status == "completed").then_some(now),
            title: None,
            summary: None,
            text: None,
            annotations: Vec::new(),
        });
        id
    }

    /// All check runs, oldest first.
    pub fn check_runs(&self) -> Vec<CheckRun> {
        self.state().check_runs.clone()
    }

    pub fn check_run(&self, id: u64) -> Option<CheckRun> {
        self.state().check_runs.iter().find(|r| r.id == id).cloned()
    }

    // ---- git data --------------------------------------------------------------------

    /// Commits `files` (path → bytes) on top of `refs/heads/<branch>` (or as a root commit) and
    /// moves the branch; returns the commit sha.
    pub fn commit_files(&self, branch: &str, files: &[(&str, &[u8])], message: &str) -> String {
        let mut state = self.state();
        let full = format!("refs/heads/{branch}");
        let head = state.git.refs.get(&full).cloned();
        let mut flat = head
            .as_ref()
            .and_then(|h| state.git.commits.get(h))
            .and_then(|c| state.git.trees.get(&c.tree))
            .cloned()
            .unwrap_or_default();
        for (path, bytes) in files {
            let sha = state.git.put_blob(bytes.to_vec());
            flat.insert(
                path.trim_matches('/').to_string(),
                TreeEntry {
                    mode: "100644".into(),
                    kind: "blob".into(),
                    sha,
                },
            );
        }
        let tree = state.git.put_tree(flat);
        let commit = put_commit(
            &mut state,
            &tree,
            head.into_iter().collect(),
            message,
            &Value::Null,
            &Value::Null,
        );
        state.git.refs.insert(full, commit.sha.clone());
        commit.sha
    }

    /// Points a full ref name (`refs/heads/skillgate/audit`) at a commit.
    pub fn set_ref(&self, full_ref: &str, sha: &str) {
        self.state()
            .git
            .refs
            .insert(full_ref.to_string(), sha.to_string());
    }

    pub fn ref_sha(&self, full_ref: &str) -> Option<String> {
        self.state().git.refs.get(full_ref).cloned()
    }

    /// The bytes of `path` at a ref, branch or commit sha.
    pub fn file_at(&self, reference: &str, path: &str) -> Option<Vec<u8>> {
        let state = self.state();
        let commit = state.git.resolve(reference)?;
        state.git.file(&commit, path).cloned()
    }

    pub fn git_commit(&self, sha: &str) -> Option<GitCommit> {
        self.state().git.commits.get(sha).cloned()
    }

    // ---- faults ----------------------------------------------------------------------

    /// The next `times` requests for `operation_id` answer `status` with `headers` and `body`
    /// (JSON or not) instead of running. Faults for one operation are consumed in the order
    /// they were scripted.
    pub fn fail_next(
        &self,
        operation_id: &str,
        times: u32,
        status: u16,
        headers: &[(&str, &str)],
        body: &str,
    ) {
        self.push_fault(Fault {
            operation_id: operation_id.to_string(),
            remaining: times,
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.to_string(),
            after_effect: false,
            delay: None,
        });
    }

    /// Like `fail_next`, but the request takes effect first: the answer is lost, not the write.
    pub fn fail_next_after_effect(&self, operation_id: &str, times: u32, status: u16) {
        self.push_fault(Fault {
            operation_id: operation_id.to_string(),
            remaining: times,
            status,
            headers: Vec::new(),
            body: String::new(),
            after_effect: true,
            delay: None,
        });
    }

    /// The next `times` requests for `operation_id` are answered normally, after `delay`.
    pub fn delay_next(&self, operation_id: &str, times: u32, delay: Duration) {
        self.push_fault(Fault {
            operation_id: operation_id.to_string(),
            remaining: times,
            status: 0,
            headers: Vec::new(),
            body: String::new(),
            after_effect: false,
            delay: Some(delay),
        });
    }

    /// `times` answers of 403 with `retry-after` and GitHub's secondary rate limit message.
    pub fn secondary_rate_limit_next(&self, operation_id: &str, times: u32, retry_after_secs: u64) {
        let retry = retry_after_secs.to_string();
        self.fail_next(
            operation_id,
            times,
            403,
            &[("retry-after", &retry)],
            r#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID FAKE.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"403"}"#,
        );
    }

    /// `times` answers of 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` at
    /// `reset_epoch` (Unix seconds).
    pub fn primary_rate_limit_next(&self, operation_id: &str, times: u32, reset_epoch: u64) {
        let reset = reset_epoch.to_string();
        self.fail_next(
            operation_id,
            times,
            429,
            &[
                ("x-ratelimit-limit", "5000"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-used", "5000"),
                ("x-ratelimit-reset", &reset),
                ("x-ratelimit-resource", "core"),
            ],
            r#"{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api","status":"429"}"#,
        );
    }

    fn push_fault(&self, fault: Fault) {
        self.known_operation(&fault.operation_id);
        if fault.remaining > 0 {
            self.state().faults.push(fault);
        }
    }

    /// Scripted faults not consumed yet (all of them, summed over `times`).
    pub fn pending_faults(&self) -> u32 {
        self.state().faults.iter().map(|f| f.remaining).sum()
    }

    // ---- the request log -------------------------------------------------------------

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state().requests.clone()
    }

    pub fn requests_for(&self, operation_id: &str) -> Vec<RecordedRequest> {
        self.known_operation(operation_id);
        self.state()
            .requests
            .iter()
            .filter(|r| r.operation_id.as_deref() == Some(operation_id))
            .cloned()
            .collect()
    }

    /// Requests other than GET and HEAD.
    pub fn writes(&self) -> Vec<RecordedRequest> {
        self.state()
            .requests
            .iter()
            .filter(|r| r.is_write())
            .cloned()
            .collect()
    }

    /// How often each operation was called.
    pub fn operation_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for r in self.state().requests.iter() {
            let key = r
                .operation_id
                .clone()
                .unwrap_or_else(|| format!("(unmatched) {} {}", r.method, r.path));
            *counts.entry(key).or_default() += 1;
        }
        counts
    }

    pub fn violations(&self) -> Vec<Violation> {
        self.state().violations.clone()
    }

    /// Panics listing every violation recorded so far.
    #[track_caller]
    pub fn assert_no_violations(&self) {
        let violations = self.violations();
        if !violations.is_empty() {
            let list: Vec<String> = violations.iter().map(|v| format!("  - {v}")).collect();
            panic!(
                "the fake GitHub recorded {} contract violation(s):\n{}",
                violations.len(),
                list.join("\n")
            );
        }
    }
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        if let Some(tx) = self.server.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.server.thread.take() {
            let _ = thread.join();
        }
    }
}
