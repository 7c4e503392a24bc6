//! Pull requests: get, list files (GitHub stops at 3,000), request reviewers, list reviews.

use serde_json::{Value, json};

use super::comments::user_json;
use super::reply::{Ctx, Reply};
use super::spec::Spec;
use super::state::{Pull, ReviewerRequest, State};

/// GitHub lists at most this many files of a pull request.
pub const MAX_LISTED_FILES: usize = 3_000;

/// What `set_pull` describes.
#[derive(Debug, Clone)]
pub struct PullSpec<'a> {
    pub number: u64,
    pub head_sha: &'a str,
    pub base_sha: &'a str,
    pub author_login: &'a str,
    pub head_repo_full_name: &'a str,
    pub base_repo_full_name: &'a str,
}

fn repo_json(template: &Value, full_name: &str, base_url: &str) -> Value {
    let mut repo = template.clone();
    let (owner, name) = full_name.split_once('/').unwrap_or((full_name, full_name));
    repo["full_name"] = json!(full_name);
    repo["name"] = json!(name);
    repo["owner"]["login"] = json!(owner);
    repo["url"] = json!(format!("{base_url}/repos/{full_name}"));
    repo["html_url"] = json!(format!("https://github.com/{full_name}"));
    repo
}

pub fn pull_json(spec: &Spec, base_url: &str, p: &PullSpec<'_>) -> Value {
    let mut v = spec
        .example("pulls/get")
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let base = p.base_repo_full_name;
    let number = p.number;
    v["number"] = json!(number);
    v["id"] = json!(1_000_000 + number);
    v["url"] = json!(format!("{base_url}/repos/{base}/pulls/{number}"));
    v["html_url"] = json!(format!("https://github.com/{base}/pull/{number}"));
    v["issue_url"] = json!(format!("{base_url}/repos/{base}/issues/{number}"));
    v["comments_url"] = json!(format!("{base_url}/repos/{base}/issues/{number}/comments"));
    v["state"] = json!("open");
    v["locked"] = json!(false);
    v["merged"] = json!(false);
    v["draft"] = json!(false);
    v["user"] = user_json(spec, p.author_login);
    v["requested_reviewers"] = json!([]);
    v["requested_teams"] = json!([]);
    let fork = p.head_repo_full_name != p.base_repo_full_name;
    let head_repo = repo_json(&v["head"]["repo"], p.head_repo_full_name, base_url);
    let base_repo = repo_json(&v["base"]["repo"], base, base_url);
    v["head"]["sha"] = json!(p.head_sha);
    v["head"]["repo"] = head_repo;
    v["head"]["repo"]["fork"] = json!(fork);
    v["head"]["user"] = user_json(spec, p.head_repo_full_name.split('/').next().unwrap_or(""));
    v["head"]["label"] = json!(format!(
        "{}:{}",
        p.head_repo_full_name.split('/').next().unwrap_or(""),
        v["head"]["ref"].as_str().unwrap_or("feature")
    ));
    v["base"]["sha"] = json!(p.base_sha);
    v["base"]["repo"] = base_repo;
    v["base"]["repo"]["fork"] = json!(false);
    v["base"]["user"] = user_json(spec, base.split('/').next().unwrap_or(""));
    v
}

fn with_requests(spec: &Spec, pull: &Pull) -> Value {
    let mut v = pull.json.clone();
    v["requested_reviewers"] = Value::Array(
        pull.requested_users
            .iter()
            .map(|u| user_json(spec, u))
            .collect(),
    );
    v["requested_teams"] =
        Value::Array(pull.requested_teams.iter().map(|t| team_json(t)).collect());
    v
}

fn team_json(slug: &str) -> Value {
    json!({
        "id": slug.bytes().map(u64::from).sum::<u64>(),
        "node_id": format!("T_fake_{slug}"),
        "name": slug,
        "slug": slug,
        "description": "",
        "privacy": "closed",
        "permission": "pull",
        "url": format!("https://api.github.com/teams/{slug}"),
        "html_url": format!("https://github.com/orgs/octo-org/teams/{slug}"),
        "members_url": format!("https://api.github.com/teams/{slug}/members{{/member}}"),
        "repositories_url": format!("https://api.github.com/teams/{slug}/repos"),
        "parent": null,
    })
}

