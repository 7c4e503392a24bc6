//! What a test script runs, read from its text: a conventional `test.sh`, or a package's test
//! script. Its commands say which frameworks it runs (`pytest`, `node --test tests/a.test.js`,
//! `bats`, `npm test`, …), and its words which files and directories it names. A test file of
//! another framework that the script neither runs nor names is a test the suite leaves out.

use super::node::{NodeRunner, is_node_test_file};
use super::resolve::file_name;

/// node's flags that take the next word as their value when not written `--flag=value`: that
/// word is no test file. Any other word after `node --test` is taken as a file or pattern, so an
/// unknown flag's value narrows what the script is taken to run, never widens it.
const NODE_VALUE_FLAGS: &[&str] = &[
    "--test-reporter",
    "--test-reporter-destination",
    "--test-name-pattern",
    "--test-skip-pattern",
    "--test-concurrency",
    "--test-timeout",
    "--test-shard",
    "--test-isolation",
    "--test-global-setup",
    "--test-coverage-include",
    "--test-coverage-exclude",
    "--test-coverage-lines",
    "--test-coverage-branches",
    "--test-coverage-functions",
    "--import",
    "--require",
    "-r",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--env-file-if-exists",
    "--conditions",
    "-C",
    "--input-type",
    "--watch-path",
    "--disable-warning",
    "--experimental-config-file",
];

/// A test runner a script's command starts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ran {
    /// A framework's runner, with its own way of finding tests (`pytest`, `jest`, `bats`).
    Framework(&'static str),
    /// `node --test`: the files and patterns it names, relative to the skill; node's default
    /// patterns under `dir` without any.
    NodeTest { dir: String, operands: Vec<String> },
    /// `npm test` and the like: the package's test script.
    NpmTest,
}

/// The commands of one or more scripts: the runners they start and the words they say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Script {
    ran: Vec<Ran>,
    /// Every word, relative to the skill (less `./`, a trailing `/`, and under the directory a
    /// `cd` went to).
    words: Vec<String>,
}

impl Script {
    pub(super) fn read(text: &str) -> Self {
        let mut script = Self::default();
        script.extend(text);
        script
    }

    /// Add the commands of another script the first one runs.
    pub(super) fn extend(&mut self, text: &str) {
        let mut cd = String::new();
        for words in commands(text) {
            if let [first, to] = words.as_slice()
                && first == "cd"
            {
                // `cd "$(dirname "$0")"` stays in the skill.
                if !to.contains('$') {
                    cd = under(&cd, to);
                }
                continue;
            }
            self.ran.extend(ran(&words, &cd));
            self.words.extend(
                words
                    .iter()
                    .filter(|w| !w.is_empty() && !w.starts_with('-'))
                    .map(|w| under(&cd, w)),
            );
        }
    }

    /// The skill's files the script names that are scripts it may run in turn: shell scripts,
    /// and Python programs that are not test modules (`run_tests.py`).
    pub(super) fn named_scripts<'a>(&self, files: &'a [String]) -> Vec<&'a str> {
        files
            .iter()
            .map(String::as_str)
            .filter(|f| {
                let name = file_name(f);
                let runner = name.ends_with(".sh")
                    || name.ends_with(".bash")
                    || (name.ends_with(".py")
                        && !name.starts_with("test_")
                        && !name.ends_with("_test.py")
                        && name != "conftest.py");
                runner && self.words.iter().any(|w| w == f)
            })
            .collect()
    }

    /// It runs the package's test script (`npm test`, `yarn test`, `npm run test`).
    pub(super) fn runs_npm_test(&self) -> bool {
        self.ran.contains(&Ran::NpmTest)
    }

    /// Whether the script runs `file`, a test file of `framework` (`package.json` standing for
    /// a package's test script): it starts that framework's runner, a runner whose own
    /// patterns or named files take the file, or it names the file or a directory holding it.
    pub(super) fn covers(&self, framework: &str, file: &str) -> bool {
        let by_runner = self.ran.iter().any(|ran| match ran {
            Ran::Framework(runner) => {
                *runner == framework
                    // pytest runs unittest's tests too.
                    || (*runner == "pytest" && framework == "unittest")
                    || (file != "package.json" && super::resolve::runs_too(runner, file))
            }
            Ran::NodeTest { dir, operands } => {
                if file == "package.json" {
                    framework == "node:test"
                } else {
                    node_runs(dir, operands, file)
                }
            }
            Ran::NpmTest => file == "package.json",
        });
        by_runner || self.words.iter().any(|w| names(w, file))
    }
}

/// `path` seen from `dir` (the directory a `cd` went to), relative to the skill.
fn under(dir: &str, path: &str) -> String {
    let path = path.trim_start_matches("./").trim_end_matches('/');
    if dir.is_empty() || path.starts_with('/') {
        path.to_owned()
    } else if path.is_empty() || path == "." {
        dir.to_owned()
    } else {
        format!("{dir}/{path}")
    }
}

