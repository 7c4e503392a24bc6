//! One job's view of GitHub: the environment Actions set, the event, the token, and a runtime to
//! talk to the API from the gate's synchronous pipeline.

use std::path::PathBuf;

use serde_json::Value;

use super::client::{ApiError, Client, Retry, Token};
use super::event::{Event, EventError, PullRequest, Repo};
use crate::changes::FileChange;

/// GitHub's own cap on a pull request's file list.
pub const PR_FILES_CAP: usize = 3_000;

#[derive(Debug, thiserror::Error)]
pub enum GithubError {
    #[error(transparent)]
    Event(#[from] EventError),
    #[error(transparent)]
    Api(#[from] ApiError),
    /// Publishing was asked for but cannot happen (no token, no repository).
    #[error("{0}")]
    Unavailable(String),
    #[error("could not start the runtime for GitHub requests: {0}")]
    Runtime(#[source] std::io::Error),
}

impl GithubError {
    pub fn help(&self) -> Option<&str> {
        match self {
            Self::Unavailable(_) => Some(
                "pass the token in GITHUB_TOKEN (env: GITHUB_TOKEN: ${{ github.token }}), or use --publish none",
            ),
            Self::Api(ApiError::Status { status: 401, .. }) => {
                Some("the token was refused: is it expired, or for another GitHub?")
            }
            Self::Api(ApiError::Status { status: 403, .. }) => Some(
                "the token lacks a permission: the workflow needs `checks: write`, `pull-requests: write` and `contents: read`",
            ),
            _ => None,
        }
    }
}

/// What Actions told this job.
#[derive(Debug)]
pub struct Session {
    pub in_actions: bool,
    pub event: Option<Event>,
    pub repo: Option<Repo>,
    pub token: Option<Token>,
    pub api_url: String,
    pub server_url: String,
    pub run_id: Option<String>,
    pub step_summary: Option<PathBuf>,
    pub output: Option<PathBuf>,
}

impl Session {
    /// From the process environment; `token` (from `--token`) wins over `GITHUB_TOKEN`.
    pub fn from_env(token: Option<&str>) -> Result<Self, GithubError> {
        Self::from_vars(
            &|name| std::env::var(name).ok().filter(|v| !v.is_empty()),
            token,
        )
    }

    pub fn from_vars(
        env: &dyn Fn(&str) -> Option<String>,
        token: Option<&str>,
    ) -> Result<Self, GithubError> {
        let in_actions = env("GITHUB_ACTIONS").as_deref() == Some("true");
        let event = Event::from_env(env)?;
        let repo = event
            .as_ref()
            .and_then(|e| e.repo.clone())
            .or_else(|| env("GITHUB_REPOSITORY").and_then(|r| Repo::parse(&r)));
        let token = token
            .and_then(Token::new)
            .or_else(|| env("GITHUB_TOKEN").and_then(Token::new))
            .or_else(|| env("GH_TOKEN").and_then(Token::new));
        Ok(Self {
            in_actions,
            event,
            repo,
            token,
            api_url: env("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".to_owned()),
            server_url: env("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".to_owned()),
            run_id: env("GITHUB_RUN_ID").filter(|id| id.bytes().all(|b| b.is_ascii_digit())),
            step_summary: in_actions
                .then(|| env("GITHUB_STEP_SUMMARY"))
                .flatten()
                .map(PathBuf::from),
            output: in_actions
                .then(|| env("GITHUB_OUTPUT"))
                .flatten()
                .map(PathBuf::from),
        })
    }

    /// The pull request of a `pull_request`, `pull_request_target` or `pull_request_review` event.
    pub fn pull(&self) -> Option<&PullRequest> {
        self.event.as_ref().and_then(|e| e.pull.as_ref())
    }

    pub fn event_name(&self) -> Option<&str> {
        self.event.as_ref().map(|e| e.name.as_str())
    }

    /// The workflow run's page, for a check run's `details_url`.
    pub fn details_url(&self) -> Option<String> {
        let repo = self.repo.as_ref()?;
        let id = self.run_id.as_ref()?;
        Some(format!(
            "{}/{}/actions/runs/{id}",
            self.server_url.trim_end_matches('/'),
            repo.full()
        ))
    }

    /// Run `work` with a client, on a runtime of its own.
    pub fn with_client<T>(
        &self,
        work: impl AsyncFnOnce(&Client) -> Result<T, GithubError>,
    ) -> Result<T, GithubError> {
        let token = self.token.clone().ok_or_else(|| {
            GithubError::Unavailable("no GitHub token: GITHUB_TOKEN is not set".to_owned())
        })?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(GithubError::Runtime)?;
        runtime.block_on(async {
            let client = Client::new(&self.api_url, token, Retry::default())?;
            work(&client).await
        })
    }
}

/// Files of the repository at a commit, through the contents API: the base of a pull request
/// when a shallow checkout does not have it.
#[derive(Debug, Clone)]
pub struct FileSource {
    api_url: String,
    token: Token,
    repo: Repo,
}

impl FileSource {
    pub fn new(session: &Session) -> Option<Self> {
        Some(Self {
            api_url: session.api_url.clone(),
            token: session.token.clone()?,
            repo: session.repo.clone()?,
        })
    }

    /// A file's bytes at `rev`: `Ok(None)` when it does not exist there, an error when GitHub
    /// could not say (the caller fails closed).
    pub fn read_bytes_checked(&self, path: &str, rev: &str) -> Result<Option<Vec<u8>>, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| err.to_string())?;
        let api_path = format!(
            "/repos/{}/{}/contents/{}?ref={rev}",
            self.repo.owner,
            self.repo.name,
            encode_path(path)
        );
        runtime
            .block_on(async {
                let client = Client::new(&self.api_url, self.token.clone(), Retry::default())?;
                client
                    .get_raw(&api_path, "application/vnd.github.raw")
                    .await
            })
            .map_err(|err| err.to_string())
    }

    /// A text file at `rev`: `Ok(None)` when it does not exist there, an error when GitHub
    /// could not say (the caller fails closed) or it is not UTF-8.
    pub fn read_checked(&self, path: &str, rev: &str) -> Result<Option<String>, String> {
        self.read_bytes_checked(path, rev)?
            .map(|b| String::from_utf8(b).map_err(|_| format!("{path} at {rev} is not UTF-8")))
            .transpose()
    }

    /// A text file at `rev`; `None` when it does not exist there or cannot be read.
    pub fn read(&self, path: &str, rev: &str) -> Option<String> {
        self.read_checked(path, rev).ok().flatten()
    }
}

/// Percent-encode a repository path for a URL, keeping the `/` between its parts.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A pull request as the API has it now: head, base, author, fork or not.
pub async fn get_pull(client: &Client, repo: &Repo, number: u64) -> Result<PullRequest, ApiError> {
    let path = format!("/repos/{}/{}/pulls/{number}", repo.owner, repo.name);
    let value = client.get(&path).await?;
    PullRequest::from_json(&value).ok_or_else(|| ApiError::Decode {
        method: "GET",
        path,
        message: "no number, head or base in the pull request".to_owned(),
    })
}

/// The files a pull request changes, from the API (every page). `None` when the list stops at
/// GitHub's cap of 3,000 files and so cannot be trusted to be whole.
pub async fn pull_files(
    client: &Client,
    repo: &Repo,
    pull: &PullRequest,
) -> Result<Option<Vec<FileChange>>, ApiError> {
    if pull.changed_files.is_some_and(|n| n > PR_FILES_CAP as u64) {
        return Ok(None);
    }
    let path = format!(
        "/repos/{}/{}/pulls/{}/files?per_page=100",
        repo.owner, repo.name, pull.number
    );
    let (files, more) = client.get_all(&path, PR_FILES_CAP).await?;
    if more || files.len() >= PR_FILES_CAP {
        return Ok(None);
    }
    Ok(Some(files.iter().filter_map(file_change).collect()))
}

/// One entry of `pulls/list-files`.
fn file_change(file: &Value) -> Option<FileChange> {
    let name = file.get("filename")?.as_str()?.to_owned();
    let status = file
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("modified");
    Some(match status {
        "added" | "copied" => FileChange::Added(name),
        "removed" => FileChange::Deleted(name),
        "renamed" => match file.get("previous_filename").and_then(Value::as_str) {
            Some(from) => FileChange::Renamed {
                from: from.to_owned(),
                to: name,
            },
            None => FileChange::Added(name),
        },
        _ => FileChange::Modified(name),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_statuses_map_to_changes() {
        assert_eq!(
            file_change(&json!({"filename": "a", "status": "added"})),
            Some(FileChange::Added("a".to_owned()))
        );
        assert_eq!(
            file_change(&json!({"filename": "a", "status": "removed"})),
            Some(FileChange::Deleted("a".to_owned()))
        );
        assert_eq!(
            file_change(&json!({"filename": "b", "status": "renamed", "previous_filename": "a"})),
            Some(FileChange::Renamed {
                from: "a".to_owned(),
                to: "b".to_owned()
            })
        );
        assert_eq!(
            file_change(&json!({"filename": "a", "status": "changed"})),
            Some(FileChange::Modified("a".to_owned()))
        );
        assert_eq!(file_change(&json!({"status": "added"})), None);
    }

    #[test]
    fn the_session_reads_what_actions_sets() {
        let vars = |name: &str| {
            match name {
                "GITHUB_ACTIONS" => Some("true"),
                "GITHUB_REPOSITORY" => Some("octo-org/octo-repo"),
                "GITHUB_TOKEN" => Some("ghs_0123456789abcdefghijklmnopqrstuvwxyzAB"),
                "GITHUB_API_URL" => Some("http://127.0.0.1:9"),
                "GITHUB_RUN_ID" => Some("42"),
                "GITHUB_STEP_SUMMARY" => Some("/tmp/summary.md"),
                _ => None,
            }
            .map(str::to_owned)
        };
        let session = Session::from_vars(&vars, None).expect("session");
        assert!(session.in_actions);
        assert!(session.event.is_none());
        assert_eq!(
            session.repo.as_ref().map(Repo::full).as_deref(),
            Some("octo-org/octo-repo")
        );
        assert_eq!(
            session.details_url().as_deref(),
            Some("https://github.com/octo-org/octo-repo/actions/runs/42")
        );
        assert_eq!(format!("{:?}", session.token), "Some(***)");
        assert!(!format!("{session:?}").contains("ghs_"));
        // --token wins.
        let session = Session::from_vars(&vars, Some("ghp_other")).expect("session");
        assert_eq!(session.token.as_ref().map(Token::expose), Some("ghp_other"));
    }
}
