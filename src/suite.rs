//! Which command tests a skill: the declared `test-suite`, a conventional `test.sh`, or a
//! framework found in the skill's files. First match wins. A detected framework is run with the
//! flags that make it write its report, and its coverage where it measures any, into
//! [`REPORT_DIR`].

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::skill::SkillMeta;

/// In a suite's arguments, stands for the directory its reports go to (`SKILLGATE_REPORT_DIR`).
pub const REPORT_DIR: &str = "{report_dir}";

/// Conventional suite scripts, in order.
pub const CONVENTIONAL: &[&str] = &["test.sh", "tests/test.sh", "scripts/test.sh"];

/// The most of a `package.json` or a Python file read to choose a framework.
const MAX_DETECT_BYTES: u64 = 1 << 20;

/// How long `python3` or `node` may take to answer what resolution asks of them.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// The Python modules resolution asks about; one `python3` run answers for all of them.
const PYTHON_MODULES: &[&str] = &["pytest", "pytest_cov"];

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

/// What resolution asks of the machine. Tests answer for it.
trait Host {
    /// `tool` is an executable on `PATH`.
    fn has_tool(&self, tool: &str) -> bool;
    /// `python3` finds `module`, one of [`PYTHON_MODULES`].
    fn has_python_module(&self, module: &str) -> bool;
    /// `node --version` as (major, minor).
    fn node_version(&self) -> Option<(u32, u32)>;
}

/// This machine. Python's modules and node's version are asked once per process: every skill
/// runs under the same interpreters.
struct Machine;

impl Host for Machine {
    fn has_tool(&self, tool: &str) -> bool {
        find_in_path(tool).is_some()
    }

    fn has_python_module(&self, module: &str) -> bool {
        static FOUND: OnceLock<Vec<String>> = OnceLock::new();
        FOUND
            .get_or_init(|| {
                let names: String = PYTHON_MODULES.iter().map(|m| format!("'{m}',")).collect();
                // `find_spec` locates a module without importing it: no plugin code runs.
                let script = format!(
                    "import importlib.util as u\nfor m in ({names}):\n    \
                     try: print(m if u.find_spec(m) else '')\n    \
                     except Exception: print('')\n"
                );
                probe("python3", &["-c", &script])
                    .map(|out| out.lines().map(str::to_owned).collect())
                    .unwrap_or_default()
            })
            .iter()
            .any(|m| m == module)
    }

    fn node_version(&self) -> Option<(u32, u32)> {
        static VERSION: OnceLock<Option<(u32, u32)>> = OnceLock::new();
        *VERSION.get_or_init(|| probe("node", &["--version"]).and_then(|v| parse_node_version(&v)))
    }
}

/// `v20.20.2` → (20, 20).
fn parse_node_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().strip_prefix('v')?.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The stdout of `program args`, run from `/` so that no checkout's files answer for the
/// machine; `None` when it cannot run, fails, or outlives [`PROBE_TIMEOUT`].
fn probe(program: &str, args: &[&str]) -> Option<String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    // The answer is a few lines, well under a pipe's buffer: waiting before reading is safe.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    status.success().then_some(out)
}

/// Resolve the suite of a skill at `dir` whose files (relative to `dir`) are `files`.
/// `repo` is the canonical repository root: a suite path resolving outside it is refused.
pub fn resolve(dir: &Path, repo: &Path, meta: &SkillMeta, files: &[String]) -> Resolution {
    resolve_on(&Machine, dir, repo, meta, files)
}

fn resolve_on(
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
    let (program, args): (&str, Vec<String>) =
        match Path::new(rel).extension().and_then(|e| e.to_str()) {
            Some("py") => ("python3", vec![rel.to_owned()]),
            Some("js" | "mjs" | "cjs") => ("node", vec![rel.to_owned()]),
            // `*.sh` and anything else: bash, so a missing executable bit is no failure.
            _ => ("bash", vec![rel.to_owned()]),
        };
    let suite = Suite {
        source,
        command: format!("{program} {rel}"),
        program: program.to_owned(),
        args,
        framework,
        path: Some(rel.to_owned()),
    };
    with_tool(host, suite, program)
}

