//! What Actions tells a job: the event's name (`GITHUB_EVENT_NAME`), its payload
//! (`GITHUB_EVENT_PATH`) and a few variables. Read once, into plain values.

use std::path::Path;

use serde_json::Value;

/// The repository the workflow runs in, `owner/name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    pub owner: String,
    pub name: String,
}

impl Repo {
    /// `owner/name`, each part a plain GitHub name (no `/`, `..`, spaces or `?`).
    pub fn parse(full: &str) -> Option<Self> {
        let (owner, name) = full.trim().split_once('/')?;
        let plain = |s: &str| {
            !s.is_empty()
                && s != "."
                && s != ".."
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        (plain(owner) && plain(name)).then(|| Self {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }

    pub fn full(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// A pull request as the payload (or the API) describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    pub head_sha: String,
    pub base_sha: String,
    pub author: Option<String>,
    /// `owner/name` of the head repository; `None` when the fork was deleted.
    pub head_repo: Option<String>,
    pub base_repo: String,
    /// Files changed, when the payload says.
    pub changed_files: Option<u64>,
    /// When it was opened (RFC 3339), when the payload says.
    pub created_at: Option<String>,
}

impl PullRequest {
    /// A pull request from another repository gets a read-only token: no writes are tried.
    pub fn is_fork(&self) -> bool {
        self.head_repo
            .as_deref()
            .is_none_or(|head| !head.eq_ignore_ascii_case(&self.base_repo))
    }

    /// From a `pull_request` object (webhook payload or `GET /pulls/N`).
    pub fn from_json(pr: &Value) -> Option<Self> {
        let s = |v: &Value, ptr: &str| v.pointer(ptr).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            number: pr.get("number")?.as_u64()?,
            head_sha: s(pr, "/head/sha").filter(|sha| is_sha(sha))?,
            base_sha: s(pr, "/base/sha").filter(|sha| is_sha(sha))?,
            author: s(pr, "/user/login"),
            head_repo: s(pr, "/head/repo/full_name"),
            base_repo: s(pr, "/base/repo/full_name")?,
            changed_files: pr.get("changed_files").and_then(Value::as_u64),
            created_at: s(pr, "/created_at"),
        })
    }
}

/// A submitted review (`pull_request_review`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub id: u64,
    pub reviewer: String,
    /// `approved`, `changes_requested`, `commented`.
    pub state: String,
    pub body: String,
    /// The head the review was given on.
    pub commit_id: Option<String>,
    /// RFC 3339.
    pub submitted_at: Option<String>,
}

/// The event a job runs for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// `pull_request`, `pull_request_target`, `workflow_run`, …
    pub name: String,
    pub repo: Option<Repo>,
    /// The commit the workflow runs on (`GITHUB_SHA`).
    pub sha: Option<String>,
    pub pull: Option<PullRequest>,
    pub review: Option<Review>,
    /// For `workflow_run`: the pull requests GitHub attached (none for forks).
    pub workflow_run_pulls: Vec<u64>,
    /// For `workflow_run`: the commit the finished workflow ran on, and its repository.
    pub workflow_run_head: Option<String>,
    pub workflow_run_head_repo: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("GITHUB_EVENT_PATH {path}: {message}")]
    Payload { path: String, message: String },
    #[error("GITHUB_EVENT_NAME is {name}, but its payload has no {what}")]
    Missing { name: String, what: &'static str },
}

/// The events skillgate acts on.
pub const SUPPORTED: &[&str] = &[
    "pull_request",
    "pull_request_target",
    "workflow_run",
    "pull_request_review",
    "workflow_dispatch",
    "schedule",
];

impl Event {
    /// The event of this job, or `None` outside Actions (no `GITHUB_EVENT_NAME`).
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Self>, EventError> {
        let Some(name) = env("GITHUB_EVENT_NAME") else {
            return Ok(None);
        };
        let payload = match env("GITHUB_EVENT_PATH") {
            Some(path) => read_payload(Path::new(&path))?,
            None => Value::Null,
        };
        let mut event = Self::from_payload(&name, &payload)?;
        if event.repo.is_none() {
            event.repo = env("GITHUB_REPOSITORY").and_then(|r| Repo::parse(&r));
        }
        event.sha = env("GITHUB_SHA").filter(|sha| is_sha(sha));
        Ok(Some(event))
    }

