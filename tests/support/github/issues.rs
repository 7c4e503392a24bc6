//! Issues: list (pull requests included, as GitHub lists them, with a `pull_request` key),
//! create (unknown labels are created) and update (title, body, labels, state and its reason).

use serde_json::{Value, json};

use super::comments::user_json;
use super::reply::{Ctx, Reply};
use super::spec::Spec;
use super::state::{Issue, Pull, State};

/// GitHub's limit for an issue body, in characters.
pub const MAX_ISSUE_BODY_CHARS: usize = 65_536;
/// GitHub's limit for an issue title, in characters.
pub const MAX_ISSUE_TITLE_CHARS: usize = 256;

fn label_json(ctx: &Ctx, name: &str) -> Value {
    let id = name.bytes().map(u64::from).sum::<u64>();
    json!({
        "id": id,
        "node_id": format!("LA_fake{id}"),
        "url": format!("{}/labels/{}", ctx.repo_url(), super::reply::encode(name)),
        "name": name,
        "description": null,
        "color": "ededed",
        "default": false,
    })
}

/// The fields every issue answer shares, from GitHub's example.
fn template(spec: &Spec, ctx: &Ctx, number: u64) -> Value {
    let mut v = spec
        .example("issues/create")
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let repo = ctx.repo_url();
    v["id"] = json!(2_000_000 + number);
    v["node_id"] = json!(format!("I_fake{number}"));
    v["url"] = json!(format!("{repo}/issues/{number}"));
    v["repository_url"] = json!(repo);
    v["labels_url"] = json!(format!("{repo}/issues/{number}/labels{{/name}}"));
    v["comments_url"] = json!(format!("{repo}/issues/{number}/comments"));
    v["events_url"] = json!(format!("{repo}/issues/{number}/events"));
    v["html_url"] = json!(format!(
        "https://github.com/{}/{}/issues/{number}",
        ctx.param("owner"),
        ctx.param("repo")
    ));
    v["number"] = json!(number);
    v["assignee"] = Value::Null;
    v["assignees"] = json!([]);
    v["milestone"] = Value::Null;
    v["locked"] = json!(false);
    v["active_lock_reason"] = Value::Null;
    v["comments"] = json!(0);
    v["closed_by"] = Value::Null;
    v["author_association"] = json!("NONE");
    v
}

pub fn issue_json(spec: &Spec, ctx: &Ctx, issue: &Issue) -> Value {
    let mut v = template(spec, ctx, issue.number);
    v["state"] = json!(issue.state);
    v["state_reason"] = json!(issue.state_reason);
    v["title"] = json!(issue.title);
    v["body"] = json!(issue.body);
    v["user"] = user_json(spec, &issue.user);
    v["labels"] = Value::Array(issue.labels.iter().map(|l| label_json(ctx, l)).collect());
    v["created_at"] = json!(issue.created_at);
    v["updated_at"] = json!(issue.updated_at);
    v["closed_at"] = json!(issue.closed_at);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("pull_request");
    }
    v
}

/// A pull request as the issues API shows it.
fn pull_json(spec: &Spec, ctx: &Ctx, pull: &Pull) -> Value {
    let p = &pull.json;
    let mut v = template(spec, ctx, pull.number);
    let html = p["html_url"].clone();
    v["state"] = p["state"].clone();
    v["state_reason"] = Value::Null;
    v["title"] = p["title"].clone();
    v["body"] = p["body"].clone();
    v["user"] = p["user"].clone();
    v["labels"] = Value::Array(
        pull_labels(pull)
            .iter()
            .map(|l| label_json(ctx, l))
            .collect(),
    );
    v["created_at"] = p["created_at"].clone();
    v["updated_at"] = p["updated_at"].clone();
    v["closed_at"] = p["closed_at"].clone();
    v["html_url"] = html.clone();
    v["pull_request"] = json!({
        "url": p["url"],
        "html_url": html,
        "diff_url": format!("{}.diff", html.as_str().unwrap_or_default()),
        "patch_url": format!("{}.patch", html.as_str().unwrap_or_default()),
        "merged_at": p["merged_at"],
    });
    v
}

fn pull_labels(pull: &Pull) -> Vec<String> {
    pull.json["labels"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["name"].as_str().map(str::to_string))
        .collect()
}

/// An issue or a pull request, as the list filters, sorts and answers it.
struct Listed {
    number: u64,
    state: String,
    labels: Vec<String>,
    created_at: String,
    updated_at: String,
    json: Value,
}

