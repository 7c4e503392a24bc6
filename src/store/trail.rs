//! A segmented trail on disk, checked against what its registry records: every segment's file
//! is in `trail/`, a sealed one holds the bytes recorded for it, each file's first row chains to
//! the file before it, and `trail/` holds nothing else. The read view, `audit export` and
//! `audit verify` all start here.

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::chain::{GENESIS, column_list, hashed_columns};
use super::segments::{Segment, segments_of, sha256};
use super::verify::ChainReport;
use super::{Store, StoreError};

/// The directory of a registry's segment files: `trail/` beside it.
pub fn trail_dir(registry: &Path) -> PathBuf {
    registry
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join("trail")
}

/// The URI that ATTACHes `path` read-only. Every byte but the unreserved ones is
/// percent-encoded (`%`, `?` and `#` above all, which would end or change the path), and an
/// absolute path gets an empty authority, so `//x` is not read as a host.
pub(super) fn read_only_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let mut uri = String::from(if path.is_absolute() {
        "file://"
    } else {
        "file:"
    });
    for byte in bytes {
        if byte.is_ascii_alphanumeric() || b"/._-~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push_str("?mode=ro");
    uri
}

/// The file of `segment` in `dir`, checked as far as its bytes go: it must be there when the
/// segment holds rows, and a sealed one must hash to the sha256 the registry recorded. `None`
/// for an open segment without rows (it has no file).
pub(super) fn checked_file(segment: &Segment, dir: &Path) -> Result<Option<PathBuf>, StoreError> {
    let path = dir.join(segment.file_name());
    let problem = |message: String| StoreError::Segment {
        path: path.clone(),
        name: segment.file_name(),
        message,
    };
    if segment.rows == 0 && !segment.is_sealed() {
        return Ok(None);
    }
    if !path.is_file() {
        return Err(problem("it is missing".to_owned()));
    }
    if let Some(recorded) = &segment.sha256 {
        let bytes = std::fs::read(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        let found = sha256(&bytes);
        if &found != recorded {
            return Err(problem(format!(
                "it was replaced: its sha256 is {}, the registry recorded {}",
                short(&found),
                short(recorded)
            )));
        }
    }
    Ok(Some(path))
}

/// What is wrong with the segment attached to `conn` as `schema` against its record: its
/// schema first (a view or trigger there is refused before a row is read), then its rows (how
/// many, first and last ids) and its last row's hash.
pub(super) fn content_problem(
    conn: &Connection,
    schema: &str,
    segment: &Segment,
) -> rusqlite::Result<Option<String>> {
    if let Some(first) = super::schema::segment_problems(conn, schema)?
        .into_iter()
        .next()
    {
        return Ok(Some(format!("its schema: {first}")));
    }
    let found: (i64, Option<i64>, Option<i64>) = conn.query_row(
        &format!("SELECT count(*), min(id), max(id) FROM \"{schema}\".approval_history"),
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let wanted = (segment.rows, segment.first_id, segment.last_id);
    if found != wanted {
        return Ok(Some(format!(
            "it holds {} rows ({}), the registry recorded {} ({})",
            found.0,
            ids(found.1, found.2),
            wanted.0,
            ids(wanted.1, wanted.2)
        )));
    }
    let last = last_hash(conn, schema)?;
    if segment.rows > 0 && last != segment.last_hash {
        return Ok(Some(format!(
            "its last row's hash is {}, the registry recorded {}",
            last.as_deref().map_or("none", short),
            segment.last_hash.as_deref().map_or("none", short)
        )));
    }
    Ok(None)
}

fn last_hash(conn: &Connection, schema: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        &format!(
            "SELECT row_hash FROM \"{schema}\".approval_history
             WHERE row_hash IS NOT NULL ORDER BY id DESC LIMIT 1"
        ),
        [],
        |r| r.get(0),
    )
    .optional()
}

/// One way the segment files are not what the registry records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SegmentProblem {
    /// A segment that holds rows has no file.
    Missing { file: String },
    /// A sealed segment's bytes are not the ones recorded, nor any other segment's.
    Replaced {
        file: String,
        sha256: String,
        recorded: String,
    },
    /// A sealed segment's file holds the bytes recorded for another segment: files swapped.
    Reordered { file: String, holds: String },
    /// Its first hashed row is not chained to the last row of the segment before it.
    NotChained {
        file: String,
        first_id: Option<i64>,
        /// The segment before it; none for the first.
        after: Option<String>,
    },
    /// Its schema, row count, ids or last hash are not the ones recorded.
    Differs { file: String, message: String },
    /// A file in `trail/` the registry does not list.
    Unlisted { file: String },
    /// The registry holds rows of its own, which only a single-file trail does.
    RegistryRows { rows: i64 },
}

