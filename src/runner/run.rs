//! Running suites: bounded parallelism, a time limit that ends the suite's whole process group,
//! results in the order asked whatever finishes first.

use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::capture::capture;
use super::group::{self, end_group, end_orphans, group_alive, guard_the_gate, signal_group};
use super::interrupt;
use super::observer::{Progress, TICK};

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Semaphore;

/// How long a suite gets between TERM and KILL.
pub const KILL_GRACE: Duration = Duration::from_secs(3);

/// How long a suite's pipes may stay open once its process group is gone, before the
/// processes that left the group holding them are ended.
const HOLDER_WAIT: Duration = Duration::from_millis(200);

/// How long to wait for a suite's pipes to close once its process group is gone.
const DRAIN_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("failed to start the suite runner: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("interrupted by {0}: the running suites were stopped and nothing was recorded")]
    Interrupted(&'static str),
    #[error("failed to prepare {}: {source}", path.display())]
    Prepare {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "a suite changed {}, the directory that hides every attempt's reports from the others: no report of this run can be trusted",
        path.display()
    )]
    Tampered { path: PathBuf },
}

/// One suite to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// What a person calls it in progress output: the skill, and the attempt when retried.
    pub label: String,
    pub program: String,
    pub args: Vec<String>,
    /// The skill directory.
    pub cwd: PathBuf,
    /// Empty directory the suite may write reports into (`SKILLGATE_REPORT_DIR`). Its parent
    /// is the attempt's own (see [`Workspace::place`](super::Workspace::place)): the suite's
    /// fresh `HOME` and `TMPDIR` are made there.
    pub report_dir: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

/// Settings shared by every job of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub jobs: usize,
    pub timeout: Duration,
    /// Bytes kept per stream: the first half and the last half.
    pub output_cap: u64,
    /// The environment suites get, already scrubbed (see [`scrubbed_env`](super::scrubbed_env));
    /// `HOME`, `TMPDIR`, `TMP`, `TEMP` and `SKILLGATE_REPORT_DIR` are set per attempt over it.
    pub env: Vec<(OsString, OsString)>,
}

/// How a suite ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub exit_code: Option<i32>,
    /// The signal that ended the suite's main process.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration: Duration,
    /// Why the suite could not start at all.
    pub spawn_error: Option<String>,
    /// Bytes the suite wrote to stdout and stderr (before the cap).
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
}

impl Finished {
    /// Exited 0 on its own.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && self.spawn_error.is_none()
    }

    /// One line for a person: `exit 0`, `exit 2`, `killed by signal 9`, `timed out after 10m`.
    pub fn describe(&self, timeout: Duration) -> String {
        if let Some(err) = &self.spawn_error {
            return format!("could not start: {err}");
        }
        if self.timed_out {
            return format!("timed out after {}", humantime::format_duration(timeout));
        }
        match (self.exit_code, self.signal) {
            (Some(code), _) => format!("exit {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            (None, None) => "ended without an exit status".to_owned(),
        }
    }
}

