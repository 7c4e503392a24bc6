//! The audit trail: `skillgate audit verify` on a chain written by the store and then tampered
//! with by hand, and the review rows `skillgate review` appends.

mod common;

use std::path::{Path, PathBuf};

use common::{run, skillgate};
use rusqlite::Connection;
use skillgate::gate::GateRun;
use skillgate::skill::Tier;
use skillgate::store::{Pending, Review, ReviewDecision, Store};

const REPOSITORY: &str = "octo/skills";
const TESTED: &str = "1111111111111111111111111111111111111111";
const HEAD: &str = "2222222222222222222222222222222222222222";

/// The examples' run (five skills: two human, two escalate, one auto) as a pull request run.
fn gate_run(attempt: u32, finished_at: &str) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = REPOSITORY.to_owned();
    run.run.pull_request = Some(7);
    run.run.pull_request_head = Some(HEAD.to_owned());
    run.run.head = Some(TESTED.to_owned());
    run.run.run_id = Some("4242".to_owned());
    run.run.run_attempt = attempt;
    run.run.finished_at = finished_at.to_owned();
    run
}

/// Two attempts of the same job: rows 1–5 at 10:00:03, rows 6–10 at 10:20:00, skills in the
/// fixture's order (commit-message-style, csv-summary, semver-bump, slugify-title, todo-scan).
fn recorded(dir: &Path) -> PathBuf {
    let path = dir.join("skills.db");
    let mut store = Store::open(&path).expect("open");
    for (attempt, at) in [(1, "2026-11-30T10:00:03Z"), (2, "2026-11-30T10:20:00Z")] {
        let stats = store.record(&gate_run(attempt, at)).expect("record");
        assert_eq!(stats.inserted, 5);
    }
    path
}

fn sql(path: &Path, statement: &str) {
    Connection::open(path)
        .expect("open")
        .execute_batch(statement)
        .expect("tamper");
}

fn verify(path: &Path, format: &str) -> (i32, String, String) {
    let mut cmd = skillgate();
    cmd.args(["audit", "verify", "--format", format, "--db"])
        .arg(path);
    run(cmd)
}

fn row_hash(path: &Path, id: i64) -> String {
    Connection::open(path)
        .expect("open")
        .query_row(
            "SELECT row_hash FROM approval_history WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .expect("row")
}

#[test]
fn an_untouched_chain_verifies_and_names_its_head() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let (code, stdout, stderr) = verify(&db, "text");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "audit trail intact: 10 rows checked, head {} (row 10)\n",
            row_hash(&db, 10)
        )
    );
    // Verifying writes nothing: no journal, same bytes.
    let before = std::fs::read(&db).expect("read");
    verify(&db, "json");
    assert_eq!(std::fs::read(&db).expect("read"), before);
}

#[test]
fn every_row_chains_to_the_one_before_it_by_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let conn = Connection::open(&db).expect("open");
    let links: i64 = conn
        .query_row(
            "SELECT count(*) FROM approval_history a JOIN approval_history b ON b.id = a.id + 1
             WHERE b.prev_hash = a.row_hash",
            [],
            |r| r.get(0),
        )
        .expect("links");
    assert_eq!(links, 9);
    let first: String = conn
        .query_row(
            "SELECT prev_hash FROM approval_history WHERE id = 1",
            [],
            |r| r.get(0),
        )
        .expect("first");
    assert_eq!(first, skillgate::store::GENESIS);
}

#[test]
fn an_edited_row_is_named_with_its_skill_and_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(
        &db,
        "UPDATE approval_history SET reasoning = 'looked fine' WHERE id = 7",
    );
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert_eq!(
        stdout,
        format!(
            "audit trail broken: row 7 (skill csv-summary, 2026-11-30 10:20:00) was edited: its \
             hash does not match its content\n1 problem in 10 rows checked, head {} (row 10)\n",
            row_hash(&db, 10)
        )
    );
}

#[test]
fn a_column_the_gate_leaves_empty_is_covered_too() {
    // review_duration_minutes is NULL on gate rows; setting it is an edit.
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(
        &db,
        "UPDATE approval_history SET review_duration_minutes = 45 WHERE id = 3",
    );
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "audit trail broken: row 3 (skill semver-bump, 2026-11-30 10:00:03) was edited"
        ),
        "{stdout}"
    );
}

