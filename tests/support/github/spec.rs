//! The operations of the OpenAPI subset (routing a request to its operation) and GitHub's
//! documented example answers.
//!
//! Both files are vendored copies of `../shared/github/` (see `spec/README.md`), compiled in so a
//! test binary needs neither the working directory nor the shared folder.

use std::collections::BTreeMap;

use serde_json::Value;

use super::schema;

const STRICT: &str = include_str!("spec/openapi-subset.strict.json");
const EXAMPLES: &str = include_str!("spec/openapi-response-examples.json");

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// `path` or `query`.
    pub location: String,
    pub required: bool,
    pub schema: Value,
}

#[derive(Debug, Clone)]
pub struct RequestBody {
    pub required: bool,
    pub schema: Value,
}

#[derive(Debug, Clone)]
pub struct Operation {
    pub id: String,
    pub method: String,
    pub path: String,
    pub docs_url: String,
    pub params: Vec<Param>,
    pub body: Option<RequestBody>,
    pub success: Vec<u16>,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone)]
enum Piece {
    Lit(String),
    Param(String),
}

#[derive(Debug, Clone)]
enum Segment {
    /// One path segment: literals and `{param}`s, e.g. `{base}...{head}`.
    One(Vec<Piece>),
    /// A parameter marked `x-multi-segment`: one or more segments, slashes included.
    Multi(String),
}

pub struct Spec {
    pub operations: Vec<Operation>,
    examples: Value,
}

/// The route a request took: its operation and the decoded path parameters.
pub struct Route<'a> {
    pub operation: &'a Operation,
    pub params: BTreeMap<String, String>,
}

impl Spec {
    pub fn load() -> Self {
        let strict: Value = serde_json::from_str(STRICT).expect("openapi-subset.strict.json");
        let examples: Value =
            serde_json::from_str(EXAMPLES).expect("openapi-response-examples.json");
        let mut operations = Vec::new();
        for (id, op) in strict["operations"].as_object().expect("operations") {
            let params: Vec<Param> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| Param {
                    name: str_of(&p["name"]),
                    location: str_of(&p["in"]),
                    required: p["required"].as_bool().unwrap_or(false),
                    schema: p["schema"].clone(),
                })
                .collect();
            let multi: Vec<String> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["x-multi-segment"].as_bool() == Some(true))
                .map(|p| str_of(&p["name"]))
                .collect();
            let path = str_of(&op["path"]);
            let body = op
                .get("requestBody")
                .filter(|b| !b.is_null())
                .map(|b| RequestBody {
                    required: b["required"].as_bool().unwrap_or(false),
                    schema: b["schema"].clone(),
                });
            if let Some(body) = &body {
                let unknown = schema::check_supported(&body.schema);
                assert!(
                    unknown.is_empty(),
                    "{id}: the request-body schema uses keywords the fake's validator does not support: {unknown:?}"
                );
            }
            operations.push(Operation {
                id: id.clone(),
                method: str_of(&op["method"]),
                docs_url: str_of(&op["docs_url"]),
                success: op["success_status"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str()?.parse().ok())
                    .collect(),
                segments: parse_template(&path, &multi),
                path,
                params,
                body,
            });
        }
        Self {
            operations,
            examples,
        }
    }

    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.id == id)
    }

    /// The operation for `method` and the raw (still percent-encoded) `path`. `Err` carries the
    /// operations whose path matched under another method, for the violation message.
    pub fn route(&self, method: &str, path: &str) -> Result<Route<'_>, Vec<String>> {
        let segments: Vec<String> = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .map(percent_decode)
            .collect();
        let refs: Vec<&str> = segments.iter().map(String::as_str).collect();
        let mut best: Option<(usize, Route<'_>)> = None;
        let mut other_methods = Vec::new();
        for op in &self.operations {
            let mut found = Vec::new();
            if !match_segments(&op.segments, &refs, &mut found) {
                continue;
            }
            if op.method != method {
                other_methods.push(format!("{} {}", op.method, op.id));
                continue;
            }
            // Prefer the template with the most literal text: `/issues/comments/{id}` over
            // `/issues/{number}/...`.
            let literal = literal_len(&op.segments);
            if best.as_ref().is_none_or(|(len, _)| literal > *len) {
                best = Some((
                    literal,
                    Route {
                        operation: op,
                        params: found.into_iter().collect(),
                    },
                ));
            }
        }
        best.map(|(_, route)| route).ok_or(other_methods)
    }

    /// The first documented example of the operation for a success status, with that status.
    pub fn example(&self, operation_id: &str) -> Option<(u16, Value)> {
        let op = self.operation(operation_id)?;
        let examples = self.examples[operation_id]["examples"].as_object()?;
        for status in &op.success {
            let prefix = format!("{status} ");
            if let Some((_, value)) = examples.iter().find(|(k, _)| k.starts_with(&prefix)) {
                return Some((*status, value.clone()));
            }
        }
        None
    }

    /// Like `example`, but a named one (`"200 response-if-content-is-a-directory"`).
    pub fn named_example(&self, operation_id: &str, name: &str) -> Option<Value> {
        self.examples[operation_id]["examples"].get(name).cloned()
    }
}

