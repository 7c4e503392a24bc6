//! `skillgate audit verify` and `skillgate audit export` on a segmented trail: a registry and
//! `trail/NNNNNN.db`, split from a single file by the store, then lost, swapped, replaced,
//! edited and re-hashed by hand.

mod common;

use std::path::{Path, PathBuf};

use common::{run, skillgate};
use rusqlite::Connection;
use serde_json::{Map, Value};
use skillgate::gate::GateRun;
use skillgate::store::{MIN_SEGMENT_SIZE, Segment, Store, row_hash};

/// The examples' five skills as run `n` of the job `job`.
fn gate_run(job: &str, n: usize) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.run_id = Some(format!("{job}-{n}"));
    run
}

/// A trail of 12 runs (60 rows) split into segments of the least size in `dir/.skillgate`,
/// where `--repo dir` finds it: the registry, its segments, and the single file it was split
/// from (`dir/whole.db`, untouched).
struct Trail {
    registry: PathBuf,
    segments: Vec<Segment>,
    whole: PathBuf,
}

impl Trail {
    fn new(dir: &Path) -> Self {
        Self::of_job(dir, "run")
    }

    fn of_job(dir: &Path, job: &str) -> Self {
        let whole = dir.join("whole.db");
        let mut store = Store::open(&whole).expect("open");
        for n in 0..12 {
            store.record(&gate_run(job, n)).expect("record");
        }
        drop(store);
        let work = dir.join("work.db");
        std::fs::copy(&whole, &work).expect("copy");
        let mut store = Store::open(&work).expect("open");
        let split = store
            .split(&dir.join(".skillgate"), MIN_SEGMENT_SIZE)
            .expect("split");
        let segments = store.segments().expect("segments");
        assert!(
            segments.iter().filter(|s| s.is_sealed()).count() >= 2,
            "{segments:?}"
        );
        assert!(!segments.last().expect("open").is_sealed());
        Self {
            registry: split.registry,
            segments,
            whole,
        }
    }

    fn file(&self, seq: i64) -> PathBuf {
        self.registry
            .parent()
            .expect("dir")
            .join("trail")
            .join(skillgate::store::segment_file_name(seq))
    }

    /// The newest segment that holds rows: the open one.
    fn open_segment(&self) -> &Segment {
        self.segments
            .iter()
            .rev()
            .find(|s| s.rows > 0)
            .expect("rows")
    }

    fn head(&self) -> String {
        self.open_segment().last_hash.clone().expect("hash")
    }
}

fn verify(db: &Path, format: &str) -> (i32, String, String) {
    let mut cmd = skillgate();
    cmd.args(["audit", "verify", "--format", format, "--db"])
        .arg(db);
    run(cmd)
}

fn json(db: &Path) -> (i32, Value) {
    let (code, stdout, stderr) = verify(db, "json");
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {stdout}\n{stderr}"));
    (code, doc)
}

fn export(db: &Path, out: &Path) -> (i32, String, String) {
    let mut cmd = skillgate();
    cmd.args(["audit", "export", "--db"])
        .arg(db)
        .arg("--out")
        .arg(out);
    run(cmd)
}

