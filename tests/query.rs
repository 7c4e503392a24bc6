//! `skillgate query`: the seed's named queries and read-only SQL on a trail a real `check`
//! wrote, as a single file and as a segmented trail; every write refused, the files unchanged.

mod common;

use std::path::{Path, PathBuf};

use common::{Repo, run, skillgate};
use rusqlite::Connection;
use serde_json::{Value, json};
use skillgate::gate::GateRun;
use skillgate::store::named::CATALOG;
use skillgate::store::{MIN_SEGMENT_SIZE, Store};

/// The trail: a real `check` of three skills (steady 20/20, shaky 3/5, untested), six runs of
/// the five example skills, two usage rows and a Phase 4 skill written by hand; as the single
/// file, and split into a registry and its segments.
struct Trail {
    repo: Repo,
    single: PathBuf,
    registry: PathBuf,
}

fn examples_run(n: usize) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.run_id = Some(format!("query-{n}"));
    // Now, so the seed's windows (48 hours, 7 and 30 days) hold every row.
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    run.run.started_at = now.clone();
    run.run.finished_at = now;
    run
}

fn trail() -> Trail {
    let repo = Repo::plain();
    repo.skill(".claude/skills/steady", "steady", 20, 0);
    repo.skill(".claude/skills/shaky", "shaky", 3, 2);
    repo.write(
        ".claude/skills/untested/SKILL.md",
        "---\nname: untested\ndescription: No tests.\n---\n",
    );
    let (code, _, stderr) = run(repo.skillgate(&["check", "--all"]));
    assert_eq!(code, 3, "{stderr}");
    let mut store = Store::open(&repo.db()).expect("open");
    for n in 0..6 {
        assert_eq!(store.record(&examples_run(n)).expect("record").inserted, 5);
    }
    store
        .connection()
        .execute_batch(
            "INSERT INTO skill_usage_log (agent_id, agent_type, skill_id, task_id,
                 confidence_before, confidence_after, test_execution_result, success_indicator)
             SELECT 'a1', 'coder', id, 't1', 0.5, 0.75, '{\"pass_rate\": 1.0}', 1
             FROM skills WHERE name = 'steady';
             INSERT INTO skill_usage_log (agent_id, agent_type, skill_id, task_id,
                 confidence_before, confidence_after, test_execution_result, success_indicator)
             SELECT 'a2', 'coder', id, 't2', 0.5, 0.5, '{\"pass_rate\": 0.6}', 0
             FROM skills WHERE name = 'shaky';
             INSERT INTO skills (name, category, content_path, content_hash, version,
                 test_coverage, test_suite_path, generated_by, is_auto_generated)
             VALUES ('token-recovery', 'error-handling', 'gen/SKILL.md', 'h', '1.0.0', 0.92,
                 'gen/test.sh', 'phase4', 1);",
        )
        .expect("hand rows");
    drop(store);
    let single = repo.db();
    let work = repo.path().join("work.db");
    std::fs::copy(&single, &work).expect("copy");
    let split = Store::open(&work)
        .expect("open")
        .split(&repo.path().join("split"), MIN_SEGMENT_SIZE)
        .expect("split");
    assert!(
        split.segments.len() >= 2,
        "{} segments",
        split.segments.len()
    );
    Trail {
        repo,
        single,
        registry: split.registry,
    }
}

fn query(db: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = skillgate();
    cmd.arg("query").args(args).arg("--db").arg(db);
    run(cmd)
}

/// The rows of `query … --format json`, exit 0 asserted.
fn rows(db: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, stdout, stderr) = query(db, &all);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    doc.as_array().expect("an array").clone()
}

/// The column names of a query, in order, from its table's header.
fn columns(db: &Path, args: &[&str]) -> Vec<String> {
    let (code, stdout, stderr) = query(db, args);
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().next().unwrap_or_default();
    header.split_whitespace().map(str::to_owned).collect()
}

/// Rows as a set: the seed's ORDER BYs leave ties open, and a view over segments may return
/// tied rows in another order than the file's index does.
fn sorted(mut rows: Vec<Value>) -> Vec<Value> {
    rows.sort_by_key(|r| r.to_string());
    rows
}

