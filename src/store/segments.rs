//! Sealed segments: the audit trail as a registry database plus append-only segment files of
//! `approval_history` rows (see `migrations/0005_trail_segments.sql`).
//!
//! A run works on one ordinary database, its working copy: the registry with the rows of the
//! segments it read loaded into its `approval_history` ([`Store::load_segment`]). Everything the
//! store does (record, reviews, validation against the branch) works on that copy as on a
//! single file. [`Store::split`] then writes it back out as a registry (the same file without
//! its rows) and the newest segment, sealing it once it passes the size cap.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::chain::{GENESIS, column_list, hashed_columns};
use super::{Store, StoreError};
use crate::skill::hex;

/// The schema of a segment file, version by version (`PRAGMA user_version`).
pub const SEGMENT_MIGRATIONS: &[(&str, &str)] = &[(
    "segment/0001_approval_history.sql",
    include_str!("../../migrations/segment/0001_approval_history.sql"),
)];

/// The segment schema version this binary writes.
pub const SEGMENT_VERSION: i64 = SEGMENT_MIGRATIONS.len() as i64;

pub use crate::config::{DEFAULT_SEGMENT_SIZE, MAX_SEGMENT_SIZE, MIN_SEGMENT_SIZE};

/// One segment, as the registry records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub seq: i64,
    /// The chain's hash before its first row.
    pub prev_hash: String,
    pub first_id: Option<i64>,
    pub last_id: Option<i64>,
    /// The hash its last hashed row carries: the next segment's `prev_hash`.
    pub last_hash: Option<String>,
    pub rows: i64,
    pub bytes: i64,
    /// The file's sha256, once sealed.
    pub sha256: Option<String>,
    /// The time of its newest row (`YYYY-MM-DD HH:MM:SS`, UTC), capped at when it was written.
    pub newest_at: Option<String>,
    pub sealed_at: Option<String>,
}

impl Segment {
    /// `000001.db`: the file's name in the trail's `trail/` directory.
    pub fn file_name(&self) -> String {
        file_name(self.seq)
    }

    pub fn is_sealed(&self) -> bool {
        self.sealed_at.is_some()
    }

    fn first(seq: i64, prev_hash: String) -> Self {
        Self {
            seq,
            prev_hash,
            first_id: None,
            last_id: None,
            last_hash: None,
            rows: 0,
            bytes: 0,
            sha256: None,
            newest_at: None,
            sealed_at: None,
        }
    }
}

/// The file name of segment `seq`.
pub fn file_name(seq: i64) -> String {
    format!("{seq:06}.db")
}

/// The sha256 of a file's bytes, in hex: what a sealed segment's record holds.
pub fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// What [`Store::split`] wrote.
#[derive(Debug)]
pub struct Split {
    /// The registry: the working copy without its `approval_history` rows.
    pub registry: PathBuf,
    /// The segment files written, in order: the open one (when it has rows) and any sealed by
    /// this split. Segments sealed before are never written again.
    pub segments: Vec<(Segment, PathBuf)>,
}

impl Store {
    /// The segments the registry records, by `seq`; none for a single-file trail.
    pub fn segments(&self) -> Result<Vec<Segment>, StoreError> {
        segments_of(&self.conn).map_err(|source| self.read_error(source))
    }