/// A framework found in the skill's files, run the way its users run it plus the flags that
/// write its report (and coverage) into [`REPORT_DIR`].
fn detect_framework(host: &dyn Host, dir: &Path, repo: &Path, files: &[String]) -> Resolution {
    if files.iter().any(|f| f == "package.json")
        && let Some(package) = read_package(repo, &dir.join("package.json"))
        && let Some(plan) = node_plan(&package)
    {
        return node_suite(host, dir, repo, files, &package, plan);
    }
    if files.iter().any(|f| is_node_test_file(f)) {
        return node_test_suite(host);
    }
    let python: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| is_python_test_file(f))
        .collect();
    if !python.is_empty() {
        return python_suite(host, dir, repo, files, &python);
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

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_node_test_file(path: &str) -> bool {
    let name = file_name(path);
    [".test.js", ".test.mjs", ".test.cjs", "_test.js", ".spec.js"]
        .iter()
        .any(|s| name.ends_with(s))
}

fn is_python_test_file(path: &str) -> bool {
    let name = file_name(path);
    name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
}

/// A detected suite of `program args`.
fn detected(framework: &str, program: &str, args: &[&str]) -> Suite {
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

/// `program args…` as a person would type it in a shell where `SKILLGATE_REPORT_DIR` is set.
fn shown(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(shell_word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word for a shell: quoted when it needs it, [`REPORT_DIR`] as the variable, and an
/// assignment's value quoted apart so that it stays an assignment.
fn shell_word(word: &str) -> String {
    if let Some((name, value)) = word.split_once('=')
        && is_env_name(name)
    {
        return format!("{name}={}", shell_word(value));
    }
    if word.is_empty() {
        return "''".to_owned();
    }
    word.split(REPORT_DIR)
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join("\"$SKILLGATE_REPORT_DIR\"")
}

fn shell_quote(piece: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,@%+".contains(c);
    if piece.chars().all(plain) {
        Cow::Borrowed(piece)
    } else {
        Cow::Owned(format!("'{}'", piece.replace('\'', r"'\''")))
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| is_env_name(name))
}

// ---- Node: jest, mocha, vitest, node:test ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeRunner {
    Jest,
    Mocha,
    Vitest,
}

/// How many words after a flag are its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    One,
    /// Every word up to the next flag (yargs' `array` options).
    All,
}

/// Flags of jest's that ours set: the script's own are dropped so that two do not clash.
const JEST_OWNED: &[(&str, Takes)] = &[
    ("--json", Takes::Nothing),
    ("--outputFile", Takes::One),
    ("--output-file", Takes::One),
    ("--coverage", Takes::Nothing),
    ("--collectCoverage", Takes::Nothing),
    ("--collect-coverage", Takes::Nothing),
    ("--coverageReporters", Takes::All),
    ("--coverage-reporters", Takes::All),
    ("--coverageDirectory", Takes::One),
    ("--coverage-directory", Takes::One),
    // Watching never ends in CI.
    ("--watch", Takes::Nothing),
    ("--watchAll", Takes::Nothing),
    ("--watch-all", Takes::Nothing),
];

const MOCHA_OWNED: &[(&str, Takes)] = &[
    ("--reporter", Takes::One),
    ("-R", Takes::One),
    ("--reporter-option", Takes::One),
    ("--reporter-options", Takes::One),
    ("-O", Takes::One),
    ("--watch", Takes::Nothing),
    ("-w", Takes::Nothing),
];

/// A name ending in `.` stands for every dotted sub-option (`--outputFile.junit`).
const VITEST_OWNED: &[(&str, Takes)] = &[
    ("--reporter", Takes::One),
    ("--outputFile", Takes::One),
    ("--outputFile.", Takes::One),
    ("--watch", Takes::Nothing),
    ("-w", Takes::Nothing),
];

/// Owned too when we measure vitest's coverage.
const VITEST_COVERAGE_OWNED: &[(&str, Takes)] =
    &[("--coverage", Takes::Nothing), ("--coverage.", Takes::One)];

/// vitest's subcommands that are no plain test run: such a script keeps `npm test`.
const VITEST_OTHER_COMMANDS: &[&str] = &["bench", "related", "list", "init", "typecheck"];

impl NodeRunner {
    /// In the order a package naming several of them in its dependencies is run by.
    const ALL: [Self; 3] = [Self::Jest, Self::Mocha, Self::Vitest];

    fn name(self) -> &'static str {
        match self {
            Self::Jest => "jest",
            Self::Mocha => "mocha",
            Self::Vitest => "vitest",
        }
    }

    /// The runner a script word runs: `jest`, `node_modules/.bin/mocha`,
    /// `node_modules/jest/bin/jest.js`, `_mocha`.
    fn run_by(word: &str) -> Option<Self> {
        let name = file_name(word);
        let stem = [".js", ".mjs", ".cjs"]
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .unwrap_or(name);
        match stem {
            "jest" => Some(Self::Jest),
            "mocha" | "_mocha" => Some(Self::Mocha),
            "vitest" => Some(Self::Vitest),
            _ => None,
        }
    }

    /// The script's arguments to keep, or `None` when they ask for something else than a test
    /// run (`vitest bench`).
    fn script_args(self, args: &[String], coverage: Option<VitestCoverage>) -> Option<Vec<String>> {
        let mut args = args;
        let owned: Vec<(&str, Takes)> = match self {
            Self::Jest => JEST_OWNED.to_vec(),
            Self::Mocha => MOCHA_OWNED.to_vec(),
            Self::Vitest => {
                match args.first().map(String::as_str) {
                    // `run` is ours; `watch` and `dev` never end in CI.
                    Some("run" | "watch" | "dev") => args = &args[1..],
                    Some(other) if VITEST_OTHER_COMMANDS.contains(&other) => return None,
                    _ => {}
                }
                let mut owned = VITEST_OWNED.to_vec();
                if coverage.is_some() {
                    owned.extend_from_slice(VITEST_COVERAGE_OWNED);
                }
                owned
            }
        };
        Some(drop_flags(args, &owned))
    }

    /// The flags that write the report (and coverage) into [`REPORT_DIR`].
    fn report_args(self, coverage: Option<VitestCoverage>) -> Vec<String> {
        let args: &[&str] = match self {
            // One coverage format only: every coverage file in the directory is added up, so
            // lcov beside the summary would count each line twice.
            Self::Jest => &[
                "--ci",
                "--json",
                "--outputFile={report_dir}/jest.json",
                "--coverage",
                "--coverageReporters=json-summary",
                "--coverageDirectory={report_dir}/coverage",
            ],
            // mocha ≥ 9.1 writes the document to `output`; an older one prints it, and stdout
            // is read too.
            Self::Mocha => &[
                "--reporter",
                "json",
                "--reporter-option",
                "output={report_dir}/mocha.json",
            ],
            // `default` keeps the log readable; only `junit` writes to `outputFile`.
            Self::Vitest => &[
                "--reporter=default",
                "--reporter=junit",
                "--outputFile={report_dir}/vitest.xml",
            ],
        };
        let mut args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
        if let Some(coverage) = coverage {
            args.extend(
                [
                    "--coverage.enabled=true",
                    "--coverage.reporter=json-summary",
                    "--coverage.reportsDirectory={report_dir}/coverage",
                    // Like jest's: a run with a failing test still says what it covered.
                    "--coverage.reportOnFailure=true",
                ]
                .map(str::to_owned),
            );
            // Without a provider vitest uses v8, which is not there when only istanbul is.
            if coverage == VitestCoverage::Istanbul {
                args.push("--coverage.provider=istanbul".to_owned());
            }
        }
        args
    }
}

/// The coverage provider a vitest package depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VitestCoverage {
    V8,
    Istanbul,
}

impl VitestCoverage {
    fn of(package: &Package) -> Option<Self> {
        let has = |name: &str| package.deps.iter().any(|d| d == name);
        if has("@vitest/coverage-v8") {
            Some(Self::V8)
        } else if has("@vitest/coverage-istanbul") {
            Some(Self::Istanbul)
        } else {
            None
        }
    }
}

