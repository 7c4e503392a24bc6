//! The audit trail opened for reading, segmented or not, as one database on which the seed's
//! statements run unchanged: the registry is `main`, and a TEMP `approval_history` holding
//! every segment's rows shadows its empty table (SQLite looks in `temp` before `main`).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::limits::Limit;

use super::segments::{Segment, segments_of};
use super::trail::{checked_file, content_problem, read_only_uri, trail_dir};
use super::{Store, StoreError};

/// How the connection holds the segments' rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assembly {
    /// A single-file trail: `approval_history` is the file's own table.
    Single,
    /// Every segment ATTACHed read-only, under a TEMP VIEW of their UNION ALL.
    Attached { segments: usize },
    /// More segments than SQLite attaches at once: their rows copied into a TEMP TABLE.
    Materialized { segments: usize },
}

/// A read-only connection over an audit trail.
#[derive(Debug)]
pub struct TrailView {
    conn: Connection,
    path: PathBuf,
    segments: Vec<Segment>,
    assembly: Assembly,
}

impl TrailView {
    /// Open the trail whose registry (or single file) is `registry`, its segments read from
    /// `trail/` beside it. The connection is opened read-only and left `query_only`; each
    /// segment file must be there and, once sealed, hold the bytes the registry recorded, and
    /// each is ATTACHed read-only only after its schema is checked to be the segment schema
    /// exactly (a view or trigger there would change what is read).
    ///
    /// Up to `SQLITE_LIMIT_ATTACHED` segments (10 in the bundled SQLite) stay attached under
    /// `CREATE TEMP VIEW approval_history AS SELECT * FROM s1.approval_history UNION ALL …`.
    /// Past that, the rows are materialized instead: a TEMP TABLE made with `CREATE TABLE …
    /// AS SELECT * FROM main.approval_history WHERE 0` gets every column `SELECT *` returns,
    /// the generated `pass_rate` included as a plain REAL column, and is filled segment by
    /// segment (each attached, copied with `SELECT *`, detached), so `pass_rate` holds the value
    /// each segment's own generated column computes, and reads as it does from a single file.
    /// That copy costs memory or temp space proportional to the trail.
    pub fn open(registry: &Path) -> Result<Self, StoreError> {
        let store = Store::open_read_only(registry)?;
        store.check_schema()?;
        let Store { conn, path } = store;
        let read = |source| StoreError::Read {
            path: path.clone(),
            source,
        };
        let segments = segments_of(&conn).map_err(read)?;
        let mut view = Self {
            conn,
            path: path.clone(),
            segments,
            assembly: Assembly::Single,
        };
        if !view.segments.is_empty() {
            view.assemble()?;
        }
        view.conn
            .pragma_update(None, "query_only", true)
            .map_err(read)?;
        map_pages(&view.conn);
        Ok(view)
    }

    /// Open `path` as one file holding every row it has, read-only and `query_only`, whatever
    /// segments it records: a working copy the audit branch was assembled into.
    pub fn open_single(path: &Path) -> Result<Self, StoreError> {
        let store = Store::open_read_only(path)?;
        store.check_schema()?;
        let Store { conn, path } = store;
        conn.pragma_update(None, "query_only", true)
            .map_err(|source| StoreError::Read {
                path: path.clone(),
                source,
            })?;
        map_pages(&conn);
        Ok(Self {
            conn,
            path,
            segments: Vec::new(),
            assembly: Assembly::Single,
        })
    }

