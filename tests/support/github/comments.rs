//! Issue (and pull request) comments: list, create, update, delete.

use serde_json::{Value, json};

use super::reply::{Ctx, Reply};
use super::spec::Spec;
use super::state::{Comment, State};

/// GitHub's limit for an issue or pull request comment body, in characters.
pub const MAX_COMMENT_CHARS: usize = 65_536;

/// A user object in GitHub's shape; logins ending in `[bot]` are bots.
pub fn user_json(spec: &Spec, login: &str) -> Value {
    let mut user = spec
        .example("issues/create-comment")
        .map(|(_, v)| v["user"].clone())
        .unwrap_or_else(|| json!({}));
    user["login"] = json!(login);
    user["id"] = json!(login.bytes().map(u64::from).sum::<u64>());
    user["type"] = json!(if login.ends_with("[bot]") {
        "Bot"
    } else {
        "User"
    });
    user["url"] = json!(format!("https://api.github.com/users/{login}"));
    user["html_url"] = json!(format!("https://github.com/{login}"));
    user
}

pub fn comment_json(spec: &Spec, ctx: &Ctx, comment: &Comment) -> Value {
    let mut v = spec
        .example("issues/create-comment")
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let repo = ctx.repo_url();
    v["id"] = json!(comment.id);
    v["node_id"] = json!(format!("IC_fake{}", comment.id));
    v["url"] = json!(format!("{repo}/issues/comments/{}", comment.id));
    v["html_url"] = json!(format!(
        "https://github.com/{}/{}/pull/{}#issuecomment-{}",
        ctx.param("owner"),
        ctx.param("repo"),
        comment.issue_number,
        comment.id
    ));
    v["issue_url"] = json!(format!("{repo}/issues/{}", comment.issue_number));
    v["body"] = json!(comment.body);
    v["user"] = user_json(spec, &comment.user);
    v["created_at"] = json!(comment.created_at);
    v["updated_at"] = json!(comment.updated_at);
    v["author_association"] = json!("NONE");
    v
}

fn too_long(state: &mut State, ctx: &Ctx) -> Option<Reply> {
    let chars = ctx.body["body"].as_str()?.chars().count();
    if chars <= MAX_COMMENT_CHARS {
        return None;
    }
    state.violations.push(ctx.violation(
        "/body",
        format!("{chars} characters, GitHub allows at most {MAX_COMMENT_CHARS}"),
    ));
    Some(Reply::json(
        422,
        json!({
            "message": "Validation Failed",
            "errors": [{
                "resource": "IssueComment",
                "code": "custom",
                "field": "body",
                "message": format!("body is too long (maximum is {MAX_COMMENT_CHARS} characters)"),
            }],
            "documentation_url": ctx.op.docs_url,
            "status": "422",
        }),
    ))
}

pub fn list(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    let number = ctx.param_u64("issue_number");
    let items = state
        .comments
        .iter()
        .filter(|c| c.issue_number == number)
        .map(|c| comment_json(spec, ctx, c))
        .collect();
    ctx.paginate(items)
}

pub fn create(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    if let Some(reply) = too_long(state, ctx) {
        return reply;
    }
    let number = ctx.param_u64("issue_number");
    if !state.pulls.is_empty() && !state.pulls.contains_key(&number) {
        return Reply::not_found(&ctx.op.docs_url);
    }
    let login = state.bot_login.clone();
    let id = state.add_comment(
        number,
        ctx.body["body"].as_str().unwrap_or_default(),
        &login,
    );
    let comment = state.comments.iter().find(|c| c.id == id).cloned();
    match comment {
        Some(c) => Reply::json(201, comment_json(spec, ctx, &c)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

pub fn update(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    if let Some(reply) = too_long(state, ctx) {
        return reply;
    }
    let id = ctx.param_u64("comment_id");
    let now = state.tick();
    let Some(comment) = state.comments.iter_mut().find(|c| c.id == id) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    comment.body = ctx.body["body"].as_str().unwrap_or_default().to_string();
    comment.updated_at = now;
    let comment = comment.clone();
    Reply::json(200, comment_json(spec, ctx, &comment))
}

pub fn delete(state: &mut State, ctx: &Ctx) -> Reply {
    let id = ctx.param_u64("comment_id");
    let before = state.comments.len();
    state.comments.retain(|c| c.id != id);
    if state.comments.len() == before {
        return Reply::not_found(&ctx.op.docs_url);
    }
    Reply::empty(204)
}
