//! The documented workflows (`docs/workflows/`) are the two-job design the README shows, run
//! through the action: the job that runs pull request code holds no token, the one that holds a
//! token runs none, every workflow grants per job and pins what it uses, and the README's copies
//! say the same as the files. (`.ci/run` also runs actionlint and zizmor on them.)

use std::path::Path;

/// Every file of `docs/workflows/`, each shown in the README.
const FILES: [&str; 7] = [
    "check.yml",
    "publish.yml",
    "review.yml",
    "compact.yml",
    "report.yml",
    "check-sharded.yml",
    "publish-sharded.yml",
];

/// How the documented workflows refer to the action (the owner is a placeholder).
const ACTION: &str = "uses: skillgate/skillgate@v1";

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect(rel)
}

fn workflow(file: &str) -> String {
    read(&format!("docs/workflows/{file}"))
}

/// The README's YAML block that starts with `# .github/workflows/NAME  (LABEL)`.
fn readme_block(label: &str) -> String {
    let readme = read("README.md");
    let marker = format!("({label})");
    let start = readme
        .lines()
        .position(|l| l.starts_with("# .github/workflows/") && l.ends_with(&marker))
        .unwrap_or_else(|| panic!("the README shows {label}"));
    readme
        .lines()
        .skip(start + 1)
        .take_while(|l| *l != "```")
        .collect::<Vec<_>>()
        .join("\n")
}

/// A workflow file without its opening comment block.
fn without_preamble(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with('#') || l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The steps of a workflow: each `- ` item under a `steps:` key, as its lines.
fn steps(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut indent = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let depth = line.len() - trimmed.len();
        if trimmed == "steps:" {
            indent = Some(depth);
            continue;
        }
        let Some(steps_depth) = indent else { continue };
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if depth <= steps_depth {
            indent = None;
        } else if trimmed.starts_with("- ") && depth == steps_depth + 2 {
            out.push(format!("{trimmed}\n"));
        } else if let Some(step) = out.last_mut() {
            step.push_str(trimmed);
            step.push('\n');
        }
    }
    out
}

/// The value of `key:` in a step, without its trailing comment.
fn with_value<'a>(step: &'a str, key: &str) -> Option<&'a str> {
    step.lines().find_map(|l| {
        let rest = l
            .trim_start_matches("- ")
            .strip_prefix(key)?
            .strip_prefix(':')?;
        Some(rest.split(" #").next().unwrap_or("").trim())
    })
}

/// The step that runs the action.
fn action_step(file: &str) -> String {
    let text = workflow(file);
    let found: Vec<String> = steps(&text)
        .into_iter()
        .filter(|s| s.contains(ACTION))
        .collect();
    assert_eq!(found.len(), 1, "{file} runs the action once: {found:?}");
    found.into_iter().next().expect("one step")
}

#[test]
fn the_readme_shows_the_workflow_files_as_they_are() {
    for file in FILES {
        assert_eq!(
            readme_block(&format!("docs/workflows/{file}")),
            without_preamble(&workflow(file)),
            "README and docs/workflows/{file} differ"
        );
    }
    let listed: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/workflows"))
            .expect("docs/workflows")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
    for name in &listed {
        assert!(
            FILES.contains(&name.as_str()),
            "docs/workflows/{name} is neither shown in the README nor checked here"
        );
    }
}

#[test]
fn every_workflow_runs_skillgate_through_the_action() {
    for file in FILES {
        let text = workflow(file);
        // A bare `skillgate` (or `cargo install`) needs an install step; the action is that step.
        assert!(
            !text.lines().any(|l| l.trim_start().starts_with("run:")
                || l.trim_start().starts_with("- run:")),
            "{file} runs a command of its own"
        );
        action_step(file);
    }
    assert_eq!(
        with_value(&action_step("check.yml"), "command"),
        Some("check")
    );
    assert_eq!(
        with_value(&action_step("publish.yml"), "command"),
        Some("publish")
    );
    assert_eq!(
        with_value(&action_step("review.yml"), "command"),
        Some("review")
    );
    assert_eq!(
        with_value(&action_step("compact.yml"), "command"),
        Some("audit-compact")
    );
}

