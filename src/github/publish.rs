//! Tell a pull request what the gate decided: reviewers requested, the `skillgate` check run on
//! the head commit, one sticky comment. Re-running a job updates all three in place.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::client::{ApiError, Client};
use super::event::{PullRequest, Repo};
use super::remind::carry_reminder;
use crate::config::Routing;
use crate::gate::GateRun;
use crate::policy::Verdict;
use crate::render::{self, Annotation, COMMENT_MARKER};
use crate::routing::Reviewers;

/// The check run's name, found again by it on re-runs.
pub const CHECK_NAME: &str = "skillgate";
/// Annotations per request: GitHub's limit.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;
/// Comments read when looking for the sticky one.
const MAX_COMMENTS: usize = 10_000;

/// Where to publish.
#[derive(Debug)]
pub struct Target<'a> {
    pub repo: &'a Repo,
    /// The pull request, as the payload or the API describes it (never the results document).
    pub pull: Option<&'a PullRequest>,
    /// The commit the check run goes on: the pull request's head.
    pub head_sha: &'a str,
    /// The workflow run's page.
    pub details_url: Option<String>,
}

/// What publishing did, for the job log and the results.
#[derive(Debug, Default)]
pub struct Published {
    pub check_run_id: Option<u64>,
    pub comment_id: Option<u64>,
    pub requested: Reviewers,
    /// Warnings worth a line in the job summary (a team that could not be requested, …).
    pub notes: Vec<String>,
}

/// A check run's conclusion, written as the API spells it (`action_required`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    Success,
    Neutral,
    ActionRequired,
    Failure,
}

/// The check run's conclusion for a run: `failure` when a skill needs correction,
/// `action_required` while a review is pending, `neutral` when `warn` mode let something through,
/// else `success` (all auto, or nothing to gate).
pub fn conclusion(run: &GateRun) -> Conclusion {
    let decisions = || run.skills.iter().map(|s| &s.decision);
    if decisions().any(|d| d.decision == Verdict::NeedsCorrection) {
        Conclusion::Failure
    } else if decisions().any(|d| d.decision != Verdict::Approved) {
        Conclusion::ActionRequired
    } else if decisions().any(|d| d.softened_from.is_some()) {
        Conclusion::Neutral
    } else {
        Conclusion::Success
    }
}

/// Request reviewers, then write the check run and the comment (which carry the notes).
pub async fn publish(
    client: &Client,
    target: &Target<'_>,
    run: &GateRun,
    routing: &Routing,
    mut notes: Vec<String>,
) -> Result<Published, ApiError> {
    let mut published = Published::default();
    if let Some(pull) = target.pull {
        let wanted = routing.reviewers(&run.skills, pull.author.as_deref());
        published.requested =
            request_reviewers(client, target.repo, pull, &wanted, &mut notes).await;
    }
    published.check_run_id = Some(check_run(client, target, run, &notes).await?);
    if let Some(pull) = target.pull {
        let body = render::comment(run, &notes);
        published.comment_id =
            Some(sticky_comment(client, target.repo, pull.number, target.head_sha, &body).await?);
    }
    published.notes = notes;
    Ok(published)
}

pub(crate) fn repo_path(repo: &Repo) -> String {
    format!("/repos/{}/{}", repo.owner, repo.name)
}

/// Users and teams in separate calls, skipping those already requested. Failures become notes:
/// a missing reviewer must not hide the verdict.
async fn request_reviewers(
    client: &Client,
    repo: &Repo,
    pull: &PullRequest,
    wanted: &Reviewers,
    notes: &mut Vec<String>,
) -> Reviewers {
    if wanted.users.is_empty() && wanted.teams.is_empty() {
        return Reviewers::default();
    }
    let path = format!(
        "{}/pulls/{}/requested_reviewers",
        repo_path(repo),
        pull.number
    );
    let already = match client.get(&path).await {
        Ok(value) => value,
        Err(err) => {
            notes.push(format!("reviewers were not requested: {err}"));
            return Reviewers::default();
        }
    };
    let listed = |key: &str, field: &str| -> Vec<String> {
        already
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.get(field).and_then(Value::as_str))
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (have_users, have_teams) = (listed("users", "login"), listed("teams", "slug"));
    let users: Vec<String> = wanted
        .users
        .iter()
        .filter(|u| !have_users.contains(&u.to_ascii_lowercase()))
        .cloned()
        .collect();
    let teams: Vec<String> = wanted
        .teams
        .iter()
        .filter(|t| !have_teams.contains(&t.to_ascii_lowercase()))
        .cloned()
        .collect();
    let asking = Reviewers { users, teams };
    ask_reviewers(client, repo, pull.number, &asking, notes).await
}

