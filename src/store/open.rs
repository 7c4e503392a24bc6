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
        let err = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let mut stmt = self.conn.prepare("PRAGMA integrity_check").map_err(err)?;
        let problems = stmt
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        match problems.first() {
            Some(first) if first != "ok" => Err(StoreError::Integrity {
                path: self.path.clone(),
                problem: first.clone(),
                more: problems.len() - 1,
            }),
            _ => Ok(()),
        }
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
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate().skip(pending) {
            let err = |source| StoreError::Migrate {
                path: self.path.clone(),
                name,
                source,
            };
            let tx = self.conn.transaction().map_err(err)?;
            tx.execute_batch(sql).map_err(err)?;
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
                    "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_skills_1'",
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
        assert!(message.contains("sqlite_autoindex_skills_1"), "{message}");
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
