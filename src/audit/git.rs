//! The audit branch through `git` on the runner: fetch it, read the trail's files at its head,
//! and push a commit on top without force. Fetches take the commit's trees and only the files
//! asked for (`--filter=blob:none`, then those blobs by name): never the sealed segments. Reads and commits happen in a scratch repository made
//! for each operation, by the remote's URL: never in the checkout's git directory, whose hooks
//! and config (`core.hooksPath`, `core.fsmonitor`, `url.*.insteadOf`, `credential.helper`,
//! `core.sshCommand`, `gpg.program`) a suite can write. The remote's URL and the credentials
//! actions/checkout left for it are [pinned](GitBranch::pin) once, before any suite runs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;

use super::api::Landed;

/// The identity of the commits the gate makes.
const NAME: &str = "skillgate";
const EMAIL: &str = "skillgate@users.noreply.github.com";

#[derive(Debug, thiserror::Error)]
#[error("git {args} in {}: {message}", dir.display())]
pub struct GitAuditError {
    args: String,
    dir: PathBuf,
    message: String,
}

/// A remote's branch, worked on from a local repository.
#[derive(Debug, Clone)]
pub struct GitBranch {
    /// Any directory inside the local repository: where the remote's URL is read.
    pub dir: PathBuf,
    pub remote: String,
    pub name: String,
}

/// Where a remote is and how to authenticate to it, as the checkout said before suites ran.
#[derive(Clone)]
struct Origin {
    url: String,
    /// `http.extraheader` for the URL: actions/checkout's persisted `AUTHORIZATION` header.
    header: Option<String>,
}

/// Remotes pinned in this process, by checkout directory and remote name.
static PINNED: Mutex<Vec<(PathBuf, String, Origin)>> = Mutex::new(Vec::new());

