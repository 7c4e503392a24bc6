//! `skillgate report` on a fixed history whose every figure is known: each section's values,
//! the window, and each format (insta snapshots of the whole output).

mod common;

use std::path::Path;

use common::{Repo, run, skillgate};
use serde_json::Value;

/// 2026-12-01 00:00:00 UTC: the reports' "now" (SOURCE_DATE_EPOCH).
const NOW: &str = "1796083200";

/// A trail with five skills, eleven decisions and three uses whose report is worked out by hand
/// in the assertions below. Rows are inserted as the seed's SQL would (no hash chain: reports
/// never verify it).
pub fn history(db: &Path) {
    std::fs::create_dir_all(db.parent().expect("parent")).expect("mkdir");
    let store = skillgate::store::Store::open(db).expect("a new trail");
    let conn = store.connection();
    conn.execute_batch(
        r#"
        INSERT INTO skills (id, name, category, content_path, content_hash, version, test_coverage,
                            test_suite_path, skill_dir, created_at, status, generated_by,
                            is_auto_generated, phase4_pattern_id, required_test_pass_rate)
        VALUES
          (1, 'api-tester', 'testing', '.claude/skills/api-tester/SKILL.md', 'h1', '1.0.0', 0.92,
           '.claude/skills/api-tester/test.sh', '.claude/skills/api-tester', '2026-06-01 00:00:00',
           'active', NULL, 0, NULL, 0.95),
          (2, 'deploy-helper', 'infrastructure', '.claude/skills/deploy-helper/SKILL.md', 'h2', '1.0.0',
           0.91, '.claude/skills/deploy-helper/test.sh', '.claude/skills/deploy-helper',
           '2026-06-01 00:00:00', 'active', NULL, 0, NULL, 0.95),
          (3, 'doc-writer', 'documentation', '.claude/skills/doc-writer/SKILL.md', 'h3', '1.0.0', NULL,
           NULL, '.claude/skills/doc-writer', '2026-06-01 00:00:00', 'active', NULL, 0, NULL, 0.95),
          (4, 'token-recovery', 'error-handling', '.claude/skills/token-recovery/SKILL.md', 'h4',
           '1.0.0', 0.92, '.claude/skills/token-recovery/test.sh', '.claude/skills/token-recovery',
           '2026-11-19 17:30:00', 'active', 'phase4', 1, 487, 0.95),
          (5, 'old-skill', 'testing', '.claude/skills/old-skill/SKILL.md', 'h5', '0.1.0', 0.6,
           '.claude/skills/old-skill/test.sh', '.claude/skills/old-skill', '2026-01-01 00:00:00',
           'deprecated', NULL, 0, NULL, 0.95);

        INSERT INTO approval_history (skill_id, version, approval_level, decision, timestamp,
            escalation_timestamp, test_results, repository, pull_request, head_sha,
            pull_request_head, approver, review_id, review_duration_minutes, escalation_reason,
            escalated_to, escalation_categories, idempotency_key)
        VALUES
          (1, '1.0.0', 'auto', 'approved', '2026-11-14 10:00:00', NULL,
           '{"pass_count":47,"fail_count":0,"pass_rate":1.0,"coverage":"90%"}',
           'acme/skills', 10, 'm10', 'p10', 'system', NULL, NULL, NULL, NULL, NULL, 'k1'),
          (1, '1.0.0', 'escalate', 'escalated', '2026-11-15 10:00:00', '2026-11-15 10:00:00',
           '{"pass_count":44,"fail_count":3,"pass_rate":0.936,"coverage":"86%","flaky_tests":["t::retry"]}',
           'acme/skills', 11, 'm11', 'p11', NULL, NULL, NULL, 'coverage 86% < 90%',
           '{"users":["alice"],"teams":[]}', '["coverage"]', 'k2'),
          (1, '1.0.0', 'escalate', 'approved', '2026-11-15 11:35:00', '2026-11-15 10:00:00',
           '{"pass_count":44,"fail_count":3,"pass_rate":0.936,"coverage":"86%","flaky_tests":["t::retry"]}',
           'acme/skills', 11, 'm11', 'p11', 'alice', 'r1', 95, 'coverage 86% < 90%',
           '{"users":["alice"],"teams":[]}', '["coverage"]', 'k3'),
          (1, '1.0.0', 'auto', 'approved', '2026-11-16 10:00:00', NULL,
           '{"pass_count":45,"fail_count":2,"pass_rate":0.957,"coverage":"88%","flaky_tests":["t::retry"]}',
           'acme/skills', 12, 'm12', 'p12', 'system', NULL, NULL, NULL, NULL, NULL, 'k4'),
          (2, '1.0.0', 'human', 'escalated', '2026-11-28 09:15:00', '2026-11-28 09:15:00',
           '{"pass_count":10,"fail_count":0,"pass_rate":1.0}',
           'acme/skills', 20, 'm20', 'p20', NULL, NULL, NULL, 'infrastructure change: deploy.sh runs kubectl',
           '{"users":["alice"],"teams":["infra"]}', NULL, 'k5'),
          (3, '1.0.0', 'escalate', 'escalated', '2026-10-20 10:00:00', '2026-10-20 10:00:00',
           NULL, 'acme/skills', 30, 'm30', 'p30', NULL, NULL, NULL, 'no tests',
           '{"users":["bob"],"teams":[]}', '["coverage"]', 'k6'),
          (3, '1.0.0', 'escalate', 'approved', '2026-11-02 10:00:00', '2026-10-20 10:00:00',
           NULL, 'acme/skills', 30, 'm30', 'p30', 'bob', 'r2', 30, 'no tests',
           '{"users":["bob"],"teams":[]}', '["coverage"]', 'k7'),
          (4, '1.0.0', 'auto', 'approved', '2026-11-20 08:00:00', NULL,
           '{"pass_count":12,"fail_count":0,"pass_rate":1.0,"coverage":"92%"}',
           'acme/skills', 40, 'm40', 'p40', 'system', NULL, NULL, NULL, NULL, NULL, 'k8');

        INSERT INTO skill_usage_log (agent_id, agent_type, skill_id, task_id, phase, loaded_at,
            confidence_before, confidence_after, test_execution_result, success_indicator)
        VALUES
          ('a1', 'backend-developer', 1, 't1', 'loop3', '2026-11-20 10:00:00', 0.7, 0.825,
           '{"pass_rate":0.957}', 1),
          ('a1', 'backend-developer', 1, 't2', 'loop3', '2026-11-21 10:00:00', 0.7, 0.825,
           '{"pass_rate":0.957}', 1),
          ('a2', 'backend-developer', 1, 't3', 'loop3', '2026-11-22 10:00:00', 0.7, 0.825,
           '{"pass_rate":0.957}', 0);
        "#,
    )
    .expect("the history inserts");
}