/// `args` without the flags in `owned` and their values.
fn drop_flags(args: &[String], owned: &[(&str, Takes)]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let flag = arg.split_once('=').map_or(arg.as_str(), |(f, _)| f);
        let matched = owned
            .iter()
            .find(|(name, _)| flag == *name || (name.ends_with('.') && flag.starts_with(name)));
        let Some(&(_, takes)) = matched else {
            kept.push(arg.clone());
            continue;
        };
        if arg.contains('=') {
            continue;
        }
        let is_value = |a: &String| !a.starts_with('-');
        match takes {
            Takes::Nothing => {}
            Takes::One => {
                if args.get(i).is_some_and(is_value) {
                    i += 1;
                }
            }
            Takes::All => {
                while args.get(i).is_some_and(is_value) {
                    i += 1;
                }
            }
        }
    }
    kept
}

/// What a `package.json` says about testing.
#[derive(Debug, Default)]
struct Package {
    /// `scripts.test`, unless it is npm's placeholder.
    test: Option<String>,
    /// `scripts.pretest`, which `npm test` runs first (a build, often).
    pretest: bool,
    /// The names in `dependencies` and `devDependencies`.
    deps: Vec<String>,
}

fn read_package(repo: &Path, path: &Path) -> Option<Package> {
    let bytes = crate::untrusted::read_file(repo, path, MAX_DETECT_BYTES).ok()?;
    let json = serde_json::from_slice::<serde_json::Value>(&bytes).ok()?;
    let test = json
        .pointer("/scripts/test")
        .and_then(|t| t.as_str())
        .filter(|t| !t.contains("no test specified") && !t.trim().is_empty())
        .map(str::to_owned);
    let pretest = json.pointer("/scripts/pretest").is_some();
    let deps = ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|key| json.get(key).and_then(|d| d.as_object()))
        .flat_map(|deps| deps.keys().cloned())
        .collect();
    Some(Package {
        test,
        pretest,
        deps,
    })
}

/// How a package's tests run.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NodePlan {
    /// The runner's own binary: the script's `NAME=value` assignments, then its arguments.
    Direct {
        runner: NodeRunner,
        env: Vec<String>,
        args: Vec<String>,
    },
    /// `npm test`: the script is not one runner's command the binary alone can stand for.
    NpmTest { framework: &'static str },
}

/// A test script that runs jest, mocha or vitest first runs that runner; any other script, or
/// one with a `pretest` to run first, runs as `npm test`; without a script, a runner among the
/// dependencies runs.
fn node_plan(package: &Package) -> Option<NodePlan> {
    let Some(script) = &package.test else {
        return NodeRunner::ALL
            .into_iter()
            .find(|r| package.deps.iter().any(|d| d == r.name()))
            .map(|runner| NodePlan::Direct {
                runner,
                env: Vec::new(),
                args: Vec::new(),
            });
    };
    let npm_test = NodePlan::NpmTest {
        framework: framework_named(script),
    };
    let Some(words) = first_command(script).filter(|_| !package.pretest) else {
        return Some(npm_test);
    };
    let (env, rest) = strip_launchers(&words);
    let Some((program, args)) = rest.split_first() else {
        return Some(npm_test);
    };
    let Some(runner) = NodeRunner::run_by(program) else {
        return Some(npm_test);
    };
    match runner.script_args(args, VitestCoverage::of(package)) {
        Some(args) => Some(NodePlan::Direct { runner, env, args }),
        None => Some(npm_test),
    }
}

/// The framework a script runs somewhere, for a suite that runs it through `npm test`.
fn framework_named(script: &str) -> &'static str {
    let words: Vec<&str> = script
        .split(|c: char| c.is_whitespace() || "&|;()'\"".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(runner) = words.iter().find_map(|w| NodeRunner::run_by(w)) {
        return runner.name();
    }
    if words.contains(&"--test") && words.iter().any(|w| file_name(w) == "node") {
        "node:test"
    } else {
        "npm"
    }
}

/// The words of a script's first command (up to `&&`, `||`, `;`, `|` or `&`), unquoted; `None`
/// when that command needs a shell: expansions, redirections, subshells, an open quote.
fn first_command(script: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = script.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            '&' | '|' | ';' | '\n' => break,
            '$' | '`' | '<' | '>' | '(' | ')' => return None,
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// The assignments before a script's program, and the words from the program on, past the
/// launchers that only find it: `cross-env`, `npx`, `yarn`, `pnpm exec`.
fn strip_launchers(words: &[String]) -> (Vec<String>, &[String]) {
    let mut env = Vec::new();
    let mut rest = words;
    while let Some((first, after)) = rest.split_first() {
        if is_assignment(first) {
            env.push(first.clone());
            rest = after;
        } else if first == "cross-env" {
            rest = after;
        } else if first == "npx" {
            rest = after;
            // npx's own flags; `--package` names what to install, not what to run.
            while let Some((flag, after)) = rest.split_first()
                && flag.starts_with('-')
            {
                rest = if matches!(flag.as_str(), "-p" | "--package") {
                    after.get(1..).unwrap_or_default()
                } else {
                    after
                };
            }
        } else if first == "yarn" || first == "pnpm" {
            rest = match after.first().map(String::as_str) {
                Some("run" | "exec") => &after[1..],
                _ => after,
            };
        } else {
            break;
        }
    }
    (env, rest)
}

/// `node_modules/.bin/<name>` in the skill, or else in the nearest enclosing directory inside
/// the repository that has one (npm workspaces hoist binaries to the root, and `npm test`
/// finds them there too): its absolute path, and its path relative to the skill.
fn find_node_bin(dir: &Path, repo: &Path, name: &str) -> Option<(PathBuf, String)> {
    use std::os::unix::fs::PermissionsExt;
    let mut up = String::new();
    for ancestor in dir.ancestors().take_while(|a| a.starts_with(repo)) {
        let path = ancestor.join("node_modules/.bin").join(name);
        if path
            .metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        {
            return Some((path, format!("{up}node_modules/.bin/{name}")));
        }
        up.push_str("../");
    }
    None
}

/// The command that fills `node_modules`, by the lockfile the skill has.
fn install_command(files: &[String]) -> &'static str {
    let has = |name: &str| files.iter().any(|f| f == name);
    if has("pnpm-lock.yaml") {
        "pnpm install --frozen-lockfile"
    } else if has("yarn.lock") {
        "yarn install --frozen-lockfile"
    } else if has("package-lock.json") || has("npm-shrinkwrap.json") {
        "npm ci"
    } else {
        "npm install"
    }
}

