//! `skillgate check` end to end: the built binary on repositories made with real git.

mod common;

use common::{Repo, run, run_json, verdicts};

fn v(name: &str, change: &str, tier: &str, decision: &str) -> (String, String, String, String) {
    (name.into(), change.into(), tier.into(), decision.into())
}

#[test]
fn only_the_changed_skill_is_gated_between_two_commits() {
    let repo = Repo::git();
    repo.skill(".claude/skills/alpha", "alpha", 5, 0);
    repo.skill(".claude/skills/beta", "beta", 5, 0);
    let base = repo.commit("two skills");
    repo.skill(".claude/skills/beta", "beta", 3, 2);
    let head = repo.commit("beta regresses");

    let (code, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    assert_eq!(
        verdicts(&doc),
        vec![v("beta", "modified", "human", "escalated")]
    );
    assert_eq!(code, 3, "review required");
    let beta = &doc["skills"][0];
    assert_eq!(beta["tests"]["pass_count"], 3);
    assert_eq!(beta["tests"]["fail_count"], 2);
    assert_eq!(beta["tests"]["total_count"], 5);
    assert_eq!(beta["tests"]["pass_rate"], 0.6);
    assert_eq!(
        beta["decision"]["criteria"]["test_pass_rate"]["actual"],
        0.6
    );
    assert_eq!(
        beta["decision"]["criteria"]["test_pass_rate"]["passed"],
        false
    );
    assert_eq!(doc["run"]["base"], base.as_str());
    assert_eq!(doc["run"]["head"], head.as_str());
    assert_eq!(doc["schema"], "skillgate.results/1");
}

#[test]
fn a_renamed_skill_keeps_its_history_and_is_a_breaking_change() {
    let repo = Repo::git();
    repo.skill("skills/old-name", "old-name", 4, 0);
    let base = repo.commit("skill");
    repo.git_cmd(&["mv", "skills/old-name", "skills/new-name"]);
    repo.write(
        "skills/new-name/SKILL.md",
        "---\nname: new-name\ndescription: The renamed skill.\n---\n# new\n",
    );
    let head = repo.commit("rename");

    // Record the base first, so the rename has a row to carry over.
    repo.git_cmd(&["checkout", "-q", &base]);
    let (_, _) = run_json(&repo, &["check", "--all"]);
    repo.git_cmd(&["checkout", "-q", "main"]);
    let (code, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    assert_eq!(
        verdicts(&doc),
        vec![v("new-name", "renamed", "human", "escalated")]
    );
    assert_eq!(doc["skills"][0]["change"]["from"], "skills/old-name");
    assert!(
        doc["skills"][0]["decision"]["reasons"][0]
            .as_str()
            .is_some_and(|r| r.contains("renamed from skills/old-name")),
        "{}",
        doc["skills"][0]["decision"]["reasons"]
    );
    assert_eq!(code, 3);

    let conn = rusqlite::Connection::open(repo.db()).expect("db");
    let (names, rows): (String, i64) = conn
        .query_row(
            "SELECT group_concat(name), (SELECT count(*) FROM approval_history ah WHERE ah.skill_id = s.id) FROM skills s",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("query");
    assert_eq!(names, "new-name", "the old row was renamed, not duplicated");
    assert_eq!(rows, 2, "both decisions hang on the same skill row");
}

#[test]
fn a_deleted_skill_needs_a_maintainer() {
    let repo = Repo::git();
    repo.skill(".claude/skills/keep", "keep", 2, 0);
    repo.skill(".claude/skills/gone", "gone", 2, 0);
    let base = repo.commit("two");
    repo.remove(".claude/skills/gone");
    let head = repo.commit("remove gone");
    let (code, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    assert_eq!(
        verdicts(&doc),
        vec![v("gone", "deleted", "human", "escalated")]
    );
    assert_eq!(
        doc["skills"][0]["decision"]["reasons"][0],
        "breaking change: skill removed"
    );
    assert!(doc["skills"][0]["tests"].is_null());
    assert_eq!(code, 3);
    let conn = rusqlite::Connection::open(repo.db()).expect("db");
    let status: String = conn
        .query_row("SELECT status FROM skills WHERE name = 'gone'", [], |r| {
            r.get(0)
        })
        .expect("row");
    assert_eq!(status, "deleted");
}

#[test]
fn nested_skills_own_their_own_files() {
    let repo = Repo::git();
    repo.skill(".claude/skills/outer", "outer", 3, 0);
    repo.skill(".claude/skills/outer/lib/inner", "inner", 3, 0);
    let base = repo.commit("nested");
    repo.write(".claude/skills/outer/lib/inner/helper.sh", "echo help\n");
    let head = repo.commit("touch inner");
    let (_, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    let names: Vec<_> = verdicts(&doc).into_iter().map(|v| v.0).collect();
    assert_eq!(names, vec!["inner"]);

    repo.write(".claude/skills/outer/lib/util.sh", "echo util\n");
    let head2 = repo.commit("touch outer");
    let (_, doc) = run_json(&repo, &["check", "--base", &head, "--head", &head2]);
    let names: Vec<_> = verdicts(&doc).into_iter().map(|v| v.0).collect();
    assert_eq!(names, vec!["outer"]);
}

#[test]
fn uncommitted_changes_are_gated_without_head() {
    let repo = Repo::git();
    repo.skill(".claude/skills/alpha", "alpha", 2, 0);
    repo.skill(".claude/skills/beta", "beta", 2, 0);
    let base = repo.commit("two");
    repo.write(".claude/skills/alpha/notes.md", "untracked file\n");
    let (_, doc) = run_json(&repo, &["check", "--base", &base]);
    assert_eq!(verdicts(&doc).len(), 1);
    assert_eq!(verdicts(&doc)[0].0, "alpha");
    assert_eq!(doc["run"]["dirty"], true);
}

#[test]
fn all_works_in_a_plain_directory_and_skill_picks_one() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/alpha", "alpha", 2, 0);
    repo.skill("skills/beta", "beta", 1, 1);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let names: Vec<_> = verdicts(&doc).into_iter().map(|v| (v.0, v.1)).collect();
    assert_eq!(
        names,
        vec![
            ("alpha".to_owned(), "unchanged".to_owned()),
            ("beta".to_owned(), "unchanged".to_owned())
        ]
    );
    assert!(doc["run"]["head"].is_null());

    let (_, doc) = run_json(&repo, &["check", "--all", "--skill", "beta"]);
    assert_eq!(verdicts(&doc).len(), 1);
    assert_eq!(verdicts(&doc)[0].0, "beta");

    let (code, _, stderr) = run(repo.skillgate(&["check", "--all", "--skill", "nope"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("no skill named `nope`"), "{stderr}");
    assert!(
        stderr.contains(
            "help: name a skill by its directory's name or its path; skills found: \
             .claude/skills/alpha, skills/beta"
        ),
        "{stderr}"
    );
}

#[test]
fn an_invalid_skill_md_needs_correction_and_exits_4() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/good", "good", 2, 0);
    repo.write(
        ".claude/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: [oops\n---\n",
    );
    repo.write(
        ".claude/skills/broken/test.sh",
        "echo '1..1'; echo 'ok 1'\n",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(code, 4);
    let broken = &doc["skills"][0];
    assert_eq!(broken["name"], "broken");
    assert_eq!(broken["decision"]["decision"], "needs_correction");
    assert_eq!(broken["lint"][0]["rule"], "frontmatter-invalid");
    assert_eq!(broken["lint"][0]["file"], ".claude/skills/broken/SKILL.md");
    assert!(
        broken["lint"][0]["line"]
            .as_u64()
            .is_some_and(|l| (3..=4).contains(&l))
    );

    let (code, _, _) = run(repo.skillgate(&[
        "check",
        "--all",
        "--fail-on",
        "correction",
        "--skill",
        "good",
    ]));
    assert_eq!(
        code, 0,
        "escalate alone does not fail with --fail-on correction"
    );
    let (code, _, _) = run(repo.skillgate(&["check", "--all", "--fail-on", "never"]));
    assert_eq!(code, 0);
}

#[test]
fn a_hanging_suite_times_out_and_its_children_die() {
    let repo = Repo::plain();
    repo.write(".skillgate.toml", "[runner]\ntimeout = \"1s\"\n");
    repo.write(
        ".claude/skills/hang/SKILL.md",
        "---\nname: hang\ndescription: Hangs.\n---\n",
    );
    repo.write(
        ".claude/skills/hang/test.sh",
        "echo '1..2'\necho 'ok 1 - first'\nsleep 1000 &\necho $! > child.pid\nsleep 1000\n",
    );
    let started = std::time::Instant::now();
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(code, 3);
    let skill = &doc["skills"][0];
    assert_eq!(
        skill["decision"]["tier"], "human",
        "a timed-out suite is never trusted"
    );
    assert_eq!(
        skill["decision"]["reasons"][0],
        "the suite timed out after 1s"
    );
    assert_eq!(skill["suite"]["timed_out"], true);
    assert_eq!(skill["suite"]["outcome"], "timed out after 1s");
    let failed = skill["tests"]["failed_tests"]
        .as_array()
        .expect("failed tests");
    assert!(failed.iter().any(|t| t["kind"] == "timeout"), "{failed:?}");
    assert!(
        common::process_gone(&repo.path().join(".claude/skills/hang/child.pid")),
        "the suite's background child survived"
    );
}

#[test]
fn a_suite_without_the_executable_bit_runs_with_bash() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/plain", "plain", 3, 0);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(doc["skills"][0]["suite"]["command"], "bash test.sh");
    assert_eq!(doc["skills"][0]["tests"]["pass_count"], 3);
}

#[test]
fn suites_never_see_the_runners_tokens() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/env/SKILL.md",
        "---\nname: env\ndescription: Prints env.\n---\n",
    );
    repo.write(
        ".claude/skills/env/test.sh",
        "env | sort > env.txt; echo '1..1'; echo 'ok 1'\n",
    );
    // Only allowlisted names pass, and what the config allows.
    repo.write(".skillgate.toml", "[runner]\nenv-allow = [\"KEEP_ME\"]\n");
    let mut cmd = repo.skillgate(&["check", "--all", "--format", "json"]);
    cmd.env("GITHUB_TOKEN", "ghs_supersecret")
        .env("GH_TOKEN", "gho_alsosecret")
        .env(
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "https://token.actions.example/x",
        )
        .env("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidc")
        .env("INPUT_TOKEN", "x")
        .env("ACTIONS_RUNTIME_TOKEN", "x")
        .env("AWS_SECRET_ACCESS_KEY", "x")
        .env("DATABASE_URL", "postgres://app:hunter2@db/app")
        .env("KEEP_ME", "1");
    let (_, _, _) = run(cmd);
    let env = std::fs::read_to_string(repo.path().join(".claude/skills/env/env.txt"))
        .expect("env printed");
    assert!(
        !env.contains("ghs_supersecret") && !env.contains("GITHUB_TOKEN"),
        "{env}"
    );
    for name in [
        "GH_TOKEN",
        "gho_alsosecret",
        "ACTIONS_ID_TOKEN_REQUEST",
        "INPUT_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "hunter2",
    ] {
        assert!(!env.contains(name), "{name} reached the suite: {env}");
    }
    assert!(env.contains("KEEP_ME=1"), "{env}");
    assert!(env.contains("SKILLGATE_REPORT_DIR="), "{env}");
}

#[test]
fn a_symlink_loop_is_a_finding_not_a_hang() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/ok", "ok", 1, 0);
    std::os::unix::fs::symlink("loop", repo.path().join(".claude/skills/loop")).expect("symlink");
    std::os::unix::fs::symlink("..", repo.path().join(".claude/skills/ok/up")).expect("symlink");
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(verdicts(&doc).len(), 1);
    let rules: Vec<_> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap_or_default().to_owned(),
                f["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(
        rules.contains(&(".claude/skills/loop".to_owned(), "symlink-loop".to_owned())),
        "{rules:?}"
    );
}

#[test]
fn bad_input_is_one_clear_line() {
    let missing = common::run({
        let mut cmd = common::skillgate();
        cmd.args(["check", "--all", "--repo", "/definitely/not/here"]);
        cmd
    });
    assert_eq!(missing.0, 2);
    assert_eq!(
        missing.2.trim(),
        "error: --repo /definitely/not/here does not exist"
    );

    let repo = Repo::git();
    repo.skill(".claude/skills/a", "a", 1, 0);
    let (code, _, stderr) = run(repo.skillgate(&["check", "--base", "HEAD~1"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("no commits yet"), "{stderr}");

    repo.commit("first");
    let (code, _, stderr) = run(repo.skillgate(&["check", "--base", "does-not-exist"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown revision `does-not-exist`"),
        "{stderr}"
    );
    assert!(stderr.contains("help: "), "{stderr}");

    let plain = Repo::plain();
    let (code, _, stderr) = run(plain.skillgate(&["check", "--base", "main"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("is not a git repository"), "{stderr}");
    assert!(stderr.contains("help: use --all"), "{stderr}");

    plain.write(".skillgate.toml", "[runner]\ntimout = \"1m\"\n");
    let (code, _, stderr) = run(plain.skillgate(&["check", "--all"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains(".skillgate.toml:2: unknown field `timout`"),
        "{stderr}"
    );
}

#[test]
fn an_empty_repository_has_nothing_to_gate() {
    let repo = Repo::plain();
    let (code, stdout, _) = run(repo.skillgate(&["check", "--all"]));
    assert_eq!(code, 0);
    assert_eq!(stdout.trim(), "skillgate: no skills to gate");
}

#[test]
fn rerunning_the_same_commit_records_nothing_twice() {
    let repo = Repo::git();
    repo.skill(".claude/skills/a", "a", 2, 0);
    let base = repo.commit("a");
    repo.skill(".claude/skills/a", "a", 3, 0);
    let head = repo.commit("a again");
    for _ in 0..2 {
        run_json(&repo, &["check", "--base", &base, "--head", &head]);
    }
    let conn = rusqlite::Connection::open(repo.db()).expect("db");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM approval_history", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, 1);
}

#[test]
fn out_writes_the_results_document_and_db_overrides_the_path() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/a", "a", 1, 0);
    let out = repo.path().join("results.json");
    let db = repo.path().join("elsewhere/audit.db");
    let (code, stdout, _) = run(repo.skillgate(&[
        "check",
        "--all",
        "--out",
        out.to_str().expect("utf8"),
        "--db",
        db.to_str().expect("utf8"),
    ]));
    assert_eq!(code, 3, "coverage unknown escalates");
    assert!(
        stdout.contains("SKILL"),
        "text is the default format: {stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("out written")).expect("json");
    assert_eq!(doc["schema"], "skillgate.results/1");
    assert_eq!(doc["summary"]["escalate"], 1);
    assert!(db.exists());
    assert!(!repo.db().exists());
}

#[test]
fn stopping_the_gate_stops_its_suites() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/slow/SKILL.md",
        "---\nname: slow\ndescription: Slow.\n---\n",
    );
    repo.write(
        ".claude/skills/slow/test.sh",
        "sleep 1000 &\necho $! > child.pid\nwait\n",
    );
    let mut cmd = repo.skillgate(&["check", "--all"]);
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let gate = cmd.spawn().expect("spawn");
    let pidfile = repo.path().join(".claude/skills/slow/child.pid");
    let started = std::time::Instant::now();
    while !pidfile.exists() && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let gate_pid = i32::try_from(gate.id()).expect("pid");
    // SAFETY: sending SIGTERM to the child we spawned.
    unsafe { libc::kill(gate_pid, libc::SIGTERM) };
    let out = gate.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupted by SIGTERM"), "{stderr}");
    assert!(
        common::process_gone(&pidfile),
        "the suite's child survived the gate"
    );
    assert!(
        !repo.db().exists() || {
            let conn = rusqlite::Connection::open(repo.db()).expect("db");
            conn.query_row("SELECT count(*) FROM approval_history", [], |r| {
                r.get::<_, i64>(0)
            })
            .expect("count")
                == 0
        },
        "an interrupted run records nothing"
    );
}

#[test]
fn a_suite_that_fails_after_reporting_passes_is_not_approved() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/liar/SKILL.md",
        "---\nname: liar\ndescription: Lies.\n---\n",
    );
    repo.write(".claude/skills/liar/lib.sh", "echo hi\n");
    repo.write(
        ".claude/skills/liar/test.sh",
        "printf 'SF:lib.sh\\nDA:1,1\\nend_of_record\\n' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '20 passed, 0 failed'\nexit 2\n",
    );
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["coverage"]["ratio"], 1.0, "the lcov was read");
    assert_eq!(skill["decision"]["tier"], "human");
    assert_eq!(
        skill["decision"]["reasons"][0],
        "the suite exited with status 2 but reported no failed test"
    );
    assert_eq!(skill["decision"]["criteria"]["suite_exit"]["passed"], false);
    assert_eq!(code, 3);
}

#[test]
fn hostile_files_in_a_skill_are_refused_not_read() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/fifo", "fifo", 1, 0);
    let fifo = repo.path().join(".claude/skills/fifo/pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );

    repo.write(
        ".claude/skills/zero/SKILL.md",
        "---\nname: zero\ndescription: Zero.\n---\n",
    );
    std::os::unix::fs::symlink(
        "/dev/zero",
        repo.path().join(".claude/skills/zero/package.json"),
    )
    .expect("symlink");

    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        outside.path().join("SKILL.md"),
        "---\nname: away\ndescription: x\n---\n",
    )
    .expect("write");
    std::fs::create_dir_all(repo.path().join(".claude/skills/away")).expect("mkdir");
    std::os::unix::fs::symlink(
        outside.path().join("SKILL.md"),
        repo.path().join(".claude/skills/away/SKILL.md"),
    )
    .expect("symlink");

    let started = std::time::Instant::now();
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(code, 4, "the escaping SKILL.md needs correction");
    let by_name = |name: &str| common::skill(&doc, name).clone();
    assert_eq!(
        by_name("fifo")["tests"]["pass_count"],
        1,
        "a FIFO is no content and blocks nothing"
    );
    assert_eq!(by_name("zero")["decision"]["reasons"][0], "no test suite");
    let away = by_name("away");
    assert_eq!(away["decision"]["decision"], "needs_correction");
    assert!(
        away["lint"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("outside the repository")),
        "{away}"
    );
}

#[test]
fn a_repo_inside_a_larger_git_repository_maps_its_own_paths() {
    let repo = Repo::git();
    repo.skill("packages/web/.claude/skills/lint", "lint", 2, 0);
    repo.skill("packages/api/.claude/skills/route", "route", 2, 0);
    let base = repo.commit("monorepo");
    repo.write("packages/web/.claude/skills/lint/extra file.sh", "echo\n");
    let head = repo.commit("touch web");
    let mut cmd = common::skillgate();
    cmd.args([
        "check", "--base", &base, "--head", &head, "--format", "json", "--repo",
    ])
    .arg(repo.path().join("packages/web"));
    let (_, stdout, stderr) = run(cmd);
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(
        verdicts(&doc),
        vec![v("lint", "modified", "escalate", "escalated")]
    );
    assert_eq!(doc["skills"][0]["dir"], ".claude/skills/lint");
    assert_eq!(
        doc["run"]["dirty"], false,
        "the gate's own database does not make the tree dirty"
    );
}

#[test]
fn an_unwritable_out_path_fails_before_any_suite_runs() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/a/SKILL.md",
        "---\nname: a\ndescription: A.\n---\n",
    );
    repo.write(
        ".claude/skills/a/test.sh",
        "touch ran\necho '1 passed, 0 failed'\n",
    );
    let (code, _, stderr) =
        run(repo.skillgate(&["check", "--all", "--out", "/nonexistent/dir/results.json"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--out /nonexistent/dir/results.json"),
        "{stderr}"
    );
    assert!(
        !repo.path().join(".claude/skills/a/ran").exists(),
        "no suite ran"
    );
    assert!(!repo.db().exists(), "nothing was recorded");
}

#[test]
fn a_skill_md_that_is_not_utf8_is_a_finding_at_its_line() {
    let repo = Repo::plain();
    std::fs::create_dir_all(repo.path().join(".claude/skills/latin")).expect("mkdir");
    std::fs::write(
        repo.path().join(".claude/skills/latin/SKILL.md"),
        b"---\nname: latin\ndescription: caf\xe9\n---\n",
    )
    .expect("write");
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(code, 4);
    let finding = &doc["skills"][0]["lint"][0];
    assert_eq!(finding["rule"], "skill-file-unreadable");
    assert_eq!(finding["line"], 3);
    assert_eq!(
        finding["message"],
        "SKILL.md is not UTF-8: invalid byte at column 17"
    );
}

#[test]
fn a_major_version_bump_or_a_new_name_is_a_breaking_change() {
    let repo = Repo::git();
    repo.skill(".claude/skills/alpha", "alpha", 3, 0);
    let base = repo.commit("alpha 1.0.0");
    let skill_md = repo.path().join(".claude/skills/alpha/SKILL.md");
    let text = std::fs::read_to_string(&skill_md).expect("read");
    repo.write(
        ".claude/skills/alpha/SKILL.md",
        &text.replace("version: \"1.0.0\"", "version: \"2.0.0\""),
    );
    let head = repo.commit("alpha 2.0.0");
    let (_, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    let alpha = &doc["skills"][0];
    assert_eq!(alpha["decision"]["tier"], "human", "{alpha}");
    assert_eq!(
        alpha["decision"]["criteria"]["breaking_change"]["actual"],
        "major version 1.0.0 → 2.0.0"
    );
    assert!(
        alpha["decision"]["reasons"]
            .to_string()
            .contains("breaking change: major version 1.0.0 → 2.0.0"),
        "{alpha}"
    );
}

/// A skill of `category`, whose suite passes `passed` of `passed + failed` TAP tests and writes
/// an lcov report covering `covered` of 100 lines.
fn categorised_skill(repo: &common::Repo, name: &str, category: &str, failed: usize, covered: u32) {
    let dir = format!(".claude/skills/{name}");
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!(
            "---\nname: {name}\ndescription: The {name} skill, for tests.\nmetadata:\n  version: \"1.0.0\"\n  category: {category}\n---\n# {name}\n"
        ),
    );
    let mut lcov = String::from("SF:lib.sh\\n");
    for line in 1..=100 {
        lcov.push_str(&format!("DA:{line},{}\\n", u32::from(line <= covered)));
    }
    lcov.push_str("end_of_record\\n");
    let mut script = format!(
        "printf '{lcov}' > \"$SKILLGATE_REPORT_DIR/lcov.info\"\necho '1..{}'\n",
        20 + failed
    );
    for i in 1..=20 {
        script.push_str(&format!("echo 'ok {i} - passes {i}'\n"));
    }
    for i in 1..=failed {
        script.push_str(&format!("echo 'not ok {} - fails {i}'\n", 20 + i));
    }
    repo.write(&format!("{dir}/test.sh"), &script);
}

#[test]
fn a_skill_cannot_pick_a_looser_policy_by_changing_its_category() {
    let repo = Repo::git();
    // Backend is enforced; testing only warns.
    repo.write(
        ".skillgate.toml",
        "[policy.categories.backend]\nmode = \"enforce\"\n\n[policy.categories.testing]\nmode = \"warn\"\n",
    );
    // 20 of 25 tests pass (0.80): an expert at least, under enforcement.
    categorised_skill(&repo, "mover", "backend", 5, 100);
    categorised_skill(&repo, "stayer", "testing", 5, 100);
    categorised_skill(&repo, "clean", "backend", 0, 100);
    let base = repo.commit("three skills");
    categorised_skill(&repo, "mover", "testing", 6, 100);
    categorised_skill(&repo, "stayer", "testing", 6, 100);
    categorised_skill(&repo, "clean", "testing", 0, 100);
    let head = repo.commit("mover and clean call themselves testing");

    let (_, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    // The same failures under testing's own policy: approved with warnings.
    let stayer = common::skill(&doc, "stayer");
    assert_eq!(stayer["decision"]["tier"], "auto", "{stayer}");
    // Under backend's policy, as at the base: the pass rate 0.77 needs a maintainer.
    let mover = common::skill(&doc, "mover");
    assert_eq!(mover["decision"]["tier"], "human", "{mover}");
    assert_eq!(mover["category"], "testing");
    let reasons = mover["decision"]["reasons"].to_string();
    assert!(
        reasons.contains(
            "category changed backend → testing; decided under the stricter of backend's and \
             testing's policies"
        ),
        "{reasons}"
    );
    assert!(!reasons.contains("policy mode warn"), "{reasons}");
    assert_eq!(
        mover["decision"]["criteria"]["category_change"],
        serde_json::json!({"required": "backend", "actual": "testing", "passed": false})
    );
    // A skill that meets every criterion still has its new category confirmed by an expert.
    let clean = common::skill(&doc, "clean");
    assert_eq!(clean["decision"]["tier"], "escalate", "{clean}");
    assert_eq!(
        clean["decision"]["escalation_categories"],
        serde_json::json!(["category-change"])
    );
}

#[test]
fn removing_a_documented_input_is_a_breaking_change() {
    let repo = Repo::git();
    repo.skill(".claude/skills/alpha", "alpha", 3, 0);
    let skill_md = repo.path().join(".claude/skills/alpha/SKILL.md");
    let text = std::fs::read_to_string(&skill_md).expect("read");
    let documented =
        format!("{text}\n## Inputs\n\n- `region`: the AWS region\n- `bucket`: where to write\n");
    repo.write(".claude/skills/alpha/SKILL.md", &documented);
    let base = repo.commit("alpha documents region and bucket");
    // Reordered and renamed to Parameters: nothing removed but `region`.
    repo.write(
        ".claude/skills/alpha/SKILL.md",
        &format!("{text}\n## Parameters\n\n- `bucket`: where to write\n- `acl`: who reads\n"),
    );
    let head = repo.commit("alpha drops region");
    let (_, doc) = run_json(&repo, &["check", "--base", &base, "--head", &head]);
    let alpha = &doc["skills"][0];
    assert_eq!(alpha["decision"]["tier"], "human", "{alpha}");
    assert_eq!(
        alpha["decision"]["criteria"]["breaking_change"]["actual"],
        "documented input `region` removed"
    );
}

#[test]
fn category_templates_from_the_database_set_thresholds_and_config_overrides_them() {
    let repo = Repo::plain();
    // 92% coverage: enough for the seed's backend template (90%), not for the defaults (95%).
    categorised_skill(&repo, "api", "backend", 0, 92);
    categorised_skill(&repo, "tool", "testing", 0, 92);
    categorised_skill(&repo, "widget", "frontend", 0, 100);
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let api = common::skill(&doc, "api");
    assert_eq!(api["decision"]["tier"], "auto", "{api}");
    assert_eq!(
        api["decision"]["criteria"]["test_coverage"]["required"],
        0.9
    );
    assert_eq!(
        api["decision"]["criteria"]["cyclomatic_complexity"]["required"],
        "<= 10"
    );
    let tool = common::skill(&doc, "tool");
    assert_eq!(tool["decision"]["tier"], "escalate", "{tool}");
    assert_eq!(tool["decision"]["escalation_categories"][0], "coverage");
    // The seed's frontend template allows escalate at best.
    let widget = common::skill(&doc, "widget");
    assert_eq!(widget["decision"]["tier"], "escalate", "{widget}");
    assert_eq!(
        widget["decision"]["escalation_categories"],
        serde_json::json!(["category-level"])
    );
    assert!(
        widget["decision"]["reasons"].to_string().contains(
            "template Frontend Component - Escalated Review sends every skill of its category to an expert"
        ),
        "{widget}"
    );

    // The config has the last word, per key.
    repo.write(
        ".skillgate.toml",
        "[policy.categories.backend]\nauto = { coverage = 0.93 }\n\n\
         [policy.categories.frontend]\napproval-level = \"auto\"\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let api = common::skill(&doc, "api");
    assert_eq!(api["decision"]["tier"], "escalate", "{api}");
    assert_eq!(
        api["decision"]["criteria"]["test_coverage"]["required"],
        0.93
    );
    assert_eq!(
        api["decision"]["criteria"]["cyclomatic_complexity"]["required"], "<= 10",
        "what the config does not set stays the template's"
    );
    assert_eq!(common::skill(&doc, "widget")["decision"]["tier"], "auto");
}

#[test]
fn a_broken_category_template_stops_the_run_and_is_named() {
    let repo = Repo::plain();
    categorised_skill(&repo, "api", "backend", 0, 92);
    let (code, _) = run_json(&repo, &["check", "--all"]);
    assert_eq!(code, 0);
    let conn = rusqlite::Connection::open(repo.db()).expect("db");
    conn.execute(
        "UPDATE approval_criteria_templates SET criteria_json = 'not json' WHERE category = 'backend'",
        [],
    )
    .expect("update");
    drop(conn);
    let (code, _out, err) = run(repo.skillgate(&["check", "--all"]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "template `Backend API Service - Auto Approval`: criteria_json is not JSON: expected ident at line 1 column 2"
        ),
        "{err}"
    );
}