#[test]
fn a_deleted_row_breaks_the_link_of_the_next() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(&db, "DELETE FROM approval_history WHERE id = 7");
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "audit trail broken: row 8 (skill semver-bump, 2026-11-30 10:20:00) does not follow \
             row 6: the row it was chained after is missing (deleted)\n1 problem in 9 rows"
        ),
        "{stdout}"
    );
}

#[test]
fn rows_deleted_from_the_end_show_in_the_issued_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(&db, "DELETE FROM approval_history WHERE id >= 9");
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "audit trail broken: rows 9 to 10 are missing: ids up to 10 were issued, the table \
             ends at row 8 (deleted from the end)\n"
        ),
        "{stdout}"
    );
}

#[test]
fn a_reordered_pair_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(
        &db,
        "UPDATE approval_history SET id = -7 WHERE id = 7;
         UPDATE approval_history SET id = 7 WHERE id = 8;
         UPDATE approval_history SET id = 8 WHERE id = -7;",
    );
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "audit trail broken: row 7 (skill semver-bump, 2026-11-30 10:20:00) was moved: its \
             content was written as row 8 (re-ordered or renumbered)\nalso: row 8 (skill \
             csv-summary, 2026-11-30 10:20:00) was moved: its content was written as row 7"
        ),
        "{stdout}"
    );
}

#[test]
fn a_row_relinked_by_hand_is_an_edit_since_its_link_is_hashed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    // Row 8 chained straight after row 6, as if row 7 never was.
    sql(
        &db,
        "UPDATE approval_history
         SET prev_hash = (SELECT row_hash FROM approval_history WHERE id = 6) WHERE id = 8",
    );
    let (code, stdout, _) = verify(&db, "json");
    assert_eq!(code, 4);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["schema"], "skillgate.audit-verify/1");
    assert_eq!(doc["intact"], false);
    assert_eq!(doc["rows"], 10);
    assert_eq!(doc["breaks"].as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(doc["breaks"][0]["id"], 8);
    assert_eq!(doc["breaks"][0]["kind"], "edited");
    assert_eq!(doc["breaks"][0]["skill"], "semver-bump");
    assert_eq!(doc["breaks"][0]["timestamp"], "2026-11-30 10:20:00");
}

#[test]
fn a_row_inserted_by_hand_has_no_hash_and_later_runs_chain_past_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(
        &db,
        "INSERT INTO approval_history (skill_id, version, approval_level, decision, approver)
         VALUES (1, '1.0.0', 'human', 'approved', 'mallory')",
    );
    let mut store = Store::open(&db).expect("open");
    store
        .record(&gate_run(3, "2026-11-30T11:00:00Z"))
        .expect("record");
    drop(store);
    let (code, stdout, _) = verify(&db, "json");
    assert_eq!(code, 4);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(doc["rows"], 16);
    assert_eq!(doc["breaks"].as_array().map(Vec::len), Some(1), "{doc}");
    let hand = &doc["breaks"][0];
    assert_eq!(hand["id"], 11);
    assert_eq!(hand["kind"], "unhashed");
    assert_eq!(hand["skill"], "commit-message-style");
    assert_eq!(
        hand["message"],
        format!(
            "row 11 (skill commit-message-style, {}) has no hash: inserted by hand, not by \
             skillgate",
            hand["timestamp"].as_str().expect("timestamp")
        )
    );
    assert_eq!(doc["head_id"], 16);
    assert_eq!(doc["head"], row_hash(&db, 16));
}

#[test]
fn the_seeds_own_review_update_is_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let statements = include_str!("fixtures/seed/statements.sql");
    let start = statements
        .find("UPDATE approval_history")
        .expect("the seed's UPDATE");
    let update = &statements[start..];
    let update = &update[..=update.find(';').expect("end of statement")];
    assert!(update.contains("review_duration_minutes = 45"), "{update}");
    let conn = Connection::open(&db).expect("open");
    let mut stmt = conn.prepare(update).expect("prepare");
    let index = stmt
        .parameter_index("$SKILL_ID")
        .expect("index")
        .expect("$SKILL_ID");
    // commit-message-style: skill 1, tier human, rows 1 and 6.
    stmt.raw_bind_parameter(index, 1).expect("bind");
    assert_eq!(stmt.raw_execute().expect("update"), 2);
    drop(stmt);
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 4);
    assert!(
        stdout.starts_with(
            "audit trail broken: row 1 (skill commit-message-style, 2026-11-30 10:00:03) was \
             edited: its hash does not match its content\nalso: row 6 (skill \
             commit-message-style, 2026-11-30 10:20:00) was edited"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("2 problems in 10 rows checked"), "{stdout}");
}