/// Whether a URL reaches its server over HTTP, where an extra header authenticates.
fn is_http(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

impl GitBranch {
    fn fail(&self, args: &[&str], message: String) -> GitAuditError {
        GitAuditError {
            args: args.join(" "),
            dir: self.dir.clone(),
            message,
        }
    }

    /// Read the remote's URL and its credentials from the checkout, once per process: call it
    /// before suites run (the first operation on the branch does it otherwise; after a suite
    /// has run, that is an error). The checkout's config, and the user's, are read then and
    /// never again; `url.*.insteadOf` and the extra header actions/checkout persisted (also
    /// from a file its config includes) apply as they are now.
    pub fn pin(&self) -> Result<(), GitAuditError> {
        self.origin().map(|_| ())
    }

    fn origin(&self) -> Result<Origin, GitAuditError> {
        let mut pinned = PINNED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, _, origin)) = pinned
            .iter()
            .find(|(dir, remote, _)| *dir == self.dir && *remote == self.remote)
        {
            return Ok(origin.clone());
        }
        // After a suite, `.git/config` and `~/.gitconfig` may be a suite's: its `insteadOf`
        // would send the pinned header wherever it likes.
        if crate::git::suites_started() {
            return Err(self.fail(
                &["ls-remote", "--get-url", "--", &self.remote],
                format!(
                    "the remote `{}` was not read before suites ran, and cannot be trusted now",
                    self.remote
                ),
            ));
        }
        // Before any suite: the checkout's git as the runner left it, with the global config
        // (`safe.directory` for a container job, `insteadOf`, an included credentials file).
        let ask = |args: &[&str]| -> Result<Option<String>, GitAuditError> {
            let out = crate::git::checkout()
                .arg("-C")
                .arg(&self.dir)
                .args(args)
                .stdin(Stdio::null())
                .output()
                .map_err(|e| self.fail(args, e.to_string()))?;
            let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            Ok((out.status.success() && !text.is_empty()).then_some(text))
        };
        let url = ask(&["ls-remote", "--get-url", "--", &self.remote])?
            .filter(|url| *url != self.remote || Path::new(url).is_absolute())
            .ok_or_else(|| {
                self.fail(
                    &["remote", "get-url", &self.remote],
                    format!("the checkout has no remote `{}`", self.remote),
                )
            })?;
        let header = if is_http(&url) {
            ask(&["config", "--get-urlmatch", "http.extraheader", &url])?
        } else {
            None
        };
        // A remote given as a local path: git refuses a promisor remote named by one (it
        // fetches without file contents), and takes the same repository as a `file://` URL.
        let url = if Path::new(&url).is_absolute() {
            format!("file://{url}")
        } else {
            url
        };
        let origin = Origin { url, header };
        pinned.push((self.dir.clone(), self.remote.clone(), origin.clone()));
        Ok(origin)
    }

    /// `git` in `scratch` (or no repository), by URL, with the pinned credentials passed in
    /// its environment (not its arguments, which any user can read). The URL is shown as the
    /// remote's name in messages: it may carry a token.
    fn git(
        &self,
        scratch: &Path,
        args: &[&str],
        input: Option<&[u8]>,
        index: Option<&Path>,
    ) -> Result<Vec<u8>, GitAuditError> {
        let origin = self.origin()?;
        let mut cmd = crate::git::hardened();
        cmd.arg("-C")
            .arg(scratch)
            .args(args)
            .env("GIT_AUTHOR_NAME", NAME)
            .env("GIT_AUTHOR_EMAIL", EMAIL)
            .env("GIT_COMMITTER_NAME", NAME)
            .env("GIT_COMMITTER_EMAIL", EMAIL)
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(header) = &origin.header {
            cmd.env("GIT_CONFIG_COUNT", "1")
                .env("GIT_CONFIG_KEY_0", "http.extraheader")
                .env("GIT_CONFIG_VALUE_0", header);
        }
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        let shown: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == origin.url {
                    self.remote.as_str()
                } else {
                    a
                }
            })
            .collect();
        let hide = |text: &str| text.replace(&origin.url, &self.remote);
        let fail = |message: String| self.fail(&shown, hide(&message));
        let mut child = cmd.spawn().map_err(|e| fail(e.to_string()))?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
            std::io::Write::write_all(&mut stdin, bytes).map_err(|e| fail(e.to_string()))?;
        }
        let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
        if !out.status.success() {
            // `push --porcelain` says why a ref was rejected on stdout.
            let mut message = String::from_utf8_lossy(&out.stderr).trim().to_owned();
            let stdout = String::from_utf8_lossy(&out.stdout);
            if stdout.contains("[rejected]") || stdout.contains("[remote rejected]") {
                message.push_str(&format!(" ({})", stdout.trim()));
            }
            return Err(fail(message));
        }
        Ok(out.stdout)
    }

    fn text(
        &self,
        scratch: &Path,
        args: &[&str],
        index: Option<&Path>,
    ) -> Result<String, GitAuditError> {
        Ok(
            String::from_utf8_lossy(&self.git(scratch, args, None, index)?)
                .trim()
                .to_owned(),
        )
    }

    /// An empty bare repository for one operation, removed when dropped: no hooks, no config
    /// but git's defaults. Ours, so the [hardened](crate::git::hardened) `git` needs no
    /// `safe.directory` in it.
    fn scratch(&self) -> Result<tempfile::TempDir, GitAuditError> {
        let dir = tempfile::Builder::new()
            .prefix("skillgate-git-")
            .tempdir()
            .map_err(|e| self.fail(&["init"], e.to_string()))?;
        let path = dir.path().to_string_lossy().into_owned();
        self.git(
            dir.path(),
            &["init", "--quiet", "--bare", "--template=", &path],
            None,
            None,
        )?;
        Ok(dir)
    }

    /// Fetch `commit` of the branch into `scratch`, one commit deep and without file contents
    /// (a server that ignores the filter sends them all, which is only slower): the branch's
    /// head when it is still there, else the commit by name (GitHub serves any commit a branch
    /// reaches).
    fn fetch(&self, scratch: &Path, commit: &str) -> Result<(), GitAuditError> {
        let url = self.origin()?.url;
        let refname = format!("refs/heads/{}", self.name);
        let have = |scratch: &Path| {
            self.git(
                scratch,
                &["cat-file", "-e", &format!("{commit}^{{commit}}")],
                None,
                None,
            )
            .is_ok()
        };
        let fetch = [
            "fetch",
            "--quiet",
            "--no-tags",
            "--depth=1",
            "--filter=blob:none",
            "--end-of-options",
        ];
        let mut args = fetch.to_vec();
        args.extend([url.as_str(), refname.as_str()]);
        if self.git(scratch, &args, None, None).is_ok() && have(scratch) {
            return Ok(());
        }
        let mut args = fetch.to_vec();
        args.extend([url.as_str(), commit]);
        self.git(scratch, &args, None, None).map(|_| ())
    }

    /// The branch's head on the remote; `None` when the remote has no such branch.
    pub fn head(&self) -> Result<Option<String>, GitAuditError> {
        let scratch = self.scratch()?;
        let url = self.origin()?.url;
        let refname = format!("refs/heads/{}", self.name);
        let listed = self.text(scratch.path(), &["ls-remote", "--", &url, &refname], None)?;
        Ok(listed.split_whitespace().next().map(str::to_owned))
    }

    /// The files at `paths` of `commit`, in order; `None` for a path the commit does not have.
    /// Only those files' contents are fetched.
    pub fn read(
        &self,
        commit: &str,
        paths: &[String],
    ) -> Result<Vec<Option<Vec<u8>>>, GitAuditError> {
        let scratch = self.scratch()?;
        let repo = scratch.path();
        self.fetch(repo, commit)?;
        let mut oids = Vec::new();
        for path in paths {
            let spec = format!("{commit}:{path}");
            let oid = self
                .text(
                    repo,
                    &[
                        "rev-parse",
                        "--verify",
                        "--quiet",
                        "--end-of-options",
                        &spec,
                    ],
                    None,
                )
                .ok()
                .filter(|oid| !oid.is_empty());
            oids.push(oid);
        }
        // What a server that ignored the filter sent already is not asked for again.
        let wanted: Vec<&str> = oids
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|oid| {
                self.git(repo, &["cat-file", "-e", oid], None, None)
                    .is_err()
            })
            .collect();
        if !wanted.is_empty() {
            let url = self.origin()?.url;
            let mut args = vec![
                "fetch",
                "--quiet",
                "--no-tags",
                "--end-of-options",
                url.as_str(),
            ];
            args.extend(wanted.iter().copied());
            self.git(repo, &args, None, None)?;
        }
        oids.iter()
            .map(|oid| {
                oid.as_deref()
                    .map(|oid| self.git(repo, &["cat-file", "blob", oid], None, None))
                    .transpose()
            })
            .collect()
    }

    /// Commit `changes` on top of `parent` (or as the first commit) and push without force: each
    /// file written or (`None`) removed; every other file of the parent stays as it was.
    pub fn commit(
        &self,
        parent: Option<&str>,
        changes: &[super::api::Change],
        message: &str,
    ) -> Result<Landed, GitAuditError> {
        let scratch = self.scratch()?;
        let repo = scratch.path();
        if let Some(parent) = parent {
            self.fetch(repo, parent)?;
        }
        let index = repo.join("skillgate-index");
        match parent {
            Some(parent) => self.git(repo, &["read-tree", parent], None, Some(&index))?,
            None => self.git(repo, &["read-tree", "--empty"], None, Some(&index))?,
        };
        let mut entries = String::new();
        for (path, bytes) in changes {
            match bytes {
                Some(bytes) => {
                    let blob = String::from_utf8_lossy(&self.git(
                        repo,
                        &["hash-object", "-w", "--stdin"],
                        Some(bytes),
                        None,
                    )?)
                    .trim()
                    .to_owned();
                    entries.push_str(&format!("100644 {blob}\t{path}\n"));
                }
                // Mode 0 removes the entry.
                None => entries.push_str(&format!(
                    "0 0000000000000000000000000000000000000000\t{path}\n"
                )),
            }
        }
        self.git(
            repo,
            &["update-index", "--index-info"],
            Some(entries.as_bytes()),
            Some(&index),
        )?;
        // The parent's other files were not fetched (their contents are the remote's).
        let tree = self.text(repo, &["write-tree", "--missing-ok"], Some(&index))?;
        let mut args = vec!["commit-tree", "--no-gpg-sign", tree.as_str(), "-m", message];
        if let Some(parent) = parent {
            args.extend(["-p", parent]);
        }
        let commit = self.text(repo, &args, None)?;
        let refspec = format!("{commit}:refs/heads/{}", self.name);
        let url = self.origin()?.url;
        match self.git(
            repo,
            // Not thin: a thin pack would take the old versions of the files written as delta
            // bases, and this repository never fetched them.
            &[
                "push",
                "--quiet",
                "--porcelain",
                "--no-verify",
                "--no-thin",
                &url,
                &refspec,
            ],
            None,
            None,
        ) {
            Ok(_) => Ok(Landed::Commit(commit)),
            Err(err) if is_rejection(&err.message) => Ok(Landed::Moved),
            Err(err) => Err(err),
        }
    }
}