fn str_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn parse_template(path: &str, multi: &[String]) -> Vec<Segment> {
    path.trim_start_matches('/')
        .split('/')
        .map(|seg| {
            if let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}'))
                && !name.contains('{')
                && multi.iter().any(|m| m == name)
            {
                return Segment::Multi(name.to_string());
            }
            let mut pieces = Vec::new();
            let mut rest = seg;
            while !rest.is_empty() {
                match rest.find('{') {
                    Some(0) => {
                        let end = rest.find('}').expect("unclosed { in path template");
                        pieces.push(Piece::Param(rest[1..end].to_string()));
                        rest = &rest[end + 1..];
                    }
                    Some(i) => {
                        pieces.push(Piece::Lit(rest[..i].to_string()));
                        rest = &rest[i..];
                    }
                    None => {
                        pieces.push(Piece::Lit(rest.to_string()));
                        rest = "";
                    }
                }
            }
            Segment::One(pieces)
        })
        .collect()
}

fn literal_len(segments: &[Segment]) -> usize {
    segments
        .iter()
        .map(|s| match s {
            Segment::One(pieces) => pieces
                .iter()
                .map(|p| match p {
                    Piece::Lit(l) => l.len(),
                    Piece::Param(_) => 0,
                })
                .sum(),
            Segment::Multi(_) => 0,
        })
        .sum()
}

fn match_segments(tpl: &[Segment], segs: &[&str], out: &mut Vec<(String, String)>) -> bool {
    match tpl.split_first() {
        None => segs.is_empty(),
        Some((Segment::Multi(name), rest)) => {
            // The longest run first is not needed: the literal after it decides.
            for take in 1..=segs.len() {
                if segs[..take].iter().any(|s| s.is_empty()) {
                    break;
                }
                let mark = out.len();
                out.push((name.clone(), segs[..take].join("/")));
                if match_segments(rest, &segs[take..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
        Some((Segment::One(pieces), rest)) => {
            let Some((first, others)) = segs.split_first() else {
                return false;
            };
            let mark = out.len();
            if match_pieces(pieces, first, out) && match_segments(rest, others, out) {
                return true;
            }
            out.truncate(mark);
            false
        }
    }
}

fn match_pieces(pieces: &[Piece], s: &str, out: &mut Vec<(String, String)>) -> bool {
    match pieces.split_first() {
        None => s.is_empty(),
        Some((Piece::Lit(lit), rest)) => s
            .strip_prefix(lit.as_str())
            .is_some_and(|r| match_pieces(rest, r, out)),
        Some((Piece::Param(name), rest)) => {
            // A segment-bound parameter never contains a slash: a decoded %2F must not let
            // `{owner}` swallow `owner/repo`.
            for end in (1..=s.len()).filter(|&i| s.is_char_boundary(i)) {
                if s[..end].contains('/') {
                    break;
                }
                let mark = out.len();
                out.push((name.clone(), s[..end].to_string()));
                if match_pieces(rest, &s[end..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
    }
}

/// Decodes `%XX` escapes (and, when `plus_is_space`, `+`), leaving malformed escapes as they are.
pub fn decode(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_decode(s: &str) -> String {
    decode(s, false)
}

/// The query string as a map (the last value wins for a repeated name).
pub fn parse_query(query: Option<&str>) -> BTreeMap<String, String> {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k, true), decode(v, true))
        })
        .collect()
}
