//! Running suites through `skillgate check`: retries and flaky tests, timeouts, and what a run
//! leaves behind, on repositories made in a temp dir.

mod common;

use common::{Repo, run, run_json};

/// A skill whose second test fails on the suite's first run only: the marker file (outside the
/// repository) remembers that it ran.
fn flaky_skill(repo: &Repo, marker: &std::path::Path) {
    repo.write(
        ".claude/skills/flaky/SKILL.md",
        "---\nname: flaky\ndescription: Fails once.\n---\n",
    );
    repo.write(
        ".claude/skills/flaky/test.sh",
        &format!(
            "echo '1..2'\necho 'ok 1 - login works'\n\
             if [ -e '{m}' ]; then echo 'ok 2 - db connects'; exit 0; fi\n\
             touch '{m}'\necho 'not ok 2 - db connects'\nexit 1\n",
            m = marker.display()
        ),
    );
}

fn reasons(skill: &serde_json::Value) -> String {
    skill["decision"]["reasons"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .unwrap_or_default()
}

#[test]
fn a_test_that_fails_then_passes_is_flaky_and_the_last_attempt_counts() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    flaky_skill(&repo, &scratch.path().join("ran-once"));
    repo.write(".skillgate.toml", "[runner]\nretries = 2\n");
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 2, "{skill}");
    assert_eq!(
        skill["suite"]["earlier_attempts_ms"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert_eq!(skill["tests"]["pass_count"], 2);
    assert_eq!(skill["tests"]["fail_count"], 0);
    assert_eq!(skill["tests"]["failed_tests"], serde_json::json!([]));
    assert_eq!(
        skill["tests"]["flaky_tests"],
        serde_json::json!(["db connects"])
    );
    let reasons = reasons(skill);
    assert!(
        reasons
            .contains("the suite passed on attempt 2, after 1 failed attempt; flaky: db connects"),
        "{reasons}"
    );
    // Informational: it passes nothing and blocks nothing, but says the tests did not pass at
    // first.
    assert_eq!(skill["decision"]["criteria"]["retries"]["passed"], false);
    assert_eq!(
        skill["decision"]["criteria"]["retries"]["actual"]["attempts"],
        2
    );
}

#[test]
fn without_retries_the_first_failure_stands() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    flaky_skill(&repo, &scratch.path().join("ran-once"));
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 1);
    assert_eq!(skill["tests"]["fail_count"], 1);
    assert_eq!(skill["tests"]["failed_tests"][0]["name"], "db connects");
    assert!(skill["tests"].get("flaky_tests").is_none(), "{skill}");
    assert!(skill["decision"]["criteria"].get("retries").is_none());
}

#[test]
fn a_suite_that_always_fails_runs_once_per_retry_and_is_not_flaky() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/broken", "broken", 1, 1);
    repo.write(".skillgate.toml", "[runner]\nretries = 2\n");
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 3);
    assert_eq!(skill["tests"]["fail_count"], 1);
    assert!(skill["tests"].get("flaky_tests").is_none(), "{skill}");
    let reasons = reasons(skill);
    assert!(
        reasons.contains("the suite failed on all 3 attempts; the last one counts"),
        "{reasons}"
    );
    assert_eq!(code, 3);
}

#[test]
fn a_passing_suite_is_not_run_again() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    let count = scratch.path().join("runs");
    repo.write(
        ".claude/skills/once/SKILL.md",
        "---\nname: once\ndescription: Passes.\n---\n",
    );
    repo.write(
        ".claude/skills/once/test.sh",
        &format!(
            "echo run >> '{}'\necho '1..1'\necho 'ok 1'\n",
            count.display()
        ),
    );
    repo.write(".skillgate.toml", "[runner]\nretries = 3\n");
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(doc["skills"][0]["suite"]["attempts"], 1);
    assert_eq!(
        std::fs::read_to_string(&count).expect("the suite ran"),
        "run\n"
    );
}

