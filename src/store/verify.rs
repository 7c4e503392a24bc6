//! `skillgate audit verify`: walk `approval_history` by id and find every row that does not chain.
//!
//! After a break the walk re-synchronises on the stored hashes, so one edited row is one
//! finding, not a cascade. What the chain cannot show by itself: rows cut from the end when
//! `sqlite_sequence` was rewound too, or a chain recomputed from scratch; the head hash, kept
//! elsewhere (the audit branch's history), is what shows those.

use std::collections::HashMap;
use std::fmt;

use rusqlite::OptionalExtension;
use serde::Serialize;
use serde_json::Value;

use super::chain::{canonical, chain_base, column_list, hashed_columns, row_hash};
use super::{Store, StoreError};

/// How far from its own id a row's content is looked for when it does not hash as it stands.
const MOVE_WINDOW: i64 = 64;

/// The outcome of a walk over the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainReport {
    /// Rows read.
    pub rows: u64,
    /// The last hashed row's hash (the genesis hash for an empty table).
    pub head: String,
    /// The id of the row `head` belongs to.
    pub head_id: Option<i64>,
    /// Every row that does not chain, first first.
    pub breaks: Vec<ChainBreak>,
}

impl ChainReport {
    pub fn is_intact(&self) -> bool {
        self.breaks.is_empty()
    }
}

/// A row that does not chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainBreak {
    pub id: i64,
    /// The skill's name, when its row in `skills` still exists.
    pub skill: Option<String>,
    pub timestamp: Option<String>,
    #[serde(flatten)]
    pub kind: BreakKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BreakKind {
    /// The stored hash does not match the row's content.
    Edited,
    /// The content hashes, but under another id: rows were re-ordered or renumbered.
    Moved { written_as: i64 },
    /// The row it was chained after exists nowhere: it was deleted.
    Missing { after: Option<i64> },
    /// It was chained after another row than the one before it.
    OutOfOrder {
        after: Option<i64>,
        chained_after: i64,
    },
    /// No hash at all: the row was inserted by hand.
    Unhashed,
    /// Ids past the last row were issued (`sqlite_sequence`): rows were deleted from the end.
    TailMissing { last: Option<i64>, issued: i64 },
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id;
        let row = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            write!(f, "row {id}")?;
            match (&self.skill, &self.timestamp) {
                (Some(skill), Some(at)) => write!(f, " (skill {skill}, {at})"),
                (Some(skill), None) => write!(f, " (skill {skill})"),
                (None, Some(at)) => write!(f, " ({at})"),
                (None, None) => Ok(()),
            }
        };
        let after = |f: &mut fmt::Formatter<'_>, after: &Option<i64>| match after {
            Some(prev) => write!(f, "does not follow row {prev}"),
            None => write!(f, "does not start the chain"),
        };
        match &self.kind {
            BreakKind::Edited => {
                row(f)?;
                write!(f, " was edited: its hash does not match its content")
            }
            BreakKind::Moved { written_as } => {
                row(f)?;
                write!(
                    f,
                    " was moved: its content was written as row {written_as} (re-ordered or \
                     renumbered)"
                )
            }
            BreakKind::Missing { after: prev } => {
                row(f)?;
                f.write_str(" ")?;
                after(f, prev)?;
                write!(f, ": the row it was chained after is missing (deleted)")
            }
            BreakKind::OutOfOrder {
                after: prev,
                chained_after,
            } => {
                row(f)?;
                f.write_str(" ")?;
                after(f, prev)?;
                write!(f, ": it was chained after row {chained_after} (re-ordered)")
            }
            BreakKind::Unhashed => {
                row(f)?;
                write!(f, " has no hash: inserted by hand, not by skillgate")
            }
            BreakKind::TailMissing { last, issued } => {
                let last =
                    last.map_or_else(|| "is empty".to_owned(), |l| format!("ends at row {l}"));
                if *issued == id {
                    write!(f, "row {id} is missing")?;
                } else {
                    write!(f, "rows {id} to {issued} are missing")?;
                }
                write!(
                    f,
                    ": ids up to {issued} were issued, the table {last} (deleted from the end)"
                )
            }
        }
    }
}

