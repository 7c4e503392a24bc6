//! Issue #14, "the trail is out of reach and validated": what a pull request's suite can do to
//! the working copy of the audit database between the read of the audit branch and the commit
//! back, and what a broken answer to the raw read does. Each attack must stop the commit with
//! the object named and leave the branch as it was; `audit verify` must say the copy is not
//! intact. The branch lives on the fake GitHub; the attacks write to the file the trail wrote.

mod common;
mod support;

use std::path::Path;

use common::{TRAIL_REGISTRY, run, skillgate};
use rusqlite::Connection;
use serde_json::{Map, Value};
use skillgate::audit::{self, Trail};
use skillgate::config::AuditConfig;
use skillgate::gate::GateRun;
use skillgate::github::Session;
use skillgate::store::Store;
use support::github::FakeGitHub;

const BRANCH: &str = "skillgate/audit";
const DB: &str = ".skillgate/skills.db";

/// The examples' run (five skills) as run `run_id` of a pull request job.
fn gate_run(run_id: &str) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = "octo/skills".to_owned();
    run.run.pull_request = Some(7);
    run.run.head = Some("1111111111111111111111111111111111111111".to_owned());
    run.run.pull_request_head = Some("2222222222222222222222222222222222222222".to_owned());
    run.run.run_id = Some(run_id.to_owned());
    run.run.run_attempt = 1;
    run.run.finished_at = "2026-11-30T10:00:00Z".to_owned();
    run
}

fn session(fake: &FakeGitHub) -> Session {
    let (url, token) = (fake.url(), fake.token());
    Session::from_vars(
        &|name| match name {
            "GITHUB_REPOSITORY" => Some("octo/skills".to_owned()),
            "GITHUB_TOKEN" => Some(token.clone()),
            "GITHUB_API_URL" => Some(url.clone()),
            _ => None,
        },
        None,
    )
    .expect("session")
}

fn connect(fake: &FakeGitHub) -> Result<Trail, skillgate::audit::AuditError> {
    let repo = tempfile::tempdir().expect("tempdir");
    audit::connect(
        &AuditConfig::default(),
        &session(fake),
        repo.path(),
        audit::Reads::Since(None),
    )
    .map(|trail| trail.expect("a trail in api mode"))
}

/// A fake whose audit branch holds one run, committed through the trail as a job would.
fn branch_with_a_run() -> FakeGitHub {
    let fake = FakeGitHub::start();
    fake.set_repo("octo", "skills");
    let mut trail = connect(&fake).expect("connect");
    let run = gate_run("1");
    let stats = Store::open(&trail.path())
        .expect("open")
        .record(&run)
        .expect("record");
    assert_eq!(stats.inserted, 5);
    let keep = tempfile::tempdir().expect("tempdir");
    trail.commit(&run, true, keep.path()).expect("first commit");
    assert!(fake.ref_sha(&format!("refs/heads/{BRANCH}")).is_some());
    fake
}

/// A run of the job on top of that branch: read it, record run 2 into the working copy as the
/// gate does. Returns the trail, ready to commit.
fn recorded_run(fake: &FakeGitHub) -> (Trail, GateRun) {
    let trail = connect(fake).expect("connect");
    let run = gate_run("2");
    Store::open(&trail.path())
        .expect("open")
        .record(&run)
        .expect("record");
    (trail, run)
}

fn sql(path: &Path, statement: &str) {
    Connection::open(path)
        .expect("open")
        .execute_batch(statement)
        .expect("plant");
}

/// Commit after the attack; the error's text. The branch must not have moved.
fn refused(fake: &FakeGitHub, trail: &mut Trail, run: &GateRun) -> String {
    let before = fake.ref_sha(&format!("refs/heads/{BRANCH}"));
    let keep = tempfile::tempdir().expect("tempdir");
    let err = trail
        .commit(run, true, keep.path())
        .expect_err("the commit is refused");
    assert_eq!(
        fake.ref_sha(&format!("refs/heads/{BRANCH}")),
        before,
        "the branch did not move"
    );
    assert_eq!(err.exit_code(), 1, "{err}");
    err.to_string()
}

