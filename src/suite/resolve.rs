//! What resolution returns, and the order it looks in: the declared suite, a conventional
//! script, then a framework found in the skill's files. The first framework found runs; the
//! others found beside it are named, with their test files, as tests the suite does not run. A
//! conventional script runs what its text says: the frameworks it neither starts nor names the
//! files of are named too. A declared suite is the author's word, and is not second-guessed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::bats::bats_suite;
use super::bun::{bun_suite, is_bun_test_file};
use super::host::{Host, Machine};
use super::node::{is_node_test_file, node_plan, node_suite, node_test_suite, read_package};
use super::python::python_suite;
use super::script::Script;
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
    /// Frameworks detected beside this one, whose test files it does not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrun: Vec<Unrun>,
}

/// A framework found in a skill's files beside the one its suite runs, with the test files
/// that suite leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unrun {
    pub framework: String,
    pub files: Vec<String>,
}

/// How many files of one framework a reason names before "and N more".
const NAMED_FILES: usize = 3;

/// A framework found in a skill's files: how it would run, and the files it runs (the
/// package's `package.json` for a test script, whose files only the script knows).
pub(super) struct Detected {
    pub(super) resolution: Resolution,
    pub(super) framework: String,
    pub(super) files: Vec<String>,
    /// Its files read as tests, so it may be the suite. Files pytest would collect that do not
    /// are still named as not run when another suite runs: pytest would run them.
    pub(super) is_suite: bool,
    /// The test script it runs (a package's), whose text says which other tests it runs.
    pub(super) script: Option<Script>,
}

impl Detected {
    pub(super) fn new(resolution: Resolution, framework: String, files: Vec<String>) -> Self {
        Self {
            resolution,
            framework,
            files,
            is_suite: true,
            script: None,
        }
    }
}

/// What resolution found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Found(Suite),
    /// A suite exists but cannot run here (its tool is missing, or its path is refused).
    Unavailable {
        suite: Option<Suite>,
        /// Why, for a finding or a decision's reason.
        reason: String,
        kind: Unavailability,
    },
    None,
}

/// Why a suite cannot run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailability {
    /// Its tool, Python module or package runner binary is not installed.
    ToolMissing,
    /// The declared suite file does not exist.
    Missing,
    /// Its file cannot be read.
    Unreadable,
    /// Its file (or its runner binary) resolves outside the repository: refused, a path escape.
    OutsideRepository,
}

impl Resolution {
    /// Why some of the skill's tests are not run: frameworks detected beside the one that runs,
    /// or that a conventional script does not run (`tests not run: tests/greet.bats (bats); the
    /// suite ran pytest; …`). `None` when every framework found runs, or the suite was declared.
    pub fn tests_not_run(&self) -> Option<String> {
        let (suite, ran) = match self {
            Self::Found(suite) => (suite, "ran"),
            Self::Unavailable {
                suite: Some(suite), ..
            } => (suite, "found is"),
            _ => return None,
        };
        if suite.unrun.is_empty() {
            return None;
        }
        let unrun: Vec<String> = suite
            .unrun
            .iter()
            .map(|u| {
                let mut named = u
                    .files
                    .iter()
                    .take(NAMED_FILES)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ");
                if u.files.len() > NAMED_FILES {
                    named.push_str(&format!(" and {} more", u.files.len() - NAMED_FILES));
                }
                format!("{named} ({})", u.framework)
            })
            .collect();
        let what = match &suite.framework {
            Some(framework) => framework.clone(),
            None => format!("`{}`", suite.command),
        };
        Some(format!(
            "tests not run: {}; the suite {ran} {what}; declare `test-suite` in SKILL.md to run \
             them all",
            unrun.join(", "),
        ))
    }
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
            let resolution = file_suite(
                host,
                dir,
                repo,
                candidate,
                SuiteSource::Conventional,
                meta.test_framework.clone(),
            );
            let text = read_text(repo, &dir.join(candidate)).unwrap_or_default();
            let script = read_script(dir, repo, files, &text);
            let unrun = unrun_beside(detect_all(host, dir, repo, files), |framework, file| {
                script.covers(framework, file)
            });
            return with_unrun(resolution, unrun);
        }
    }
    detect_framework(host, dir, repo, files)
}