impl Store {
    /// Walk the chain by id and report every row that does not chain.
    pub fn verify_chain(&self) -> Result<ChainReport, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let conn = &self.conn;
        let columns = hashed_columns(conn).map_err(read)?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {}, row_hash FROM approval_history ORDER BY id",
                column_list(&columns)
            ))
            .map_err(read)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    canonical(row, &columns)?,
                    row.get::<_, Option<String>>(columns.len())?,
                ))
            })
            .map_err(read)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(read)?;

        let by_hash: HashMap<&str, i64> = rows
            .iter()
            .filter_map(|(row, hash)| Some((hash.as_deref()?, row.get("id")?.as_i64()?)))
            .collect();
        let mut report = ChainReport {
            rows: rows.len() as u64,
            head: chain_base(conn).map_err(read)?,
            head_id: None,
            breaks: Vec::new(),
        };
        let mut found = Vec::new();
        for (row, stored) in &rows {
            let Some(id) = row.get("id").and_then(Value::as_i64) else {
                continue;
            };
            let Some(stored) = stored else {
                found.push((id, BreakKind::Unhashed));
                continue;
            };
            let prev = row.get("prev_hash").and_then(Value::as_str).unwrap_or("");
            if row_hash(prev, row) != *stored {
                let moved = (id - MOVE_WINDOW..=id + MOVE_WINDOW)
                    .filter(|&k| k != id)
                    .find(|&k| {
                        let mut elsewhere = row.clone();
                        elsewhere.insert("id".to_owned(), k.into());
                        row_hash(prev, &elsewhere) == *stored
                    });
                found.push((
                    id,
                    moved.map_or(BreakKind::Edited, |written_as| BreakKind::Moved {
                        written_as,
                    }),
                ));
            } else if prev != report.head {
                found.push((
                    id,
                    match by_hash.get(prev) {
                        Some(&chained_after) => BreakKind::OutOfOrder {
                            after: report.head_id,
                            chained_after,
                        },
                        None => BreakKind::Missing {
                            after: report.head_id,
                        },
                    },
                ));
            }
            report.head.clone_from(stored);
            report.head_id = Some(id);
        }

        let last = rows
            .last()
            .and_then(|(row, _)| row.get("id").and_then(Value::as_i64));
        let issued: Option<i64> = conn
            .query_row(
                "SELECT seq FROM sqlite_sequence WHERE name = 'approval_history'",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(read)?;
        // In a copy holding the newest segments of a trail, ids up to the last the registry
        // recorded were issued to rows in segments it did not load.
        let recorded = super::segments::segments_of(conn)
            .map_err(read)?
            .iter()
            .filter_map(|s| s.last_id)
            .max();
        let seen = last.unwrap_or(0).max(recorded.unwrap_or(0));
        if let Some(issued) = issued.filter(|&seq| seq > seen) {
            found.push((
                last.unwrap_or(0) + 1,
                BreakKind::TailMissing { last, issued },
            ));
        }

        for (id, kind) in found {
            let (skill, timestamp) = conn
                .query_row(
                    "SELECT s.name, ah.timestamp FROM approval_history ah \
                     LEFT JOIN skills s ON s.id = ah.skill_id WHERE ah.id = ?1",
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()
                .map_err(read)?
                .unwrap_or((None, None));
            report.breaks.push(ChainBreak {
                id,
                skill,
                timestamp,
                kind,
            });
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::params;
    use serde_json::Map;

    use super::super::chain::append;
    use super::*;

    /// Four gate-like rows of one skill, chained.
    fn chained(dir: &std::path::Path) -> Store {
        let store = Store::open(&dir.join("skills.db")).expect("open");
        store
            .conn
            .execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version)
                 VALUES ('slugify', 'text', 'slugify/SKILL.md', 'abc', '1.0.0')",
                [],
            )
            .expect("skill");
        for n in 0..4 {
            let mut row = Map::new();
            row.insert("skill_id".into(), 1.into());
            row.insert("version".into(), "1.0.0".into());
            row.insert("approval_level".into(), "auto".into());
            row.insert("decision".into(), "approved".into());
            row.insert("timestamp".into(), format!("2026-11-30 10:0{n}:00").into());
            append(&store.conn, &row).expect("append");
        }
        store
    }

    /// What an editor who knows the algorithm does: re-hash a row after changing it.
    fn rehash(store: &Store, id: i64) {
        let columns = hashed_columns(&store.conn).expect("columns");
        let row = store
            .conn
            .query_row(
                &format!(
                    "SELECT {} FROM approval_history WHERE id = ?1",
                    column_list(&columns)
                ),
                [id],
                |r| canonical(r, &columns),
            )
            .expect("row");
        let prev = row["prev_hash"].as_str().expect("prev").to_owned();
        store
            .conn
            .execute(
                "UPDATE approval_history SET row_hash = ?1 WHERE id = ?2",
                params![row_hash(&prev, &row), id],
            )
            .expect("rehash");
    }

    fn kinds(store: &Store) -> Vec<(i64, BreakKind)> {
        let report = store.verify_chain().expect("verify");
        report.breaks.into_iter().map(|b| (b.id, b.kind)).collect()
    }

    #[test]
    fn a_rehashed_edit_still_breaks_the_next_link() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = chained(dir.path());
        store
            .conn
            .execute(
                "UPDATE approval_history SET decision = 'rejected' WHERE id = 2",
                [],
            )
            .expect("edit");
        rehash(&store, 2);
        assert_eq!(
            kinds(&store),
            vec![(3, BreakKind::Missing { after: Some(2) })]
        );
    }

    #[test]
    fn a_row_relinked_and_rehashed_is_out_of_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = chained(dir.path());
        store
            .conn
            .execute(
                "UPDATE approval_history
                 SET prev_hash = (SELECT row_hash FROM approval_history WHERE id = 1) WHERE id = 3",
                [],
            )
            .expect("relink");
        rehash(&store, 3);
        assert_eq!(
            kinds(&store),
            vec![
                (
                    3,
                    BreakKind::OutOfOrder {
                        after: Some(2),
                        chained_after: 1
                    }
                ),
                (4, BreakKind::Missing { after: Some(3) }),
            ]
        );
        let report = store.verify_chain().expect("verify");
        assert_eq!(
            report.breaks[0].to_string(),
            "row 3 (skill slugify, 2026-11-30 10:02:00) does not follow row 2: it was chained \
             after row 1 (re-ordered)"
        );
    }

    #[test]
    fn an_empty_table_is_intact_at_genesis() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        let report = store.verify_chain().expect("verify");
        assert_eq!(
            report,
            ChainReport {
                rows: 0,
                head: super::super::chain::GENESIS.to_owned(),
                head_id: None,
                breaks: vec![],
            }
        );
    }

    #[test]
    fn a_deleted_first_row_means_the_chain_does_not_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = chained(dir.path());
        store
            .conn
            .execute("DELETE FROM approval_history WHERE id = 1", [])
            .expect("delete");
        let report = store.verify_chain().expect("verify");
        assert_eq!(report.rows, 3);
        assert_eq!(
            report.breaks[0].to_string(),
            "row 2 (skill slugify, 2026-11-30 10:01:00) does not start the chain: the row it was \
             chained after is missing (deleted)"
        );
    }
}
