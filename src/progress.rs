//! What a person watching sees while suites run: a live display on a terminal (suite, elapsed,
//! status) that is erased when the run ends; under GitHub Actions, a collapsible group per suite
//! with its output; in any other log, one line per suite. Always on stderr, never on stdout.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::gate::Redacted;
use crate::runner::Progress;
use crate::runner::{Finished, Job};
use crate::untrusted::printable;

/// The longest label shown, so a line never wraps and breaks the redraw.
const MAX_LABEL_CHARS: usize = 48;

/// The longest status shown.
const MAX_STATUS_CHARS: usize = 160;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A terminal: running suites redrawn in place.
    Live,
    /// GitHub Actions: `::group::` per suite, with the suite's output inside.
    Actions,
    /// Any other log: a line per finished suite.
    Lines,
}

impl Style {
    /// The style for stderr in this environment.
    pub fn detect(stderr_is_terminal: bool) -> Self {
        let env = |name: &str| std::env::var(name).unwrap_or_default();
        if env("GITHUB_ACTIONS") == "true" {
            Self::Actions
        } else if stderr_is_terminal && env("TERM") != "dumb" && env("CI").is_empty() {
            Self::Live
        } else {
            Self::Lines
        }
    }
}

/// A [`Progress`] writing to a stream (stderr, or a buffer in tests).
pub struct Display<W> {
    style: Style,
    state: Mutex<State<W>>,
}

struct State<W> {
    out: W,
    total: usize,
    done: usize,
    running: BTreeMap<usize, (String, Instant)>,
    /// Lines of the live block now on screen, erased before each redraw.
    drawn: usize,
    frame: usize,
    /// Under GitHub Actions, the finished suites whose output is shown when the batch ends:
    /// copying megabytes of output while other suites run would stall them.
    groups: Vec<Group>,
}

struct Group {
    index: usize,
    header: String,
    stdout: std::path::PathBuf,
    stderr: std::path::PathBuf,
}

impl<W: Write + Send> Display<W> {
    pub fn new(style: Style, out: W) -> Self {
        Self {
            style,
            state: Mutex::new(State {
                out,
                total: 0,
                done: 0,
                running: BTreeMap::new(),
                drawn: 0,
                frame: 0,
                groups: Vec::new(),
            }),
        }
    }

    /// The writer, for tests.
    pub fn into_inner(self) -> W {
        match self.state.into_inner() {
            Ok(state) => state.out,
            Err(poisoned) => poisoned.into_inner().out,
        }
    }

    fn with_state(&self, f: impl FnOnce(&mut State<W>)) {
        // A panic in another suite's report must not silence the rest.
        let mut state = match self.state.lock() {
            Ok(state) => state,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut state);
    }
}

impl<W: Write + Send> Progress for Display<W> {
    fn begin(&self, total: usize) {
        self.with_state(|state| {
            state.total = total;
            state.done = 0;
        });
    }

    fn started(&self, index: usize, job: &Job) {
        let style = self.style;
        self.with_state(|state| {
            state
                .running
                .insert(index, (label(&job.label), Instant::now()));
            if style == Style::Live {
                state.redraw();
            }
        });
    }

    fn finished(&self, index: usize, job: &Job, finished: &Finished, timeout: Duration) {
        let style = self.style;
        self.with_state(|state| {
            state.running.remove(&index);
            state.done += 1;
            // The status can hold a path from the skill (`could not start: /…/node_modules/…`).
            let status = printable(&finished.describe(timeout), MAX_STATUS_CHARS);
            let secs = finished.duration.as_secs_f64();
            let name = label(&job.label);
            // Best effort throughout: a closed stderr must not stop the gate.
            match style {
                Style::Live => {
                    state.erase();
                    let mark = if finished.succeeded() { "✓" } else { "✗" };
                    let _ = writeln!(state.out, "  {mark} {name}  {status}  {secs:.1}s");
                    state.redraw();
                }
                Style::Lines => {
                    let _ = writeln!(state.out, "skillgate: {name}: {status} ({secs:.1}s)");
                }
                Style::Actions => {
                    let header = format!("{name}: {status} ({secs:.1}s)");
                    let _ = writeln!(state.out, "skillgate: {header}");
                    state.groups.push(Group {
                        index,
                        header,
                        stdout: job.stdout.clone(),
                        stderr: job.stderr.clone(),
                    });
                }
            }
            let _ = state.out.flush();
        });
    }

    fn tick(&self) {
        if self.style == Style::Live {
            self.with_state(|state| {
                state.frame = state.frame.wrapping_add(1);
                state.redraw();
            });
        }
    }

    fn done(&self) {
        self.with_state(|state| {
            state.erase();
            let mut groups = std::mem::take(&mut state.groups);
            groups.sort_by_key(|g| g.index);
            for group in &groups {
                // Without a token a suite cannot guess, its output stays out of the log.
                if let Some(token) = token() {
                    let _ = write_group(&mut state.out, group, &token);
                }
            }
            let _ = state.out.flush();
        });
    }
}

impl<W: Write> State<W> {
    fn erase(&mut self) {
        if self.drawn > 0 {
            // Up to the block's first line, then clear to the end of the screen.
            let _ = write!(self.out, "\x1b[{}A\r\x1b[J", self.drawn);
            self.drawn = 0;
        }
    }

