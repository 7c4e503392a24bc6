//! Identity is the path (issue #15, point 2): a skill is its directory relative to the
//! repository. Two plugins' `setup` skills are two skills with two histories, a moved skill keeps
//! its row, reviews are kept apart, and a version 3 trail keyed by name migrates keeping every
//! row and its chain.

mod common;

use std::path::Path;

use common::{Repo, run, run_json};
use rusqlite::{Connection, params};
use serde_json::Map;
use skillgate::gate::GateRun;
use skillgate::policy::Verdict;
use skillgate::store::{Correction, Pending, Review, ReviewDecision, Store};

const A: &str = "plugins/a/skills/setup";
const B: &str = "plugins/b/skills/setup";

/// Both plugins' skill directories are roots: `name-duplicate` is about one root.
const CONFIG: &str = "[skills]\nroots = [\"plugins/a/skills\", \"plugins/b/skills\"]\n";

/// `(id, name, skill_dir)` of every `skills` row, by id.
fn skills(db: &Path) -> Vec<(i64, String, Option<String>)> {
    let conn = Connection::open(db).expect("db");
    let mut stmt = conn
        .prepare("SELECT id, name, skill_dir FROM skills ORDER BY id")
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// Each history row's `(skill_id, pass_rate, change_kind)`, by id.
fn history(db: &Path) -> Vec<(i64, Option<f64>, Option<String>)> {
    let conn = Connection::open(db).expect("db");
    let mut stmt = conn
        .prepare("SELECT skill_id, pass_rate, change_kind FROM approval_history ORDER BY id")
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

fn verify(db: &Path) -> (i32, String) {
    let mut cmd = common::skillgate();
    cmd.args(["audit", "verify", "--db"]).arg(db);
    let (code, stdout, stderr) = run(cmd);
    (code, format!("{stdout}{stderr}"))
}

/// Two `setup` skills, one in each plugin: a's suite passes 2 of 2, b's 1 of 2.
fn two_setups(repo: &Repo) {
    repo.write(".skillgate.toml", CONFIG);
    repo.skill(A, "setup", 2, 0);
    repo.skill(B, "setup", 1, 1);
}

#[test]
fn two_skills_named_setup_in_two_plugins_are_two_skills_with_two_histories() {
    let repo = Repo::plain();
    two_setups(&repo);
    let gated = |doc: &serde_json::Value| -> Vec<(String, String, f64)> {
        doc["skills"]
            .as_array()
            .expect("skills")
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().expect("name").to_owned(),
                    s["dir"].as_str().expect("dir").to_owned(),
                    s["tests"]["pass_rate"].as_f64().expect("pass rate"),
                )
            })
            .collect()
    };
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(
        gated(&doc),
        vec![
            ("setup".into(), A.into(), 1.0),
            ("setup".into(), B.into(), 0.5)
        ]
    );
    // b's suite is fixed; a's is as it was (the same job on the same content adds nothing).
    repo.skill(B, "setup", 2, 0);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(
        gated(&doc),
        vec![
            ("setup".into(), A.into(), 1.0),
            ("setup".into(), B.into(), 1.0)
        ]
    );
    assert_eq!(
        skills(&repo.db()),
        vec![
            (1, "setup".into(), Some(A.into())),
            (2, "setup".into(), Some(B.into()))
        ]
    );
    // Each decision hangs on its own skill, with its own suite's figures: b's history is 0.5
    // then 1.0, a's one row is untouched by b's.
    let unchanged = Some("unchanged".to_owned());
    assert_eq!(
        history(&repo.db()),
        vec![
            (1, Some(1.0), unchanged.clone()),
            (2, Some(0.5), unchanged.clone()),
            (2, Some(1.0), unchanged),
        ]
    );
    let (code, out) = verify(&repo.db());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("audit trail intact: 3 rows checked"),
        "{out}"
    );
}

