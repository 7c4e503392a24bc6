//! What a content signal found, where a reviewer can look at it ([`Evidence`]), and how a
//! reason lists it (`a, b and 2 more`, `what (file:line)`).

use serde::{Deserialize, Serialize};

/// One thing a signal found, where a reviewer can look at it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Evidence {
    /// What was found, in a reviewer's words: `api.stripe.com`, `sudo`, `INSERT INTO orders`.
    pub what: String,
    /// Relative to the skill directory, `/`-separated.
    pub file: String,
    /// 1-based.
    pub line: u32,
}

impl Evidence {
    pub fn new(what: impl Into<String>, file: &str, line: u32) -> Self {
        Self {
            what: what.into(),
            file: file.to_owned(),
            line,
        }
    }

    /// `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// `a, b, c and 2 more`: at most `limit` items, in the order given.
pub fn list(items: &[String], limit: usize) -> String {
    let shown = items
        .iter()
        .take(limit)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match items.len().saturating_sub(limit) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// `1 external endpoint`, `2 external endpoints`.
pub fn count_of(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Add `evidence` unless the same `what` was already found in the same file.
pub fn push_once(
    found: &mut Vec<Evidence>,
    seen: &mut std::collections::HashSet<(String, String)>,
    evidence: Evidence,
) {
    if seen.insert((evidence.what.clone(), evidence.file.clone())) {
        found.push(evidence);
    }
}

/// `what (file:line)` for each, at most `limit`, then `and N more`.
pub fn located(found: &[Evidence], limit: usize) -> String {
    let items: Vec<String> = found
        .iter()
        .map(|e| format!("{} ({})", e.what, e.location()))
        .collect();
    list(&items, limit)
}
