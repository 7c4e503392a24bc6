//! One request, start to finish: route, check headers, query and body against the spec, apply a
//! scripted fault, run the operation, record everything.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::record::{RecordedRequest, Violation};
use super::reply::{Ctx, Reply, ReplyBody};
use super::spec::{Operation, Spec, parse_query};
use super::state::State;
use super::{checks, comments, git, issues, pulls, schema};

pub struct Shared {
    pub spec: Spec,
    pub state: Mutex<State>,
    pub base_url: String,
}

impl Shared {
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

pub struct Answer {
    pub reply: Reply,
    pub delay: Option<Duration>,
}

/// The request as the server read it.
pub struct Incoming<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub headers: BTreeMap<String, String>,
    pub body: &'a [u8],
}

const DOCS: &str = "https://docs.github.com/rest";

pub fn respond(shared: &Shared, req: Incoming<'_>) -> Answer {
    let query = parse_query(req.query);
    let body: Value = if req.body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(req.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(req.body).into_owned()))
    };
    let mut record = RecordedRequest {
        method: req.method.to_string(),
        path: req.path.to_string(),
        operation_id: None,
        path_params: BTreeMap::new(),
        query: query.clone(),
        headers: req.headers.clone(),
        body: body.clone(),
        status: 0,
        injected_fault: false,
    };
    let mut state = shared.state();
    let mut delay = None;

    let reply = match shared.spec.route(req.method, req.path) {
        Err(other_methods) => {
            let mut message = format!("no operation in the spec for {} {}", req.method, req.path);
            if !other_methods.is_empty() {
                message.push_str(&format!(
                    " (the path matches {}, under another method)",
                    other_methods.join(", ")
                ));
            }
            state.violations.push(Violation {
                operation_id: None,
                method: req.method.to_string(),
                path: req.path.to_string(),
                pointer: "path".into(),
                message,
            });
            Reply::not_found(DOCS)
        }
        Ok(route) => {
            let op = route.operation;
            record.operation_id = Some(op.id.clone());
            record.path_params = route.params.clone();
            let ctx = Ctx {
                op,
                method: req.method,
                path: req.path,
                params: &route.params,
                query: &query,
                headers: &req.headers,
                body: &body,
                base_url: &shared.base_url,
            };
            let (reply, fault) = checked(&mut state, &shared.spec, &ctx, req.body);
            if let Some(d) = fault.as_ref().and_then(|f| f.1) {
                delay = Some(d);
            }
            record.injected_fault = fault.is_some_and(|f| f.0);
            reply
        }
    };
    record.status = reply.status;
    state.requests.push(record);
    Answer { reply, delay }
}

/// `(reply, Some((was_injected, delay)))` when a scripted fault was consumed.
type Checked = (Reply, Option<(bool, Option<Duration>)>);

