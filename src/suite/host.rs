//! What resolution asks of the machine: its tools, python3's modules, node's version.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::resolve::find_in_path;

/// How long `python3` or `node` may take to answer what resolution asks of them.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// The Python modules resolution asks about; one `python3` run answers for all of them.
pub(super) const PYTHON_MODULES: &[&str] = &["pytest", "pytest_cov"];

/// What resolution asks of the machine. Tests answer for it.
pub(super) trait Host {
    /// `tool` is an executable on `PATH`.
    fn has_tool(&self, tool: &str) -> bool;
    /// `python3` finds `module`, one of [`PYTHON_MODULES`].
    fn has_python_module(&self, module: &str) -> bool;
    /// `node --version` as (major, minor).
    fn node_version(&self) -> Option<(u32, u32)>;
}

/// This machine. Python's modules and node's version are asked once per process: every skill
/// runs under the same interpreters.
pub(super) struct Machine;

impl Host for Machine {
    fn has_tool(&self, tool: &str) -> bool {
        find_in_path(tool).is_some()
    }

    fn has_python_module(&self, module: &str) -> bool {
        static FOUND: OnceLock<Vec<String>> = OnceLock::new();
        FOUND
            .get_or_init(|| {
                let names: String = PYTHON_MODULES.iter().map(|m| format!("'{m}',")).collect();
                // `find_spec` locates a module without importing it: no plugin code runs.
                let script = format!(
                    "import importlib.util as u\nfor m in ({names}):\n    \
                     try: print(m if u.find_spec(m) else '')\n    \
                     except Exception: print('')\n"
                );
                probe("python3", &["-c", &script])
                    .map(|out| out.lines().map(str::to_owned).collect())
                    .unwrap_or_default()
            })
            .iter()
            .any(|m| m == module)
    }

    fn node_version(&self) -> Option<(u32, u32)> {
        static VERSION: OnceLock<Option<(u32, u32)>> = OnceLock::new();
        *VERSION.get_or_init(|| probe("node", &["--version"]).and_then(|v| parse_node_version(&v)))
    }
}

/// `v20.20.2` → (20, 20).
fn parse_node_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().strip_prefix('v')?.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The stdout of `program args`, run from `/` so that no checkout's files answer for the
/// machine; `None` when it cannot run, fails, or outlives [`PROBE_TIMEOUT`].
fn probe(program: &str, args: &[&str]) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    // The answer is a few lines, well under a pipe's buffer: waiting before reading is safe.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    status.success().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_answer_only_on_success() {
        assert_eq!(
            probe("sh", &["-c", "pwd; echo hi"]),
            Some("/\nhi\n".to_owned())
        );
        assert_eq!(probe("sh", &["-c", "echo no; exit 1"]), None);
        assert_eq!(probe("skillgate-no-such-program", &[]), None);
    }

    #[test]
    fn node_versions_parse() {
        assert_eq!(parse_node_version("v20.20.2\n"), Some((20, 20)));
        assert_eq!(parse_node_version("v18.15.0"), Some((18, 15)));
        assert_eq!(parse_node_version("20.1"), None);
        assert_eq!(parse_node_version("vX"), None);
    }
}