fn report_json(db: &Path, extra: &[&str]) -> Value {
    let mut cmd = skillgate();
    cmd.args(["report", "--format", "json", "--db"])
        .arg(db)
        .args(extra)
        .env("SOURCE_DATE_EPOCH", NOW);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "report fails: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn section<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .find(|s| s["section"] == name)
        .map(|s| &s["data"])
        .unwrap_or_else(|| panic!("no section {name} in {doc}"))
}

#[test]
fn every_section_holds_the_figures_worked_out_by_hand() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    history(&db);
    let doc = report_json(&db, &[]);
    assert_eq!(doc["schema"], "skillgate.report/1");
    assert_eq!(doc["since"], "2026-11-01 00:00:00");
    assert_eq!(doc["until"], "2026-12-01 00:00:00");
    // Eight decisions, one of them (doc-writer's escalation) before the window.
    assert_eq!(
        (
            doc["decisions_in_window"].as_u64(),
            doc["decisions_total"].as_u64()
        ),
        (Some(7), Some(8))
    );

    // Seed query 1: the gate's rows only (alice's review repeats the escalation's results).
    let rates = section(&doc, "pass-rates");
    let daily: Vec<(&str, f64, u64)> = rates["daily"]
        .as_array()
        .expect("daily")
        .iter()
        .map(|d| {
            (
                d["day"].as_str().expect("day"),
                d["mean_pass_rate"].as_f64().expect("rate"),
                d["decisions"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(
        daily,
        [
            ("2026-11-14", 1.0, 1),
            ("2026-11-15", 0.936, 1),
            ("2026-11-16", 0.957, 1),
            ("2026-11-20", 1.0, 1),
            ("2026-11-28", 1.0, 1)
        ]
    );
    let api = &rates["skills"][0];
    assert_eq!(api["skill"], "api-tester");
    assert_eq!(api["runs"], 3);
    let points: Vec<(f64, f64)> = api["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| {
            (
                p["pass_rate"].as_f64().expect("rate"),
                p["coverage"].as_f64().expect("cov"),
            )
        })
        .collect();
    assert_eq!(points, [(1.0, 0.9), (0.936, 0.86), (0.957, 0.88)]);

    // Seed query 2: deploy-helper waits at PR 20 since 28 Nov 09:15; api-tester (PR 11) and
    // doc-writer (PR 30) were approved by their reviewers.
    let waiting = section(&doc, "waiting").as_array().expect("waiting");
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let w = &waiting[0];
    assert_eq!(
        (
            w["skill"].as_str(),
            w["pull_request"].as_u64(),
            w["since"].as_str(),
            w["waited_hours"].as_u64(),
            w["approval_level"].as_str()
        ),
        (
            Some("deploy-helper"),
            Some(20),
            Some("2026-11-28 09:15:00"),
            Some(62),
            Some("human")
        )
    );
    assert_eq!(
        w["escalated_to"],
        serde_json::json!(["alice", "acme/infra"])
    );

    // Seed query 3: three uses, +0.125 confidence each, two of three successful.
    let eff = section(&doc, "effectiveness");
    assert_eq!(eff[0]["usage_count"], 3);
    assert_eq!(eff[0]["confidence_improvement"], 0.125);
    assert_eq!(eff[0]["success_rate"], 0.667);

    // Seed query 4: testing holds api-tester (0.92) and old-skill (0.6).
    let coverage = section(&doc, "coverage");
    let testing = coverage
        .as_array()
        .expect("coverage")
        .iter()
        .find(|c| c["category"] == "testing")
        .expect("testing");
    assert_eq!(
        (
            testing["skill_count"].as_u64(),
            testing["avg_coverage"].as_f64(),
            testing["good"].as_u64(),
            testing["poor"].as_u64()
        ),
        (Some(2), Some(0.76), Some(1), Some(1))
    );
    let docs = coverage
        .as_array()
        .expect("coverage")
        .iter()
        .find(|c| c["category"] == "documentation")
        .expect("documentation");
    assert_eq!(docs["unmeasured"], 1);

    // Each change once, by its latest word in the window: alice's and bob's approvals answer
    // their escalations (the seed's query 5 would count six rows and 2 of 3 approved).
    let perf: Vec<(String, u64, u64, u64, f64)> = section(&doc, "gate-performance")
        .as_array()
        .expect("perf")
        .iter()
        .map(|t| {
            (
                t["approval_level"].as_str().expect("level").to_owned(),
                t["total"].as_u64().expect("total"),
                t["approved"].as_u64().expect("approved"),
                t["escalated"].as_u64().expect("escalated"),
                t["approval_rate"].as_f64().expect("rate"),
            )
        })
        .collect();
    assert_eq!(
        perf,
        [
            ("auto".to_owned(), 3, 3, 0, 100.0),
            ("escalate".to_owned(), 2, 2, 0, 100.0),
            ("human".to_owned(), 1, 0, 1, 0.0)
        ]
    );

    // Phase 4: token-recovery, registered on 19 Nov, approved on 20 Nov.
    let generated = section(&doc, "phase4");
    assert_eq!(generated[0]["skill"], "token-recovery");
    assert_eq!(generated[0]["phase4_pattern_id"], 487);
    assert_eq!(generated[0]["approved_at"], "2026-11-20 08:00:00");

    // Flaky: t::retry on two of api-tester's three gate runs.
    let flaky = section(&doc, "flaky-tests");
    assert_eq!(
        (
            flaky[0]["test"].as_str(),
            flaky[0]["flaky_runs"].as_u64(),
            flaky[0]["runs"].as_u64()
        ),
        (Some("t::retry"), Some(2), Some(3))
    );

    // Time to approval: auto approvals are immediate; alice took 95 minutes, bob 13 days.
    let times: Vec<(String, u64, f64, f64)> = section(&doc, "time-to-approval")
        .as_array()
        .expect("times")
        .iter()
        .map(|t| {
            (
                t["approval_level"].as_str().expect("level").to_owned(),
                t["approvals"].as_u64().expect("n"),
                t["median_minutes"].as_f64().expect("median"),
                t["p90_minutes"].as_f64().expect("p90"),
            )
        })
        .collect();
    assert_eq!(
        times,
        [
            ("auto".to_owned(), 3, 0.0, 0.0),
            ("escalate".to_owned(), 2, 95.0, 18_720.0)
        ]
    );

    // Migration: testing has a deprecated skill that was never gated.
    let gaps = section(&doc, "migration");
    let testing = gaps
        .as_array()
        .expect("gaps")
        .iter()
        .find(|c| c["category"] == "testing")
        .expect("testing");
    assert_eq!(
        (
            testing["deprecated"].as_u64(),
            testing["latest_auto"].as_u64(),
            testing["never_gated"].as_u64()
        ),
        (Some(1), Some(1), Some(1))
    );
}

#[test]
fn a_narrower_window_and_chosen_sections() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    history(&db);
    let doc = report_json(
        &db,
        &[
            "--since",
            "2026-11-15",
            "--until",
            "2026-11-16",
            "--section",
            "gate-performance",
            "--section",
            "pass-rates",
        ],
    );
    let names: Vec<&str> = doc["sections"]
        .as_array()
        .expect("sections")
        .iter()
        .map(|s| s["section"].as_str().expect("name"))
        .collect();
    // The report's own order, whatever the order asked.
    assert_eq!(names, ["pass-rates", "gate-performance"]);
    assert_eq!(doc["decisions_in_window"], 2);
    let perf = section(&doc, "gate-performance");
    assert_eq!(perf.as_array().map(Vec::len), Some(1));
    // The escalation and alice's approval that answers it are one change.
    assert_eq!(
        (
            perf[0]["approval_level"].as_str(),
            perf[0]["total"].as_u64(),
            perf[0]["approved"].as_u64()
        ),
        (Some("escalate"), Some(1), Some(1))
    );
}

#[test]
fn bad_windows_and_missing_trails_are_usage_errors() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    history(&db);
    for (args, says) in [
        (
            vec!["--since", "last tuesday"],
            "--since last tuesday: neither a duration nor a date",
        ),
        (vec!["--since", "2026-12-05"], "the window is empty"),
        (
            vec!["--format", "csv"],
            "--format csv writes one file per section",
        ),
    ] {
        let mut cmd = skillgate();
        cmd.args(["report", "--db"])
            .arg(&db)
            .args(&args)
            .env("SOURCE_DATE_EPOCH", NOW);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let mut cmd = skillgate();
    cmd.args(["report", "--repo"]).arg(repo.path());
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no audit database at"), "{stderr}");
}

#[test]
fn a_gate_run_records_who_its_routing_asks() {
    let repo = Repo::git();
    repo.write(
        ".skillgate.toml",
        "[routing]\nhuman = { users = [\"maintainer1\"], teams = [\"acme/maintainers\"] }\ncoverage = { users = [\"cov-expert\"] }\n",
    );
    repo.skill(".claude/skills/broken", "broken", 3, 2);
    repo.skill(".claude/skills/fine", "fine", 3, 0);
    repo.commit("skills");
    let (_, _, stderr) = run(repo.skillgate(&["check", "--all", "--publish", "none"]));
    let conn = rusqlite::Connection::open(repo.db()).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let mut stmt = conn
        .prepare(
            "SELECT s.name, ah.decision, ah.escalated_to FROM approval_history ah
             JOIN skills s ON s.id = ah.skill_id ORDER BY s.name",
        )
        .expect("select");
    let rows: Vec<(String, String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        rows,
        [
            // Two of five tests fail: a maintainer's review (the human route).
            (
                "broken".to_owned(),
                "escalated".to_owned(),
                Some(r#"{"users":["maintainer1"],"teams":["maintainers"]}"#.to_owned())
            ),
            // No coverage measured: an expert of the coverage route.
            (
                "fine".to_owned(),
                "escalated".to_owned(),
                Some(r#"{"users":["cov-expert"],"teams":[]}"#.to_owned())
            ),
        ],
        "{stderr}"
    );
}

/// The report of the fixed history in `format`, made by the binary.
fn rendered(db: &Path, format: &str, out: Option<&Path>) -> String {
    let mut cmd = skillgate();
    cmd.args(["report", "--format", format, "--db"])
        .arg(db)
        .env("SOURCE_DATE_EPOCH", NOW);
    if let Some(out) = out {
        cmd.arg("--out").arg(out);
    }
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "report --format {format} fails: {stderr}");
    stdout
}

#[test]
fn each_format_of_the_fixed_history() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    history(&db);
    insta::assert_snapshot!("history_markdown", rendered(&db, "markdown", None));
    insta::assert_snapshot!("history_json", rendered(&db, "json", None));
    insta::assert_snapshot!("history_html", rendered(&db, "html", None));
    let dir = repo.path().join("csv");
    let said = rendered(&db, "csv", Some(&dir));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the csv directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "coverage.csv",
            "effectiveness.csv",
            "flaky-tests.csv",
            "gate-performance.csv",
            "migration.csv",
            "pass-rates.csv",
            "phase4.csv",
            "time-to-approval.csv",
            "waiting.csv"
        ]
    );
    assert_eq!(said.lines().count(), 9, "one line per file written: {said}");
    for file in files {
        let text = std::fs::read_to_string(dir.join(&file)).expect("csv");
        insta::assert_snapshot!(format!("history_csv_{file}"), text);
    }
    // One section, printed.
    let mut cmd = skillgate();
    cmd.args(["report", "--format", "csv", "--section", "waiting", "--db"])
        .arg(&db)
        .env("SOURCE_DATE_EPOCH", NOW);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("skill,") && stdout.contains("deploy-helper"),
        "{stdout}"
    );
}

