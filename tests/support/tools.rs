//! Real test frameworks for the tests that run them: pytest with pytest-cov (and, in a venv of
//! its own, hypothesis) and jest from npm, installed once under `target/test-tools/` (pinned
//! versions, from PyPI and the npm registry) and shared by every test binary. A lock file keeps concurrent tests from
//! installing twice; a marker written last says an install completed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The versions installed, as `tests/fixtures/suites/prove.sh` expects them.
pub const PYTEST: &str = "pytest==9.2.0";
pub const PYTEST_COV: &str = "pytest-cov==7.1.0";
pub const JEST: &str = "jest@30.5.2";
pub const HYPOTHESIS: &str = "hypothesis==6.170.17";

/// `target/test-tools/`, beside the directory cargo gives integration tests.
pub fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .join("test-tools")
}

/// The `bin` directory of a venv holding pytest and pytest-cov: put it first on `PATH` and
/// `python3` finds both.
pub fn python_with_pytest() -> PathBuf {
    venv_with("pytest-venv", &[PYTEST, PYTEST_COV])
}

/// The `bin` directory of a venv holding pytest, pytest-cov and hypothesis.
pub fn python_with_hypothesis() -> PathBuf {
    venv_with("hypothesis-venv", &[PYTEST, PYTEST_COV, HYPOTHESIS])
}

/// The `bin` directory of the venv `name` under the tools directory, made once with `packages`.
fn venv_with(name: &str, packages: &[&str]) -> PathBuf {
    let venv = tools_dir().join(name);
    install_once(&venv, |dir| {
        run(Command::new("python3").arg("-m").arg("venv").arg(dir));
        run(Command::new(dir.join("bin/python3"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(packages));
    });
    venv.join("bin")
}

/// A directory whose `node_modules` holds jest: copy (or hard-link) it where a skill's
/// `node_modules` is looked for.
pub fn jest_install() -> PathBuf {
    let dir = tools_dir().join("jest");
    install_once(&dir, |dir| {
        std::fs::create_dir_all(dir).expect("mkdir");
        std::fs::write(dir.join("package.json"), "{\"private\":true}\n").expect("write");
        run(Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--save-dev",
                JEST,
            ])
            .current_dir(dir));
    });
    dir
}

/// Copy the tree at `from` to `to`, hard-linked where the two share a filesystem.
pub fn copy_tree(from: &Path, to: &Path) {
    let linked = Command::new("cp")
        .arg("-al")
        .arg(from)
        .arg(to)
        .status()
        .is_ok_and(|s| s.success());
    if !linked {
        let _ = std::fs::remove_dir_all(to);
        run(Command::new("cp").arg("-a").arg(from).arg(to));
    }
}

/// Run `install` into `dir` unless a completed install is there, holding a lock meanwhile. A
/// half-done install (a killed test) is removed and made again.
fn install_once(dir: &Path, install: impl FnOnce(&Path)) {
    let parent = dir.parent().expect("parent");
    std::fs::create_dir_all(parent).expect("mkdir target/test-tools");
    let done = dir.with_extension("done");
    let _lock = Lock::take(&dir.with_extension("lock"));
    if done.exists() {
        return;
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).expect("remove a half-done install");
    }
    install(dir);
    std::fs::write(&done, "").expect("write the marker");
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An exclusive `flock` on a file, released when dropped (or when the process ends).
struct Lock(std::fs::File);

impl Lock {
    fn take(path: &Path) -> Self {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .expect("open the lock file");
        // SAFETY: flock on a descriptor this struct owns; it blocks until the lock is free.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(locked, 0, "flock {}", path.display());
        Self(file)
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: unlocking the descriptor this struct owns.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
