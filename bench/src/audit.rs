//! The audit trail on its branch, measured. `audit-trail RESULTS.json RUNS DIR`: simulated
//! gate runs of five decisions each (90 % all passing, 10 % with up to five failed tests), each
//! recorded and committed in `git` mode by the product's code to a local bare repository, as a
//! CI job would; then the trail's files at the head, the packed history and each run's cost.
//! `audit-simulate` makes the same trail without pushing; `audit-history` and `audit-compact`
//! measure the single-file trail of before segments.

mod costs;
pub mod simulated;

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

/// `audit-trail RESULTS.json RUNS DIR`: the runs, each as a CI job does it in `git` mode with
/// the product's code: connect (read the registry and the newest segment at the branch's head,
/// plus any sealed segment whose newest row is within the last hour: `Reads::Since(None)`, as
/// `check` does outside a pull request), record, commit and push without force. Each run is
/// stamped with the clock, so run it under `faketime` for a realistic pace. The remote is a
/// local bare repository that keeps pushes as packs (`receive.unpackLimit 1`) and honours
/// `--filter=blob:none` and blobs wanted by id, as GitHub does. Every 1,000 runs it gets a `git
/// gc`, outside the runs' timing: GitHub repacks on its own, and without it thousands of packs
/// slow every push. Each run's wall time (connect + record + commit) and traffic go to
/// `DIR/runs.csv`.
pub fn trail(template: &Path, runs: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let template = load(template)?;
    let _ = std::fs::remove_dir_all(dir);
    let bare = dir.join("origin.git");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    git(dir, &["init", "-q", "--bare", "-b", "main", "origin.git"])?;
    for (key, value) in [
        // Keep what pushes send as packs (GitHub does), and no automatic gc while measuring.
        ("receive.unpackLimit", "1"),
        ("gc.auto", "0"),
        // Serve `--filter=blob:none` and blobs asked for by id, as GitHub does.
        ("uploadpack.allowFilter", "true"),
        ("uploadpack.allowAnySHA1InWant", "true"),
    ] {
        git(&bare, &["config", key, value])?;
    }
    // The checkout only names the remote: the product reads and pushes from scratch
    // repositories of its own. By a `file://` URL, as GitHub's is an `https://` one: git
    // (2.47) refuses to record a promisor remote whose name starts with `/`, so a partial
    // fetch from a bare path fails with "missing blob object".
    git(&work, &["init", "-q", "-b", "main"])?;
    git(
        &work,
        &[
            "remote",
            "add",
            "origin",
            &format!("file://{}", bare.display()),
        ],
    )?;
    let config = AuditConfig {
        commit: CommitMode::Git,
        ..AuditConfig::default()
    };
    let session = Session::from_vars(&|_| None, None).map_err(|e| e.to_string())?;
    let keep = dir.join("kept");
    let mut csv = costs::Csv::create(dir)?;
    let mut all = Vec::with_capacity(runs as usize);
    let mut rng = Lcg(42);
    let started = Instant::now();
    let mut gc_time = std::time::Duration::ZERO;
    let mut failing_runs = 0;
    for i in 0..runs {
        let (mut run, failing) = simulate(&template, i, &mut rng);
        // Stamped with the clock, as `check` stamps a run: a row's time, and so a segment's
        // `newest_at`, is when the run ended, so the window of the last hour (`Reads::Since`)
        // follows the pace of the runs (under `faketime`, the trail's clock).
        run.run.started_at = now();
        run.run.finished_at = run.run.started_at.clone();
        failing_runs += u64::from(failing);
        let clock = Instant::now();
        let mut trail = audit::connect(&config, &session, &work, audit::Reads::Since(None))
            .map_err(|e| format!("run {}: {e}", i + 1))?
            .ok_or("no trail")?;
        let connected = clock.elapsed();
        // Not timed: which segments the run read, seen in its working copy.
        let read = segments_loaded(&trail.path())?;
        let clock = Instant::now();
        let stats = Store::open(&trail.path())
            .and_then(|mut s| s.record(&run))
            .map_err(|e| format!("run {}: {e}", i + 1))?;
        trail
            .commit(&run, stats.inserted > 0, &keep)
            .map_err(|e| format!("run {}: {e}", i + 1))?;
        let ms = (connected + clock.elapsed()).as_secs_f64() * 1e3;
        let traffic = trail.traffic();
        let segments = Store::open_read_only(&trail.path())
            .and_then(|s| s.segments())
            .map_err(|e| e.to_string())?
            .len() as u64;
        let cost = costs::RunCost {
            run: i + 1,
            ms,
            fetched: traffic.fetched,
            uploaded: traffic.uploaded,
            segments,
            read,
            largest: traffic.largest,
        };
        csv.push(&cost)?;
        all.push(cost);
        drop(trail);
        if (i + 1).is_multiple_of(1_000) && i + 1 < runs {
            let clock = Instant::now();
            git(&bare, &["gc", "--quiet", "--prune=now"])?;
            gc_time += clock.elapsed();
            eprintln!(
                "  git gc of the remote after run {}: {:.1} s",
                i + 1,
                clock.elapsed().as_secs_f64()
            );
        }
        if (i + 1).is_multiple_of(100) {
            let last: Vec<&costs::RunCost> = all[all.len() - 100..].iter().collect();
            let avg = |f: fn(&costs::RunCost) -> f64| {
                last.iter().map(|c| f(c)).sum::<f64>() / last.len() as f64
            };
            eprintln!(
                "  {} runs in {:.0} s: the last 100 {:.0} ms, {:.2} MB fetched, {:.2} MB uploaded per run; {} segments",
                i + 1,
                started.elapsed().as_secs_f64(),
                avg(|c| c.ms),
                avg(|c| c.fetched as f64) / 1e6,
                avg(|c| c.uploaded as f64) / 1e6,
                segments
            );
        }
    }
    csv.finish()?;
    eprintln!(
        "audit-trail: {runs} runs in {:.1} s, of which git gc of the remote {:.1} s",
        started.elapsed().as_secs_f64(),
        gc_time.as_secs_f64()
    );
    report(
        "audit-trail",
        &bare,
        dir,
        runs,
        failing_runs,
        started.elapsed(),
    )?;
    report_costs("audit-trail", &all, config.segment_size);
    Ok(())
}