fn checked(state: &mut State, spec: &Spec, ctx: &Ctx, raw_body: &[u8]) -> Checked {
    let mut fatal: Option<Reply> = None;
    let mut keep = |reply: Reply| {
        if fatal.is_none() {
            fatal = Some(reply);
        }
    };

    // Headers.
    let token = ctx.headers.get("authorization").and_then(|a| {
        let (scheme, rest) = a.split_once(' ')?;
        (scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer"))
            .then(|| rest.trim().to_string())
    });
    if token.as_deref() != Some(state.token.as_str()) {
        state.violations.push(ctx.violation(
            "header:authorization",
            match &ctx.headers.get("authorization") {
                None => "no authorization header".to_string(),
                Some(_) => "authorization is not `token <token>` or `Bearer <token>` with the configured token".to_string(),
            },
        ));
        keep(Reply::error(401, "Bad credentials", DOCS));
    }
    if ctx
        .headers
        .get("user-agent")
        .is_none_or(|ua| ua.trim().is_empty())
    {
        state
            .violations
            .push(ctx.violation("header:user-agent", "no user-agent header"));
        keep(Reply::error(
            403,
            "Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).",
            DOCS,
        ));
    }
    // One media type: which of several GitHub honours is undocumented (a raw read sent with
    // the JSON one as well may be answered with JSON).
    if let Some(accept) = ctx.headers.get("accept")
        && accept.split(',').filter(|t| !t.trim().is_empty()).count() > 1
    {
        state.violations.push(ctx.violation(
            "header:accept",
            format!("more than one media type in accept: {accept}"),
        ));
    }
    if let Some((owner, repo)) = &state.repo
        && (!ctx.param("owner").eq_ignore_ascii_case(owner)
            || !ctx.param("repo").eq_ignore_ascii_case(repo))
    {
        let message = format!(
            "request for {}/{}, the fake serves {owner}/{repo}",
            ctx.param("owner"),
            ctx.param("repo")
        );
        state.violations.push(ctx.violation("path", message));
        keep(Reply::not_found(&ctx.op.docs_url));
    }

    // Path and query parameters.
    for param in ctx.op.params.iter().filter(|p| p.location == "path") {
        let value = coerce(ctx.param(&param.name), &param.schema);
        for e in schema::validate(&param.schema, &value) {
            state
                .violations
                .push(ctx.violation(&format!("path:{}", param.name), e.message.clone()));
            keep(Reply::not_found(&ctx.op.docs_url));
        }
    }
    for (name, raw) in ctx.query {
        let Some(param) = ctx
            .op
            .params
            .iter()
            .find(|p| p.location == "query" && &p.name == name)
        else {
            let declared: Vec<&str> = ctx
                .op
                .params
                .iter()
                .filter(|p| p.location == "query")
                .map(|p| p.name.as_str())
                .collect();
            state.violations.push(ctx.violation(
                &format!("?{name}"),
                format!(
                    "unknown query parameter (declared: {})",
                    if declared.is_empty() {
                        "none".to_string()
                    } else {
                        declared.join(", ")
                    }
                ),
            ));
            continue;
        };
        let value = coerce(raw, &param.schema);
        for e in schema::validate(&param.schema, &value) {
            state
                .violations
                .push(ctx.violation(&format!("?{name}"), e.message));
        }
        if name == "per_page" && raw.parse::<u64>().is_ok_and(|n| n > 100) {
            state.violations.push(ctx.violation(
                "?per_page",
                format!("{raw} is above GitHub's maximum of 100"),
            ));
        }
    }

    // Body.
    match &ctx.op.body {
        Some(spec_body) if raw_body.is_empty() && spec_body.required => {
            state
                .violations
                .push(ctx.violation("/", "request body is required"));
            keep(Reply::error(
                422,
                "Invalid request.\n\nNo body.",
                &ctx.op.docs_url,
            ));
        }
        Some(_) if raw_body.is_empty() => {}
        Some(spec_body) => {
            let content_type = ctx.headers.get("content-type").cloned().unwrap_or_default();
            if !content_type.starts_with("application/json") {
                state.violations.push(ctx.violation(
                    "header:content-type",
                    format!("`{content_type}` is not application/json"),
                ));
            }
            if serde_json::from_slice::<Value>(raw_body).is_err() {
                state
                    .violations
                    .push(ctx.violation("/", "the body is not JSON"));
                keep(Reply::error(400, "Problems parsing JSON", &ctx.op.docs_url));
            } else {
                let errors = schema::validate(&spec_body.schema, ctx.body);
                if let Some(first) = errors.first() {
                    keep(Reply::error(
                        422,
                        &format!("Invalid request.\n\n{}: {}", first.pointer, first.message),
                        &ctx.op.docs_url,
                    ));
                }
                for e in errors {
                    state.violations.push(ctx.violation(&e.pointer, e.message));
                }
            }
        }
        None if !raw_body.is_empty() => {
            state
                .violations
                .push(ctx.violation("/", "this operation takes no request body"));
        }
        None => {}
    }
    if let Some(reply) = fatal {
        return (reply, None);
    }

    let fault = state.take_fault(&ctx.op.id);
    let fault_reply = fault.as_ref().filter(|f| f.status != 0).map(|f| {
        let content_type = if serde_json::from_str::<Value>(&f.body).is_ok() {
            "application/json; charset=utf-8"
        } else {
            "text/html; charset=utf-8"
        };
        let mut reply = Reply {
            status: f.status,
            headers: f.headers.clone(),
            body: ReplyBody::Raw {
                content_type: content_type.into(),
                bytes: f.body.clone().into_bytes(),
            },
        };
        if f.body.is_empty() {
            reply.body = ReplyBody::Empty;
        }
        reply
    });
    let fault_info = fault.as_ref().map(|f| (f.status != 0, f.delay));
    if let (Some(reply), Some(f)) = (&fault_reply, &fault)
        && !f.after_effect
    {
        return (reply.clone(), fault_info);
    }

    if state.read_only && ctx.method != "GET" {
        return (
            Reply::error(
                403,
                "Resource not accessible by integration",
                &ctx.op.docs_url,
            ),
            fault_info,
        );
    }

    let reply = operation(state, spec, ctx);
    (fault_reply.unwrap_or(reply), fault_info)
}

/// A path or query string as the JSON value its schema describes.
fn coerce(raw: &str, schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("integer") | Some("number") => raw
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| raw.parse::<f64>().map(Value::from))
            .unwrap_or_else(|_| Value::String(raw.to_string())),
        Some("boolean") => match raw {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(raw.to_string()),
        },
        _ => Value::String(raw.to_string()),
    }
}

