//! The hash chain of `approval_history`: each row's hash covers its canonical JSON and the hash
//! of the row before it, so an edited, deleted, re-ordered or hand-inserted row shows.

use sha2::{Digest, Sha256};

use crate::skill::hex;

/// The `prev_hash` of the first row.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// sha256 over `prev_hash`, a newline, and the row's canonical JSON (keys sorted, no spaces).
pub fn row_hash(prev_hash: &str, row: &serde_json::Map<String, serde_json::Value>) -> String {
    // serde_json's Map is ordered by key (no `preserve_order` feature): canonical by design.
    let canonical = serde_json::Value::Object(row.clone()).to_string();
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(b"\n");
    hasher.update(canonical.as_bytes());
    hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_depends_on_every_value_and_the_previous_hash() {
        let mut row = serde_json::Map::new();
        row.insert("decision".into(), "approved".into());
        row.insert("skill_id".into(), 1.into());
        let h = row_hash(GENESIS, &row);
        assert_eq!(h.len(), 64);
        assert_eq!(h, row_hash(GENESIS, &row), "deterministic");
        assert_ne!(h, row_hash(&h, &row), "chained to the previous row");
        row.insert("decision".into(), "rejected".into());
        assert_ne!(h, row_hash(GENESIS, &row), "covers the values");
    }
}
