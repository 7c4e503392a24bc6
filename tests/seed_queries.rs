//! The seed's SQL is a contract: its statements run unchanged against the audit trail a real
//! `check` writes. `tests/fixtures/seed/statements.sql` is copied verbatim from the seed by
//! `extract.py` in the same directory. They run unchanged against a segmented trail too: on the
//! read view over its segments, and on its `audit export`.

mod common;

use std::path::PathBuf;

use common::{Repo, run, run_json, skillgate};
use rusqlite::Connection;
use skillgate::gate::GateRun;
use skillgate::store::{Assembly, MIN_SEGMENT_SIZE, Store, TrailView};

struct Statement {
    section: u32,
    kind: String,
    sql: String,
}

fn statements() -> Vec<Statement> {
    let text = include_str!("fixtures/seed/statements.sql");
    text.split("-- section ")
        .skip(1)
        .map(|chunk| {
            let (header, sql) = chunk.split_once('\n').expect("header line");
            let mut words = header.split_whitespace();
            let section = words
                .next()
                .and_then(|s| s.parse().ok())
                .expect("section number");
            let kind = words.next().unwrap_or_default().to_owned();
            Statement {
                section,
                kind,
                sql: sql.trim().to_owned(),
            }
        })
        .collect()
}

/// A database holding a real gate run: one auto-worthy skill, one failing, one without tests.
fn recorded_db() -> (Repo, Connection, i64) {
    let repo = Repo::plain();
    repo.skill(".claude/skills/steady", "steady", 20, 0);
    repo.skill(".claude/skills/shaky", "shaky", 3, 2);
    repo.write(
        ".claude/skills/untested/SKILL.md",
        "---\nname: untested\ndescription: No tests.\n---\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(doc["summary"]["skills"], 3);
    let conn = Connection::open(repo.db()).expect("db");
    let id: i64 = conn
        .query_row("SELECT id FROM skills WHERE name = 'shaky'", [], |r| {
            r.get(0)
        })
        .expect("shaky recorded");
    (repo, conn, id)
}

/// Run one seed statement unchanged, binding `$SKILL_ID` where it appears.
fn execute(
    conn: &Connection,
    sql: &str,
    skill_id: i64,
) -> rusqlite::Result<Vec<Vec<rusqlite::types::Value>>> {
    let mut stmt = conn.prepare(sql)?;
    if let Some(index) = stmt.parameter_index("$SKILL_ID")? {
        stmt.raw_bind_parameter(index, skill_id)?;
    }
    let columns = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(
            (0..columns)
                .map(|i| row.get(i))
                .collect::<rusqlite::Result<_>>()?,
        );
    }
    Ok(out)
}

#[test]
fn every_seed_select_of_sections_5_to_10_runs_unchanged() {
    let (_repo, conn, skill_id) = recorded_db();
    let selects: Vec<_> = statements()
        .into_iter()
        .filter(|s| s.kind == "SELECT" && (5..=10).contains(&s.section))
        .collect();
    assert_eq!(
        selects.len(),
        14,
        "the seed holds 14 SELECTs in sections 5 to 10"
    );
    for statement in &selects {
        execute(&conn, &statement.sql, skill_id).unwrap_or_else(|err| {
            panic!(
                "section {} SELECT failed: {err}\n{}",
                statement.section, statement.sql
            )
        });
    }
}