fn node_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    files: &[String],
    package: &Package,
    plan: NodePlan,
) -> Resolution {
    let (runner, env, mut args) = match plan {
        NodePlan::NpmTest { framework } => {
            return with_tool(host, detected(framework, "npm", &["test"]), "npm");
        }
        NodePlan::Direct { runner, env, args } => (runner, env, args),
    };
    // Straight to the binary, not through npm: npm would pass our flags to the script's last
    // command, not necessarily to the runner.
    if runner == NodeRunner::Vitest {
        args.insert(0, "run".to_owned());
    }
    args.extend(runner.report_args(VitestCoverage::of(package)));
    let name = runner.name();
    let bin = find_node_bin(dir, repo, name);
    let (path, rel) = bin.clone().unwrap_or_else(|| {
        let rel = format!("node_modules/.bin/{name}");
        (dir.join(&rel), rel)
    });
    // The script's assignments (`NODE_OPTIONS=--experimental-vm-modules`) are part of how its
    // tests run: `env` sets them.
    let words = |program: String| -> Vec<String> {
        env.iter()
            .cloned()
            .chain(std::iter::once(program))
            .chain(args.iter().cloned())
            .collect()
    };
    let command = words(rel)
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ");
    // An absolute program: a relative one with a working directory is resolved differently
    // by different platforms.
    let path = path.to_string_lossy().into_owned();
    let (program, args) = if env.is_empty() {
        (path, args)
    } else {
        ("env".to_owned(), words(path))
    };
    let suite = Suite {
        source: SuiteSource::Detected,
        command,
        program,
        args,
        framework: Some(name.to_owned()),
        path: None,
    };
    if !host.has_tool("node") {
        return unavailable(suite, "node");
    }
    if bin.is_none() {
        let reason = format!(
            "{name} suite found, but `node_modules/.bin/{name}` is missing (help: run `{}` in \
             the skill before the gate)",
            install_command(files)
        );
        return Resolution::Unavailable {
            suite: Some(suite),
            reason,
        };
    }
    Resolution::Found(suite)
}

/// node's own runner. Its reporter flags exist since node 18.15 (and 19.6); an older node runs
/// bare and prints TAP on stdout, which is read too. An unknown version gets the flags.
fn node_test_suite(host: &dyn Host) -> Resolution {
    let reporters = host
        .node_version()
        .is_none_or(|(major, minor)| match major {
            18 => minor >= 15,
            19 => minor >= 6,
            major => major >= 20,
        });
    let args: &[&str] = if reporters {
        &[
            "--test",
            "--test-reporter=tap",
            "--test-reporter-destination={report_dir}/node-test.tap",
            // The spec reporter keeps the log readable.
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
        ]
    } else {
        &["--test"]
    };
    with_tool(host, detected("node:test", "node", args), "node")
}

// ---- Python: pytest, unittest ----

fn python_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    files: &[String],
    tests: &[&str],
) -> Resolution {
    if !uses_pytest(dir, repo, files, tests) {
        // unittest writes no report file, and coverage.py needs a second command to write
        // one: its verbose text on stderr is the report.
        let args = unittest_args(files, tests);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        return with_tool(host, detected("unittest", "python3", &args), "python3");
    }
    let python = host.has_tool("python3");
    let mut args = vec![
        "-m",
        "pytest",
        "--junitxml={report_dir}/pytest.xml",
        // xunit1 keeps each case's file and line.
        "-o",
        "junit_family=xunit1",
    ];
    if python && host.has_python_module("pytest_cov") {
        args.extend(["--cov=.", "--cov-report=json:{report_dir}/coverage.json"]);
    }
    let suite = detected("pytest", "python3", &args);
    if !python {
        return unavailable(suite, "python3");
    }
    if !host.has_python_module("pytest") {
        return Resolution::Unavailable {
            suite: Some(suite),
            reason: "pytest suite found, but the `pytest` module is not installed for python3"
                .to_owned(),
        };
    }
    Resolution::Found(suite)
}

/// pytest when the skill configures it or a test file needs it: one imports pytest, or has no
/// `TestCase` (plain `test_` functions, which unittest does not collect). unittest when every
/// test file is a unittest module.
fn uses_pytest(dir: &Path, repo: &Path, files: &[String], tests: &[&str]) -> bool {
    let has_name = |name: &str| files.iter().any(|f| file_name(f) == name);
    let says = |file: &str, section: &str| {
        files.iter().any(|f| f == file)
            && read_text(repo, &dir.join(file)).is_some_and(|t| t.contains(section))
    };
    if has_name("conftest.py")
        || has_name("pytest.ini")
        || says("pyproject.toml", "[tool.pytest")
        || says("setup.cfg", "[tool:pytest]")
        || says("tox.ini", "[pytest]")
    {
        return true;
    }
    tests.iter().any(|test| {
        // An unreadable file says nothing either way.
        read_text(repo, &dir.join(test)).is_some_and(|text| {
            let imports_pytest = text
                .lines()
                .map(str::trim_start)
                .any(|line| line.starts_with("import pytest") || line.starts_with("from pytest"));
            // `TestCase`, not `import unittest`: pytest suites import `unittest.mock` too.
            imports_pytest || !text.contains("TestCase")
        })
    })
}