pub fn list(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let wanted_state = ctx.query.get("state").map_or("open", String::as_str);
    let wanted_labels: Vec<&str> = ctx
        .query
        .get("labels")
        .map(|l| {
            l.split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let mut all: Vec<Listed> = state
        .issues
        .values()
        .map(|i| Listed {
            number: i.number,
            state: i.state.clone(),
            labels: i.labels.clone(),
            created_at: i.created_at.clone(),
            updated_at: i.updated_at.clone(),
            json: issue_json(spec, ctx, i),
        })
        .chain(state.pulls.values().map(|p| {
            Listed {
                number: p.number,
                state: p.json["state"].as_str().unwrap_or("open").to_string(),
                labels: pull_labels(p),
                created_at: p.json["created_at"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                updated_at: p.json["updated_at"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                json: pull_json(spec, ctx, p),
            }
        }))
        .filter(|l| wanted_state == "all" || l.state == wanted_state)
        .filter(|l| {
            wanted_labels
                .iter()
                .all(|w| l.labels.iter().any(|have| have.eq_ignore_ascii_case(w)))
        })
        .collect();
    // GitHub's default: newest first. Numbers break ties (the clock ticks per write, but pull
    // requests keep their example's dates).
    let by_updated = ctx.query.get("sort").is_some_and(|s| s == "updated");
    all.sort_by(|a, b| {
        let key = |l: &Listed| {
            let at = if by_updated {
                &l.updated_at
            } else {
                &l.created_at
            };
            (at.clone(), l.number)
        };
        key(a).cmp(&key(b))
    });
    if ctx.query.get("direction").is_none_or(|d| d == "desc") {
        all.reverse();
    }
    ctx.paginate(all.into_iter().map(|l| l.json).collect())
}

/// GitHub's 422 for one field.
fn invalid(ctx: &Ctx, field: &str, code: &str, message: &str) -> Reply {
    Reply::json(
        422,
        json!({
            "message": "Validation Failed",
            "errors": [{ "resource": "Issue", "code": code, "field": field, "message": message }],
            "documentation_url": ctx.op.docs_url,
            "status": "422",
        }),
    )
}

/// The title and body checks GitHub makes on create and update.
fn checked_text(state: &mut State, ctx: &Ctx, creating: bool) -> Result<(), Reply> {
    let title = match &ctx.body["title"] {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match &title {
        None if creating => {
            return Err(invalid(ctx, "title", "missing_field", "title is missing"));
        }
        Some(t) if t.trim().is_empty() => {
            return Err(invalid(ctx, "title", "missing_field", "title is blank"));
        }
        Some(t) if t.chars().count() > MAX_ISSUE_TITLE_CHARS => {
            state.violations.push(ctx.violation(
                "/title",
                format!("over GitHub's {MAX_ISSUE_TITLE_CHARS} characters"),
            ));
            return Err(invalid(
                ctx,
                "title",
                "custom",
                &format!("title is too long (maximum is {MAX_ISSUE_TITLE_CHARS} characters)"),
            ));
        }
        _ => {}
    }
    if let Some(body) = ctx.body["body"].as_str() {
        let chars = body.chars().count();
        if chars > MAX_ISSUE_BODY_CHARS {
            state.violations.push(ctx.violation(
                "/body",
                format!("{chars} characters, GitHub allows at most {MAX_ISSUE_BODY_CHARS}"),
            ));
            return Err(invalid(
                ctx,
                "body",
                "custom",
                &format!("body is too long (maximum is {MAX_ISSUE_BODY_CHARS} characters)"),
            ));
        }
    }
    Ok(())
}

/// The label names of a create or update body (strings or `{ "name": … }`), created in the
/// repository when new.
fn labels_of(state: &mut State, body: &Value) -> Option<Vec<String>> {
    let names: Vec<String> = body["labels"]
        .as_array()?
        .iter()
        .filter_map(|l| match l {
            Value::String(s) => Some(s.clone()),
            other => other["name"].as_str().map(str::to_string),
        })
        .collect();
    for name in &names {
        if !state.labels.iter().any(|l| l.eq_ignore_ascii_case(name)) {
            state.labels.push(name.clone());
        }
    }
    Some(names)
}

pub fn create(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    if let Err(reply) = checked_text(state, ctx, true) {
        return reply;
    }
    let title = match &ctx.body["title"] {
        Value::Number(n) => n.to_string(),
        other => other.as_str().unwrap_or_default().to_string(),
    };
    let labels = labels_of(state, ctx.body).unwrap_or_default();
    let login = state.bot_login.clone();
    let number = state.add_issue(&title, ctx.body["body"].as_str(), &labels, &login);
    match state.issues.get(&number) {
        Some(issue) => Reply::json(201, issue_json(spec, ctx, issue)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

pub fn update(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    let number = ctx.param_u64("issue_number");
    if !state.issues.contains_key(&number) {
        // Pull requests are edited through the pulls API in the fake.
        return Reply::not_found(&ctx.op.docs_url);
    }
    if let Err(reply) = checked_text(state, ctx, false) {
        return reply;
    }
    let labels = labels_of(state, ctx.body);
    let now = state.tick();
    let Some(issue) = state.issues.get_mut(&number) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    match &ctx.body["title"] {
        Value::String(s) => issue.title = s.clone(),
        Value::Number(n) => issue.title = n.to_string(),
        _ => {}
    }
    if let Some(body) = ctx.body.get("body") {
        issue.body = body.as_str().map(str::to_string);
    }
    if let Some(labels) = labels {
        issue.labels = labels;
    }
    // `state_reason` is ignored unless the state changes.
    if let Some(new_state) = ctx.body["state"].as_str()
        && new_state != issue.state
    {
        issue.state = new_state.to_string();
        if new_state == "closed" {
            issue.state_reason = Some(
                ctx.body["state_reason"]
                    .as_str()
                    .unwrap_or("completed")
                    .to_string(),
            );
            issue.closed_at = Some(now.clone());
        } else {
            issue.state_reason = Some("reopened".into());
            issue.closed_at = None;
        }
    }
    issue.updated_at = now;
    let issue = issue.clone();
    Reply::json(200, issue_json(spec, ctx, &issue))
}
