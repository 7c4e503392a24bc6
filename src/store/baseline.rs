//! What the audit branch held when a run read it, and the checks that the run's copy only grew
//! from there: a gate run appends rows, it never edits, deletes or re-chains one, and the rows
//! it appends are the ones it recorded itself.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension};

use super::chain::{GENESIS, canonical, column_list, hashed_columns, row_hash};
use super::verify::BreakKind;
use super::{Store, StoreError};

/// The rows of `approval_history` and the chain's breaks as the branch had them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// `(id, digest)` of every row, by id; the digest covers every stored column, `row_hash`
    /// included, so a row that changes in any way shows.
    rows: Vec<(i64, String)>,
    /// Breaks the branch already had: reported by `audit verify`, not this run's doing.
    breaks: HashSet<(i64, String)>,
}

impl Baseline {
    /// The baseline of a trail that does not exist yet: no rows.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The first break the branch already had, by id, and what it is: said in the log, since
    /// every later run builds on a chain that does not verify.
    pub fn first_break(&self) -> Option<&(i64, String)> {
        self.breaks.iter().min()
    }

    /// The highest id the branch had (0 for none): the run's rows come after it.
    pub fn last_id(&self) -> i64 {
        self.rows.last().map_or(0, |(id, _)| *id)
    }
}

/// `(id, digest)` of the rows with an id above `after`, by id.
fn digests(conn: &Connection, after: i64) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut columns = hashed_columns(conn)?;
    columns.push("row_hash".to_owned());
    let mut stmt = conn.prepare(&format!(
        "SELECT {}, id FROM approval_history WHERE id > ?1 ORDER BY id",
        column_list(&columns)
    ))?;
    let rows = stmt.query_map([after], |row| {
        let values = canonical(row, &columns)?;
        Ok((
            row.get::<_, i64>(columns.len())?,
            row_hash(GENESIS, &values),
        ))
    })?;
    rows.collect()
}