/// Now, as `check` writes a run's times.
fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The segments whose rows a working copy holds: those the run read from the branch.
fn segments_loaded(path: &Path) -> Result<u64, String> {
    if !path.exists() {
        return Ok(0);
    }
    let store = Store::open_read_only(path).map_err(|e| e.to_string())?;
    let mut loaded = 0;
    for segment in store.segments().map_err(|e| e.to_string())? {
        let Some(first) = segment.first_id else {
            continue;
        };
        let here: bool = store
            .connection()
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM approval_history WHERE id = ?1)",
                [first],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        loaded += u64::from(here);
    }
    Ok(loaded)
}

/// The cost of run 100, 1,000, 10,000 and the last, and the largest file any run committed.
fn report_costs(label: &str, all: &[costs::RunCost], cap: u64) {
    let mb = |bytes: f64| bytes / 1e6;
    let mut marks: Vec<u64> = [100, 1_000, 10_000, 30_000, 100_000]
        .into_iter()
        .filter(|&n| n <= all.len() as u64)
        .collect();
    if marks.last() != Some(&(all.len() as u64)) {
        marks.push(all.len() as u64);
    }
    for n in marks {
        let Some((median, cycle)) = costs::at(all, n) else {
            continue;
        };
        let cycle = cycle.map_or_else(
            || "no segment sealed yet".to_owned(),
            |c| {
                format!(
                    "mean over the last full segment cycle (runs {}–{}) {:.0} ms, {:.2} MB fetched, {:.2} MB uploaded",
                    c.from,
                    c.until,
                    c.ms,
                    mb(c.fetched),
                    mb(c.uploaded)
                )
            },
        );
        println!(
            "{label}: run {n}: median of runs {}–{} {:.0} ms, {:.2} MB fetched, {:.2} MB uploaded; {cycle}",
            median.from,
            median.until,
            median.ms,
            mb(median.fetched),
            mb(median.uploaded),
        );
    }
    if let Some(biggest) = all.iter().max_by_key(|c| c.largest) {
        println!(
            "{label}: the largest file any run committed: {} B at run {} (cap {cap} B, {:+} B)",
            biggest.largest,
            biggest.run,
            biggest.largest as i64 - cap as i64
        );
    }
    if let Some(most) = all.iter().max_by_key(|c| c.read) {
        println!(
            "{label}: the most segment files a run read: {} at run {} ({:.2} MB fetched)",
            most.read,
            most.run,
            mb(most.fetched as f64)
        );
    }
}

/// The trail's files at the branch's head: `(path, bytes)`.
fn head_files(bare: &Path) -> Result<Vec<(String, u64)>, String> {
    let listing = git(bare, &["ls-tree", "-r", "-l", "skillgate/audit"])?;
    listing
        .lines()
        .map(|line| {
            // `<mode> blob <id> <size>\t<path>`
            let (meta, path) = line.split_once('\t').ok_or("ls-tree line")?;
            let size = meta
                .split_whitespace()
                .nth(3)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("ls-tree line {line}"))?;
            Ok((path.to_owned(), size))
        })
        .collect()
}