#[test]
fn a_timed_out_suite_is_a_failure_of_kind_timeout() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/slow/SKILL.md",
        "---\nname: slow\ndescription: Hangs.\n---\n",
    );
    repo.write(
        ".claude/skills/slow/test.sh",
        "echo '1..2'\necho 'ok 1 - quick'\nsleep 30\necho 'ok 2 - slow'\n",
    );
    repo.write(".skillgate.toml", "[runner]\ntimeout = \"1s\"\n");
    let started = std::time::Instant::now();
    let (code, doc) = run_json(&repo, &["check", "--all"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["timed_out"], true);
    assert_eq!(skill["suite"]["outcome"], "timed out after 1s");
    let failed = skill["tests"]["failed_tests"]
        .as_array()
        .expect("failed tests");
    let timeout = failed
        .iter()
        .find(|t| t["kind"] == "timeout")
        .unwrap_or_else(|| panic!("a timeout failure in {failed:?}"));
    assert_eq!(timeout["error"], "the suite timed out after 1s");
    assert_eq!(skill["decision"]["tier"], "human");
    assert_eq!(code, 3);
}

#[test]
fn bad_retries_in_config_name_the_key_and_line() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/a", "a", 1, 0);
    repo.write(".skillgate.toml", "[runner]\nretries = -1\n");
    let (code, _, stderr) = run(repo.skillgate(&["check", "--all"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains(".skillgate.toml:2: `runner.retries`"),
        "{stderr}"
    );
}

#[test]
fn under_github_actions_each_suite_is_a_group_on_stderr_and_stdout_stays_json() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/alpha", "alpha", 2, 0);
    repo.write(
        ".claude/skills/sneaky/SKILL.md",
        "---\nname: sneaky\ndescription: Prints workflow commands.\n---\n",
    );
    repo.write(
        ".claude/skills/sneaky/test.sh",
        "echo '::endgroup::'\necho '::add-mask::nothing'\necho '1..1'\necho 'ok 1'\n",
    );
    let mut cmd = repo.skillgate(&["check", "--all", "--format", "json"]);
    cmd.env("GITHUB_ACTIONS", "true");
    let (_, stdout, stderr) = run(cmd);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    assert_eq!(doc["skills"].as_array().map(Vec::len), Some(2));
    assert!(stderr.contains("::group::alpha: exit 0 ("), "{stderr}");
    assert!(
        stderr.contains("--- stdout ---\n1..2\nok 1 - passes 1\n"),
        "{stderr}"
    );
    // The suite's own workflow commands sit between stop-commands and its token.
    let group = stderr
        .split("::group::sneaky")
        .nth(1)
        .expect("a group for sneaky");
    let token = group
        .split("::stop-commands::")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("commands stopped");
    let inside = group
        .split(&format!("::{token}::"))
        .next()
        .expect("resumed");
    assert!(
        inside.contains("::endgroup::\n::add-mask::nothing"),
        "{group}"
    );
    assert!(
        group.contains(&format!("::{token}::\n::endgroup::")),
        "{group}"
    );
}

#[test]
fn in_other_logs_each_suite_is_one_line() {
    let repo = Repo::plain();
    repo.skill(".claude/skills/alpha", "alpha", 2, 0);
    repo.skill(".claude/skills/beta", "beta", 1, 1);
    let (_, _, stderr) = run(repo.skillgate(&["check", "--all", "--format", "json"]));
    let mut lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("skillgate: "))
        .map(|l| l.split(" (").next().unwrap_or(l))
        .collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        ["skillgate: alpha: exit 0", "skillgate: beta: exit 0"]
    );
}