#[test]
fn a_segmented_trail_reports_as_its_single_file_does() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    history(&db);
    let whole = report_json(&db, &[]);
    // `split` records the segments in the file it splits: it is the working copy of a run.
    let split = repo.path().join("segmented");
    let written = skillgate::store::Store::open(&db)
        .expect("open")
        .split(&split, skillgate::store::MIN_SEGMENT_SIZE)
        .expect("split");
    assert_eq!(written.segments.len(), 1, "{:?}", written.segments);
    let segmented = report_json(&written.registry, &[]);
    assert_eq!(segmented, whole);
    assert_eq!(segmented["decisions_total"], 8);
}

/// The reviewers' counterexamples: RFC 3339 rows at the window's edge, an approval dismissed
/// and given again, a skill re-escalated at a new head, a change request, uses whose average
/// fails the seed's 0.90 bar.
#[test]
fn changes_count_once_by_their_latest_word_and_edges_are_exact() {
    let repo = Repo::plain();
    let db = repo.path().join("trail.db");
    std::fs::create_dir_all(repo.path()).expect("dir");
    let store = skillgate::store::Store::open(&db).expect("a new trail");
    store
        .connection()
        .execute_batch(
            r#"
        INSERT INTO skills (id, name, category, content_path, content_hash, version, skill_dir)
        VALUES (1, 'alpha', 'testing', 'a/SKILL.md', 'ha', '1.0.0', 'skills/alpha'),
               (2, 'beta', 'testing', 'b/SKILL.md', 'hb', '1.0.0', 'skills/beta'),
               (3, 'gamma', 'testing', 'c/SKILL.md', 'hc', '1.0.0', 'skills/gamma'),
               (4, 'delta', 'testing', 'd/SKILL.md', 'hd', '1.0.0', 'skills/delta'),
               (5, 'epsilon', 'testing', 'e/SKILL.md', 'he', '1.0.0', 'skills/epsilon');
        INSERT INTO approval_history (skill_id, version, approval_level, decision, timestamp,
            escalation_timestamp, repository, pull_request, head_sha, pull_request_head,
            approver, review_id, review_duration_minutes, escalated_to, idempotency_key)
        VALUES
          -- alpha, #1: escalated (an RFC 3339 time), approved, dismissed, approved again.
          (1, '1', 'escalate', 'escalated', '2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z',
           'o/r', 1, 'm1', 'a1', NULL, NULL, NULL, '{"users":["alice"],"teams":[]}', 'k1'),
          (1, '1', 'escalate', 'approved', '2026-11-20 12:00:00', NULL,
           'o/r', 1, 'm1', 'a1', 'alice', 'r1', 120, NULL, 'k2'),
          (1, '1', 'escalate', 'escalated', '2026-11-20 13:00:00', NULL,
           'o/r', 1, 'm1', 'a1', 'alice', 'r1-dismissed', NULL, NULL, 'k3'),
          (1, '1', 'escalate', 'approved', '2026-11-20 14:00:00', NULL,
           'o/r', 1, 'm1', 'a1', 'alice', 'r2', 240, NULL, 'k4'),
          -- beta, #2: auto at one head, escalated to a maintainer at the next, approved 3 days on.
          (2, '1', 'auto', 'approved', '2026-11-21 10:00:00', NULL,
           'o/r', 2, 'm2', 'b1', 'system', NULL, NULL, NULL, 'k5'),
          (2, '1', 'human', 'escalated', '2026-11-22 10:00:00', '2026-11-22 10:00:00',
           'o/r', 2, 'm3', 'b2', NULL, NULL, NULL, '{"users":["maint"],"teams":[]}', 'k6'),
          (2, '1', 'human', 'approved', '2026-11-25 10:00:00', NULL,
           'o/r', 2, 'm3', 'b2', 'maint', 'r3', 4320, NULL, 'k7'),
          -- alpha, #3: six hours before the window opens, written as RFC 3339.
          (1, '1', 'auto', 'approved', '2026-11-10T06:00:00Z', NULL,
           'o/r', 3, 'm4', 'c1', 'system', NULL, NULL, NULL, 'k8'),
          -- gamma, #4: escalated, then bob asked for changes: it waits on its author.
          (3, '1', 'escalate', 'escalated', '2026-11-26 10:00:00', '2026-11-26 10:00:00',
           'o/r', 4, 'm5', 'd1', NULL, NULL, NULL, '{"users":["bob"],"teams":[]}', 'k9'),
          (3, '1', 'escalate', 'needs_correction', '2026-11-27 10:00:00', NULL,
           'o/r', 4, 'm5', 'd1', 'bob', 'r4', 1440, NULL, 'k10'),
          -- delta, #5: approved, then a re-run at the same head escalates again: still approved.
          (4, '1', 'escalate', 'escalated', '2026-11-28 08:00:00', '2026-11-28 08:00:00',
           'o/r', 5, 'm6', 'e1', NULL, NULL, NULL, '{"users":["alice"],"teams":[]}', 'k11'),
          (4, '1', 'escalate', 'approved', '2026-11-28 09:00:00', NULL,
           'o/r', 5, 'm6', 'e1', 'alice', 'r5', 60, NULL, 'k12'),
          (4, '1', 'escalate', 'escalated', '2026-11-28 10:00:00', '2026-11-28 10:00:00',
           'o/r', 5, 'm6', 'e1', NULL, NULL, NULL, '{"users":["alice"],"teams":[]}', 'k13'),
          -- epsilon, #6: bob asks for changes, then alice approves: the change request stands.
          (5, '1', 'human', 'escalated', '2026-11-28 08:00:00', '2026-11-28 08:00:00',
           'o/r', 6, 'm7', 'f1', NULL, NULL, NULL, '{"users":["alice","bob"],"teams":[]}', 'k14'),
          (5, '1', 'human', 'needs_correction', '2026-11-28 08:30:00', NULL,
           'o/r', 6, 'm7', 'f1', 'bob', 'r6', 30, NULL, 'k15'),
          (5, '1', 'human', 'approved', '2026-11-28 09:00:00', NULL,
           'o/r', 6, 'm7', 'f1', 'alice', 'r7', 60, NULL, 'k16');
        INSERT INTO skill_usage_log (agent_id, agent_type, skill_id, task_id, loaded_at,
            confidence_before, confidence_after, test_execution_result, success_indicator)
        VALUES ('a', 'tester', 1, 't1', '2026-11-20 10:00:00', 0.5, 0.4, '{"pass_rate":0.2}', 0),
               ('a', 'tester', 1, 't2', '2026-11-20 11:00:00', 0.5, 0.9, '{"pass_rate":0.95}', 1),
               ('a', 'tester', 1, 't3', '2026-11-20 12:00:00', 0.5, 0.4, '{"pass_rate":0.1}', 0),
               ('a', 'tester', 1, 't4', '2026-11-20 13:00:00', 0.5, 0.9, '{"pass_rate":0.91}', 1);
        "#,
        )
        .expect("inserts");
    drop(store);
    let doc = report_json(&db, &["--since", "2026-11-10T12:00:00Z"]);
    // Sixteen rows, the one six hours before the window left out.
    assert_eq!(doc["decisions_in_window"], 15);
    let perf: Vec<(String, u64, u64, u64, u64)> = section(&doc, "gate-performance")
        .as_array()
        .expect("perf")
        .iter()
        .map(|t| {
            (
                t["approval_level"].as_str().expect("level").to_owned(),
                t["total"].as_u64().expect("total"),
                t["approved"].as_u64().expect("approved"),
                t["needs_correction"].as_u64().expect("corrections"),
                t["escalated"].as_u64().expect("open"),
            )
        })
        .collect();
    assert_eq!(
        perf,
        [
            ("auto".to_owned(), 1, 1, 0, 0),
            ("escalate".to_owned(), 3, 2, 1, 0),
            ("human".to_owned(), 2, 1, 1, 0)
        ]
    );
    let times: Vec<(String, f64)> = section(&doc, "time-to-approval")
        .as_array()
        .expect("times")
        .iter()
        .map(|t| {
            (
                t["approval_level"].as_str().expect("level").to_owned(),
                t["median_minutes"].as_f64().expect("median"),
            )
        })
        .collect();
    // alpha waited four hours for the approval that stands, delta one (its re-run changes
    // nothing); beta three days at its new head; epsilon is not approved.
    assert_eq!(
        times,
        [
            ("auto".to_owned(), 0.0),
            ("escalate".to_owned(), 60.0),
            ("human".to_owned(), 4320.0)
        ]
    );
    // No row here carries test results: no daily series.
    let days: Vec<&str> = section(&doc, "pass-rates")["daily"]
        .as_array()
        .expect("daily")
        .iter()
        .map(|d| d["day"].as_str().expect("day"))
        .collect();
    assert!(days.is_empty(), "no row has test results: {days:?}");
    // gamma and epsilon wait on their authors: shown with bob's change requests.
    let waiting = section(&doc, "waiting").as_array().expect("waiting");
    let waits: Vec<(&str, &Value)> = waiting
        .iter()
        .map(|w| {
            (
                w["skill"].as_str().expect("skill"),
                &w["changes_requested_by"],
            )
        })
        .collect();
    let bob = serde_json::json!(["bob"]);
    // Longest wait first.
    assert_eq!(waits, [("gamma", &bob), ("epsilon", &bob)], "{waiting:?}");
    // Mean pass rate 0.54 over four uses: under the seed's 0.90, not listed.
    assert_eq!(section(&doc, "effectiveness"), &serde_json::json!([]));
}