/// The rows of named query `name` on both forms of the trail, checked to be the same set.
fn named(trail: &Trail, name: &str, extra: &[&str]) -> Vec<Value> {
    let args: Vec<&str> = [name].iter().chain(extra).copied().collect();
    let single = rows(&trail.single, &args);
    let segmented = rows(&trail.registry, &args);
    assert_eq!(sorted(segmented), sorted(single.clone()), "{name}");
    single
}

/// `(column, value)` of each row, for the columns named: what a test asserts.
fn pick(rows: &[Value], columns: &[&str]) -> Vec<Vec<Value>> {
    rows.iter()
        .map(|r| columns.iter().map(|c| r[*c].clone()).collect())
        .collect()
}

#[test]
fn every_named_query_runs_on_a_single_file_and_on_its_segments() {
    let trail = trail();
    let mut answered = 0;
    for query in CATALOG {
        let extra: &[&str] = if query.params.is_empty() {
            &[]
        } else {
            &["--param", "SKILL_ID=shaky"]
        };
        answered += usize::from(!named(&trail, query.name, extra).is_empty());
    }
    // auto-approval-check alone has no row: no skill records risk_score and complexity.
    assert_eq!(answered, CATALOG.len() - 1);

    let trend = named(&trail, "pass-rate-trend", &["--param", "SKILL_ID=shaky"]);
    assert_eq!(
        columns(
            &trail.registry,
            &["pass-rate-trend", "--param", "SKILL_ID=shaky"]
        ),
        [
            "timestamp",
            "approval_level",
            "pass_rate",
            "pass_count",
            "fail_count",
            "coverage",
            "decision"
        ]
    );
    assert_eq!(
        pick(
            &trend,
            &[
                "approval_level",
                "pass_rate",
                "pass_count",
                "fail_count",
                "coverage",
                "decision"
            ]
        ),
        [[
            json!("human"),
            json!(0.6),
            json!(3),
            json!(2),
            Value::Null,
            json!("escalated")
        ]]
    );

    let human = sorted(named(&trail, "human-approval", &[]));
    assert_eq!(
        pick(
            &human,
            &[
                "name",
                "category",
                "review_count",
                "escalation_reason",
                "approval_level"
            ]
        ),
        [
            [
                json!("commit-message-style"),
                json!("docs"),
                json!(6),
                json!("no test suite"),
                json!("human")
            ],
            [
                json!("semver-bump"),
                json!("release"),
                json!(6),
                json!("pass rate 0.60 (3/5) < 0.80"),
                json!("human")
            ],
            [
                json!("shaky"),
                json!("testing"),
                json!(1),
                json!("pass rate 0.60 (3/5) < 0.80"),
                json!("human")
            ],
            [
                json!("untested"),
                json!("uncategorized"),
                json!(1),
                json!("no test suite"),
                json!("human")
            ],
        ]
    );

    // shaky's usage (pass rate 0.6) is below the seed's HAVING test_pass_rate >= 0.90.
    assert_eq!(
        named(&trail, "effectiveness", &[]),
        [
            json!({"agent_type": "coder", "name": "steady", "category": "testing",
                "test_pass_rate": 1.0, "confidence_improvement": 0.25, "usage_count": 1,
                "success_rate": 1.0})
        ]
    );

    let coverage = named(&trail, "coverage-by-category", &[]);
    assert_eq!(coverage.len(), 8);
    assert_eq!(
        pick(
            &coverage[..3],
            &[
                "category",
                "skill_count",
                "avg_coverage",
                "excellent_coverage_count",
                "good_coverage_count"
            ]
        ),
        [
            [json!("text"), json!(1), json!(0.975), json!(1), json!(0)],
            [
                json!("error-handling"),
                json!(1),
                json!(0.92),
                json!(0),
                json!(1)
            ],
            [json!("data"), json!(1), json!(0.91), json!(0), json!(1)],
        ]
    );
    let testing = coverage
        .iter()
        .find(|r| r["category"] == "testing")
        .expect("testing");
    assert_eq!(
        (&testing["skill_count"], &testing["avg_coverage"]),
        (&json!(2), &Value::Null)
    );

    let gates = named(&trail, "gate-performance", &[]);
    let mut levels = pick(
        &gates,
        &[
            "approval_level",
            "total_approvals",
            "approved_count",
            "approval_rate",
        ],
    );
    levels.sort_by_key(|r| r[0].to_string());
    assert_eq!(
        levels,
        [
            [json!("auto"), json!(6), json!(6), json!(100.0)],
            [json!("escalate"), json!(13), json!(0), json!(0.0)],
            [json!("human"), json!(14), json!(0), json!(0.0)],
        ]
    );
    assert_eq!(
        gates[0]["approval_level"], "auto",
        "ordered by approval_rate"
    );

    assert_eq!(
        pick(
            &named(&trail, "recently-generated", &[]),
            &["name", "category", "test_coverage", "decision"]
        ),
        [[
            json!("token-recovery"),
            json!("error-handling"),
            json!(0.92),
            Value::Null
        ]]
    );

    let assessment = named(&trail, "migration-assessment", &[]);
    assert_eq!(
        pick(
            &assessment[..1],
            &[
                "category",
                "skill_count",
                "no_coverage_data",
                "no_test_path",
                "deprecated"
            ]
        ),
        [[json!("testing"), json!(2), json!(2), json!(0), json!(0)]]
    );
    let no_path: i64 = assessment
        .iter()
        .map(|r| r["no_test_path"].as_i64().expect("n"))
        .sum();
    assert_eq!(
        no_path, 2,
        "untested and commit-message-style have no suite"
    );

    assert_eq!(
        pick(
            &named(&trail, "migration-verify", &[]),
            &["category", "avg_coverage"]
        ),
        [
            [json!("text"), json!(0.97)],
            [json!("error-handling"), json!(0.92)],
            [json!("data"), json!(0.91)],
        ]
    );

    // No row, but the columns are the seed's: the table says so.
    let (code, stdout, _) = query(&trail.registry, &["auto-approval-check"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout.lines().next(),
        Some("id  name  test_coverage  required_test_pass_rate  coverage_check  test_pass_check")
    );
    assert_eq!(stdout.lines().last(), Some("(0 rows)"));

    assert_eq!(
        pick(&named(&trail, "escalation-reasons", &[]), &["name"]),
        [[json!("csv-summary")]]
    );
    let pending = named(&trail, "pending-human", &[]);
    assert_eq!(pending.len(), 14);
    assert!(pending.iter().all(|r| r["approval_level"] == "human"));
}

#[test]
fn list_names_each_query_on_one_aligned_line() {
    let (code, stdout, stderr) = run({
        let mut cmd = skillgate();
        cmd.args(["query", "--list"]);
        cmd
    });
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), CATALOG.len());
    let column = CATALOG.iter().map(|q| q.name.len()).max().expect("some") + 2;
    for (line, query) in lines.iter().zip(CATALOG) {
        assert!(line.starts_with(query.name), "{line}");
        assert_eq!(
            line.get(column..),
            Some(&*format!(
                "{}{}",
                query.summary,
                if query.params.is_empty() {
                    ""
                } else {
                    " (--param SKILL_ID=ID|NAME)"
                }
            ))
        );
    }
}