    /// Add the rows of segment `segment`, read from `file`, to this working copy's
    /// `approval_history`, as they are (ids, hashes). The file must hold the segment schema
    /// exactly, and what the registry recorded of it: its first row chained to `prev_hash`,
    /// its first and last ids, its count and its last hash.
    pub fn load_segment(&mut self, segment: &Segment, file: &Path) -> Result<(), StoreError> {
        let problem = |message: String| StoreError::Segment {
            path: file.to_path_buf(),
            name: segment.file_name(),
            message,
        };
        let read = |source| StoreError::Read {
            path: file.to_path_buf(),
            source,
        };
        // A sealed segment's bytes are what was sealed, or it is not that segment.
        if let Some(recorded) = &segment.sha256 {
            let bytes = std::fs::read(file).map_err(|source| StoreError::Io {
                path: file.to_path_buf(),
                source,
            })?;
            let found = sha256(&bytes);
            if found != *recorded {
                return Err(problem(format!(
                    "its sha256 is {}, the registry recorded {} when it was sealed",
                    &found[..12],
                    recorded.get(..12).unwrap_or(recorded)
                )));
            }
        }
        self.conn
            .execute(
                "ATTACH DATABASE ?1 AS segment",
                [super::trail::read_only_uri(file)],
            )
            .map_err(read)?;
        let loaded = (|| -> Result<(), StoreError> {
            if let Some(first) = super::schema::segment_problems(&self.conn, "segment")
                .map_err(read)?
                .into_iter()
                .next()
            {
                return Err(problem(first.to_string()));
            }
            let found: (i64, Option<i64>, Option<i64>) = self
                .conn
                .query_row(
                    "SELECT count(*), min(id), max(id) FROM segment.approval_history",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .map_err(read)?;
            let wanted = (segment.rows, segment.first_id, segment.last_id);
            if found != wanted {
                return Err(problem(format!(
                    "it holds {} rows ({}), the registry recorded {} ({})",
                    found.0,
                    id_range(found.1, found.2),
                    wanted.0,
                    id_range(wanted.1, wanted.2)
                )));
            }
            // Whether its first row chains to the segment before is the chain's to say:
            // `verify_chain` starts the copy from `prev_hash`, and a break the branch already
            // had is carried, not a reason to refuse the trail.
            let last_hash: Option<String> = self
                .conn
                .query_row(
                    "SELECT row_hash FROM segment.approval_history
                     WHERE row_hash IS NOT NULL ORDER BY id DESC LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .optional()
                .map_err(read)?;
            if segment.rows > 0 && last_hash != segment.last_hash {
                return Err(problem(format!(
                    "its last row's hash is {}, the registry recorded {}",
                    short_hash(last_hash.as_deref()),
                    short_hash(segment.last_hash.as_deref())
                )));
            }
            let columns = hashed_columns(&self.conn).map_err(read)?;
            let mut all = columns.clone();
            all.push("row_hash".to_owned());
            let list = column_list(&all);
            // Rows as they were written: one whose skill the seed deleted by hand keeps its
            // dangling id, as in a single file (foreign keys are for new writes).
            self.conn
                .pragma_update(None, "foreign_keys", false)
                .map_err(read)?;
            let inserted = self.conn.execute(
                &format!(
                    "INSERT INTO main.approval_history ({list})
                     SELECT {list} FROM segment.approval_history ORDER BY id"
                ),
                [],
            );
            self.conn
                .pragma_update(None, "foreign_keys", true)
                .map_err(read)?;
            if let Err(err) = inserted {
                // The likeliest cause named: a row recorded twice, here and in a segment read.
                let twice: Option<(i64, i64)> = self
                    .conn
                    .query_row(
                        "SELECT s.id, m.id FROM segment.approval_history s
                         JOIN main.approval_history m ON m.idempotency_key = s.idempotency_key
                         LIMIT 1",
                        [],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()
                    .map_err(read)?;
                return Err(problem(match twice {
                    Some((here, there)) => format!(
                        "its row {here} repeats the idempotency key of row {there}, read before it: the same decision was recorded twice"
                    ),
                    None => format!("its rows cannot join the working copy: {err}"),
                }));
            }
            Ok(())
        })();
        let detached = self
            .conn
            .execute("DETACH DATABASE segment", [])
            .map_err(read);
        loaded.and(detached.map(|_| ()))
    }

    /// Write this working copy out as a segmented trail in `dir`, a scratch directory of the
    /// caller's (its files are replaced, not updated in place): `registry.db` and
    /// `trail/NNNNNN.db` for each segment written. The rows past the last sealed segment go
    /// into the open one (the first, for a trail that had none); once it reaches `cap` bytes
    /// it is sealed and the rows after go into the next. The registry's `trail_segments` is
    /// updated here too, so the working copy knows what it now is.
    pub fn split(&mut self, dir: &Path, cap: u64) -> Result<Split, StoreError> {
        let cap = cap.clamp(MIN_SEGMENT_SIZE, MAX_SEGMENT_SIZE);
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Write {
                path: path.clone(),
                source,
            }
        };
        let trail_dir = dir.join("trail");
        std::fs::create_dir_all(&trail_dir).map_err(|source| StoreError::CreateDir {
            path: trail_dir.clone(),
            source,
        })?;
        let known = self.segments()?;
        let sealed_before = known.iter().rev().find(|s| s.is_sealed()).cloned();
        let mut current = match known.last() {
            // Rewritten from its first row: what it held, and this run's rows.
            Some(open) if !open.is_sealed() => Segment::first(open.seq, open.prev_hash.clone()),
            Some(sealed) => Segment::first(
                sealed.seq + 1,
                sealed
                    .last_hash
                    .clone()
                    .unwrap_or_else(|| sealed.prev_hash.clone()),
            ),
            None => Segment::first(1, GENESIS.to_owned()),
        };
        let after = sealed_before.as_ref().and_then(|s| s.last_id).unwrap_or(0);
        // The open segment is rewritten whole: a copy without its rows would drop them.
        if let Some(open) = known.last().filter(|s| !s.is_sealed() && s.rows > 0) {
            let held: i64 = self
                .conn
                .query_row(
                    "SELECT count(*) FROM main.approval_history WHERE id BETWEEN ?1 AND ?2",
                    params![open.first_id, open.last_id],
                    |r| r.get(0),
                )
                .map_err(|e| self.read_error(e))?;
            if held < open.rows {
                return Err(StoreError::Segment {
                    path: self.path.clone(),
                    name: open.file_name(),
                    message: format!(
                        "the working copy holds {held} of its {} rows: it was not loaded, and writing it again would drop them",
                        open.rows
                    ),
                });
            }
        }
        let columns = hashed_columns(&self.conn).map_err(|e| self.read_error(e))?;
        let mut all = columns.clone();
        all.push("row_hash".to_owned());
        let list = column_list(&all);
        let ids: Vec<(i64, Option<String>)> = self
            .conn
            .prepare("SELECT id, row_hash FROM main.approval_history WHERE id > ?1 ORDER BY id")
            .and_then(|mut stmt| {
                stmt.query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(|e| self.read_error(e))?;

        // The newest row time of the segment before the one being written.
        let mut floor: Option<String> = known
            .iter()
            .rev()
            .find(|s| s.seq < current.seq)
            .and_then(|s| s.newest_at.clone());
        let mut written: Vec<(Segment, PathBuf)> = Vec::new();
        let mut rows = ids.into_iter().peekable();
        loop {
            let path = trail_dir.join(current.file_name());
            if rows.peek().is_none() {
                // Nothing (more) to write: an open segment without rows has no file.
                break;
            }
            let werr = write_err(&path);
            let _ = std::fs::remove_file(&path);
            new_segment_file(&path).map_err(&werr)?;
            let uri = super::trail::read_only_uri(&path).replace("?mode=ro", "?mode=rw");
            self.conn
                .execute("ATTACH DATABASE ?1 AS segment", [uri])
                .map_err(&werr)?;
            let filled = (|| -> rusqlite::Result<bool> {
                self.conn
                    .execute_batch("PRAGMA segment.synchronous = OFF; BEGIN IMMEDIATE;")?;
                let page_size: i64 = self
                    .conn
                    .query_row("PRAGMA segment.page_size", [], |r| r.get(0))?;
                let cap_pages = i64::try_from(cap).unwrap_or(i64::MAX) / page_size.max(1);
                let mut insert = self.conn.prepare(&format!(
                    "INSERT INTO segment.approval_history ({list})
                     SELECT {list} FROM main.approval_history WHERE id = ?1"
                ))?;
                let mut full = false;
                for (id, hash) in rows.by_ref() {
                    insert.execute([id])?;
                    current.first_id.get_or_insert(id);
                    current.last_id = Some(id);
                    current.rows += 1;
                    if let Some(hash) = hash {
                        current.last_hash = Some(hash);
                    }
                    let pages: i64 = self
                        .conn
                        .query_row("PRAGMA segment.page_count", [], |r| r.get(0))?;
                    if pages >= cap_pages {
                        full = true;
                        break;
                    }
                }
                drop(insert);
                self.conn.execute_batch("COMMIT")?;
                Ok(full)
            })();
            if filled.is_err() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            self.conn
                .execute("DETACH DATABASE segment", [])
                .map_err(&werr)?;
            let full = filled.map_err(&werr)?;
            let bytes = std::fs::read(&path).map_err(|source| StoreError::Io {
                path: path.clone(),
                source,
            })?;
            current.bytes = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
            // Never older than the segment before's: rows may carry any time a results
            // document gave them, and a run reading back by this time stops at the first
            // segment older than what it looks for, so the times must only rise.
            current.newest_at = self
                .conn
                .query_row(
                    "SELECT max(min(max(timestamp), datetime('now')), COALESCE(?3, ''))
                     FROM main.approval_history WHERE id BETWEEN ?1 AND ?2",
                    params![current.first_id, current.last_id, floor],
                    |r| r.get(0),
                )
                .map_err(|e| self.read_error(e))?;
            floor.clone_from(&current.newest_at);
            if full {
                current.sha256 = Some(sha256(&bytes));
                current.sealed_at = Some(
                    self.conn
                        .query_row("SELECT datetime('now')", [], |r| r.get(0))
                        .map_err(|e| self.read_error(e))?,
                );
                let next = Segment::first(
                    current.seq + 1,
                    current
                        .last_hash
                        .clone()
                        .unwrap_or_else(|| current.prev_hash.clone()),
                );
                written.push((std::mem::replace(&mut current, next), path));
            } else {
                written.push((current.clone(), path));
                break;
            }
        }
        // A segment sealed by the last row leaves a new, empty open segment to record.
        let mut records: Vec<Segment> = written.iter().map(|(s, _)| s.clone()).collect();
        if records.last().is_none_or(Segment::is_sealed) {
            records.push(current.clone());
        }
        self.record_segments(&records)?;

        let registry = dir.join("registry.db");
        let _ = std::fs::remove_file(&registry);
        let rerr = write_err(&registry);
        self.conn
            .execute("VACUUM INTO ?1", [registry.to_string_lossy().into_owned()])
            .map_err(&rerr)?;
        {
            let conn = rusqlite::Connection::open(&registry).map_err(&rerr)?;
            // Small pages: every table and index takes one at least, and most hold a few
            // rows (16 KiB pages would make an almost empty registry 400 KB).
            conn.execute_batch(
                "PRAGMA foreign_keys = OFF; DELETE FROM approval_history;
                 PRAGMA page_size = 4096; VACUUM;",
            )
            .map_err(&rerr)?;
        }
        Ok(Split {
            registry,
            segments: written,
        })
    }

    /// Replace the records of the segments from the first of `records` on.
    fn record_segments(&mut self, records: &[Segment]) -> Result<(), StoreError> {
        let Some(first) = records.first() else {
            return Ok(());
        };
        let path = self.path.clone();
        let err = |source| StoreError::Write {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM trail_segments WHERE seq >= ?1", [first.seq])
            .map_err(err)?;
        for s in records {
            tx.execute(
                "INSERT INTO trail_segments
                    (seq, prev_hash, first_id, last_id, last_hash, rows, bytes, sha256,
                     newest_at, sealed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    s.seq,
                    s.prev_hash,
                    s.first_id,
                    s.last_id,
                    s.last_hash,
                    s.rows,
                    s.bytes,
                    s.sha256,
                    s.newest_at,
                    s.sealed_at
                ],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// How many rows `approval_history` of this file holds (none, in a registry).
    pub fn history_rows(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM approval_history", [], |r| r.get(0))
            .map_err(|e| self.read_error(e))
    }
}

/// A new, empty segment file at `path`: the segment schema, 16 KiB pages, no journal.
fn new_segment_file(path: &Path) -> rusqlite::Result<()> {
    let conn = rusqlite::Connection::open(path)?;
    conn.pragma_update(None, "page_size", super::open::PAGE_SIZE)?;
    conn.execute_batch("PRAGMA journal_mode = DELETE;")?;
    for (_, sql) in SEGMENT_MIGRATIONS {
        conn.execute_batch(sql)?;
    }
    conn.pragma_update(None, "user_version", SEGMENT_VERSION)
}

/// The segments recorded in the database `conn` holds (none before schema version 5).
pub(super) fn segments_of(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<Segment>> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM main.sqlite_master
                        WHERE type = 'table' AND name = 'trail_segments')",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT seq, prev_hash, first_id, last_id, last_hash, rows, bytes, sha256, newest_at,
                sealed_at
         FROM main.trail_segments ORDER BY seq",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Segment {
            seq: r.get(0)?,
            prev_hash: r.get(1)?,
            first_id: r.get(2)?,
            last_id: r.get(3)?,
            last_hash: r.get(4)?,
            rows: r.get(5)?,
            bytes: r.get(6)?,
            sha256: r.get(7)?,
            newest_at: r.get(8)?,
            sealed_at: r.get(9)?,
        })
    })?;
    rows.collect()
}

fn id_range(first: Option<i64>, last: Option<i64>) -> String {
    match (first, last) {
        (Some(a), Some(b)) => format!("ids {a} to {b}"),
        _ => "no ids".to_owned(),
    }
}

fn short_hash(hash: Option<&str>) -> String {
    hash.map_or_else(
        || "none".to_owned(),
        |h| h.get(..12).unwrap_or(h).to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::GateRun;

    fn run(n: usize) -> GateRun {
        crate::store::example_run(n)
    }

    /// A working copy rebuilt from `dir`'s registry and the segments it records.
    fn assemble(dir: &Path, into: &Path) -> Store {
        std::fs::copy(dir.join("registry.db"), into).expect("registry");
        let mut store = Store::open(into).expect("open");
        assert_eq!(store.history_rows().expect("rows"), 0);
        for segment in store.segments().expect("segments") {
            if segment.rows > 0 {
                let file = dir.join("trail").join(segment.file_name());
                store.load_segment(&segment, &file).expect("load");
            }
        }
        store
    }

    #[test]
    fn a_trail_split_into_segments_reassembles_with_its_chain_across_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("work.db")).expect("open");
        for n in 0..40 {
            store.record(&run(n)).expect("record");
        }
        let whole = store.verify_chain().expect("verify");
        assert_eq!((whole.rows, whole.breaks.len()), (200, 0));
        let out = dir.path().join("out");
        let split = store.split(&out, MIN_SEGMENT_SIZE).expect("split");
        let segments = store.segments().expect("segments");
        assert!(segments.len() >= 3, "{segments:?}");
        // Every segment but the last is sealed, each chained to the one before.
        for pair in segments.windows(2) {
            assert!(pair[0].is_sealed());
            assert_eq!(Some(&pair[1].prev_hash), pair[0].last_hash.as_ref());
            assert_eq!(pair[1].first_id, pair[0].last_id.map(|id| id + 1));
        }
        assert_eq!(segments[0].prev_hash, GENESIS);
        assert_eq!(segments.iter().map(|s| s.rows).sum::<i64>(), 200);
        for (segment, path) in &split.segments {
            let bytes = std::fs::read(path).expect("segment");
            // Past the cap by one row at most.
            assert!(
                bytes.len() as u64 <= MIN_SEGMENT_SIZE + 16_384,
                "{}",
                bytes.len()
            );
            if segment.is_sealed() {
                assert_eq!(segment.sha256.as_deref(), Some(sha256(&bytes).as_str()));
            }
        }
        let again = assemble(&out, &dir.path().join("again.db"));
        let report = again.verify_chain().expect("verify");
        assert_eq!(report, whole);

        // A working copy of the newest segment alone chains on from the sealed ones.
        let registry = dir.path().join("newest.db");
        std::fs::copy(out.join("registry.db"), &registry).expect("copy");
        let mut newest = Store::open(&registry).expect("open");
        let open = newest.segments().expect("segments").pop().expect("open");
        assert!(!open.is_sealed());
        if open.rows > 0 {
            newest
                .load_segment(&open, &out.join("trail").join(open.file_name()))
                .expect("load");
        }
        assert!(newest.verify_chain().expect("verify").is_intact());
        newest.record(&run(99)).expect("record");
        let out2 = dir.path().join("out2");
        let split2 = newest.split(&out2, MIN_SEGMENT_SIZE).expect("split");
        // Only the open segment (and any it sealed) is written again.
        assert!(split2.segments.iter().all(|(s, _)| s.seq >= open.seq));
        for (segment, path) in &split2.segments {
            std::fs::copy(path, out.join("trail").join(segment.file_name())).expect("copy");
        }
        std::fs::copy(&split2.registry, out.join("registry.db")).expect("registry");
        let all = assemble(&out, &dir.path().join("all.db"));
        let report = all.verify_chain().expect("verify");
        assert_eq!((report.rows, report.breaks.len()), (205, 0));
    }

    #[test]
    fn a_segment_has_the_registrys_approval_history_columns_in_order() {
        let columns = |conn: &rusqlite::Connection| -> Vec<(String, String, i64)> {
            conn.prepare("SELECT name, type, hidden FROM pragma_table_xinfo('approval_history')")
                .and_then(|mut s| {
                    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                        .collect()
                })
                .expect("columns")
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let registry = Store::open(&dir.path().join("registry.db")).expect("open");
        let segment = dir.path().join("000001.db");
        new_segment_file(&segment).expect("segment");
        let segment = rusqlite::Connection::open(&segment).expect("open");
        let wanted = columns(registry.connection());
        assert_eq!(wanted.len(), 30);
        assert_eq!(columns(&segment), wanted);
    }

    #[test]
    fn segment_times_only_rise_whatever_time_rows_carry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("work.db")).expect("open");
        // Rows of runs that finished now, then of runs a document dates a year back.
        for (n, finished) in [(0, "now"), (1, "now"), (2, "old"), (3, "old"), (4, "old")]
            .into_iter()
            .chain((5..40).map(|n| (n, "old")))
        {
            let mut run = run(n);
            run.run.finished_at = if finished == "now" {
                "2026-12-01T10:00:00Z".to_owned()
            } else {
                "2025-11-01T10:00:00Z".to_owned()
            };
            store.record(&run).expect("record");
        }
        store
            .split(&dir.path().join("out"), MIN_SEGMENT_SIZE)
            .expect("split");
        let segments = store.segments().expect("segments");
        assert!(segments.len() >= 3, "{segments:?}");
        let times: Vec<&str> = segments
            .iter()
            .filter_map(|s| s.newest_at.as_deref())
            .collect();
        assert_eq!(
            times.len(),
            segments.len() - usize::from(segments.last().is_some_and(|s| s.rows == 0))
        );
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        // The first holds the rows of now; every later one is dated no earlier.
        assert_eq!(times[0], "2026-12-01 10:00:00");
        assert!(
            times.iter().all(|t| *t == "2026-12-01 10:00:00"),
            "{times:?}"
        );
    }

    #[test]
    fn a_segment_that_is_not_what_the_registry_recorded_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("work.db")).expect("open");
        for n in 0..20 {
            store.record(&run(n)).expect("record");
        }
        let out = dir.path().join("out");
        store.split(&out, MIN_SEGMENT_SIZE).expect("split");
        let segments = store.segments().expect("segments");
        std::fs::copy(out.join("registry.db"), dir.path().join("r.db")).expect("copy");
        let mut fresh = Store::open(&dir.path().join("r.db")).expect("open");
        // The second segment's file where the first should be.
        let err = fresh
            .load_segment(
                &segments[0],
                &out.join("trail").join(segments[1].file_name()),
            )
            .expect_err("refused");
        assert!(
            err.to_string()
                .starts_with("audit trail segment 000001.db ("),
            "{err}"
        );
        assert!(
            err.to_string().contains("the registry recorded ")
                && err.to_string().contains(" when it was sealed"),
            "its sha256 gives it away: {err}"
        );
        // The open segment has no sha256 yet: its record is what it is held to.
        let open = segments.last().expect("open");
        assert!(!open.is_sealed());
        let file = out.join("trail").join(open.file_name());
        let mut more = open.clone();
        more.rows += 1;
        let err = fresh.load_segment(&more, &file).expect_err("refused");
        assert!(
            err.to_string().contains(&format!(
                "it holds {} rows (ids {} to {}), the registry recorded {}",
                open.rows,
                open.first_id.expect("first"),
                open.last_id.expect("last"),
                open.rows + 1
            )),
            "{err}"
        );
        // A view planted in it.
        rusqlite::Connection::open(&file)
            .and_then(|c| c.execute_batch("CREATE VIEW v AS SELECT 1;"))
            .expect("plant");
        let err = fresh.load_segment(open, &file).expect_err("refused");
        assert!(err.to_string().contains("unexpected view `v`"), "{err}");
        assert_eq!(fresh.history_rows().expect("rows"), 0, "nothing loaded");
    }
}