impl SegmentProblem {
    /// A word or two for a list of segments.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Missing { .. } => "missing",
            Self::Replaced { .. } => "replaced",
            Self::Reordered { .. } => "re-ordered",
            Self::NotChained { .. } => "does not chain to the segment before",
            Self::Differs { .. } => "not what the registry recorded",
            Self::Unlisted { .. } => "not listed",
            Self::RegistryRows { .. } => "rows in the registry",
        }
    }
}

impl fmt::Display for SegmentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { file } => write!(f, "segment {file} is missing"),
            Self::Replaced {
                file,
                sha256,
                recorded,
            } => write!(
                f,
                "segment {file} was replaced: its sha256 is {}, the registry recorded {}",
                short(sha256),
                short(recorded)
            ),
            Self::Reordered { file, holds } => write!(
                f,
                "segment {file} holds the bytes of segment {holds}: the segments were re-ordered"
            ),
            Self::NotChained {
                file,
                first_id,
                after,
            } => {
                write!(f, "segment {file}: its first row")?;
                if let Some(id) = first_id {
                    write!(f, " ({id})")?;
                }
                match after {
                    Some(before) => write!(
                        f,
                        " does not chain to the last row of segment {before}, the one before it"
                    ),
                    None => write!(f, " does not start the chain"),
                }
            }
            Self::Differs { file, message } => write!(
                f,
                "segment {file} is not what the registry recorded: {message}"
            ),
            Self::Unlisted { file } => write!(
                f,
                "trail/{file} is not a segment the registry lists (added by hand)"
            ),
            Self::RegistryRows { rows } => write!(
                f,
                "the registry holds {rows} approval_history {} of its own: in a segmented \
                 trail every row is in a segment",
                if *rows == 1 { "row" } else { "rows" }
            ),
        }
    }
}

/// A segment as `audit verify` found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentStatus {
    pub segment: Segment,
    /// What is wrong with it, the gravest first; none when it is what the registry records.
    pub problem: Option<SegmentProblem>,
}

/// The outcome of walking a segmented trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailReport {
    /// The segments the registry records, in order.
    pub segments: Vec<SegmentStatus>,
    /// Every problem with the files: each segment's, then files not listed, then rows the
    /// registry holds itself.
    pub problems: Vec<SegmentProblem>,
    /// The chain over the rows of every segment, walked from [`GENESIS`].
    pub chain: ChainReport,
    /// The file of the segment each of `chain.breaks` is in (by index).
    pub break_segments: Vec<Option<String>>,
}

impl TrailReport {
    pub fn is_intact(&self) -> bool {
        self.problems.is_empty() && self.chain.is_intact()
    }
}

/// The rows of one segment file (none: the registry's own), as loaded into the scratch copy.
struct Loaded {
    file: Option<String>,
    first: i64,
    last: i64,
}

impl Store {
    /// Walk the segmented trail this registry records, in order: each file there, sealed ones
    /// with the recorded bytes (another segment's bytes are named as re-ordered), each first
    /// row chained to the file before, nothing unlisted in `trail/`. Then the rows of every
    /// file are loaded, as they are, into a scratch copy of the registry (a 0600 file in a
    /// private temporary directory, removed after) and the chain is walked over all of them,
    /// from [`GENESIS`]. The registry itself is only read.
    pub fn verify_trail(&self) -> Result<TrailReport, StoreError> {
        let read = |source| self.read_error(source);
        let segments = segments_of(&self.conn).map_err(read)?;
        let dir = trail_dir(&self.path);
        let scratch_dir = tempfile::Builder::new()
            .prefix("skillgate-verify-")
            .tempdir()
            .map_err(|source| StoreError::CreateDir {
                path: std::env::temp_dir(),
                source,
            })?;
        let scratch_path = scratch_dir.path().join("trail.db");
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io {
                path: path.clone(),
                source,
            }
        };
        private_file(&scratch_path).map_err(io(&scratch_path))?;
        self.conn
            .execute(
                "VACUUM main INTO ?1",
                [scratch_path.to_string_lossy().into_owned()],
            )
            .map_err(read)?;
        let conn = Connection::open(&scratch_path).map_err(read)?;
        let (registry_rows, registry_ids) = scratch_setup(&conn).map_err(read)?;

