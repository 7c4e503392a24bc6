//! The `git` command line, for the few questions the gate asks of a repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Settings that make `git` run nothing of the repository's or the user's: no hooks, no
/// filesystem monitor, no credential helper, no `ext::` transport, no signing program, nor the
/// user's attributes (which could name filters). Given on the command line, they win over every
/// config file. `safe.directory=*`: the system and global configs, which grant it to a
/// checkout owned by another user (a container job), are not read, and the repository is the
/// one the user pointed the gate at.
const OVERRIDES: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.attributesFile=/dev/null",
    "core.sshCommand=ssh",
    "credential.helper=",
    "protocol.ext.allow=never",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "safe.directory=*",
];

/// A `git` command that reads no system or user config and sees none of the gate's environment
/// but `PATH` and the SSH agent (the gate's own credential, never a suite's): a suite runs as
/// the gate's user and can write `~/.gitconfig` and the checkout's `.git/hooks`, and the gate's
/// environment may hold tokens. Messages are in English (`LC_ALL=C`): some are matched.
pub(crate) fn hardened() -> Command {
    let mut cmd = Command::new("git");
    cmd.env_clear();
    for name in ["PATH", "SSH_AUTH_SOCK"] {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    cmd.env("HOME", "/nonexistent")
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        // Never prompt, never take a lock a concurrent git in CI would trip over.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for setting in OVERRIDES {
        cmd.arg("-c").arg(setting);
    }
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

/// One line of `git diff --name-status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    Added(String),
    Modified(String),
    Deleted(String),
    Renamed { from: String, to: String },
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

    /// Runs `git` on the checkout, [hardened](hardened). The checkout's own `.git/config` is
    /// still read (it says where `origin` is): the gate asks these questions before any suite
    /// runs, while that file is the runner's.
    fn run(&self, args: &[&str]) -> Result<String, GitError> {
        let output = hardened()
            .arg("-C")
            .arg(&self.repo)
            .args(args)
            .output()
            .map_err(GitError::Spawn)?;
        if !output.status.success() {
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            });
        }
        // A path that is not UTF-8 cannot name a skill file we read; keep the rest of the list.
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
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

#[cfg(test)]
mod tests {
    use super::*;

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