/// Request `asking` on pull request `number` as given (a re-request notifies again): users and
/// teams in separate calls, so a team GitHub refuses does not lose the users. Failures become
/// notes; returns who was requested.
pub(crate) async fn ask_reviewers(
    client: &Client,
    repo: &Repo,
    number: u64,
    asking: &Reviewers,
    notes: &mut Vec<String>,
) -> Reviewers {
    let mut requested = Reviewers::default();
    let path = format!("{}/pulls/{number}/requested_reviewers", repo_path(repo));
    let (users, teams) = (&asking.users, &asking.teams);
    if !users.is_empty() {
        match client.post(&path, &json!({ "reviewers": users })).await {
            Ok(_) => requested.users = users.clone(),
            Err(err) => notes.push(format!(
                "could not request {}: {}",
                users
                    .iter()
                    .map(|u| format!("@{u}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                reviewer_error(&err)
            )),
        }
    }
    if !teams.is_empty() {
        match client.post(&path, &json!({ "team_reviewers": teams })).await {
            Ok(_) => requested.teams = teams.clone(),
            Err(err) => notes.push(format!(
                "could not request the team{} {}: {}{}",
                if teams.len() == 1 { "" } else { "s" },
                teams.join(", "),
                reviewer_error(&err),
                if err.status() == Some(422) {
                    " (the default GITHUB_TOKEN cannot request teams: use a token that can read the organization's teams, or route to users)"
                } else {
                    ""
                }
            )),
        }
    }
    requested
}

fn reviewer_error(err: &ApiError) -> String {
    match err {
        ApiError::Status {
            status, message, ..
        } => format!("GitHub answered {status}: {message}"),
        other => other.to_string(),
    }
}

/// The `external_id` while annotations are still being sent: a re-run that finds it sends
/// them all again on a new check run.
const PENDING: &str = "skillgate:pending";

/// Create the check run on the head commit, or update the one a previous run made.
///
/// GitHub appends annotations on every update and never removes them, so: the digest of the
/// annotations goes into `external_id` only once every batch has landed; a re-run with the same
/// digest sends none; a re-run with other annotations (or after an interrupted run) creates a
/// new check run, which GitHub shows in place of the old one.
async fn check_run(
    client: &Client,
    target: &Target<'_>,
    run: &GateRun,
    notes: &[String],
) -> Result<u64, ApiError> {
    let output = render::check_output(run, notes);
    let annotations = render::annotations(run);
    let digest = annotations_digest(&annotations);
    let output_json = |batch: &[Annotation]| {
        let mut out = json!({
            "title": output.title,
            "summary": output.summary,
            "text": output.text,
        });
        if !batch.is_empty() {
            out["annotations"] = json!(batch);
        }
        out
    };
    let conclusion = conclusion(run);
    let mut body = json!({
        "name": CHECK_NAME,
        "status": "completed",
        "conclusion": conclusion,
        "completed_at": run.run.finished_at,
    });
    if let Some(url) = &target.details_url {
        body["details_url"] = json!(url);
    }
    let existing = find_check_run(client, target).await?;
    let reuse = match &existing {
        Some((id, external, annotated)) if external == &digest || *annotated == 0 => Some(*id),
        _ => None,
    };
    let repo = repo_path(target.repo);
    if let Some(id) = reuse.filter(|_| existing.as_ref().is_some_and(|e| e.1 == digest)) {
        // The same annotations are already there: update the rest only.
        body["output"] = output_json(&[]);
        body["external_id"] = json!(digest);
        client
            .patch(&format!("{repo}/check-runs/{id}"), &body)
            .await?;
        return Ok(id);
    }
    let mut batches = annotations.chunks(ANNOTATIONS_PER_REQUEST);
    let first = batches.next().unwrap_or(&[]);
    let last_first = annotations.len() <= ANNOTATIONS_PER_REQUEST;
    body["external_id"] = json!(if last_first { digest.as_str() } else { PENDING });
    body["output"] = output_json(first);
    let id = match reuse {
        Some(id) => {
            client
                .patch(&format!("{repo}/check-runs/{id}"), &body)
                .await?;
            id
        }
        None => {
            let mut create = body.clone();
            create["head_sha"] = json!(target.head_sha);
            let path = format!("{repo}/check-runs");
            let known = existing.as_ref().map(|e| e.0);
            let created = create_once(client, &path, &create, || async {
                Ok(find_check_run(client, target)
                    .await?
                    .map(|e| e.0)
                    .filter(|id| Some(*id) != known))
            })
            .await?;
            match created {
                Created::New(value) => id_of(&value, "POST", &path)?,
                // The POST landed although its answer was lost: its annotations are there.
                Created::Found(id) => id,
            }
        }
    };
    let mut rest = batches.peekable();
    while let Some(batch) = rest.next() {
        let mut update = json!({ "output": output_json(batch) });
        if rest.peek().is_none() {
            update["external_id"] = json!(digest);
        }
        client
            .patch(&format!("{repo}/check-runs/{id}"), &update)
            .await?;
    }
    Ok(id)
}

/// The newest check run this tool made on the head commit (named `skillgate`, with an
/// `external_id` of ours: a workflow job called `skillgate` is not taken over): its id,
/// `external_id` and how many annotations it has.
async fn find_check_run(
    client: &Client,
    target: &Target<'_>,
) -> Result<Option<(u64, String, u64)>, ApiError> {
    let path = format!(
        "{}/commits/{}/check-runs?check_name={CHECK_NAME}&filter=latest&per_page=100",
        repo_path(target.repo),
        target.head_sha
    );
    let listed = client.get(&path).await?;
    let runs = listed
        .get("check_runs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(runs
        .iter()
        .filter(|r| r.get("name").and_then(Value::as_str) == Some(CHECK_NAME))
        .filter_map(|r| {
            let id = r.get("id")?.as_u64()?;
            let external = r.get("external_id").and_then(Value::as_str)?;
            let annotated = r
                .pointer("/output/annotations_count")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            external
                .starts_with("skillgate:")
                .then(|| (id, external.to_owned(), annotated))
        })
        .max_by_key(|(id, _, _)| *id))
}

/// Turn our check run on `head_sha` to `conclusion` (after reviews), with a new title and
/// summary; its annotations stay. `None` when there is no check run of ours on that commit.
pub async fn conclude(
    client: &Client,
    repo: &Repo,
    head_sha: &str,
    conclusion: Conclusion,
    title: &str,
    summary: &str,
) -> Result<Option<u64>, ApiError> {
    let target = Target {
        repo,
        pull: None,
        head_sha,
        details_url: None,
    };
    let Some((id, _, _)) = find_check_run(client, &target).await? else {
        return Ok(None);
    };
    let summary = render::trim_bytes(summary, render::CHECK_TEXT_MAX_BYTES, "the job summary");
    client
        .patch(
            &format!("{}/check-runs/{id}", repo_path(repo)),
            &json!({
                "status": "completed",
                "conclusion": conclusion,
                "output": { "title": title, "summary": summary },
            }),
        )
        .await?;
    Ok(Some(id))
}

/// A short digest of the annotations, to recognise them on a re-run.
fn annotations_digest(annotations: &[Annotation]) -> String {
    let mut hasher = Sha256::new();
    for a in annotations {
        hasher.update(serde_json::to_vec(a).unwrap_or_default());
        hasher.update(b"\n");
    }
    let digest = hasher.finalize();
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("skillgate:{}:{hex}", annotations.len())
}

pub(crate) fn id_of(value: &Value, method: &'static str, path: &str) -> Result<u64, ApiError> {
    value
        .get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| ApiError::Decode {
            method,
            path: path.to_owned(),
            message: "no `id` in the answer".to_owned(),
        })
}

pub(crate) enum Created {
    New(Value),
    Found(u64),
}

/// POST once; when the answer is lost (no answer, or a 5xx), look again before trying again,
/// so a POST that did land is never made twice. Gives up after three tries.
pub(crate) async fn create_once<F, Fut>(
    client: &Client,
    path: &str,
    body: &Value,
    look_up: F,
) -> Result<Created, ApiError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<Option<u64>, ApiError>>,
{
    let mut tries = 0;
    loop {
        tries += 1;
        match client.post(path, body).await {
            Ok(value) => return Ok(Created::New(value)),
            Err(err) if err.maybe_applied() && tries < 3 => {
                tokio::time::sleep(std::time::Duration::from_millis(500 * tries)).await;
                if let Some(id) = look_up().await? {
                    return Ok(Created::Found(id));
                }
            }
            Err(err) => return Err(err),
        }
    }
}

/// The sticky comments on issue or pull request `number`, oldest first: comments by a bot that
/// start with [`COMMENT_MARKER`] (a person's comment that starts with it is theirs, never edited
/// or deleted). Each with its id and body.
pub(crate) async fn sticky_comments(
    client: &Client,
    repo: &Repo,
    number: u64,
) -> Result<Vec<(u64, String)>, ApiError> {
    let list = format!("{}/issues/{number}/comments?per_page=100", repo_path(repo));
    let (comments, _) = client.get_all(&list, MAX_COMMENTS).await?;
    let mut ours: Vec<(u64, String)> = comments
        .iter()
        .filter_map(|c| {
            if c.pointer("/user/type").and_then(Value::as_str) != Some("Bot") {
                return None;
            }
            let text = c.get("body").and_then(Value::as_str)?;
            text.starts_with(COMMENT_MARKER)
                .then(|| Some((c.get("id")?.as_u64()?, text.to_owned())))
                .flatten()
        })
        .collect();
    ours.sort_by_key(|(id, _)| *id);
    Ok(ours)
}

/// Edit the sticky comment in place, or create it. Of two (a race between jobs), the oldest
/// stays and the other is deleted. A reminder line the old comment carries for this same
/// `head` stays (see [`super::remind`]): the wait it records has not changed.
pub async fn sticky_comment(
    client: &Client,
    repo: &Repo,
    number: u64,
    head: &str,
    body: &str,
) -> Result<u64, ApiError> {
    let ours = sticky_comments(client, repo, number).await?;
    let keep = match ours.first() {
        Some((id, old)) => {
            let body = carry_reminder(old, body, head);
            if *old != body {
                let path = format!("{}/issues/comments/{id}", repo_path(repo));
                client.patch(&path, &json!({ "body": body })).await?;
            }
            *id
        }
        None => {
            let path = format!("{}/issues/{number}/comments", repo_path(repo));
            let created = create_once(client, &path, &json!({ "body": body }), || async {
                Ok(sticky_comments(client, repo, number)
                    .await?
                    .first()
                    .map(|(id, _)| *id))
            })
            .await?;
            match created {
                Created::New(value) => id_of(&value, "POST", &path)?,
                Created::Found(id) => {
                    let path = format!("{}/issues/comments/{id}", repo_path(repo));
                    client.patch(&path, &json!({ "body": body })).await?;
                    id
                }
            }
        }
    };
    for (id, _) in ours.iter().skip(1) {
        client
            .delete(&format!("{}/issues/comments/{id}", repo_path(repo)))
            .await?;
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::Conclusion;

    #[test]
    fn conclusions_are_written_as_the_api_spells_them() {
        let words = [
            (Conclusion::Success, "success"),
            (Conclusion::Neutral, "neutral"),
            (Conclusion::ActionRequired, "action_required"),
            (Conclusion::Failure, "failure"),
        ];
        for (conclusion, word) in words {
            assert_eq!(serde_json::json!(conclusion), serde_json::json!(word));
        }
    }
}
