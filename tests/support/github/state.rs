//! What the fake repository holds between requests: comments, check runs, pull requests,
//! issues and labels, reviewer requests, git objects and refs, scripted faults, and the request log.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde_json::Value;

use super::record::{RecordedRequest, Violation};
use super::util::{git_object_id, rfc3339};

/// 2024-05-01T12:00:00Z: the synthetic clock starts here and ticks a second per write, so
/// timestamps are deterministic and strictly increasing.
const EPOCH: u64 = 1_714_564_800;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub id: u64,
    pub issue_number: u64,
    pub body: String,
    pub user: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub details_url: Option<String>,
    pub external_id: Option<String>,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
    /// Every annotation sent, in order, across the create and all updates.
    pub annotations: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullFile {
    pub filename: String,
    /// `added`, `removed`, `modified`, `renamed`, `copied`, `changed`, `unchanged`.
    pub status: String,
    pub previous_filename: Option<String>,
    pub additions: u64,
    pub deletions: u64,
}

impl PullFile {
    pub fn new(filename: &str, status: &str) -> Self {
        Self {
            filename: filename.to_string(),
            status: status.to_string(),
            previous_filename: None,
            additions: 1,
            deletions: 0,
        }
    }

    pub fn renamed_from(mut self, previous: &str) -> Self {
        self.status = "renamed".into();
        self.previous_filename = Some(previous.to_string());
        self
    }
}

#[derive(Debug, Clone)]
pub struct Pull {
    pub number: u64,
    /// The answer of `pulls/get`, built from GitHub's example and `set_pull`.
    pub json: Value,
    pub files: Vec<PullFile>,
    pub requested_users: Vec<String>,
    pub requested_teams: Vec<String>,
    /// `(login, state, commit_id)` answered by `pulls/list-reviews`, oldest first; no
    /// commit means the pull request's head when listed.
    pub reviews: Vec<(String, String, Option<String>)>,
}

impl Pull {
    pub fn author(&self) -> &str {
        self.json["user"]["login"].as_str().unwrap_or_default()
    }
}

/// An issue (never a pull request: those live in `pulls`, in the same number space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    /// `open` or `closed`.
    pub state: String,
    /// `completed`, `not_planned`, `duplicate`, `reopened`, or none.
    pub state_reason: Option<String>,
    /// Label names, in the order given.
    pub labels: Vec<String>,
    pub user: String,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
}

/// One call of `pulls/request-reviewers`, and how the fake answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewerRequest {
    pub pull_number: u64,
    pub reviewers: Vec<String>,
    pub team_reviewers: Vec<String>,
    pub status: u16,
}

#[derive(Debug, Clone)]
pub struct Fault {
    pub operation_id: String,
    pub remaining: u32,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Apply the request's effect first, then answer with the fault: a lost answer.
    pub after_effect: bool,
    /// Wait this long before answering (with the fault, or normally when `status` is 0).
    pub delay: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    pub mode: String,
    /// `blob` or `commit` (submodule); directories are implied by the paths.
    pub kind: String,
    pub sha: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GitCommit {
    pub sha: String,
    pub tree: String,
    pub parents: Vec<String>,
    pub message: String,
    pub author: Value,
    pub committer: Value,
}

/// Git objects: blobs are stored as bytes; a tree is stored flat (full path → entry) under the
/// id git would give it, and so is every subtree.
#[derive(Debug, Default)]
pub struct Git {
    pub blobs: HashMap<String, Vec<u8>>,
    pub trees: HashMap<String, BTreeMap<String, TreeEntry>>,
    pub commits: HashMap<String, GitCommit>,
    /// Full names (`refs/heads/main`) → commit sha.
    pub refs: BTreeMap<String, String>,
}

impl Git {
    pub fn put_blob(&mut self, content: Vec<u8>) -> String {
        let sha = git_object_id("blob", &content);
        self.blobs.insert(sha.clone(), content);
        sha
    }

    /// Stores a flat tree and all its subtrees; returns the root's id.
    pub fn put_tree(&mut self, entries: BTreeMap<String, TreeEntry>) -> String {
        let mut children: BTreeMap<String, BTreeMap<String, TreeEntry>> = BTreeMap::new();
        let mut direct: Vec<(String, String, String)> = Vec::new(); // (name, mode, sha)
        for (path, entry) in &entries {
            match path.split_once('/') {
                Some((dir, rest)) => {
                    children
                        .entry(dir.to_string())
                        .or_default()
                        .insert(rest.to_string(), entry.clone());
                }
                None => direct.push((path.clone(), entry.mode.clone(), entry.sha.clone())),
            }
        }
        for (dir, sub) in children {
            let sha = self.put_tree(sub);
            direct.push((dir, "40000".into(), sha));
        }
        // Git orders entries by name, a directory compared as if it ended in '/'.
        direct.sort_by_key(sort_key);
        let mut raw = Vec::new();
        for (name, mode, sha) in &direct {
            raw.extend_from_slice(format!("{mode} {name}\0").as_bytes());
            raw.extend_from_slice(&hex_bytes(sha));
        }
        let sha = git_object_id("tree", &raw);
        self.trees.insert(sha.clone(), entries);
        sha
    }

