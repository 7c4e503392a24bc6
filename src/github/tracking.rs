//! The tracking issue a scheduled report keeps up to date: one open issue with a given title
//! and the `skillgate-report` label, created when missing, edited when the report changed.
//!
//! Two runs at once may both find none and both create one. Each run lists again after
//! creating and keeps the lowest number open, closing the others as not planned, so both
//! converge on the same issue. The identity is the label and the exact title (trimmed, as
//! GitHub stores it), not the author: a run with a personal token creates issues as a person.

use serde_json::{Value, json};

use super::client::{ApiError, Client};
use super::event::Repo;
use super::publish::{Created, create_once, repo_path};

/// The label that marks a tracking issue.
pub const REPORT_LABEL: &str = "skillgate-report";
/// GitHub's limit for an issue body, in characters.
pub const ISSUE_BODY_MAX_CHARS: usize = 65_536;
/// GitHub's limit for an issue title, in characters.
pub const ISSUE_TITLE_MAX_CHARS: usize = 256;
/// Open labelled issues read when looking for the tracking one.
const MAX_LISTED: usize = 10_000;

/// The tracking issue after [`upsert_issue`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tracked {
    pub number: u64,
    /// Its page on GitHub.
    pub url: String,
    /// This call created the issue kept open.
    pub created: bool,
    /// This call changed its body.
    pub updated: bool,
    /// Duplicates this call closed (left by two runs racing), as not planned.
    pub closed: Vec<u64>,
}

/// An open tracking issue as listed.
#[derive(Debug, Clone)]
struct Open {
    number: u64,
    url: String,
    body: String,
}

impl Open {
    fn from_json(value: &Value) -> Option<Self> {
        Some(Self {
            number: value.get("number")?.as_u64()?,
            url: value
                .get("html_url")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            body: value
                .get("body")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        })
    }
}

/// Create the tracking issue titled `title`, or update its body to `body`; close duplicates.
pub async fn upsert_issue(
    client: &Client,
    repo: &Repo,
    title: &str,
    body: &str,
) -> Result<Tracked, ApiError> {
    let title = title.trim();
    let issues = format!("{}/issues", repo_path(repo));
    let refuse = |message: String| ApiError::Refused {
        method: "POST",
        path: issues.clone(),
        message,
    };
    if title.is_empty() {
        return Err(refuse(
            "the tracking issue's title is empty (help: give --issue a title)".to_owned(),
        ));
    }
    let title_chars = title.chars().count();
    if title_chars > ISSUE_TITLE_MAX_CHARS {
        return Err(refuse(format!(
            "the tracking issue's title is {title_chars} characters; GitHub allows at most {ISSUE_TITLE_MAX_CHARS}"
        )));
    }
    let body_chars = body.chars().count();
    if body_chars > ISSUE_BODY_MAX_CHARS {
        return Err(refuse(format!(
            "the body of the tracking issue \"{title}\" is {body_chars} characters; GitHub allows at most {ISSUE_BODY_MAX_CHARS} (help: report fewer sections with --section)"
        )));
    }

    let mut open = find(client, repo, title).await?;
    let mut ours = None;
    if open.is_empty() {
        let create = json!({ "title": title, "body": body, "labels": [REPORT_LABEL] });
        let created = create_once(client, &issues, &create, || async {
            Ok(find(client, repo, title).await?.first().map(|i| i.number))
        })
        .await?;
        let mine = match created {
            Created::New(value) => Open::from_json(&value).ok_or_else(|| ApiError::Decode {
                method: "POST",
                path: issues.clone(),
                message: "no issue `number` in the answer".to_owned(),
            })?,
            // The POST landed although its answer was lost.
            Created::Found(number) => Open {
                number,
                url: String::new(),
                body: String::new(),
            },
        };
        ours = Some(mine.number);
        // Another run may have created one as well: look again, and converge.
        open = find(client, repo, title).await?;
        if !open.iter().any(|i| i.number == mine.number) {
            open.push(mine);
            open.sort_by_key(|i| i.number);
        }
    }
    let Some(keep) = open.first().cloned() else {
        return Err(ApiError::Decode {
            method: "GET",
            path: issues,
            message: format!("the tracking issue \"{title}\" was created but is not listed"),
        });
    };
    let mut updated = false;
    let mut url = keep.url.clone();
    if keep.body != body {
        let answer = client
            .patch(
                &format!("{issues}/{}", keep.number),
                &json!({ "body": body }),
            )
            .await?;
        updated = true;
        if let Some(page) = answer.get("html_url").and_then(Value::as_str) {
            url = page.to_owned();
        }
    }
    let mut closed = Vec::new();
    for duplicate in open.iter().skip(1) {
        client
            .patch(
                &format!("{issues}/{}", duplicate.number),
                &json!({ "state": "closed", "state_reason": "not_planned" }),
            )
            .await?;
        closed.push(duplicate.number);
    }
    Ok(Tracked {
        number: keep.number,
        url,
        created: ours == Some(keep.number),
        updated,
        closed,
    })
}

/// The open issues (not pull requests) with the label and exactly this title, lowest first.
async fn find(client: &Client, repo: &Repo, title: &str) -> Result<Vec<Open>, ApiError> {
    let path = format!(
        "{}/issues?labels={REPORT_LABEL}&state=open&per_page=100",
        repo_path(repo)
    );
    let (items, _) = client.get_all(&path, MAX_LISTED).await?;
    let mut found: Vec<Open> = items
        .iter()
        .filter(|i| i.get("pull_request").is_none())
        .filter(|i| i.get("state").and_then(Value::as_str) == Some("open"))
        .filter(|i| i.get("title").and_then(Value::as_str) == Some(title))
        .filter_map(Open::from_json)
        .collect();
    found.sort_by_key(|i| i.number);
    found.dedup_by_key(|i| i.number);
    Ok(found)
}