/// What a compaction came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Compacted {
    /// The branch is now this root commit; `squashed` commits were behind it before (unknown
    /// in a shallow repository).
    Commit {
        commit: String,
        squashed: Option<u64>,
    },
    /// The head is a root commit already: nothing to do.
    AlreadyOne,
    /// A run moved the branch meanwhile: its commit stays, read again and retry.
    Moved,
}

impl GitBranch {
    /// Replace the branch's history with one root commit holding `head`'s tree. One atomic
    /// push tags `head` as `tag`, so the old history stays reachable, and moves the branch with
    /// a lease on `head`: a run that landed meanwhile is never dropped (`Moved`).
    pub fn compact(
        &self,
        head: &str,
        tag: &str,
        message: &str,
    ) -> Result<Compacted, GitAuditError> {
        let scratch = self.scratch()?;
        let repo = scratch.path();
        // The head alone, without file contents: the new root commit reuses its tree, which the
        // remote has. (Pushed from a repository holding the whole history without blobs, git
        // would try to pack every blob of that tree.)
        self.fetch(repo, head)?;
        // A shallow checkout (actions/checkout's default) does not count the commits squashed;
        // a whole one counts them in a repository of commits alone (`--filter=tree:0`).
        // `audit compact` runs no suite: the checkout's own git answers.
        let shallow = crate::git::checkout()
            .arg("-C")
            .arg(&self.dir)
            .args(["rev-parse", "--is-shallow-repository"])
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "true");
        let url = self.origin()?.url;
        // The commit object itself: in a shallow repository `git log` shows a commit at the
        // boundary without its parents.
        let object = self.text(repo, &["cat-file", "commit", head], None)?;
        let has_parents = object
            .lines()
            .take_while(|line| !line.is_empty())
            .any(|line| line.starts_with("parent "));
        if !has_parents {
            return Ok(Compacted::AlreadyOne);
        }
        let squashed = if shallow {
            None
        } else {
            self.count_commits(head, &url)?
        };
        let tree = format!("{head}^{{tree}}");
        let commit = self.text(
            repo,
            &["commit-tree", "--no-gpg-sign", &tree, "-m", message],
            None,
        )?;
        // Both refs or neither: the tag never outlives a compaction that lost its lease, and
        // a tag that exists at another commit stops the push (it is never forced).
        let lease = format!("--force-with-lease=refs/heads/{}:{head}", self.name);
        let tag_ref = format!("{head}:refs/tags/{tag}");
        let branch_ref = format!("{commit}:refs/heads/{}", self.name);
        match self.git(
            repo,
            &[
                "push",
                "--quiet",
                "--porcelain",
                "--no-verify",
                "--atomic",
                &lease,
                &url,
                &tag_ref,
                &branch_ref,
            ],
            None,
            None,
        ) {
            Ok(_) => Ok(Compacted::Commit { commit, squashed }),
            Err(err) if is_rejection(&err.message) => Ok(Compacted::Moved),
            Err(err) => Err(err),
        }
    }
}