/// Whether a script's word names `file`: its path, its name, a directory holding it, or a glob
/// matching it (by its name when the glob has no `/`; a bare `*` names nothing).
fn names(word: &str, file: &str) -> bool {
    if word == file || word == file_name(file) {
        return true;
    }
    if crate::glob::is_glob(word) {
        return if word.contains('/') {
            crate::glob::matches(word, file)
        } else {
            word.chars().any(|c| !matches!(c, '*' | '?'))
                && crate::glob::matches(word, file_name(file))
        };
    }
    !word.is_empty() && word != "." && file.starts_with(&format!("{word}/"))
}

/// Whether `node --test` run in `dir` with `operands` runs `file`: an operand is the file, a
/// glob matching it, or a directory holding it; without operands, node's default patterns
/// under `dir`.
fn node_runs(dir: &str, operands: &[String], file: &str) -> bool {
    let inside = |d: &str| d.is_empty() || d == "." || file.starts_with(&format!("{d}/"));
    if operands.is_empty() {
        return inside(dir) && is_node_test_file(file);
    }
    operands.iter().any(|op| {
        op == file
            || (crate::glob::is_glob(op) && crate::glob::matches(op, file))
            || (!crate::glob::is_glob(op) && inside(op) && is_node_test_file(file))
    })
}

/// The runners one command starts, anywhere in it (`timeout 60 pytest`, `uv run pytest`,
/// `python3 -m unittest`, `npx jest`), seen from `cd`.
fn ran(words: &[String], cd: &str) -> Vec<Ran> {
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let name = file_name(word);
        let next = words.get(i + 1).map(String::as_str);
        let after = &words[i + 1..];
        if matches!(name, "pytest" | "py.test") || word.starts_with("pytest.") {
            found.push(Ran::Framework("pytest"));
        } else if word == "unittest" || word.starts_with("unittest.") {
            found.push(Ran::Framework("unittest"));
        } else if matches!(name, "node" | "nodejs") && after.iter().any(|a| a == "--test") {
            found.push(Ran::NodeTest {
                dir: cd.to_owned(),
                operands: node_operands(after).iter().map(|o| under(cd, o)).collect(),
            });
        } else if let Some(runner) = NodeRunner::run_by(word) {
            found.push(Ran::Framework(runner.name()));
        } else if name == "bats" {
            found.push(Ran::Framework("bats"));
        } else if name == "go" && next == Some("test") {
            found.push(Ran::Framework("go"));
        } else if name == "cargo" && matches!(next, Some("test" | "nextest")) {
            found.push(Ran::Framework("cargo"));
        } else if name == "bun" && next == Some("test") {
            found.push(Ran::Framework("bun"));
        } else if matches!(name, "npm" | "yarn" | "pnpm" | "bun")
            && (matches!(next, Some("test" | "t"))
                || (matches!(next, Some("run" | "run-script"))
                    && words.get(i + 2).is_some_and(|w| w == "test")))
        {
            found.push(Ran::NpmTest);
        }
    }
    found
}

/// The files and patterns after `node`'s options: every word that is neither a flag nor the
/// value of one of [`NODE_VALUE_FLAGS`], and every word after `--`.
fn node_operands(args: &[String]) -> Vec<String> {
    let mut operands = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            operands.extend(words.by_ref().cloned());
        } else if word.starts_with('-') && word.len() > 1 {
            if !word.contains('=') && NODE_VALUE_FLAGS.contains(&word.as_str()) {
                words.next();
            }
        } else {
            operands.push(word.clone());
        }
    }
    operands
}

