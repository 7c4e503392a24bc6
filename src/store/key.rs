//! Idempotency keys: one per row a job may write, so re-running the job adds nothing.

use rusqlite::{Connection, Transaction};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::skill::hex;

/// The key of a row: the first 128 bits of the SHA-256 of its identifying parts, in hex. That
/// is ample for uniqueness and keeps the column and its index small. Rows written by earlier
/// versions carry all 256 bits; [`Key::recorded`] finds either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    full: String,
}

impl Key {
    pub(super) fn of(parts: &Value) -> Self {
        Self {
            full: hex(&Sha256::digest(parts.to_string().as_bytes())),
        }
    }

    /// The form new rows store.
    pub(super) fn as_str(&self) -> &str {
        &self.full[..32]
    }

    /// All 256 bits, the form rows written before keys were cut to 128 carry.
    #[cfg(test)]
    pub(super) fn legacy(&self) -> &str {
        &self.full
    }

    /// Whether a row of the skill whose row is `skill_id` carries this key.
    pub(super) fn recorded_for(&self, conn: &Connection, skill_id: i64) -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM approval_history
                            WHERE idempotency_key IN (?1, ?2) AND skill_id = ?3)",
            rusqlite::params![self.as_str(), self.full.as_str(), skill_id],
            |row| row.get(0),
        )
    }

    /// Whether a row with this key is already in `approval_history`.
    pub(super) fn recorded(&self, tx: &Transaction<'_>) -> rusqlite::Result<bool> {
        tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM approval_history WHERE idempotency_key IN (?1, ?2))",
            [self.as_str(), self.full.as_str()],
            |row| row.get(0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Key;
    use serde_json::json;

    #[test]
    fn keys_are_the_first_128_bits_of_the_digest() {
        let key = Key::of(&json!(["a", 1]));
        // sha256 of `["a",1]`
        assert_eq!(key.as_str(), "135f17a475a61afdeeaf3759ad2e45ad");
        assert_eq!(key.full.len(), 64);
        assert!(key.full.starts_with(key.as_str()));
        assert_ne!(Key::of(&json!(["a", 2])), key);
    }
}