    /// Read a payload already parsed. Unknown events give an event with no pull request.
    pub fn from_payload(name: &str, payload: &Value) -> Result<Self, EventError> {
        let repo = payload
            .pointer("/repository/full_name")
            .and_then(Value::as_str)
            .and_then(Repo::parse);
        let mut event = Self {
            name: name.to_owned(),
            repo,
            sha: None,
            pull: None,
            review: None,
            workflow_run_pulls: Vec::new(),
            workflow_run_head: None,
            workflow_run_head_repo: None,
        };
        let missing = |what| EventError::Missing {
            name: name.to_owned(),
            what,
        };
        match name {
            "pull_request" | "pull_request_target" | "pull_request_review" => {
                let pr = payload
                    .get("pull_request")
                    .ok_or_else(|| missing("pull_request"))?;
                event.pull = Some(
                    PullRequest::from_json(pr)
                        .ok_or_else(|| missing("pull_request number, head and base"))?,
                );
                if name == "pull_request_review" {
                    let review = payload.get("review").ok_or_else(|| missing("review"))?;
                    event.review = Some(Review {
                        id: review
                            .get("id")
                            .and_then(Value::as_u64)
                            .ok_or_else(|| missing("review id"))?,
                        reviewer: review
                            .pointer("/user/login")
                            .and_then(Value::as_str)
                            .ok_or_else(|| missing("review user"))?
                            .to_owned(),
                        state: review
                            .get("state")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_ascii_lowercase(),
                        body: review
                            .get("body")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        commit_id: review
                            .get("commit_id")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        submitted_at: review
                            .get("submitted_at")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    });
                }
            }
            "workflow_run" => {
                event.workflow_run_pulls = payload
                    .pointer("/workflow_run/pull_requests")
                    .and_then(Value::as_array)
                    .map(|prs| {
                        prs.iter()
                            .filter_map(|pr| pr.get("number").and_then(Value::as_u64))
                            .collect()
                    })
                    .unwrap_or_default();
                event.workflow_run_head = payload
                    .pointer("/workflow_run/head_sha")
                    .and_then(Value::as_str)
                    .filter(|sha| is_sha(sha))
                    .map(str::to_owned);
                event.workflow_run_head_repo = payload
                    .pointer("/workflow_run/head_repository/full_name")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            _ => {}
        }
        Ok(event)
    }

    /// Whether this event is one skillgate knows.
    pub fn is_supported(&self) -> bool {
        SUPPORTED.contains(&self.name.as_str())
    }
}

/// A payload is at most a few hundred KB; a bigger file is not one.
const MAX_PAYLOAD: u64 = 25 * 1024 * 1024;

fn read_payload(path: &Path) -> Result<Value, EventError> {
    let err = |message: String| EventError::Payload {
        path: path.display().to_string(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_PAYLOAD + 1), &mut bytes)
        .map_err(|e| err(e.to_string()))?;
    if bytes.len() as u64 > MAX_PAYLOAD {
        return Err(err(format!("larger than {MAX_PAYLOAD} bytes")));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        err(format!(
            "not JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })
}

/// 40 hex digits (SHA-1) or 64 (SHA-256).
pub fn is_sha(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(name: &str) -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/github/payloads")
            .join(name);
        let text = std::fs::read_to_string(path).expect("payload");
        serde_json::from_str(&text).expect("json")
    }

    #[test]
    fn a_pull_request_gives_number_head_base_and_author() {
        let event = Event::from_payload("pull_request", &payload("pull_request.opened.json"))
            .expect("event");
        let pr = event.pull.expect("pull request");
        assert_eq!(pr.number, 2);
        assert_eq!(pr.head_sha, "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
        assert_eq!(pr.base_sha, "f95f852bd8fca8fcc58a9a2d6c842781e32a215e");
        assert_eq!(pr.author.as_deref(), Some("Codertocat"));
        assert!(!pr.is_fork());
        assert_eq!(event.repo.expect("repo").full(), "Codertocat/Hello-World");
    }

    #[test]
    fn a_fork_is_recognised() {
        let event = Event::from_payload(
            "pull_request",
            &payload("pull_request.opened.fork.derived.json"),
        )
        .expect("event");
        assert!(event.pull.expect("pr").is_fork());
    }

    #[test]
    fn a_review_names_reviewer_state_and_commit() {
        let event = Event::from_payload(
            "pull_request_review",
            &payload("pull_request_review.submitted.json"),
        )
        .expect("event");
        let review = event.review.expect("review");
        assert!(!review.reviewer.is_empty());
        assert!(["approved", "commented", "changes_requested"].contains(&review.state.as_str()));
        assert!(review.commit_id.as_deref().is_some_and(is_sha));
    }

    #[test]
    fn workflow_run_lists_its_pull_requests() {
        let event = Event::from_payload(
            "workflow_run",
            &payload("workflow_run.completed.with-pull-requests.json"),
        )
        .expect("event");
        assert_eq!(event.workflow_run_pulls, vec![2]);
        assert_eq!(
            event.workflow_run_head.as_deref(),
            Some("3484a3fb816e0859fd6e1cea078d76385ff50625")
        );
        assert_eq!(
            event.workflow_run_head_repo.as_deref(),
            Some("octo-org/octo-repo")
        );
        assert!(event.pull.is_none());
    }

    #[test]
    fn schedule_and_dispatch_have_no_pull_request() {
        for (name, file) in [
            ("schedule", "schedule.synthetic.json"),
            ("workflow_dispatch", "workflow_dispatch.json"),
        ] {
            let event = Event::from_payload(name, &payload(file)).expect("event");
            assert!(event.pull.is_none());
            assert_eq!(event.repo.expect("repo").full(), "octo-org/octo-repo");
        }
    }

    #[test]
    fn a_pull_request_event_without_its_object_is_an_error() {
        let err = Event::from_payload("pull_request", &serde_json::json!({"action": "opened"}))
            .expect_err("no pull_request");
        assert_eq!(
            err.to_string(),
            "GITHUB_EVENT_NAME is pull_request, but its payload has no pull_request"
        );
    }

    #[test]
    fn repository_names_are_plain() {
        assert_eq!(
            Repo::parse("octo-org/octo.repo_1").map(|r| r.full()),
            Some("octo-org/octo.repo_1".to_owned())
        );
        for bad in ["octo", "a/b/c", "../x", "a/..", "a /b", "a/b?x=1", "/b"] {
            assert!(Repo::parse(bad).is_none(), "{bad}");
        }
    }
}