/// The most script files read to learn what a test script runs: itself and those it runs.
const MAX_SCRIPTS: usize = 8;

/// What a test script whose text is `text` runs: its commands, those of the skill's scripts it
/// runs in turn (`bash tests/run.sh`, `python3 run_tests.py`), and the package's test script
/// when it runs `npm test`.
fn read_script(dir: &Path, repo: &Path, files: &[String], text: &str) -> Script {
    let mut script = Script::read(text);
    let mut read: Vec<&str> = Vec::new();
    let mut package_read = false;
    loop {
        let next = script
            .named_scripts(files)
            .into_iter()
            .find(|f| !read.contains(f));
        if let Some(file) = next
            && read.len() < MAX_SCRIPTS
        {
            read.push(file);
            if let Some(text) = read_text(repo, &dir.join(file)) {
                script.extend(&text);
            }
            continue;
        }
        if !package_read && script.runs_npm_test() && files.iter().any(|f| f == "package.json") {
            package_read = true;
            if let Some(test) = read_package(repo, &dir.join("package.json")).and_then(|p| p.test) {
                script.extend(&test);
                continue;
            }
        }
        return script;
    }
}

fn read_text(repo: &Path, path: &Path) -> Option<String> {
    let bytes = crate::untrusted::read_file(repo, path, MAX_DETECT_BYTES).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
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
            kind: Unavailability::Missing,
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
        unrun: Vec::new(),
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
                kind: Unavailability::OutsideRepository,
            };
        }
        Err(err) => {
            return Resolution::Unavailable {
                suite: None,
                reason: format!("test suite `{rel}` cannot be read: {err}"),
                kind: Unavailability::Unreadable,
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
        unrun: Vec::new(),
    };
    with_tool(host, suite, program)
}

/// A framework found in the skill's files, run the way its users run it plus the flags that
/// write its report (and coverage) into [`REPORT_DIR`]. Only files the framework would run,
/// and that read as its tests, make a suite. The first found runs; every other one found is
/// recorded on it with the test files it does not run.
fn detect_framework(host: &dyn Host, dir: &Path, repo: &Path, files: &[String]) -> Resolution {
    let mut found = detect_all(host, dir, repo, files);
    let Some(at) = found.iter().position(|d| d.is_suite) else {
        return Resolution::None;
    };
    let first = found.remove(at);
    let unrun = unrun_beside(found, |framework, file| match &first.script {
        Some(script) => script.covers(framework, file),
        None => runs_too(&first.framework, file),
    });
    with_unrun(first.resolution, unrun)
}

/// Every framework found in the skill's files, in the order they are chosen in.
fn detect_all(host: &dyn Host, dir: &Path, repo: &Path, files: &[String]) -> Vec<Detected> {
    let package = files
        .iter()
        .any(|f| f == "package.json")
        .then(|| read_package(repo, &dir.join("package.json")))
        .flatten();
    let mut found: Vec<Detected> = Vec::new();
    // bun is chosen by the test script when there is one, and then is that script; without
    // one, it runs what a runner among the dependencies would.
    found.extend(bun_suite(
        host,
        dir,
        repo,
        files,
        package.as_ref().and_then(|p| p.test.as_deref()),
    ));
    if found.is_empty()
        && let Some(package) = &package
        && let Some(plan) = node_plan(package)
    {
        let resolution = node_suite(host, dir, repo, files, package, plan);
        let framework = framework_of(&resolution).unwrap_or("npm").to_owned();
        let mut npm = Detected::new(resolution, framework, vec!["package.json".to_owned()]);
        // What the script runs beside its runner: `node --test a.test.js` runs that file only.
        npm.script = package
            .test
            .as_deref()
            .map(|test| read_script(dir, repo, files, test));
        found.push(npm);
    }
    found.extend(node_test_suite(host, dir, repo, files));
    found.extend(python_suite(host, dir, repo, files));
    found.extend(bats_suite(host, files));
    let go: Vec<String> = files
        .iter()
        .filter(|f| f.ends_with("_test.go"))
        .cloned()
        .collect();
    if !go.is_empty() {
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
        found.push(Detected::new(
            with_tool(host, suite, "go"),
            "go".to_owned(),
            go,
        ));
    }
    if files.iter().any(|f| f == "Cargo.toml") {
        // libtest writes no report file and measures no coverage: its text is read from stdout.
        found.push(Detected::new(
            with_tool(host, detected("cargo", "cargo", &["test"]), "cargo"),
            "cargo".to_owned(),
            vec!["Cargo.toml".to_owned()],
        ));
    }
    found
}

