//! The audit branch through `git` on the runner: fetch it, read the database at its head, and
//! push a commit on top without force. Objects are written to the checkout's repository; the
//! working tree and the index are never touched (a temporary index builds the tree).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    /// Any directory inside the local repository.
    pub dir: PathBuf,
    pub remote: String,
    pub name: String,
    /// The database's path in the tree.
    pub path: String,
}

impl GitBranch {
    fn git(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
        index: Option<&Path>,
    ) -> Result<Vec<u8>, GitAuditError> {
        let mut cmd = Command::new("git");
        cmd.arg("-C")
            .arg(&self.dir)
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
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
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        let fail = |message: String| GitAuditError {
            args: args.join(" "),
            dir: self.dir.clone(),
            message,
        };
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

    fn text(&self, args: &[&str], index: Option<&Path>) -> Result<String, GitAuditError> {
        Ok(String::from_utf8_lossy(&self.git(args, None, index)?)
            .trim()
            .to_owned())
    }

    /// The branch's head on the remote, fetched; `None` when the remote has no such branch.
    pub fn head(&self) -> Result<Option<String>, GitAuditError> {
        let refname = format!("refs/heads/{}", self.name);
        let listed = self.text(&["ls-remote", "--", &self.remote, &refname], None)?;
        let Some(sha) = listed.split_whitespace().next().map(str::to_owned) else {
            return Ok(None);
        };
        // A shallow checkout (actions/checkout's default) fetches the branch shallow too: a run
        // needs its head only, and taking every version of the database would make git
        // rebuild and hash each one.
        let shallow = self.text(&["rev-parse", "--is-shallow-repository"], None)? == "true";
        let mut fetch = vec!["fetch", "--quiet", "--no-tags"];
        if shallow {
            fetch.push("--depth=1");
        }
        fetch.extend([self.remote.as_str(), refname.as_str()]);
        self.git(&fetch, None, None)?;
        // What was fetched, which may be newer than what was listed: a head whose objects are
        // here, so a failing read below means the file is missing, nothing else.
        let fetched = self.text(
            &["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"],
            None,
        )?;
        Ok(Some(if fetched.is_empty() { sha } else { fetched }))
    }

    /// The database at `commit`; `None` when the commit has no such file.
    pub fn read(&self, commit: &str) -> Result<Option<Vec<u8>>, GitAuditError> {
        let spec = format!("{commit}:{}", self.path);
        match self.git(&["cat-file", "-e", &spec], None, None) {
            Ok(_) => self.git(&["cat-file", "blob", &spec], None, None).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// Commit `bytes` on top of `parent` (or as the first commit) and push without force.
    pub fn commit(
        &self,
        parent: Option<&str>,
        bytes: &[u8],
        message: &str,
    ) -> Result<Landed, GitAuditError> {
        let blob = String::from_utf8_lossy(&self.git(
            &["hash-object", "-w", "--stdin"],
            Some(bytes),
            None,
        )?)
        .trim()
        .to_owned();
        let index_dir = tempfile::tempdir().map_err(|e| GitAuditError {
            args: "index".to_owned(),
            dir: self.dir.clone(),
            message: e.to_string(),
        })?;
        let index = index_dir.path().join("index");
        match parent {
            Some(parent) => self.git(&["read-tree", parent], None, Some(&index))?,
            None => self.git(&["read-tree", "--empty"], None, Some(&index))?,
        };
        let info = format!("100644,{blob},{}", self.path);
        self.git(
            &["update-index", "--add", "--cacheinfo", &info],
            None,
            Some(&index),
        )?;
        let tree = self.text(&["write-tree"], Some(&index))?;
        let mut args = vec!["commit-tree", tree.as_str(), "-m", message];
        if let Some(parent) = parent {
            args.extend(["-p", parent]);
        }
        let commit = self.text(&args, None)?;
        let refspec = format!("{commit}:refs/heads/{}", self.name);
        match self.git(
            &["push", "--quiet", "--porcelain", &self.remote, &refspec],
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
        // The commit object itself: in a shallow repository `git log` shows a commit at the
        // boundary without its parents.
        let object = self.text(&["cat-file", "commit", head], None)?;
        let has_parents = object
            .lines()
            .take_while(|line| !line.is_empty())
            .any(|line| line.starts_with("parent "));
        if !has_parents {
            return Ok(Compacted::AlreadyOne);
        }
        let shallow = self.text(&["rev-parse", "--is-shallow-repository"], None)? == "true";
        let squashed = if shallow {
            None
        } else {
            self.text(&["rev-list", "--count", head], None)?
                .parse()
                .ok()
        };
        let tree = format!("{head}^{{tree}}");
        let commit = self.text(&["commit-tree", &tree, "-m", message], None)?;
        // Both refs or neither: the tag never outlives a compaction that lost its lease, and
        // a tag that exists at another commit stops the push (it is never forced).
        let lease = format!("--force-with-lease=refs/heads/{}:{head}", self.name);
        let tag_ref = format!("{head}:refs/tags/{tag}");
        let branch_ref = format!("{commit}:refs/heads/{}", self.name);
        match self.git(
            &[
                "push",
                "--quiet",
                "--porcelain",
                "--atomic",
                &lease,
                &self.remote,
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
