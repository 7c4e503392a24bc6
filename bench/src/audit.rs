//! `audit-trail RESULTS.json RUNS DIR`: simulated gate runs of five decisions each (90 % all
//! passing, 10 % with up to five failed tests), each recorded into the audit database read from
//! the audit branch and committed back in `git` mode to a local bare repository, as a CI job
//! would; then `git gc` and the sizes: the database, bytes per decision row, the packed history.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use skillgate::audit;
use skillgate::config::{AuditConfig, CommitMode};
use skillgate::gate::{FailedTest, GateRun, Redacted};
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
        return Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
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

fn load(template: &Path) -> Result<GateRun, Box<dyn std::error::Error>> {
    let text =
        std::fs::read_to_string(template).map_err(|e| format!("{}: {e}", template.display()))?;
    let template: GateRun = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if template.skills.len() != 5 {
        return Err(format!(
            "the template should gate 5 skills, not {}",
            template.skills.len()
        )
        .into());
    }
    Ok(template)
}

/// Run `i` of the simulation: the template's five skills at a new head; one run in ten has one
/// to five failed tests in one skill. Returns the run and whether it has failures.
fn simulate(template: &GateRun, i: u64, rng: &mut Lcg) -> (GateRun, bool) {
    let mut run = template.clone();
    run.run.run_id = Some(format!("{}", 1_000_000 + i));
    run.run.head = Some(format!("{:040x}", i + 1));
    run.run.pull_request = Some(1 + i / 3);
    let failing = rng.next().is_multiple_of(10);
    let victim = (rng.next() % 5) as usize;
    for (k, skill) in run.skills.iter_mut().enumerate() {
        let Some(tests) = skill.tests.as_mut() else {
            continue;
        };
        tests.failed_tests.clear();
        tests.pass_count = tests.total_count.max(1);
        tests.fail_count = 0;
        if failing && k == victim {
            let n = 1 + rng.next() % 5;
            tests.fail_count = n;
            tests.pass_count = tests.total_count.saturating_sub(n);
            for j in 0..n {
                tests.failed_tests.push(FailedTest {
                    name: Redacted::new(&format!("case {j} of run {i}")),
                    error: Some(Redacted::new(&format!("expected {j} but got {}", j + 1))),
                    duration_ms: Some(12),
                    suite: None,
                    file: None,
                    line: None,
                    kind: None,
                });
            }
        }
    }
    (run, failing)
}

pub fn trail(template: &Path, runs: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let template = load(template)?;
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
    git(
        &work,
        &["remote", "add", "origin", bare.to_str().ok_or("path")?],
    )?;
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
        let (run, failing) = simulate(&template, i, &mut rng);
        failing_runs += u64::from(failing);
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
        if (i + 1).is_multiple_of(100) {
            git(&work, &["gc", "--quiet", "--prune=now"])?;
            eprintln!(
                "  {} runs, {:.0} ms per run",
                i + 1,
                started.elapsed().as_millis() as f64 / (i + 1) as f64
            );
        }
    }
    report(
        "audit-trail",
        &bare,
        dir,
        runs,
        failing_runs,
        started.elapsed(),
    )
}

/// The sizes once the runs are in: the database at the branch's head, its decision rows, the
/// repository before and after `git gc`.
fn report(
    label: &str,
    bare: &Path,
    dir: &Path,
    runs: u64,
    failing_runs: u64,
    elapsed: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let db = dir.join("final.db");
    let bytes = Command::new("git")
        .arg("--git-dir")
        .arg(bare)
        .args(["show", "skillgate/audit:.skillgate/skills.db"])
        .output()
        .map_err(|e| e.to_string())?
        .stdout;
    std::fs::write(&db, &bytes).map_err(|e| e.to_string())?;
    let (rows, page_size): (i64, i64) = {
        let store = Store::open(&db).map_err(|e| e.to_string())?;
        let conn = store.connection();
        let count = |sql: &str| {
            conn.query_row(sql, [], |r| r.get(0))
                .map_err(|e| e.to_string())
        };
        (
            count("SELECT count(*) FROM approval_history")?,
            count("PRAGMA page_size")?,
        )
    };
    let before_gc = du(&bare.join("objects"));
    let gc = Instant::now();
    git(bare, &["gc", "--quiet", "--prune=now"])?;
    let gc = gc.elapsed();
    let packed = du(&bare.join("objects"));
    let commits = git(bare, &["rev-list", "--count", "skillgate/audit"])?;
    let db_size = bytes.len() as u64;
    println!(
        "{label}: {runs} runs ({failing_runs} with failures), {rows} decision rows, {commits} commits, \
         {:.1} s ({:.0} ms per run), git gc {:.1} s",
        elapsed.as_secs_f64(),
        elapsed.as_millis() as f64 / runs.max(1) as f64,
        gc.as_secs_f64()
    );
    println!(
        "{label}: database {:.2} MB ({page_size}-byte pages), {:.0} bytes per decision row; \
         history {:.2} MB before gc, {:.2} MB packed = {:.2}x the database",
        db_size as f64 / 1e6,
        db_size as f64 / rows.max(1) as f64,
        before_gc as f64 / 1e6,
        packed as f64 / 1e6,
        packed as f64 / db_size.max(1) as f64
    );
    Ok(())
}