    /// The connection: the seed's statements run on it as on a single file.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The connection, to install hooks on (`query`'s authorizer): it stays read-only.
    pub fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// The registry (or single file) it was opened on.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The segments the registry records; none for a single file.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    pub fn assembly(&self) -> Assembly {
        self.assembly
    }

    fn assemble(&mut self) -> Result<(), StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let own: i64 = self
            .conn
            .query_row("SELECT count(*) FROM main.approval_history", [], |r| {
                r.get(0)
            })
            .map_err(read)?;
        if own > 0 {
            return Err(StoreError::Trail {
                path: self.path.clone(),
                message: format!(
                    "it records {} segments but holds {own} approval_history {} of its own, \
                     which a view over the segments would hide",
                    self.segments.len(),
                    if own == 1 { "row" } else { "rows" }
                ),
            });
        }
        let dir = trail_dir(&self.path);
        let mut files = Vec::new();
        for segment in &self.segments {
            if let Some(file) = checked_file(segment, &dir)? {
                files.push((segment, file));
            }
        }
        let limit = self
            .conn
            .limit(Limit::SQLITE_LIMIT_ATTACHED)
            .map_err(read)?;
        let fits = usize::try_from(limit).is_ok_and(|limit| files.len() <= limit);
        if fits {
            let mut selects = Vec::new();
            for (segment, file) in &files {
                let schema = format!("s{}", segment.seq);
                self.attach(segment, file, &schema)?;
                selects.push(format!("SELECT * FROM {schema}.approval_history"));
            }
            if !selects.is_empty() {
                self.conn
                    .execute_batch(&format!(
                        "CREATE TEMP VIEW approval_history AS {}",
                        selects.join(" UNION ALL ")
                    ))
                    .map_err(read)?;
            }
            self.assembly = Assembly::Attached {
                segments: files.len(),
            };
        } else {
            self.conn
                .execute_batch(
                    "CREATE TEMP TABLE approval_history AS
                         SELECT * FROM main.approval_history WHERE 0;
                     CREATE INDEX temp.approval_history_id ON approval_history(id);
                     CREATE INDEX temp.approval_history_skill ON approval_history(skill_id);
                     CREATE INDEX temp.approval_history_pull_request
                         ON approval_history(repository, pull_request);
                     CREATE INDEX temp.approval_history_timestamp ON approval_history(timestamp);",
                )
                .map_err(read)?;
            for (segment, file) in &files {
                self.attach(segment, file, "segment")?;
                let copied = self.conn.execute(
                    "INSERT INTO temp.approval_history SELECT * FROM segment.approval_history",
                    [],
                );
                let detached = self.conn.execute("DETACH DATABASE segment", []);
                copied.and(detached).map_err(read)?;
            }
            self.assembly = Assembly::Materialized {
                segments: files.len(),
            };
        }
        Ok(())
    }

    /// ATTACH `file` read-only as `schema` and check it is what the registry recorded of
    /// `segment`; detached again when it is not.
    fn attach(&self, segment: &Segment, file: &Path, schema: &str) -> Result<(), StoreError> {
        let read = |source| StoreError::Read {
            path: file.to_path_buf(),
            source,
        };
        self.conn
            .execute(
                &format!("ATTACH DATABASE ?1 AS {schema}"),
                [read_only_uri(file)],
            )
            .map_err(read)?;
        let problem = content_problem(&self.conn, schema, segment);
        let refused = match problem {
            Ok(None) => return Ok(()),
            Ok(Some(message)) => StoreError::Segment {
                path: file.to_path_buf(),
                name: segment.file_name(),
                message,
            },
            Err(source) => read(source),
        };
        let _ = self.conn.execute(&format!("DETACH DATABASE {schema}"), []);
        Err(refused)
    }
}

