//! Opening the audit database: create it if missing, migrate it in place, refuse a newer one.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::StoreError;

/// Every migration, in order; the schema version is the number applied (`PRAGMA user_version`).
pub const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_schema.sql",
        include_str!("../../migrations/0001_schema.sql"),
    ),
    (
        "0002_category_templates.sql",
        include_str!("../../migrations/0002_category_templates.sql"),
    ),
    (
        "0003_reviews.sql",
        include_str!("../../migrations/0003_reviews.sql"),
    ),
    (
        "0004_skill_identity.sql",
        include_str!("../../migrations/0004_skill_identity.sql"),
    ),
    (
        "0005_trail_segments.sql",
        include_str!("../../migrations/0005_trail_segments.sql"),
    ),
    (
        "0006_report_indexes.sql",
        include_str!("../../migrations/0006_report_indexes.sql"),
    ),
];

/// The schema version this binary writes.
pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

/// The page size of a new database. A decision row is 1.4–2 KB: 4 KiB pages hold two and leave
/// a quarter of the page empty, 16 KiB pages hold nine to eleven. Databases made with another
/// size keep it (`PRAGMA page_size = 16384; VACUUM;` converts one).
pub const PAGE_SIZE: i64 = 16_384;

/// An open, migrated audit database.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
}

impl Store {
    /// Open (creating it and its directory if needed) and migrate the database at `path`. A
    /// database whose schema is not exactly skillgate's at its `user_version` (a trigger, view,
    /// table or index it did not create, a definition replaced, the version number changed) is
    /// refused before anything is written: a trigger would rewrite the gate's own writes, and a
    /// migration applied on a wrong version number would break the file for every later run.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                path: path.to_path_buf(),
                source,
            })?;
        }
        let open_err = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(open_err)?;
        // A rollback journal, not WAL: the file is complete on its own, ready to be committed.
        conn.execute_batch(
            "PRAGMA journal_mode = DELETE; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;",
        )
        .map_err(open_err)?;
        let mut store = Self {
            conn,
            path: path.to_path_buf(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Open an existing database to read it, as it is: nothing is created, migrated or written
    /// (`audit verify`). A schema newer than this binary's is refused all the same.
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .and_then(|conn| {
            conn.busy_timeout(std::time::Duration::from_secs(10))?;
            Ok(conn)
        })
        .map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let store = Self {
            conn,
            path: path.to_path_buf(),
        };
        let found = store.version()?;
        if found > LATEST_VERSION {
            return Err(StoreError::TooNew {
                path: store.path,
                found,
                known: LATEST_VERSION,
            });
        }
        Ok(store)
    }

    /// Make the file ready to be committed on its own: fold a write-ahead log back into it (and
    /// leave WAL mode, so no `-wal` or `-shm` file is needed to read it), then require
    /// `PRAGMA integrity_check` to say `ok`.
    pub fn prepare_for_commit(&self) -> Result<(), StoreError> {
        let checkpoint = |reason: String| StoreError::Checkpoint {
            path: self.path.clone(),
            reason,
        };
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .map_err(|e| checkpoint(e.to_string()))?;
        if mode.eq_ignore_ascii_case("wal") {
            let busy: i64 = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))
                .map_err(|e| checkpoint(e.to_string()))?;
            let mode: String = self
                .conn
                .query_row("PRAGMA journal_mode = DELETE", [], |row| row.get(0))
                .map_err(|e| checkpoint(e.to_string()))?;
            if busy != 0 || mode.eq_ignore_ascii_case("wal") {
                return Err(checkpoint("another connection is using it".to_owned()));
            }
        }
        integrity(&self.conn, &self.path)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database's schema version.
    pub fn version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|source| StoreError::Open {
                path: self.path.clone(),
                source,
            })
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let found = self.version()?;
        if found > LATEST_VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                known: LATEST_VERSION,
            });
        }
        self.check_schema()?;
        if found == 0 {
            // Takes effect only on a file nothing has been written to yet.
            self.conn
                .pragma_update(None, "page_size", PAGE_SIZE)
                .map_err(|source| StoreError::Open {
                    path: self.path.clone(),
                    source,
                })?;
        }
        let pending = usize::try_from(found).unwrap_or(0);
        if pending >= MIGRATIONS.len() {
            return Ok(());
        }
        let path = self.path.clone();
        let open_err = |source| StoreError::Open {
            path: path.clone(),
            source,
        };
        // A migration may rebuild a table (SQLite's documented procedure): with foreign keys
        // on, dropping the old `skills` would delete every approval_history row through ON
        // DELETE CASCADE. The pragma is a no-op inside a transaction, so it is set around them.
        self.conn
            .pragma_update(None, "foreign_keys", false)
            .map_err(open_err)?;
        let applied = self.apply(MIGRATIONS, pending);
        self.conn
            .pragma_update(None, "foreign_keys", true)
            .map_err(open_err)?;
        applied
    }

    /// Apply every migration from `pending` on, each in its own transaction, with foreign keys
    /// off: each must leave no reference dangling that was not dangling before it.
    fn apply(
        &mut self,
        migrations: &[(&'static str, &'static str)],
        pending: usize,
    ) -> Result<(), StoreError> {
        for (index, (name, sql)) in migrations.iter().enumerate().skip(pending) {
            let err = |source| StoreError::Migrate {
                path: self.path.clone(),
                name,
                source,
            };
            let tx = self.conn.transaction().map_err(err)?;
            let before = dangling(&tx).map_err(err)?;
            tx.execute_batch(sql).map_err(err)?;
            let after = dangling(&tx).map_err(err)?;
            if let Some(problem) = after.iter().find(|d| !before.contains(d)) {
                // Dropped with `tx`: rolled back, the file is as it was.
                return Err(StoreError::MigrateReferences {
                    path: self.path.clone(),
                    name,
                    problem: problem.to_string(),
                });
            }
            tx.pragma_update(None, "user_version", index as i64 + 1)
                .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        Ok(())
    }

    /// Run a read-only query, for tests and `skillgate query`.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// `PRAGMA integrity_check` must say `ok` of the database `conn` holds (at `path`).
fn integrity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let err = |source| StoreError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut stmt = conn.prepare("PRAGMA integrity_check").map_err(err)?;
    let problems = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(err)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    match problems.first() {
        Some(first) if first != "ok" => Err(StoreError::Integrity {
            path: path.to_path_buf(),
            problem: first.clone(),
            more: problems.len() - 1,
        }),
        _ => Ok(()),
    }
}