#[test]
fn a_moved_skill_keeps_its_row_and_history_and_the_other_setup_keeps_its_own() {
    let repo = Repo::git();
    two_setups(&repo);
    let base = repo.commit("two setup skills");
    let (_, _) = run_json(&repo, &["check", "--all"]);
    repo.git_cmd(&["mv", B, "plugins/b/skills/install"]);
    let head = repo.commit("b's setup moves");

    let (_, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    let moved = &doc["skills"][0];
    assert_eq!(moved["dir"], "plugins/b/skills/install");
    assert_eq!(moved["change"]["kind"], "renamed");
    assert_eq!(moved["change"]["from"], B);
    assert_eq!(doc["skills"].as_array().map(Vec::len), Some(1));

    assert_eq!(
        skills(&repo.db()),
        vec![
            (1, "setup".into(), Some(A.into())),
            (2, "setup".into(), Some("plugins/b/skills/install".into())),
        ],
        "the moved skill's row moved with it; nothing was merged into a's"
    );
    let by_skill: Vec<i64> = history(&repo.db()).iter().map(|h| h.0).collect();
    assert_eq!(by_skill, vec![1, 2, 2]);
    assert_eq!(history(&repo.db())[2].2.as_deref(), Some("renamed"));
}

// Pull requests ------------------------------------------------------------------------------

/// The pull request the `pull_request` jobs below run for.
const PULL: i64 = 15;

/// `check` as a `pull_request` job (no token, nothing published) on `base`..`head`: what it
/// records goes to the repository's local trail.
fn check_in_pull_request(repo: &Repo, base: &str, head: &str) -> serde_json::Value {
    let job = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/github/payloads/pull_request.opened.json"),
    )
    .expect("payload");
    let mut payload: serde_json::Value = serde_json::from_str(&text).expect("json");
    payload["pull_request"]["base"]["sha"] = base.into();
    payload["pull_request"]["head"]["sha"] = head.into();
    payload["number"] = PULL.into();
    payload["pull_request"]["number"] = PULL.into();
    let event = job.path().join("event.json");
    std::fs::write(&event, payload.to_string()).expect("write");
    let mut cmd = repo.skillgate(&[
        "check",
        "--base",
        base,
        "--head",
        head,
        "--publish",
        "none",
        "--format",
        "json",
    ]);
    cmd.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World");
    let (_, stdout, stderr) = run(cmd);
    let doc: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}): {stdout}\nstderr: {stderr}"));
    assert_eq!(doc["run"]["pull_request"], PULL, "{stderr}");
    doc
}