/// Run every job, at most `settings.jobs` at once; results come back in the order of `jobs`.
/// `progress` hears of each suite as it starts and ends.
pub fn run_all(
    jobs: Vec<Job>,
    settings: &Settings,
    progress: &Arc<dyn Progress>,
) -> Result<Vec<Finished>, RunnerError> {
    for job in &jobs {
        std::fs::create_dir_all(&job.report_dir).map_err(|source| RunnerError::Prepare {
            path: job.report_dir.clone(),
            source,
        })?;
    }
    // Removed when this returns, after every process of every suite has ended.
    let fresh: Vec<Fresh> = jobs.iter().map(Fresh::new).collect::<Result<_, _>>()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RunnerError::Runtime)?;
    interrupt::watch();
    if let Some(name) = interrupt::interrupted() {
        return Err(RunnerError::Interrupted(name));
    }
    // The `git` every later git command runs is the one on `PATH` now, not one a suite plants,
    // and it reads no git config a suite could write.
    crate::git::suites_starting();
    progress.begin(jobs.len());
    guard_the_gate();
    runtime.block_on(async {
        // Interrupting the gate (Ctrl-C, a cancelled CI job) must not orphan the suites: they
        // run in their own process groups, out of reach of the terminal's signals.
        let mut interrupt = signal(SignalKind::interrupt()).map_err(RunnerError::Runtime)?;
        let mut terminate = signal(SignalKind::terminate()).map_err(RunnerError::Runtime)?;
        let live: Live = Arc::default();
        let permits = Arc::new(Semaphore::new(settings.jobs.max(1)));
        let settings = Arc::new(settings.clone());
        let handles: Vec<_> = jobs
            .into_iter()
            .zip(fresh.iter().map(Fresh::dirs))
            .enumerate()
            .map(|(index, (job, dirs))| {
                let permits = Arc::clone(&permits);
                let settings = Arc::clone(&settings);
                let live = Arc::clone(&live);
                let progress = Arc::clone(progress);
                tokio::spawn(async move {
                    let _permit = permits.acquire_owned().await;
                    progress.started(index, &job);
                    let finished = run_one(&job, &dirs, &settings, &live).await;
                    progress.finished(index, &job, &finished, settings.timeout);
                    finished
                })
            })
            .collect();
        let ticker = {
            let progress = Arc::clone(progress);
            tokio::spawn(async move {
                let mut every = tokio::time::interval(TICK);
                loop {
                    every.tick().await;
                    progress.tick();
                }
            })
        };
        let collect = async {
            let mut results = Vec::with_capacity(handles.len());
            for handle in handles {
                results.push(handle.await.unwrap_or_else(|err| Finished {
                    exit_code: None,
                    signal: None,
                    timed_out: false,
                    duration: Duration::ZERO,
                    spawn_error: Some(format!("runner task failed: {err}")),
                    stdout_bytes: 0,
                    stderr_bytes: 0,
                }));
            }
            results
        };
        let stopped = tokio::select! {
            results = collect => Ok(results),
            _ = interrupt.recv() => Err("SIGINT"),
            _ = terminate.recv() => Err("SIGTERM"),
        };
        ticker.abort();
        progress.done();
        let result = match stopped {
            Ok(results) => Ok(results),
            Err(name) => {
                stop_all(&live).await;
                Err(RunnerError::Interrupted(name))
            }
        };
        // What left its group (`setsid`, daemons) is ended too, once no suite runs.
        end_orphans().await;
        result
    })
}

/// A suite attempt's own `HOME` and `TMPDIR`: empty, 0700, beside its report directory, named
/// `h` and `t` and three random characters (unique even where jobs share a parent). Short
/// names: a Unix socket's path under `TMPDIR` must fit in 107 bytes, and Python's
/// `multiprocessing` adds 32 to it. A suite's tools find no `~/.npmrc`, `~/.netrc`, `~/.git-credentials`,
/// `~/.docker/config.json` or `~/.ssh` there (a suite that opens the gate's home by its
/// absolute path still can: it runs as the gate's user), and nothing a suite leaves there
/// reaches another suite or a later step.
struct Fresh {
    home: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

/// The paths of a [`Fresh`], for the task that runs the suite.
struct FreshDirs {
    home: PathBuf,
    tmp: PathBuf,
}

impl Fresh {
    fn new(job: &Job) -> Result<Self, RunnerError> {
        let parent = job
            .report_dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(&job.report_dir);
        let make = |prefix: &str| {
            tempfile::Builder::new()
                .prefix(prefix)
                .rand_bytes(3)
                .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .tempdir_in(parent)
                .map_err(|source| RunnerError::Prepare {
                    path: parent.to_path_buf(),
                    source,
                })
        };
        Ok(Self {
            home: make("h")?,
            tmp: make("t")?,
        })
    }

