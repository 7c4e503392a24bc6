//! Node: jest, mocha, vitest, node:test.

use std::path::{Path, PathBuf};

use super::host::Host;
use super::resolve::{
    Detected, MAX_DETECT_BYTES, Resolution, Suite, SuiteSource, Unavailability, detected,
    file_name, unavailable, with_tool,
};
use super::shell::{first_command, shell_word, strip_launchers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NodeRunner {
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

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Jest => "jest",
            Self::Mocha => "mocha",
            Self::Vitest => "vitest",
        }
    }

    /// The runner a script word runs: `jest`, `node_modules/.bin/mocha`,
    /// `node_modules/jest/bin/jest.js`, `_mocha`.
    pub(super) fn run_by(word: &str) -> Option<Self> {
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

    /// The flags that write the report (and coverage) into [`REPORT_DIR`](super::REPORT_DIR).
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
pub(super) struct Package {
    /// `scripts.test`, unless it is npm's placeholder.
    pub(super) test: Option<String>,
    /// `scripts.pretest`, which `npm test` runs first (a build, often).
    pretest: bool,
    /// The names in `dependencies` and `devDependencies`.
    deps: Vec<String>,
}

pub(super) fn read_package(repo: &Path, path: &Path) -> Option<Package> {
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
pub(super) enum NodePlan {
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
pub(super) fn node_plan(package: &Package) -> Option<NodePlan> {
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

pub(super) fn node_suite(
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
        unrun: Vec::new(),
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
            kind: Unavailability::ToolMissing,
        };
    }
    // The binary is the skill's code too: one that links out of the checkout is refused, like
    // a suite file that does.
    if let Some((path, rel)) = &bin
        && let Ok(real) = path.canonicalize()
        && !real.starts_with(repo)
    {
        return Resolution::Unavailable {
            suite: Some(suite),
            reason: format!(
                "`{rel}` resolves outside the repository (to {}); refused",
                real.display()
            ),
            kind: Unavailability::OutsideRepository,
        };
    }
    Resolution::Found(suite)
}

/// node's own runner, chosen when a file it would run by its default patterns imports
/// `node:test`, and then given every file those patterns match, as `node --test` alone would
/// run them: a plain script that throws is a failing test to node, and a file that imports
/// `node:test` through a harness of its own is a test too. Its reporter flags exist since node
/// 18.15 (and 19.6); an older node runs bare and prints TAP on stdout, which is read too. An
/// unknown version gets the flags. `None` when no file imports `node:test`.
pub(super) fn node_test_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    files: &[String],
) -> Option<Detected> {
    let tests: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| is_node_test_file(f))
        .collect();
    let chosen = tests.iter().any(|f| {
        crate::untrusted::read_file(repo, &dir.join(f), MAX_DETECT_BYTES)
            .is_ok_and(|bytes| uses_node_test(&String::from_utf8_lossy(&bytes)))
    });
    if !chosen {
        return None;
    }
    let reporters = host
        .node_version()
        .is_none_or(|(major, minor)| match major {
            18 => minor >= 15,
            19 => minor >= 6,
            major => major >= 20,
        });
    let mut args: Vec<String> = if reporters {
        [
            "--test",
            "--test-reporter=tap",
            "--test-reporter-destination={report_dir}/node-test.tap",
            // The spec reporter keeps the log readable.
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
        ]
        .map(str::to_owned)
        .to_vec()
    } else {
        vec!["--test".to_owned()]
    };
    // A file named like an option reaches node as a file.
    args.extend(tests.iter().map(|t| {
        if t.starts_with('-') {
            format!("./{t}")
        } else {
            (*t).to_owned()
        }
    }));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Some(Detected::new(
        with_tool(host, detected("node:test", "node", &args), "node"),
        "node:test".to_owned(),
        tests.iter().map(|&t| t.to_owned()).collect(),
    ))
}