        let mut walk = Walk {
            conn: &conn,
            segments: &segments,
            dir: &dir,
            // Rows the registry holds itself stay in the walk, in no segment: unhashed or out
            // of place, they are named as such.
            loaded: registry_ids
                .map(|(first, last)| Loaded {
                    file: None,
                    first,
                    last,
                })
                .into_iter()
                .collect(),
            before: None,
        };
        let mut statuses = Vec::with_capacity(segments.len());
        for segment in &segments {
            let problem = walk.step(segment).map_err(read)?;
            statuses.push(SegmentStatus {
                segment: segment.clone(),
                problem,
            });
        }
        let loaded = walk.loaded;
        let mut problems: Vec<SegmentProblem> =
            statuses.iter().filter_map(|s| s.problem.clone()).collect();
        problems.extend(unlisted(&dir, &segments).map_err(io(&dir))?);
        if registry_rows > 0 {
            problems.push(SegmentProblem::RegistryRows {
                rows: registry_rows,
            });
        }

        let scratch = Store {
            conn,
            path: self.path.clone(),
        };
        let chain = scratch.verify_chain()?;
        drop(scratch);
        let break_segments = chain
            .breaks
            .iter()
            .map(|b| locate(b.id, &loaded, &segments))
            .collect();
        Ok(TrailReport {
            segments: statuses,
            problems,
            chain,
            break_segments,
        })
    }
}

/// The walk over the segment files, in order, loading each into the scratch copy `conn`.
struct Walk<'a> {
    conn: &'a Connection,
    segments: &'a [Segment],
    dir: &'a Path,
    /// The rows each file added.
    loaded: Vec<Loaded>,
    /// The segment before and its last hash: as its file holds it when it is what the
    /// registry recorded, else as the registry recorded it.
    before: Option<(String, Option<String>)>,
}

impl Walk<'_> {
    /// Check one segment's file and load its rows; its gravest problem.
    fn step(&mut self, segment: &Segment) -> rusqlite::Result<Option<SegmentProblem>> {
        let file = segment.file_name();
        let (problem, last) = self.read(segment, &file)?;
        // A file that is not what was recorded says nothing of where the next one starts: its
        // own problem is the finding, and the next is held to the recorded end.
        let end = match problem {
            None => last.or_else(|| segment.last_hash.clone()),
            Some(_) => segment.last_hash.clone(),
        };
        self.before = Some((file, end));
        Ok(problem)
    }

    fn read(
        &mut self,
        segment: &Segment,
        file: &str,
    ) -> rusqlite::Result<(Option<SegmentProblem>, Option<String>)> {
        let path = self.dir.join(file);
        if !path.is_file() {
            let missing =
                (segment.rows > 0 || segment.is_sealed()).then(|| SegmentProblem::Missing {
                    file: file.to_owned(),
                });
            return Ok((missing, None));
        }
        let differs = |message: String| SegmentProblem::Differs {
            file: file.to_owned(),
            message,
        };
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) => return Ok((Some(differs(format!("it cannot be read: {err}"))), None)),
        };
        let mut problem = None;
        if let Some(recorded) = &segment.sha256 {
            let found = sha256(&bytes);
            if &found != recorded {
                problem = Some(
                    match self
                        .segments
                        .iter()
                        .find(|o| o.seq != segment.seq && o.sha256.as_ref() == Some(&found))
                    {
                        Some(other) => SegmentProblem::Reordered {
                            file: file.to_owned(),
                            holds: other.file_name(),
                        },
                        None => SegmentProblem::Replaced {
                            file: file.to_owned(),
                            sha256: found,
                            recorded: recorded.clone(),
                        },
                    },
                );
            }
        }
        if let Err(err) = self
            .conn
            .execute("ATTACH DATABASE ?1 AS segment", [read_only_uri(&path)])
        {
            let unreadable = differs(format!("it cannot be opened: {err}"));
            return Ok((problem.or(Some(unreadable)), None));
        }
        let expected = match &self.before {
            Some((_, hash)) => hash.clone(),
            None => Some(GENESIS.to_owned()),
        };
        let before = self.before.as_ref().map(|(f, _)| f.clone());
        let walked = load_rows(self.conn, segment, expected, file, before);
        self.conn.execute("DETACH DATABASE segment", [])?;
        let (found, last, range) = match walked {
            Ok(walked) => walked,
            // Not a database, or one SQLite cannot read: a problem of the file.
            Err(err) => (
                Some(differs(format!("it cannot be read: {err}"))),
                None,
                None,
            ),
        };
        if let Some((first, last)) = range {
            self.loaded.push(Loaded {
                file: Some(file.to_owned()),
                first,
                last,
            });
        }
        Ok((problem.or(found), last))
    }
}