/// Each history row's `(skill_id, change_kind, pull_request)`, by id.
fn decisions(db: &Path) -> Vec<(i64, String, Option<i64>)> {
    let conn = Connection::open(db).expect("db");
    let mut stmt = conn
        .prepare("SELECT skill_id, change_kind, pull_request FROM approval_history ORDER BY id")
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// A repository whose main branch holds `skills/victim`, recorded; then a pull request branch
/// that moves it to `skills/evil` and calls it `evil`, gated and recorded as a pull request.
/// Returns the main commit and the pull request's head.
fn victim_moved_in_a_pull_request(repo: &Repo) -> (String, String) {
    repo.write(".gitignore", ".skillgate/\n");
    repo.skill("skills/victim", "victim", 2, 0);
    let main = repo.commit("the victim skill");
    let (_, doc) = run_json(repo, &["check", "--all"]);
    assert_eq!(doc["run"]["pull_request"], serde_json::Value::Null);
    repo.git_cmd(&["checkout", "-q", "-b", "evil-pr"]);
    repo.git_cmd(&["mv", "skills/victim", "skills/evil"]);
    repo.skill("skills/evil", "evil", 2, 0);
    let head = repo.commit("take the victim's history");
    let doc = check_in_pull_request(repo, &main, &head);
    assert_eq!(doc["skills"][0]["change"]["kind"], "renamed");
    assert_eq!(doc["skills"][0]["change"]["from"], "skills/victim");
    // Recorded on the victim's row, which stays where it is, called what it is called.
    assert_eq!(
        skills(&repo.db()),
        vec![(1, "victim".into(), Some("skills/victim".into()))]
    );
    (main, head)
}

#[test]
fn a_pull_request_never_merged_cannot_move_a_skills_history() {
    let repo = Repo::git();
    let (main, _) = victim_moved_in_a_pull_request(&repo);
    // Back on main, the victim changes: its history is its own, the pull request's decision
    // in it, and no row is called evil.
    repo.git_cmd(&["checkout", "-q", "main"]);
    repo.skill("skills/victim", "victim", 3, 0);
    let changed = repo.commit("the victim grows a test");
    let (_, doc) = run_json(&repo, &["check", "--base", &main, "--head", &changed]);
    assert_eq!(doc["skills"][0]["change"]["kind"], "modified");
    assert_eq!(
        skills(&repo.db()),
        vec![(1, "victim".into(), Some("skills/victim".into()))]
    );
    assert_eq!(
        decisions(&repo.db()),
        vec![
            (1, "unchanged".into(), None),
            (1, "renamed".into(), Some(PULL)),
            (1, "modified".into(), None),
        ]
    );
    let (code, out) = verify(&repo.db());
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_move_merged_and_recorded_outside_a_pull_request_takes_the_row_along() {
    let repo = Repo::git();
    let (main, head) = victim_moved_in_a_pull_request(&repo);
    repo.git_cmd(&["checkout", "-q", "main"]);
    repo.git_cmd(&["merge", "-q", "--ff-only", "evil-pr"]);
    // The merge, gated on the default branch (a `push` run).
    let (_, doc) = run_json(&repo, &["check", "--base", &main, "--head", &head]);
    assert_eq!(doc["skills"][0]["change"]["kind"], "renamed");
    assert_eq!(
        skills(&repo.db()),
        vec![(1, "evil".into(), Some("skills/evil".into()))]
    );
    let by_skill: Vec<i64> = decisions(&repo.db()).iter().map(|d| d.0).collect();
    assert_eq!(by_skill, vec![1, 1, 1]);
}

#[test]
fn a_skill_moved_onto_a_deleted_skills_directory_takes_its_own_row_there() {
    let repo = Repo::git();
    repo.write(".gitignore", ".skillgate/\n");
    repo.skill("skills/old", "old", 1, 0);
    let first = repo.commit("old");
    run_json(&repo, &["check", "--all"]);
    repo.remove("skills/old");
    let gone = repo.commit("old goes");
    run_json(&repo, &["check", "--base", &first, "--head", &gone]);
    repo.skill("skills/x", "x", 2, 0);
    let added = repo.commit("x");
    run_json(&repo, &["check", "--base", &gone, "--head", &added]);
    repo.git_cmd(&["mv", "skills/x", "skills/old"]);
    let moved = repo.commit("x moves where old was");
    let (_, doc) = run_json(&repo, &["check", "--base", &added, "--head", &moved]);
    assert_eq!(doc["skills"][0]["change"]["kind"], "renamed");
    assert_eq!(doc["skills"][0]["change"]["from"], "skills/x");
    assert_eq!(
        skills(&repo.db()),
        vec![
            (1, "old".into(), None),
            (2, "x".into(), Some("skills/old".into())),
        ],
        "x's row moved with it; the deleted skill kept its history without a directory"
    );
    assert_eq!(
        decisions(&repo.db())
            .into_iter()
            .map(|(id, kind, _)| (id, kind))
            .collect::<Vec<_>>(),
        vec![
            (1, "unchanged".into()),
            (1, "deleted".into()),
            (2, "added".into()),
            (2, "renamed".into()),
        ]
    );
}

#[test]
fn a_pull_request_never_merged_takes_over_no_row_the_seed_inserted() {
    let repo = Repo::git();
    repo.write(".gitignore", ".skillgate/\n");
    let main = repo.commit("empty");
    // The seed's rows: a skill inserted by name, and an agent mapped to it.
    let store = Store::open(&repo.db()).expect("open");
    drop(store);
    Connection::open(repo.db())
        .expect("db")
        .execute_batch(
            "INSERT INTO skills (name, category, content_path, content_hash, version)
             VALUES ('setup', 'testing', './.claude/skills/setup.md', 'h', '1.0.0');
             INSERT INTO agent_skill_mappings (agent_type, skill_id) VALUES ('coder', 1);",
        )
        .expect("seed");
    repo.git_cmd(&["checkout", "-q", "-b", "squatter"]);
    repo.skill("skills/setup", "setup", 1, 0);
    let head = repo.commit("a setup skill");
    check_in_pull_request(&repo, &main, &head);
    assert_eq!(
        skills(&repo.db()),
        vec![
            (1, "setup".into(), None),
            (2, "setup".into(), Some("skills/setup".into())),
        ]
    );
    let mapped: i64 = Connection::open(repo.db())
        .expect("db")
        .query_row("SELECT skill_id FROM agent_skill_mappings", [], |r| {
            r.get(0)
        })
        .expect("mapping");
    assert_eq!(mapped, 1, "the agent still loads the seed's skill");
    assert_eq!(decisions(&repo.db()), vec![(2, "added".into(), Some(PULL))]);
}

// Reviews -----------------------------------------------------------------------------------

const REPOSITORY: &str = "octo/plugins";
const HEAD: &str = "3333333333333333333333333333333333333333";

/// The examples' escalated `csv-summary` (escalate tier, coverage), twice: as `setup` in each
/// plugin, at one pull request head.
fn two_escalated_setups(attempt: u32) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    let escalated = run
        .skills
        .iter()
        .find(|s| s.name == "csv-summary")
        .cloned()
        .expect("csv-summary");
    assert_eq!(escalated.decision.decision, Verdict::Escalated);
    run.skills = [A, B]
        .into_iter()
        .map(|dir| {
            let mut skill = escalated.clone();
            skill.name = "setup".to_owned();
            skill.dir = dir.to_owned();
            skill
        })
        .collect();
    run.run.repository = REPOSITORY.to_owned();
    run.run.pull_request = Some(9);
    run.run.pull_request_head = Some(HEAD.to_owned());
    run.run.head = Some(HEAD.to_owned());
    run.run.run_id = Some("77".to_owned());
    run.run.run_attempt = attempt;
    run
}

fn review(approver: &str, decision: ReviewDecision, id: &str) -> Review {
    Review {
        approver: approver.to_owned(),
        decision,
        reasoning: format!("{approver}: {}", decision.as_str()),
        reviewed_at: "2026-11-30T12:00:00Z".to_owned(),
        review_id: id.to_owned(),
    }
}

fn pending(store: &Store) -> Vec<Pending> {
    store
        .pending_escalations(REPOSITORY, 9, HEAD)
        .expect("pending")
}

#[test]
fn two_skills_with_one_name_are_reviewed_and_counted_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("skills.db");
    let mut store = Store::open(&db).expect("open");
    assert_eq!(
        store
            .record(&two_escalated_setups(1))
            .expect("record")
            .inserted,
        2
    );

    let waiting = pending(&store);
    let listed: Vec<(&str, Option<&str>, i64)> = waiting
        .iter()
        .map(|p| (p.skill.as_str(), p.dir.as_deref(), p.skill_id))
        .collect();
    assert_eq!(listed, vec![("setup", Some(A), 1), ("setup", Some(B), 2)]);

    // One review, both skills: a row for each, and the same review again adds nothing.
    let approval = review("alice", ReviewDecision::Approved, "500");
    for p in &waiting {
        assert!(
            store.record_review(p, &approval).expect("record"),
            "{:?}",
            p.dir
        );
    }
    for p in &waiting {
        assert!(
            !store.record_review(p, &approval).expect("again"),
            "{:?}",
            p.dir
        );
    }
    // Bob asks for changes on b's only.
    store
        .record_review(
            &waiting[1],
            &review("bob", ReviewDecision::NeedsCorrection, "501"),
        )
        .expect("bob");

    let now = pending(&store);
    let words: Vec<(Option<&str>, Vec<String>, Vec<String>)> = now
        .iter()
        .map(|p| {
            (
                p.dir.as_deref(),
                p.approvers.clone(),
                p.changes_requested_by.clone(),
            )
        })
        .collect();
    assert_eq!(
        words,
        vec![
            (Some(A), vec!["alice".to_owned()], vec![]),
            (Some(B), vec!["alice".to_owned()], vec!["bob".to_owned()]),
        ]
    );
    for p in &now {
        assert_eq!(
            store
                .approvals_for(REPOSITORY, 9, HEAD, p.skill_id)
                .expect("approvals"),
            1
        );
    }

    // A later run settles a's as needing correction: only a's is listed.
    let mut later = two_escalated_setups(2);
    later.skills[0].decision.decision = Verdict::NeedsCorrection;
    store.record(&later).expect("record");
    assert_eq!(
        store
            .corrections_at(REPOSITORY, 9, HEAD)
            .expect("corrections"),
        vec![Correction {
            skill_id: 1,
            skill: "setup".to_owned(),
            dir: Some(A.to_owned()),
        }]
    );
    let still: Vec<Option<String>> = pending(&store).into_iter().map(|p| p.dir).collect();
    assert_eq!(still, vec![Some(B.to_owned())]);
    drop(store);
    let (code, out) = verify(&db);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("audit trail intact: 7 rows checked"),
        "{out}"
    );
}