impl GitBranch {
    /// How many commits `head` has, counted in a scratch repository of commits alone; `None`
    /// when the server cannot say.
    fn count_commits(&self, head: &str, url: &str) -> Result<Option<u64>, GitAuditError> {
        let scratch = self.scratch()?;
        let repo = scratch.path();
        let refname = format!("refs/heads/{}", self.name);
        let fetch = [
            "fetch",
            "--quiet",
            "--no-tags",
            "--filter=tree:0",
            "--end-of-options",
        ];
        let mut args = fetch.to_vec();
        args.extend([url, refname.as_str()]);
        let have = |repo: &Path| {
            self.git(
                repo,
                &["cat-file", "-e", &format!("{head}^{{commit}}")],
                None,
                None,
            )
            .is_ok()
        };
        if !(self.git(repo, &args, None, None).is_ok() && have(repo)) {
            let mut args = fetch.to_vec();
            args.extend([url, head]);
            self.git(repo, &args, None, None)?;
        }
        Ok(self
            .text(repo, &["rev-list", "--count", head], None)?
            .parse()
            .ok())
    }
}

/// A push refused because the branch moved (or appeared) meanwhile.
fn is_rejection(stderr: &str) -> bool {
    let stderr = stderr.to_ascii_lowercase();
    // Not every `[rejected]`: a hook or a protected branch declining the push is no race.
    [
        "non-fast-forward",
        "fetch first",
        "stale info",
        "cannot lock ref",
    ]
    .iter()
    .any(|needle| stderr.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn a_remote_first_read_after_a_suite_ran_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        git(dir.path(), &["init", "-q"]);
        git(
            dir.path(),
            &["remote", "add", "late", "https://example.invalid/o/r.git"],
        );
        let branch = |remote: &str| GitBranch {
            dir: dir.path().to_path_buf(),
            remote: remote.to_owned(),
            name: "skillgate/audit".to_owned(),
        };
        // Pinned before suites (other tests in this process may have run suites already).
        PINNED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((
                dir.path().to_path_buf(),
                "early".to_owned(),
                Origin {
                    url: "https://example.invalid/o/e.git".to_owned(),
                    header: None,
                },
            ));
        crate::git::mark_suites_started();
        // Pinned before: still known. Never read before: `.git/config` may be a suite's now.
        branch("early").pin().expect("pinned before suites");
        let err = branch("late").pin().expect_err("read after a suite");
        assert!(
            err.to_string()
                .contains("the remote `late` was not read before suites ran"),
            "{err}"
        );
    }
}