/// `row 7 (skill slugify, 2026-11-30 10:00:00)`, as `audit verify` names rows.
fn describe(conn: &Connection, id: i64) -> String {
    let found: Option<(Option<String>, Option<String>)> = conn
        .query_row(
            "SELECT s.name, ah.timestamp FROM approval_history ah \
             LEFT JOIN skills s ON s.id = ah.skill_id WHERE ah.id = ?1",
            [id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .ok()
        .flatten();
    match found {
        Some((Some(skill), Some(at))) => format!("row {id} (skill {skill}, {at})"),
        Some((Some(skill), None)) => format!("row {id} (skill {skill})"),
        Some((None, Some(at))) => format!("row {id} ({at})"),
        _ => format!("row {id}"),
    }
}

fn break_key(id: i64, kind: &BreakKind) -> (i64, String) {
    (id, serde_json::to_string(kind).unwrap_or_default())
}

impl Store {
    /// Remember what the file holds now, to check later that it only grew.
    pub fn baseline(&self) -> Result<Baseline, StoreError> {
        let rows = digests(&self.conn, i64::MIN).map_err(|source| self.read_error(source))?;
        let breaks = self
            .verify_chain()?
            .breaks
            .iter()
            .map(|b| break_key(b.id, &b.kind))
            .collect();
        Ok(Baseline { rows, breaks })
    }

    /// Everything that must hold before the file is written to or committed: the schema is
    /// exactly skillgate's at its `user_version`; with a baseline, every row it had is still
    /// there unchanged, and the chain has no break it did not have.
    pub fn validate(&self, baseline: Option<&Baseline>) -> Result<(), StoreError> {
        self.check_schema()?;
        let Some(baseline) = baseline else {
            return Ok(());
        };
        let tampered = |problem: String| StoreError::Tampered {
            path: self.path.clone(),
            problem,
        };
        let now = digests(&self.conn, i64::MIN).map_err(|source| self.read_error(source))?;
        let mut now_rows = now.iter().peekable();
        for (id, digest) in &baseline.rows {
            while now_rows.next_if(|(now_id, _)| now_id < id).is_some() {}
            match now_rows.next() {
                Some((now_id, now_digest)) if now_id == id => {
                    if now_digest != digest {
                        return Err(tampered(format!(
                            "{} changed since the audit branch was read",
                            describe(&self.conn, *id)
                        )));
                    }
                }
                _ => {
                    return Err(tampered(format!(
                        "row {id} was deleted since the audit branch was read"
                    )));
                }
            }
        }
        if let Some(first) = self
            .verify_chain()?
            .breaks
            .into_iter()
            .find(|b| !baseline.breaks.contains(&break_key(b.id, &b.kind)))
        {
            return Err(tampered(first.to_string()));
        }
        Ok(())
    }

    /// The rows past the baseline must be exactly those `replay` holds past it: `replay` is
    /// the branch's file with this run recorded into it, and nothing else.
    pub fn same_appends(&self, replay: &Store, baseline: &Baseline) -> Result<(), StoreError> {
        let after = baseline.last_id();
        let ours = digests(&self.conn, after).map_err(|source| self.read_error(source))?;
        let theirs = digests(&replay.conn, after).map_err(|source| replay.read_error(source))?;
        let tampered = |problem: String| StoreError::Tampered {
            path: self.path.clone(),
            problem,
        };
        for index in 0..ours.len().max(theirs.len()) {
            match (ours.get(index), theirs.get(index)) {
                (Some(found), Some(wanted)) if found == wanted => {}
                (Some((id, _)), _) => {
                    return Err(tampered(format!(
                        "{} was not written by this run",
                        describe(&self.conn, *id)
                    )));
                }
                (None, Some((id, _))) => {
                    return Err(tampered(format!(
                        "{}, written by this run, is missing",
                        describe(&replay.conn, *id)
                    )));
                }
                (None, None) => {}
            }
        }
        Ok(())
    }

    pub(super) fn read_error(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Read {
            path: self.path.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::params;
    use serde_json::Map;

    use super::super::chain::append;
    use super::*;

    fn approval(decision: &str, approver: Option<&str>) -> Map<String, serde_json::Value> {
        let mut row = Map::new();
        row.insert("skill_id".into(), 1.into());
        row.insert("version".into(), "1.0.0".into());
        row.insert("approval_level".into(), "human".into());
        row.insert("decision".into(), decision.into());
        if let Some(approver) = approver {
            row.insert("approver".into(), approver.into());
        }
        row.insert("timestamp".into(), "2026-11-30 10:00:00".into());
        row
    }

    /// A branch's file: one skill, two escalations, chained.
    fn branch(dir: &std::path::Path) -> (Store, Baseline) {
        let store = Store::open(&dir.join("skills.db")).expect("open");
        store
            .conn
            .execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version)
                 VALUES ('slugify', 'text', 'slugify/SKILL.md', 'abc', '1.0.0')",
                [],
            )
            .expect("skill");
        for _ in 0..2 {
            append(&store.conn, &approval("escalated", None)).expect("append");
        }
        let baseline = store.baseline().expect("baseline");
        (store, baseline)
    }

    #[test]
    fn appending_is_what_a_run_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, baseline) = branch(dir.path());
        store.validate(Some(&baseline)).expect("as read");
        append(&store.conn, &approval("escalated", None)).expect("append");
        store.validate(Some(&baseline)).expect("appended");
    }

    #[test]
    fn a_chained_forged_approval_is_not_this_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, baseline) = branch(dir.path());
        // The replay: the branch's file with the run's own row, and nothing else.
        let replay_dir = tempfile::tempdir().expect("tempdir");
        let replay_path = replay_dir.path().join("skills.db");
        std::fs::copy(store.path(), &replay_path).expect("copy");
        let replay = Store::open(&replay_path).expect("replay");
        append(&replay.conn, &approval("escalated", None)).expect("run's row");
        // The working copy: the run's row, then a correctly chained approval "from" a maintainer.
        append(&store.conn, &approval("escalated", None)).expect("run's row");
        append(&store.conn, &approval("approved", Some("maintainer1"))).expect("forged");
        // The chain is intact: only the replay shows the forgery.
        store.validate(Some(&baseline)).expect("chain intact");
        let err = store.same_appends(&replay, &baseline).expect_err("forged");
        assert_eq!(
            err.to_string(),
            format!(
                "audit database {}: row 4 (skill slugify, 2026-11-30 10:00:00) was not written \
                 by this run",
                store.path().display()
            )
        );
        // The run's own row, replaced by a forged one in its place.
        let forged_dir = tempfile::tempdir().expect("tempdir");
        let (forged, baseline) = branch(forged_dir.path());
        append(&forged.conn, &approval("approved", Some("maintainer1"))).expect("forged");
        let err = forged.same_appends(&replay, &baseline).expect_err("forged");
        assert!(
            err.to_string().ends_with(
                ": row 3 (skill slugify, 2026-11-30 10:00:00) was not written by this run"
            ),
            "{err}"
        );
        replay.same_appends(&replay, &baseline).expect("itself");
    }

    #[test]
    fn a_row_edited_rehashed_or_deleted_since_the_read_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, baseline) = branch(dir.path());
        store
            .conn
            .execute(
                "UPDATE approval_history SET decision = 'approved', approver = 'maintainer1' \
                 WHERE id = 2",
                [],
            )
            .expect("edit");
        // Rehashed so that the chain itself verifies again: the last row has no successor.
        let columns = hashed_columns(&store.conn).expect("columns");
        let row = store
            .conn
            .query_row(
                &format!(
                    "SELECT {} FROM approval_history WHERE id = 2",
                    column_list(&columns)
                ),
                [],
                |r| canonical(r, &columns),
            )
            .expect("row");
        let prev = row["prev_hash"].as_str().expect("prev").to_owned();
        store
            .conn
            .execute(
                "UPDATE approval_history SET row_hash = ?1 WHERE id = 2",
                params![row_hash(&prev, &row)],
            )
            .expect("rehash");
        assert!(store.verify_chain().expect("verify").is_intact());
        assert!(
            store
                .validate(Some(&baseline))
                .expect_err("edited")
                .to_string()
                .ends_with(
                    ": row 2 (skill slugify, 2026-11-30 10:00:00) changed since the audit branch \
                     was read"
                )
        );
        store
            .conn
            .execute("DELETE FROM approval_history WHERE id = 1", [])
            .expect("delete");
        assert!(
            store
                .validate(Some(&baseline))
                .expect_err("deleted")
                .to_string()
                .ends_with(": row 1 was deleted since the audit branch was read")
        );
    }

    #[test]
    fn a_break_the_branch_had_is_not_the_runs_but_a_new_one_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        store
            .conn
            .execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version)
                 VALUES ('slugify', 'text', 'slugify/SKILL.md', 'abc', '1.0.0')",
                [],
            )
            .expect("skill");
        // A row inserted by hand, on the branch before this run.
        store
            .conn
            .execute(
                "INSERT INTO approval_history (skill_id, version, approval_level, decision)
                 VALUES (1, '1.0.0', 'human', 'escalated')",
                [],
            )
            .expect("by hand");
        let baseline = store.baseline().expect("baseline");
        append(&store.conn, &approval("escalated", None)).expect("append");
        store.validate(Some(&baseline)).expect("an old break");
        store
            .conn
            .execute(
                "INSERT INTO approval_history (skill_id, version, approval_level, decision, \
                 approver) VALUES (1, '1.0.0', 'auto', 'approved', 'maintainer1')",
                [],
            )
            .expect("by hand");
        let message = store
            .validate(Some(&baseline))
            .expect_err("a new break")
            .to_string();
        assert!(message.contains(": row 3 (skill slugify, "), "{message}");
        assert!(
            message.ends_with(") has no hash: inserted by hand, not by skillgate"),
            "{message}"
        );
    }
}