fn show(bare: &Path, path: &str, to: &Path) -> Result<(), String> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(bare)
        .args(["show", &format!("skillgate/audit:{path}")])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "git show {path}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::write(to, &out.stdout).map_err(|e| e.to_string())
}

/// The whole trail at the branch's head as one database at `into`: the single file of a trail
/// written before segments, or the registry with every segment's rows loaded (each checked
/// against what the registry recorded of it). Returns the segments.
fn assemble(bare: &Path, into: &Path) -> Result<Vec<skillgate::store::Segment>, String> {
    let files = head_files(bare)?;
    let layout = audit::Layout::of(&AuditConfig::default().db);
    if !files.iter().any(|(path, _)| *path == layout.registry) {
        show(bare, &layout.single, into)?;
        return Ok(Vec::new());
    }
    show(bare, &layout.registry, into)?;
    let mut store = Store::open(into).map_err(|e| e.to_string())?;
    let segments = store.segments().map_err(|e| e.to_string())?;
    let scratch = into.with_extension("segment");
    for segment in &segments {
        if segment.rows == 0 {
            continue;
        }
        show(bare, &layout.segment(segment.seq), &scratch)?;
        store
            .load_segment(segment, &scratch)
            .map_err(|e| e.to_string())?;
    }
    let _ = std::fs::remove_file(&scratch);
    Ok(segments)
}

/// The sizes once the runs are in: the trail's files at the branch's head (the registry and
/// every segment, or the single file of a trail written before segments), its decision rows
/// and whether their chain is intact, the repository before and after `git gc`.
fn report(
    label: &str,
    bare: &Path,
    dir: &Path,
    runs: u64,
    failing_runs: u64,
    elapsed: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let files = head_files(bare)?;
    let db_size: u64 = files.iter().map(|(_, size)| size).sum();
    let (largest_path, largest) = files
        .iter()
        .max_by_key(|(_, size)| *size)
        .cloned()
        .ok_or("no file at the branch's head")?;
    let whole = dir.join("whole.db");
    let _ = std::fs::remove_file(&whole);
    let segments = assemble(bare, &whole)?;
    let (rows, intact) = {
        let store = Store::open_read_only(&whole).map_err(|e| e.to_string())?;
        let report = store.verify_chain().map_err(|e| e.to_string())?;
        (report.rows, report.breaks.is_empty())
    };
    let _ = std::fs::remove_file(&whole);
    let before_gc = du(&bare.join("objects"));
    let gc = Instant::now();
    git(bare, &["gc", "--quiet", "--prune=now"])?;
    let gc = gc.elapsed();
    let packed = du(&bare.join("objects"));
    let commits = git(bare, &["rev-list", "--count", "skillgate/audit"])?;
    println!(
        "{label}: {runs} runs ({failing_runs} with failures), {rows} decision rows (chain {}), {commits} commits, \
         {:.1} s ({:.0} ms per run), final git gc {:.1} s",
        if intact { "intact" } else { "BROKEN" },
        elapsed.as_secs_f64(),
        elapsed.as_millis() as f64 / runs.max(1) as f64,
        gc.as_secs_f64()
    );
    let sealed = segments.iter().filter(|s| s.is_sealed()).count();
    println!(
        "{label}: at the head {} files, {:.2} MB in all ({} segments, {sealed} sealed); the largest {largest_path}, {largest} B ({:.2} MB); \
         {:.0} bytes per decision row",
        files.len(),
        db_size as f64 / 1e6,
        segments.len(),
        largest as f64 / 1e6,
        db_size as f64 / rows.max(1) as f64,
    );
    println!(
        "{label}: history {:.2} MB before gc, {:.2} MB packed = {:.2}x the trail's files",
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
    let scratch = scratch_dir("skillgate-audit-history-", bare)?;
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

/// A directory for a working database, in memory-backed storage when there is some (fsyncs are
/// not what the benchmarks measure), else in `fallback`.
pub(crate) fn scratch_dir(prefix: &str, fallback: &Path) -> Result<tempfile::TempDir, String> {
    let base = if Path::new("/dev/shm").is_dir() {
        Path::new("/dev/shm")
    } else {
        fallback
    };
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(base)
        .map_err(|e| e.to_string())
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
    let db_size: u64 = head_files(&bare)?.iter().map(|(_, size)| size).sum();
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
        "audit-compact: the trail's files {:.2} MB; repository with the tag {:.2} MB = {:.2}x; \
         the branch alone {:.2} MB = {:.2}x the trail's files",
        db_size as f64 / 1e6,
        repository as f64 / 1e6,
        repository as f64 / db_size.max(1) as f64,
        branch as f64 / 1e6,
        branch as f64 / db_size.max(1) as f64
    );
    Ok(())
}
