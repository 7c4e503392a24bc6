//! What the fake remembers about each request, and the ways a request broke the contract.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

/// One request as the fake received it, and how it answered.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// The path as sent (still percent-encoded), without the query.
    pub path: String,
    /// The matched operation (`checks/create`), `None` when no operation matched.
    pub operation_id: Option<String>,
    /// Decoded path parameters of the matched operation (`ref` → `heads/skillgate/audit`).
    pub path_params: BTreeMap<String, String>,
    pub query: BTreeMap<String, String>,
    /// Header names in lowercase; repeated headers joined with `, `.
    pub headers: BTreeMap<String, String>,
    /// The JSON body; `Value::Null` when there was none, a string when it was not JSON.
    pub body: Value,
    /// The status the fake answered with.
    pub status: u16,
    /// The status came from `fail_next`, not from the operation.
    pub injected_fault: bool,
}

impl RecordedRequest {
    pub fn is_write(&self) -> bool {
        self.method != "GET" && self.method != "HEAD"
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// A request the real GitHub (or the published contract) would not accept as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub operation_id: Option<String>,
    pub method: String,
    pub path: String,
    /// JSON pointer into the body (`/output/annotations`), `?name` for a query parameter,
    /// `header:name` for a header, `path` for the route itself.
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {} {} at {}: {}",
            self.operation_id.as_deref().unwrap_or("no operation"),
            self.method,
            self.path,
            self.pointer,
            self.message
        )
    }
}
