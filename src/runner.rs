//! Running suites: bounded parallelism, a time limit that kills the suite's whole process group,
//! capped output captured to files, and an environment with the runner's secrets removed.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::Semaphore;

/// How long a suite gets between TERM and KILL.
pub const KILL_GRACE: Duration = Duration::from_secs(3);

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
}

/// One suite to run.
#[derive(Debug, Clone)]
pub struct Job {
    pub program: String,
    pub args: Vec<String>,
    /// The skill directory.
    pub cwd: PathBuf,
    /// Empty directory the suite may write reports into (`SKILLGATE_REPORT_DIR`).
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
    /// The environment suites get, already scrubbed (see [`scrubbed_env`]).
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
pub fn run_all(jobs: Vec<Job>, settings: &Settings) -> Result<Vec<Finished>, RunnerError> {
    for job in &jobs {
        std::fs::create_dir_all(&job.report_dir).map_err(|source| RunnerError::Prepare {
            path: job.report_dir.clone(),
            source,
        })?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RunnerError::Runtime)?;
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
            .map(|job| {
                let permits = Arc::clone(&permits);
                let settings = Arc::clone(&settings);
                let live = Arc::clone(&live);
                tokio::spawn(async move {
                    let _permit = permits.acquire_owned().await;
                    run_one(job, &settings, &live).await
                })
            })
            .collect();
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
        let name = tokio::select! {
            results = collect => return Ok(results),
            _ = interrupt.recv() => "SIGINT",
            _ = terminate.recv() => "SIGTERM",
        };
        stop_all(&live).await;
        Err(RunnerError::Interrupted(name))
    })
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

async fn run_one(job: Job, settings: &Settings, live: &Live) -> Finished {
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
    let mut command = tokio::process::Command::new(&job.program);
    command
        .args(&job.args)
        .current_dir(&job.cwd)
        .env_clear()
        .envs(settings.env.iter().map(|(k, v)| (k, v)))
        .env("SKILLGATE_REPORT_DIR", &job.report_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout can end the suite and everything it started.
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
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
    let cap = settings.output_cap;
    let out_task = tokio::spawn(capture(stdout, job.stdout.clone(), cap));
    let err_task = tokio::spawn(capture(stderr, job.stderr.clone(), cap));

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
    // Whatever the suite left running in its group (`sleep 1000 &`) ends with it.
    end_group(pgid).await;
    if let (Some(pgid), Ok(mut groups)) = (pgid, live.lock()) {
        groups.retain(|g| *g != pgid);
    }
    finished.duration = started.elapsed();
    if let Some(status) = status {
        use std::os::unix::process::ExitStatusExt;
        finished.exit_code = status.code();
        finished.signal = status.signal();
    }
    // Both captures run already; one deadline bounds the wait for the two of them.
    let deadline = tokio::time::Instant::now() + DRAIN_WAIT;
    finished.stdout_bytes = drain(out_task, deadline).await;
    finished.stderr_bytes = drain(err_task, deadline).await;
    finished
}

async fn drain(task: tokio::task::JoinHandle<u64>, deadline: tokio::time::Instant) -> u64 {
    match tokio::time::timeout_at(deadline, task).await {
        Ok(Ok(bytes)) => bytes,
        // A process that left the group still holds the pipe: stop reading, keep what we have.
        _ => 0,
    }
}

fn signal_group(pgid: Option<i32>, signal: i32) {
    if let Some(pgid) = pgid.filter(|p| *p > 0) {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}

fn group_alive(pgid: Option<i32>) -> bool {
    match pgid.filter(|p| *p > 0) {
        // SAFETY: signal 0 only checks that the group exists.
        Some(pgid) => unsafe { libc::kill(-pgid, 0) == 0 },
        None => false,
    }
}

/// TERM the suite's leftover processes, then KILL what remains after a short grace.
async fn end_group(pgid: Option<i32>) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_millis(500);
    while group_alive(pgid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_group(pgid, libc::SIGKILL);
}

/// Copy a stream to `path`, keeping the first and last `cap / 2` bytes; returns bytes seen.
async fn capture<R: AsyncRead + Unpin>(stream: Option<R>, path: PathBuf, cap: u64) -> u64 {
    let Ok(mut file) = tokio::fs::File::create(&path).await else {
        return 0;
    };
    let Some(mut stream) = stream else {
        return 0;
    };
    let head_cap = cap / 2;
    let tail_cap = usize::try_from(cap - head_cap).unwrap_or(usize::MAX);
    let mut written: u64 = 0;
    let mut seen: u64 = 0;
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        seen += n as u64;
        let mut chunk = &buf[..n];
        if written < head_cap {
            let take = usize::try_from(head_cap - written)
                .unwrap_or(usize::MAX)
                .min(chunk.len());
            if file.write_all(&chunk[..take]).await.is_err() {
                return seen;
            }
            written += take as u64;
            chunk = &chunk[take..];
        }
        if tail_cap > 0 && !chunk.is_empty() {
            tail.extend(chunk);
            let excess = tail.len().saturating_sub(tail_cap);
            tail.drain(..excess);
        }
    }
    let cut = seen - written - tail.len() as u64;
    if cut > 0 {
        let marker = format!("\n[skillgate: {cut} bytes of output cut here]\n");
        let _ = file.write_all(marker.as_bytes()).await;
    }
    let (a, b) = tail.as_slices();
    let _ = file.write_all(a).await;
    let _ = file.write_all(b).await;
    let _ = file.flush().await;
    seen
}

/// Names that never reach a suite: the runner's credentials, the Action's inputs, and anything
/// named like a secret.
fn is_secret_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &["ACTIONS_", "INPUT_"];
    const PARTS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "PRIVATE_KEY",
        "API_KEY",
        "ACCESS_KEY",
        "AUTH_KEY",
    ];
    let upper = name.to_ascii_uppercase();
    PREFIXES.iter().any(|p| upper.starts_with(p))
        || PARTS.iter().any(|p| upper.contains(p))
        || upper.ends_with("_KEY")
}