#[test]
fn every_workflow_grants_per_job_and_pins_what_it_uses() {
    for file in FILES.iter().map(|f| format!("docs/workflows/{f}")).chain([
        // The README's quick start is held to the same rules.
        "quick start".to_owned(),
    ]) {
        let text = if file == "quick start" {
            readme_block("quick start")
        } else {
            read(&file)
        };
        assert!(
            text.lines().any(|l| l == "permissions: {}"),
            "{file}: no `permissions: {{}}` at the top"
        );
        assert!(
            text.lines().any(|l| l.starts_with("    permissions:")),
            "{file}: no job grants its own permissions"
        );
        for line in text.lines().filter(|l| l.contains("uses: ")) {
            let reference = line
                .split("uses: ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .expect("a reference");
            if reference == "skillgate/skillgate@v1" {
                // A placeholder has no commit to pin; zizmor is told so, with the reason.
                assert!(
                    line.ends_with("# zizmor: ignore[unpinned-uses] placeholder owner, no SHA"),
                    "{file}: {line}"
                );
                continue;
            }
            let (_, sha) = reference.split_once('@').expect("a pinned action");
            assert!(
                sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "{file}: {reference} is not pinned by commit SHA"
            );
            assert!(
                line.contains(" # v"),
                "{file}: {reference} has no `# vX.Y.Z` comment"
            );
        }
        for step in steps(&text)
            .iter()
            .filter(|s| s.contains("actions/checkout@"))
        {
            let persist = step
                .lines()
                .find(|l| l.contains("persist-credentials: "))
                .unwrap_or_else(|| panic!("{file}: a checkout says how it keeps credentials"));
            // Only jobs that run no pull request code and push keep them.
            if persist.contains("persist-credentials: true") {
                assert!(
                    file.ends_with("publish.yml")
                        || file.ends_with("publish-sharded.yml")
                        || file.ends_with("compact.yml"),
                    "{file} keeps git credentials"
                );
            }
        }
    }
}

#[test]
fn the_quick_start_fits_in_fifteen_lines_and_holds_no_token() {
    let quick = readme_block("quick start");
    assert!(quick.lines().count() <= 15, "{quick}");
    assert!(quick.contains("on: pull_request\n"), "{quick}");
    let step = steps(&quick)
        .into_iter()
        .find(|s| s.contains(ACTION))
        .expect("the quick start uses the action");
    assert!(
        step.contains(r#"token: """#) && step.contains("publish: none"),
        "{step}"
    );
    for forbidden in ["github.token", "secrets.", ": write", "pull_request_target"] {
        assert!(
            !quick.contains(forbidden),
            "the quick start holds `{forbidden}`"
        );
    }
}

#[test]
fn the_job_that_runs_pull_request_code_holds_no_token() {
    let check = workflow("check.yml");
    assert!(check.contains("on: pull_request\n"), "{check}");
    assert!(!check.contains("pull_request_target"));
    for forbidden in ["GITHUB_TOKEN", "github.token", "secrets.", ": write"] {
        assert!(
            !check.contains(forbidden),
            "check.yml must not hold `{forbidden}`"
        );
    }
    assert!(check.contains("persist-credentials: false"));
    // The action's token defaults to the job's: check.yml overrides it with nothing, and
    // publishes nothing (the action then hands the binary no token at all).
    let step = action_step("check.yml");
    assert_eq!(with_value(&step, "token"), Some(r#""""#), "{step}");
    assert_eq!(with_value(&step, "publish"), Some("none"), "{step}");
    assert_eq!(with_value(&step, "fail-on"), Some("never"), "{step}");
    // The document the publish workflow downloads.
    assert_eq!(with_value(&step, "results"), Some("results.json"), "{step}");
    assert!(check.contains("name: skillgate-results"));
    assert!(check.contains("path: results.json"));
}

#[test]
fn the_job_that_holds_a_token_runs_no_pull_request_code() {
    let publish = workflow("publish.yml");
    assert!(publish.contains("workflow_run:"), "{publish}");
    assert!(publish.contains("workflows: [skillgate check]"));
    assert!(workflow("check.yml").contains("name: skillgate check "));
    let step = action_step("publish.yml");
    assert_eq!(
        with_value(&step, "results"),
        Some("${{ runner.temp }}/skillgate-results/results.json"),
        "{step}"
    );
    // It checks out the default branch (no `ref:` naming the pull request's head) and runs
    // nothing but skillgate: its steps are the checkout, the artifact and the action.
    assert!(
        !publish.contains("ref:"),
        "publish.yml checks out the default branch"
    );
    for step in steps(&publish) {
        let first = step.lines().next().unwrap_or("");
        assert!(
            first.starts_with("- uses: actions/checkout@")
                || first.starts_with("- uses: actions/download-artifact@")
                || first.starts_with(&format!("- {ACTION}")),
            "publish.yml runs only skillgate: {step}"
        );
    }
    assert!(
        publish.contains("path: ${{ runner.temp }}/skillgate-results"),
        "the artifact lands outside the checkout"
    );

    let review = workflow("review.yml");
    assert!(review.contains("on: pull_request_review"));
    assert!(
        review.contains("ref: ${{ github.event.pull_request.base.sha }}"),
        "review.yml checks out the base"
    );
    assert!(review.contains("pull-requests: read"));
    assert!(!review.contains("pull_request_target"));
}

#[test]
fn compaction_runs_on_a_schedule_with_only_contents_write() {
    let compact = workflow("compact.yml");
    assert!(compact.contains("  schedule:\n    - cron: "), "{compact}");
    let grants: Vec<&str> = compact
        .lines()
        .skip_while(|l| !l.starts_with("    permissions:"))
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(grants, ["contents: write"], "{compact}");
    // The push uses git's credentials, not the action's token.
    assert_eq!(with_value(&action_step("compact.yml"), "token"), None);
}

#[test]
fn the_report_runs_on_a_schedule_and_writes_only_issues_and_pull_requests() {
    let report = workflow("report.yml");
    assert!(report.contains("  schedule:\n    - cron: "), "{report}");
    assert!(!report.contains("pull_request"), "{report}");
    let grants: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("    permissions:"))
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(
        grants,
        ["contents: read", "issues: write", "pull-requests: write"],
        "{report}"
    );
    let step = action_step("report.yml");
    assert_eq!(with_value(&step, "command"), Some("report"));
    assert_eq!(with_value(&step, "token"), Some("${{ github.token }}"));
}

#[test]
fn the_sharded_pair_keeps_the_same_split_of_code_and_token() {
    let check = workflow("check-sharded.yml");
    assert!(check.contains("on: pull_request\n"), "{check}");
    assert!(check.contains("name: skillgate check "));
    for forbidden in [
        "GITHUB_TOKEN",
        "github.token",
        "secrets.",
        ": write",
        "pull_request_target",
    ] {
        assert!(
            !check.contains(forbidden),
            "check-sharded.yml must not hold `{forbidden}`"
        );
    }
    let step = action_step("check-sharded.yml");
    assert_eq!(with_value(&step, "token"), Some(r#""""#), "{step}");
    assert_eq!(with_value(&step, "publish"), Some("none"), "{step}");
    assert_eq!(
        with_value(&step, "args"),
        Some("${{ matrix.skills }}"),
        "{step}"
    );
    assert_eq!(
        with_value(&step, "results"),
        Some("shard-${{ matrix.shard }}.json"),
        "{step}"
    );
    assert!(check.contains("name: skillgate-results-${{ matrix.shard }}"));
    let shards = check.matches("          - shard: ").count();
    assert!(shards >= 2, "{check}");

    let publish = workflow("publish-sharded.yml");
    assert!(publish.contains("workflows: [skillgate check]"));
    assert!(
        !publish.contains("ref:"),
        "the default branch is checked out"
    );
    assert!(publish.contains("pattern: skillgate-results-*"));
    for step in steps(&publish) {
        let first = step.lines().next().unwrap_or("");
        assert!(
            first.starts_with("- uses: actions/checkout@")
                || first.starts_with("- uses: actions/download-artifact@")
                || first.starts_with(&format!("- {ACTION}")),
            "publish-sharded.yml runs only skillgate: {step}"
        );
    }
    // One document listed per shard of the matrix.
    let listed = publish
        .lines()
        .filter(|l| {
            l.trim_start()
                .starts_with("${{ runner.temp }}/skillgate-results/shard-")
        })
        .count();
    assert_eq!(listed, shards, "{publish}");
}