fn read_text(repo: &Path, path: &Path) -> Option<String> {
    let bytes = crate::untrusted::read_file(repo, path, MAX_DETECT_BYTES).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `-m unittest discover -v`, told where the tests are when it would not find them: it only
/// descends into packages, and only matches `test*.py`.
fn unittest_args(files: &[String], tests: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["-m", "unittest", "discover", "-v"]
        .map(str::to_owned)
        .to_vec();
    let parents: Vec<Option<&str>> = tests
        .iter()
        .map(|t| t.rsplit_once('/').map(|(parent, _)| parent))
        .collect();
    if let Some(Some(parent)) = parents.first()
        && !parent.contains('/')
        && parents.iter().all(|p| p == &Some(*parent))
        && !files.iter().any(|f| *f == format!("{parent}/__init__.py"))
    {
        args.extend(["-s".to_owned(), (*parent).to_owned()]);
    }
    if !tests.iter().any(|t| file_name(t).starts_with("test")) {
        args.extend(["-p".to_owned(), "*_test.py".to_owned()]);
    }
    args
}

fn with_tool(host: &dyn Host, suite: Suite, tool: &str) -> Resolution {
    if host.has_tool(tool) {
        Resolution::Found(suite)
    } else {
        unavailable(suite, tool)
    }
}

fn unavailable(suite: Suite, tool: &str) -> Resolution {
    let reason = match &suite.framework {
        Some(framework) => format!("{framework} suite found, but `{tool}` is not installed"),
        None => format!("test suite needs `{tool}`, which is not installed"),
    };
    Resolution::Unavailable {
        suite: Some(suite),
        reason,
    }
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

    fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, body) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, body).expect("write");
        }
        let names = files.iter().map(|(p, _)| (*p).to_owned()).collect();
        (dir, names)
    }

    /// An executable stand-in for an installed binary (`node_modules/.bin/jest`).
    fn fake_bin(root: &Path, rel: &str) {
        use std::os::unix::fs::PermissionsExt;
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    fn found(res: Resolution) -> Suite {
        match res {
            Resolution::Found(suite) => suite,
            other => panic!("expected a suite, got {other:?}"),
        }
    }

    fn unavailable_reason(res: Resolution) -> (Suite, String) {
        match res {
            Resolution::Unavailable {
                suite: Some(suite),
                reason,
            } => (suite, reason),
            other => panic!("expected an unavailable suite, got {other:?}"),
        }
    }

    /// A machine that has what the test says, whatever this one has.
    struct Fake {
        tools: Vec<&'static str>,
        modules: Vec<&'static str>,
        node: Option<(u32, u32)>,
    }

    impl Fake {
        fn all() -> Self {
            Self {
                tools: vec!["bash", "node", "npm", "python3", "go", "cargo"],
                modules: vec!["pytest"],
                node: Some((20, 20)),
            }
        }
        fn without_tool(mut self, tool: &str) -> Self {
            self.tools.retain(|t| *t != tool);
            self
        }
    }

    impl Host for Fake {
        fn has_tool(&self, tool: &str) -> bool {
            self.tools.contains(&tool)
        }
        fn has_python_module(&self, module: &str) -> bool {
            assert!(PYTHON_MODULES.contains(&module), "{module} is not probed");
            self.modules.contains(&module)
        }
        fn node_version(&self) -> Option<(u32, u32)> {
            self.node
        }
    }

    /// Resolve the skill at the root of `dir` (also the repository) on `host`.
    fn detect(host: &Fake, dir: &tempfile::TempDir, files: &[String]) -> Resolution {
        let root = dir.path().canonicalize().expect("canon");
        resolve_on(host, &root, &root, &SkillMeta::default(), files)
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|&w| w.to_owned()).collect()
    }

    fn package(json: &str) -> Package {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canon");
        std::fs::write(root.join("package.json"), json).expect("write");
        read_package(&root, &root.join("package.json")).expect("package")
    }

    /// A package.json with `script` as its test script and `dev` as its devDependencies.
    fn script_json(script: &str, dev: &[&str]) -> String {
        let dev: serde_json::Map<String, serde_json::Value> =
            dev.iter().map(|d| ((*d).to_owned(), "*".into())).collect();
        serde_json::json!({"scripts": {"test": script}, "devDependencies": dev}).to_string()
    }

    const JEST_REPORT: &[&str] = &[
        "--ci",
        "--json",
        "--outputFile={report_dir}/jest.json",
        "--coverage",
        "--coverageReporters=json-summary",
        "--coverageDirectory={report_dir}/coverage",
    ];

    #[test]
    fn declared_wins_then_conventional_then_framework() {
        let (dir, files) = setup(&[("test.sh", ""), ("run_tests.sh", ""), ("x.test.js", "")]);
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
        assert_eq!(reason, "test suite needs `bash`, which is not installed");
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
    fn jest_script_runs_the_binary_with_its_arguments_and_the_report_flags() {
        let (dir, files) = setup(&[
            (
                "package.json",
                &script_json("jest --runInBand tests/", &["jest"]),
            ),
            ("tests/a.test.js", ""),
        ]);
        fake_bin(dir.path(), "node_modules/.bin/jest");
        let root = dir.path().canonicalize().expect("canon");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("jest"));
        assert_eq!(
            suite.program,
            root.join("node_modules/.bin/jest").to_string_lossy()
        );
        let mut expected = strings(&["--runInBand", "tests/"]);
        expected.extend(strings(JEST_REPORT));
        assert_eq!(suite.args, expected);
        assert_eq!(
            suite.command,
            "node_modules/.bin/jest --runInBand tests/ --ci --json \
             --outputFile=\"$SKILLGATE_REPORT_DIR\"/jest.json --coverage \
             --coverageReporters=json-summary \
             --coverageDirectory=\"$SKILLGATE_REPORT_DIR\"/coverage"
        );
    }

    #[test]
    fn jest_without_node_modules_or_node_is_unavailable_naming_what_is_missing() {
        let (dir, files) = setup(&[
            ("package.json", r#"{"scripts":{"test":"jest"}}"#),
            ("package-lock.json", "{}"),
        ]);
        let root = dir.path().canonicalize().expect("canon");
        let (suite, reason) = unavailable_reason(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            reason,
            "jest suite found, but `node_modules/.bin/jest` is missing (help: run `npm ci` in \
             the skill before the gate)"
        );
        assert_eq!(
            suite.program,
            root.join("node_modules/.bin/jest").to_string_lossy()
        );
        assert_eq!(suite.args, strings(JEST_REPORT));

        let (dir, files) = setup(&[
            ("package.json", r#"{"scripts":{"test":"npx mocha"}}"#),
            ("yarn.lock", ""),
        ]);
        let (_, reason) = unavailable_reason(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            reason,
            "mocha suite found, but `node_modules/.bin/mocha` is missing (help: run `yarn \
             install --frozen-lockfile` in the skill before the gate)"
        );

        fake_bin(dir.path(), "node_modules/.bin/mocha");
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("node"), &dir, &files));
        assert_eq!(reason, "mocha suite found, but `node` is not installed");
    }

    #[test]
    fn a_binary_hoisted_to_an_enclosing_directory_is_used() {
        let (dir, files) = setup(&[
            (
                "skills/a/package.json",
                r#"{"devDependencies":{"jest":"*"}}"#,
            ),
            ("skills/a/sum.test.js", ""),
        ]);
        fake_bin(dir.path(), "node_modules/.bin/jest");
        let root = dir.path().canonicalize().expect("canon");
        let skill = root.join("skills/a");
        let files: Vec<String> = files
            .iter()
            .map(|f| f.trim_start_matches("skills/a/").to_owned())
            .collect();
        let suite = found(resolve_on(
            &Fake::all(),
            &skill,
            &root,
            &SkillMeta::default(),
            &files,
        ));
        assert_eq!(
            suite.program,
            root.join("node_modules/.bin/jest").to_string_lossy()
        );
        assert!(
            suite
                .command
                .starts_with("../../node_modules/.bin/jest --ci --json "),
            "{}",
            suite.command
        );
        // Nothing above the repository is looked at.
        let (_, reason) = unavailable_reason(resolve_on(
            &Fake::all(),
            &skill,
            &skill,
            &SkillMeta::default(),
            &files,
        ));
        assert!(
            reason.contains("`node_modules/.bin/jest` is missing"),
            "{reason}"
        );
    }

    #[test]
    fn script_assignments_run_through_env_and_owned_flags_are_dropped() {
        let (dir, files) = setup(&[(
            "package.json",
            &script_json(
                "cross-env NODE_OPTIONS=--experimental-vm-modules npx --no-install jest \
                 --watchAll=false --coverageReporters text lcov --outputFile out.json -i \
                 && eslint .",
                &[],
            ),
        )]);
        fake_bin(dir.path(), "node_modules/.bin/jest");
        let root = dir.path().canonicalize().expect("canon");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.program, "env");
        let mut expected = strings(&["NODE_OPTIONS=--experimental-vm-modules"]);
        expected.push(root.join("node_modules/.bin/jest").to_string_lossy().into());
        expected.push("-i".to_owned());
        expected.extend(strings(JEST_REPORT));
        assert_eq!(suite.args, expected);
        assert!(
            suite.command.starts_with(
                "NODE_OPTIONS=--experimental-vm-modules node_modules/.bin/jest -i --ci "
            ),
            "{}",
            suite.command
        );
    }

    #[test]
    fn mocha_from_a_dependency_or_a_script() {
        const MOCHA_REPORT: &[&str] = &[
            "--reporter",
            "json",
            "--reporter-option",
            "output={report_dir}/mocha.json",
        ];
        let (dir, files) = setup(&[(
            "package.json",
            &script_json("echo \"Error: no test specified\" && exit 1", &["mocha"]),
        )]);
        fake_bin(dir.path(), "node_modules/.bin/mocha");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("mocha"));
        assert_eq!(suite.args, strings(MOCHA_REPORT));
        assert_eq!(
            suite.command,
            "node_modules/.bin/mocha --reporter json --reporter-option \
             output=\"$SKILLGATE_REPORT_DIR\"/mocha.json"
        );

        let (dir, files) = setup(&[(
            "package.json",
            &script_json(
                "mocha -R spec 'test/**/*.spec.js' --timeout 5000 --reporter-options foo=bar",
                &[],
            ),
        )]);
        fake_bin(dir.path(), "node_modules/.bin/mocha");
        let suite = found(detect(&Fake::all(), &dir, &files));
        let mut expected = strings(&["test/**/*.spec.js", "--timeout", "5000"]);
        expected.extend(strings(MOCHA_REPORT));
        assert_eq!(suite.args, expected);
        assert!(
            suite
                .command
                .starts_with("node_modules/.bin/mocha 'test/**/*.spec.js' --timeout 5000 "),
            "{}",
            suite.command
        );
    }

    #[test]
    fn vitest_runs_once_with_junit_and_coverage_only_when_a_provider_is_installed() {
        let (dir, files) = setup(&[(
            "package.json",
            r#"{"scripts":{"test":"vitest"},"devDependencies":{"vitest":"^3"}}"#,
        )]);
        fake_bin(dir.path(), "node_modules/.bin/vitest");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("vitest"));
        assert_eq!(
            suite.args,
            strings(&[
                "run",
                "--reporter=default",
                "--reporter=junit",
                "--outputFile={report_dir}/vitest.xml"
            ])
        );

        let (dir, files) = setup(&[(
            "package.json",
            r#"{"scripts":{"test":"vitest run src --coverage --reporter verbose"},
                "devDependencies":{"vitest":"^3","@vitest/coverage-v8":"^3"}}"#,
        )]);
        fake_bin(dir.path(), "node_modules/.bin/vitest");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            suite.args,
            strings(&[
                "run",
                "src",
                "--reporter=default",
                "--reporter=junit",
                "--outputFile={report_dir}/vitest.xml",
                "--coverage.enabled=true",
                "--coverage.reporter=json-summary",
                "--coverage.reportsDirectory={report_dir}/coverage",
                "--coverage.reportOnFailure=true",
            ])
        );

        let (dir, files) = setup(&[(
            "package.json",
            r#"{"devDependencies":{"vitest":"^3","@vitest/coverage-istanbul":"^3"}}"#,
        )]);
        fake_bin(dir.path(), "node_modules/.bin/vitest");
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            suite.args.last().map(String::as_str),
            Some("--coverage.provider=istanbul")
        );
    }

    #[test]
    fn other_scripts_keep_npm_test_and_name_what_they_run() {
        let cases = [
            ("bash test.sh", "npm"),
            ("node --test tests/", "node:test"),
            ("tsc && jest", "jest"),
            ("jest $(cat tests.txt)", "jest"),
            ("vitest bench", "vitest"),
            (
                "node --experimental-vm-modules node_modules/jest/bin/jest.js",
                "jest",
            ),
            ("npm run build && mocha", "mocha"),
        ];
        for (script, framework) in cases {
            let json =
                serde_json::json!({"scripts": {"test": script}, "devDependencies": {"jest": "*"}});
            let (dir, files) = setup(&[("package.json", &json.to_string())]);
            let suite = found(detect(&Fake::all(), &dir, &files));
            assert_eq!(
                (
                    suite.program.as_str(),
                    suite.args.clone(),
                    suite.framework.as_deref()
                ),
                ("npm", strings(&["test"]), Some(framework)),
                "{script}"
            );
            assert_eq!(suite.command, "npm test");
        }
        let (dir, files) = setup(&[(
            "package.json",
            r#"{"scripts":{"test":"jest","pretest":"tsc"}}"#,
        )]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            (suite.command.as_str(), suite.framework.as_deref()),
            ("npm test", Some("jest"))
        );
        let (dir, files) = setup(&[("package.json", r#"{"scripts":{"test":"bash t.sh"}}"#)]);
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("npm"), &dir, &files));
        assert_eq!(reason, "npm suite found, but `npm` is not installed");
    }

    #[test]
    fn a_package_without_tests_leaves_detection_to_the_files() {
        let (dir, files) = setup(&[
            ("package.json", r#"{"dependencies":{"left-pad":"1"}}"#),
            ("a.test.mjs", ""),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("node:test"));
    }

    #[test]
    fn node_test_writes_tap_when_node_can() {
        let (dir, files) = setup(&[("tests/slug.test.js", "")]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.program, "node");
        let full = strings(&[
            "--test",
            "--test-reporter=tap",
            "--test-reporter-destination={report_dir}/node-test.tap",
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
        ]);
        assert_eq!(suite.args, full);
        assert_eq!(
            suite.command,
            "node --test --test-reporter=tap \
             --test-reporter-destination=\"$SKILLGATE_REPORT_DIR\"/node-test.tap \
             --test-reporter=spec --test-reporter-destination=stdout"
        );
        for (version, args) in [
            (Some((18, 14)), strings(&["--test"])),
            (Some((18, 15)), full.clone()),
            (Some((19, 5)), strings(&["--test"])),
            (Some((22, 0)), full.clone()),
            (None, full.clone()),
        ] {
            let host = Fake {
                node: version,
                ..Fake::all()
            };
            assert_eq!(found(detect(&host, &dir, &files)).args, args, "{version:?}");
        }
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("node"), &dir, &files));
        assert_eq!(reason, "node:test suite found, but `node` is not installed");
    }

    #[test]
    fn pytest_writes_junit_and_coverage_when_pytest_cov_is_there() {
        let (dir, files) = setup(&[("tests/test_x.py", ""), ("conftest.py", "")]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("pytest"));
        assert_eq!(suite.program, "python3");
        let junit = strings(&[
            "-m",
            "pytest",
            "--junitxml={report_dir}/pytest.xml",
            "-o",
            "junit_family=xunit1",
        ]);
        assert_eq!(suite.args, junit);

        let host = Fake {
            modules: vec!["pytest", "pytest_cov"],
            ..Fake::all()
        };
        let suite = found(detect(&host, &dir, &files));
        let mut with_cov = junit.clone();
        with_cov.extend(strings(&[
            "--cov=.",
            "--cov-report=json:{report_dir}/coverage.json",
        ]));
        assert_eq!(suite.args, with_cov);
        assert_eq!(
            suite.command,
            "python3 -m pytest --junitxml=\"$SKILLGATE_REPORT_DIR\"/pytest.xml -o \
             junit_family=xunit1 --cov=. --cov-report=json:\"$SKILLGATE_REPORT_DIR\"/coverage.json"
        );

        let host = Fake {
            modules: vec![],
            ..Fake::all()
        };
        let (suite, reason) = unavailable_reason(detect(&host, &dir, &files));
        assert_eq!(
            reason,
            "pytest suite found, but the `pytest` module is not installed for python3"
        );
        assert_eq!(suite.args, junit);
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("python3"), &dir, &files));
        assert_eq!(reason, "pytest suite found, but `python3` is not installed");
    }

    #[test]
    fn pytest_or_unittest_by_what_the_tests_are() {
        let unittest_case =
            "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self): pass\n";
        let pytest_style = "from unittest import mock\n\ndef test_a():\n    assert mock\n";
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("test_a.py", unittest_case)], "unittest"),
            (
                &[("test_a.py", unittest_case), ("test_b.py", pytest_style)],
                "pytest",
            ),
            (
                &[("test_a.py", "import pytest\nclass TestCase: ...\n")],
                "pytest",
            ),
            (
                &[("test_a.py", unittest_case), ("pytest.ini", "")],
                "pytest",
            ),
            (
                &[
                    ("test_a.py", unittest_case),
                    ("pyproject.toml", "[tool.pytest.ini_options]\n"),
                ],
                "pytest",
            ),
            (
                &[
                    ("test_a.py", unittest_case),
                    ("pyproject.toml", "[project]\n"),
                ],
                "unittest",
            ),
            (
                &[
                    ("test_a.py", unittest_case),
                    ("setup.cfg", "[tool:pytest]\n"),
                ],
                "pytest",
            ),
            (
                &[("test_a.py", unittest_case), ("tox.ini", "[pytest]\n")],
                "pytest",
            ),
        ];
        for (files, framework) in cases {
            let (dir, names) = setup(files);
            let suite = found(detect(&Fake::all(), &dir, &names));
            assert_eq!(suite.framework.as_deref(), Some(*framework), "{files:?}");
        }
    }

    #[test]
    fn unittest_is_told_where_its_tests_are() {
        let case = "import unittest\nclass T(unittest.TestCase): pass\n";
        let cases: &[(&[&str], &[&str])] = &[
            (&["test_a.py", "tests/test_b.py"], &[]),
            (&["tests/test_a.py", "tests/test_b.py"], &["-s", "tests"]),
            (&["tests/__init__.py", "tests/test_a.py"], &[]),
            (&["tests/test_a.py", "more/test_b.py"], &[]),
            (&["tests/unit/test_a.py"], &[]),
            (&["a_test.py"], &["-p", "*_test.py"]),
            (&["tests/a_test.py"], &["-s", "tests", "-p", "*_test.py"]),
        ];
        for (paths, extra) in cases {
            let files: Vec<(&str, &str)> = paths.iter().map(|p| (*p, case)).collect();
            let (dir, names) = setup(&files);
            let suite = found(detect(&Fake::all(), &dir, &names));
            let mut expected = strings(&["-m", "unittest", "discover", "-v"]);
            expected.extend(strings(extra));
            assert_eq!(suite.framework.as_deref(), Some("unittest"), "{paths:?}");
            assert_eq!(suite.args, expected, "{paths:?}");
        }
        let (dir, names) = setup(&[("test_a.py", case)]);
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("python3"), &dir, &names));
        assert_eq!(
            reason,
            "unittest suite found, but `python3` is not installed"
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
        assert_eq!(reason, "go suite found, but `go` is not installed");

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
        assert_eq!(reason, "cargo suite found, but `cargo` is not installed");

        let (dir, files) = setup(&[("README.md", "")]);
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
    }

    #[test]
    fn a_package_json_outside_the_repository_is_not_read() {
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            outside.path().join("package.json"),
            r#"{"scripts":{"test":"jest"}}"#,
        )
        .expect("write");
        let (dir, files) = setup(&[]);
        std::os::unix::fs::symlink(
            outside.path().join("package.json"),
            dir.path().join("package.json"),
        )
        .expect("symlink");
        let files: Vec<String> = files
            .into_iter()
            .chain(["package.json".to_owned()])
            .collect();
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
    }

    #[test]
    fn first_command_words() {
        let words = |s: &str| first_command(s).map(|w| w.join("|"));
        assert_eq!(words("jest --ci"), Some("jest|--ci".into()));
        assert_eq!(
            words("  mocha 'a b' \"c d\" e\\ f  "),
            Some("mocha|a b|c d|e f".into())
        );
        assert_eq!(words("jest&&eslint ."), Some("jest".into()));
        assert_eq!(words("jest || true"), Some("jest".into()));
        assert_eq!(words("jest; echo"), Some("jest".into()));
        assert_eq!(words("jest | tee log"), Some("jest".into()));
        assert_eq!(words("jest # a comment"), Some("jest".into()));
        assert_eq!(words("mocha a#b"), Some("mocha|a#b".into()));
        assert_eq!(words("jest $ARGS"), None);
        assert_eq!(words("jest \"$ARGS\""), None);
        assert_eq!(words("jest > out.txt"), None);
        assert_eq!(words("(jest)"), None);
        assert_eq!(words("jest 'open"), None);
        assert_eq!(words("jest '$literal'"), Some("jest|$literal".into()));
    }

    #[test]
    fn launchers_and_assignments_are_stripped() {
        let strip = |s: &str| {
            let words = first_command(s).expect("words");
            let (env, rest) = strip_launchers(&words);
            (env.join(" "), rest.join(" "))
        };
        assert_eq!(strip("npx jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("npx -y --package jest jest -i"),
            (String::new(), "jest -i".into())
        );
        assert_eq!(strip("npx -p=jest jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("A=1 cross-env B=2 npx mocha"),
            ("A=1 B=2".into(), "mocha".into())
        );
        assert_eq!(strip("yarn jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("pnpm exec vitest run"),
            (String::new(), "vitest run".into())
        );
        assert_eq!(strip("yarn test:unit"), (String::new(), "test:unit".into()));
    }

    #[test]
    fn owned_flags_drop_with_their_values() {
        let kept = |args: &[&str], owned: &[(&str, Takes)]| drop_flags(&strings(args), owned);
        assert_eq!(
            kept(
                &[
                    "--json",
                    "a",
                    "--outputFile",
                    "x.json",
                    "--coverageReporters",
                    "t",
                    "l",
                    "-i"
                ],
                JEST_OWNED
            ),
            strings(&["a", "-i"])
        );
        assert_eq!(
            kept(
                &["--outputFile=x", "--coverage=false", "--watch", "b"],
                JEST_OWNED
            ),
            strings(&["b"])
        );
        assert_eq!(
            kept(
                &[
                    "--outputFile.junit",
                    "x.xml",
                    "--outputFile.json=y",
                    "--reporter",
                    "dot"
                ],
                VITEST_OWNED
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            kept(
                &["--coverage", "--coverage.reporter", "text", "src"],
                VITEST_COVERAGE_OWNED
            ),
            strings(&["src"])
        );
        // A flag's value is never a flag.
        assert_eq!(kept(&["-R", "--bail"], MOCHA_OWNED), strings(&["--bail"]));
    }

    #[test]
    fn package_json_reading() {
        let p = package(
            r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"},
                "dependencies":{"a":"1"},"devDependencies":{"jest":"2"}}"#,
        );
        assert_eq!(p.test, None);
        assert_eq!(p.deps, strings(&["a", "jest"]));
        let p = package(r#"{"scripts":{"test":"  "}}"#);
        assert_eq!(p.test, None);
        assert_eq!(node_plan(&p), None);
        let p = package(r#"{"devDependencies":{"vitest":"1","mocha":"2","jest":"3"}}"#);
        assert_eq!(
            node_plan(&p),
            Some(NodePlan::Direct {
                runner: NodeRunner::Jest,
                env: vec![],
                args: vec![]
            })
        );
    }

    #[test]
    fn commands_are_shown_as_a_shell_would_take_them() {
        assert_eq!(shell_word("plain-word_1.js"), "plain-word_1.js");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("{report_dir}"), "\"$SKILLGATE_REPORT_DIR\"");
        assert_eq!(shell_word("NODE_OPTIONS=--a --b"), "NODE_OPTIONS='--a --b'");
        assert_eq!(
            shell_word("--x={report_dir}/a b"),
            "--x=\"$SKILLGATE_REPORT_DIR\"'/a b'"
        );
    }

    #[test]
    fn probes_answer_only_on_success() {
        assert_eq!(
            probe("sh", &["-c", "pwd; echo hi"]),
            Some("/\nhi\n".to_owned())
        );
        assert_eq!(probe("sh", &["-c", "echo no; exit 1"]), None);
        assert_eq!(probe("skillgate-no-such-program", &[]), None);
    }

    #[test]
    fn node_versions_parse() {
        assert_eq!(parse_node_version("v20.20.2\n"), Some((20, 20)));
        assert_eq!(parse_node_version("v18.15.0"), Some((18, 15)));
        assert_eq!(parse_node_version("20.1"), None);
        assert_eq!(parse_node_version("vX"), None);
    }
}