/// The test files of each framework in `found` that the suite does not run, by `runs`
/// (framework, file); one entry per framework (a package's test script, as `package.json`,
/// beside the node files it would run).
fn unrun_beside(found: Vec<Detected>, runs: impl Fn(&str, &str) -> bool) -> Vec<Unrun> {
    let mut unrun: Vec<Unrun> = Vec::new();
    for Detected {
        framework, files, ..
    } in found
    {
        let files: Vec<String> = files.into_iter().filter(|f| !runs(&framework, f)).collect();
        if files.is_empty() {
            continue;
        }
        match unrun.iter_mut().find(|u| u.framework == framework) {
            Some(same) => same.files.extend(files),
            None => unrun.push(Unrun { framework, files }),
        }
    }
    unrun
}

/// Whether the suite of `framework` runs `file` as well, by its default patterns: bun runs
/// `*.test.js` and the like, a test script running `node --test` runs node's, jest and vitest
/// run `*.test.*`, `*.spec.*` (and jest `__tests__/`). Any other is not known to.
pub(super) fn runs_too(framework: &str, file: &str) -> bool {
    let name = file_name(file);
    let js = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|ext| name.ends_with(ext));
    match framework {
        "bun" => is_bun_test_file(file),
        "node:test" => is_node_test_file(file),
        "jest" | "vitest" => {
            js && (name.contains(".test.")
                || name.contains(".spec.")
                || (framework == "jest" && file.split('/').any(|s| s == "__tests__")))
        }
        _ => false,
    }
}

fn framework_of(resolution: &Resolution) -> Option<&str> {
    match resolution {
        Resolution::Found(suite)
        | Resolution::Unavailable {
            suite: Some(suite), ..
        } => suite.framework.as_deref(),
        _ => None,
    }
}