/// node's default test patterns (node 20 and 22, `node --test` without arguments), less
/// `node_modules`: `**/*.test.{cjs,mjs,js}`, `**/*-test.*`, `**/*_test.*`, `**/test-*.*`,
/// `**/test.*`, and every such script under a `test` directory.
pub(super) fn is_node_test_file(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let (name, parents) = segments.split_last().unwrap_or((&"", &[]));
    if parents.contains(&"node_modules") {
        return false;
    }
    let Some(stem) = [".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
    else {
        return false;
    };
    stem.ends_with(".test")
        || stem.ends_with("-test")
        || stem.ends_with("_test")
        || stem.starts_with("test-")
        || stem == "test"
        || parents.contains(&"test")
}

/// The file imports or requires node's test runner.
fn uses_node_test(text: &str) -> bool {
    text.contains("\"node:test\"") || text.contains("'node:test'") || text.contains("`node:test`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::SkillMeta;
    use crate::suite::resolve::resolve_on;
    use crate::suite::testing::{
        Fake, detect, fake_bin, found, setup, strings, unavailable_reason,
    };

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
        assert_eq!(
            reason,
            "mocha suite found, but `node` is not installed (help: run `apt-get install nodejs \
             npm`, or use actions/setup-node)"
        );
    }

    #[test]
    fn a_binary_that_links_out_of_the_repository_is_refused() {
        let (dir, files) = setup(&[("package.json", r#"{"scripts":{"test":"jest"}}"#)]);
        let outside = tempfile::tempdir().expect("tempdir");
        fake_bin(outside.path(), "jest");
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).expect("mkdir");
        std::os::unix::fs::symlink(
            outside.path().join("jest"),
            dir.path().join("node_modules/.bin/jest"),
        )
        .expect("symlink");
        let (_, reason) = unavailable_reason(detect(&Fake::all(), &dir, &files));
        assert!(
            reason.starts_with("`node_modules/.bin/jest` resolves outside the repository (to "),
            "{reason}"
        );
        assert!(reason.ends_with("); refused"), "{reason}");
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
        assert!(
            reason.starts_with("npm suite found, but `npm` is not installed (help: run "),
            "{reason}"
        );
    }

    #[test]
    fn node_test_writes_tap_when_node_can() {
        let test = "import test from 'node:test';\ntest('a', () => {});\n";
        let (dir, files) = setup(&[("tests/slug.test.js", test)]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.program, "node");
        let full = strings(&[
            "--test",
            "--test-reporter=tap",
            "--test-reporter-destination={report_dir}/node-test.tap",
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
            "tests/slug.test.js",
        ]);
        assert_eq!(suite.args, full);
        assert_eq!(
            suite.command,
            "node --test --test-reporter=tap \
             --test-reporter-destination=\"$SKILLGATE_REPORT_DIR\"/node-test.tap \
             --test-reporter=spec --test-reporter-destination=stdout tests/slug.test.js"
        );
        let bare = strings(&["--test", "tests/slug.test.js"]);
        for (version, args) in [
            (Some((18, 14)), bare.clone()),
            (Some((18, 15)), full.clone()),
            (Some((19, 5)), bare.clone()),
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
        assert!(
            reason.starts_with("node:test suite found, but `node` is not installed (help: "),
            "{reason}"
        );
    }

    #[test]
    fn node_test_runs_every_file_node_would_once_one_imports_it() {
        let test = "const { test } = require(\"node:test\");\ntest(\"a\", () => {});\n";
        let harness = "// Run by hand: node test/manual-harness.js\nconsole.log(\"ok\");\n";
        let (dir, files) = setup(&[
            ("test/grade.js", test),
            ("test/manual-harness.js", harness),
            ("test-slug.mjs", test),
            ("lib/grade_test.cjs", test),
            ("scripts/test.js", test),
            ("spec/grade.spec.js", test),
            ("tests/helpers.js", test),
            ("node_modules/x/a.test.js", test),
            ("test.foo.js", test),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            suite.args[5..].to_vec(),
            strings(&[
                "test/grade.js",
                "test/manual-harness.js",
                "test-slug.mjs",
                "lib/grade_test.cjs",
                "scripts/test.js"
            ])
        );
        // Files that import no `node:test` alone are no suite.
        let (dir, files) = setup(&[("test/manual-harness.js", harness)]);
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
    }

    #[test]
    fn a_plain_assert_file_or_one_behind_a_harness_is_run_too() {
        // Issue #15 review: a file that throws is a failing test to node, and one that gets
        // `test` from a local harness re-exporting `node:test` is a test.
        let ok = "const test = require(\"node:test\");\ntest(\"ok\", () => {});\n";
        let plain = "const assert = require(\"node:assert\");\nassert.strictEqual(1, 2);\n";
        let harness = "const { test } = require(\"node:test\");\nmodule.exports = { test };\n";
        let behind = "const { test } = require(\"./harness\");\ntest(\"x\", () => { throw 1; });\n";
        let (dir, files) = setup(&[
            ("test/ok.test.js", ok),
            ("test/plain.test.js", plain),
            ("test/harness.js", harness),
            ("test/unicode.test.js", behind),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            suite.args[5..].to_vec(),
            strings(&[
                "test/ok.test.js",
                "test/plain.test.js",
                "test/harness.js",
                "test/unicode.test.js"
            ])
        );
    }

    #[test]
    fn node_test_patterns_are_nodes() {
        // node's own list (lib/internal/test_runner/utils.js `kPatterns`, node 20 and 22).
        for path in [
            "test.js",
            "test.cjs",
            "test.mjs",
            "test-foo.js",
            "foo.test.mjs",
            "foo-test.cjs",
            "foo_test.js",
            "test/anything.js",
            "a/test/b/c.mjs",
        ] {
            assert!(is_node_test_file(path), "{path}");
        }
        for path in [
            "test",
            "test.djs",
            "foo.js",
            "test.foo.js",
            "test_foo.js",
            "testfoo.js",
            "foo-test1.mjs",
            "tests/a.js",
            "foo.spec.js",
            "node_modules/a/test.js",
            "test/a.ts",
        ] {
            assert!(!is_node_test_file(path), "{path}");
        }
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
}