fn operation(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    match ctx.op.id.as_str() {
        "issues/list-comments" => comments::list(state, spec, ctx),
        "issues/create-comment" => comments::create(state, spec, ctx),
        "issues/update-comment" => comments::update(state, spec, ctx),
        "issues/delete-comment" => comments::delete(state, ctx),
        "issues/list-for-repo" => issues::list(state, spec, ctx),
        "issues/create" => issues::create(state, spec, ctx),
        "issues/update" => issues::update(state, spec, ctx),
        "checks/create" => checks::create(state, spec, ctx),
        "checks/update" => checks::update(state, spec, ctx),
        "checks/get" => checks::get(state, spec, ctx),
        "checks/list-for-ref" => checks::list_for_ref(state, spec, ctx),
        "pulls/get" => pulls::get(state, spec, ctx),
        "pulls/list-files" => pulls::list_files(state, spec, ctx),
        "pulls/request-reviewers" => pulls::request_reviewers(state, spec, ctx),
        "pulls/list-requested-reviewers" => pulls::list_requested_reviewers(state, spec, ctx),
        "pulls/list-reviews" => pulls::list_reviews(state, spec, ctx),
        "git/get-ref" => git::get_ref(state, ctx),
        "git/create-ref" => git::create_ref(state, ctx),
        "git/update-ref" => git::update_ref(state, ctx),
        "git/create-blob" => git::create_blob(state, ctx),
        "git/get-blob" => git::get_blob(state, ctx),
        "git/create-tree" => git::create_tree(state, ctx),
        "git/get-tree" => git::get_tree(state, ctx),
        "git/create-commit" => git::create_commit(state, spec, ctx),
        "git/get-commit" => git::get_commit(state, spec, ctx),
        "repos/get-content" => git::get_content(state, ctx),
        "repos/create-or-update-file-contents" => git::put_content(state, ctx),
        "repos/get-collaborator-permission-level" => permission(state, spec, ctx),
        _ => example(spec, ctx.op),
    }
}

fn permission(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let user = ctx.param("username");
    let mut v = spec
        .example(&ctx.op.id)
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let permission = state
        .permissions
        .get(user)
        .cloned()
        .unwrap_or_else(|| "read".into());
    let role = match permission.as_str() {
        "admin" => "admin",
        "write" => "write",
        "none" => "none",
        _ => "read",
    };
    v["permission"] = json!(permission);
    v["role_name"] = json!(role);
    v["user"] = comments::user_json(spec, user);
    Reply::json(200, v)
}

/// Operations the gate does not depend on answer with GitHub's documented example.
fn example(spec: &Spec, op: &Operation) -> Reply {
    match spec.example(&op.id) {
        Some((status, body)) => Reply::json(status, body),
        None => Reply::empty(op.success.first().copied().unwrap_or(204)),
    }
}