/// `PRAGMA integrity_check` of any database file (a segment), opened read-only.
pub fn check_integrity(path: &Path) -> Result<(), StoreError> {
    let conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|source| {
            StoreError::Open {
                path: path.to_path_buf(),
                source,
            }
        })?;
    integrity(&conn, path)
}

/// A row whose foreign key names a row that does not exist, as `PRAGMA foreign_key_check`
/// lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Dangling {
    table: String,
    rowid: Option<i64>,
    parent: String,
}

impl std::fmt::Display for Dangling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rowid {
            Some(rowid) => write!(
                f,
                "{} row {rowid} would point at a row of {} that does not exist",
                self.table, self.parent
            ),
            None => write!(
                f,
                "a row of {} would point at a row of {} that does not exist",
                self.table, self.parent
            ),
        }
    }
}

/// Every dangling reference in the database. Rows the seed or a hand inserted with foreign keys
/// off may already dangle; a migration is only answerable for new ones.
fn dangling(conn: &Connection) -> rusqlite::Result<Vec<Dangling>> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let rows = stmt.query_map([], |row| {
        Ok(Dangling {
            table: row.get(0)?,
            rowid: row.get(1)?,
            parent: row.get(2)?,
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_migrates_and_reopens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested/skills.db");
        let store = Store::open(&path).expect("open");
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
        drop(store);
        let store = Store::open(&path).expect("reopen");
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
        assert!(!dir.path().join("nested/skills.db-wal").exists());
        let page: i64 = store
            .connection()
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        assert_eq!(page, PAGE_SIZE);
    }

    #[test]
    fn an_existing_database_keeps_its_page_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        {
            let conn = Connection::open(&path).expect("create");
            // A file written with 4 KiB pages whose schema is still empty (version 0).
            conn.execute_batch("PRAGMA page_size = 4096; CREATE TABLE t (x); DROP TABLE t;")
                .expect("4 KiB pages");
        }
        let store = Store::open(&path).expect("migrate");
        let page: i64 = store
            .connection()
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        assert_eq!(page, 4096);
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
    }

    #[test]
    fn refuses_a_newer_schema_and_leaves_it_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        {
            let conn = Connection::open(&path).expect("open");
            conn.pragma_update(None, "user_version", 99)
                .expect("pragma");
        }
        let err = Store::open(&path).err().expect("newer schema refused");
        assert!(
            err.to_string().contains("schema version 99, newer than"),
            "{err}"
        );
        let conn = Connection::open(&path).expect("open");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("v");
        assert_eq!(version, 99);
    }

    fn count(conn: &Connection, sql: &str) -> i64 {
        conn.query_row(sql, [], |r| r.get(0)).expect("count")
    }

    #[test]
    fn migrates_a_version_1_database_in_place_keeping_its_rows_and_chain() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        {
            let conn = Connection::open(&path).expect("open");
            conn.execute_batch(MIGRATIONS[0].1).expect("v1");
            conn.pragma_update(None, "user_version", 1).expect("pragma");
            conn.execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version)
                 VALUES ('slugify', 'text', 'slugify/SKILL.md', 'abc', '1.0.0')",
                [],
            )
            .expect("skill");
            for decision in ["escalated", "approved"] {
                let mut row = serde_json::Map::new();
                row.insert("skill_id".into(), 1.into());
                row.insert("version".into(), "1.0.0".into());
                row.insert("approval_level".into(), "human".into());
                row.insert("decision".into(), decision.into());
                super::super::chain::append(&conn, &row).expect("append");
            }
        }
        let store = Store::open(&path).expect("migrate");
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
        let conn = store.connection();
        assert_eq!(
            count(conn, "SELECT count(*) FROM skills WHERE name = 'slugify'"),
            1
        );
        assert_eq!(count(conn, "SELECT count(*) FROM approval_history"), 2);
        // The columns added since are there, and the rows hashed before them still chain.
        assert_eq!(
            count(
                conn,
                "SELECT count(*) FROM pragma_table_info('approval_history')
                 WHERE name IN ('review_id', 'pull_request_head')"
            ),
            2
        );
        let report = store.verify_chain().expect("verify");
        assert_eq!((report.rows, report.breaks.len()), (2, 0));
        assert_eq!(report.head_id, Some(2));
    }

    /// A version 3 trail as skillgate wrote it, keyed by name: `slugify` at its directory with
    /// two decisions; `old-name`, renamed in place to `csv-summary` (v3 made a new row, so two
    /// rows share `skills/csv`); a row the seed inserted with no directory; a mapping; and a
    /// deleted skill whose id must never be handed out again.
    fn version_3_trail(path: &Path) {
        let conn = Connection::open(path).expect("open");
        for (_, sql) in &MIGRATIONS[..3] {
            conn.execute_batch(sql).expect("v3");
        }
        conn.pragma_update(None, "user_version", 3).expect("pragma");
        conn.execute_batch(
            "INSERT INTO skills (id, name, category, content_path, content_hash, version,
                                 skill_dir, test_coverage, updated_at)
             VALUES (1, 'slugify', 'text', 'skills/slugify/SKILL.md', 'a1', '1.0.0',
                     'skills/slugify', 0.9, '2026-11-01 10:00:00'),
                    (2, 'old-name', 'text', 'skills/csv/SKILL.md', 'b1', '1.0.0',
                     'skills/csv', 0.5, '2026-11-02 10:00:00'),
                    (3, 'csv-summary', 'text', 'skills/csv/SKILL.md', 'b2', '1.1.0',
                     'skills/csv', 0.7, '2026-11-03 10:00:00'),
                    (4, 'seeded', 'testing', './.claude/skills/seeded.md', 'c1', '1.0.0',
                     NULL, NULL, '2026-11-04 10:00:00'),
                    (5, 'gone', 'text', 'skills/gone/SKILL.md', 'd1', '1.0.0',
                     'skills/gone', NULL, '2026-11-05 10:00:00');
             DELETE FROM skills WHERE id = 5;
             INSERT INTO agent_skill_mappings (agent_type, skill_id) VALUES ('coder', 4);",
        )
        .expect("skills");
        for (skill_id, decision) in [
            (1, "escalated"),
            (2, "approved"),
            (3, "escalated"),
            (1, "approved"),
        ] {
            let mut row = serde_json::Map::new();
            row.insert("skill_id".into(), skill_id.into());
            row.insert("version".into(), "1.0.0".into());
            row.insert("approval_level".into(), "human".into());
            row.insert("decision".into(), decision.into());
            row.insert("timestamp".into(), "2026-11-30 10:00:00".into());
            super::super::chain::append(&conn, &row).expect("append");
        }
    }

    fn skills_rows(conn: &Connection) -> Vec<(i64, String, Option<String>, Option<f64>)> {
        conn.prepare("SELECT id, name, skill_dir, test_coverage FROM skills ORDER BY id")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect()
            })
            .expect("skills")
    }

    #[test]
    fn a_version_3_trail_keyed_by_name_keeps_every_row_and_its_chain() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        version_3_trail(&path);
        let history_before: Vec<(i64, i64, String)> = Connection::open(&path)
            .and_then(|c| {
                c.prepare("SELECT id, skill_id, row_hash FROM approval_history ORDER BY id")?
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .expect("history");

        let store = Store::open(&path).expect("migrate");
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
        let conn = store.connection();
        // Every skill keeps its id; of the two rows at skills/csv, the later keeps the
        // directory and the older keeps its name and history.
        assert_eq!(
            skills_rows(conn),
            vec![
                (
                    1,
                    "slugify".into(),
                    Some("skills/slugify".into()),
                    Some(0.9)
                ),
                (2, "old-name".into(), None, Some(0.5)),
                (
                    3,
                    "csv-summary".into(),
                    Some("skills/csv".into()),
                    Some(0.7)
                ),
                (4, "seeded".into(), None, None),
            ]
        );
        let history_after: Vec<(i64, i64, String)> = conn
            .prepare("SELECT id, skill_id, row_hash FROM approval_history ORDER BY id")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .expect("history");
        assert_eq!(history_after, history_before);
        let report = store.verify_chain().expect("verify");
        assert_eq!((report.rows, report.breaks.len()), (4, 0));
        assert_eq!(
            count(
                conn,
                "SELECT count(*) FROM agent_skill_mappings WHERE skill_id = 4"
            ),
            1
        );
        // The next skill gets id 6: 5 was the deleted skill's.
        assert_eq!(
            count(
                conn,
                "SELECT seq FROM sqlite_sequence WHERE name = 'skills'"
            ),
            5
        );
        assert_eq!(
            count(
                conn,
                "SELECT count(*) FROM sqlite_sequence WHERE name = 'skills_v4'"
            ),
            0
        );
        // Foreign keys are on again, and enforced.
        assert_eq!(count(conn, "PRAGMA foreign_keys"), 1);
        assert!(
            conn.execute(
                "INSERT INTO agent_skill_mappings (agent_type, skill_id) VALUES ('coder', 99)",
                []
            )
            .is_err()
        );
        // A name may repeat; a directory may not, and any number of rows may have none.
        conn.execute_batch(
            "INSERT INTO skills (name, category, content_path, content_hash, version, skill_dir)
             VALUES ('slugify', 'text', 'p/SKILL.md', 'h', '1', 'plugins/p/skills/slugify'),
                    ('seeded', 'text', 'x.md', 'h', '1', NULL);",
        )
        .expect("a second slugify, a second seeded row");
        assert!(
            conn.execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version, skill_dir)
                 VALUES ('other', 'text', 'p/SKILL.md', 'h', '1', 'skills/slugify')",
                []
            )
            .is_err()
        );
        assert_eq!(
            count(conn, "SELECT max(id) FROM skills"),
            7,
            "ids continue after the deleted skill's"
        );
        store.check_schema().expect("version 4's own schema");
    }

    #[test]
    fn a_reference_that_already_dangled_does_not_stop_the_migration() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        version_3_trail(&path);
        // Written with foreign keys off, as the sqlite3 shell does by default.
        Connection::open(&path)
            .and_then(|c| {
                c.execute_batch(
                    "PRAGMA foreign_keys = OFF;
                     INSERT INTO skill_usage_log (agent_id, agent_type, skill_id)
                     VALUES ('a', 'coder', 42);",
                )
            })
            .expect("dangling usage row");
        let store = Store::open(&path).expect("migrates");
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
        let dangling = dangling(store.connection()).expect("check");
        assert_eq!(
            dangling.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec!["skill_usage_log row 1 would point at a row of skills that does not exist"]
        );
    }

    #[test]
    fn a_migration_that_would_leave_a_reference_dangling_is_rolled_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        version_3_trail(&path);
        let mut store = Store::open(&path).expect("migrate");
        let mut migrations = MIGRATIONS.to_vec();
        migrations.push(("0005_drop_seeded.sql", "DELETE FROM skills WHERE id = 4;"));
        store
            .conn
            .pragma_update(None, "foreign_keys", false)
            .expect("off");
        let err = store
            .apply(&migrations, MIGRATIONS.len())
            .expect_err("dangling");
        assert_eq!(
            err.to_string(),
            format!(
                "failed to apply migration 0005_drop_seeded.sql to {}: agent_skill_mappings row 1 \
                 would point at a row of skills that does not exist; the file was left as it was",
                path.display()
            )
        );
        assert_eq!(
            count(
                store.connection(),
                "SELECT count(*) FROM skills WHERE id = 4"
            ),
            1
        );
        assert_eq!(store.version().expect("version"), LATEST_VERSION);
    }

    #[test]
    fn prepare_for_commit_folds_the_write_ahead_log_into_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        let store = Store::open(&path).expect("open");
        let mode: String = store
            .connection()
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .expect("wal");
        assert_eq!(mode, "wal");
        // Another writer (sqlite3, a seed script) adds rows through the log.
        let other = Connection::open(&path).expect("other");
        other
            .execute_batch(
                "INSERT INTO skills (name, category, content_path, content_hash, version)
                 VALUES ('a', 'text', 'a/SKILL.md', 'h', '1'), ('b', 'text', 'b/SKILL.md', 'h', '1')",
            )
            .expect("insert");
        let wal = dir.path().join("skills.db-wal");
        assert!(
            wal.metadata().map(|m| m.len()).unwrap_or(0) > 0,
            "rows in the log"
        );
        // While another connection has the file open, it cannot leave WAL mode: an error, not a
        // file that needs its log.
        store
            .connection()
            .busy_timeout(std::time::Duration::from_millis(50))
            .expect("timeout");
        let err = store.prepare_for_commit().expect_err("busy");
        assert!(
            err.to_string()
                .starts_with("failed to fold the write-ahead log of "),
            "{err}"
        );
        // The store reads through the log, so closing the other connection leaves it in place.
        assert_eq!(count(store.connection(), "SELECT count(*) FROM skills"), 2);
        drop(other);
        assert!(
            wal.metadata().map(|m| m.len()).unwrap_or(0) > 0,
            "rows in the log"
        );

        store.prepare_for_commit().expect("prepare");
        assert!(!wal.exists(), "no -wal left");
        assert!(!dir.path().join("skills.db-shm").exists(), "no -shm left");
        // The file alone, copied elsewhere, holds every row.
        let alone = tempfile::tempdir().expect("tempdir");
        std::fs::copy(&path, alone.path().join("skills.db")).expect("copy");
        let copy = Connection::open(alone.path().join("skills.db")).expect("copy");
        assert_eq!(count(&copy, "SELECT count(*) FROM skills"), 2);
        let mode: String = copy
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "delete");
    }

    #[test]
    fn prepare_for_commit_refuses_a_damaged_file_naming_it_and_the_problem() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        {
            let store = Store::open(&path).expect("open");
            store.prepare_for_commit().expect("a fresh file is fine");
            store
                .connection()
                .execute_batch(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
                     INSERT INTO skills (name, category, content_path, content_hash, version)
                     SELECT printf('skill %03d', i), 'text', 'SKILL.md', 'h', '1' FROM n;",
                )
                .expect("skills");
        }
        // Damage the index: its entries no longer match the table.
        let (root, page_size): (i64, i64) = {
            let conn = Connection::open(&path).expect("open");
            (
                count(
                    &conn,
                    "SELECT rootpage FROM sqlite_schema WHERE name = 'idx_skills_name'",
                ),
                count(&conn, "PRAGMA page_size"),
            )
        };
        let mut bytes = std::fs::read(&path).expect("read");
        let page = usize::try_from((root - 1) * page_size).expect("offset");
        let end = page + usize::try_from(page_size).expect("size");
        for byte in &mut bytes[end - 400..end] {
            if byte.is_ascii_digit() {
                *byte = b'9';
            }
        }
        std::fs::write(&path, bytes).expect("write");

        let store = Store::open(&path).expect("the schema still reads");
        let err = store.prepare_for_commit().expect_err("damaged");
        let message = err.to_string();
        assert!(
            message.starts_with(&format!(
                "audit database {} fails its integrity check: ",
                path.display()
            )),
            "{message}"
        );
        assert!(message.contains("idx_skills_name"), "{message}");
    }

    #[test]
    fn opening_for_writing_refuses_a_foreign_object_and_writes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        drop(Store::open(&path).expect("create"));
        Connection::open(&path)
            .and_then(|c| {
                c.execute_batch(
                    "CREATE TRIGGER approve_all AFTER INSERT ON approval_history BEGIN
                        UPDATE approval_history SET decision = 'approved' WHERE id = new.id;
                     END;
                     PRAGMA user_version = 2;",
                )
            })
            .expect("plant");
        let before = std::fs::read(&path).expect("read");
        let err = Store::open(&path).err().expect("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "audit database {}: unexpected trigger `approve_all` (sqlite_master)",
                path.display()
            )
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            before,
            "left as it was"
        );
    }

    #[test]
    fn read_only_opening_refuses_a_newer_schema_and_creates_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        assert!(Store::open_read_only(&path).is_err());
        assert!(!path.exists());
        Connection::open(&path)
            .and_then(|c| c.pragma_update(None, "user_version", 7))
            .expect("v7");
        let err = Store::open_read_only(&path).err().expect("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "audit database {} has schema version 7, newer than this skillgate knows ({}); \
                 it was left untouched",
                path.display(),
                LATEST_VERSION
            )
        );
    }
}
