//! `audit-trail RESULTS.json RUNS DIR`: simulated gate runs of five decisions each (90 % all
//! passing, 10 % with up to five failed tests), each recorded into the audit database read from
//! the audit branch and committed back in `git` mode to a local bare repository, as a CI job
//! would; then `git gc` and the sizes: the database, bytes per decision row, the packed history.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use skillgate::audit::{self, AuditConfig, CommitMode};
use skillgate::gate::{FailedTest, GateRun};
use skillgate::github::Session;
use skillgate::store::Store;

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn du(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .map(|entries| entries.flatten().map(|e| du(&e.path())).sum())
            .unwrap_or(0)
    } else {
        meta.len()
    }
}

/// A small deterministic generator: the same runs every time.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

pub fn trail(template: &Path, runs: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(template).map_err(|e| format!("{}: {e}", template.display()))?;
    let template: GateRun = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if template.skills.len() != 5 {
        return Err(format!("the template should gate 5 skills, not {}", template.skills.len()).into());
    }
    let _ = std::fs::remove_dir_all(dir);
    let bare = dir.join("origin.git");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    git(dir, &["init", "-q", "--bare", "-b", "main", "origin.git"])?;
    // Keep what pushes send as packs (GitHub does), and no automatic gc while measuring.
    git(&bare, &["config", "receive.unpackLimit", "1"])?;
    git(&bare, &["config", "gc.auto", "0"])?;
    git(&work, &["init", "-q", "-b", "main"])?;
    git(&work, &["config", "gc.auto", "0"])?;
    git(&work, &["remote", "add", "origin", bare.to_str().ok_or("path")?])?;
    let config = AuditConfig {
        commit: CommitMode::Git,
        ..AuditConfig::default()
    };
    let session = Session::from_vars(&|_| None, None).map_err(|e| e.to_string())?;
    let keep = dir.join("kept");
    let mut rng = Lcg(42);
    let started = Instant::now();
    let mut failing_runs = 0;
    for i in 0..runs {
        let mut run = template.clone();
        run.run.run_id = Some(format!("{}", 1_000_000 + i));
        run.run.head = Some(format!("{:040x}", i + 1));
        run.run.pull_request = Some(1 + i / 3);
        let failing = rng.next() % 10 == 0;
        failing_runs += u64::from(failing);
        let victim = (rng.next() % 5) as usize;
        for (k, skill) in run.skills.iter_mut().enumerate() {
            let Some(tests) = skill.tests.as_mut() else { continue };
            tests.failed_tests.clear();
            tests.pass_count = tests.total_count.max(1);
            tests.fail_count = 0;
            if failing && k == victim {
                let n = 1 + rng.next() % 5;
                tests.fail_count = n;
                tests.pass_count = tests.total_count.saturating_sub(n);
                for j in 0..n {
                    tests.failed_tests.push(FailedTest {
                        name: format!("case {j} of run {i}"),
                        error: Some(format!("expected {j} but got {}", j + 1)),
                        duration_ms: Some(12),
                        suite: None,
                        file: None,
                        line: None,
                        kind: None,
                    });
                }
            }
        }
        let mut trail = audit::connect(&config, &session, &work)
            .map_err(|e| e.to_string())?
            .ok_or("no trail")?;
        let stats = Store::open(&trail.path())
            .and_then(|mut s| s.record(&run))
            .map_err(|e| e.to_string())?;
        trail
            .commit(&run, stats.inserted > 0, &keep)
            .map_err(|e| e.to_string())?;
        // A CI job starts from a fresh checkout: drop what this one accumulated.
        if i % 100 == 99 {
            git(&work, &["gc", "--quiet", "--prune=now"])?;
            eprintln!(
                "  {} runs, {:.0} ms per run",
                i + 1,
                started.elapsed().as_millis() as f64 / (i + 1) as f64
            );
        }
    }
    let elapsed = started.elapsed();
    let db = dir.join("final.db");
    let bytes = Command::new("git")
        .arg("--git-dir")
        .arg(&bare)
        .args(["show", "skillgate/audit:.skillgate/skills.db"])
        .output()
        .map_err(|e| e.to_string())?
        .stdout;
    std::fs::write(&db, &bytes).map_err(|e| e.to_string())?;
    let rows: i64 = {
        let store = Store::open(&db).map_err(|e| e.to_string())?;
        store
            .connection()
            .query_row("SELECT count(*) FROM approval_history", [], |r| r.get(0))
            .map_err(|e| e.to_string())?
    };
    let before_gc = du(&bare.join("objects"));
    git(&bare, &["gc", "--quiet", "--prune=now"])?;
    let packed = du(&bare.join("objects"));
    let commits = git(&bare, &["rev-list", "--count", "skillgate/audit"])?;
    let db_size = bytes.len() as u64;
    println!(
        "audit-trail: {runs} runs ({failing_runs} with failures), {rows} decision rows, {commits} commits, \
         {:.1} s ({:.0} ms per run)",
        elapsed.as_secs_f64(),
        elapsed.as_millis() as f64 / runs.max(1) as f64
    );
    println!(
        "audit-trail: database {:.2} MB, {:.0} bytes per decision row; history {:.2} MB before gc, \
         {:.2} MB packed = {:.2}x the database",
        db_size as f64 / 1e6,
        db_size as f64 / rows.max(1) as f64,
        before_gc as f64 / 1e6,
        packed as f64 / 1e6,
        packed as f64 / db_size.max(1) as f64
    );
    Ok(())
}