/// Re-hash rows `from` to the last of the segment file `path` as skillgate would have: what a
/// forger who knows the algorithm does after an edit. The first keeps its `prev_hash`.
fn rehash_from(path: &Path, from: i64) {
    let conn = Connection::open(path).expect("open");
    let columns: Vec<String> = conn
        .prepare(
            "SELECT name FROM pragma_table_xinfo('approval_history')
             WHERE hidden = 0 AND name <> 'row_hash' ORDER BY name",
        )
        .expect("columns")
        .query_map([], |r| r.get(0))
        .expect("columns")
        .collect::<Result<_, _>>()
        .expect("columns");
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM approval_history WHERE id >= ?1 ORDER BY id")
        .expect("ids")
        .query_map([from], |r| r.get(0))
        .expect("ids")
        .collect::<Result<_, _>>()
        .expect("ids");
    let mut prev: Option<String> = None;
    for id in ids {
        if let Some(prev) = &prev {
            conn.execute(
                "UPDATE approval_history SET prev_hash = ?1 WHERE id = ?2",
                rusqlite::params![prev, id],
            )
            .expect("relink");
        }
        let mut row = Map::new();
        for column in &columns {
            let value: rusqlite::types::Value = conn
                .query_row(
                    &format!("SELECT \"{column}\" FROM approval_history WHERE id = ?1"),
                    [id],
                    |r| r.get(0),
                )
                .expect("value");
            let value = match value {
                rusqlite::types::Value::Null => continue,
                rusqlite::types::Value::Integer(i) => Value::from(i),
                rusqlite::types::Value::Real(f) => Value::from(f),
                rusqlite::types::Value::Text(t) => Value::from(t),
                rusqlite::types::Value::Blob(_) => panic!("no blobs in approval_history"),
            };
            row.insert(column.clone(), value);
        }
        let prev_hash = row["prev_hash"].as_str().expect("prev").to_owned();
        let hash = row_hash(&prev_hash, &row);
        conn.execute(
            "UPDATE approval_history SET row_hash = ?1 WHERE id = ?2",
            rusqlite::params![hash, id],
        )
        .expect("rehash");
        prev = Some(hash);
    }
}

#[test]
fn an_intact_segmented_trail_verifies_naming_its_segments() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let (code, stdout, stderr) = verify(&trail.registry, "text");
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "audit trail intact: 60 rows checked in {} segments, head {} (row 60)",
                trail.segments.len(),
                trail.head()
            )
            .as_str()
        )
    );
    let first = &trail.segments[0];
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "  segment 000001.db: {} rows (ids 1 to {}), sealed, sha256 {}: ok",
                first.rows,
                first.last_id.expect("last"),
                &first.sha256.as_deref().expect("sha")[..12]
            )
            .as_str()
        )
    );
    assert_eq!(stdout.lines().count(), 1 + trail.segments.len(), "{stdout}");
    assert!(
        stdout.contains(&format!("  segment {}: ", trail.open_segment().file_name()))
            && stdout.contains(", open: ok"),
        "{stdout}"
    );

    // The same head as the single file the trail was split from.
    let (code, whole, _) = verify(&trail.whole, "text");
    assert_eq!(code, 0);
    assert_eq!(
        whole,
        format!(
            "audit trail intact: 60 rows checked, head {} (row 60)\n",
            trail.head()
        )
    );

    // `--repo` finds registry.db beside `[audit] db`.
    let mut cmd = skillgate();
    cmd.args(["audit", "verify", "--repo"]).arg(dir.path());
    let (code, by_repo, stderr) = run(cmd);
    assert_eq!((code, by_repo), (0, stdout.clone()), "{stderr}");

    let (code, doc) = json(&trail.registry);
    assert_eq!(code, 0);
    assert_eq!(doc["schema"], "skillgate.audit-verify/1");
    assert_eq!(doc["intact"], true);
    assert_eq!(doc["rows"], 60);
    assert_eq!(doc["segment_problems"], serde_json::json!([]));
    let segments = doc["segments"].as_array().expect("segments");
    assert_eq!(segments.len(), trail.segments.len());
    assert_eq!(
        segments[0],
        serde_json::json!({
            "seq": 1,
            "file": "000001.db",
            "rows": first.rows,
            "first_id": 1,
            "last_id": first.last_id,
            "sealed": true,
            "sha256": first.sha256,
            "problem": null,
        })
    );
    assert_eq!(segments.last().expect("open")["sealed"], false);

    // Verifying writes nothing anywhere in the trail.
    let listing = |dir: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        names
    };
    let trail_dir = trail.registry.parent().expect("dir").join("trail");
    assert_eq!(listing(&trail_dir).len(), trail.segments.len());
    assert_eq!(
        listing(trail.registry.parent().expect("dir")),
        vec!["registry.db", "trail"]
    );
}