/// `skillgate audit verify --db PATH`: (exit code, stdout).
fn verify(path: &Path) -> (i32, String) {
    let mut cmd = skillgate();
    cmd.args(["audit", "verify", "--db"]).arg(path);
    let (code, stdout, stderr) = run(cmd);
    assert!(stderr.is_empty() || code != 1, "{stderr}");
    (code, stdout)
}

/// Append a correctly chained row, the way skillgate does it: insert after the last hashed
/// row, read back every stored column but `row_hash`, hash `prev_hash` and the canonical JSON.
fn append_chained(path: &Path, values: &[(&str, Value)]) -> i64 {
    let conn = Connection::open(path).expect("open");
    let prev: String = conn
        .query_row(
            "SELECT row_hash FROM approval_history WHERE row_hash IS NOT NULL ORDER BY id DESC",
            [],
            |r| r.get(0),
        )
        .expect("last hash");
    let mut columns: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
    columns.push("prev_hash");
    let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let mut params: Vec<rusqlite::types::Value> = values
        .iter()
        .map(|(_, v)| match v {
            Value::Number(n) => rusqlite::types::Value::Integer(n.as_i64().expect("int")),
            other => rusqlite::types::Value::Text(other.as_str().expect("text").to_owned()),
        })
        .collect();
    params.push(rusqlite::types::Value::Text(prev.clone()));
    conn.execute(
        &format!(
            "INSERT INTO approval_history ({}) VALUES ({})",
            columns.join(", "),
            placeholders.join(", ")
        ),
        rusqlite::params_from_iter(params),
    )
    .expect("insert");
    let id = conn.last_insert_rowid();
    let stored: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_xinfo('approval_history') WHERE hidden = 0")
        .expect("columns")
        .query_map([], |r| r.get(0))
        .expect("columns")
        .map(|c| c.expect("column"))
        .filter(|c: &String| c != "row_hash")
        .collect();
    let mut row = Map::new();
    conn.query_row(
        &format!(
            "SELECT {} FROM approval_history WHERE id = ?1",
            stored.join(", ")
        ),
        [id],
        |r| {
            for (index, name) in stored.iter().enumerate() {
                let value = match r.get_ref(index)? {
                    rusqlite::types::ValueRef::Null => continue,
                    rusqlite::types::ValueRef::Integer(i) => Value::from(i),
                    rusqlite::types::ValueRef::Real(f) => Value::from(f),
                    rusqlite::types::ValueRef::Text(t) => {
                        Value::from(String::from_utf8_lossy(t).into_owned())
                    }
                    rusqlite::types::ValueRef::Blob(_) => unreachable!("no blobs here"),
                };
                row.insert(name.clone(), value);
            }
            Ok(())
        },
    )
    .expect("read back");
    conn.execute(
        "UPDATE approval_history SET row_hash = ?1 WHERE id = ?2",
        rusqlite::params![skillgate::store::row_hash(&prev, &row), id],
    )
    .expect("hash");
    id
}

#[test]
fn a_chained_approval_forged_into_the_working_copy_is_never_committed() {
    let fake = branch_with_a_run();
    let (mut trail, run) = recorded_run(&fake);
    let skill_id: i64 = Connection::open(trail.path())
        .expect("open")
        .query_row(
            "SELECT id FROM skills WHERE name = 'slugify-title'",
            [],
            |r| r.get(0),
        )
        .expect("skill");
    let forged = append_chained(
        &trail.path(),
        &[
            ("skill_id", skill_id.into()),
            ("version", "1.0.0".into()),
            ("approval_level", "auto".into()),
            ("decision", "approved".into()),
            ("approver", "maintainer1".into()),
            ("timestamp", "2026-11-30 10:00:01".into()),
            ("repository", "octo/skills".into()),
            ("pull_request", 7.into()),
        ],
    );
    assert_eq!(forged, 11);
    // The chain alone cannot tell: the forged row is hashed and linked like the gate's.
    let chain = Store::open_read_only(&trail.path())
        .expect("open")
        .verify_chain()
        .expect("verify");
    assert!(chain.is_intact(), "{chain:?}");

    let message = refused(&fake, &mut trail, &run);
    assert!(
        message.contains(
            "row 11 (skill slugify-title, 2026-11-30 10:00:01) was not written by this run; \
             refusing to commit"
        ),
        "{message}"
    );
    let branch = common::whole_trail(&|p| fake.file_at(BRANCH, p)).expect("a trail");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("skills.db"), branch).expect("write");
    let approvals: i64 = Connection::open(dir.path().join("skills.db"))
        .expect("open")
        .query_row(
            "SELECT count(*) FROM approval_history WHERE approver = 'maintainer1'",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(approvals, 0, "the forged approval never reached the branch");
}

