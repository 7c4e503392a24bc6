//! The hash chain of `approval_history`: each row's hash covers its canonical JSON and the hash
//! of the row before it, so an edited, deleted, re-ordered or hand-inserted row shows.
//!
//! What is hashed is what is stored: the row is read back after it is inserted, every stored
//! column but `row_hash` (the generated `pass_rate` is not stored), `id` and `prev_hash`
//! included. NULL columns are left out of the JSON, so a migration that adds a column does not
//! change the hash of the rows written before it, and setting or clearing a value still does.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::skill::hex;

/// The `prev_hash` of the first row.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// sha256 over `prev_hash`, a newline, and the row's canonical JSON (keys sorted, no spaces).
pub fn row_hash(prev_hash: &str, row: &Map<String, Value>) -> String {
    // serde_json's Map is ordered by key (no `preserve_order` feature): canonical by design.
    let canonical = Value::Object(row.clone()).to_string();
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(b"\n");
    hasher.update(canonical.as_bytes());
    hex(&hasher.finalize())
}

/// The columns a row's hash covers, in table order: every stored column of `approval_history`
/// except `row_hash`. Generated columns are hidden in `table_xinfo` and left out.
pub(super) fn hashed_columns(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT name, hidden FROM pragma_table_xinfo('approval_history')")?;
    let rows = stmt.query_map([], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
    })?;
    let mut columns = Vec::new();
    for row in rows {
        let (name, hidden) = row?;
        if hidden == 0 && name != "row_hash" {
            columns.push(name);
        }
    }
    Ok(columns)
}

/// `"a", "b", …` for the hashed columns; identifiers come from the schema itself, quoted.
pub(super) fn column_list(columns: &[String]) -> String {
    let list: Vec<String> = columns
        .iter()
        .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
        .collect();
    list.join(", ")
}

/// The canonical JSON object of a row selected with [`column_list`]: integers stay integers,
/// reals stay reals, text is text, a blob is `{"blob": hex}`; NULLs are left out.
pub(super) fn canonical(row: &Row<'_>, columns: &[String]) -> rusqlite::Result<Map<String, Value>> {
    let mut map = Map::new();
    for (index, name) in columns.iter().enumerate() {
        let value = match row.get_ref(index)? {
            ValueRef::Null => continue,
            ValueRef::Integer(i) => Value::from(i),
            ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => {
                let mut blob = Map::new();
                blob.insert("blob".to_owned(), hex(b).into());
                Value::Object(blob)
            }
        };
        map.insert(name.clone(), value);
    }
    Ok(map)
}

/// The hash the next row chains to: the last hashed row's, by id (rows inserted by hand carry
/// none and are skipped, as `audit verify` skips them after reporting them).
pub(super) fn last_hash(conn: &Connection) -> rusqlite::Result<String> {
    match conn
        .query_row(
            "SELECT row_hash FROM approval_history WHERE row_hash IS NOT NULL \
             ORDER BY id DESC LIMIT 1",
            [],
            |row| row.get(0),
        )
        .optional()?
    {
        Some(hash) => Ok(hash),
        None => chain_base(conn),
    }
}

/// The hash the first row of `approval_history` chains to: [`GENESIS`] for a whole trail; for
/// a working copy holding only the newest segments of a segmented trail, the `prev_hash` the
/// registry recorded for the segment its first row starts. With no rows (a registry read
/// alone), the hash the newest segment ends on: the next row chains to it.
pub(super) fn chain_base(conn: &Connection) -> rusqlite::Result<String> {
    let segments = super::segments::segments_of(conn)?;
    let first: Option<i64> =
        conn.query_row("SELECT min(id) FROM approval_history", [], |row| row.get(0))?;
    let base = match first {
        Some(first) => segments
            .iter()
            .find(|s| s.first_id == Some(first))
            .or_else(|| {
                // Rows past every segment recorded: recorded into a copy of the registry alone.
                segments.last().filter(|_| {
                    segments
                        .iter()
                        .filter_map(|s| s.last_id)
                        .all(|id| id < first)
                })
            })
            .map(|s| {
                if s.first_id == Some(first) {
                    s.prev_hash.clone()
                } else {
                    s.last_hash.clone().unwrap_or_else(|| s.prev_hash.clone())
                }
            }),
        None => segments
            .last()
            .map(|s| s.last_hash.clone().unwrap_or_else(|| s.prev_hash.clone())),
    };
    Ok(base.unwrap_or_else(|| GENESIS.to_owned()))
}