    fn redraw(&mut self) {
        const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
        self.erase();
        let spin = SPINNER[self.frame % SPINNER.len()];
        let mut lines = 0;
        for (name, since) in self.running.values() {
            let secs = since.elapsed().as_secs_f64();
            let _ = writeln!(self.out, "  {spin} {name}  running  {secs:.1}s");
            lines += 1;
        }
        let _ = writeln!(
            self.out,
            "  {} of {} suites done, {} running",
            self.done,
            self.total,
            self.running.len()
        );
        self.drawn = lines + 1;
        let _ = self.out.flush();
    }
}

/// A label safe to show on one line, cut to [`MAX_LABEL_CHARS`].
fn label(text: &str) -> String {
    printable(text, MAX_LABEL_CHARS)
}

/// One suite's output in a collapsible group. Workflow commands are off inside it: a suite
/// printing `::endgroup::`, `::add-mask::` or `::set-output` cannot act on the gate's job.
fn write_group(out: &mut impl Write, group: &Group, token: &str) -> std::io::Result<()> {
    writeln!(out, "::group::{}", group.header)?;
    writeln!(out, "::stop-commands::{token}")?;
    for (stream, path) in [("stdout", &group.stdout), ("stderr", &group.stderr)] {
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        if file.metadata().is_ok_and(|m| m.len() == 0) {
            continue;
        }
        writeln!(out, "--- {stream} ---")?;
        // Line by line, each with the secrets in it redacted: a test may print a token it
        // was handed, and the log is shown to people.
        let mut input = std::io::BufReader::new(file);
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            writeln!(out, "{}", Redacted::new(text))?;
        }
    }
    writeln!(out, "::{token}::")?;
    writeln!(out, "::endgroup::")
}

/// A token a suite cannot guess, made after it ended; `None` without a source of randomness.
fn token() -> Option<String> {
    crate::random::hex(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(dir: &std::path::Path, label: &str) -> Job {
        Job {
            label: label.to_owned(),
            program: "true".to_owned(),
            args: Vec::new(),
            cwd: dir.to_path_buf(),
            report_dir: dir.join("reports"),
            stdout: dir.join("stdout.log"),
            stderr: dir.join("stderr.log"),
        }
    }

    fn finished(code: i32) -> Finished {
        Finished {
            exit_code: Some(code),
            signal: None,
            timed_out: false,
            duration: Duration::from_millis(1200),
            spawn_error: None,
            stdout_bytes: 0,
            stderr_bytes: 0,
        }
    }

    #[test]
    fn actions_groups_hold_the_output_with_commands_stopped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let job = job(dir.path(), "csv-summary");
        std::fs::write(&job.stdout, "ok 1\n::endgroup::\n::add-mask::x").expect("write");
        let group = Group {
            index: 0,
            header: "csv-summary: exit 1 (1.2s)".to_owned(),
            stdout: job.stdout.clone(),
            stderr: job.stderr.clone(),
        };
        let mut out = Vec::new();
        write_group(&mut out, &group, "abc123").expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            "::group::csv-summary: exit 1 (1.2s)\n::stop-commands::abc123\n--- stdout ---\n\
             ok 1\n::endgroup::\n::add-mask::x\n::abc123::\n::endgroup::\n"
        );
        let (a, b) = (token().expect("urandom"), token().expect("urandom"));
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn plain_logs_get_a_line_per_suite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let display = Display::new(Style::Lines, Vec::new());
        display.begin(2);
        let a = job(dir.path(), "alpha");
        display.started(0, &a);
        display.tick();
        display.finished(0, &a, &finished(0), Duration::from_secs(600));
        display.done();
        assert_eq!(
            String::from_utf8(display.into_inner()).expect("utf8"),
            "skillgate: alpha: exit 0 (1.2s)\n"
        );
    }

    #[test]
    fn the_live_display_redraws_in_place_and_is_erased_at_the_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let display = Display::new(Style::Live, Vec::new());
        display.begin(2);
        let (a, b) = (job(dir.path(), "alpha"), job(dir.path(), "beta\u{1b}[31m"));
        display.started(0, &a);
        display.started(1, &b);
        display.finished(0, &a, &finished(2), Duration::from_secs(600));
        display.done();
        let text = String::from_utf8(display.into_inner()).expect("utf8");
        // Every block drawn is erased: as many lines up as were drawn, then cleared.
        assert!(text.contains("  ✗ alpha  exit 2  1.2s\n"), "{text}");
        assert!(
            text.contains("beta?[31m  running"),
            "control characters shown as ?: {text}"
        );
        assert!(
            text.ends_with("  1 of 2 suites done, 1 running\n\x1b[2A\r\x1b[J"),
            "{text:?}"
        );
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(label(&"x".repeat(60)).chars().count(), MAX_LABEL_CHARS + 1);
        assert_eq!(label("a\tb"), "a?b");
        assert_eq!(
            printable("x\n::warning::pwned \u{202e}gnp.exe", 100),
            "x?::warning::pwned ?gnp.exe"
        );
    }

    #[test]
    fn suite_labels_cannot_issue_workflow_commands() {
        let dir = tempfile::tempdir().expect("tempdir");
        let display = Display::new(Style::Actions, Vec::new());
        display.begin(1);
        let a = job(
            dir.path(),
            "::set-output name=tier::auto ##[error]boom\u{202e}",
        );
        display.started(0, &a);
        display.finished(0, &a, &finished(1), Duration::from_secs(600));
        let text = String::from_utf8(display.into_inner()).expect("utf8");
        assert_eq!(
            text,
            "skillgate: : :set-output name=tier::auto # #[error]boom?: exit 1 (1.2s)\n"
        );
    }
}
