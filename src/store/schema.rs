//! The schema skillgate owns, checked object by object: a database may hold only the tables,
//! indexes, views and triggers its migrations create, with the exact SQL they create them with,
//! at the `user_version` those migrations set. A trigger planted in the working copy rewrites
//! every later decision; a replaced index or table definition changes what the gate reads.
//! Anything else is refused before the gate writes to or commits the file.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use rusqlite::Connection;
use serde::Serialize;

use super::open::MIGRATIONS;
use super::{Store, StoreError};

/// `(type, name)` → `(tbl_name, sql)`, as `sqlite_master` lists them.
type Objects = BTreeMap<(String, String), (String, Option<String>)>;

/// SQLite's own statistics tables (`ANALYZE`, `PRAGMA optimize`): they steer query plans, never
/// results, and only SQLite can create a table with a `sqlite_` name.
const STATISTICS: &[&str] = &[
    "sqlite_stat1",
    "sqlite_stat2",
    "sqlite_stat3",
    "sqlite_stat4",
];

/// One way a database's schema is not skillgate's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SchemaProblem {
    /// An object no migration creates: a trigger, a view, a table, an index.
    Unexpected { object: String, name: String },
    /// An object of skillgate's whose definition is not the one its migrations write.
    Changed { object: String, name: String },
    /// An object of skillgate's that is not there.
    Missing { object: String, name: String },
    /// `PRAGMA user_version` does not say which schema the file holds.
    Version {
        found: i64,
        /// The version whose schema the file does hold, when it matches one.
        schema_of: Option<i64>,
    },
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unexpected { object, name } => {
                write!(f, "unexpected {object} `{name}` (sqlite_master)")
            }
            Self::Changed { object, name } => write!(
                f,
                "{object} `{name}` is not defined as skillgate's migrations define it \
                 (sqlite_master)"
            ),
            Self::Missing { object, name } => write!(f, "{object} `{name}` is missing"),
            Self::Version {
                found,
                schema_of: Some(version),
            } => write!(
                f,
                "PRAGMA user_version is {found}, but the schema is skillgate's version {version}"
            ),
            Self::Version {
                found,
                schema_of: None,
            } => write!(
                f,
                "PRAGMA user_version is {found}, not a version of skillgate's schema"
            ),
        }
    }
}

/// The objects each version's migrations create (index: the version), computed once by applying
/// them to an empty in-memory database: the same SQLite that writes the file, so the same text.
fn expected() -> rusqlite::Result<&'static [Objects]> {
    static SETS: OnceLock<Result<Vec<Objects>, String>> = OnceLock::new();
    expected_of(&SETS, MIGRATIONS)
}

/// The objects each version of a segment file's schema holds.
fn expected_segment() -> rusqlite::Result<&'static [Objects]> {
    static SETS: OnceLock<Result<Vec<Objects>, String>> = OnceLock::new();
    expected_of(&SETS, super::segments::SEGMENT_MIGRATIONS)
}

fn expected_of(
    cell: &'static OnceLock<Result<Vec<Objects>, String>>,
    migrations: &'static [(&'static str, &'static str)],
) -> rusqlite::Result<&'static [Objects]> {
    let sets = cell.get_or_init(|| {
        let build = || -> rusqlite::Result<Vec<Objects>> {
            let conn = Connection::open_in_memory()?;
            let mut sets = vec![objects(&conn)?];
            for (_, sql) in migrations {
                conn.execute_batch(sql)?;
                sets.push(objects(&conn)?);
            }
            Ok(sets)
        };
        build().map_err(|err| err.to_string())
    });
    match sets {
        Ok(sets) => Ok(sets),
        // Only a migration that does not run on an empty database gets here: a build defect.
        Err(message) => Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
            Some(format!(
                "skillgate's own migrations fail on an empty database: {message}"
            )),
        )),
    }
}

fn objects(conn: &Connection) -> rusqlite::Result<Objects> {
    objects_in(conn, "main")
}

/// `schema` is a quoted-safe schema name (`main`, or an attached segment's).
fn objects_in(conn: &Connection, schema: &str) -> rusqlite::Result<Objects> {
    let mut stmt = conn.prepare(&format!(
        "SELECT type, name, tbl_name, sql FROM \"{schema}\".sqlite_master"
    ))?;
    let rows = stmt.query_map([], |row| {
        Ok((
            (row.get::<_, String>(0)?, row.get::<_, String>(1)?),
            (row.get::<_, String>(2)?, row.get::<_, Option<String>>(3)?),
        ))
    })?;
    rows.collect()
}