#[test]
fn the_seed_writes_still_work_and_hand_rows_carry_no_hash() {
    let (_repo, conn, skill_id) = recorded_db();
    let writes: Vec<_> = statements()
        .into_iter()
        // Sections 3 and 4 write rows for the seed's own skill ids and cfn-* skills, which a gate
        // run never creates (foreign keys refuse them); one section 5 statement is an elided
        // `(...)` example, not SQL.
        .filter(|s| matches!(s.kind.as_str(), "INSERT" | "UPDATE") && (5..=10).contains(&s.section))
        .filter(|s| !s.sql.contains("(...)"))
        .collect();
    assert!(writes.len() >= 8, "{} writes", writes.len());
    for statement in &writes {
        execute(&conn, &statement.sql, skill_id).unwrap_or_else(|err| {
            panic!(
                "section {} {} failed: {err}\n{}",
                statement.section, statement.kind, statement.sql
            )
        });
    }
    // The seed's own INSERT into approval_history (section 7) lands without a hash: the chain
    // shows it was not written by the gate.
    let (unhashed, pass_rate): (i64, Option<f64>) = conn
        .query_row(
            "SELECT count(*), max(pass_rate) FROM approval_history WHERE row_hash IS NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("query");
    assert_eq!(unhashed, 1);
    assert_eq!(
        pass_rate,
        Some(0.957),
        "pass_rate is generated from test_results"
    );
}

#[test]
fn query_1_reads_the_recorded_test_results() {
    let (_repo, conn, skill_id) = recorded_db();
    let query = statements()
        .into_iter()
        .find(|s| s.section == 7 && s.sql.contains("ORDER BY ah.timestamp DESC\nLIMIT 20"))
        .expect("query 1");
    let rows = execute(&conn, &query.sql, skill_id).expect("query 1 runs");
    use rusqlite::types::Value;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    // timestamp, approval_level, pass_rate, pass_count, fail_count, coverage, decision
    assert_eq!(row[1], Value::Text("human".into()));
    assert_eq!(row[2], Value::Real(0.6));
    assert_eq!(row[3], Value::Integer(3));
    assert_eq!(row[4], Value::Integer(2));
    assert_eq!(row[5], Value::Null, "coverage unknown");
    assert_eq!(row[6], Value::Text("escalated".into()));
    // The stored timestamp compares with datetime('now') the way the seed's windows expect.
    let recent: i64 = conn
        .query_row(
            "SELECT count(*) FROM approval_history WHERE timestamp > datetime('now', '-1 hours')",
            [],
            |r| r.get(0),
        )
        .expect("window");
    assert_eq!(recent, 3);
}

#[test]
fn query_5_gate_performance_counts_each_level() {
    let (_repo, conn, skill_id) = recorded_db();
    let query = statements()
        .into_iter()
        .find(|s| s.section == 7 && s.sql.contains("as approval_rate"))
        .expect("query 5");
    let rows = execute(&conn, &query.sql, skill_id).expect("query 5 runs");
    use rusqlite::types::Value;
    let mut levels: Vec<(String, Value)> = rows
        .iter()
        .map(|r| (format!("{:?}", r[0]), r[1].clone()))
        .collect();
    // Both levels approve 0%, so the seed's ORDER BY leaves their order open.
    levels.sort_by(|a, b| a.0.cmp(&b.0));
    // steady: coverage unknown → escalate; shaky and untested → human.
    assert_eq!(
        levels,
        vec![
            (
                format!("{:?}", Value::Text("escalate".into())),
                Value::Integer(1)
            ),
            (
                format!("{:?}", Value::Text("human".into())),
                Value::Integer(2)
            ),
        ]
    );
}

/// The examples' five skills as run `n` (its own run id, so five new rows).
fn examples_run(n: usize) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.run_id = Some(format!("seed-{n}"));
    run
}

/// One trail three ways: the single file a real `check` wrote, with `runs` runs of the
/// examples recorded after it; that file split into segments of the least size (a registry
/// and `trail/`); and the `skillgate audit export` of the split.
struct ThreeWays {
    repo: Repo,
    skill_id: i64,
    registry: PathBuf,
    export: PathBuf,
}

fn three_ways(runs: usize) -> ThreeWays {
    let (repo, conn, skill_id) = recorded_db();
    drop(conn);
    let mut store = Store::open(&repo.db()).expect("open");
    for n in 0..runs {
        assert_eq!(store.record(&examples_run(n)).expect("record").inserted, 5);
    }
    drop(store);
    let work = repo.path().join("work.db");
    std::fs::copy(repo.db(), &work).expect("copy");
    let split = Store::open(&work)
        .expect("open")
        .split(&repo.path().join("split"), MIN_SEGMENT_SIZE)
        .expect("split");
    let export = repo.path().join("export.db");
    let mut cmd = skillgate();
    cmd.args(["audit", "export", "--db"])
        .arg(&split.registry)
        .arg("--out")
        .arg(&export);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let rows = 3 + 5 * runs;
    assert!(
        stdout.starts_with(&format!("exported {rows} rows from ")),
        "{stdout}"
    );
    ThreeWays {
        repo,
        skill_id,
        registry: split.registry,
        export,
    }
}

