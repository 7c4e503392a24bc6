//! The `git` command line, for the few questions the gate asks of a repository.
//!
//! Two ways to run it, because the gate asks at two times. Before any suite runs (discovery,
//! change detection, the config at the base, pinning the audit remote) `~/.gitconfig` and
//! `.git/config` are still the runner's, and honest setups need them: an LFS `clean` filter, a
//! global `core.excludesFile`, `safe.directory` for a container job, a proxy or a private CA.
//! [`checkout`] runs that `git`, only without hooks or a filesystem monitor. Once a suite has
//! run, both files may be a suite's, so [`hardened`] reads neither and gets only the environment
//! it needs; audit git mode uses it, in scratch repositories of its own.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::changes::FileChange;

/// The programs the gate runs, found on `PATH` once, before any suite: a suite can write a
/// directory on `PATH` (`~/.local/bin`) and plant a `git` that audit git mode would otherwise
/// run later with the token's header in its environment.
struct Programs {
    git: Option<PathBuf>,
    ssh: Option<PathBuf>,
}

static PROGRAMS: OnceLock<Programs> = OnceLock::new();

/// Where a program not on `PATH` is "found": nothing can ever be there (`/dev/null` is no
/// directory), so running it fails instead of searching `PATH` again after suites ran.
const MISSING: &str = "/dev/null/git";

fn programs() -> &'static Programs {
    PROGRAMS.get_or_init(|| {
        let path = std::env::var_os("PATH");
        Programs {
            git: find_program(path.as_deref(), "git"),
            ssh: find_program(path.as_deref(), "ssh"),
        }
    })
}

/// Find `git` (and `ssh`) on `PATH` now. Call it first thing in a command that runs suites; the
/// first git command does it otherwise, and in every command today that is before any suite.
pub(crate) fn resolve_git_early() {
    programs();
}

/// Set just before the first suite of this process starts: from then on `~/.gitconfig`, the
/// checkout's `.git/config` and any writable directory on `PATH` may be a suite's.
static SUITES_STARTED: AtomicBool = AtomicBool::new(false);

/// Called by the runner just before the first suite starts: `git` is found on `PATH` now, and
/// the user's and the checkout's git config are no longer read.
pub(crate) fn suites_starting() {
    resolve_git_early();
    SUITES_STARTED.store(true, Ordering::SeqCst);
}

/// Whether a suite has started in this process (the git config may be a suite's since).
pub fn suites_started() -> bool {
    SUITES_STARTED.load(Ordering::SeqCst)
}

/// As if a suite had started: for tests of what the gate does after suites.
#[cfg(test)]
pub(crate) fn mark_suites_started() {
    SUITES_STARTED.store(true, Ordering::SeqCst);
}

/// The absolute path of the `git` the gate runs.
pub(crate) fn git_program() -> &'static Path {
    programs().git.as_deref().unwrap_or(Path::new(MISSING))
}

/// The first executable `name` in the absolute directories of `path`: a relative entry would
/// be looked up from the directory the gate runs in, the checkout.
fn find_program(path: Option<&OsStr>, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
}

/// A value quoted for the shell that runs `core.sshCommand`.
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// Settings no config file may change in a `git` the gate runs: no hooks, no filesystem monitor
/// (both run programs named in the repository's files), no `ext::` transport. Given on the
/// command line, they win over every config file.
const ALWAYS: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
];

/// What [`hardened`] adds: no credential helper or signing program, nor the user's attributes
/// (which could name filters). `core.sshCommand` is set apart, to the `ssh` found early.
const HARDENED: &[&str] = &[
    "core.attributesFile=/dev/null",
    "credential.helper=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
];

/// `git` as the checkout's user runs it, for questions asked before any suite runs: the
/// gate's environment, the system, global and repository config, and only [`ALWAYS`] on top.
/// No `safe.directory` override: a checkout owned by another user is trusted where the runner
/// says so (actions/checkout adds it to the global config).
pub(crate) fn checkout() -> Command {
    let mut cmd = Command::new(git_program());
    // Never prompt, never take a lock a concurrent git in CI would trip over.
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for setting in ALWAYS {
        cmd.arg("-c").arg(setting);
    }
    cmd
}