#[test]
fn a_missing_sealed_segment_is_named_and_the_next_does_not_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    std::fs::remove_file(trail.file(2)).expect("rm");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with("audit trail broken: segment 000002.db is missing\n"),
        "{stdout}"
    );
    let next = trail.segments[2].first_id.expect("first");
    assert!(
        stdout.contains(&format!(
            "also: segment 000003.db: row {next} (skill commit-message-style, "
        )) && stdout.contains("the row it was chained after is missing (deleted)"),
        "{stdout}"
    );
    let second = &trail.segments[1];
    assert!(
        stdout.contains(&format!(
            "  segment 000002.db: {} rows (ids {} to {}), sealed, sha256 {}: missing\n",
            second.rows,
            second.first_id.expect("first"),
            second.last_id.expect("last"),
            &second.sha256.as_deref().expect("sha")[..12]
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("  segment 000003.db: ")
            && stdout.contains("sealed, sha256")
            && stdout.contains(": 1 row does not chain\n"),
        "{stdout}"
    );
    let (_, doc) = json(&trail.registry);
    assert_eq!(
        doc["segment_problems"][0],
        serde_json::json!({
            "kind": "missing",
            "file": "000002.db",
            "message": "segment 000002.db is missing",
        })
    );
    assert_eq!(
        doc["segments"][1]["problem"],
        "segment 000002.db is missing"
    );
    assert_eq!(doc["breaks"][0]["segment"], "000003.db");
    assert_eq!(doc["breaks"][0]["id"], next);
    assert_eq!(doc["breaks"][0]["kind"], "missing");
}

#[test]
fn a_replaced_sealed_segment_is_named_with_both_hashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    // A segment of another job's trail, of the same shape, where 000001.db was.
    let other = tempfile::tempdir().expect("tempdir");
    let foreign = Trail::of_job(other.path(), "other");
    std::fs::copy(foreign.file(1), trail.file(1)).expect("replace");
    let found = skillgate::store::sha256(&std::fs::read(trail.file(1)).expect("read"));
    let recorded = trail.segments[0].sha256.clone().expect("sha");
    assert_ne!(found, recorded, "run ids differ");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with(&format!(
            "audit trail broken: segment 000001.db was replaced: its sha256 is {}, the \
             registry recorded {}\n",
            &found[..12],
            &recorded[..12]
        )),
        "{stdout}"
    );
    let (_, doc) = json(&trail.registry);
    assert_eq!(doc["segment_problems"][0]["kind"], "replaced");
    assert_eq!(doc["segment_problems"][0]["sha256"], found);
    assert_eq!(doc["segment_problems"][0]["recorded"], recorded);
}

#[test]
fn two_swapped_segments_are_named_as_reordered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let swap = trail.file(1).with_extension("swap");
    std::fs::rename(trail.file(1), &swap).expect("mv");
    std::fs::rename(trail.file(2), trail.file(1)).expect("mv");
    std::fs::rename(&swap, trail.file(2)).expect("mv");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some(
            "audit trail broken: segment 000001.db holds the bytes of segment 000002.db: the \
             segments were re-ordered"
        )
    );
    assert_eq!(
        lines.next(),
        Some(
            "also: segment 000002.db holds the bytes of segment 000001.db: the segments were \
             re-ordered"
        )
    );
    // Every row is there and chains by id: the files changed places, not the rows.
    assert!(
        stdout.contains(&format!(
            "2 problems in 60 rows checked in {} segments",
            trail.segments.len()
        )),
        "{stdout}"
    );
}