#[test]
fn suite_and_report_paths_that_leave_the_repository_are_refused() {
    let repo = Repo::plain();
    let outside = tempfile::tempdir().expect("tempdir");
    let ran = outside.path().join("ran");
    std::fs::write(
        outside.path().join("evil.sh"),
        format!("touch '{}'\n", ran.display()),
    )
    .expect("write");
    repo.write(
        ".claude/skills/escape/SKILL.md",
        "---\nname: escape\ndescription: Suite outside.\nmetadata:\n  test-suite: tests/run.sh\n---\n",
    );
    std::fs::create_dir_all(repo.path().join(".claude/skills/escape/tests")).expect("mkdir");
    std::os::unix::fs::symlink(
        outside.path().join("evil.sh"),
        repo.path().join(".claude/skills/escape/tests/run.sh"),
    )
    .expect("symlink");
    repo.write(
        ".claude/skills/reports/SKILL.md",
        "---\nname: reports\ndescription: Report outside.\nmetadata:\n  test-report: \"../../../../etc/*.xml\"\n---\n",
    );
    repo.write(
        ".claude/skills/reports/test.sh",
        "echo '1..1'; echo 'ok 1'\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let escape = common::skill(&doc, "escape");
    assert_eq!(escape["decision"]["tier"], "human");
    assert!(
        escape["suite"]["outcome"]
            .as_str()
            .is_some_and(|o| o.contains("resolves outside the repository")),
        "{escape}"
    );
    assert!(!ran.exists(), "the escaping suite ran");
    let reports = common::skill(&doc, "reports");
    let lint: Vec<&str> = reports["lint"]
        .as_array()
        .expect("lint")
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        lint.iter()
            .any(|m| m.contains("leaves the skill directory; refused")),
        "{lint:?}"
    );
    assert_eq!(reports["decision"]["decision"], "needs_correction");
}

#[test]
fn a_suite_flooding_its_output_is_capped_head_and_tail() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/loud/SKILL.md",
        "---\nname: loud\ndescription: Prints a lot.\n---\n",
    );
    repo.write(
        ".claude/skills/loud/test.sh",
        "echo '1..1'\nseq 1 200000\necho 'ok 1 - survived'\n",
    );
    repo.write(".skillgate.toml", "[runner]\noutput-cap = \"4KiB\"\n");
    let mut cmd = repo.skillgate(&["check", "--all", "--format", "json"]);
    cmd.env("GITHUB_ACTIONS", "true");
    let (_, stdout, stderr) = run(cmd);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    // The head holds the plan, the tail the test point: the TAP still reads whole.
    assert_eq!(doc["skills"][0]["tests"]["pass_count"], 1, "{doc}");
    let group = stderr.split("::group::loud").nth(1).expect("a group");
    assert!(group.contains("\n1..1\n1\n2\n"), "the head");
    assert!(group.contains("200000\nok 1 - survived\n"), "the tail");
    assert!(
        group.contains(" bytes of output cut here]"),
        "the cut is marked"
    );
    assert!(group.len() < 6000, "{} bytes shown", group.len());
}

#[test]
fn background_processes_do_not_outlive_the_gate() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    let pids = scratch.path().join("pids");
    repo.write(
        ".claude/skills/spawner/SKILL.md",
        "---\nname: spawner\ndescription: Leaves children.\n---\n",
    );
    repo.write(
        ".claude/skills/spawner/test.sh",
        &format!(
            "sleep 1000 & echo $! >> '{p}'\n\
             (sleep 1000 & echo $! >> '{p}'; wait) &\n\
             setsid sleep 1000 </dev/null >/dev/null 2>&1 & d=$!; echo $d >> '{p}'\n\
             until [ \"$(cut -d' ' -f6 /proc/$d/stat)\" = \"$d\" ]; do sleep 0.01; done\n\
             while [ \"$(wc -l < '{p}')\" -lt 3 ]; do sleep 0.01; done\n\
             echo '1..1'; echo 'ok 1'\n",
            p = pids.display()
        ),
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert_eq!(doc["skills"][0]["tests"]["pass_count"], 1);
    let listed = std::fs::read_to_string(&pids).expect("pids written");
    let pids: Vec<i32> = listed
        .lines()
        .map(|l| l.trim().parse().expect("pid"))
        .collect();
    assert_eq!(pids.len(), 3);
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(") ").next().unwrap_or_default();
        assert!(
            stat.is_empty() || state.starts_with('Z'),
            "process {pid} outlived the gate: {stat}"
        );
    }
}

