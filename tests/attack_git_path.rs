//! Issue #14, point 4: a suite runs as the gate's user and can write a directory on `PATH`
//! (`~/.local/bin`). The `git` the gate runs is the one `PATH` named before any suite ran, never
//! one planted later, which audit git mode would run with the token's header in its
//! environment. One test in its own binary: it changes the process's `PATH`.

mod common;

use std::path::Path;

use common::{Repo, git};
use skillgate::audit;
use skillgate::config::{AuditConfig, CommitMode};
use skillgate::gate::GateRun;
use skillgate::git::Git;
use skillgate::github::Session;
use skillgate::store::Store;

fn gate_run(id: u32) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = "octo/skills".to_owned();
    run.run.head = Some(format!("{id:040x}"));
    run.run.run_id = Some(id.to_string());
    run
}

fn real_git() -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(Path::new(&path).is_absolute(), "no git on PATH: {path:?}");
    path
}

#[test]
fn a_git_planted_on_path_after_the_gate_looked_is_never_run() {
    let remote = tempfile::tempdir().expect("tempdir");
    let (_bare, url) = common::bare_remote(remote.path(), "origin.git");
    let work = Repo::git();
    work.skill("skills/one", "one", 1, 0);
    let head = work.commit("one");
    git(work.path(), &["remote", "add", "origin", &url]);
    let config = AuditConfig {
        commit: CommitMode::Git,
        ..AuditConfig::default()
    };
    let session = Session::from_vars(&|_| None, None).expect("session");
    // Before suites: the checkout's questions, and the trail pinned as `check` does.
    let checkout = Git::open(work.path()).expect("open");
    assert_eq!(checkout.head().expect("head"), Some(head.clone()));
    let mut trail = audit::connect(&config, &session, work.path(), audit::Reads::Since(None))
        .expect("connect")
        .expect("a trail");

    // A suite plants a `git` that passes everything on to the real one, noting what it saw.
    let planted = tempfile::tempdir().expect("tempdir");
    let marks = planted.path().join("marks");
    let fake = planted.path().join("git");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$* $GIT_CONFIG_VALUE_0\" >> '{}'\nexec '{}' \"$@\"\n",
            marks.display(),
            real_git()
        ),
    )
    .expect("write");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let old_path = std::env::var_os("PATH").expect("PATH");
    let mut dirs = vec![planted.path().to_path_buf()];
    dirs.extend(std::env::split_paths(&old_path));
    let new_path = std::env::join_paths(dirs).expect("join");
    // SAFETY: the only test in this binary, and no other thread runs now.
    unsafe { std::env::set_var("PATH", &new_path) };

    // After suites: git mode reads and pushes, and the checkout is asked again.
    let run = gate_run(1);
    let stats = Store::open(&trail.path())
        .and_then(|mut s| s.record(&run))
        .expect("record");
    let landed = trail.commit(&run, stats.inserted > 0, &work.path().join("kept"));
    let asked = checkout.head();
    // SAFETY: as above.
    unsafe { std::env::set_var("PATH", &old_path) };

    landed.expect("commit");
    assert_eq!(asked.expect("head"), Some(head));
    assert!(
        !marks.exists(),
        "the planted git ran:\n{}",
        std::fs::read_to_string(&marks).unwrap_or_default()
    );
    let count = git(
        remote.path(),
        &[
            "--git-dir",
            "origin.git",
            "rev-list",
            "--count",
            "skillgate/audit",
        ],
    );
    assert_eq!(count, "1");
}
