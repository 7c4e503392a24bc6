//! What resolution returns, and the order it looks in: the declared suite, a conventional
//! script, then a framework found in the skill's files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::bats::bats_suite;
use super::bun::bun_suite;
use super::host::{Host, Machine};
use super::node::{node_plan, node_suite, node_test_suite, read_package};
use super::python::python_suite;
use super::shell::shown;
use crate::skill::SkillMeta;

/// In a suite's arguments, stands for the directory its reports go to (`SKILLGATE_REPORT_DIR`).
pub const REPORT_DIR: &str = "{report_dir}";

/// Conventional suite scripts, in order.
pub const CONVENTIONAL: &[&str] = &["test.sh", "tests/test.sh", "scripts/test.sh"];

/// The most of a `package.json` or a Python file read to choose a framework.
pub(super) const MAX_DETECT_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteSource {
    Declared,
    Conventional,
    Detected,
}

/// A command that runs a skill's tests, with the skill directory as its working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suite {
    pub source: SuiteSource,
    /// What a person would type: `bash test.sh`, `npm test`. The report directory shows as
    /// `"$SKILLGATE_REPORT_DIR"`.
    pub command: String,
    #[serde(skip)]
    pub program: String,
    #[serde(skip)]
    pub args: Vec<String>,
    /// The framework when known (`node:test`, `pytest`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub framework: Option<String>,
    /// The suite file, relative to the skill, when the suite is a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// What resolution found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Found(Suite),
    /// A suite exists but cannot run here (its tool is missing, or its path is refused).
    Unavailable {
        suite: Option<Suite>,
        reason: String,
    },
    None,
}

/// Resolve the suite of a skill at `dir` whose files (relative to `dir`) are `files`.
/// `repo` is the canonical repository root: a suite path resolving outside it is refused.
pub fn resolve(dir: &Path, repo: &Path, meta: &SkillMeta, files: &[String]) -> Resolution {
    resolve_on(&Machine, dir, repo, meta, files)
}

pub(super) fn resolve_on(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    meta: &SkillMeta,
    files: &[String],
) -> Resolution {
    if let Some(declared) = meta
        .test_suite
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        return declared_suite(host, dir, repo, declared, meta.test_framework.clone());
    }
    for candidate in CONVENTIONAL {
        if files.iter().any(|f| f == candidate) {
            return file_suite(
                host,
                dir,
                repo,
                candidate,
                SuiteSource::Conventional,
                meta.test_framework.clone(),
            );
        }
    }
    detect_framework(host, dir, repo, files)
}

fn declared_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    declared: &str,
    framework: Option<String>,
) -> Resolution {
    let looks_like_path = !declared.contains(char::is_whitespace);
    if looks_like_path && dir.join(declared).exists() {
        return file_suite(host, dir, repo, declared, SuiteSource::Declared, framework);
    }
    if looks_like_path && (declared.contains('/') || declared.ends_with(".sh")) {
        return Resolution::Unavailable {
            suite: None,
            reason: format!("declared test-suite `{declared}` does not exist"),
        };
    }
    // A command line: run by bash, like a CI step.
    let suite = Suite {
        source: SuiteSource::Declared,
        command: declared.to_owned(),
        program: "bash".to_owned(),
        args: vec!["-c".to_owned(), declared.to_owned()],
        framework,
        path: None,
    };
    with_tool(host, suite, "bash")
}

fn file_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    rel: &str,
    source: SuiteSource,
    framework: Option<String>,
) -> Resolution {
    let abs = dir.join(rel);
    match abs.canonicalize() {
        Ok(real) if real.starts_with(repo) => {}
        Ok(real) => {
            return Resolution::Unavailable {
                suite: None,
                reason: format!(
                    "test suite `{rel}` resolves outside the repository (to {}); refused",
                    real.display()
                ),
            };
        }
        Err(err) => {
            return Resolution::Unavailable {
                suite: None,
                reason: format!("test suite `{rel}` cannot be read: {err}"),
            };
        }
    }
    // A file named like an option (`-x.sh`) must reach the interpreter as a file.
    let arg = if rel.starts_with('-') {
        format!("./{rel}")
    } else {
        rel.to_owned()
    };
    let (program, args): (&str, Vec<String>) =
        match Path::new(rel).extension().and_then(|e| e.to_str()) {
            Some("py") => ("python3", vec![arg.clone()]),
            Some("js" | "mjs" | "cjs") => ("node", vec![arg.clone()]),
            // `*.sh` and anything else: bash, so a missing executable bit is no failure.
            _ => ("bash", vec![arg.clone()]),
        };
    let suite = Suite {
        source,
        command: format!("{program} {arg}"),
        program: program.to_owned(),
        args,
        framework,
        path: Some(rel.to_owned()),
    };
    with_tool(host, suite, program)
}