    fn dirs(&self) -> FreshDirs {
        FreshDirs {
            home: self.home.path().to_path_buf(),
            tmp: self.tmp.path().to_path_buf(),
        }
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        // A suite may close what it made (`chmod 000`): open it again so that it goes.
        super::workspace::remove_tree(self.home.path());
        super::workspace::remove_tree(self.tmp.path());
    }
}

/// The process groups of the suites running now.
type Live = Arc<std::sync::Mutex<Vec<i32>>>;

/// TERM every running suite's group, then KILL what is left after the grace period.
async fn stop_all(live: &Live) {
    let groups: Vec<i32> = live.lock().map(|g| g.clone()).unwrap_or_default();
    for pgid in &groups {
        signal_group(Some(*pgid), libc::SIGTERM);
    }
    let deadline = Instant::now() + KILL_GRACE;
    while groups.iter().any(|g| group_alive(Some(*g))) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for pgid in &groups {
        signal_group(Some(*pgid), libc::SIGKILL);
    }
}

async fn run_one(job: &Job, dirs: &FreshDirs, settings: &Settings, live: &Live) -> Finished {
    let started = Instant::now();
    let mut finished = Finished {
        exit_code: None,
        signal: None,
        timed_out: false,
        duration: Duration::ZERO,
        spawn_error: None,
        stdout_bytes: 0,
        stderr_bytes: 0,
    };
    let lockfile = NewLockfile::before(&job.cwd);
    let mut command = tokio::process::Command::new(&job.program);
    command
        .args(&job.args)
        .current_dir(&job.cwd)
        .env_clear()
        .envs(settings.env.iter().map(|(k, v)| (k, v)))
        // Caches and coverage data in the attempt's `TMPDIR`, not in the checkout.
        .envs(super::env::no_trace(&dirs.tmp, &settings.env))
        .env("SKILLGATE_REPORT_DIR", &job.report_dir)
        .env("HOME", &dirs.home)
        .env("TMPDIR", &dirs.tmp)
        .env("TMP", &dirs.tmp)
        .env("TEMP", &dirs.tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // SAFETY: setsid(2) is async-signal-safe, touches no memory of ours, and only fails when
    // the child already leads a group, which a freshly forked child does not.
    unsafe {
        // Its own session and process group: a timeout ends the suite and everything it
        // started, and nothing of it can move into the gate's group.
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let spawned = {
        let mut running = group::running();
        let spawned = command.spawn();
        if let Some(pid) = spawned.as_ref().ok().and_then(tokio::process::Child::id) {
            running.extend(i32::try_from(pid).ok());
        }
        spawned
    };
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => {
            finished.spawn_error = Some(format!("`{}`: {err}", job.program));
            return finished;
        }
    };
    let pgid = child.id().and_then(|id| i32::try_from(id).ok());
    if let (Some(pgid), Ok(mut groups)) = (pgid, live.lock()) {
        groups.push(pgid);
    }
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let pipes: Vec<String> = [
        stdout.as_ref().map(AsRawFd::as_raw_fd),
        stderr.as_ref().map(AsRawFd::as_raw_fd),
    ]
    .into_iter()
    .flatten()
    .filter_map(group::fd_target)
    .collect();
    let cap = settings.output_cap;
    let (out_path, err_path) = (job.stdout.clone(), job.stderr.clone());
    let out_task = tokio::spawn(async move { capture(stdout, &out_path, cap).await });
    let err_task = tokio::spawn(async move { capture(stderr, &err_path, cap).await });

    let status = match tokio::time::timeout(settings.timeout, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            finished.timed_out = true;
            signal_group(pgid, libc::SIGTERM);
            match tokio::time::timeout(KILL_GRACE, child.wait()).await {
                Ok(status) => status.ok(),
                Err(_) => {
                    signal_group(pgid, libc::SIGKILL);
                    child.wait().await.ok()
                }
            }
        }
    };
    finished.duration = started.elapsed();
    if let Some(pgid) = pgid {
        group::stopped_running(pgid);
    }
    // Whatever the suite left running in its group (`sleep 1000 &`) ends with it.
    end_group(pgid).await;
    lockfile.remove();
    if let (Some(pgid), Ok(mut groups)) = (pgid, live.lock()) {
        groups.retain(|g| *g != pgid);
    }
    if let Some(status) = status {
        use std::os::unix::process::ExitStatusExt;
        finished.exit_code = status.code();
        finished.signal = status.signal();
    }
    // Both captures run already. A process that left the group can still hold a pipe (a
    // daemon started without redirecting its output): after a moment it is ended, so that the
    // capture reaches its end and keeps the tail.
    let soon = tokio::time::Instant::now() + HOLDER_WAIT;
    while !(out_task.is_finished() && err_task.is_finished()) && tokio::time::Instant::now() < soon
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if !(out_task.is_finished() && err_task.is_finished()) {
        group::end_pipe_holders(&pipes).await;
    }
    // One deadline bounds the wait for the two of them.
    let deadline = tokio::time::Instant::now() + DRAIN_WAIT;
    finished.stdout_bytes = drain(out_task, deadline).await;
    finished.stderr_bytes = drain(err_task, deadline).await;
    finished
}

/// A `Cargo.lock` that `cargo test` writes beside a crate that had none: left there, the next
/// `check` would gate the skill as changed. Only that file, and only when it was absent before
/// the suite ran, is removed once the suite's processes have ended. (Running a copy of the
/// crate instead would break its path dependencies and its tests' relative paths.)
struct NewLockfile(Option<PathBuf>);

impl NewLockfile {
    fn before(cwd: &std::path::Path) -> Self {
        let lock = cwd.join("Cargo.lock");
        let absent = std::fs::symlink_metadata(&lock)
            .is_err_and(|err| err.kind() == std::io::ErrorKind::NotFound);
        Self((absent && cwd.join("Cargo.toml").is_file()).then_some(lock))
    }