// Migration ----------------------------------------------------------------------------------

/// Append a row to a version 3 chain the way skillgate 3 did: insert, then hash every stored
/// column but `row_hash` (NULLs left out) after the previous row's hash.
fn chain(
    conn: &Connection,
    prev: &str,
    id: i64,
    skill_id: i64,
    decision: &str,
    at: &str,
) -> String {
    let mut row = Map::new();
    row.insert("id".into(), id.into());
    row.insert("skill_id".into(), skill_id.into());
    row.insert("version".into(), "1.0.0".into());
    row.insert("approval_level".into(), "human".into());
    row.insert("decision".into(), decision.into());
    row.insert("timestamp".into(), at.into());
    row.insert("repository".into(), REPOSITORY.into());
    row.insert("change_kind".into(), "modified".into());
    row.insert("prev_hash".into(), prev.into());
    let hash = skillgate::store::row_hash(prev, &row);
    conn.execute(
        "INSERT INTO approval_history (id, skill_id, version, approval_level, decision,
                                       timestamp, repository, change_kind, prev_hash, row_hash)
         VALUES (?1, ?2, '1.0.0', 'human', ?3, ?4, ?5, 'modified', ?6, ?7)",
        params![id, skill_id, decision, at, REPOSITORY, prev, hash],
    )
    .expect("chained row");
    hash
}