/// Append a row to the chain and return its id: insert it after the last hashed row, read back
/// what was stored and hash that. Call it inside an IMMEDIATE transaction, so no other writer can
/// append between the read of the last hash and the insert (which would fork the chain).
pub(super) fn append(conn: &Connection, row: &Map<String, Value>) -> rusqlite::Result<i64> {
    let prev_hash = last_hash(conn)?;
    let mut row = row.clone();
    row.insert("prev_hash".to_owned(), prev_hash.clone().into());
    row.remove("row_hash");
    // Column names are the writer's constants; values are bound as parameters.
    let columns: Vec<&str> = row.keys().map(String::as_str).collect();
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO approval_history ({}) VALUES ({})",
        columns.join(", "),
        placeholders.join(", ")
    );
    let values: Vec<rusqlite::types::Value> = row.values().map(to_sql).collect();
    conn.execute(&sql, params_from_iter(values))?;
    let id = conn.last_insert_rowid();
    let hashed = hashed_columns(conn)?;
    let stored = conn.query_row(
        &format!(
            "SELECT {} FROM approval_history WHERE id = ?1",
            column_list(&hashed)
        ),
        [id],
        |r| canonical(r, &hashed),
    )?;
    conn.execute(
        "UPDATE approval_history SET row_hash = ?1 WHERE id = ?2",
        params![row_hash(&prev_hash, &stored), id],
    )?;
    Ok(id)
}

fn to_sql(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as Sql;
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Sql::Integer(i),
            None => Sql::Real(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => Sql::Text(s.clone()),
        other => Sql::Text(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_depends_on_every_value_and_the_previous_hash() {
        let mut row = Map::new();
        row.insert("decision".into(), "approved".into());
        row.insert("skill_id".into(), 1.into());
        let h = row_hash(GENESIS, &row);
        assert_eq!(h.len(), 64);
        assert_eq!(h, row_hash(GENESIS, &row), "deterministic");
        assert_ne!(h, row_hash(&h, &row), "chained to the previous row");
        row.insert("decision".into(), "rejected".into());
        assert_ne!(h, row_hash(GENESIS, &row), "covers the values");
    }

    #[test]
    fn covers_every_stored_column_but_row_hash_and_the_generated_pass_rate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = crate::store::Store::open(&dir.path().join("skills.db")).expect("open");
        let columns = hashed_columns(store.connection()).expect("columns");
        for expected in [
            "id",
            "skill_id",
            "decision",
            "approver",
            "reasoning",
            "review_duration_minutes",
            "timestamp",
            "idempotency_key",
            "prev_hash",
        ] {
            assert!(columns.iter().any(|c| c == expected), "{expected} hashed");
        }
        assert!(!columns.iter().any(|c| c == "row_hash"));
        assert!(!columns.iter().any(|c| c == "pass_rate"));
    }

    #[test]
    fn types_are_kept_and_nulls_left_out() {
        let conn = Connection::open_in_memory().expect("db");
        let columns: Vec<String> = ["a", "b", "c", "d", "e"].map(str::to_owned).into();
        let map = conn
            .query_row("SELECT 1, 1.0, '1', NULL, x'00ff'", [], |row| {
                canonical(row, &columns)
            })
            .expect("row");
        assert_eq!(
            Value::Object(map).to_string(),
            r#"{"a":1,"b":1.0,"c":"1","e":{"blob":"00ff"}}"#
        );
    }
}