#[test]
fn a_retry_reads_only_the_declared_reports_written_again() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    let marker = scratch.path().join("ran-once");
    repo.write(
        ".claude/skills/declared/SKILL.md",
        "---\nname: declared\ndescription: Writes its own report.\nmetadata:\n  test-report: \"out/*.tap\"\n---\n",
    );
    // The first run writes a failing report; the retry a passing one beside it.
    repo.write(
        ".claude/skills/declared/test.sh",
        &format!(
            "mkdir -p out\n\
             if [ -e '{m}' ]; then printf '1..2\\nok 1 - a\\nok 2 - b\\n' > out/run-2.tap; exit 0; fi\n\
             touch '{m}'\nprintf '1..2\\nok 1 - a\\nnot ok 2 - b\\n' > out/run-1.tap\nexit 1\n",
            m = marker.display()
        ),
    );
    repo.write(".skillgate.toml", "[runner]\nretries = 1\n");
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 2);
    assert_eq!(
        skill["suite"]["results_from"],
        serde_json::json!(["out/run-2.tap"])
    );
    assert_eq!(skill["tests"]["pass_count"], 2);
    assert_eq!(skill["tests"]["fail_count"], 0);
    assert_eq!(skill["tests"]["flaky_tests"], serde_json::json!(["b"]));
}

#[test]
fn a_test_skipped_on_the_retry_is_not_flaky() {
    let repo = Repo::plain();
    let scratch = tempfile::tempdir().expect("tempdir");
    let marker = scratch.path().join("ran-once");
    repo.write(
        ".claude/skills/skipper/SKILL.md",
        "---\nname: skipper\ndescription: Skips on retry.\n---\n",
    );
    repo.write(
        ".claude/skills/skipper/test.sh",
        &format!(
            "echo '1..2'; echo 'ok 1 - a'\n\
             if [ -e '{m}' ]; then echo 'ok 2 - b # SKIP later'; exit 0; fi\n\
             touch '{m}'; echo 'not ok 2 - b'; exit 1\n",
            m = marker.display()
        ),
    );
    repo.write(".skillgate.toml", "[runner]\nretries = 1\n");
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 2);
    assert_eq!(skill["tests"]["skip_count"], 1);
    assert!(skill["tests"].get("flaky_tests").is_none(), "{skill}");
}

#[test]
fn tests_the_framework_reran_are_flaky_in_the_reasons_too() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/rerun/SKILL.md",
        "---\nname: rerun\ndescription: Surefire reruns.\n---\n",
    );
    repo.write(
        ".claude/skills/rerun/test.sh",
        "cat > \"$SKILLGATE_REPORT_DIR/junit.xml\" <<'EOF'\n\
         <testsuite name=\"s\" tests=\"2\"><testcase classname=\"s\" name=\"a\"/>\
         <testcase classname=\"s\" name=\"b\"><flakyFailure message=\"boom\"/></testcase></testsuite>\nEOF\n",
    );
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    let skill = &doc["skills"][0];
    assert_eq!(skill["suite"]["attempts"], 1);
    assert_eq!(skill["tests"]["flaky_tests"], serde_json::json!(["b"]));
    let reasons = reasons(skill);
    assert!(
        reasons.contains("the test framework re-ran tests that failed; flaky: b"),
        "{reasons}"
    );
}

#[test]
fn a_suite_that_timed_out_is_not_retried() {
    let repo = Repo::plain();
    repo.write(
        ".claude/skills/slow/SKILL.md",
        "---\nname: slow\ndescription: Hangs.\n---\n",
    );
    repo.write(".claude/skills/slow/test.sh", "sleep 30\n");
    repo.write(
        ".skillgate.toml",
        "[runner]\ntimeout = \"1s\"\nretries = 3\n",
    );
    let started = std::time::Instant::now();
    let (_, doc) = run_json(&repo, &["check", "--all"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(doc["skills"][0]["suite"]["attempts"], 1);
    assert_eq!(doc["skills"][0]["suite"]["timed_out"], true);
}