#[test]
fn a_planted_after_insert_trigger_stops_the_record_and_the_commit() {
    let trigger = "CREATE TRIGGER approve_all AFTER INSERT ON approval_history BEGIN
            UPDATE approval_history SET decision = 'approved', approval_level = 'auto',
                approver = 'auto' WHERE id = new.id;
         END;";
    let fake = branch_with_a_run();

    // Planted before the gate records: the record is refused, nothing is rewritten.
    let trail = connect(&fake).expect("connect");
    sql(&trail.path(), trigger);
    let err = Store::open(&trail.path()).err().expect("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "audit database {}: unexpected trigger `approve_all` (sqlite_master)",
            trail.path().display()
        )
    );

    // Planted after the gate recorded: the commit is refused.
    let (mut trail, run) = recorded_run(&fake);
    sql(&trail.path(), trigger);
    let message = refused(&fake, &mut trail, &run);
    assert!(
        message.ends_with(": unexpected trigger `approve_all` (sqlite_master); refusing to commit"),
        "{message}"
    );
    let (code, stdout) = verify(&trail.path());
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout
            .starts_with("audit trail broken: unexpected trigger `approve_all` (sqlite_master)\n"),
        "{stdout}"
    );
}

#[test]
fn foreign_objects_a_replaced_definition_and_a_wrong_user_version_are_each_named() {
    let fake = branch_with_a_run();
    let wrong_version = format!(
        "PRAGMA user_version is 2, but the schema is skillgate's version {}",
        skillgate::store::LATEST_VERSION
    );
    let attacks = [
        (
            "CREATE TABLE loot (token TEXT);",
            "unexpected table `loot` (sqlite_master)",
        ),
        (
            "CREATE VIEW pending AS SELECT * FROM approval_history WHERE decision <> 'escalated';",
            "unexpected view `pending` (sqlite_master)",
        ),
        (
            "CREATE INDEX idx_loot ON skills(owner);",
            "unexpected index `idx_loot` (sqlite_master)",
        ),
        (
            "DROP INDEX idx_approval_history_skill;
             CREATE INDEX idx_approval_history_skill ON approval_history(skill_id)
                 WHERE decision <> 'escalated';",
            "index `idx_approval_history_skill` is not defined as skillgate's migrations define \
             it (sqlite_master)",
        ),
        (
            "PRAGMA writable_schema = ON;
             UPDATE sqlite_master SET sql = replace(sql, 'DEFAULT ''human''', 'DEFAULT ''auto''')
             WHERE name = 'skills';
             PRAGMA writable_schema = OFF;",
            "table `skills` is not defined as skillgate's migrations define it (sqlite_master)",
        ),
        ("PRAGMA user_version = 2;", wrong_version.as_str()),
    ];
    for (plant, named) in attacks {
        let (mut trail, run) = recorded_run(&fake);
        sql(&trail.path(), plant);
        let message = refused(&fake, &mut trail, &run);
        assert!(
            message.contains(&format!(": {named}; refusing to commit")),
            "{plant}: {message}"
        );
        let (code, stdout) = verify(&trail.path());
        assert_eq!(code, 4, "{plant}: {stdout}");
        assert!(
            stdout.starts_with(&format!("audit trail broken: {named}\n")),
            "{plant}: {stdout}"
        );
    }
}