/// Read pages through a memory map (up to 1 GiB of the file) instead of a `pread` each: a
/// report over a million rows spends most of its time in those calls otherwise. A read-only
/// connection's map is never written; where mapping is unavailable SQLite reads as before.
fn map_pages(conn: &Connection) {
    // Best effort: an error leaves ordinary reads.
    let _ = conn.pragma_update(None, "mmap_size", 1_i64 << 30);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::GateRun;
    use crate::store::MIN_SEGMENT_SIZE;

    fn run(n: usize) -> GateRun {
        crate::store::example_run(n)
    }

    /// A trail of `runs` runs written whole to `dir/whole.db`, and split into `dir/out`.
    fn trail(dir: &Path, runs: usize) -> (PathBuf, PathBuf) {
        let whole = dir.join("whole.db");
        let mut store = Store::open(&whole).expect("open");
        for n in 0..runs {
            store.record(&run(n)).expect("record");
        }
        let mut work = {
            std::fs::copy(&whole, dir.join("work.db")).expect("copy");
            Store::open(&dir.join("work.db")).expect("open")
        };
        let split = work
            .split(&dir.join("out"), MIN_SEGMENT_SIZE)
            .expect("split");
        (whole, split.registry)
    }

    fn rows(conn: &Connection, sql: &str) -> Vec<Vec<rusqlite::types::Value>> {
        let mut stmt = conn.prepare(sql).expect("prepare");
        let n = stmt.column_count();
        stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows")
    }

    const EVERY_ROW: &str = "SELECT * FROM approval_history ORDER BY id";

    #[test]
    fn a_segmented_trail_reads_as_the_single_file_it_was_split_from() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (whole, registry) = trail(dir.path(), 20);
        let view = TrailView::open(&registry).expect("view");
        let segments = view.segments().iter().filter(|s| s.rows > 0).count();
        assert!(segments >= 2, "{segments}");
        assert_eq!(view.assembly(), Assembly::Attached { segments });
        let single = TrailView::open(&whole).expect("single");
        assert_eq!(single.assembly(), Assembly::Single);
        let expected = rows(single.connection(), EVERY_ROW);
        assert_eq!(expected.len(), 100);
        assert_eq!(rows(view.connection(), EVERY_ROW), expected);
        // Read-only: not even a temp object can be made now.
        let err = view
            .connection()
            .execute_batch("CREATE TEMP TABLE t (x)")
            .expect_err("query_only");
        assert!(err.to_string().contains("readonly"), "{err}");
    }

    #[test]
    fn past_the_attach_limit_the_rows_are_materialized_with_pass_rate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (whole, registry) = trail(dir.path(), 20);
        let view = TrailView::open(&registry).expect("view");
        let segments = view.segments().iter().filter(|s| s.rows > 0).count();
        // Lower the limit on a fresh connection the way a smaller build would have it: open
        // the view, then compare with one assembled by materializing.
        drop(view);
        let mut materialized = TrailView {
            conn: Connection::open_with_flags(
                &registry,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
            )
            .expect("open"),
            path: registry.clone(),
            segments: Vec::new(),
            assembly: Assembly::Single,
        };
        materialized.segments = segments_of(&materialized.conn).expect("segments");
        materialized
            .conn
            .set_limit(Limit::SQLITE_LIMIT_ATTACHED, 1)
            .expect("limit");
        materialized.assemble().expect("assemble");
        assert_eq!(materialized.assembly(), Assembly::Materialized { segments });
        let single = TrailView::open(&whole).expect("single");
        assert_eq!(
            rows(materialized.connection(), EVERY_ROW),
            rows(single.connection(), EVERY_ROW)
        );
        let rate = "SELECT count(*), sum(pass_rate IS NOT NULL), typeof(max(pass_rate)) \
                    FROM approval_history";
        assert_eq!(
            rows(materialized.connection(), rate),
            rows(single.connection(), rate)
        );
    }

    #[test]
    fn a_missing_or_replaced_segment_is_refused_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (_, registry) = trail(dir.path(), 20);
        let trail = trail_dir(&registry);
        let first = trail.join("000001.db");
        let second = trail.join("000002.db");
        let saved = std::fs::read(&first).expect("read");
        std::fs::copy(&second, &first).expect("swap in");
        let err = TrailView::open(&registry).expect_err("replaced");
        assert!(
            err.to_string().starts_with(&format!(
                "audit trail segment 000001.db ({}): it was replaced: its sha256 is ",
                first.display()
            )),
            "{err}"
        );
        std::fs::remove_file(&first).expect("rm");
        let err = TrailView::open(&registry).expect_err("missing");
        assert_eq!(
            err.to_string(),
            format!(
                "audit trail segment 000001.db ({}): it is missing",
                first.display()
            )
        );
        std::fs::write(&first, saved).expect("restore");
        TrailView::open(&registry).expect("whole again");
    }
}
