//! Generate giant reports and read them, one process per measurement so the peak RSS of each
//! reader is its own: `gen-junit`, `gen-tap`, `skillgate FILE`, `junit-parser FILE`.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod audit;
mod report;

/// One test in this many fails, with a multi-KB message.
const FAIL_EVERY: u64 = 100;
/// One suite in this many carries a huge `<system-out>`.
const HUGE_OUT_EVERY: u64 = 25;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen-junit", path, cases] => gen_junit(Path::new(path), parse(cases)),
        ["gen-tap", path, cases] => gen_tap(Path::new(path), parse(cases)),
        ["skillgate", path] => read_skillgate(Path::new(path)),
        ["junit-parser", path] => read_junit_parser(Path::new(path)),
        ["runner-parallel"] => runner_parallel(),
        ["runner-overhead", runs] => runner_overhead(parse(runs) as usize),
        ["runner-flood", bytes] => runner_flood(parse(bytes)),
        ["audit-compact", dir] => audit::compact(Path::new(dir)),
        ["audit-history", template, runs, dir] => {
            audit::history(Path::new(template), parse(runs), Path::new(dir))
        }
        ["audit-simulate", template, runs, dir] => {
            audit::simulated::trail(Path::new(template), parse(runs), Path::new(dir))
        }
        ["audit-trail", template, runs, dir] => {
            audit::trail(Path::new(template), parse(runs), Path::new(dir))
        }
        ["report-history", rest @ ..] => report::command(rest),
        ["report-sections", rest @ ..] => report::sections(rest),
        _ => Err(
            "usage: skillgate-bench gen-junit|gen-tap PATH CASES | skillgate|junit-parser PATH \
                  | runner-parallel | runner-overhead RUNS | runner-flood BYTES \
                  | audit-trail RESULTS.json RUNS DIR | audit-simulate RESULTS.json RUNS DIR \
                  | audit-history RESULTS.json RUNS DIR | audit-compact DIR \
                  | report-history DB N_SKILLS M_DECISIONS K_USAGE [SEED] | report-sections DB [RUNS]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn parse(n: &str) -> u64 {
    n.parse().unwrap_or(1_000_000)
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A failure message of a few KB, with characters that need escaping.
fn message(i: u64) -> String {
    let line = format!("assertion failed at step {i}: expected <ok> & got \"err\"\n");
    line.repeat(40)
}

fn gen_junit(path: &Path, cases: u64) -> Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let per_suite = 1000;
    let suites = cases.div_ceil(per_suite);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(out, r#"<testsuites name="bench" tests="{cases}">"#)?;
    let huge = "x".repeat(1024);
    let mut i = 0;
    for s in 0..suites {
        writeln!(
            out,
            r#"  <testsuite name="suite.{s}" tests="{per_suite}" time="1.5">"#
        )?;
        for _ in 0..per_suite.min(cases - i) {
            if i % FAIL_EVERY == 0 {
                writeln!(
                    out,
                    r#"    <testcase classname="pkg.module{s}.Class" name="test_case_number_{i}" file="src/module{s}.py" line="{}" time="0.002"><failure message="boom {i}" type="AssertionError">{}</failure><system-out>captured output of test {i}</system-out></testcase>"#,
                    i % 500 + 1,
                    escape(&message(i))
                )?;
            } else {
                writeln!(
                    out,
                    r#"    <testcase classname="pkg.module{s}.Class" name="test_case_number_{i}" file="src/module{s}.py" line="{}" time="0.001"/>"#,
                    i % 500 + 1
                )?;
            }
            i += 1;
        }
        if s % HUGE_OUT_EVERY == 0 {
            // About 10 MB of captured output at suite level.
            write!(out, "    <system-out>")?;
            for _ in 0..10 * 1024 {
                writeln!(out, "{huge}")?;
            }
            writeln!(out, "</system-out>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")?;
    out.flush()?;
    let failed = cases.div_ceil(FAIL_EVERY);
    let expected = format!("{} passed, {failed} failed, 0 skipped", cases - failed);
    std::fs::write(path.with_extension("expected"), &expected)?;
    println!("generated {} bytes: {expected}", path.metadata()?.len());
    Ok(())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn gen_tap(path: &Path, cases: u64) -> Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    writeln!(out, "TAP version 13\n1..{cases}")?;
    for i in 1..=cases {
        if i % FAIL_EVERY == 0 {
            writeln!(
                out,
                "not ok {i} - suite/feature {} handles case {i}",
                i / 1000
            )?;
            writeln!(
                out,
                "  ---\n  message: 'expected 200, got 500 at step {i}'\n  severity: fail\n  at:\n    file: test/feature.js\n    line: {}\n  ...",
                i % 300
            )?;
        } else if i % 1000 == 1 {
            writeln!(
                out,
                "ok {i} - suite/feature {} handles case {i} # SKIP not on this platform",
                i / 1000
            )?;
        } else {
            writeln!(out, "ok {i} - suite/feature {} handles case {i}", i / 1000)?;
        }
    }
    out.flush()?;
    let failed = cases / FAIL_EVERY;
    let skipped = (1..=cases)
        .filter(|i| i % 1000 == 1 && i % FAIL_EVERY != 0)
        .count() as u64;
    let expected = format!(
        "{} passed, {failed} failed, {skipped} skipped",
        cases - failed - skipped
    );
    std::fs::write(path.with_extension("expected"), &expected)?;
    println!("generated {} bytes: {expected}", path.metadata()?.len());
    Ok(())
}

fn report(reader: &str, path: &Path, started: Instant, counts: String) -> Result<()> {
    let secs = started.elapsed().as_secs_f64();
    let bytes = path.metadata()?.len() as f64;
    println!(
        "{reader}: {counts} in {secs:.3} s = {:.0} MB/s, peak RSS {} MB",
        bytes / secs / 1e6,
        peak_rss_kb() / 1024
    );
    Ok(())
}

fn read_skillgate(path: &Path) -> Result<()> {
    let started = Instant::now();
    let run = skillgate::results::read_report_file(path)?.ok_or("not a report")?;
    let counts = format!(
        "{} passed, {} failed, {} skipped",
        run.passed, run.failed, run.skipped
    );
    report("skillgate", path, started, counts)
}

fn read_junit_parser(path: &Path) -> Result<()> {
    let started = Instant::now();
    let suites = junit_parser::from_reader(BufReader::new(File::open(path)?))?;
    let (mut passed, mut failed, mut skipped) = (0u64, 0u64, 0u64);
    for suite in &suites.suites {
        for case in &suite.cases {
            if case.status.is_success() {
                passed += 1;
            } else if case.status.is_skipped() {
                skipped += 1;
            } else {
                failed += 1;
            }
        }
    }
    report(
        "junit-parser",
        path,
        started,
        format!("{passed} passed, {failed} failed, {skipped} skipped"),
    )
}

/// Run shell suites through the gate's runner, in a scratch directory.
fn run_suites(scripts: &[&str], jobs: usize, cap: u64) -> Result<Vec<skillgate::runner::Finished>> {
    use skillgate::runner::{Job, Settings, run_all};
    let dir = tempfile::tempdir()?;
    let jobs_list: Vec<Job> = scripts
        .iter()
        .enumerate()
        .map(|(i, script)| Job {
            label: format!("suite {i}"),
            program: "bash".into(),
            args: vec!["-c".into(), (*script).into()],
            cwd: dir.path().to_path_buf(),
            report_dir: dir.path().join(format!("{i}/reports")),
            stdout: dir.path().join(format!("{i}/stdout.log")),
            stderr: dir.path().join(format!("{i}/stderr.log")),
        })
        .collect();
    let settings = Settings {
        jobs,
        timeout: Duration::from_secs(600),
        output_cap: cap,
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
    };
    let silent: Arc<dyn skillgate::runner::Progress> = Arc::new(skillgate::runner::Silent);
    Ok(run_all(jobs_list, &settings, &silent)?)
}

/// 16 suites of `sleep 1`, 8 at a time: two waves, so the ideal is 2 s.
fn runner_parallel() -> Result<()> {
    let started = Instant::now();
    let done = run_suites(&["sleep 1"; 16], 8, 16 << 20)?;
    let secs = started.elapsed().as_secs_f64();
    if done.iter().any(|d| d.exit_code != Some(0)) {
        return Err("a sleep suite failed".into());
    }
    println!("runner-parallel: 16 x sleep 1 with --jobs 8 in {secs:.3} s");
    Ok(())
}

/// A `true` suite through the runner, against spawning `true` directly: the median of each.
fn runner_overhead(runs: usize) -> Result<()> {
    let mut gate = Vec::with_capacity(runs);
    let mut direct = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let status = std::process::Command::new("bash")
            .args(["-c", "true"])
            .status()?;
        direct.push(started.elapsed());
        if !status.success() {
            return Err("true failed".into());
        }
        let started = Instant::now();
        run_suites(&["true"], 1, 16 << 20)?;
        gate.push(started.elapsed());
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (gate, direct) = (median(&mut gate), median(&mut direct));
    println!(
        "runner-overhead: a `true` suite {:.2} ms through the runner, {:.2} ms spawned directly: \
         {:.2} ms of gate overhead (medians of {runs})",
        gate.as_secs_f64() * 1e3,
        direct.as_secs_f64() * 1e3,
        gate.saturating_sub(direct).as_secs_f64() * 1e3
    );
    Ok(())
}

/// A suite printing `bytes` of output, captured with the default 16 MiB cap.
fn runner_flood(bytes: u64) -> Result<()> {
    let script = format!("head -c {bytes} /dev/zero | tr '\\0' 'x'");
    let started = Instant::now();
    let done = run_suites(&[&script], 1, 16 << 20)?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "runner-flood: {} MB printed, {} MB seen, in {secs:.2} s, peak RSS {} MB",
        bytes / 1_000_000,
        done[0].stdout_bytes / 1_000_000,
        peak_rss_kb() / 1024
    );
    if done[0].stdout_bytes != bytes {
        return Err("the runner did not see every byte".into());
    }
    Ok(())
}

/// Peak resident set of this process, from getrusage (kilobytes on Linux).
fn peak_rss_kb() -> i64 {
    let mut usage = std::mem::MaybeUninit::<libc_rusage::Rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is 0.
    unsafe {
        libc_rusage::getrusage(0, usage.as_mut_ptr());
        usage.assume_init().ru_maxrss
    }
}

/// The one libc call this needs, declared here to keep the bench's dependencies to two.
mod libc_rusage {
    #[repr(C)]
    pub struct Rusage {
        pub ru_utime: [i64; 2],
        pub ru_stime: [i64; 2],
        pub ru_maxrss: i64,
        pub rest: [i64; 13],
    }
    unsafe extern "C" {
        pub fn getrusage(who: i32, usage: *mut Rusage) -> i32;
    }
}