/// A framework found in the skill's files, run the way its users run it plus the flags that
/// write its report (and coverage) into [`REPORT_DIR`]. Only files the framework would run,
/// and that read as its tests, make a suite.
fn detect_framework(host: &dyn Host, dir: &Path, repo: &Path, files: &[String]) -> Resolution {
    let package = files
        .iter()
        .any(|f| f == "package.json")
        .then(|| read_package(repo, &dir.join("package.json")))
        .flatten();
    if let Some(found) = bun_suite(
        host,
        dir,
        repo,
        files,
        package.as_ref().and_then(|p| p.test.as_deref()),
        package.as_ref().is_some_and(|p| p.scripts_use_bun),
    ) {
        return found;
    }
    if let Some(package) = &package
        && let Some(plan) = node_plan(package)
    {
        return node_suite(host, dir, repo, files, package, plan);
    }
    if let Some(found) = node_test_suite(host, dir, repo, files) {
        return found;
    }
    if let Some(found) = python_suite(host, dir, repo, files) {
        return found;
    }
    if let Some(found) = bats_suite(host, files) {
        return found;
    }
    if files.iter().any(|f| f.ends_with("_test.go")) {
        let suite = detected(
            "go",
            "go",
            &[
                "test",
                "-json",
                "-coverprofile={report_dir}/cover.out",
                "./...",
            ],
        );
        return with_tool(host, suite, "go");
    }
    if files.iter().any(|f| f == "Cargo.toml") {
        // libtest writes no report file and measures no coverage: its text is read from stdout.
        return with_tool(host, detected("cargo", "cargo", &["test"]), "cargo");
    }
    Resolution::None
}

pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A detected suite of `program args`.
pub(super) fn detected(framework: &str, program: &str, args: &[&str]) -> Suite {
    let args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
    Suite {
        source: SuiteSource::Detected,
        command: shown(program, &args),
        program: program.to_owned(),
        args,
        framework: Some(framework.to_owned()),
        path: None,
    }
}

pub(super) fn with_tool(host: &dyn Host, suite: Suite, tool: &str) -> Resolution {
    if host.has_tool(tool) {
        Resolution::Found(suite)
    } else {
        unavailable(suite, tool)
    }
}

pub(super) fn unavailable(suite: Suite, tool: &str) -> Resolution {
    let mut reason = match &suite.framework {
        Some(framework) => format!("{framework} suite found, but `{tool}` is not installed"),
        None => format!("test suite needs `{tool}`, which is not installed"),
    };
    if let Some(help) = install_help(tool) {
        reason.push_str(&format!(" (help: {help})"));
    }
    Resolution::Unavailable {
        suite: Some(suite),
        reason,
    }
}

/// How a person installs `tool` on the machine that runs the gate (a GitHub-hosted runner, a
/// Debian or Ubuntu image): the command, or where the installer is.
pub(super) fn install_help(tool: &str) -> Option<String> {
    let help = match tool {
        "python3" => "run `apt-get install python3`, or use actions/setup-python".to_owned(),
        "node" | "npm" => "run `apt-get install nodejs npm`, or use actions/setup-node".to_owned(),
        "bun" => "run `npm install -g bun`".to_owned(),
        // npm's `bats` package installs no `bats` command.
        "bats" => "run `apt-get install bats`, or see \
                   https://bats-core.readthedocs.io/en/stable/installation.html"
            .to_owned(),
        "go" => "see https://go.dev/dl/, or use actions/setup-go".to_owned(),
        "cargo" => "see https://rustup.rs".to_owned(),
        "bash" => "run `apt-get install bash`".to_owned(),
        _ => return None,
    };
    Some(help)
}