fn with_unrun(resolution: Resolution, unrun: Vec<Unrun>) -> Resolution {
    match resolution {
        Resolution::Found(suite) => Resolution::Found(Suite { unrun, ..suite }),
        Resolution::Unavailable {
            suite: Some(suite),
            reason,
            kind,
        } => Resolution::Unavailable {
            suite: Some(Suite { unrun, ..suite }),
            reason,
            kind,
        },
        other => other,
    }
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
        unrun: Vec::new(),
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
        kind: Unavailability::ToolMissing,
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
    fn why_a_suite_is_unavailable_is_a_kind_not_only_words() {
        let kind = |res: Resolution| match res {
            Resolution::Unavailable { kind, .. } => kind,
            other => panic!("expected an unavailable suite, got {other:?}"),
        };
        let (dir, files) = setup(&[("SKILL.md", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("tests/missing.sh".into()),
            ..SkillMeta::default()
        };
        assert_eq!(
            kind(resolve(&root, &root, &meta, &files)),
            Unavailability::Missing
        );
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("evil.sh"), "").expect("write");
        std::os::unix::fs::symlink(outside.path().join("evil.sh"), root.join("test.sh"))
            .expect("link");
        let escaping = resolve(&root, &root, &SkillMeta::default(), &["test.sh".to_owned()]);
        assert_eq!(kind(escaping), Unavailability::OutsideRepository);
        let (dir, files) = setup(&[("test.sh", "echo ok\n")]);
        let no_bash = resolve_on(
            &Fake::all().without_tool("bash"),
            dir.path(),
            dir.path(),
            &SkillMeta::default(),
            &files,
        );
        assert_eq!(kind(no_bash), Unavailability::ToolMissing);
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
    fn frameworks_found_beside_the_one_that_runs_are_named_with_their_files() {
        // A one-line passing pytest file beside a bats suite (issue #15 review): pytest runs,
        // and the bats file is named as not run.
        let (dir, files) = setup(&[
            ("tests/greet.bats", "@test \"greets\" { false; }\n"),
            (
                "tests/test_smoke.py",
                "def test_smoke():\n    assert True\n",
            ),
            ("scripts/greet.sh", ""),
        ]);
        let host = Fake::all().with_tool("bats");
        let resolution = detect(&host, &dir, &files);
        assert_eq!(
            resolution.tests_not_run().as_deref(),
            Some(
                "tests not run: tests/greet.bats (bats); the suite ran pytest; declare \
                 `test-suite` in SKILL.md to run them all"
            )
        );
        let suite = found(resolution);
        assert_eq!(suite.framework.as_deref(), Some("pytest"));
        assert_eq!(
            suite.unrun,
            vec![Unrun {
                framework: "bats".into(),
                files: vec!["tests/greet.bats".into()],
            }]
        );
        // Also when the suite that would run cannot.
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("python3"), &dir, &files));
        assert!(reason.starts_with("pytest suite found"), "{reason}");
        assert_eq!(
            detect(&Fake::all().without_tool("python3"), &dir, &files)
                .tests_not_run()
                .as_deref(),
            Some(
                "tests not run: tests/greet.bats (bats); the suite found is pytest; declare \
                 `test-suite` in SKILL.md to run them all"
            )
        );
        // A declared suite says what runs.
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("bats tests".into()),
            ..SkillMeta::default()
        };
        assert_eq!(
            resolve_on(&host, &root, &root, &meta, &files).tests_not_run(),
            None
        );

        let go: Vec<(String, &str)> = (0..5).map(|i| (format!("g{i}_test.go"), "")).collect();
        let mut many: Vec<(&str, &str)> = go.iter().map(|(f, t)| (f.as_str(), *t)).collect();
        many.extend([("Cargo.toml", ""), ("x.bats", "")]);
        let (dir, files) = setup(&many);
        assert_eq!(
            detect(&host, &dir, &files).tests_not_run().as_deref(),
            Some(
                "tests not run: g0_test.go, g1_test.go, g2_test.go and 2 more (go), Cargo.toml \
                 (cargo); the suite ran bats; declare `test-suite` in SKILL.md to run them all"
            )
        );
    }

    #[test]
    fn a_runner_that_runs_the_other_frameworks_files_leaves_none_out() {
        let node_test = "const test = require(\"node:test\");\ntest(\"a\", () => {});\n";
        /// The framework that runs, the skill's files, what is left out.
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], Option<&'a str>);
        let cases: &[Case] = &[
            // `npm test` running `node --test` runs node's files.
            (
                "node:test",
                &[
                    ("package.json", r#"{"scripts":{"test":"node --test"}}"#),
                    ("test/a.test.js", node_test),
                ],
                None,
            ),
            // jest runs `*.test.js`, not a script under `test/`.
            (
                "jest",
                &[
                    ("package.json", r#"{"scripts":{"test":"jest"}}"#),
                    ("a.test.js", node_test),
                ],
                None,
            ),
            (
                "jest",
                &[
                    ("package.json", r#"{"scripts":{"test":"jest"}}"#),
                    ("test/a.js", node_test),
                ],
                Some("test/a.js (node:test)"),
            ),
            // bun runs its own patterns only.
            (
                "bun",
                &[
                    ("bunfig.toml", ""),
                    ("a.test.js", node_test),
                    ("test/b.js", node_test),
                ],
                Some("test/b.js (node:test)"),
            ),
            // Another script: nobody knows what it runs.
            (
                "npm",
                &[
                    ("package.json", r#"{"scripts":{"test":"bash run.sh"}}"#),
                    ("tests/test_a.py", "def test_a():\n    pass\n"),
                ],
                Some("tests/test_a.py (pytest)"),
            ),
        ];
        for (framework, files, unrun) in cases {
            let (dir, names) = setup(files);
            crate::suite::testing::fake_bin(dir.path(), "node_modules/.bin/jest");
            let resolution = detect(&Fake::all().with_tool("bun"), &dir, &names);
            let reason = resolution.tests_not_run();
            assert_eq!(
                found(resolution).framework.as_deref(),
                Some(*framework),
                "{files:?}"
            );
            let expected = unrun.map(|u| {
                format!(
                    "tests not run: {u}; the suite ran {framework}; declare `test-suite` in \
                     SKILL.md to run them all"
                )
            });
            assert_eq!(reason, expected, "{files:?}");
        }
    }

    /// A framework and its files the suite does not run.
    type Left = (String, Vec<String>);

    /// The frameworks and files `resolution`'s suite does not run.
    fn unrun_of(resolution: &Resolution) -> Vec<Left> {
        let suite = match resolution {
            Resolution::Found(suite)
            | Resolution::Unavailable {
                suite: Some(suite), ..
            } => suite,
            other => panic!("expected a suite, got {other:?}"),
        };
        suite
            .unrun
            .iter()
            .map(|u| (u.framework.clone(), u.files.clone()))
            .collect()
    }

    fn unrun(framework: &str, files: &[&str]) -> Vec<Left> {
        vec![(framework.to_owned(), strings(files))]
    }

    const EDGE: &str =
        "const test = require(\"node:test\");\ntest(\"edge\", () => { throw 1; });\n";

    #[test]
    fn a_test_script_naming_its_node_files_leaves_the_others_out() {
        // Issue #15 review: `npm test` runs `node --test … tests/slugify.test.js`; a failing
        // `tests/edge.test.js` is never run.
        let named = "node --test --experimental-test-coverage --test-reporter=tap \
                     --test-reporter-destination=stdout --test-reporter=lcov \
                     --test-reporter-destination=$SKILLGATE_REPORT_DIR/lcov.info \
                     tests/slugify.test.js";
        // The test script, what it leaves out.
        let cases: &[(&str, &[&str])] = &[
            (named, &["tests/edge.test.js"]),
            ("node --test", &[]),
            ("node --test tests/", &[]),
            ("node --test 'tests/*.test.js'", &[]),
            ("node --test tests/slugify.test.js tests/edge.test.js", &[]),
            ("cd tests && node --test", &[]),
            (
                "node --test lib/",
                &["tests/slugify.test.js", "tests/edge.test.js"],
            ),
            // The script it runs says what runs.
            ("bash run.sh", &[]),
        ];
        for (script, left) in cases {
            let json = serde_json::json!({"scripts": {"test": script}});
            let (dir, files) = setup(&[
                ("package.json", &json.to_string()),
                ("run.sh", "node --test tests/\n"),
                ("tests/slugify.test.js", NODE_TEST),
                ("tests/edge.test.js", EDGE),
            ]);
            let resolution = detect(&Fake::all(), &dir, &files);
            assert_eq!(found(resolution.clone()).command, "npm test");
            let expected = if left.is_empty() {
                Vec::new()
            } else {
                unrun("node:test", left)
            };
            assert_eq!(unrun_of(&resolution), expected, "{script}");
        }
        let json = serde_json::json!({"scripts": {"test": named}});
        let (dir, files) = setup(&[
            ("package.json", &json.to_string()),
            ("tests/slugify.test.js", NODE_TEST),
            ("tests/edge.test.js", EDGE),
        ]);
        assert_eq!(
            detect(&Fake::all(), &dir, &files)
                .tests_not_run()
                .as_deref(),
            Some(
                "tests not run: tests/edge.test.js (node:test); the suite ran node:test; \
                 declare `test-suite` in SKILL.md to run them all"
            )
        );
    }

    #[test]
    fn every_file_pytest_would_collect_is_named_when_another_suite_runs() {
        // Issue #15 review: a collectable file that does not read as tests, beside a suite
        // that runs, was neither run nor named.
        let script = r#"{"scripts":{"test":"node --test tests/slugify.test.js"}}"#;
        let plugin = "def test_home(user_client):\n    assert user_client.get(\"/\").ok\n";
        let cli = "import argparse\n\ndef test_api(token, api_url):\n    pass\n";
        for (python, conftest) in [
            (plugin, None),
            (cli, None),
            (
                "def test_token_is_accepted(token):\n    assert token == \"expected\"\n",
                Some(
                    "import pytest\n\ndef _token():\n    return \"t0k\"\n\ntoken = \
                      pytest.fixture(_token, name=\"token\")\n",
                ),
            ),
        ] {
            let mut files = vec![
                ("package.json", script),
                ("tests/slugify.test.js", NODE_TEST),
                ("tests/test_api.py", python),
            ];
            files.extend(conftest.map(|c| ("tests/conftest.py", c)));
            let (dir, names) = setup(&files);
            let resolution = detect(&Fake::all(), &dir, &names);
            assert_eq!(
                found(resolution.clone()).framework.as_deref(),
                Some("node:test")
            );
            assert_eq!(
                unrun_of(&resolution),
                unrun("pytest", &["tests/test_api.py"]),
                "{python}"
            );
        }
        // Alone, a program named like a test is still no suite.
        let (dir, files) = setup(&[("scripts/test_api.py", cli)]);
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
        // Under a conftest, a test whose fixture comes from a plugin is pytest's to run.
        let (dir, files) = setup(&[
            ("tests/conftest.py", "import pytest\n"),
            ("tests/test_home.py", plugin),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("pytest"));
    }

    #[test]
    fn a_conventional_script_names_the_tests_it_does_not_run() {
        // Issue #15 review: `test.sh` runs node only; a failing `tests/test_slug.py` was never
        // run, and nothing said so.
        let node_only = "#!/usr/bin/env bash\nset -euo pipefail\ncd \"$(dirname \
                         \"${BASH_SOURCE[0]}\")\"\nnode --test --test-reporter=tap \\\n  \
                         tests/slugify.test.js || status=$?\n";
        // The script at `test.sh`, what it leaves out.
        let cases: &[(&str, Vec<Left>)] = &[
            // Nor the node file it does not name.
            (
                node_only,
                [
                    unrun("node:test", &["tests/edge.test.js"]),
                    unrun("pytest", &["tests/test_slug.py"]),
                ]
                .concat(),
            ),
            ("node --test\npython3 -m pytest -q\n", Vec::new()),
            ("bash tests/run_all.sh\n", Vec::new()),
            ("node --test\npython3 tests/test_slug.py\n", Vec::new()),
            ("npm test && pytest\n", Vec::new()),
            (
                "pytest\n",
                // The package's test script too, which it does not run either.
                unrun(
                    "node:test",
                    &[
                        "package.json",
                        "tests/slugify.test.js",
                        "tests/edge.test.js",
                    ],
                ),
            ),
        ];
        for (script, expected) in cases {
            let (dir, files) = setup(&[
                ("test.sh", script),
                ("tests/run_all.sh", "node --test tests/\npytest tests\n"),
                ("package.json", r#"{"scripts":{"test":"node --test"}}"#),
                ("tests/slugify.test.js", NODE_TEST),
                ("tests/edge.test.js", EDGE),
                ("tests/test_slug.py", "def test_slug():\n    assert False\n"),
            ]);
            let resolution = detect(&Fake::all(), &dir, &files);
            let suite = found(resolution.clone());
            assert_eq!(
                (suite.source, suite.command.as_str()),
                (SuiteSource::Conventional, "bash test.sh")
            );
            assert_eq!(unrun_of(&resolution), *expected, "{script}");
        }
        let (dir, files) = setup(&[
            ("tests/test.sh", node_only),
            ("tests/slugify.test.js", NODE_TEST),
            ("tests/test_slug.py", "def test_slug():\n    assert False\n"),
        ]);
        assert_eq!(
            detect(&Fake::all(), &dir, &files)
                .tests_not_run()
                .as_deref(),
            Some(
                "tests not run: tests/test_slug.py (pytest); the suite ran `bash tests/test.sh`; \
                 declare `test-suite` in SKILL.md to run them all"
            )
        );
        // Declared, the same script is the author's word: nothing is named as left out.
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("tests/test.sh".into()),
            ..SkillMeta::default()
        };
        assert_eq!(
            resolve_on(&Fake::all(), &root, &root, &meta, &files).tests_not_run(),
            None
        );
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
