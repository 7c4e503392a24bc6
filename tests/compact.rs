//! `skillgate audit compact`: the audit branch's git history squashed into one commit, on a
//! local bare repository, with runs racing it.

mod common;

use std::path::{Path, PathBuf};

use common::{Repo, git, run, skillgate};
use rusqlite::Connection;
use skillgate::audit;
use skillgate::audit::git::{Compacted, GitBranch};
use skillgate::config::{AuditConfig, CommitMode};
use skillgate::gate::GateRun;
use skillgate::github::Session;
use skillgate::store::Store;

const BRANCH: &str = "skillgate/audit";

/// A checkout with `origin`, a bare repository, committing its trail in `git` mode.
struct Remote {
    _dir: tempfile::TempDir,
    bare: PathBuf,
    work: Repo,
}

impl Remote {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let (bare, url) = common::bare_remote(dir.path(), "origin.git");
        let work = Repo::git();
        git(work.path(), &["remote", "add", "origin", &url]);
        work.write(".skillgate.toml", "[audit]\ncommit = \"git\"\n");
        Self {
            _dir: dir,
            bare,
            work,
        }
    }

    fn config() -> AuditConfig {
        AuditConfig {
            commit: CommitMode::Git,
            ..AuditConfig::default()
        }
    }

    /// A run's trail, read from the branch now.
    fn trail(&self) -> audit::Trail {
        let session = Session::from_vars(&|_| None, None).expect("session");
        audit::connect(
            &Self::config(),
            &session,
            self.work.path(),
            audit::Reads::Since(None),
        )
        .expect("connect")
        .expect("a trail")
    }

    /// Record run `id` and commit it, as a job does.
    fn record(&self, id: u32) {
        let mut trail = self.trail();
        self.land(&mut trail, id);
    }

    fn land(&self, trail: &mut audit::Trail, id: u32) {
        let run = gate_run(id);
        let stats = Store::open(&trail.path())
            .and_then(|mut s| s.record(&run))
            .expect("record");
        let keep = self.work.path().join("kept");
        trail
            .commit(&run, stats.inserted > 0, &keep)
            .expect("commit");
    }

    fn bare_git(&self, args: &[&str]) -> String {
        git(&self.bare, args)
    }

    fn head(&self) -> String {
        self.bare_git(&["rev-parse", BRANCH])
    }

    fn commits(&self) -> usize {
        self.bare_git(&["rev-list", "--count", BRANCH])
            .parse()
            .expect("count")
    }

    /// The whole trail at `rev` on the remote: (rows, distinct idempotency keys, chain intact).
    fn rows_at(&self, rev: &str) -> (i64, i64, bool) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        std::fs::write(&path, self.whole(rev)).expect("write");
        let store = Store::open_read_only(&path).expect("open");
        let (rows, keys) = store
            .connection()
            .query_row(
                "SELECT count(*), count(DISTINCT idempotency_key) FROM approval_history",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("count");
        (
            rows,
            keys,
            store.verify_chain().expect("verify").is_intact(),
        )
    }

    /// The trail at `rev` as one database (the registry with every segment's rows).
    fn whole(&self, rev: &str) -> Vec<u8> {
        common::whole_trail(&|p| common::git_file(&self.bare, &format!("{rev}:{p}")))
            .unwrap_or_else(|| panic!("a trail at {rev}"))
    }

    fn compact(&self, extra: &[&str]) -> (i32, String, String) {
        let mut cmd = skillgate();
        cmd.args(["audit", "compact", "--repo"])
            .arg(self.work.path())
            .args(extra);
        run(cmd)
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("utf8")
}

/// The examples' five skills, run `id` of a pull request job.
fn gate_run(id: u32) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = "octo/skills".to_owned();
    run.run.pull_request = Some(7);
    run.run.head = Some(format!("{id:040x}"));
    run.run.run_id = Some(id.to_string());
    run
}