pub fn get(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    match state.pulls.get(&ctx.param_u64("pull_number")) {
        Some(pull) => Reply::json(200, with_requests(spec, pull)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

pub fn list_files(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let Some(pull) = state.pulls.get(&ctx.param_u64("pull_number")) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    let template = spec
        .example("pulls/list-files")
        .and_then(|(_, v)| v.get(0).cloned())
        .unwrap_or_else(|| json!({}));
    let head = pull.json["head"]["sha"].as_str().unwrap_or_default();
    let repo = ctx.repo_url();
    let items = pull
        .files
        .iter()
        .take(MAX_LISTED_FILES)
        .map(|f| {
            let mut v = template.clone();
            v["sha"] = json!(super::util::git_object_id("blob", f.filename.as_bytes()));
            v["filename"] = json!(f.filename);
            v["status"] = json!(f.status);
            v["additions"] = json!(f.additions);
            v["deletions"] = json!(f.deletions);
            v["changes"] = json!(f.additions + f.deletions);
            v["contents_url"] = json!(format!("{repo}/contents/{}?ref={head}", f.filename));
            match &f.previous_filename {
                Some(prev) => v["previous_filename"] = json!(prev),
                None => {
                    if let Some(obj) = v.as_object_mut() {
                        obj.remove("previous_filename");
                    }
                }
            }
            v
        })
        .collect();
    ctx.paginate(items)
}

pub fn request_reviewers(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    let number = ctx.param_u64("pull_number");
    let strings = |key: &str| -> Vec<String> {
        ctx.body[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let reviewers = strings("reviewers");
    let teams = strings("team_reviewers");
    let Some(pull) = state.pulls.get(&number) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    let author = pull.author().to_string();
    let reply = if reviewers.iter().any(|r| r.eq_ignore_ascii_case(&author)) {
        state.violations.push(ctx.violation(
            "/reviewers",
            format!("requested the pull request's author `{author}`"),
        ));
        Reply::error(
            422,
            "Review cannot be requested from pull request author.",
            &ctx.op.docs_url,
        )
    } else if !teams.is_empty() && state.reject_team_reviewers {
        Reply::error(
            422,
            &format!(
                "Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the {}/{} repository.",
                ctx.param("owner"),
                ctx.param("repo")
            ),
            &ctx.op.docs_url,
        )
    } else {
        let pull = state.pulls.get_mut(&number).expect("pull checked above");
        for r in &reviewers {
            if !pull.requested_users.contains(r) {
                pull.requested_users.push(r.clone());
            }
        }
        for t in &teams {
            if !pull.requested_teams.contains(t) {
                pull.requested_teams.push(t.clone());
            }
        }
        Reply::json(201, with_requests(spec, pull))
    };
    state.reviewer_requests.push(ReviewerRequest {
        pull_number: number,
        reviewers,
        team_reviewers: teams,
        status: reply.status,
    });
    reply
}

pub fn list_requested_reviewers(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let Some(pull) = state.pulls.get(&ctx.param_u64("pull_number")) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    Reply::json(
        200,
        json!({
            "users": pull.requested_users.iter().map(|u| user_json(spec, u)).collect::<Vec<_>>(),
            "teams": pull.requested_teams.iter().map(|t| team_json(t)).collect::<Vec<_>>(),
        }),
    )
}

pub fn list_reviews(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let Some(pull) = state.pulls.get(&ctx.param_u64("pull_number")) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    let template = spec
        .example("pulls/list-reviews")
        .and_then(|(_, v)| v.get(0).cloned())
        .unwrap_or_else(|| json!({}));
    let head = pull.json["head"]["sha"].clone();
    let items = pull
        .reviews
        .iter()
        .enumerate()
        .map(|(i, (login, review_state, commit_id))| {
            let mut v = template.clone();
            v["id"] = json!(i + 1);
            v["user"] = user_json(spec, login);
            v["state"] = json!(review_state);
            v["commit_id"] = commit_id
                .as_ref()
                .map_or_else(|| head.clone(), |c| json!(c));
            v
        })
        .collect();
    ctx.paginate(items)
}
