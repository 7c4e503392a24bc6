//! Check runs: create, update (annotations append), get, list for a ref.

use serde_json::{Value, json};

use super::reply::{Ctx, Reply};
use super::spec::Spec;
use super::state::{CheckRun, State};

/// GitHub's limit for `output.summary` and `output.text`, in bytes.
pub const MAX_OUTPUT_BYTES: usize = 65_535;
/// GitHub's limit for an annotation title, in characters.
pub const MAX_ANNOTATION_TITLE: usize = 255;

pub fn check_run_json(spec: &Spec, ctx: &Ctx, run: &CheckRun) -> Value {
    let mut v = spec
        .example("checks/get")
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let repo = ctx.repo_url();
    v["id"] = json!(run.id);
    v["node_id"] = json!(format!("CR_fake{}", run.id));
    v["name"] = json!(run.name);
    v["head_sha"] = json!(run.head_sha);
    v["status"] = json!(run.status);
    v["conclusion"] = json!(run.conclusion);
    v["details_url"] = json!(run.details_url);
    v["external_id"] = json!(run.external_id.clone().unwrap_or_default());
    v["started_at"] = json!(run.started_at);
    v["completed_at"] = json!(run.completed_at);
    v["url"] = json!(format!("{repo}/check-runs/{}", run.id));
    v["html_url"] = json!(format!(
        "https://github.com/{}/{}/runs/{}",
        ctx.param("owner"),
        ctx.param("repo"),
        run.id
    ));
    v["output"] = json!({
        "title": run.title,
        "summary": run.summary,
        "text": run.text,
        "annotations_count": run.annotations.len(),
        "annotations_url": format!("{repo}/check-runs/{}/annotations", run.id),
    });
    v
}

/// The rules the schema cannot express: byte limits, title length, status vs conclusion.
fn output_problems(state: &mut State, ctx: &Ctx) -> Option<Reply> {
    let mut problems = Vec::new();
    for field in ["summary", "text"] {
        if let Some(s) = ctx.body["output"][field].as_str()
            && s.len() > MAX_OUTPUT_BYTES
        {
            problems.push((
                format!("/output/{field}"),
                format!(
                    "Only {MAX_OUTPUT_BYTES} characters are allowed; {} were supplied.",
                    s.len()
                ),
            ));
        }
    }
    for (i, a) in ctx.body["output"]["annotations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(title) = a["title"].as_str()
            && title.chars().count() > MAX_ANNOTATION_TITLE
        {
            problems.push((
                format!("/output/annotations/{i}/title"),
                format!("title is longer than {MAX_ANNOTATION_TITLE} characters"),
            ));
        }
    }
    if ctx.body["status"] == "completed" && ctx.body["conclusion"].is_null() {
        problems.push((
            "/conclusion".into(),
            "conclusion must be given when status is completed".into(),
        ));
    }
    if problems.is_empty() {
        return None;
    }
    let message = problems
        .iter()
        .map(|(_, m)| m.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for (pointer, msg) in problems {
        state.violations.push(ctx.violation(&pointer, msg));
    }
    Some(Reply::error(
        422,
        &format!("Invalid request.\n\n{message}"),
        &ctx.op.docs_url,
    ))
}

fn apply(state: &mut State, run_index: usize, body: &Value) {
    let now = state.tick();
    let run = &mut state.check_runs[run_index];
    let text = |key: &str| body[key].as_str().map(str::to_string);
    if let Some(name) = text("name") {
        run.name = name;
    }
    if let Some(url) = text("details_url") {
        run.details_url = Some(url);
    }
    if let Some(id) = text("external_id") {
        run.external_id = Some(id);
    }
    if let Some(at) = text("started_at") {
        run.started_at = Some(at);
    }
    if let Some(status) = text("status") {
        run.status = status;
    }
    if let Some(conclusion) = text("conclusion") {
        run.conclusion = Some(conclusion);
        run.status = "completed".into();
    }
    if let Some(at) = text("completed_at") {
        run.completed_at = Some(at);
    }
    if run.status == "completed" && run.completed_at.is_none() {
        run.completed_at = Some(now);
    }
    let output = &body["output"];
    if output.is_object() {
        let out = |key: &str| output[key].as_str().map(str::to_string);
        if let Some(t) = out("title") {
            run.title = Some(t);
        }
        if let Some(s) = out("summary") {
            run.summary = Some(s);
        }
        if let Some(t) = out("text") {
            run.text = Some(t);
        }
        run.annotations.extend(
            output["annotations"]
                .as_array()
                .into_iter()
                .flatten()
                .cloned(),
        );
    }
}

pub fn create(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    if let Some(reply) = output_problems(state, ctx) {
        return reply;
    }
    let id = state.new_id();
    let now = state.tick();
    state.check_runs.push(CheckRun {
        id,
        name: String::new(),
        head_sha: ctx.body["head_sha"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        status: "queued".into(),
        conclusion: None,
        details_url: None,
        external_id: None,
        started_at: Some(now),
        completed_at: None,
        title: None,
        summary: None,
        text: None,
        annotations: Vec::new(),
    });
    let index = state.check_runs.len() - 1;
    apply(state, index, ctx.body);
    Reply::json(201, check_run_json(spec, ctx, &state.check_runs[index]))
}

pub fn update(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    let id = ctx.param_u64("check_run_id");
    let Some(index) = state.check_runs.iter().position(|r| r.id == id) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    if let Some(reply) = output_problems(state, ctx) {
        return reply;
    }
    apply(state, index, ctx.body);
    Reply::json(200, check_run_json(spec, ctx, &state.check_runs[index]))
}

pub fn get(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let id = ctx.param_u64("check_run_id");
    match state.check_runs.iter().find(|r| r.id == id) {
        Some(run) => Reply::json(200, check_run_json(spec, ctx, run)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

pub fn list_for_ref(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    let reference = ctx.param("ref");
    let sha = state
        .git
        .resolve(reference)
        .unwrap_or_else(|| reference.to_string());
    let name = ctx.query.get("check_name");
    let status = ctx.query.get("status");
    let latest = ctx.query.get("filter").is_none_or(|f| f == "latest");
    let mut runs: Vec<&CheckRun> = state
        .check_runs
        .iter()
        .filter(|r| r.head_sha == sha)
        .filter(|r| name.is_none_or(|n| &r.name == n))
        .filter(|r| status.is_none_or(|s| &r.status == s))
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.id));
    if latest {
        let mut seen = std::collections::HashSet::new();
        runs.retain(|r| seen.insert(r.name.clone()));
    }
    let total = runs.len();
    let items = runs
        .into_iter()
        .map(|r| check_run_json(spec, ctx, r))
        .collect();
    let mut reply = ctx.paginate(items);
    if let super::reply::ReplyBody::Json(page) = &reply.body {
        reply.body = super::reply::ReplyBody::Json(json!({
            "total_count": total,
            "check_runs": page,
        }));
    }
    reply
}
