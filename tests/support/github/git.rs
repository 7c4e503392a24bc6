//! Git data (refs, blobs, trees, commits) and the contents API on top of it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::reply::{Ctx, Reply};
use super::spec::Spec;
use super::state::{Git, GitCommit, State, TreeEntry};
use super::util::{base64_decode, base64_encode_wrapped, git_object_id};

pub const DEFAULT_BRANCH: &str = "main";

fn invalid(ctx: &Ctx, message: &str) -> Reply {
    Reply::error(422, message, &ctx.op.docs_url)
}

fn ref_json(ctx: &Ctx, full: &str, sha: &str) -> Value {
    let repo = ctx.repo_url();
    let short = full.strip_prefix("refs/").unwrap_or(full);
    json!({
        "ref": full,
        "node_id": format!("REF_fake_{short}"),
        "url": format!("{repo}/git/refs/{short}"),
        "object": {
            "type": "commit",
            "sha": sha,
            "url": format!("{repo}/git/commits/{sha}"),
        },
    })
}

pub fn get_ref(state: &State, ctx: &Ctx) -> Reply {
    let full = format!("refs/{}", ctx.param("ref"));
    match state.git.refs.get(&full) {
        Some(sha) => Reply::json(200, ref_json(ctx, &full, sha)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

pub fn create_ref(state: &mut State, ctx: &Ctx) -> Reply {
    let full = ctx.body["ref"].as_str().unwrap_or_default().to_string();
    let sha = ctx.body["sha"].as_str().unwrap_or_default().to_string();
    if !full.starts_with("refs/") || full.matches('/').count() < 2 {
        return invalid(
            ctx,
            "Reference name must start with 'refs/' and have at least two slashes.",
        );
    }
    if state.git.refs.contains_key(&full) {
        return invalid(ctx, "Reference already exists");
    }
    if !state.git.commits.contains_key(&sha) {
        return invalid(ctx, "Object does not exist");
    }
    state.git.refs.insert(full.clone(), sha.clone());
    Reply::json(201, ref_json(ctx, &full, &sha))
}

pub fn update_ref(state: &mut State, ctx: &Ctx) -> Reply {
    let full = format!("refs/{}", ctx.param("ref"));
    let sha = ctx.body["sha"].as_str().unwrap_or_default().to_string();
    let force = ctx.body["force"].as_bool().unwrap_or(false);
    let Some(current) = state.git.refs.get(&full).cloned() else {
        return invalid(ctx, "Reference does not exist");
    };
    if !state.git.commits.contains_key(&sha) {
        return invalid(ctx, "Object does not exist");
    }
    if !force && !state.git.is_ancestor(&current, &sha) {
        return invalid(ctx, "Update is not a fast forward");
    }
    state.git.refs.insert(full.clone(), sha.clone());
    Reply::json(200, ref_json(ctx, &full, &sha))
}

pub fn create_blob(state: &mut State, ctx: &Ctx) -> Reply {
    let content = ctx.body["content"].as_str().unwrap_or_default();
    let bytes = match ctx.body["encoding"].as_str().unwrap_or("utf-8") {
        "utf-8" | "utf8" => content.as_bytes().to_vec(),
        "base64" => match base64_decode(content) {
            Some(b) => b,
            None => return invalid(ctx, "content is not valid Base64"),
        },
        other => return invalid(ctx, &format!("encoding {other} is not supported")),
    };
    // GitHub is reported to refuse a blob of 40 MiB or more through this API (41,820,160
    // bytes accepted, 41,943,040 refused).
    if bytes.len() >= 40 << 20 {
        return invalid(ctx, "content is too large");
    }
    let sha = state.git.put_blob(bytes);
    Reply::json(
        201,
        json!({"url": format!("{}/git/blobs/{sha}", ctx.repo_url()), "sha": sha}),
    )
}

pub fn get_blob(state: &State, ctx: &Ctx) -> Reply {
    let sha = ctx.param("file_sha");
    let Some(bytes) = state.git.blobs.get(sha) else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    Reply::json(
        200,
        json!({
            "content": base64_encode_wrapped(bytes),
            "encoding": "base64",
            "url": format!("{}/git/blobs/{sha}", ctx.repo_url()),
            "sha": sha,
            "size": bytes.len(),
            "node_id": format!("B_fake_{sha}"),
        }),
    )
}

/// The entries GitHub lists for a tree: direct children, or (recursive) everything, subtrees
/// included.
fn tree_listing(git: &mut Git, ctx: &Ctx, sha: &str, recursive: bool) -> Vec<Value> {
    let flat = git.trees.get(sha).cloned().unwrap_or_default();
    let repo = ctx.repo_url();
    let mut dirs: BTreeMap<String, BTreeMap<String, TreeEntry>> = BTreeMap::new();
    let mut listing = Vec::new();
    for (path, entry) in &flat {
        let parts: Vec<&str> = path.split('/').collect();
        for depth in 1..parts.len() {
            if !recursive && depth > 1 {
                break;
            }
            let dir = parts[..depth].join("/");
            let rest = parts[depth..].join("/");
            dirs.entry(dir).or_default().insert(rest, entry.clone());
        }
        if recursive || parts.len() == 1 {
            let size = git.blobs.get(&entry.sha).map(Vec::len);
            let mut v = json!({
                "path": path,
                "mode": entry.mode,
                "type": entry.kind,
                "sha": entry.sha,
                "url": format!("{repo}/git/blobs/{}", entry.sha),
            });
            if let Some(size) = size {
                v["size"] = json!(size);
            }
            listing.push(v);
        }
    }
    for (dir, sub) in dirs {
        let sub_sha = git.put_tree(sub);
        listing.push(json!({
            "path": dir,
            "mode": "040000",
            "type": "tree",
            "sha": sub_sha,
            "url": format!("{repo}/git/trees/{sub_sha}"),
        }));
    }
    listing.sort_by(|a, b| a["path"].as_str().cmp(&b["path"].as_str()));
    listing
}

fn tree_reply(state: &mut State, ctx: &Ctx, status: u16, sha: &str, recursive: bool) -> Reply {
    let tree = tree_listing(&mut state.git, ctx, sha, recursive);
    Reply::json(
        status,
        json!({
            "sha": sha,
            "url": format!("{}/git/trees/{sha}", ctx.repo_url()),
            "tree": tree,
            "truncated": false,
        }),
    )
}

pub fn create_tree(state: &mut State, ctx: &Ctx) -> Reply {
    let mut flat = match ctx.body["base_tree"].as_str() {
        Some(base) => match state.git.trees.get(base) {
            Some(t) => t.clone(),
            None => return invalid(ctx, "base_tree is not a valid tree oid"),
        },
        None => BTreeMap::new(),
    };
    for (i, item) in ctx.body["tree"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (Some(path), Some(mode), Some(kind)) = (
            item["path"].as_str(),
            item["mode"].as_str(),
            item["type"].as_str(),
        ) else {
            return invalid(ctx, &format!("tree.{i} needs path, mode and type"));
        };
        let path = path.trim_matches('/').to_string();
        let under = format!("{path}/");
        if item.get("sha") == Some(&Value::Null) {
            flat.retain(|p, _| p != &path && !p.starts_with(&under));
            continue;
        }
        if let Some(content) = item["content"].as_str() {
            let sha = state.git.put_blob(content.as_bytes().to_vec());
            flat.insert(
                path,
                TreeEntry {
                    mode: mode.into(),
                    kind: "blob".into(),
                    sha,
                },
            );
            continue;
        }
        let sha = item["sha"].as_str().unwrap_or_default().to_string();
        match kind {
            "tree" => {
                let Some(sub) = state.git.trees.get(&sha).cloned() else {
                    return invalid(ctx, &format!("tree.sha {sha} is not a valid tree"));
                };
                flat.retain(|p, _| p != &path && !p.starts_with(&under));
                for (p, e) in sub {
                    flat.insert(format!("{path}/{p}"), e);
                }
            }
            "blob" if !state.git.blobs.contains_key(&sha) => {
                return invalid(ctx, &format!("tree.sha {sha} is not a valid blob"));
            }
            _ => {
                flat.retain(|p, _| !p.starts_with(&under));
                flat.insert(
                    path,
                    TreeEntry {
                        mode: mode.into(),
                        kind: kind.into(),
                        sha,
                    },
                );
            }
        }
    }
    let sha = state.git.put_tree(flat);
    tree_reply(state, ctx, 201, &sha, false)
}

pub fn get_tree(state: &mut State, ctx: &Ctx) -> Reply {
    let name = ctx.param("tree_sha");
    let sha = if state.git.trees.contains_key(name) {
        Some(name.to_string())
    } else {
        state
            .git
            .resolve(name)
            .and_then(|c| state.git.commits.get(&c).map(|c| c.tree.clone()))
    };
    match sha {
        Some(sha) => {
            let recursive = ctx.query.contains_key("recursive");
            tree_reply(state, ctx, 200, &sha, recursive)
        }
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

fn signature(given: &Value, fallback_login: &str, date: &str) -> Value {
    let name = given["name"].as_str().unwrap_or(fallback_login);
    let email = given["email"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("41898282+{fallback_login}@users.noreply.github.com"));
    json!({
        "name": name,
        "email": email,
        "date": given["date"].as_str().unwrap_or(date),
    })
}

/// Stores a commit the way git would hash it and returns it.
pub fn put_commit(
    state: &mut State,
    tree: &str,
    parents: Vec<String>,
    message: &str,
    author: &Value,
    committer: &Value,
) -> GitCommit {
    let date = state.tick();
    let epoch = state.clock;
    let login = state.bot_login.clone();
    let author = signature(author, &login, &date);
    let committer = if committer.is_object() {
        signature(committer, &login, &date)
    } else {
        author.clone()
    };
    let who = |s: &Value| {
        format!(
            "{} <{}> {epoch} +0000",
            s["name"].as_str().unwrap_or_default(),
            s["email"].as_str().unwrap_or_default()
        )
    };
    let mut text = format!("tree {tree}\n");
    for p in &parents {
        text.push_str(&format!("parent {p}\n"));
    }
    text.push_str(&format!(
        "author {}\ncommitter {}\n\n{message}",
        who(&author),
        who(&committer)
    ));
    let commit = GitCommit {
        sha: git_object_id("commit", text.as_bytes()),
        tree: tree.to_string(),
        parents,
        message: message.to_string(),
        author,
        committer,
    };
    state.git.commits.insert(commit.sha.clone(), commit.clone());
    commit
}

fn commit_json(spec: &Spec, ctx: &Ctx, c: &GitCommit) -> Value {
    let mut v = spec
        .example("git/get-commit")
        .map(|(_, v)| v)
        .unwrap_or_else(|| json!({}));
    let repo = ctx.repo_url();
    v["sha"] = json!(c.sha);
    v["node_id"] = json!(format!("C_fake_{}", c.sha));
    v["url"] = json!(format!("{repo}/git/commits/{}", c.sha));
    v["html_url"] = json!(format!(
        "https://github.com/{}/{}/commit/{}",
        ctx.param("owner"),
        ctx.param("repo"),
        c.sha
    ));
    v["author"] = c.author.clone();
    v["committer"] = c.committer.clone();
    v["message"] = json!(c.message);
    v["tree"] = json!({"sha": c.tree, "url": format!("{repo}/git/trees/{}", c.tree)});
    v["parents"] = Value::Array(
        c.parents
            .iter()
            .map(|p| {
                json!({
                    "sha": p,
                    "url": format!("{repo}/git/commits/{p}"),
                    "html_url": format!("https://github.com/{}/{}/commit/{p}", ctx.param("owner"), ctx.param("repo")),
                })
            })
            .collect(),
    );
    v
}

pub fn create_commit(state: &mut State, spec: &Spec, ctx: &Ctx) -> Reply {
    let tree = ctx.body["tree"].as_str().unwrap_or_default();
    if !state.git.trees.contains_key(tree) {
        return invalid(ctx, "Tree SHA does not exist");
    }
    let parents: Vec<String> = ctx.body["parents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect();
    if let Some(missing) = parents.iter().find(|p| !state.git.commits.contains_key(*p)) {
        return invalid(ctx, &format!("Parent SHA {missing} does not exist"));
    }
    let commit = put_commit(
        state,
        tree,
        parents,
        ctx.body["message"].as_str().unwrap_or_default(),
        &ctx.body["author"],
        &ctx.body["committer"],
    );
    Reply::json(201, commit_json(spec, ctx, &commit))
}

pub fn get_commit(state: &State, spec: &Spec, ctx: &Ctx) -> Reply {
    match state.git.commits.get(ctx.param("commit_sha")) {
        Some(c) => Reply::json(200, commit_json(spec, ctx, c)),
        None => Reply::not_found(&ctx.op.docs_url),
    }
}

/// Raw bytes only when raw is the one media type asked for: given several (a client's default
/// `application/vnd.github+json` beside the raw one), the fake answers with GitHub's default,
/// JSON, the way a JSON answer once reached the audit database.
fn wants_raw(ctx: &Ctx) -> bool {
    ctx.headers.get("accept").is_some_and(|a| {
        let types: Vec<&str> = a
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        types.len() == 1 && types[0].contains(".raw")
    })
}

fn content_json(ctx: &Ctx, path: &str, sha: &str, bytes: &[u8], reference: &str) -> Value {
    let repo = ctx.repo_url();
    let name = path.rsplit('/').next().unwrap_or(path);
    json!({
        "type": "file",
        "encoding": "base64",
        "size": bytes.len(),
        "name": name,
        "path": path,
        "content": base64_encode_wrapped(bytes),
        "sha": sha,
        "url": format!("{repo}/contents/{path}?ref={reference}"),
        "git_url": format!("{repo}/git/blobs/{sha}"),
        "html_url": format!("https://github.com/{}/{}/blob/{reference}/{path}", ctx.param("owner"), ctx.param("repo")),
        "download_url": null,
        "_links": {
            "self": format!("{repo}/contents/{path}?ref={reference}"),
            "git": format!("{repo}/git/blobs/{sha}"),
            "html": format!("https://github.com/{}/{}/blob/{reference}/{path}", ctx.param("owner"), ctx.param("repo")),
        },
    })
}

pub fn get_content(state: &State, ctx: &Ctx) -> Reply {
    let reference = ctx
        .query
        .get("ref")
        .cloned()
        .unwrap_or_else(|| DEFAULT_BRANCH.to_string());
    let path = ctx.param("path").trim_matches('/').to_string();
    let Some(commit) = state.git.resolve(&reference) else {
        return Reply::error(
            404,
            &format!("No commit found for the ref {reference}"),
            &ctx.op.docs_url,
        );
    };
    let Some(tree) = state
        .git
        .commits
        .get(&commit)
        .and_then(|c| state.git.trees.get(&c.tree))
    else {
        return Reply::not_found(&ctx.op.docs_url);
    };
    if let Some(entry) = tree.get(&path) {
        let bytes = state.git.blobs.get(&entry.sha).cloned().unwrap_or_default();
        if wants_raw(ctx) {
            return Reply {
                status: 200,
                headers: Vec::new(),
                body: super::reply::ReplyBody::Raw {
                    content_type: "application/vnd.github.raw".into(),
                    bytes,
                },
            };
        }
        return Reply::json(
            200,
            content_json(ctx, &path, &entry.sha, &bytes, &reference),
        );
    }
    let under = format!("{path}/");
    let mut children: BTreeMap<String, Value> = BTreeMap::new();
    for (p, entry) in tree.iter().filter(|(p, _)| p.starts_with(&under)) {
        let rest = &p[under.len()..];
        let (name, is_dir) = match rest.split_once('/') {
            Some((dir, _)) => (dir, true),
            None => (rest, false),
        };
        let child_path = format!("{under}{name}");
        children.entry(name.to_string()).or_insert_with(|| {
            json!({
                "type": if is_dir { "dir" } else { "file" },
                "name": name,
                "path": child_path,
                "sha": if is_dir { Value::Null } else { json!(entry.sha) },
                "size": if is_dir { 0 } else { state.git.blobs.get(&entry.sha).map_or(0, Vec::len) },
            })
        });
    }
    if children.is_empty() {
        return Reply::not_found(&ctx.op.docs_url);
    }
    Reply::json(200, Value::Array(children.into_values().collect()))
}

pub fn put_content(state: &mut State, ctx: &Ctx) -> Reply {
    let path = ctx.param("path").trim_matches('/').to_string();
    let branch = ctx.body["branch"]
        .as_str()
        .unwrap_or(DEFAULT_BRANCH)
        .to_string();
    let full = format!("refs/heads/{branch}");
    let Some(content) = base64_decode(ctx.body["content"].as_str().unwrap_or_default()) else {
        return invalid(ctx, "content is not valid Base64");
    };
    let head = state.git.refs.get(&full).cloned();
    let mut flat = head
        .as_ref()
        .and_then(|h| state.git.commits.get(h))
        .and_then(|c| state.git.trees.get(&c.tree))
        .cloned()
        .unwrap_or_default();
    let existing = flat.get(&path).map(|e| e.sha.clone());
    match (&existing, ctx.body["sha"].as_str()) {
        (Some(_), None) => {
            return invalid(ctx, "Invalid request.\n\n\"sha\" wasn't supplied.");
        }
        (Some(current), Some(given)) if current != given => {
            return Reply::error(
                409,
                &format!("{path} does not match {given}"),
                &ctx.op.docs_url,
            );
        }
        _ => {}
    }
    let blob = state.git.put_blob(content.clone());
    flat.insert(
        path.clone(),
        TreeEntry {
            mode: "100644".into(),
            kind: "blob".into(),
            sha: blob.clone(),
        },
    );
    let tree = state.git.put_tree(flat);
    let commit = put_commit(
        state,
        &tree,
        head.into_iter().collect(),
        ctx.body["message"].as_str().unwrap_or_default(),
        &ctx.body["author"],
        &ctx.body["committer"],
    );
    state.git.refs.insert(full, commit.sha.clone());
    let status = if existing.is_some() { 200 } else { 201 };
    Reply::json(
        status,
        json!({
            "content": content_json(ctx, &path, &blob, &content, &branch),
            "commit": {
                "sha": commit.sha,
                "message": commit.message,
                "tree": {"sha": commit.tree},
                "parents": commit.parents.iter().map(|p| json!({"sha": p})).collect::<Vec<_>>(),
                "author": commit.author,
                "committer": commit.committer,
            },
        }),
    )
}