/// Every difference between `found` and `wanted`, in `sqlite_master`'s terms.
fn compare(found: &Objects, wanted: &Objects) -> Vec<SchemaProblem> {
    let mut problems = Vec::new();
    for ((object, name), definition) in found {
        let problem = match wanted.get(&(object.clone(), name.clone())) {
            Some(own) if own == definition => continue,
            Some(_) => SchemaProblem::Changed {
                object: object.clone(),
                name: name.clone(),
            },
            None if object == "table" && STATISTICS.contains(&name.as_str()) => continue,
            None => SchemaProblem::Unexpected {
                object: object.clone(),
                name: name.clone(),
            },
        };
        problems.push(problem);
    }
    for (object, name) in wanted.keys() {
        if !found.contains_key(&(object.clone(), name.clone())) {
            problems.push(SchemaProblem::Missing {
                object: object.clone(),
                name: name.clone(),
            });
        }
    }
    // The active objects first: a trigger or view is what rewrites or hides rows.
    problems.sort_by_key(|p| match p {
        SchemaProblem::Unexpected { object, .. } | SchemaProblem::Changed { object, .. } => {
            match object.as_str() {
                "trigger" => 0,
                "view" => 1,
                "table" => 2,
                _ => 3,
            }
        }
        _ => 4,
    });
    problems
}

/// What is wrong with the schema of the database `conn` holds; empty when it is exactly the
/// schema of the version its `user_version` names.
pub(super) fn problems(conn: &Connection) -> rusqlite::Result<Vec<SchemaProblem>> {
    problems_against(conn, "main", expected()?)
}

/// The same for a segment file attached to `conn` as `schema`.
pub(super) fn segment_problems(
    conn: &Connection,
    schema: &str,
) -> rusqlite::Result<Vec<SchemaProblem>> {
    problems_against(conn, schema, expected_segment()?)
}

fn problems_against(
    conn: &Connection,
    schema: &str,
    sets: &[Objects],
) -> rusqlite::Result<Vec<SchemaProblem>> {
    let quoted = schema.replace('"', "\"\"");
    let version: i64 = conn.query_row(&format!("PRAGMA \"{quoted}\".user_version"), [], |row| {
        row.get(0)
    })?;
    let found = objects_in(conn, &quoted)?;
    // The version whose schema the file holds exactly, if any.
    let schema_of = sets
        .iter()
        .position(|wanted| compare(&found, wanted).is_empty())
        .and_then(|v| i64::try_from(v).ok());
    let own = usize::try_from(version).ok().and_then(|v| sets.get(v));
    match (own, schema_of) {
        (Some(_), Some(matching)) if matching == version => Ok(Vec::new()),
        // The objects are another version's exactly: the number is what was changed.
        (_, Some(matching)) => Ok(vec![SchemaProblem::Version {
            found: version,
            schema_of: Some(matching),
        }]),
        (Some(wanted), None) => Ok(compare(&found, wanted)),
        (None, None) => {
            let mut problems = vec![SchemaProblem::Version {
                found: version,
                schema_of: None,
            }];
            if let Some(latest) = sets.last() {
                problems.extend(compare(&found, latest));
            }
            Ok(problems)
        }
    }
}

impl Store {
    /// Every way the schema differs from skillgate's at the file's `user_version` (`audit
    /// verify` lists them all).
    pub fn schema_problems(&self) -> Result<Vec<SchemaProblem>, StoreError> {
        problems(&self.conn).map_err(|source| StoreError::Read {
            path: self.path.clone(),
            source,
        })
    }