#[test]
fn a_row_edited_and_rehashed_in_a_sealed_segment_is_caught_by_its_sha256() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let file = trail.file(1);
    let id = 3;
    Connection::open(&file)
        .expect("open")
        .execute(
            "UPDATE approval_history SET decision = 'approved', approval_level = 'auto'
             WHERE id = ?1",
            [id],
        )
        .expect("edit");
    rehash_from(&file, id);
    // The segment chains within itself again: only its bytes and its end tell.
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with("audit trail broken: segment 000001.db was replaced: its sha256 is "),
        "{stdout}"
    );
    // The next segment's first row chains to the end the registry recorded, not to the
    // forger's new one.
    let next = trail.segments[1].first_id.expect("first");
    assert!(
        stdout.contains(&format!("also: segment 000002.db: row {next} (")),
        "{stdout}"
    );
}

#[test]
fn a_row_edited_in_the_open_segment_is_named_by_segment_and_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let open = trail.open_segment();
    let id = open.first_id.expect("first") + 1;
    let file = trail.file(open.seq);
    let (skill, at): (String, String) = Connection::open(&trail.whole)
        .expect("open")
        .query_row(
            "SELECT s.name, ah.timestamp FROM approval_history ah JOIN skills s
             ON s.id = ah.skill_id WHERE ah.id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("row");
    Connection::open(&file)
        .expect("open")
        .execute(
            "UPDATE approval_history SET reasoning = 'looked fine' WHERE id = ?1",
            [id],
        )
        .expect("edit");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with(&format!(
            "audit trail broken: segment {}: row {id} (skill {skill}, {at}) was edited: its \
             hash does not match its content\n",
            open.file_name()
        )),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(&format!(
            "  segment {}: {} rows (ids {} to {}), open: 1 row does not chain\n",
            open.file_name(),
            open.rows,
            open.first_id.expect("first"),
            open.last_id.expect("last")
        )),
        "{stdout}"
    );
    let (_, doc) = json(&trail.registry);
    assert_eq!(doc["segment_problems"], serde_json::json!([]));
    assert_eq!(doc["breaks"][0]["segment"], open.file_name());
    assert_eq!(doc["breaks"][0]["id"], id);
    assert_eq!(doc["breaks"][0]["kind"], "edited");
    assert!(
        doc["breaks"][0]["message"]
            .as_str()
            .expect("message")
            .starts_with(&format!("segment {}: row {id} (", open.file_name()))
    );
}

#[test]
fn an_open_segment_rechained_from_elsewhere_does_not_chain_to_the_one_before() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let open = trail.open_segment();
    let first = open.first_id.expect("first");
    let file = trail.file(open.seq);
    Connection::open(&file)
        .expect("open")
        .execute(
            "UPDATE approval_history SET prev_hash = ?1 WHERE id = ?2",
            rusqlite::params![skillgate::store::GENESIS, first],
        )
        .expect("relink");
    rehash_from(&file, first);
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    let before = skillgate::store::segment_file_name(open.seq - 1);
    assert!(
        stdout.starts_with(&format!(
            "audit trail broken: segment {}: its first row ({first}) does not chain to the \
             last row of segment {before}, the one before it\n",
            open.file_name()
        )),
        "{stdout}"
    );
}

#[test]
fn a_file_in_the_trail_the_registry_does_not_list_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let extra = trail.file(trail.segments.len() as i64 + 5);
    std::fs::copy(trail.file(1), &extra).expect("copy");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    let name = extra
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert!(
        stdout.starts_with(&format!(
            "audit trail broken: trail/{name} is not a segment the registry lists (added by \
             hand)\n"
        )),
        "{stdout}"
    );
    let (_, doc) = json(&trail.registry);
    assert_eq!(doc["segment_problems"][0]["kind"], "unlisted");
    assert_eq!(doc["segment_problems"][0]["file"], name);
}