/// SQLite's order of rows of one value, for comparing results whose order SQL leaves open.
fn order(a: &rusqlite::types::Value, b: &rusqlite::types::Value) -> std::cmp::Ordering {
    use rusqlite::types::Value::{Blob, Integer, Null, Real, Text};
    let rank = |v: &rusqlite::types::Value| match v {
        Null => 0,
        Integer(_) | Real(_) => 1,
        Text(_) => 2,
        Blob(_) => 3,
    };
    match (a, b) {
        (Integer(x), Integer(y)) => x.cmp(y),
        (Real(x), Real(y)) => x.total_cmp(y),
        (Integer(x), Real(y)) => (*x as f64).total_cmp(y),
        (Real(x), Integer(y)) => x.total_cmp(&(*y as f64)),
        (Text(x), Text(y)) => x.cmp(y),
        (Blob(x), Blob(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The rows, sorted: the seed's ORDER BYs leave ties open (two skills at the same time), and
/// a view over segments may return tied rows in another order than the file's index does.
fn sorted(mut rows: Vec<Vec<rusqlite::types::Value>>) -> Vec<Vec<rusqlite::types::Value>> {
    rows.sort_by(|a, b| {
        a.iter()
            .zip(b)
            .map(|(x, y)| order(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    rows
}

/// Every SELECT of sections 5 to 10 gives the same rows on the single file, on `view` and on
/// the export (as sets: see [`sorted`]); and enough of them return rows to mean something.
fn same_rows_three_ways(trail: &ThreeWays, view: &TrailView) {
    let single = Connection::open(trail.repo.db()).expect("single");
    let exported = Connection::open(&trail.export).expect("export");
    let mut answered = 0;
    for statement in statements()
        .into_iter()
        .filter(|s| s.kind == "SELECT" && (5..=10).contains(&s.section))
    {
        let run = |conn: &Connection, what: &str| {
            execute(conn, &statement.sql, trail.skill_id).unwrap_or_else(|err| {
                panic!(
                    "section {} SELECT failed on the {what}: {err}\n{}",
                    statement.section, statement.sql
                )
            })
        };
        let expected = sorted(run(&single, "single file"));
        assert_eq!(
            sorted(run(view.connection(), "segments")),
            expected,
            "section {}\n{}",
            statement.section,
            statement.sql
        );
        assert_eq!(
            sorted(run(&exported, "export")),
            expected,
            "section {}\n{}",
            statement.section,
            statement.sql
        );
        answered += usize::from(!expected.is_empty());
    }
    assert!(answered >= 8, "only {answered} SELECTs return rows");
    // The rows themselves, every column, pass_rate included.
    let every = "SELECT * FROM approval_history ORDER BY id";
    let all = execute(&single, every, 0).expect("rows");
    assert_eq!(execute(view.connection(), every, 0).expect("rows"), all);
    assert_eq!(execute(&exported, every, 0).expect("rows"), all);
    let rates = "SELECT count(pass_rate), sum(pass_rate) FROM approval_history";
    let rated = execute(&single, rates, 0).expect("rates");
    assert_ne!(rated[0][0], rusqlite::types::Value::Integer(0));
    assert_eq!(execute(view.connection(), rates, 0).expect("rates"), rated);
}

#[test]
fn every_seed_select_gives_the_same_rows_on_the_file_its_segments_and_their_export() {
    let trail = three_ways(12);
    let view = TrailView::open(&trail.registry).expect("view");
    let segments = view.segments().iter().filter(|s| s.rows > 0).count();
    assert!(segments >= 3, "{segments} segments");
    assert_eq!(view.assembly(), Assembly::Attached { segments });
    same_rows_three_ways(&trail, &view);
}

#[test]
fn past_the_attach_limit_the_segments_are_materialized_and_read_the_same() {
    // About 17 rows a segment at the least size: 100 runs make more than 10 segments.
    let trail = three_ways(100);
    let view = TrailView::open(&trail.registry).expect("view");
    let segments = view.segments().iter().filter(|s| s.rows > 0).count();
    assert!(segments > 10, "{segments} segments");
    assert_eq!(view.assembly(), Assembly::Materialized { segments });
    same_rows_three_ways(&trail, &view);
}