    /// The first way the schema is not skillgate's, as an error naming the object.
    pub fn check_schema(&self) -> Result<(), StoreError> {
        match self.schema_problems()?.into_iter().next() {
            None => Ok(()),
            Some(problem) => Err(StoreError::Schema {
                path: self.path.clone(),
                problem,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        (dir, store)
    }

    /// Plant `sql` in the file behind the store's back, the way a suite would.
    fn plant(store: &Store, sql: &str) {
        Connection::open(store.path())
            .and_then(|c| c.execute_batch(sql))
            .expect("plant");
    }

    #[test]
    fn a_fresh_and_a_migrated_database_are_skillgates_own() {
        let (_dir, store) = fresh();
        assert_eq!(store.schema_problems().expect("read"), vec![]);
        store.check_schema().expect("own schema");
        // Every version's schema is its own at its own number.
        for version in 0..=MIGRATIONS.len() {
            let conn = Connection::open_in_memory().expect("db");
            for (_, sql) in &MIGRATIONS[..version] {
                conn.execute_batch(sql).expect("migrate");
            }
            conn.pragma_update(None, "user_version", version as i64)
                .expect("version");
            assert_eq!(problems(&conn).expect("read"), vec![], "version {version}");
        }
    }

    #[test]
    fn a_planted_trigger_is_named() {
        let (_dir, store) = fresh();
        plant(
            &store,
            "CREATE TRIGGER approve_all AFTER INSERT ON approval_history BEGIN
                UPDATE approval_history SET decision = 'approved', approval_level = 'auto'
                WHERE id = new.id;
             END;",
        );
        let err = store.check_schema().expect_err("trigger");
        assert_eq!(
            err.to_string(),
            format!(
                "audit database {}: unexpected trigger `approve_all` (sqlite_master)",
                store.path().display()
            )
        );
    }

    #[test]
    fn foreign_tables_views_and_indexes_are_each_named() {
        let (_dir, store) = fresh();
        plant(
            &store,
            "CREATE TABLE loot (x); CREATE VIEW approvals AS SELECT * FROM approval_history;
             CREATE INDEX idx_loot ON loot(x);",
        );
        assert_eq!(
            store.schema_problems().expect("read"),
            vec![
                SchemaProblem::Unexpected {
                    object: "view".into(),
                    name: "approvals".into()
                },
                SchemaProblem::Unexpected {
                    object: "table".into(),
                    name: "loot".into()
                },
                SchemaProblem::Unexpected {
                    object: "index".into(),
                    name: "idx_loot".into()
                },
            ]
        );
    }

    #[test]
    fn a_replaced_definition_under_skillgates_name_is_caught() {
        let (_dir, store) = fresh();
        // Same name, another body: a partial index that leaves approvals out.
        plant(
            &store,
            "DROP INDEX idx_approval_history_skill;
             CREATE INDEX idx_approval_history_skill ON approval_history(skill_id)
                 WHERE decision <> 'approved';",
        );
        assert_eq!(
            store.check_schema().expect_err("changed").to_string(),
            format!(
                "audit database {}: index `idx_approval_history_skill` is not defined as \
                 skillgate's migrations define it (sqlite_master)",
                store.path().display()
            )
        );
    }

    #[test]
    fn a_table_rewritten_through_writable_schema_is_caught() {
        let (_dir, store) = fresh();
        plant(
            &store,
            "PRAGMA writable_schema = ON;
             UPDATE sqlite_master SET sql = replace(sql, 'DEFAULT ''human''', 'DEFAULT ''auto''')
             WHERE name = 'skills';
             PRAGMA writable_schema = OFF;",
        );
        let reopened = Store::open_read_only(store.path()).expect("reopen");
        assert_eq!(
            reopened.schema_problems().expect("read"),
            vec![SchemaProblem::Changed {
                object: "table".into(),
                name: "skills".into()
            }]
        );
    }

    #[test]
    fn a_wrong_user_version_is_named_with_the_schema_it_has() {
        let (_dir, store) = fresh();
        plant(&store, "PRAGMA user_version = 2;");
        assert_eq!(
            store.check_schema().expect_err("version").to_string(),
            format!(
                "audit database {}: PRAGMA user_version is {}, but the schema is skillgate's \
                 version {}",
                store.path().display(),
                2,
                MIGRATIONS.len()
            )
        );
        plant(&store, "PRAGMA user_version = -5;");
        assert_eq!(
            store.schema_problems().expect("read")[0],
            SchemaProblem::Version {
                found: -5,
                schema_of: Some(MIGRATIONS.len() as i64)
            }
        );
    }

    #[test]
    fn a_dropped_object_is_missing_and_statistics_are_sqlites_own() {
        let (_dir, store) = fresh();
        plant(&store, "ANALYZE; DROP INDEX idx_usage_phase;");
        assert_eq!(
            store.schema_problems().expect("read"),
            vec![SchemaProblem::Missing {
                object: "index".into(),
                name: "idx_usage_phase".into()
            }]
        );
    }
}
