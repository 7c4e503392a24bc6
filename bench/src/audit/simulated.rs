//! `audit-simulate RESULTS.json RUNS DIR`: the runs of `audit-trail`, without pushing, for counts
//! that pushing would take many hours to reach. Each run is recorded into a working copy built
//! as the product builds it (the registry as last committed, with the newest segment's rows
//! loaded) and written out with `Store::split`, the product's own code, at the default
//! `segment-size`; the registry and the segments the split wrote are committed with
//! `git fast-import`, one commit per run on `skillgate/audit`; then `git gc` and the figures of
//! `audit-trail`. The working copy leaves out the sealed segments a run reads when they were
//! sealed within the last hour: every run here has keys of its own, so they change no row, and
//! the split never writes a sealed segment again.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use skillgate::audit::Layout;
use skillgate::config::AuditConfig;
use skillgate::store::{Segment, Store};

use super::{FastImport, Lcg, costs, git, load, report, report_costs, simulate};

/// One run's commit, waiting for its registry's blob: the registries are written in batches
/// after the segments', so that `git fast-import`, which deltas a blob against the one before
/// it, deltas each segment against the last version of a segment and each registry against the
/// last registry.
struct Pending {
    run: u64,
    head: String,
    registry: Vec<u8>,
    /// `(path, mark)` of each segment written.
    segments: Vec<(String, u64)>,
}

pub fn trail(template: &Path, runs: u64, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let template = load(template)?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    git(dir, &["init", "-q", "--bare", "-b", "main", "origin.git"])?;
    let bare = dir.join("origin.git");
    git(&bare, &["config", "gc.auto", "0"])?;
    // The working copy lives in memory-backed storage when there is some: fsyncs are not what
    // this measures.
    let scratch = super::scratch_dir("skillgate-audit-simulate-", dir)?;
    let work = scratch.path().join("skills.db");
    let out = scratch.path().join("out");
    let config = AuditConfig::default();
    let layout = Layout::of(&config.db);
    let mut import = FastImport::start(&bare, &[])?;
    let mut mark = 0u64;
    let mut pending: Vec<Pending> = Vec::new();
    let mut csv = costs::Csv::create(dir)?;
    let mut all = Vec::with_capacity(runs as usize);
    let mut rng = Lcg(42);
    let mut failing_runs = 0;
    // What the next run reads: the registry and the newest segment as last committed.
    let mut next_read = (0u64, 0u64);
    let started = Instant::now();
    for i in 0..runs {
        let (run, failing) = simulate(&template, i, &mut rng);
        failing_runs += u64::from(failing);
        let clock = Instant::now();
        let mut store = Store::open(&work).map_err(|e| e.to_string())?;
        store.record(&run).map_err(|e| e.to_string())?;
        let split = store
            .split(&out, config.segment_size)
            .map_err(|e| format!("run {}: {e}", i + 1))?;
        let recorded = store.segments().map_err(|e| e.to_string())?;
        drop(store);
        let registry = std::fs::read(&split.registry).map_err(|e| e.to_string())?;
        let mut written: Vec<(Segment, Vec<u8>)> = Vec::new();
        for (segment, file) in &split.segments {
            written.push((
                segment.clone(),
                std::fs::read(file).map_err(|e| e.to_string())?,
            ));
        }
        // The next run's working copy, as the product assembles it from what it reads.
        let newest = recorded.last().filter(|s| !s.is_sealed() && s.rows > 0);
        rebuild(
            &work,
            &registry,
            newest.map(|s| (s, out.join("trail").join(s.file_name()))),
        )?;
        let ms = clock.elapsed().as_secs_f64() * 1e3;

        let mut segment_marks = Vec::new();
        for (segment, bytes) in &written {
            mark += 1;
            write!(import.input, "blob\nmark :{mark}\ndata {}\n", bytes.len())
                .and_then(|()| import.input.write_all(bytes))
                .and_then(|()| import.input.write_all(b"\n"))
                .map_err(|e| e.to_string())?;
            segment_marks.push((layout.segment(segment.seq), mark));
        }
        let uploaded =
            registry.len() as u64 + written.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
        let largest = written
            .iter()
            .map(|(_, b)| b.len() as u64)
            .chain([registry.len() as u64])
            .max()
            .unwrap_or(0);
        let cost = costs::RunCost {
            run: i + 1,
            ms,
            fetched: next_read.0 + next_read.1,
            uploaded,
            segments: recorded.len() as u64,
            read: u64::from(next_read.1 > 0),
            largest,
        };
        next_read = (
            registry.len() as u64,
            newest.map_or(0, |s| {
                written
                    .iter()
                    .find(|(w, _)| w.seq == s.seq)
                    .map_or(0, |(_, b)| b.len() as u64)
            }),
        );
        pending.push(Pending {
            run: i,
            head: run.run.head.clone().unwrap_or_default(),
            registry,
            segments: segment_marks,
        });
        csv.push(&cost)?;
        all.push(cost);
        if pending.len() >= 100 || i + 1 == runs {
            flush(&mut import, &mut pending, &mut mark, &layout)?;
        }
        if (i + 1).is_multiple_of(1_000) {
            let last = &all[all.len() - 1_000..];
            eprintln!(
                "  {} runs in {:.0} s: the last 1,000 {:.1} ms, {:.2} MB uploaded per run; {} segments",
                i + 1,
                started.elapsed().as_secs_f64(),
                last.iter().map(|c| c.ms).sum::<f64>() / 1e3,
                last.iter().map(|c| c.uploaded as f64).sum::<f64>() / 1e9,
                recorded.len()
            );
        }
    }
    csv.finish()?;
    import.finish()?;
    eprintln!(
        "audit-simulate: {runs} runs imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    report(
        "audit-simulate",
        &bare,
        dir,
        runs,
        failing_runs,
        started.elapsed(),
    )?;
    report_costs("audit-simulate", &all, config.segment_size);
    Ok(())
}