/// A script's commands, each as its words, unquoted: split at `;`, `&`, `|`, newlines and
/// parentheses, with comments dropped and `\`-newline joining lines. Expansions stay as
/// written (`$SKILLGATE_REPORT_DIR/lcov.info`): they name no file of the skill.
fn commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => {
                    word.push(escaped);
                    in_word = true;
                }
            },
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&q| q != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        q => word.push(q),
                    }
                }
            }
            '#' if !in_word => while chars.next_if(|&n| n != '\n').is_some() {},
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            '<' | '>' => end_word(&mut words, &mut word, &mut in_word),
            c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_split_unquoted_and_joined_across_continuations() {
        let text = "#!/usr/bin/env bash\nset -e # strict\ncd \"$(dirname \"$0\")\"\nnode --test \
                    \\\n  --test-reporter=tap 'tests/a b.test.js' && echo ok; pytest -q|tee log\n";
        let got: Vec<String> = commands(text).iter().map(|c| c.join(" ")).collect();
        assert_eq!(
            got,
            vec![
                "set -e",
                // A `cd` to an expansion stays in the skill.
                "cd $(dirname $0)",
                "node --test --test-reporter=tap tests/a b.test.js",
                "echo ok",
                "pytest -q",
                "tee log",
            ]
        );
    }

    #[test]
    fn node_test_with_files_runs_those_files_only() {
        // Issue #15 review: a test script naming one file leaves the others node would find.
        let script = Script::read(
            "node --test --experimental-test-coverage --test-reporter=tap \
             --test-reporter-destination=stdout --test-reporter lcov \
             --test-reporter-destination=$SKILLGATE_REPORT_DIR/lcov.info tests/slugify.test.js",
        );
        assert!(script.covers("node:test", "tests/slugify.test.js"));
        assert!(!script.covers("node:test", "tests/edge.test.js"));
        // No operand: node's own patterns, everywhere or under the directory a `cd` went to.
        let script = Script::read("node --test");
        assert!(script.covers("node:test", "tests/edge.test.js"));
        assert!(script.covers("node:test", "test/anything.js"));
        assert!(!script.covers("node:test", "scripts/slugify.js"));
        let script = Script::read("cd tests && node --test");
        assert!(script.covers("node:test", "tests/edge.test.js"));
        assert!(!script.covers("node:test", "other/edge.test.js"));
        // A directory holding the file, or a glob matching it.
        for operands in [
            "tests/",
            "./tests",
            "'tests/**/*.test.js'",
            "tests/*.test.js",
        ] {
            let script = Script::read(&format!("node --test {operands}"));
            assert!(
                script.covers("node:test", "tests/edge.test.js"),
                "{operands}"
            );
            assert!(
                !script.covers("node:test", "lib/edge.test.js"),
                "{operands}"
            );
        }
        // A flag's value is no operand; after `--` every word is one.
        assert_eq!(
            node_operands(&["--import".into(), "tsx".into(), "a.test.js".into()]),
            vec!["a.test.js"]
        );
        assert_eq!(
            node_operands(&["--".into(), "-odd.test.js".into()]),
            vec!["-odd.test.js"]
        );
    }

    #[test]
    fn a_script_runs_the_frameworks_it_starts_and_the_files_it_names() {
        // The script, the framework and file asked about, whether it runs them.
        let cases: &[(&str, &str, &str, bool)] = &[
            ("python3 -m pytest -q", "pytest", "tests/test_a.py", true),
            ("uv run pytest tests", "pytest", "tests/test_a.py", true),
            (
                "python3 -m unittest discover",
                "unittest",
                "tests/test_a.py",
                true,
            ),
            (
                "python3 -m unittest discover",
                "pytest",
                "tests/test_a.py",
                false,
            ),
            ("pytest", "unittest", "tests/test_a.py", true),
            ("python3 tests/test_a.py", "pytest", "tests/test_a.py", true),
            (
                "python3 tests/test_a.py",
                "pytest",
                "tests/test_b.py",
                false,
            ),
            (
                "for f in tests/test_*.py; do python3 \"$f\"; done",
                "pytest",
                "tests/test_b.py",
                true,
            ),
            (
                "node --test tests/slugify.test.js",
                "pytest",
                "tests/test_a.py",
                false,
            ),
            ("node --test", "bun", "a.test.js", true),
            ("bats tests", "bats", "tests/greet.bats", true),
            ("./tests/greet.bats", "bats", "tests/greet.bats", true),
            ("node --test", "bats", "tests/greet.bats", false),
            ("go test ./...", "go", "x_test.go", true),
            ("cargo test", "cargo", "Cargo.toml", true),
            ("npx jest", "node:test", "a.test.js", true),
            ("npx jest", "node:test", "test/a.js", false),
            ("npm test", "jest", "package.json", true),
            ("npm run test", "npm", "package.json", true),
            ("npm run lint", "npm", "package.json", false),
            ("node --test", "node:test", "package.json", true),
            // A word in a sentence, a bare `*` or `.` names nothing.
            ("echo 'run the tests'", "pytest", "tests/test_a.py", false),
            ("rm -f *", "pytest", "test_a.py", false),
            ("ls .", "pytest", "test_a.py", false),
            (
                "echo tests/slugify.test.js",
                "pytest",
                "tests/test_a.py",
                false,
            ),
        ];
        for (text, framework, file, runs) in cases {
            assert_eq!(
                Script::read(text).covers(framework, file),
                *runs,
                "{text} / {framework} {file}"
            );
        }
    }

    #[test]
    fn scripts_it_runs_and_the_package_script_are_found() {
        let files: Vec<String> = ["tests/run.sh", "run_tests.py", "tests/test_a.py", "lib.sh"]
            .map(str::to_owned)
            .to_vec();
        let script = Script::read("bash tests/run.sh && python3 run_tests.py tests/test_a.py");
        assert_eq!(
            script.named_scripts(&files),
            vec!["tests/run.sh", "run_tests.py"]
        );
        assert!(!script.runs_npm_test());
        assert!(Script::read("yarn test --ci").runs_npm_test());
        assert!(!Script::read("bun test").runs_npm_test());
    }
}
