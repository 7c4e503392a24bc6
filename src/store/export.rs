//! `audit export`: an audit trail, segmented or not, written out as one ordinary database with
//! every row in its own `approval_history`, the seed's schema at the latest version.

use std::path::{Path, PathBuf};

use super::trail::{checked_file, trail_dir};
use super::{Store, StoreError};

/// What [`export`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub path: PathBuf,
    /// The rows of `approval_history` it holds.
    pub rows: i64,
    /// The segment files whose rows it holds; 0 for a single-file trail.
    pub segments: usize,
    pub bytes: u64,
}

/// Write the trail whose registry (or single file) is `source` to `out`, which must not exist:
/// the registry's tables, every segment's rows as they are (ids, hashes), migrated to the
/// latest schema, `trail_segments` emptied (the file is a single-file trail now, its chain
/// starting at GENESIS), checkpointed and integrity-checked. It is written beside `out` and
/// linked into place only when complete, never over a file that appeared meanwhile: `out`
/// either does not exist or is whole. The source is only read; each sealed segment must hold
/// the bytes recorded for it and each segment the rows recorded.
pub fn export(source: &Path, out: &Path) -> Result<Exported, StoreError> {
    let registry = Store::open_read_only(source)?;
    registry.check_schema()?;
    let segments = registry.segments()?;
    if !segments.is_empty() {
        let own = registry.history_rows()?;
        if own > 0 {
            return Err(StoreError::Trail {
                path: source.to_path_buf(),
                message: format!(
                    "it records {} segments but holds {own} approval_history {} of its own",
                    segments.len(),
                    if own == 1 { "row" } else { "rows" }
                ),
            });
        }
    }
    let dir = trail_dir(source);
    if segments.is_empty()
        && let Some(stray) = super::trail::stray_files(source)?.first()
    {
        return Err(StoreError::Trail {
            path: source.to_path_buf(),
            message: format!(
                "it records no segment, but {stray}: its rows would be left out; nothing was written"
            ),
        });
    }
    let mut files = Vec::new();
    for segment in &segments {
        if let Some(file) = checked_file(segment, &dir)? {
            files.push((segment, file));
        }
    }

    let io = |source| StoreError::Io {
        path: out.to_path_buf(),
        source,
    };
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let name = out
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    let partial = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .tempfile_in(parent)
        .map_err(io)?;
    registry
        .conn
        .execute(
            "VACUUM main INTO ?1",
            [partial.path().to_string_lossy().into_owned()],
        )
        .map_err(|source| StoreError::Write {
            path: out.to_path_buf(),
            source,
        })?;
    drop(registry);

    let mut copy = Store::open(partial.path())?;
    for (segment, file) in &files {
        copy.load_segment(segment, file)?;
    }
    copy.conn
        .execute("DELETE FROM trail_segments", [])
        .map_err(|source| StoreError::Write {
            path: out.to_path_buf(),
            source,
        })?;
    copy.prepare_for_commit()?;
    let rows = copy.history_rows()?;
    drop(copy);
    partial.as_file().sync_all().map_err(io)?;
    partial
        .persist_noclobber(out)
        .map_err(|err| io(err.error))?;
    let bytes = std::fs::metadata(out).map_err(io)?.len();
    Ok(Exported {
        path: out.to_path_buf(),
        rows,
        segments: files.len(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::GateRun;
    use crate::store::MIN_SEGMENT_SIZE;

    #[test]
    fn a_segmented_trail_exports_to_one_file_whose_chain_starts_at_genesis() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("work.db")).expect("open");
        for n in 0..20 {
            let mut run: GateRun =
                serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
                    .expect("fixture");
            run.run.run_id = Some(format!("run-{n}"));
            store.record(&run).expect("record");
        }
        let whole = store.verify_chain().expect("verify");
        let split = store
            .split(&dir.path().join("out"), MIN_SEGMENT_SIZE)
            .expect("split");
        let out = dir.path().join("export.db");
        let exported = export(&split.registry, &out).expect("export");
        assert_eq!(exported.rows, 100);
        assert_eq!(exported.segments, split.segments.len());
        assert_eq!(exported.bytes, std::fs::metadata(&out).expect("out").len());
        let copy = Store::open_read_only(&out).expect("open");
        assert_eq!(copy.segments().expect("segments"), vec![]);
        assert_eq!(copy.schema_problems().expect("schema"), vec![]);
        assert_eq!(copy.verify_chain().expect("verify"), whole);
        // Nothing else was left beside it.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .filter(|n| n.to_string_lossy().contains("partial"))
            .collect();
        assert_eq!(left, Vec::<std::ffi::OsString>::new());

        // Never over an existing file, which stays as it was.
        std::fs::write(&out, b"mine").expect("write");
        let err = export(&split.registry, &out).expect_err("exists");
        assert!(err.to_string().contains("exists"), "{err}");
        assert_eq!(std::fs::read(&out).expect("read"), b"mine");
    }
}