/// The working copy at `work`: the registry's bytes, and the newest segment's rows loaded.
fn rebuild(
    work: &Path,
    registry: &[u8],
    newest: Option<(&Segment, std::path::PathBuf)>,
) -> Result<(), String> {
    for stale in ["db", "db-journal", "db-wal", "db-shm"] {
        let _ = std::fs::remove_file(work.with_extension(stale));
    }
    std::fs::write(work, registry).map_err(|e| e.to_string())?;
    if let Some((segment, file)) = newest {
        Store::open(work)
            .and_then(|mut store| store.load_segment(segment, &file))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Write the waiting runs' registries, then their commits.
fn flush(
    import: &mut FastImport,
    pending: &mut Vec<Pending>,
    mark: &mut u64,
    layout: &Layout,
) -> Result<(), String> {
    let mut registry_marks = Vec::new();
    for run in pending.iter() {
        *mark += 1;
        write!(
            import.input,
            "blob\nmark :{mark}\ndata {}\n",
            run.registry.len()
        )
        .and_then(|()| import.input.write_all(&run.registry))
        .and_then(|()| import.input.write_all(b"\n"))
        .map_err(|e| e.to_string())?;
        registry_marks.push(*mark);
    }
    for (run, registry) in pending.iter().zip(registry_marks) {
        let message = format!("skillgate: 5 decisions at {}\n", run.head);
        write!(
            import.input,
            "commit refs/heads/skillgate/audit\ncommitter skillgate <skillgate@users.noreply.github.com> {} +0000\n\
             data {}\n{message}M 100644 :{registry} {}\n",
            1_780_000_000 + run.run * 60,
            message.len(),
            layout.registry
        )
        .map_err(|e| e.to_string())?;
        for (path, mark) in &run.segments {
            writeln!(import.input, "M 100644 :{mark} {path}").map_err(|e| e.to_string())?;
        }
        writeln!(import.input).map_err(|e| e.to_string())?;
    }
    pending.clear();
    Ok(())
}