/// Names [`hardened`] passes on from the gate's environment: `PATH`, the SSH agent (the gate's
/// own credential, never a suite's) and where the network is: proxies (curl reads the lowercase
/// names, other tools the uppercase ones) and certificate authorities, without which a fetch
/// behind a proxy or from a server with a private CA fails.
const HARDENED_ENV: &[&str] = &[
    "PATH",
    "SSH_AUTH_SOCK",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GIT_SSL_CAINFO",
    "GIT_SSL_CAPATH",
    "CURL_CA_BUNDLE",
];

/// A `git` for after suites ran: it reads no system or user config and sees only the
/// environment in [`HARDENED_ENV`], since a suite runs as the gate's user and can write
/// `~/.gitconfig`, and the gate's environment may hold tokens. It never fetches a missing
/// object on its own (`GIT_NO_LAZY_FETCH`: a repository config can name a promisor remote).
/// Meant for repositories the gate made itself, so no `safe.directory` is needed. Messages are
/// in English (`LC_ALL=C`): some are matched.
pub(crate) fn hardened() -> Command {
    hardened_from(&|name| std::env::var_os(name))
}

fn hardened_from(env: &dyn Fn(&str) -> Option<OsString>) -> Command {
    let mut cmd = Command::new(git_program());
    cmd.env_clear();
    for name in HARDENED_ENV {
        if let Some(value) = env(name) {
            cmd.env(name, value);
        }
    }
    cmd.env("HOME", "/nonexistent")
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for setting in ALWAYS.iter().chain(HARDENED) {
        cmd.arg("-c").arg(setting);
    }
    let ssh = programs()
        .ssh
        .as_deref()
        .unwrap_or(Path::new("/dev/null/ssh"));
    cmd.arg("-c")
        .arg(format!("core.sshCommand={}", shell_quote(ssh)));
    cmd
}

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("failed to run git: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("{} is not a git repository", .0.display())]
    NotARepo(PathBuf),
    #[error("unknown revision `{rev}` in {}", repo.display())]
    UnknownRevision { rev: String, repo: PathBuf },
    #[error("failed to run `git {args}`: {stderr}")]
    Failed { args: String, stderr: String },
}

impl GitError {
    /// Errors the user can fix on the command line.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::NotARepo(_) | Self::UnknownRevision { .. })
    }

    pub fn help(&self) -> Option<&str> {
        match self {
            Self::NotARepo(_) => Some("use --all to gate every skill in a directory without git"),
            Self::UnknownRevision { .. } => Some(
                "check the revision's name; in CI, fetch enough history for it (actions/checkout with `fetch-depth: 0`)",
            ),
            _ => None,
        }
    }
}

pub struct Git {
    repo: PathBuf,
}

impl Git {
    /// A handle on the repository holding `dir`; errors when `dir` is not in one.
    pub fn open(dir: &Path) -> Result<Self, GitError> {
        let git = Self {
            repo: dir.to_path_buf(),
        };
        match git.run(&["rev-parse", "--show-toplevel"]) {
            Ok(top) => Ok(Self {
                repo: PathBuf::from(top.trim_end_matches('\n')),
            }),
            Err(GitError::Failed { .. }) => Err(GitError::NotARepo(dir.to_path_buf())),
            Err(err) => Err(err),
        }
    }

    /// The top of the working tree.
    pub fn toplevel(&self) -> &Path {
        &self.repo
    }

    /// `git` on the checkout: the [`checkout`] one while no suite has started in this process,
    /// the [`hardened`] one after (the checkout's config may be a suite's by then; every
    /// question today is asked before, this only keeps a later one safe).
    fn command(&self) -> Command {
        let mut cmd = if suites_started() {
            let mut safe = OsString::from("safe.directory=");
            safe.push(&self.repo);
            let mut cmd = hardened();
            cmd.arg("-c").arg(safe);
            cmd
        } else {
            checkout()
        };
        cmd.arg("-C").arg(&self.repo);
        cmd
    }