#[test]
fn a_row_the_branch_held_edited_in_the_working_copy_stops_the_commit() {
    let fake = branch_with_a_run();
    let (mut trail, run) = recorded_run(&fake);
    sql(
        &trail.path(),
        "UPDATE approval_history SET decision = 'approved', approver = 'maintainer1' WHERE id = 2",
    );
    let message = refused(&fake, &mut trail, &run);
    assert!(
        message.contains(
            ": row 2 (skill csv-summary, 2026-11-30 10:00:00) changed since the audit branch \
             was read; refusing to commit"
        ),
        "{message}"
    );
}

#[test]
fn the_raw_read_sends_one_accept_header_and_reads_the_database() {
    let fake = branch_with_a_run();
    let trail = connect(&fake).expect("connect");
    let reads = fake.requests_for("repos/get-content");
    assert!(!reads.is_empty());
    for read in &reads {
        assert_eq!(read.header("accept"), Some("application/vnd.github.raw"));
    }
    // Every other request asks for GitHub's JSON, once.
    for request in fake.requests() {
        if request.operation_id.as_deref() != Some("repos/get-content") {
            assert_eq!(
                request.header("accept"),
                Some("application/vnd.github+json"),
                "{} {}",
                request.method,
                request.path
            );
        }
    }
    fake.assert_no_violations();
    let rows = Store::open_read_only(&trail.path())
        .expect("a database")
        .verify_chain()
        .expect("verify")
        .rows;
    assert_eq!(rows, 5);
}

/// What today's client met: asked for raw and JSON at once, the fake answers with GitHub's
/// default, JSON, and reports the request.
#[test]
fn two_media_types_get_json_from_the_fake_and_a_violation() {
    let fake = branch_with_a_run();
    let answer = support::github::client::send(
        &fake.url(),
        "GET",
        &format!("/repos/octo/skills/contents/{TRAIL_REGISTRY}?ref={BRANCH}"),
        &[
            ("authorization", &format!("token {}", fake.token())),
            ("user-agent", "t"),
            (
                "accept",
                "application/vnd.github.raw, application/vnd.github+json",
            ),
        ],
        None,
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["type"], "file");
    let violations = fake.violations();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].pointer, "header:accept");
}

#[test]
fn a_branch_file_that_is_not_a_database_is_refused_not_written() {
    // What the contents API answers when it sends JSON instead of the raw file: as the single
    // file of a trail written before segments (the branch has no registry, so it is read
    // whole), and as the registry of a segmented trail.
    let json: &[u8] = br#"{"type":"file","encoding":"base64","size":16384}"#;
    for path in [DB, TRAIL_REGISTRY] {
        let fake = FakeGitHub::start();
        fake.set_repo("octo", "skills");
        let head = fake.commit_files(BRANCH, &[(path, json)], "not a database");
        let err = connect(&fake).expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "audit branch {BRANCH} at {head}: {path} is not a SQLite database (it starts \
                 with `{{\"type\":\"file\",\"encoding`); refusing to use it"
            )
        );
        assert_eq!(err.exit_code(), 1);
    }
}

#[test]
fn a_broken_template_is_named_by_verify_with_its_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    drop(Store::open(&path).expect("create"));
    sql(
        &path,
        "UPDATE approval_criteria_templates SET criteria_json = '{\"coverage\": \"most\"}' \
         WHERE category = 'frontend'",
    );
    let (code, stdout) = verify(&path);
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.starts_with(
            "audit trail broken: template `Frontend Component - Escalated Review`: criteria_json \
             `coverage`: min must be a number between 0.0 and 1.0, not \"most\"\n"
        ),
        "{stdout}"
    );
}

#[cfg(unix)]
#[test]
fn the_working_copy_is_in_a_directory_only_its_user_can_open() {
    use std::os::unix::fs::PermissionsExt;
    let fake = branch_with_a_run();
    let trail = connect(&fake).expect("connect");
    let path = trail.path();
    let dir = path.parent().expect("dir");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    assert_eq!(mode(&path), 0o600);
    assert!(
        dir.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("skillgate-audit-") && n.len() > 20),
        "{}",
        dir.display()
    );
}