/// The walk's reading of the segment attached as `segment`: its problem, its last hash, the
/// ids it added to the scratch copy. Rows are loaded even when they are not what the registry
/// recorded, so that the chain walk names the rows themselves.
#[expect(
    clippy::type_complexity,
    reason = "a private triple, named at its one caller"
)]
fn load_rows(
    conn: &Connection,
    segment: &Segment,
    expected_prev: Option<String>,
    file: &str,
    before: Option<String>,
) -> rusqlite::Result<(Option<SegmentProblem>, Option<String>, Option<(i64, i64)>)> {
    let differs = |message: String| SegmentProblem::Differs {
        file: file.to_owned(),
        message,
    };
    if let Some(first) = super::schema::segment_problems(conn, "segment")?
        .into_iter()
        .next()
    {
        // A view or trigger there is never read through.
        return Ok((Some(differs(format!("its schema: {first}"))), None, None));
    }
    let mut problem = None;
    // The first hashed row: one inserted by hand (no hash, no link) is the chain walk's
    // finding, and the rows after it chain past it.
    let first: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT id, prev_hash FROM segment.approval_history
             WHERE row_hash IS NOT NULL ORDER BY id LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if let Some((id, prev)) = &first
        && (prev != &expected_prev || prev.as_deref() != Some(segment.prev_hash.as_str()))
    {
        problem = Some(SegmentProblem::NotChained {
            file: file.to_owned(),
            first_id: Some(*id),
            after: before,
        });
    }
    if problem.is_none() {
        problem = content_problem(conn, "segment", segment)?.map(differs);
    }
    let last = last_hash(conn, "segment")?;
    let columns = hashed_columns(conn)?;
    let mut all = columns;
    all.push("row_hash".to_owned());
    let list = column_list(&all);
    let held: i64 = conn.query_row("SELECT count(*) FROM segment.approval_history", [], |r| {
        r.get(0)
    })?;
    let added = conn.execute(
        &format!(
            "INSERT OR IGNORE INTO main.approval_history ({list})
             SELECT {list} FROM segment.approval_history ORDER BY id"
        ),
        [],
    )?;
    let added = i64::try_from(added).unwrap_or(i64::MAX);
    if added < held && problem.is_none() {
        problem = Some(differs(format!(
            "{} of its {held} rows carry an id or an idempotency key another segment holds",
            held - added
        )));
    }
    let range: Option<(i64, i64)> = conn.query_row(
        "SELECT min(id), max(id) FROM segment.approval_history",
        [],
        |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
    )?;
    Ok((problem, last, range))
}

/// Make the scratch copy a working copy of its own: no trigger of the registry's fires on the
/// rows loaded (one is a schema problem, reported from the registry), and its segment records
/// go (the walk starts at GENESIS over every file). The rows the registry holds itself (none,
/// in a trail as skillgate writes it), and their ids.
fn scratch_setup(conn: &Connection) -> rusqlite::Result<(i64, Option<(i64, i64)>)> {
    let triggers: Vec<String> = conn
        .prepare("SELECT name FROM main.sqlite_master WHERE type = 'trigger'")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for trigger in triggers {
        conn.execute_batch(&format!(
            "DROP TRIGGER main.\"{}\"",
            trigger.replace('"', "\"\"")
        ))?;
    }
    conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF;")?;
    let held = conn.query_row(
        "SELECT count(*), min(id), max(id) FROM main.approval_history",
        [],
        |r| {
            Ok((
                r.get(0)?,
                r.get::<_, Option<i64>>(1)?.zip(r.get::<_, Option<i64>>(2)?),
            ))
        },
    )?;
    conn.execute_batch("DELETE FROM main.trail_segments;")?;
    Ok(held)
}

/// Every entry of `dir` that is not the file of a recorded segment, by name.
/// The files in the `trail/` directory beside a database that records no segment: a single
/// file has none, and a registry whose records were emptied would hide every row in them.
pub fn stray_files(db: &Path) -> Result<Vec<SegmentProblem>, StoreError> {
    let dir = trail_dir(db);
    unlisted(&dir, &[]).map_err(|source| StoreError::Io { path: dir, source })
}

