//! The documented workflows (`docs/workflows/`) are the two-job design the README shows: the
//! job that runs pull request code holds no token, the one that holds a token runs none, and
//! the README's copies say the same as the files. (`.ci/run` also runs zizmor on them.)

use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect(rel)
}

/// The README's YAML block that starts with `# .github/workflows/NAME  (docs/workflows/FILE)`.
fn readme_block(file: &str) -> String {
    let readme = read("README.md");
    let marker = format!("(docs/workflows/{file})");
    let start = readme
        .lines()
        .position(|l| l.starts_with("# .github/workflows/") && l.ends_with(&marker))
        .unwrap_or_else(|| panic!("the README shows {file}"));
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

#[test]
fn the_readme_shows_the_workflow_files_as_they_are() {
    for file in ["check.yml", "publish.yml", "review.yml"] {
        let text = read(&format!("docs/workflows/{file}"));
        assert_eq!(
            readme_block(file),
            without_preamble(&text),
            "README and docs/workflows/{file} differ"
        );
    }
}

#[test]
fn the_job_that_runs_pull_request_code_holds_no_token() {
    let check = read("docs/workflows/check.yml");
    assert!(check.contains("on: pull_request\n"), "{check}");
    assert!(!check.contains("pull_request_target"));
    for forbidden in ["GITHUB_TOKEN", "github.token", "secrets.", ": write"] {
        assert!(
            !check.contains(forbidden),
            "check.yml must not hold `{forbidden}`"
        );
    }
    assert!(check.contains("persist-credentials: false"));
    assert!(check.contains("skillgate check --publish none"));
}

#[test]
fn the_job_that_holds_a_token_runs_no_pull_request_code() {
    let publish = read("docs/workflows/publish.yml");
    assert!(publish.contains("workflow_run:"), "{publish}");
    assert!(publish.contains("skillgate publish --results"));
    // It checks out the default branch (no `ref:` naming the pull request's head) and runs
    // nothing but skillgate.
    assert!(
        !publish.contains("ref:"),
        "publish.yml checks out the default branch"
    );
    for run in publish
        .lines()
        .filter(|l| l.trim_start().starts_with("run:"))
    {
        assert!(
            run.contains("skillgate") || run.contains("cargo install"),
            "publish.yml runs only skillgate: {run}"
        );
    }
    let review = read("docs/workflows/review.yml");
    assert!(
        review.contains("pull_request.base.sha"),
        "review.yml checks out the base"
    );
    assert!(review.contains("pull-requests: read"));
}