#[test]
fn a_row_in_the_registry_itself_is_named_and_the_view_refuses_to_hide_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    Connection::open(&trail.registry)
        .expect("open")
        .execute(
            "INSERT INTO approval_history (skill_id, version, approval_level, decision)
             VALUES (1, '1.0.0', 'auto', 'approved')",
            [],
        )
        .expect("insert");
    let (code, stdout, _) = verify(&trail.registry, "text");
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with(
            "audit trail broken: the registry holds 1 approval_history row of its own: in a \
             segmented trail every row is in a segment\n"
        ),
        "{stdout}"
    );
    // It is walked too, in no segment: the segments' own rows still chain.
    assert!(
        stdout.contains("\nalso: row 61 (skill commit-message-style, ")
            && stdout.contains(
                ") has no hash: inserted by hand, not by skillgate\n2 problems in 61 rows checked"
            ),
        "{stdout}"
    );
    let (_, doc) = json(&trail.registry);
    assert_eq!(doc["breaks"][0]["id"], 61);
    assert_eq!(doc["breaks"][0]["segment"], Value::Null);
    let err = skillgate::store::TrailView::open(&trail.registry).expect_err("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "audit trail {}: it records {} segments but holds 1 approval_history row of its \
             own, which a view over the segments would hide",
            trail.registry.display(),
            trail.segments.len()
        )
    );
}

#[test]
fn export_refuses_an_existing_out_and_leaves_it_as_it_was() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let out = dir.path().join("mine.db");
    std::fs::write(&out, b"not yours").expect("write");
    let (code, stdout, stderr) = export(&trail.registry, &out);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: {} exists already; audit export writes a new file",
            out.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).expect("read"), b"not yours");
}

#[test]
fn the_export_of_a_segmented_trail_holds_every_row_and_verifies_intact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trail = Trail::new(dir.path());
    let out = dir.path().join("exported.db");
    let (code, stdout, stderr) = export(&trail.registry, &out);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let with_rows = trail.segments.iter().filter(|s| s.rows > 0).count();
    assert_eq!(
        stdout,
        format!(
            "exported 60 rows from {with_rows} segments to {} ({} bytes)\n",
            out.display(),
            std::fs::metadata(&out).expect("out").len()
        )
    );
    // Nothing else beside it: the partial file was renamed into place.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![".skillgate", "exported.db", "whole.db", "work.db"]
    );
    let (code, verified, _) = verify(&out, "text");
    assert_eq!(code, 0, "{verified}");
    assert_eq!(
        verified,
        format!(
            "audit trail intact: 60 rows checked, head {} (row 60)\n",
            trail.head()
        )
    );
    // Row for row what the single file holds, ids and hashes too; no segment records left.
    let rows = |path: &Path| -> Vec<(i64, String, Option<String>)> {
        Connection::open(path)
            .expect("open")
            .prepare("SELECT id, decision, row_hash FROM approval_history ORDER BY id")
            .expect("prepare")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    assert_eq!(rows(&out), rows(&trail.whole));
    let conn = Connection::open(&out).expect("open");
    let (segments, version): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM trail_segments), (SELECT user_version FROM pragma_user_version)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("query");
    assert_eq!((segments, version), (0, skillgate::store::LATEST_VERSION));

    // A single file exports as itself.
    let single = dir.path().join("single.db");
    let (code, stdout, stderr) = export(&trail.whole, &single);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "exported 60 rows from a single file to {} (",
            single.display()
        )),
        "{stdout}"
    );
    assert_eq!(rows(&single), rows(&trail.whole));

    // A sealed segment that is not what was recorded is not exported, and nothing is written.
    std::fs::remove_file(trail.file(1)).expect("rm");
    let again = dir.path().join("again.db");
    let (code, _, stderr) = export(&trail.registry, &again);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error: audit trail segment 000001.db (")
            && stderr.contains("it is missing"),
        "{stderr}"
    );
    assert!(
        stderr.contains("help: `skillgate audit verify --db REGISTRY` names every segment"),
        "{stderr}"
    );
    assert!(!again.exists());
}