    /// The commit a ref name, a branch name or a sha names.
    pub fn resolve(&self, name: &str) -> Option<String> {
        let candidates = [
            name.to_string(),
            format!("refs/{name}"),
            format!("refs/heads/{name}"),
            format!("refs/tags/{name}"),
        ];
        candidates
            .iter()
            .find_map(|c| self.refs.get(c).cloned())
            .or_else(|| self.commits.contains_key(name).then(|| name.to_string()))
    }

    /// `ancestor` is `descendant` or reachable from it through parents.
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        let mut stack = vec![descendant.to_string()];
        let mut seen = std::collections::HashSet::new();
        while let Some(sha) = stack.pop() {
            if sha == ancestor {
                return true;
            }
            if !seen.insert(sha.clone()) {
                continue;
            }
            if let Some(commit) = self.commits.get(&sha) {
                stack.extend(commit.parents.iter().cloned());
            }
        }
        false
    }

    /// The file at `path` in the tree of `commit`.
    pub fn file(&self, commit: &str, path: &str) -> Option<&Vec<u8>> {
        let tree = self.trees.get(&self.commits.get(commit)?.tree)?;
        let entry = tree.get(path.trim_matches('/'))?;
        self.blobs.get(&entry.sha)
    }
}

fn sort_key(entry: &(String, String, String)) -> Vec<u8> {
    let mut key = entry.0.as_bytes().to_vec();
    if entry.1 == "40000" {
        key.push(b'/');
    }
    key
}

fn hex_bytes(sha: &str) -> Vec<u8> {
    (0..sha.len() / 2)
        .map(|i| u8::from_str_radix(&sha[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

#[derive(Debug)]
pub struct State {
    pub token: String,
    pub bot_login: String,
    /// When set, requests for another `owner/repo` are violations.
    pub repo: Option<(String, String)>,
    pub clock: u64,
    pub next_id: u64,
    pub comments: Vec<Comment>,
    pub check_runs: Vec<CheckRun>,
    pub pulls: BTreeMap<u64, Pull>,
    pub issues: BTreeMap<u64, Issue>,
    /// The repository's labels (creating an issue with an unknown label creates it).
    pub labels: Vec<String>,
    pub reviewer_requests: Vec<ReviewerRequest>,
    pub reject_team_reviewers: bool,
    pub read_only: bool,
    pub permissions: BTreeMap<String, String>,
    pub faults: Vec<Fault>,
    pub requests: Vec<RecordedRequest>,
    pub violations: Vec<Violation>,
    pub git: Git,
}

impl State {
    pub fn new(token: &str) -> Self {
        Self {
            token: token.to_string(),
            bot_login: "github-actions[bot]".into(),
            repo: None,
            clock: EPOCH,
            next_id: 1,
            comments: Vec::new(),
            check_runs: Vec::new(),
            pulls: BTreeMap::new(),
            issues: BTreeMap::new(),
            labels: Vec::new(),
            reviewer_requests: Vec::new(),
            reject_team_reviewers: false,
            read_only: false,
            permissions: BTreeMap::new(),
            faults: Vec::new(),
            requests: Vec::new(),
            violations: Vec::new(),
            git: Git::default(),
        }
    }

    /// The next timestamp of the synthetic clock.
    pub fn tick(&mut self) -> String {
        self.clock += 1;
        rfc3339(self.clock)
    }

    /// Ids are unique across comments and check runs, so a test mixing them up fails.
    pub fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn add_comment(&mut self, issue_number: u64, body: &str, user: &str) -> u64 {
        let id = self.new_id();
        let now = self.tick();
        self.comments.push(Comment {
            id,
            issue_number,
            body: body.to_string(),
            user: user.to_string(),
            created_at: now.clone(),
            updated_at: now,
        });
        id
    }

    /// The next issue number: issues and pull requests share one number space.
    pub fn next_issue_number(&mut self) -> u64 {
        let pulls = self.pulls.keys().next_back().copied().unwrap_or(0);
        let issues = self.issues.keys().next_back().copied().unwrap_or(0);
        pulls.max(issues) + 1
    }

    /// Opens an issue as `user` (labels created as needed); returns its number.
    pub fn add_issue(
        &mut self,
        title: &str,
        body: Option<&str>,
        labels: &[String],
        user: &str,
    ) -> u64 {
        let number = self.next_issue_number();
        let now = self.tick();
        for label in labels {
            if !self.labels.iter().any(|l| l.eq_ignore_ascii_case(label)) {
                self.labels.push(label.clone());
            }
        }
        self.issues.insert(
            number,
            Issue {
                number,
                title: title.to_string(),
                body: body.map(str::to_string),
                state: "open".into(),
                state_reason: None,
                labels: labels.to_vec(),
                user: user.to_string(),
                created_at: now.clone(),
                updated_at: now,
                closed_at: None,
            },
        );
        number
    }

    /// The scripted fault for this operation, consumed.
    pub fn take_fault(&mut self, operation_id: &str) -> Option<Fault> {
        let index = self
            .faults
            .iter()
            .position(|f| f.operation_id == operation_id && f.remaining > 0)?;
        let fault = &mut self.faults[index];
        fault.remaining -= 1;
        let taken = fault.clone();
        if fault.remaining == 0 {
            self.faults.remove(index);
        }
        Some(taken)
    }
}
