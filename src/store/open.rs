//! Opening the audit database: create it if missing, migrate it in place, refuse a newer one.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

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
];

/// The schema version this binary writes.
pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

/// An open, migrated audit database.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
}

impl Store {
    /// Open (creating it and its directory if needed) and migrate the database at `path`.
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
}