    fn remove(self) {
        let Some(lock) = self.0 else { return };
        // A file or a link the suite left, never a directory of that name.
        if std::fs::symlink_metadata(&lock).is_ok_and(|m| !m.is_dir()) {
            let _ = std::fs::remove_file(&lock);
        }
    }
}

async fn drain(mut task: tokio::task::JoinHandle<u64>, deadline: tokio::time::Instant) -> u64 {
    match tokio::time::timeout_at(deadline, &mut task).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => 0,
        // Something out of reach still holds the pipe: stop reading, keep the head written.
        Err(_) => {
            task.abort();
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::ffi::OsString;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    fn settings(timeout: Duration, cap: u64) -> Settings {
        Settings {
            jobs: 2,
            timeout,
            output_cap: cap,
            env: os(&[("PATH", "/usr/bin:/bin")]),
        }
    }

    fn run_silent(jobs: Vec<Job>, settings: &Settings) -> Result<Vec<Finished>, RunnerError> {
        let silent: Arc<dyn Progress> = Arc::new(crate::runner::Silent);
        run_all(jobs, settings, &silent)
    }

    fn job(dir: &std::path::Path, name: &str, script: &str) -> Job {
        Job {
            label: name.to_owned(),
            program: "bash".into(),
            args: vec!["-c".into(), script.into()],
            cwd: dir.to_path_buf(),
            report_dir: dir.join(format!("{name}-reports")),
            stdout: dir.join(format!("{name}.out")),
            stderr: dir.join(format!("{name}.err")),
        }
    }

    /// A process that exists and is not a zombie (an orphan nobody reaped is as good as gone).
    fn alive(pid: i32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat
                .rsplit(") ")
                .next()
                .is_some_and(|rest| !rest.starts_with('Z')),
            Err(_) => false,
        }
    }

    fn read_pid(path: &std::path::Path) -> i32 {
        let text = std::fs::read_to_string(path).expect("the suite wrote its child's pid");
        text.trim().parse().expect("a pid")
    }

    #[test]
    fn exit_codes_output_and_report_dir() {
        let dir = tempfile::tempdir().expect("tempdir");
        let jobs = vec![
            job(
                dir.path(),
                "a",
                "echo hello; echo oops >&2; echo r > \"$SKILLGATE_REPORT_DIR/r.txt\"; exit 3",
            ),
            job(dir.path(), "b", "kill -9 $$"),
        ];
        let done = run_silent(jobs, &settings(Duration::from_secs(30), 1024)).expect("run");
        assert_eq!(done[0].exit_code, Some(3));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.out")).expect("out"),
            "hello\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.err")).expect("err"),
            "oops\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a-reports/r.txt")).expect("r"),
            "r\n"
        );
        assert_eq!(done[1].exit_code, None);
        assert_eq!(done[1].signal, Some(9));
        // The gate's /proc entries are closed to the suites (same user, not dumpable).
        // SAFETY: PR_GET_DUMPABLE takes no pointer and returns the flag.
        assert_eq!(unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) }, 0);
        assert_eq!(
            done[1].describe(Duration::from_secs(1)),
            "killed by signal 9"
        );
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("child.pid");
        let script = format!("sleep 1000 & echo $! > {}; wait", pidfile.display());
        let done = run_silent(
            vec![job(dir.path(), "hang", &script)],
            &settings(Duration::from_millis(500), 1024),
        )
        .expect("run");
        assert!(done[0].timed_out);
        assert!(
            done[0].duration < Duration::from_secs(10),
            "{:?}",
            done[0].duration
        );
        let pid = read_pid(&pidfile);
        assert!(!alive(pid), "the background child {pid} survived");
    }

    #[test]
    fn background_children_do_not_outlive_a_finished_suite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("bg.pid");
        let script = format!("sleep 1000 & echo $! > {}; exit 0", pidfile.display());
        let done = run_silent(
            vec![job(dir.path(), "bg", &script)],
            &settings(Duration::from_secs(30), 1024),
        )
        .expect("run");
        assert_eq!(done[0].exit_code, Some(0));
        let pid = read_pid(&pidfile);
        assert!(!alive(pid), "the background child {pid} survived");
    }

    #[test]
    fn a_process_that_leaves_the_group_is_ended_with_the_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("daemon.pid");
        // Wait until it has its own session (field 6 of its stat), so the group's end cannot
        // catch it first.
        let script = format!(
            "setsid sleep 1000 >/dev/null 2>&1 < /dev/null & pid=$!; echo $pid > {}\n\
             until [ \"$(cut -d' ' -f6 /proc/$pid/stat)\" = \"$pid\" ]; do sleep 0.01; done",
            pidfile.display()
        );
        let done = run_silent(
            vec![job(dir.path(), "daemon", &script)],
            &settings(Duration::from_secs(30), 1024),
        )
        .expect("run");
        assert_eq!(done[0].exit_code, Some(0));
        let pid = read_pid(&pidfile);
        assert!(!alive(pid), "the daemon {pid} survived the run");
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "the daemon {pid} was not reaped"
        );
    }

    #[test]
    fn a_daemon_holding_the_output_pipe_is_ended_and_the_output_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pidfile = dir.path().join("daemon.pid");
        // The daemon keeps stdout and stderr: without ending it, the capture would wait for the
        // full drain time and lose what was printed after it started.
        let script = format!(
            "echo before; setsid sleep 1000 & pid=$!; echo $pid > {}\n\
             until [ \"$(cut -d' ' -f6 /proc/$pid/stat)\" = \"$pid\" ]; do sleep 0.01; done\n\
             echo after",
            pidfile.display()
        );
        let started = Instant::now();
        let done = run_silent(
            vec![job(dir.path(), "holder", &script)],
            &settings(Duration::from_secs(30), 1024),
        )
        .expect("run");
        assert!(
            started.elapsed() < DRAIN_WAIT,
            "took {:?}",
            started.elapsed()
        );
        assert_eq!(done[0].stdout_bytes, 13);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("holder.out")).expect("out"),
            "before\nafter\n"
        );
        let pid = read_pid(&pidfile);
        assert!(!alive(pid), "the daemon {pid} survived");
    }

    #[test]
    fn a_suite_cannot_join_the_gates_process_group() {
        let dir = tempfile::tempdir().expect("tempdir");
        // SAFETY: getpgrp has no arguments and cannot fail.
        let gate_group = unsafe { libc::getpgrp() };
        let script =
            format!("python3 -c 'import os, sys; os.setpgid(0, int(sys.argv[1]))' {gate_group}");
        let mut suite = job(dir.path(), "join", &script);
        suite.program = "bash".into();
        let done = run_silent(vec![suite], &settings(Duration::from_secs(30), 4096)).expect("run");
        assert_eq!(done[0].exit_code, Some(1));
        let err = std::fs::read_to_string(dir.path().join("join.err")).expect("err");
        assert!(err.contains("Operation not permitted"), "{err}");
    }

    #[test]
    fn an_orphan_that_forks_when_terminated_is_still_ended() {
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 271_828);
        // A daemon that answers TERM with a new daemon, and leaves the suite's pipes.
        let script = format!(
            "setsid bash -c 'trap \"setsid sleep {marker} &\" TERM; \
             while :; do sleep 0.05; done' </dev/null >/dev/null 2>&1 &\nsleep 0.2"
        );
        run_silent(
            vec![job(dir.path(), "hydra", &script)],
            &settings(Duration::from_secs(30), 1024),
        )
        .expect("run");
        let left = std::process::Command::new("pgrep")
            .args(["-f", &format!("sleep {marker}")])
            .output()
            .expect("pgrep");
        assert!(
            left.stdout.is_empty(),
            "left running: {}",
            String::from_utf8_lossy(&left.stdout)
        );
        let loops = std::process::Command::new("pgrep")
            .args(["-f", &format!("setsid sleep {marker}")])
            .output()
            .expect("pgrep");
        assert!(loops.stdout.is_empty());
    }

    #[test]
    fn caches_and_coverage_data_are_kept_in_the_attempts_tmpdir() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = "printf '%s\\n' \"$TMPDIR\" \"$COVERAGE_FILE\" \"$PYTEST_ADDOPTS\" \
                      \"$PYTHONDONTWRITEBYTECODE\" \"$CARGO_TARGET_DIR\"";
        let done = run_silent(
            vec![job(dir.path(), "env", script)],
            &settings(Duration::from_secs(30), 4096),
        )
        .expect("run");
        assert_eq!(done[0].exit_code, Some(0));
        let out = std::fs::read_to_string(dir.path().join("env.out")).expect("out");
        let lines: Vec<&str> = out.lines().collect();
        let tmp = lines[0];
        assert!(tmp.starts_with(&dir.path().display().to_string()), "{tmp}");
        assert_eq!(
            lines[1..].to_vec(),
            vec![
                format!("{tmp}/.coverage"),
                format!("-o 'cache_dir={tmp}/pytest-cache'"),
                "1".to_owned(),
                format!("{tmp}/cargo-target"),
            ]
        );
    }

    #[test]
    fn a_cargo_lock_the_suite_wrote_beside_a_crate_is_removed_and_no_other_file() {
        let write = "echo written > Cargo.lock; echo kept > other.txt";
        let crates: Vec<tempfile::TempDir> = (0..3)
            .map(|_| tempfile::tempdir().expect("tempdir"))
            .collect();
        // A crate without a lock file; a crate with one (the suite rewrites it); no crate.
        std::fs::write(crates[0].path().join("Cargo.toml"), "[package]\n").expect("write");
        std::fs::write(crates[1].path().join("Cargo.toml"), "[package]\n").expect("write");
        std::fs::write(crates[1].path().join("Cargo.lock"), "committed\n").expect("write");
        let jobs = crates
            .iter()
            .enumerate()
            .map(|(i, dir)| job(dir.path(), &format!("c{i}"), write))
            .collect();
        let done = run_silent(jobs, &settings(Duration::from_secs(30), 4096)).expect("run");
        assert!(done.iter().all(|d| d.exit_code == Some(0)), "{done:?}");
        let lock = |i: usize| std::fs::read_to_string(crates[i].path().join("Cargo.lock")).ok();
        assert_eq!(lock(0), None);
        assert_eq!(lock(1).as_deref(), Some("written\n"));
        assert_eq!(lock(2).as_deref(), Some("written\n"));
        for dir in &crates {
            assert!(dir.path().join("other.txt").is_file());
        }
    }

    #[test]
    fn output_is_capped_head_and_tail() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = "for i in $(seq 1 2000); do echo line-$i; done";
        let done = run_silent(
            vec![job(dir.path(), "big", script)],
            &settings(Duration::from_secs(30), 200),
        )
        .expect("run");
        let out = std::fs::read_to_string(dir.path().join("big.out")).expect("out");
        assert!(out.starts_with("line-1\nline-2\n"), "{out}");
        assert!(out.ends_with("line-2000\n"), "{out}");
        assert!(out.contains("bytes of output cut here"));
        assert!(done[0].stdout_bytes > 10_000);
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut j = job(dir.path(), "x", "");
        j.program = "definitely-not-a-program-xyz".into();
        let done = run_silent(vec![j], &settings(Duration::from_secs(5), 100)).expect("run");
        assert!(
            done[0]
                .spawn_error
                .as_deref()
                .is_some_and(|e| e.contains("definitely-not"))
        );
    }

    /// The longest `TMPDIR` a suite gets on a `/tmp` base: Unix sockets under it (Python's
    /// `multiprocessing` adds `/pymp-XXXXXXXX/listener-XXXXXXXX`, 32 bytes) must fit in 107.
    const TMPDIR_MAX: usize = 55;

    #[test]
    fn tmpdir_on_a_tmp_base_is_short_enough_for_unix_sockets() {
        let workspace =
            super::super::Workspace::new_in(std::path::Path::new("/tmp")).expect("workspace");
        let place = workspace.place().expect("place");
        let out = tempfile::tempdir().expect("tempdir");
        let mut suite = job(out.path(), "sock", "printf '%s' \"$TMPDIR\"");
        suite.report_dir = place.join("reports");
        let done = run_silent(vec![suite], &settings(Duration::from_secs(30), 4096)).expect("run");
        assert_eq!(done[0].exit_code, Some(0));
        let tmpdir = std::fs::read_to_string(out.path().join("sock.out")).expect("out");
        assert!(tmpdir.starts_with(&place.display().to_string()), "{tmpdir}");
        assert!(
            tmpdir.len() <= TMPDIR_MAX,
            "TMPDIR is {} bytes: {tmpdir}",
            tmpdir.len()
        );
        // A socket made where Python's multiprocessing makes one fits.
        let socket = format!("{tmpdir}/pymp-abcdefgh/listener-abcdefgh");
        assert!(socket.len() < 108, "{socket}");
    }
}