fn unlisted(dir: &Path, segments: &[Segment]) -> std::io::Result<Vec<SegmentProblem>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut names = Vec::new();
    for entry in entries {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !segments.iter().any(|s| s.file_name() == name) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names
        .into_iter()
        .map(|file| SegmentProblem::Unlisted { file })
        .collect())
}

/// The segment file a row id is in: the file it was loaded from (none for the registry's own
/// rows), else the segment whose recorded ids span it (a row missing from the end of one),
/// else the last.
fn locate(id: i64, loaded: &[Loaded], segments: &[Segment]) -> Option<String> {
    if let Some(held) = loaded.iter().find(|l| (l.first..=l.last).contains(&id)) {
        return held.file.clone();
    }
    segments
        .iter()
        .find(|s| matches!((s.first_id, s.last_id), (Some(a), Some(b)) if (a..=b).contains(&id)))
        .or_else(|| segments.last())
        .map(Segment::file_name)
}

/// A new, empty file only its owner can read.
fn private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).map(drop)
}

fn ids(first: Option<i64>, last: Option<i64>) -> String {
    match (first, last) {
        (Some(a), Some(b)) => format!("ids {a} to {b}"),
        _ => "no ids".to_owned(),
    }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::GateRun;
    use crate::store::{BreakKind, MIN_SEGMENT_SIZE};

    fn run(n: usize) -> GateRun {
        crate::store::example_run(n)
    }

    /// A working copy at `path` with `runs` runs recorded.
    fn recorded(path: &Path, runs: std::ops::Range<usize>) -> Store {
        let mut store = Store::open(path).expect("open");
        for n in runs {
            store.record(&run(n)).expect("record");
        }
        store
    }

    #[test]
    fn a_row_inserted_by_hand_that_starts_a_segment_is_the_chains_finding_not_the_segments() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Where the open segment starts when 12 runs are split.
        let mut probe = recorded(&dir.path().join("probe.db"), 0..12);
        probe
            .split(&dir.path().join("probe"), MIN_SEGMENT_SIZE)
            .expect("split");
        let open = probe.segments().expect("segments").pop().expect("open");
        let start = open.first_id.expect("rows");
        // The same rows up to there, then the seed's own INSERT, then more runs.
        let mut store = recorded(&dir.path().join("work.db"), 0..12);
        store
            .conn
            .execute_batch(&format!(
                "DELETE FROM approval_history WHERE id >= {start};
                 UPDATE sqlite_sequence SET seq = {start} - 1 WHERE name = 'approval_history';
                 INSERT INTO approval_history (skill_id, version, approval_level, decision)
                 VALUES (1, '1.0.0', 'auto', 'approved');"
            ))
            .expect("hand row");
        store.record(&run(99)).expect("record");
        let split = store
            .split(&dir.path().join("out"), MIN_SEGMENT_SIZE)
            .expect("split");
        let segment = store
            .segments()
            .expect("segments")
            .into_iter()
            .find(|s| s.first_id == Some(start))
            .expect("a segment starts with the hand row");
        let registry = Store::open_read_only(&split.registry).expect("registry");
        let report = registry.verify_trail().expect("walk");
        assert_eq!(report.problems, vec![]);
        assert_eq!(
            report
                .chain
                .breaks
                .iter()
                .map(|b| (b.id, b.kind.clone()))
                .collect::<Vec<_>>(),
            vec![(start, BreakKind::Unhashed)]
        );
        assert_eq!(report.break_segments, vec![Some(segment.file_name())]);
    }

    #[test]
    fn a_uri_escapes_what_would_end_or_change_the_path() {
        assert_eq!(
            read_only_uri(Path::new("/tmp/a b/50%?#x.db")),
            "file:///tmp/a%20b/50%25%3F%23x.db?mode=ro"
        );
        assert_eq!(
            read_only_uri(Path::new("trail/000001.db")),
            "file:trail/000001.db?mode=ro"
        );
        // Two leading slashes are still a path, not a host.
        assert!(read_only_uri(Path::new("//srv/x.db")).starts_with("file:////srv/"));
    }

    #[test]
    fn the_trail_is_beside_the_registry() {
        assert_eq!(
            trail_dir(Path::new("/r/.skillgate/registry.db")),
            Path::new("/r/.skillgate/trail")
        );
        assert_eq!(trail_dir(Path::new("registry.db")), Path::new("trail"));
    }
}