/// `audit-history RESULTS.json RUNS DIR`: the same runs and the same database, one commit per
/// run, written by `git fast-import` instead of a checkout pushing to a bare repository. The
/// history is the same sequence of files; only the way there differs. Pushing every run reads,
/// hashes and deltas the whole file, so 10,000 runs would take many hours that way; here the
/// runs are cut into two segments written side by side (the second first records the runs
/// before it, without committing them) and stitched into one branch at the end. Each segment
/// starts with a whole copy of the file, as a `git gc` cutting a delta chain does anyway.
/// `audit-trail` at a smaller count checks that both end at the same sizes.
pub fn history(template: &Path, runs: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let template = load(template)?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    git(dir, &["init", "-q", "--bare", "-b", "main", "origin.git"])?;
    let bare = dir.join("origin.git");
    git(&bare, &["config", "gc.auto", "0"])?;
    // A run's cost grows with the file, so the halves of the work split at runs / √2.
    let cut = if runs >= 1_000 {
        (runs as f64 / 2f64.sqrt()) as u64
    } else {
        runs
    };
    let segments = [(0, cut), (cut, runs)];
    let started = Instant::now();
    let results: Vec<Result<(Vec<String>, u64), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = segments
            .iter()
            .enumerate()
            .filter(|(_, (from, until))| from < until)
            .map(|(n, &(from, until))| {
                let (template, bare) = (&template, &bare);
                scope.spawn(move || segment(template, bare, n, from, until))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a segment panicked".to_owned()))
            })
            .collect()
    });
    let mut blobs = Vec::new();
    let mut failing_runs = 0;
    for result in results {
        let (segment_blobs, failing) = result?;
        blobs.extend(segment_blobs);
        failing_runs += failing;
    }
    stitch(&bare, &blobs)?;
    report(
        "audit-history",
        &bare,
        dir,
        runs,
        failing_runs,
        started.elapsed(),
    )
}

/// The database's path on the branch.
const DB_PATH: &str = ".skillgate/skills.db";

/// Runs `from..until` committed by one `git fast-import` to `refs/segments/N`: the blob ids in
/// order, and how many of the runs had failures.
fn segment(
    template: &GateRun,
    bare: &Path,
    n: usize,
    from: u64,
    until: u64,
) -> Result<(Vec<String>, u64), String> {
    use std::io::Write;
    // The database lives in memory-backed storage when there is some: fsyncs are not what this
    // measures. `prepare_for_commit` is left out too: it changes nothing in a database that
    // was never in WAL mode, and its integrity check reads the whole file every run.
    let base = if Path::new("/dev/shm").is_dir() {
        Path::new("/dev/shm")
    } else {
        bare
    };
    let scratch = tempfile::Builder::new()
        .prefix("skillgate-audit-history-")
        .tempdir_in(base)
        .map_err(|e| e.to_string())?;
    let db = scratch.path().join("skills.db");
    let marks = bare.join(format!("segment-{n}.marks"));
    let mut import = FastImport::start(bare, &[format!("--export-marks={}", marks.display())])?;
    let mut rng = Lcg(42);
    let mut failing_runs = 0;
    let started = Instant::now();
    for i in 0..until {
        let (run, failing) = simulate(template, i, &mut rng);
        let mut store = Store::open(&db).map_err(|e| e.to_string())?;
        store
            .connection()
            .execute_batch("PRAGMA synchronous = OFF")
            .map_err(|e| e.to_string())?;
        store.record(&run).map_err(|e| e.to_string())?;
        drop(store);
        if i < from {
            continue;
        }
        failing_runs += u64::from(failing);
        let bytes = std::fs::read(&db).map_err(|e| e.to_string())?;
        write!(
            import.input,
            "blob\nmark :{}\ndata {}\n",
            i + 1,
            bytes.len()
        )
        .and_then(|()| import.input.write_all(&bytes))
        .and_then(|()| {
            let message = format!("skillgate: 5 decisions at {}\n", run.run.head.as_deref().unwrap_or(""));
            write!(
                import.input,
                "\ncommit refs/segments/{n}\ncommitter skillgate <skillgate@users.noreply.github.com> {} +0000\n\
                 data {}\n{message}M 100644 :{} {DB_PATH}\n\n",
                1_780_000_000 + i * 60,
                message.len(),
                i + 1
            )
        })
        .map_err(|e| e.to_string())?;
        let done = i + 1 - from;
        if done.is_multiple_of(500) {
            eprintln!(
                "  segment {n}: {done} of {} runs, {:.0} ms per run",
                until - from,
                started.elapsed().as_millis() as f64 / done as f64
            );
        }
    }
    import.finish()?;
    let text = std::fs::read_to_string(&marks).map_err(|e| e.to_string())?;
    let mut ids: Vec<(u64, String)> = text
        .lines()
        .filter_map(|line| {
            let (mark, id) = line.strip_prefix(':')?.split_once(' ')?;
            Some((mark.parse().ok()?, id.to_owned()))
        })
        .filter(|(mark, _)| (from + 1..=until).contains(mark))
        .collect();
    ids.sort();
    if ids.len() as u64 != until - from {
        return Err(format!(
            "segment {n}: {} blobs marked, {} expected",
            ids.len(),
            until - from
        ));
    }
    Ok((ids.into_iter().map(|(_, id)| id).collect(), failing_runs))
}

