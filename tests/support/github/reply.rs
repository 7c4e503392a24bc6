//! An answer under construction, the request as handlers see it, and pagination.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::record::Violation;
use super::spec::Operation;

#[derive(Debug, Clone)]
pub enum ReplyBody {
    Json(Value),
    Raw {
        content_type: String,
        bytes: Vec<u8>,
    },
    Empty,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: ReplyBody,
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: ReplyBody::Json(body),
        }
    }

    pub fn empty(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: ReplyBody::Empty,
        }
    }

    /// GitHub's error shape.
    pub fn error(status: u16, message: &str, documentation_url: &str) -> Self {
        Self::json(
            status,
            json!({
                "message": message,
                "documentation_url": documentation_url,
                "status": status.to_string(),
            }),
        )
    }

    pub fn not_found(documentation_url: &str) -> Self {
        Self::error(404, "Not Found", documentation_url)
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }
}

/// A routed, validated request.
pub struct Ctx<'a> {
    pub op: &'a Operation,
    pub method: &'a str,
    pub path: &'a str,
    pub params: &'a BTreeMap<String, String>,
    pub query: &'a BTreeMap<String, String>,
    pub headers: &'a BTreeMap<String, String>,
    pub body: &'a Value,
    pub base_url: &'a str,
}

impl Ctx<'_> {
    pub fn param(&self, name: &str) -> &str {
        self.params
            .get(name)
            .map(String::as_str)
            .unwrap_or_default()
    }

    pub fn param_u64(&self, name: &str) -> u64 {
        self.param(name).parse().unwrap_or(0)
    }

    pub fn violation(&self, pointer: &str, message: impl Into<String>) -> Violation {
        Violation {
            operation_id: Some(self.op.id.clone()),
            method: self.method.to_string(),
            path: self.path.to_string(),
            pointer: pointer.to_string(),
            message: message.into(),
        }
    }

    pub fn repo_url(&self) -> String {
        format!(
            "{}/repos/{}/{}",
            self.base_url,
            self.param("owner"),
            self.param("repo")
        )
    }

    /// One page of `items` as GitHub pages lists: `per_page` (default 30, at most 100) and
    /// `page` (from 1), with a `Link` header naming `next`, `last`, `first` and `prev`.
    pub fn paginate(&self, items: Vec<Value>) -> Reply {
        let per_page = self
            .query
            .get("per_page")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(30)
            .min(100);
        let page = self
            .query
            .get("page")
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(1);
        let last = items.len().div_ceil(per_page).max(1);
        let body: Vec<Value> = items
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .collect();
        let mut links = Vec::new();
        if page < last {
            links.push(format!("<{}>; rel=\"next\"", self.page_url(page + 1)));
            links.push(format!("<{}>; rel=\"last\"", self.page_url(last)));
        }
        if page > 1 {
            links.push(format!("<{}>; rel=\"first\"", self.page_url(1)));
            links.push(format!("<{}>; rel=\"prev\"", self.page_url(page - 1)));
        }
        let reply = Reply::json(200, Value::Array(body));
        if links.is_empty() {
            reply
        } else {
            reply.with_header("link", links.join(", "))
        }
    }

    fn page_url(&self, page: usize) -> String {
        let mut query = self.query.clone();
        query.insert("page".into(), page.to_string());
        let qs: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        format!("{}{}?{}", self.base_url, self.path, qs.join("&"))
    }
}

/// Percent-encodes everything but unreserved characters.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
