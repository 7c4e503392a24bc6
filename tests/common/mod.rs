//! Helpers shared by the integration tests: skill repositories made in a temp dir with real git.

#![allow(
    dead_code,
    reason = "each test binary uses a different part of this module"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// An empty directory (no git).
    pub fn plain() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// A git repository with no commits.
    pub fn git() -> Self {
        let repo = Self::plain();
        repo.git_cmd(&["init", "-q", "-b", "main"]);
        repo.git_cmd(&["config", "user.email", "test@example.com"]);
        repo.git_cmd(&["config", "user.name", "Test"]);
        repo.git_cmd(&["config", "commit.gpgsign", "false"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    pub fn remove(&self, rel: &str) {
        let path = self.path().join(rel);
        if path.is_dir() {
            std::fs::remove_dir_all(path).expect("rm -r");
        } else {
            std::fs::remove_file(path).expect("rm");
        }
    }

    /// A skill whose suite prints TAP: `passed` passing tests and `failed` failing ones.
    pub fn skill(&self, dir: &str, name: &str, passed: usize, failed: usize) {
        self.write(
            &format!("{dir}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: The {name} skill, for tests.\nmetadata:\n  version: \"1.0.0\"\n  category: testing\n---\n# {name}\n"),
        );
        let mut script = format!("echo '1..{}'\n", passed + failed);
        for i in 1..=passed {
            script.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
        }
        for i in 1..=failed {
            script.push_str(&format!("echo 'not ok {} - fails {i}'\n", passed + i));
        }
        self.write(&format!("{dir}/test.sh"), &script);
    }

    pub fn git_cmd(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }

    /// Commit everything; returns the commit's sha.
    pub fn commit(&self, message: &str) -> String {
        self.git_cmd(&["add", "-A"]);
        self.git_cmd(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git_cmd(&["rev-parse", "HEAD"])
    }

    pub fn db(&self) -> PathBuf {
        self.path().join(".skillgate/skills.db")
    }

    /// `skillgate` with `--repo` set to this repository, in a clean environment.
    pub fn skillgate(&self, args: &[&str]) -> Command {
        let mut cmd = skillgate();
        cmd.args(args).arg("--repo").arg(self.path());
        cmd
    }
}

/// The built binary, with the GitHub variables a CI runner might set removed.
pub fn skillgate() -> Command {
    let mut cmd = Command::cargo_bin("skillgate").expect("binary built");
    for var in [
        "GITHUB_REPOSITORY",
        "GITHUB_EVENT_NAME",
        "GITHUB_EVENT_PATH",
        "GITHUB_RUN_ID",
        "GITHUB_RUN_ATTEMPT",
        "GITHUB_ACTIONS",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_API_URL",
        "GITHUB_SERVER_URL",
        "GITHUB_SHA",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Run and return (exit code, stdout, stderr).
pub fn run(mut cmd: Command) -> (i32, String, String) {
    let out = cmd.output().expect("skillgate runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run with `--format json` and parse the results document.
pub fn run_json(repo: &Repo, args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, stdout, stderr) = run(repo.skillgate(&all));
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}): {stdout}\nstderr: {stderr}"));
    (code, doc)
}

/// `(name, change, tier, decision)` of every skill in a results document.
pub fn verdicts(doc: &serde_json::Value) -> Vec<(String, String, String, String)> {
    doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_owned(),
                s["change"]["kind"].as_str().unwrap_or_default().to_owned(),
                s["decision"]["tier"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                s["decision"]["decision"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

/// The skill named `name` in a results document.
pub fn skill<'d>(doc: &'d serde_json::Value, name: &str) -> &'d serde_json::Value {
    doc["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no skill {name} in {doc}"))
}

/// Whether the process whose pid a suite wrote to `pidfile` is gone (a zombie nobody reaped
/// counts as gone: it runs nothing).
pub fn process_gone(pidfile: &Path) -> bool {
    let pid = std::fs::read_to_string(pidfile).expect("the suite wrote a pid");
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        Ok(stat) => stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z')),
        Err(_) => true,
    }
}

/// The file at `spec` (`REV:PATH`) in the repository `git_dir`, a bare one included.
pub fn git_show(git_dir: &Path, spec: &str) -> Vec<u8> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["show", spec])
        .output()
        .expect("git show");
    assert!(
        out.status.success(),
        "git show {spec}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The file at `spec` (`REV:PATH`) in the repository `git_dir`, `None` when `REV` has no such
/// path: what [`whole_trail`] reads a branch of a git remote with.
pub fn git_file(git_dir: &Path, spec: &str) -> Option<Vec<u8>> {
    let exists = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["cat-file", "-e", spec])
        .output()
        .expect("git cat-file")
        .status
        .success();
    exists.then(|| git_show(git_dir, spec))
}

/// Run git in `dir` (a bare repository too) as a test identity; its trimmed stdout. Fails the
/// test, with git's stderr, when git does.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A copy of `from` (the bundled example, say) at `to`, without what a local run leaves behind.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        // What a local run leaves behind (ignored by git) is not part of the example.
        if [".skillgate", ".reports", "__pycache__"]
            .contains(&entry.file_name().to_str().unwrap_or_default())
        {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The trail's directory on the audit branch (`[audit] db` is `.skillgate/skills.db`).
pub const TRAIL_REGISTRY: &str = ".skillgate/registry.db";
pub const TRAIL_SINGLE: &str = ".skillgate/skills.db";

/// The whole trail a branch holds as one ordinary database, as `audit export` writes it: the
/// registry with every segment's rows loaded and no segment recorded; or the single file of a
/// trail written before segments. `read` gives a file of the branch by path; `None` when the
/// branch holds no trail.
pub fn whole_trail(read: &dyn Fn(&str) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    let Some(registry) = read(TRAIL_REGISTRY) else {
        return read(TRAIL_SINGLE);
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("whole.db");
    std::fs::write(&path, registry).expect("write the registry");
    let mut store = skillgate::store::Store::open(&path).expect("open the registry");
    for segment in store.segments().expect("segments") {
        if segment.rows == 0 {
            continue;
        }
        let name = format!(".skillgate/trail/{}", segment.file_name());
        let bytes = read(&name).unwrap_or_else(|| panic!("{name} is on the branch"));
        let file = dir.path().join(segment.file_name());
        std::fs::write(&file, bytes).expect("write a segment");
        store.load_segment(&segment, &file).expect("load a segment");
    }
    store
        .connection()
        .execute("DELETE FROM trail_segments", [])
        .expect("one file");
    drop(store);
    Some(std::fs::read(&path).expect("read"))
}

/// One ordinary database's bytes as the files of a segmented trail on a branch (path, bytes):
/// what a test commits to put a trail of its own making there.
pub fn segmented_files(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("whole.db");
    std::fs::write(&path, bytes).expect("write");
    let mut store = skillgate::store::Store::open(&path).expect("open");
    store
        .connection()
        .execute("DELETE FROM trail_segments", [])
        .expect("no segments yet");
    let split = store
        .split(
            &dir.path().join("out"),
            skillgate::config::DEFAULT_SEGMENT_SIZE,
        )
        .expect("split");
    let mut files = vec![(
        TRAIL_REGISTRY.to_owned(),
        std::fs::read(&split.registry).expect("registry"),
    )];
    for (segment, file) in &split.segments {
        files.push((
            format!(".skillgate/trail/{}", segment.file_name()),
            std::fs::read(file).expect("segment"),
        ));
    }
    files
}

/// A bare repository `name` in `dir` that serves what GitHub serves: partial fetches
/// (`--filter=blob:none`) and objects asked for by id. Returns its path and the `file://` URL
/// to add as a remote (a plain path would make git copy objects without asking the server).
pub fn bare_remote(dir: &Path, name: &str) -> (PathBuf, String) {
    git(dir, &["init", "-q", "--bare", "-b", "main", name]);
    let bare = dir.join(name);
    git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    git(&bare, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let url = format!("file://{}", bare.display());
    (bare, url)
}