#[test]
fn a_missing_database_is_a_usage_error_and_is_not_created() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = skillgate();
    cmd.args(["audit", "verify", "--repo"]).arg(dir.path());
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "error: no audit database at {}",
            dir.path().join(".skillgate/skills.db").display()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join(".skillgate").exists());
}

#[test]
fn a_newer_schema_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    sql(&db, "PRAGMA user_version = 42");
    let (code, _, stderr) = verify(&db, "text");
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!(
            "has schema version 42, newer than this skillgate knows ({})",
            skillgate::store::LATEST_VERSION
        )),
        "{stderr}"
    );
}

#[test]
fn writers_sharing_one_file_never_fork_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("skills.db");
    drop(Store::open(&db).expect("create"));
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&db).expect("open");
                for attempt in 0..5 {
                    let mut run = gate_run(writer * 100 + attempt, "2026-11-30T10:00:03Z");
                    run.run.run_id = Some(format!("w{writer}"));
                    assert_eq!(store.record(&run).expect("record").inserted, 5);
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("writer");
    }
    let store = Store::open_read_only(&db).expect("open");
    let report = store.verify_chain().expect("verify");
    assert_eq!(report.rows, 100);
    assert_eq!(report.breaks, vec![]);
    let distinct_prev: i64 = store
        .connection()
        .query_row(
            "SELECT count(DISTINCT prev_hash) FROM approval_history",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(distinct_prev, 100, "no two rows chain to the same one");
}

// Reviews ----------------------------------------------------------------------------------

fn review(approver: &str, decision: ReviewDecision, at: &str, id: &str) -> Review {
    Review {
        approver: approver.to_owned(),
        decision,
        reasoning: format!("{approver}: {}", decision.as_str()),
        reviewed_at: at.to_owned(),
        review_id: id.to_owned(),
    }
}

fn pending_skill(store: &Store, name: &str) -> Pending {
    store
        .pending_escalations(REPOSITORY, 7, HEAD)
        .expect("pending")
        .into_iter()
        .find(|p| p.skill == name)
        .unwrap_or_else(|| panic!("{name} pending"))
}

#[test]
fn the_escalated_skills_of_a_head_are_pending_since_their_first_escalation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(&recorded(dir.path())).expect("open");
    let pending = store
        .pending_escalations(REPOSITORY, 7, HEAD)
        .expect("pending");
    let summary: Vec<(&str, Tier, Vec<String>, &str, i64)> = pending
        .iter()
        .map(|p| {
            (
                p.skill.as_str(),
                p.tier,
                p.categories.clone(),
                p.escalated_at.as_str(),
                p.escalation_id,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "commit-message-style",
                Tier::Human,
                vec![],
                "2026-11-30 10:00:03",
                6
            ),
            (
                "csv-summary",
                Tier::Escalate,
                vec!["coverage".to_owned()],
                "2026-11-30 10:00:03",
                7
            ),
            ("semver-bump", Tier::Human, vec![], "2026-11-30 10:00:03", 8),
            (
                "todo-scan",
                Tier::Escalate,
                vec!["coverage".to_owned()],
                "2026-11-30 10:00:03",
                10
            ),
        ]
    );
    assert!(pending.iter().all(|p| p.approvers.is_empty()));
    // Reviews are of the pull request head, not of the merge commit the job tested.
    assert_eq!(
        store
            .pending_escalations(REPOSITORY, 7, TESTED)
            .expect("pending"),
        vec![]
    );
    assert_eq!(
        store
            .pending_escalations(REPOSITORY, 8, HEAD)
            .expect("pending"),
        vec![]
    );
}