#[test]
fn the_history_becomes_one_commit_and_the_old_head_a_tag() {
    let remote = Remote::new();
    for id in 1..=3 {
        remote.record(id);
    }
    let old = remote.head();
    assert_eq!(remote.commits(), 3);
    let (code, stdout, stderr) = remote.compact(&[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let tag = format!("skillgate-audit-{}", &old[..12]);
    assert_eq!(
        stdout,
        format!(
            "compacted {BRANCH}: 3 commits → 1 ({}), 15 rows, chain intact\nthe history before is at tag {tag} ({old})\n",
            remote.head()
        )
    );
    assert_eq!(remote.commits(), 1);
    assert_eq!(remote.bare_git(&["rev-parse", &tag]), old);
    assert_eq!(
        remote.bare_git(&["rev-parse", &format!("{BRANCH}^{{tree}}")]),
        remote.bare_git(&["rev-parse", &format!("{old}^{{tree}}")]),
        "the same database, byte for byte"
    );
    let message = remote.bare_git(&["log", "-1", "--format=%B", BRANCH]);
    assert!(
        message.contains(&format!("up to {old} is at tag {tag}"))
            && message.contains("chain was intact there: 15 rows"),
        "{message}"
    );
    // Runs go on from the compacted branch; the chain carries across.
    remote.record(4);
    assert_eq!(remote.commits(), 2);
    assert_eq!(remote.rows_at(BRANCH), (20, 20, true));
    // Twice in a row: one commit already.
    remote.record(5);
    let (code, stdout, _) = remote.compact(&["--tag", "audit/before-5"]);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("compacted skillgate/audit: 3 commits → 1"),
        "{stdout}"
    );
    let (code, stdout, _) = remote.compact(&[]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        format!(
            "{BRANCH} is one commit already ({}): nothing to compact\n",
            remote.head()
        )
    );
}

#[test]
fn a_run_that_read_before_the_compaction_lands_after_it() {
    let remote = Remote::new();
    remote.record(1);
    remote.record(2);
    // This run reads the branch, then the branch is compacted under it.
    let mut late = remote.trail();
    let (code, _, stderr) = remote.compact(&[]);
    assert_eq!(code, 0, "{stderr}");
    let compacted = remote.head();
    remote.land(&mut late, 3);
    assert_eq!(
        remote.commits(),
        2,
        "re-read, re-applied, on top of the compacted commit"
    );
    assert_eq!(
        remote.bare_git(&["rev-parse", &format!("{BRANCH}^")]),
        compacted
    );
    assert_eq!(remote.rows_at(BRANCH), (15, 15, true));
}

#[test]
fn a_run_that_lands_during_the_compaction_is_never_dropped() {
    let remote = Remote::new();
    remote.record(1);
    remote.record(2);
    let branch = GitBranch {
        dir: remote.work.path().to_path_buf(),
        remote: "origin".to_owned(),
        name: BRANCH.to_owned(),
    };
    let read = branch.head().expect("head").expect("branch");
    // A run lands between the compaction's read and its push.
    remote.record(3);
    let landed = remote.head();
    let outcome = branch
        .compact(&read, "skillgate-audit-test", "squash")
        .expect("compact");
    assert_eq!(outcome, Compacted::Moved);
    assert_eq!(remote.head(), landed, "the lease kept the run's commit");
    assert_eq!(remote.commits(), 3);
    assert_eq!(
        remote.bare_git(&["tag", "--list"]),
        "",
        "the tag went with the branch or not at all"
    );
    // The command reads again and compacts the branch as it is now, under the same tag name.
    let (code, stdout, stderr) = remote.compact(&["--tag", "skillgate-audit-test"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("3 commits → 1"), "{stdout}");
    assert_eq!(
        remote.bare_git(&["rev-parse", "skillgate-audit-test"]),
        landed
    );
    assert_eq!(remote.rows_at(BRANCH), (15, 15, true));
}

#[test]
fn a_broken_chain_is_not_compacted() {
    let remote = Remote::new();
    remote.record(1);
    remote.record(2);
    // Someone rewrites a decision by hand and commits the trail's files on the branch.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    std::fs::write(&path, remote.whole(BRANCH)).expect("write");
    Connection::open(&path)
        .expect("open")
        .execute_batch("UPDATE approval_history SET decision = 'approved' WHERE id = 2")
        .expect("tamper");
    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &["clone", "-q", "-b", BRANCH, path_str(&remote.bare), "clone"],
    );
    let tampered = std::fs::read(&path).expect("read");
    for (file, bytes) in common::segmented_files(&tampered) {
        std::fs::write(clone.join(file), bytes).expect("write");
    }
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-qm", "fix a decision"]);
    git(&clone, &["push", "-q", "origin", BRANCH]);
    let before = remote.head();
    let (code, stdout, stderr) = remote.compact(&[]);
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(
        stderr.contains("the chain is broken (row 2") && stderr.contains("refusing to compact"),
        "{stderr}"
    );
    assert_eq!(remote.head(), before);
    assert_eq!(remote.commits(), 3);
    assert_eq!(remote.bare_git(&["tag", "--list"]), "", "no tag either");
}

#[test]
fn a_trail_cut_from_the_front_is_not_compacted() {
    let remote = Remote::new();
    for id in 1..=3 {
        remote.record(id);
    }
    // Someone drops the first run's rows and commits a trail that starts after them: its
    // records are consistent, its first row chains to a row no longer there.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    std::fs::write(&path, remote.whole(BRANCH)).expect("write");
    let (bytes, link): (Vec<u8>, String) = {
        let store = Store::open(&path).expect("open");
        store
            .connection()
            .execute_batch("DELETE FROM approval_history WHERE id <= 5")
            .expect("cut");
        let link = store
            .connection()
            .query_row(
                "SELECT prev_hash FROM approval_history ORDER BY id LIMIT 1",
                [],
                |r| r.get(0),
            )
            .expect("link");
        drop(store);
        (std::fs::read(&path).expect("read"), link)
    };
    let mut files = common::segmented_files(&bytes);
    // The cut trail's registry records a first segment that starts at row 6, chained to row 5.
    let registry = dir.path().join("registry.db");
    std::fs::write(&registry, &files[0].1).expect("write");
    Connection::open(&registry)
        .and_then(|c| {
            c.execute(
                "UPDATE trail_segments SET prev_hash = ?1 WHERE seq = 1",
                [&link],
            )
        })
        .expect("records");
    files[0].1 = std::fs::read(&registry).expect("read");
    let clone = dir.path().join("clone");
    git(
        dir.path(),
        &["clone", "-q", "-b", BRANCH, path_str(&remote.bare), "clone"],
    );
    for (file, bytes) in &files {
        std::fs::write(clone.join(file), bytes).expect("write");
    }
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-qm", "drop the first run"]);
    git(&clone, &["push", "-q", "origin", BRANCH]);
    let before = remote.head();
    let (code, stdout, stderr) = remote.compact(&[]);
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(
        stderr.contains("the chain is broken (row 6") && stderr.contains("refusing to compact"),
        "{stderr}"
    );
    assert_eq!(remote.head(), before);
}

#[test]
fn a_shallow_checkout_fetches_the_branch_shallow_and_still_compacts() {
    let remote = Remote::new();
    for id in 1..=3 {
        remote.record(id);
    }
    let old = remote.head();
    // The remote loses the commits behind the head: a compaction that fetched more than the
    // head (the whole history, as from a full checkout) fails, one that took the head only
    // works. Small pushes leave loose objects, one file each.
    let behind: Vec<String> = ["~1", "~2"]
        .iter()
        .map(|back| remote.bare_git(&["rev-parse", &format!("{old}{back}")]))
        .collect();
    for sha in &behind {
        let loose = remote.bare.join("objects").join(&sha[..2]).join(&sha[2..]);
        std::fs::remove_file(&loose)
            .unwrap_or_else(|e| panic!("{} (a loose object): {e}", loose.display()));
    }
    // actions/checkout's default: the default branch, one commit deep.
    let seed = Repo::git();
    seed.write("README", "main\n");
    git(seed.path(), &["add", "README"]);
    git(seed.path(), &["commit", "-qm", "main"]);
    git(seed.path(), &["push", "-q", path_str(&remote.bare), "main"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", remote.bare.display());
    git(dir.path(), &["clone", "-q", "--depth=1", &url, "checkout"]);
    let checkout = dir.path().join("checkout");
    let mut cmd = skillgate();
    cmd.args(["audit", "compact", "--repo"]).arg(&checkout);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with(
            "compacted skillgate/audit: its history (not counted: the checkout is shallow) → 1"
        ),
        "{stdout}"
    );
    assert_eq!(remote.commits(), 1);
    assert_eq!(
        remote.bare_git(&["rev-parse", &format!("skillgate-audit-{}", &old[..12])]),
        old
    );
    // Compaction works in a scratch repository: the checkout's git directory gets nothing.
    let seen = std::process::Command::new("git")
        .arg("-C")
        .arg(&checkout)
        .args(["cat-file", "-e", &old])
        .output()
        .expect("git");
    assert!(!seen.status.success());
    // A run from a shallow checkout pushes on top.
    let session = Session::from_vars(&|_| None, None).expect("session");
    let mut trail = audit::connect(
        &Remote::config(),
        &session,
        &checkout,
        audit::Reads::Since(None),
    )
    .expect("connect")
    .expect("a trail");
    let run = gate_run(4);
    let stats = Store::open(&trail.path())
        .and_then(|mut s| s.record(&run))
        .expect("record");
    trail
        .commit(&run, stats.inserted > 0, &checkout.join("kept"))
        .expect("commit");
    assert_eq!(remote.commits(), 2);
    assert_eq!(remote.rows_at(BRANCH), (20, 20, true));
}

#[test]
fn a_tag_taken_at_another_commit_stops_the_compaction() {
    let remote = Remote::new();
    remote.record(1);
    let first = remote.head();
    remote.bare_git(&["tag", "keep", &first]);
    remote.record(2);
    let before = remote.head();
    let (code, stdout, stderr) = remote.compact(&["--tag", "keep"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("already exists") && stderr.contains("pass --tag"),
        "{stderr}"
    );
    assert_eq!(remote.head(), before, "neither ref moved");
    assert_eq!(remote.bare_git(&["rev-parse", "keep"]), first);
}

#[test]
fn no_branch_or_a_bad_tag_name_is_a_usage_error() {
    let remote = Remote::new();
    let (code, _, stderr) = remote.compact(&[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("audit branch skillgate/audit is not on remote origin"),
        "{stderr}"
    );
    remote.record(1);
    let (code, _, stderr) = remote.compact(&["--tag", "two words"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--tag \"two words\" is not a valid tag name"),
        "{stderr}"
    );
    assert_eq!(remote.commits(), 1);
}