/// The first executable file named `program` on `PATH`.
pub fn find_in_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::testing::{Fake, detect, found, setup, strings, unavailable_reason};

    const NODE_TEST: &str = "const test = require(\"node:test\");\ntest(\"a\", () => {});\n";

    #[test]
    fn a_suite_file_named_like_an_option_is_passed_as_a_path() {
        let (dir, files) = setup(&[("-i.sh", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("-i.sh".into()),
            ..SkillMeta::default()
        };
        let suite = found(resolve(&root, &root, &meta, &files));
        assert_eq!(
            (suite.program.as_str(), suite.args.as_slice()),
            ("bash", ["./-i.sh".to_owned()].as_slice())
        );
        assert_eq!(suite.path.as_deref(), Some("-i.sh"));
    }

    #[test]
    fn declared_wins_then_conventional_then_framework() {
        let (dir, files) = setup(&[
            ("test.sh", ""),
            ("run_tests.sh", ""),
            ("x.test.js", NODE_TEST),
        ]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("run_tests.sh".into()),
            ..SkillMeta::default()
        };
        let host = Fake::all();
        let suite = found(resolve_on(&host, &root, &root, &meta, &files));
        assert_eq!(
            (suite.source, suite.command.as_str()),
            (SuiteSource::Declared, "bash run_tests.sh")
        );
        let suite = found(resolve_on(
            &host,
            &root,
            &root,
            &SkillMeta::default(),
            &files,
        ));
        assert_eq!(
            (suite.source, suite.command.as_str()),
            (SuiteSource::Conventional, "bash test.sh")
        );
        let suite = found(detect(&host, &dir, &files[2..]));
        assert_eq!(suite.framework.as_deref(), Some("node:test"));
        assert_eq!(suite.source, SuiteSource::Detected);
    }

    #[test]
    fn declared_command_runs_through_bash() {
        let (dir, files) = setup(&[("a.txt", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("python3 -m unittest -v".into()),
            ..SkillMeta::default()
        };
        let suite = found(resolve_on(&Fake::all(), &root, &root, &meta, &files));
        assert_eq!(suite.args, vec!["-c", "python3 -m unittest -v"]);
        let (_, reason) = unavailable_reason(resolve_on(
            &Fake::all().without_tool("bash"),
            &root,
            &root,
            &meta,
            &files,
        ));
        assert_eq!(
            reason,
            "test suite needs `bash`, which is not installed (help: run `apt-get install bash`)"
        );
    }

    #[test]
    fn missing_declared_file_and_escaping_paths_are_unavailable() {
        let (dir, files) = setup(&[("SKILL.md", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("tests/missing.sh".into()),
            ..SkillMeta::default()
        };
        let Resolution::Unavailable { reason, .. } = resolve(&root, &root, &meta, &files) else {
            panic!("missing file is unavailable");
        };
        assert!(reason.contains("does not exist"), "{reason}");

        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("evil.sh"), "").expect("write");
        std::os::unix::fs::symlink(outside.path().join("evil.sh"), root.join("test.sh"))
            .expect("link");
        let Resolution::Unavailable { reason, .. } =
            resolve(&root, &root, &SkillMeta::default(), &["test.sh".to_owned()])
        else {
            panic!("escaping suite is refused");
        };
        assert!(reason.contains("outside the repository"), "{reason}");
    }

    #[test]
    fn a_package_without_tests_leaves_detection_to_the_files() {
        let (dir, files) = setup(&[
            ("package.json", r#"{"dependencies":{"left-pad":"1"}}"#),
            ("a.test.mjs", NODE_TEST),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("node:test"));
    }

    #[test]
    fn go_writes_json_and_a_coverprofile_and_cargo_runs_bare() {
        let (dir, files) = setup(&[("go.mod", ""), ("slug_test.go", "")]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            (suite.framework.as_deref(), suite.program.as_str()),
            (Some("go"), "go")
        );
        assert_eq!(
            suite.args,
            strings(&[
                "test",
                "-json",
                "-coverprofile={report_dir}/cover.out",
                "./..."
            ])
        );
        let (_, reason) = unavailable_reason(detect(&Fake::all().without_tool("go"), &dir, &files));
        assert_eq!(
            reason,
            "go suite found, but `go` is not installed (help: see https://go.dev/dl/, or use \
             actions/setup-go)"
        );

        let (dir, files) = setup(&[("Cargo.toml", ""), ("src/lib.rs", "")]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            (
                suite.framework.as_deref(),
                suite.program.as_str(),
                suite.args.clone()
            ),
            (Some("cargo"), "cargo", strings(&["test"]))
        );
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("cargo"), &dir, &files));
        assert_eq!(
            reason,
            "cargo suite found, but `cargo` is not installed (help: see https://rustup.rs)"
        );

        let (dir, files) = setup(&[("README.md", "")]);
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
    }
}