/// A value that carries a password in a URL (`postgres://user:pass@host/db`).
fn has_url_credentials(value: &str) -> bool {
    value.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(':'))
    })
}

/// The environment a suite gets: ours, less secrets (by name, by a credential-bearing URL
/// value, and `extra_secrets`), unless a name is in `allow`.
pub fn scrubbed_env(
    env: impl IntoIterator<Item = (OsString, OsString)>,
    extra_secrets: &[String],
    allow: &[String],
) -> Vec<(OsString, OsString)> {
    env.into_iter()
        .filter(|(name, value)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            if allow.iter().any(|a| a == name) {
                return true;
            }
            let secret_value = value.to_str().is_none_or(has_url_credentials);
            !(is_secret_name(name) || secret_value || extra_secrets.iter().any(|s| s == name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn scrubbing_removes_tokens_and_inputs_unless_allowed() {
        let env = os(&[
            ("PATH", "/bin"),
            ("GITHUB_TOKEN", "ghs_x"),
            ("GH_TOKEN", "x"),
            ("TOKEN", "x"),
            ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://x"),
            ("ACTIONS_RUNTIME_TOKEN", "t"),
            ("INPUT_GITHUB-TOKEN", "t"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_ACCESS_KEY_ID", "AKIA"),
            ("OPENAI_API_KEY", "sk"),
            ("SIGNING_KEY", "k"),
            ("DB_PASSWORD", "p"),
            ("DATABASE_URL", "postgres://app:hunter2@db:5432/app"),
            ("PUBLIC_URL", "https://example.com/a@b"),
            ("NPM_TOKEN", "n"),
            ("MY_CUSTOM", "c"),
            ("HOME", "/root"),
        ]);
        let kept = scrubbed_env(env, &["MY_CUSTOM".to_owned()], &["NPM_TOKEN".to_owned()]);
        let names: Vec<_> = kept
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["PATH", "PUBLIC_URL", "NPM_TOKEN", "HOME"]);
    }

    fn settings(timeout: Duration, cap: u64) -> Settings {
        Settings {
            jobs: 2,
            timeout,
            output_cap: cap,
            env: os(&[("PATH", "/usr/bin:/bin")]),
        }
    }

    fn job(dir: &std::path::Path, name: &str, script: &str) -> Job {
        Job {
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
        let done = run_all(jobs, &settings(Duration::from_secs(30), 1024)).expect("run");
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
        let done = run_all(
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
        let done = run_all(
            vec![job(dir.path(), "bg", &script)],
            &settings(Duration::from_secs(30), 1024),
        )
        .expect("run");
        assert_eq!(done[0].exit_code, Some(0));
        let pid = read_pid(&pidfile);
        assert!(!alive(pid), "the background child {pid} survived");
    }

    #[test]
    fn output_is_capped_head_and_tail() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = "for i in $(seq 1 2000); do echo line-$i; done";
        let done = run_all(
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
        let done = run_all(vec![j], &settings(Duration::from_secs(5), 100)).expect("run");
        assert!(
            done[0]
                .spawn_error
                .as_deref()
                .is_some_and(|e| e.contains("definitely-not"))
        );
    }
}