const SMALL: &str = "SELECT name, category, test_coverage FROM skills \
                     WHERE name IN ('slugify-title', 'untested', 'token-recovery') ORDER BY name";

#[test]
fn each_format_prints_exactly() {
    let trail = trail();
    for db in [&trail.single, &trail.registry] {
        let (code, table, stderr) = query(db, &["--sql", SMALL]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(
            table,
            "name            category        test_coverage\n\
             --------------  --------------  -------------\n\
             slugify-title   text                    0.975\n\
             token-recovery  error-handling           0.92\n\
             untested        uncategorized            NULL\n\
             (3 rows)\n"
        );
        let (code, doc, _) = query(db, &["--sql", SMALL, "--format", "json"]);
        assert_eq!(code, 0);
        assert_eq!(
            doc,
            "[\n  \
             {\"name\": \"slugify-title\", \"category\": \"text\", \"test_coverage\": 0.975},\n  \
             {\"name\": \"token-recovery\", \"category\": \"error-handling\", \"test_coverage\": 0.92},\n  \
             {\"name\": \"untested\", \"category\": \"uncategorized\", \"test_coverage\": null}\n\
             ]\n"
        );
        let (code, csv, _) = query(db, &["--sql", SMALL, "--format", "csv"]);
        assert_eq!(code, 0);
        assert_eq!(
            csv,
            "name,category,test_coverage\n\
             slugify-title,text,0.975\n\
             token-recovery,error-handling,0.92\n\
             untested,uncategorized,\n"
        );
    }
}

#[test]
fn hostile_cells_cannot_forge_lines_or_formulas() {
    let trail = trail();
    let sql = "SELECT '=HYPERLINK(\"http://x\")' AS f, 'ok' || char(10) || '::warning::pwned' AS b, \
               -3 AS n";
    let (code, table, _) = query(&trail.single, &["--sql", sql]);
    assert_eq!(code, 0);
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(table.contains("ok\\n::warning::pwned"), "{table}");
    let (code, csv, _) = query(&trail.single, &["--sql", sql, "--format", "csv"]);
    assert_eq!(code, 0);
    // The formula is quoted and made text; the line break stays inside its quotes, and the
    // line after it cannot start a workflow command.
    assert_eq!(
        csv,
        "f,b,n\n\"'=HYPERLINK(\"\"http://x\"\")\",\"ok\n: :warning::pwned\",-3\n"
    );
    let (code, doc, _) = query(&trail.single, &["--sql", sql, "--format", "json"]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&doc).expect("json");
    assert_eq!(doc[0]["b"], "ok\n::warning::pwned");
    assert_eq!(doc[0]["n"], -3);
}

/// Every file of the trail (and its directory listings) with its sha256.
fn fingerprint(trail: &Trail) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for dir in [
        trail.single.parent().expect("dir").to_path_buf(),
        trail.registry.parent().expect("dir").to_path_buf(),
        trail.registry.parent().expect("dir").join("trail"),
    ] {
        for entry in std::fs::read_dir(&dir).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_file() {
                let sha = skillgate::store::sha256(&std::fs::read(&path).expect("read"));
                files.push((path, sha));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_write_is_refused_naming_the_statement_and_the_trail_is_unchanged() {
    let trail = trail();
    let scratch = tempfile::tempdir().expect("tempdir");
    let vacuum_into = scratch.path().join("copy.db");
    let vacuum = format!("VACUUM INTO '{}'", vacuum_into.display());
    let before = fingerprint(&trail);
    let cases: Vec<(&str, String)> = vec![
        (
            "DELETE FROM skills",
            "`DELETE FROM skills` would write to the audit trail".into(),
        ),
        (
            "UPDATE skills SET name = 'x'",
            "`UPDATE skills SET name = 'x'` would write to the audit trail".into(),
        ),
        (
            "INSERT INTO skills (name) VALUES ('x')",
            "`INSERT INTO skills (name) VALUES ('x')` would write to the audit trail".into(),
        ),
        (
            "CREATE TABLE t (x)",
            "`CREATE TABLE t (x)` would write to the audit trail".into(),
        ),
        (
            "DROP TABLE skills",
            "`DROP TABLE skills` would write to the audit trail".into(),
        ),
        (
            "ATTACH 'x.db' AS x",
            "`ATTACH 'x.db' AS x` would attach another database file".into(),
        ),
        (
            vacuum.as_str(),
            format!(
                "`{vacuum}` would write to the audit trail (VACUUM rewrites the database, \
                 VACUUM INTO writes a new file)"
            ),
        ),
        (
            "PRAGMA user_version = 9",
            "`PRAGMA user_version = 9` would set pragma user_version to 9".into(),
        ),
        (
            "PRAGMA query_only = 0",
            "`PRAGMA query_only = 0` would set pragma query_only to 0".into(),
        ),
        (
            "WITH doomed AS (SELECT id FROM skills)\nDELETE FROM skills WHERE id IN doomed",
            "`WITH doomed AS (SELECT id FROM skills) DELETE FROM skills WHERE id IN doomed` \
             would write to the audit trail (delete from skills)"
                .into(),
        ),
        (
            "SELECT 1; DELETE FROM skills",
            "one statement at a time: `SELECT 1` is followed by `DELETE FROM skills`".into(),
        ),
    ];
    for db in [&trail.single, &trail.registry] {
        for (sql, why) in &cases {
            let mut cmd = skillgate();
            cmd.current_dir(scratch.path())
                .args(["query", "--sql", sql, "--db"])
                .arg(db);
            let (code, stdout, stderr) = run(cmd);
            assert_eq!(code, 2, "{sql}: {stdout}{stderr}");
            assert_eq!(stdout, "", "{sql}");
            let first = stderr.lines().next().unwrap_or_default();
            let expected = if why.starts_with("one statement") {
                format!("error: refused: {why}")
            } else {
                format!("error: refused: {why}; query opens it read-only")
            };
            assert_eq!(first, expected, "{sql}");
            assert!(stderr.contains("\nhelp: "), "{stderr}");
        }
    }
    assert!(
        !vacuum_into.exists(),
        "VACUUM INTO wrote {}",
        vacuum_into.display()
    );
    assert!(!scratch.path().join("x.db").exists(), "ATTACH made x.db");
    assert_eq!(fingerprint(&trail), before, "the trail's files changed");
    // And the trail still reads.
    assert_eq!(
        rows(
            &trail.registry,
            &["--sql", "SELECT count(*) AS n FROM skills"]
        ),
        [json!({"n": 9})]
    );
}

#[test]
fn a_statement_that_never_ends_stops_at_the_time_limit() {
    use skillgate::pipeline::query::{QueryRequest, What, run as run_query};
    use skillgate::store::query::Limits;
    let trail = trail();
    for db in [&trail.single, &trail.registry] {
        let started = std::time::Instant::now();
        let err = run_query(&QueryRequest {
            repo: trail.repo.path().to_path_buf(),
            db: Some(db.clone()),
            what: What::Sql(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                 SELECT count(*) FROM c JOIN approval_history"
                    .into(),
            ),
            params: Vec::new(),
            limits: Limits {
                time: std::time::Duration::from_millis(300),
                ..Limits::default()
            },
        })
        .expect_err("interrupted");
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert_eq!(err.exit_code(), 2);
        assert_eq!(
            err.to_string(),
            "`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) \
             …` ran past the time limit of 300ms"
        );
        assert_eq!(err.help(), Some("narrow it with WHERE or LIMIT"));
    }
}

#[test]
fn parameters_bind_by_name_and_a_skill_by_its_name_or_directory() {
    let trail = trail();
    let db = &trail.registry;
    let shaky = rows(db, &["--sql", "SELECT id FROM skills WHERE name = 'shaky'"])[0]["id"].clone();
    let by_name = rows(db, &["pass-rate-trend", "--param", "SKILL_ID=shaky"]);
    let by_id = rows(
        db,
        &["pass-rate-trend", "--param", &format!("SKILL_ID={shaky}")],
    );
    let by_dir = rows(
        db,
        &[
            "pass-rate-trend",
            "--param",
            "SKILL_ID=.claude/skills/shaky",
        ],
    );
    assert_eq!(by_name.len(), 1);
    assert_eq!(by_id, by_name);
    assert_eq!(by_dir, by_name);
    assert_eq!(
        rows(
            db,
            &[
                "--sql",
                "SELECT name FROM skills WHERE id = $SKILL_ID",
                "--param",
                "SKILL_ID=steady"
            ]
        ),
        [json!({"name": "steady"})]
    );
    assert_eq!(
        rows(
            db,
            &[
                "--sql",
                "SELECT :a + 1 AS b, @c AS c, $d > 0.5 AS d",
                "--param",
                "a=2",
                "--param",
                "c=x",
                "--param",
                "d=0.75"
            ]
        ),
        [json!({"b": 3, "c": "x", "d": 1})]
    );

    let (code, _, stderr) = query(db, &["pass-rate-trend"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: missing parameter SKILL_ID: `SELECT ah.timestamp, ah.approval_level, \
         JSON_EXTRACT(ah.test_results, '$.pass_ra…` uses $SKILL_ID\n\
         help: pass --param SKILL_ID=ID|NAME\n"
    );
    let (code, _, stderr) = query(db, &["pass-rate-trend", "--param", "SKILL_ID=shakey"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: --param SKILL_ID=shakey: no skill has that name or directory\n\
         help: did you mean `shaky`?\n"
    );
    let (code, _, stderr) = query(db, &["gate-performance", "--param", "SKILL_ID=3"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: unknown parameter SKILL_ID: `SELECT ah.approval_level,")
            && stderr.ends_with("` takes no parameters\n"),
        "{stderr}"
    );
    let (code, _, stderr) = query(
        db,
        &["--sql", "SELECT $a, $b", "--param", "a=1", "--param", "c=2"],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: missing parameter b: "),
        "{stderr}"
    );
    let (code, _, stderr) = query(db, &["--sql", "SELECT ?1"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: `SELECT ?1` has a positional parameter (?1)"),
        "{stderr}"
    );

    // Two skills named `shaky` (two directories): the name is ambiguous, each id is listed.
    let dup = trail.repo.path().join("dup.db");
    std::fs::copy(&trail.single, &dup).expect("copy");
    let conn = Connection::open(&dup).expect("open");
    conn.execute(
        "INSERT INTO skills (name, category, content_path, content_hash, version, skill_dir) \
         VALUES ('shaky', 'testing', 'x/SKILL.md', 'h', '1', 'plugins/x/shaky')",
        [],
    )
    .expect("insert");
    let other = conn.last_insert_rowid();
    drop(conn);
    let (code, _, stderr) = query(&dup, &["pass-rate-trend", "--param", "SKILL_ID=shaky"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        format!(
            "error: --param SKILL_ID=shaky: 2 skills have that name: ids {shaky} \
             (.claude/skills/shaky), {other} (plugins/x/shaky)\n\
             help: pass the id (--param SKILL_ID=ID), or the skill's directory\n"
        )
    );
    assert_eq!(
        rows(
            &dup,
            &["pass-rate-trend", "--param", "SKILL_ID=plugins/x/shaky"]
        ),
        Vec::<Value>::new()
    );
}

#[test]
fn an_unknown_name_a_missing_or_unreadable_database_are_named() {
    let trail = trail();
    let (code, stdout, stderr) = query(&trail.single, &["gate-perfromance"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: no named query `gate-perfromance`\n\
         help: did you mean `gate-performance`? `skillgate query --list` names them all\n"
    );
    let missing = trail.repo.path().join("nope.db");
    let (code, _, stderr) = query(&missing, &["gate-performance"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(&format!(
            "error: no audit database at {}\n",
            missing.display()
        )),
        "{stderr}"
    );
    let garbage = trail.repo.path().join("garbage.db");
    std::fs::write(&garbage, b"this is not a database, only some bytes").expect("write");
    let (code, _, stderr) = query(&garbage, &["gate-performance"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(&garbage.display().to_string()), "{stderr}");
    let (code, _, stderr) = query(&trail.single, &["--sql", "SELECT * FROM no_such_table"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(
            "error: `SELECT * FROM no_such_table` is not a statement SQLite can run: "
        ),
        "{stderr}"
    );
}

#[test]
fn without_db_the_repository_trail_is_found_single_or_segmented() {
    let trail = trail();
    // A single file at `[audit] db`.
    let (code, single, stderr) =
        run(trail
            .repo
            .skillgate(&["query", "gate-performance", "--format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    // A segmented trail: registry.db beside it wins.
    let other = Repo::plain();
    let dir = other.path().join(".skillgate");
    std::fs::create_dir_all(dir.join("trail")).expect("mkdir");
    std::fs::copy(&trail.registry, dir.join("registry.db")).expect("registry");
    for entry in
        std::fs::read_dir(trail.registry.parent().expect("dir").join("trail")).expect("trail")
    {
        let path = entry.expect("entry").path();
        std::fs::copy(
            &path,
            dir.join("trail").join(path.file_name().expect("name")),
        )
        .expect("segment");
    }
    let (code, segmented, stderr) =
        run(other.skillgate(&["query", "gate-performance", "--format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    let parse = |s: &str| sorted(serde_json::from_str::<Vec<Value>>(s).expect("json"));
    assert_eq!(parse(&segmented), parse(&single));
    assert_eq!(parse(&single).len(), 3);
}