/// A `git fast-import` into `bare`, fed through `input`.
struct FastImport {
    child: std::process::Child,
    input: std::io::BufWriter<std::process::ChildStdin>,
}

impl FastImport {
    fn start(bare: &Path, extra: &[String]) -> Result<Self, String> {
        let mut child = Command::new("git")
            .arg("--git-dir")
            .arg(bare)
            .args(["fast-import", "--quiet", "--done"])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let stdin = child.stdin.take().ok_or("stdin")?;
        Ok(Self {
            child,
            input: std::io::BufWriter::with_capacity(1 << 20, stdin),
        })
    }

    fn finish(mut self) -> Result<(), String> {
        use std::io::Write;
        self.input
            .write_all(b"done\n")
            .and_then(|()| self.input.flush())
            .map_err(|e| e.to_string())?;
        drop(self.input);
        if !self.child.wait().map_err(|e| e.to_string())?.success() {
            return Err("git fast-import failed".into());
        }
        Ok(())
    }
}

/// One branch, `skillgate/audit`, with one commit per blob in order; the segments' refs go.
fn stitch(bare: &Path, blobs: &[String]) -> Result<(), String> {
    use std::io::Write;
    let mut import = FastImport::start(bare, &[])?;
    for (i, blob) in blobs.iter().enumerate() {
        let message = format!("skillgate: 5 decisions at {:040x}\n", i + 1);
        write!(
            import.input,
            "commit refs/heads/skillgate/audit\ncommitter skillgate <skillgate@users.noreply.github.com> {} +0000\n\
             data {}\n{message}M 100644 {blob} {DB_PATH}\n\n",
            1_780_000_000 + i * 60,
            message.len(),
        )
        .map_err(|e| e.to_string())?;
    }
    import.finish()?;
    for n in 0..2 {
        let _ = git(bare, &["update-ref", "-d", &format!("refs/segments/{n}")]);
    }
    Ok(())
}

/// `audit-compact DIR`, after `audit-trail` or `audit-history` in DIR: `skillgate audit compact`
/// through a checkout of DIR/origin.git, then the sizes: the repository (the tag keeps the old
/// history) and the branch alone (what a run fetches, and what is left once the tag is moved
/// to an archive or deleted), each after `git gc`.
pub fn compact(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let bare = dir.join("origin.git");
    let work = dir.join("compact-work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    git(&work, &["init", "-q", "-b", "main"])?;
    git(
        &work,
        &["remote", "add", "origin", bare.to_str().ok_or("path")?],
    )?;
    // A shallow checkout, as a CI job's is: the compaction fetches the branch's head alone.
    git(
        &work,
        &["fetch", "--quiet", "--depth=1", "origin", "skillgate/audit"],
    )?;
    let db_size = git_size(&bare, &format!("skillgate/audit:{DB_PATH}"))?;
    let commits = git(&bare, &["rev-list", "--count", "skillgate/audit"])?;
    let started = Instant::now();
    let done = audit::compact(&AuditConfig::default(), &work, "origin", None)
        .map_err(|e| e.to_string())?;
    let took = started.elapsed();
    if done.commit.is_none() {
        return Err(format!("{} is one commit already: nothing to compact", done.branch).into());
    }
    git(&bare, &["gc", "--quiet", "--prune=now"])?;
    let repository = du(&bare.join("objects"));
    let alone = dir.join("branch-alone.git");
    let _ = std::fs::remove_dir_all(&alone);
    git(
        dir,
        &[
            "clone",
            "--quiet",
            "--bare",
            "--no-tags",
            "--single-branch",
            "--branch",
            "skillgate/audit",
            &format!("file://{}", bare.display()),
            "branch-alone.git",
        ],
    )?;
    git(&alone, &["gc", "--quiet", "--prune=now"])?;
    let branch = du(&alone.join("objects"));
    println!(
        "audit-compact: {commits} commits → 1 in {:.1} s ({} rows, chain intact), tag {}",
        took.as_secs_f64(),
        done.rows,
        done.tag
    );
    println!(
        "audit-compact: database {:.2} MB; repository with the tag {:.2} MB = {:.2}x; \
         the branch alone {:.2} MB = {:.2}x the database",
        db_size as f64 / 1e6,
        repository as f64 / 1e6,
        repository as f64 / db_size.max(1) as f64,
        branch as f64 / 1e6,
        branch as f64 / db_size.max(1) as f64
    );
    Ok(())
}

fn git_size(bare: &Path, object: &str) -> Result<u64, String> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(bare)
        .args(["cat-file", "-s", object])
        .output()
        .map_err(|e| e.to_string())?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "git cat-file -s {object}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}