#[test]
fn a_review_appends_a_chained_row_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let mut store = Store::open(&db).expect("open");
    let csv = pending_skill(&store, "csv-summary");
    let approval = review(
        "alice",
        ReviewDecision::Approved,
        "2026-11-30T11:15:30Z",
        "900",
    );
    assert!(store.record_review(&csv, &approval).expect("record"));
    assert!(
        !store.record_review(&csv, &approval).expect("again"),
        "the same review job adds nothing"
    );
    let row: (
        String,
        String,
        String,
        i64,
        String,
        String,
        String,
        Option<f64>,
        String,
        String,
    ) = store
        .connection()
        .query_row(
            "SELECT approver, decision, reasoning, review_duration_minutes, timestamp,
                        head_sha, pull_request_head, pass_rate, approval_level, review_id
                 FROM approval_history WHERE id = 11",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ))
            },
        )
        .expect("review row");
    let escalation_pass_rate: Option<f64> = store
        .connection()
        .query_row(
            "SELECT pass_rate FROM approval_history WHERE id = 7",
            [],
            |r| r.get(0),
        )
        .expect("pass rate");
    assert_eq!(
        row,
        (
            "alice".to_owned(),
            "approved".to_owned(),
            "alice: approved".to_owned(),
            // 10:00:03 → 11:15:30
            75,
            "2026-11-30 11:15:30".to_owned(),
            TESTED.to_owned(),
            HEAD.to_owned(),
            escalation_pass_rate,
            "escalate".to_owned(),
            "900".to_owned(),
        )
    );
    let count: i64 = store
        .connection()
        .query_row("SELECT count(*) FROM approval_history", [], |r| r.get(0))
        .expect("count");
    assert_eq!(count, 11);
    assert_eq!(
        store
            .approvals_for(
                REPOSITORY,
                7,
                HEAD,
                pending_skill(&store, "csv-summary").skill_id
            )
            .expect("approvals"),
        1
    );
    assert_eq!(
        store
            .approvals_for(
                REPOSITORY,
                7,
                HEAD,
                pending_skill(&store, "todo-scan").skill_id
            )
            .expect("approvals"),
        0
    );
    drop(store);
    let (code, stdout, _) = verify(&db, "text");
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.starts_with("audit trail intact: 11 rows checked"),
        "{stdout}"
    );
}

#[test]
fn each_reviewers_latest_word_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let mut store = Store::open(&db).expect("open");
    let human = pending_skill(&store, "semver-bump");
    let at = "2026-11-30T12:00:00Z";
    store
        .record_review(&human, &review("alice", ReviewDecision::Approved, at, "1"))
        .expect("alice");
    store
        .record_review(&human, &review("bob", ReviewDecision::Approved, at, "2"))
        .expect("bob");
    let now = pending_skill(&store, "semver-bump");
    assert_eq!(now.approvers, vec!["alice", "bob"]);
    assert!(now.is_approved(2));
    assert_eq!(
        store
            .approvals_for(
                REPOSITORY,
                7,
                HEAD,
                pending_skill(&store, "semver-bump").skill_id
            )
            .expect("n"),
        2
    );
    // Alice changes her mind: one approval left, and a change request that blocks.
    store
        .record_review(
            &now,
            &review(
                "alice",
                ReviewDecision::NeedsCorrection,
                "2026-11-30T12:30:00Z",
                "3",
            ),
        )
        .expect("alice again");
    let now = pending_skill(&store, "semver-bump");
    assert_eq!(now.approvers, vec!["bob"]);
    assert_eq!(now.changes_requested_by, vec!["alice"]);
    assert!(!now.is_approved(1));
    assert_eq!(
        store
            .approvals_for(
                REPOSITORY,
                7,
                HEAD,
                pending_skill(&store, "semver-bump").skill_id
            )
            .expect("n"),
        1
    );
    let minutes: Vec<i64> = store
        .connection()
        .prepare("SELECT review_duration_minutes FROM approval_history WHERE review_id IS NOT NULL ORDER BY id")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(minutes, vec![119, 119, 149]);
}

#[test]
fn a_later_gate_decision_that_is_not_escalated_settles_the_skill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = recorded(dir.path());
    let mut run = gate_run(3, "2026-11-30T13:00:00Z");
    run.skills.retain(|s| s.name == "csv-summary");
    run.skills[0].decision.decision = skillgate::policy::Verdict::Approved;
    run.skills[0].decision.tier = Tier::Auto;
    let mut store = Store::open(&db).expect("open");
    store.record(&run).expect("record");
    let names: Vec<String> = store
        .pending_escalations(REPOSITORY, 7, HEAD)
        .expect("pending")
        .into_iter()
        .map(|p| p.skill)
        .collect();
    assert_eq!(
        names,
        vec!["commit-message-style", "semver-bump", "todo-scan"]
    );
}

#[test]
fn a_review_time_that_is_not_a_time_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&recorded(dir.path())).expect("open");
    let csv = pending_skill(&store, "csv-summary");
    let err = store
        .record_review(
            &csv,
            &review("alice", ReviewDecision::Approved, "yesterday", "5"),
        )
        .expect_err("refused");
    assert!(
        err.to_string()
            .ends_with("review 5 of skill csv-summary: `yesterday` is not an RFC 3339 time"),
        "{err}"
    );
}