/// Every column of every row of `table`, as SQL literals: what "unchanged" is compared on.
fn dump(conn: &Connection, table: &str) -> Vec<String> {
    let columns: Vec<String> = conn
        .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("columns");
    let quoted: Vec<String> = columns.iter().map(|c| format!("quote(\"{c}\")")).collect();
    conn.prepare(&format!(
        "SELECT {} FROM {table} ORDER BY id",
        quoted.join(" || ',' || ")
    ))
    .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
    .expect("dump")
}

#[test]
fn a_version_3_trail_keyed_by_name_migrates_keeping_every_row_and_its_chain() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/steady", "steady", 3, 0);
    let db = repo.db();
    std::fs::create_dir_all(db.parent().expect("dir")).expect("mkdir");
    {
        // Built by the migrations skillgate 3 had: `name` UNIQUE, rows keyed by it. Under
        // version 3 a skill renamed in place got a second row in its directory (csv-old, then
        // csv-summary), and the seed inserted a row with no directory.
        let conn = Connection::open(&db).expect("create");
        for (_, sql) in &skillgate::store::MIGRATIONS[..3] {
            conn.execute_batch(sql).expect("v3 migration");
        }
        conn.pragma_update(None, "user_version", 3).expect("v3");
        conn.execute_batch(
            "INSERT INTO skills (id, name, category, content_path, content_hash, version,
                                 skill_dir, test_coverage, created_at, updated_at)
             VALUES
               (1, 'steady', 'testing', '.claude/skills/steady/SKILL.md', 'a', '1.0.0',
                '.claude/skills/steady', 0.8, '2026-11-01 09:00:00', '2026-11-01 09:00:00'),
               (2, 'csv-old', 'text', '.claude/skills/csv/SKILL.md', 'b', '1.0.0',
                '.claude/skills/csv', 0.5, '2026-11-02 09:00:00', '2026-11-02 09:00:00'),
               (3, 'csv-summary', 'text', '.claude/skills/csv/SKILL.md', 'c', '1.1.0',
                '.claude/skills/csv', 0.7, '2026-11-03 09:00:00', '2026-11-03 09:00:00'),
               (4, 'backend-api-auto-approval-validator', 'testing',
                './.claude/skills/validators/backend-api-auto-approval-validator.md',
                'sha256_hash_of_content', '1.0.0', NULL, 0.95, '2026-11-04 09:00:00',
                '2026-11-04 09:00:00');
             INSERT INTO agent_skill_mappings (agent_type, skill_id, priority)
             VALUES ('coder', 4, 1), ('coder', 1, 2);",
        )
        .expect("v3 skills");
        let mut prev = skillgate::store::GENESIS.to_owned();
        for (id, skill_id, decision, at) in [
            (1, 1, "escalated", "2026-11-01 09:00:00"),
            (2, 2, "approved", "2026-11-02 09:00:00"),
            (3, 3, "escalated", "2026-11-03 09:00:00"),
            (4, 1, "approved", "2026-11-04 09:00:00"),
        ] {
            prev = chain(&conn, &prev, id, skill_id, decision, at);
        }
    }
    // The hand-built chain is a good one: version 3 verifies as it is.
    let (code, out) = verify(&db);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("audit trail intact: 4 rows checked"),
        "{out}"
    );
    let (history_v3, mappings_v3) = {
        let conn = Connection::open(&db).expect("db");
        (
            dump(&conn, "approval_history"),
            dump(&conn, "agent_skill_mappings"),
        )
    };
    let skills_v3 = dump(&Connection::open(&db).expect("db"), "skills");

    // A gate run migrates the file and records on the skill's own row.
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(doc["skills"][0]["dir"], ".claude/skills/steady");

    let conn = Connection::open(&db).expect("db");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, skillgate::store::LATEST_VERSION);
    let history_now = dump(&conn, "approval_history");
    assert_eq!(history_now[..4], history_v3[..], "no history row changed");
    assert_eq!(history_now.len(), 5);
    assert_eq!(dump(&conn, "agent_skill_mappings"), mappings_v3);
    let skills_now = dump(&conn, "skills");
    // Unchanged but for csv-old, whose directory went to the row that replaced it there, and
    // steady, which the run just updated.
    assert_eq!(skills_now.len(), 4);
    assert_eq!(skills_now[2..], skills_v3[2..]);
    assert_eq!(
        skills_now[1],
        skills_v3[1].replace("'.claude/skills/csv'", "NULL")
    );
    assert_ne!(skills_now[1], skills_v3[1]);
    assert_eq!(
        skills(&db),
        vec![
            (1, "steady".into(), Some(".claude/skills/steady".into())),
            (2, "csv-old".into(), None),
            (3, "csv-summary".into(), Some(".claude/skills/csv".into())),
            (4, "backend-api-auto-approval-validator".into(), None),
        ]
    );
    let recorded_on: i64 = conn
        .query_row(
            "SELECT skill_id FROM approval_history WHERE id = 5",
            [],
            |r| r.get(0),
        )
        .expect("row 5");
    assert_eq!(
        recorded_on, 1,
        "steady's decision joins its version 3 history"
    );
    drop(conn);

    let (code, out) = verify(&db);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("audit trail intact: 5 rows checked"),
        "{out}"
    );
}