    /// Runs `git` on the checkout; its stdout as bytes.
    fn run_bytes(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let output = self
            .command()
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(spawn_error)?;
        if !output.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        Ok(output.stdout)
    }

    /// Runs `git` on the checkout; its stdout as text.
    fn run(&self, args: &[&str]) -> Result<String, GitError> {
        // A path that is not UTF-8 cannot name a skill file we read; keep the rest of the list.
        self.run_bytes(args)
            .map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// The commit a revision names.
    pub fn resolve(&self, rev: &str) -> Result<String, GitError> {
        let spec = format!("{rev}^{{commit}}");
        match self.run(&[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ]) {
            Ok(sha) => Ok(sha.trim().to_owned()),
            Err(GitError::Failed { .. }) => Err(GitError::UnknownRevision {
                rev: rev.to_owned(),
                repo: self.repo.clone(),
            }),
            Err(err) => Err(err),
        }
    }

    /// Fetch one commit from `origin` (a shallow clone lacks the pull request's base).
    pub fn fetch_commit(&self, sha: &str) -> Result<(), GitError> {
        if !sha.bytes().all(|b| b.is_ascii_hexdigit()) || sha.is_empty() {
            return Err(GitError::UnknownRevision {
                rev: sha.to_owned(),
                repo: self.repo.clone(),
            });
        }
        self.run(&["fetch", "--no-tags", "--quiet", "--depth=1", "origin", sha])
            .map(|_| ())
    }

    /// The checked-out commit, or `None` in a repository with no commits yet.
    pub fn head(&self) -> Result<Option<String>, GitError> {
        match self.resolve("HEAD") {
            Ok(sha) => Ok(Some(sha)),
            Err(GitError::UnknownRevision { .. }) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The merge-base of HEAD with the default branch (`origin/HEAD`, then `main`, `master`).
    pub fn default_base(&self) -> Result<Option<String>, GitError> {
        for candidate in [
            "origin/HEAD",
            "origin/main",
            "origin/master",
            "main",
            "master",
        ] {
            if self.resolve(candidate).is_err() {
                continue;
            }
            if let Ok(base) = self.run(&["merge-base", "HEAD", candidate]) {
                return Ok(Some(base.trim().to_owned()));
            }
        }
        Ok(None)
    }

    /// Files changed from `base` to `head`, or to the working tree (with untracked files) when
    /// `head` is `None`. Renames are detected.
    pub fn changes(&self, base: &str, head: Option<&str>) -> Result<Vec<FileChange>, GitError> {
        let mut args = vec![
            "diff",
            "--name-status",
            "-M",
            "-z",
            "--no-ext-diff",
            "--no-textconv",
            "--no-relative",
            base,
        ];
        if let Some(head) = head {
            args.push(head);
        }
        args.push("--");
        let out = self.run(&args)?;
        let mut changes = parse_name_status(&out);
        if head.is_none() {
            let untracked = self.run(&["ls-files", "--others", "--exclude-standard", "-z"])?;
            changes.extend(
                untracked
                    .split('\0')
                    .filter(|p| !p.is_empty())
                    .map(|p| FileChange::Added(p.to_owned())),
            );
        }
        Ok(changes)
    }

    /// Every file path in a commit.
    pub fn files_at(&self, rev: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(&["ls-tree", "-r", "-z", "--name-only", "--full-tree", rev])?;
        Ok(out
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// A file's text at a commit, or `None` when the commit has no such file.
    pub fn read_file_at(&self, rev: &str, path: &str) -> Result<Option<String>, GitError> {
        // `cat-file` applies no textconv or filter, whatever the attributes say.
        match self.run(&["cat-file", "blob", &format!("{rev}:{path}")]) {
            Ok(text) => Ok(Some(text)),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// A file's bytes at a commit, as stored (no filter, no textconv); `None` only when the
    /// commit has no file at `path`. An unknown revision, or a directory at `path`, is an error.
    pub fn read_bytes_at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let commit = self.resolve(rev)?;
        let spec = format!("{commit}:{path}");
        // The commit is there: `-e` fails only for a path its tree does not hold.
        match self.run_bytes(&["cat-file", "-e", &spec]) {
            Ok(_) => self.run_bytes(&["cat-file", "blob", &spec]).map(Some),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// `true` when the working tree differs from HEAD under `dir` (tracked or untracked files),
    /// leaving out `dir/.skillgate`, where the gate keeps its own database.
    pub fn is_dirty(&self, dir: &Path) -> Result<bool, GitError> {
        let own = format!(":(exclude){}", dir.join(".skillgate").to_string_lossy());
        let dir = dir.to_string_lossy();
        let out = self.run(&[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            &dir,
            &own,
        ])?;
        Ok(!out.is_empty())
    }
}

/// Say plainly that `git` is missing rather than what running [`MISSING`] failed with.
fn spawn_error(err: std::io::Error) -> GitError {
    if programs().git.is_none() {
        GitError::Spawn(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no `git` on PATH",
        ))
    } else {
        GitError::Spawn(err)
    }
}

/// `git diff --name-status -z` output: status, NUL, path (two paths for renames and copies).
fn parse_name_status(out: &str) -> Vec<FileChange> {
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    let mut changes = Vec::new();
    while let Some(status) = fields.next() {
        let Some(path) = fields.next() else { break };
        let path = path.to_owned();
        match status.as_bytes().first() {
            Some(b'A') => changes.push(FileChange::Added(path)),
            Some(b'D') => changes.push(FileChange::Deleted(path)),
            Some(b'R') => {
                let Some(to) = fields.next() else { break };
                changes.push(FileChange::Renamed {
                    from: path,
                    to: to.to_owned(),
                });
            }
            Some(b'C') => {
                let Some(to) = fields.next() else { break };
                changes.push(FileChange::Added(to.to_owned()));
            }
            // M, T (type change), U (unmerged), X: the file is there and differs.
            _ => changes.push(FileChange::Modified(path)),
        }
    }
    changes
}

// ---- Questions `publish` and `audit` ask: a commit id as shown, the history between two
// ---- commits, a commit's files written out, a tag name checked.

/// A commit id as shown: at most 12 bytes, cut on a character (a document's "sha" may be
/// anything).
pub fn short(sha: &str) -> &str {
    let end = (0..=sha.len().min(12))
        .rev()
        .find(|&i| sha.is_char_boundary(i))
        .unwrap_or(0);
    &sha[..end]
}

/// Why a commit's files could not be written out.
#[derive(Debug)]
pub enum ExportError {
    /// `git` did not start.
    Spawn(std::io::Error),
    /// `git` failed.
    Git(GitError),
}

impl Git {
    /// A `git` that runs no hook and no fsmonitor. The publishing job runs no code of the pull
    /// request, so its user's config (proxies, credentials) is its own; what it reads of the
    /// pull request is objects, and nothing in them runs.
    fn quiet(&self) -> Command {
        let mut cmd = Command::new(git_program());
        cmd.arg("-C")
            .arg(&self.repo)
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "protocol.ext.allow=never",
            ])
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0");
        cmd
    }

    /// What `git merge-base base head` prints, trimmed, when it succeeds.
    pub fn merge_base(&self, base: &str, head: &str) -> Option<String> {
        let out = self
            .quiet()
            .args(["merge-base", base, head])
            .output()
            .ok()?;
        let sha = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        out.status.success().then_some(sha)
    }

    /// Fetch `sha` from `origin` with its history (not one commit deep, which would make the
    /// checkout shallow at it and hide where the branch left its base); git's message when it
    /// fails.
    pub fn fetch_with_history(&self, sha: &str) -> Result<(), String> {
        let out = self
            .quiet()
            .args(["fetch", "--no-tags", "--quiet", "origin", sha])
            .output()
            .map_err(|err| err.to_string())?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
    }

    /// Every file of `commit`, written out under `target` through the index file `index`: the
    /// checkout, its index and its working tree are left as they were.
    pub fn export_files(
        &self,
        commit: &str,
        index: &Path,
        target: &Path,
    ) -> Result<(), ExportError> {
        let mut prefix = target.as_os_str().to_owned();
        prefix.push("/");
        let run = |args: &[&OsStr]| -> Result<(), ExportError> {
            // The files as git stores them: no filter of the runner's (a system-wide LFS smudge
            // would download objects and change what is hashed), whatever the pull request's
            // `.gitattributes` asks. The check job's checkout has LFS pointers too.
            let out = self
                .quiet()
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_ATTR_NOSYSTEM", "1")
                .env("GIT_LFS_SKIP_SMUDGE", "1")
                .args(["-c", "core.attributesFile=/dev/null"])
                .env("GIT_INDEX_FILE", index)
                .args(args)
                .output()
                .map_err(ExportError::Spawn)?;
            if out.status.success() {
                Ok(())
            } else {
                Err(ExportError::Git(GitError::Failed {
                    args: args
                        .iter()
                        .map(|a| a.to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(" "),
                    stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                }))
            }
        };
        run(&["read-tree".as_ref(), commit.as_ref()])?;
        run(&[
            "checkout-index".as_ref(),
            "--all".as_ref(),
            "--force".as_ref(),
            format!("--prefix={}", prefix.to_string_lossy()).as_ref(),
        ])
    }
}

/// Whether `tag` is a valid tag name, as `git check-ref-format` says.
pub fn is_valid_tag_name(tag: &str) -> bool {
    Command::new(git_program())
        .args(["check-ref-format", &format!("refs/tags/{tag}")])
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envs(cmd: &Command) -> Vec<(String, String)> {
        let mut envs: Vec<(String, String)> = cmd
            .get_envs()
            .filter_map(|(k, v)| {
                Some((
                    k.to_string_lossy().into_owned(),
                    v?.to_string_lossy().into_owned(),
                ))
            })
            .collect();
        envs.sort();
        envs
    }

    fn args(cmd: &Command) -> Vec<String> {
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_hardened_git_keeps_proxies_and_certificates_and_never_fetches_lazily() {
        let gate = |name: &str| -> Option<OsString> {
            match name {
                "PATH" => Some("/usr/bin:/bin".into()),
                "HTTPS_PROXY" => Some("http://proxy:3128".into()),
                "https_proxy" => Some("http://proxy:3128".into()),
                "NO_PROXY" => Some("localhost".into()),
                "ALL_PROXY" => Some("socks5://proxy:1080".into()),
                "SSL_CERT_FILE" => Some("/etc/ssl/ca.pem".into()),
                "GIT_SSL_CAINFO" => Some("/etc/ssl/ghes.pem".into()),
                "CURL_CA_BUNDLE" => Some("/etc/ssl/curl.pem".into()),
                "GITHUB_TOKEN" | "GIT_CONFIG_GLOBAL" | "HOME" => Some("x".into()),
                _ => None,
            }
        };
        let cmd = hardened_from(&gate);
        let got = envs(&cmd);
        let value = |name: &str| got.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        assert_eq!(value("HTTPS_PROXY"), Some("http://proxy:3128"));
        assert_eq!(value("https_proxy"), Some("http://proxy:3128"));
        assert_eq!(value("NO_PROXY"), Some("localhost"));
        assert_eq!(value("ALL_PROXY"), Some("socks5://proxy:1080"));
        assert_eq!(value("SSL_CERT_FILE"), Some("/etc/ssl/ca.pem"));
        assert_eq!(value("GIT_SSL_CAINFO"), Some("/etc/ssl/ghes.pem"));
        assert_eq!(value("CURL_CA_BUNDLE"), Some("/etc/ssl/curl.pem"));
        assert_eq!(value("GIT_NO_LAZY_FETCH"), Some("1"));
        assert_eq!(value("GITHUB_TOKEN"), None);
        assert_eq!(value("HOME"), Some("/nonexistent"));
        assert_eq!(value("GIT_CONFIG_GLOBAL"), Some("/dev/null"));
        let args = args(&cmd);
        assert!(
            !args.iter().any(|a| a.starts_with("safe.directory")),
            "{args:?}"
        );
        let ssh = args
            .iter()
            .find_map(|a| a.strip_prefix("core.sshCommand='"))
            .expect("sshCommand");
        assert!(ssh.starts_with('/'), "{ssh}");
        assert!(Path::new(git_program()).is_absolute());
        assert_eq!(cmd.get_program(), git_program().as_os_str());
    }

    #[test]
    fn the_checkouts_git_reads_its_config_but_runs_no_hook_or_monitor() {
        let cmd = checkout();
        assert_eq!(
            args(&cmd),
            vec![
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "protocol.ext.allow=never"
            ]
        );
        // Nothing cleared or pointed elsewhere: `HOME`, the global config and proxies stay.
        assert_eq!(
            envs(&cmd),
            vec![
                ("GIT_OPTIONAL_LOCKS".to_owned(), "0".to_owned()),
                ("GIT_TERMINAL_PROMPT".to_owned(), "0".to_owned()),
            ]
        );
        assert_eq!(cmd.get_program(), git_program().as_os_str());
    }

    #[test]
    fn programs_are_found_in_absolute_path_entries_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let (plain, tools) = (dir.path().join("plain"), dir.path().join("tools"));
        std::fs::create_dir_all(&plain).expect("mkdir");
        std::fs::create_dir_all(&tools).expect("mkdir");
        std::fs::write(plain.join("git"), "not executable").expect("write");
        std::fs::write(tools.join("git"), "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(tools.join("git"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let path =
            std::env::join_paths([PathBuf::from("relative/bin"), plain.clone(), tools.clone()])
                .expect("join");
        assert_eq!(find_program(Some(&path), "git"), Some(tools.join("git")));
        assert_eq!(find_program(Some(&path), "ssh"), None);
        assert_eq!(find_program(None, "git"), None);
    }

    #[test]
    fn a_quoted_ssh_path_survives_the_shell() {
        assert_eq!(shell_quote(Path::new("/usr/bin/ssh")), "'/usr/bin/ssh'");
        assert_eq!(shell_quote(Path::new("/o'k/ssh")), r"'/o'\''k/ssh'");
    }

    #[test]
    fn bytes_at_a_commit_are_exact_and_a_missing_file_is_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .arg("-C")
                .arg(repo)
                .args(args)
                .output()
                .expect("git");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        git(&["init", "-q", "-b", "main"]);
        let bytes: Vec<u8> = vec![0x53, 0x51, 0x00, 0xff, 0xfe, b'\r', b'\n', 0x80];
        std::fs::create_dir_all(repo.join(".skillgate")).expect("mkdir");
        std::fs::write(repo.join(".skillgate/skills.db"), &bytes).expect("write");
        git(&["add", "-A"]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "base",
        ]);
        let base = git(&["rev-parse", "HEAD"]);
        let opened = Git::open(repo).expect("open");
        assert_eq!(
            opened
                .read_bytes_at(&base, ".skillgate/skills.db")
                .expect("read"),
            Some(bytes)
        );
        assert_eq!(
            opened.read_bytes_at("main", "nothing/here").expect("read"),
            None
        );
        let err = opened
            .read_bytes_at(&"0".repeat(40), ".skillgate/skills.db")
            .expect_err("no such commit");
        assert!(matches!(err, GitError::UnknownRevision { .. }), "{err}");
        // A directory is no file: an error, not "absent".
        let err = opened
            .read_bytes_at(&base, ".skillgate")
            .expect_err("a directory");
        assert!(matches!(err, GitError::Failed { .. }), "{err}");
    }

    #[test]
    fn name_status_with_renames_and_copies() {
        let out =
            "M\0a/x.sh\0R087\0old/SKILL.md\0new/SKILL.md\0D\0gone/SKILL.md\0A\0n e w\0C100\0a\0b\0";
        assert_eq!(
            parse_name_status(out),
            vec![
                FileChange::Modified("a/x.sh".into()),
                FileChange::Renamed {
                    from: "old/SKILL.md".into(),
                    to: "new/SKILL.md".into()
                },
                FileChange::Deleted("gone/SKILL.md".into()),
                FileChange::Added("n e w".into()),
                FileChange::Added("b".into()),
            ]
        );
    }
}
