//! Python: pytest, unittest. Only files pytest would collect, and that read as tests, make a
//! suite: a program named `test_*.py` whose functions take its command line's values is none.
//! Once chosen, the framework runs every file it collects: none is left out for looking
//! otherwise, so a failing test cannot hide by looking like a program. When another suite runs,
//! every file pytest would collect is named as not run, whether it reads as tests or not.

use std::path::Path;

use super::host::Host;
use super::python_source::PythonSource;
use super::resolve::{
    Detected, MAX_DETECT_BYTES, Resolution, Unavailability, detected, file_name, unavailable,
    with_tool,
};

/// What installs pytest, and the coverage plugin the gate measures with.
pub(super) const PIP_INSTALL: &str = "python3 -m pip install pytest pytest-cov";

/// pytest's defaults: `python_files`, and the `norecursedirs` it never collects from.
const PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];
const NORECURSE: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
];

/// The Python suite of a skill whose files are `files`, when pytest would collect some of
/// them; `None` when it would collect none. Its files are every one pytest collects; it may be
/// the suite (`is_suite`) only when some of them read as tests.
pub(super) fn python_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    files: &[String],
) -> Option<Detected> {
    let config = PytestConfig::read(dir, repo, files);
    let candidates: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| config.collects(f))
        .collect();
    if candidates.is_empty() {
        return None;
    }
    // Fixtures every test may ask for: those the conftest files define or import, the
    // skill's own and those above it up to the repository's root, which pytest loads too.
    let conftests = conftests(dir, repo, files);
    let above = conftest_above(dir, repo);
    let beside_conftest = |file: &str| {
        above
            || files.iter().any(|f| {
                f.strip_suffix("conftest.py")
                    .is_some_and(|d| d.is_empty() || (d.ends_with('/') && file.starts_with(d)))
            })
    };
    let mut fixtures = Vec::new();
    let mut any_fixture = false;
    for text in &conftests {
        let source = PythonSource::read(text);
        fixtures.extend(source.fixtures);
        fixtures.extend(source.imported);
        any_fixture |= source.generates_tests || source.any_fixture;
    }
    let mut tests: Vec<PythonSource> = Vec::new();
    for file in &candidates {
        // An unreadable file says nothing either way: pytest is left to collect it.
        let Some(text) = read_text(repo, &dir.join(file)) else {
            tests.push(PythonSource::default());
            continue;
        };
        let source = PythonSource::read(&text);
        // A test whose parameters nothing here explains, in a file pytest loads a conftest for,
        // still runs under pytest (a plugin's fixture, most often).
        if source.looks_like_tests(&fixtures, any_fixture)
            || (beside_conftest(file) && !source.tests.is_empty())
        {
            tests.push(source);
        }
    }
    let found = |resolution: Resolution, framework: &str| {
        Detected::new(
            resolution,
            framework.to_owned(),
            candidates.iter().map(|&f| f.to_owned()).collect(),
        )
    };
    if tests.is_empty() {
        return Some(Detected {
            is_suite: false,
            ..found(Resolution::None, "pytest")
        });
    }
    if !uses_pytest(dir, repo, files, !conftests.is_empty(), &tests) {
        // unittest writes no report file, and coverage.py needs a second command to write
        // one: its verbose text on stderr is the report.
        let args = unittest_args(files, &candidates);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        return Some(found(
            with_tool(host, detected("unittest", "python3", &args), "python3"),
            "unittest",
        ));
    }
    let python = host.has_tool("python3");
    let mut args: Vec<&str> = vec![
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
        return Some(found(unavailable(suite, "python3"), "pytest"));
    }
    if !host.has_python_module("pytest") {
        let resolution = Resolution::Unavailable {
            suite: Some(suite),
            reason: format!(
                "pytest suite found, but the `pytest` module is not installed for python3 \
                 (help: run `{PIP_INSTALL}`)"
            ),
            kind: Unavailability::ToolMissing,
        };
        return Some(found(resolution, "pytest"));
    }
    Some(found(Resolution::Found(suite), "pytest"))
}

/// The text of every `conftest.py` pytest may load for the skill: in the skill, and in each
/// directory above it up to the repository's root.
fn conftests(dir: &Path, repo: &Path, files: &[String]) -> Vec<String> {
    let inside = files
        .iter()
        .filter(|f| file_name(f) == "conftest.py")
        .map(|f| dir.join(f));
    let above = dir
        .ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(repo))
        .map(|a| a.join("conftest.py"))
        .filter(|p| p.is_file());
    inside
        .chain(above)
        .filter_map(|path| read_text(repo, &path))
        .collect()
}

/// A `conftest.py` in a directory above the skill, up to the repository's root.
fn conftest_above(dir: &Path, repo: &Path) -> bool {
    dir.ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(repo))
        .any(|a| a.join("conftest.py").is_file())
}

/// pytest when the skill configures it or a test file needs it: one imports pytest, or has no
/// `TestCase` (plain `test_` functions, which unittest does not collect). unittest when every
/// test file is a unittest module.
fn uses_pytest(
    dir: &Path,
    repo: &Path,
    files: &[String],
    conftest: bool,
    tests: &[PythonSource],
) -> bool {
    let has_name = |name: &str| files.iter().any(|f| file_name(f) == name);
    let says = |file: &str, section: &str| {
        files.iter().any(|f| f == file)
            && read_text(repo, &dir.join(file)).is_some_and(|t| t.contains(section))
    };
    if conftest
        || has_name("conftest.py")
        || has_name("pytest.ini")
        || says("pyproject.toml", "[tool.pytest")
        || says("setup.cfg", "[tool:pytest]")
        || says("tox.ini", "[pytest]")
    {
        return true;
    }
    // `TestCase`, not `import unittest`: pytest suites import `unittest.mock` too. An
    // unreadable file says nothing either way.
    tests.iter().any(|source| {
        *source != PythonSource::default() && (source.imports_pytest || !source.has_test_case)
    })
}

/// What a pytest configuration at the skill's root says about collection: `python_files` and
/// `testpaths`, from the first of the files pytest itself reads that has a pytest section.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PytestConfig {
    python_files: Vec<String>,
    testpaths: Vec<String>,
}

impl Default for PytestConfig {
    fn default() -> Self {
        Self {
            python_files: PYTHON_FILES.iter().map(|&p| p.to_owned()).collect(),
            testpaths: Vec::new(),
        }
    }
}

impl PytestConfig {
    fn read(dir: &Path, repo: &Path, files: &[String]) -> Self {
        let text = |name: &str| {
            files
                .iter()
                .any(|f| f == name)
                .then(|| read_text(repo, &dir.join(name)))
                .flatten()
        };
        let ini = [
            ("pytest.ini", "pytest"),
            (".pytest.ini", "pytest"),
            ("pyproject.toml", ""),
            ("tox.ini", "pytest"),
            ("setup.cfg", "tool:pytest"),
        ];
        for (name, section) in ini {
            let Some(text) = text(name) else { continue };
            let values = if section.is_empty() {
                toml_options(&text)
            } else {
                ini_options(&text, section)
            };
            if let Some(options) = values {
                let mut config = Self::default();
                let get = |key: &str| options.iter().find(|(k, _)| k == key).map(|(_, v)| v);
                if let Some(files) = get("python_files").filter(|v| !v.is_empty()) {
                    config.python_files.clone_from(files);
                }
                if let Some(paths) = get("testpaths") {
                    config.testpaths = paths
                        .iter()
                        .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_owned())
                        .collect();
                }
                return config;
            }
        }
        Self::default()
    }

    /// Whether pytest, run in the skill without arguments, would collect `path`.
    fn collects(&self, path: &str) -> bool {
        let name = file_name(path);
        let parents: Vec<&str> = path.split('/').collect();
        let parents = &parents[..parents.len().saturating_sub(1)];
        if !name.ends_with(".py")
            || parents
                .iter()
                .any(|p| NORECURSE.iter().any(|n| crate::glob::matches(n, p)))
        {
            return false;
        }
        let named = self.python_files.iter().any(|pattern| {
            if pattern.contains('/') {
                crate::glob::matches(pattern, path)
            } else {
                crate::glob::matches(pattern, name)
            }
        });
        let under = self.testpaths.is_empty()
            || self.testpaths.iter().any(|t| {
                t.is_empty()
                    || t == "."
                    || path.starts_with(&format!("{t}/"))
                    || path == t
                    || (crate::glob::is_glob(t)
                        && (0..parents.len())
                            .any(|n| crate::glob::matches(t, &parents[..=n].join("/"))))
            });
        named && under
    }
}

/// `key = value` pairs of `[section]` in an INI file, values split on whitespace (continuation
/// lines included); `None` without the section.
fn ini_options(text: &str, section: &str) -> Option<Vec<(String, Vec<String>)>> {
    let header = format!("[{section}]");
    let mut lines = text.lines().skip_while(|l| l.trim() != header);
    lines.next()?;
    let mut options: Vec<(String, Vec<String>)> = Vec::new();
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            break;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let words = |v: &str| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        if line.starts_with(char::is_whitespace) {
            if let Some((_, values)) = options.last_mut() {
                values.extend(words(trimmed));
            }
        } else if let Some((key, value)) =
            trimmed.split_once('=').or_else(|| trimmed.split_once(':'))
        {
            options.push((key.trim().to_owned(), words(value)));
        }
    }
    Some(options)
}

/// `[tool.pytest.ini_options]` (or pytest 9's `[tool.pytest]`) in a `pyproject.toml`.
fn toml_options(text: &str) -> Option<Vec<(String, Vec<String>)>> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    let pytest = doc.get("tool")?.get("pytest")?;
    let table = pytest
        .get("ini_options")
        .and_then(toml::Value::as_table)
        .or_else(|| pytest.as_table())?;
    let options = table
        .iter()
        .filter_map(|(key, value)| {
            let values = match value {
                toml::Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                toml::Value::Array(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect(),
                _ => return None,
            };
            Some((key.clone(), values))
        })
        .collect();
    Some(options)
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

#[cfg(test)]
mod tests {
    use crate::suite::Resolution;
    use crate::suite::testing::{Fake, detect, found, setup, strings, unavailable_reason};

    #[test]
    fn pytest_writes_junit_and_coverage_when_pytest_cov_is_there() {
        let (dir, files) = setup(&[
            ("tests/test_x.py", "def test_x():\n    pass\n"),
            ("conftest.py", ""),
        ]);
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
            "pytest suite found, but the `pytest` module is not installed for python3 (help: \
             run `python3 -m pip install pytest pytest-cov`)"
        );
        assert_eq!(suite.args, junit);
        let (_, reason) =
            unavailable_reason(detect(&Fake::all().without_tool("python3"), &dir, &files));
        assert_eq!(
            reason,
            "pytest suite found, but `python3` is not installed (help: run `apt-get install \
             python3`, or use actions/setup-python)"
        );
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
        assert!(
            reason.starts_with("unittest suite found, but `python3` is not installed (help: "),
            "{reason}"
        );
    }

    const CLI: &str = "import argparse\n\ndef test_api_authentication(token, api_url):\n    \
                       pass\n\nif __name__ == \"__main__\":\n    \
                       argparse.ArgumentParser().parse_args()\n";

    #[test]
    fn a_cli_named_like_a_test_is_no_suite_but_pytest_ignores_nothing_it_collects() {
        let (dir, files) = setup(&[("scripts/test_api_auth.py", CLI), ("SKILL.md", "")]);
        assert_eq!(detect(&Fake::all(), &dir, &files), Resolution::None);
        // Beside real tests, pytest runs what it collects: the program too, which errors.
        let (dir, files) = setup(&[
            ("scripts/test_api_auth.py", CLI),
            ("tests/test_grade.py", "def test_a(tmp_path):\n    pass\n"),
        ]);
        let suite = found(detect(&Fake::all(), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("pytest"));
        assert_eq!(
            suite.args,
            strings(&[
                "-m",
                "pytest",
                "--junitxml={report_dir}/pytest.xml",
                "-o",
                "junit_family=xunit1"
            ])
        );
    }

    /// A failing test, and a way to make it look like something else (issue #15 review).
    const FAILING: &str = "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 5\n";

    #[test]
    fn no_failing_test_file_is_left_out_of_pytest() {
        let disguises = [
            format!(
                "import argparse\n{FAILING}\nif __name__ == \"__main__\":\n    \
                 argparse.ArgumentParser().parse_args()\n"
            ),
            "from unittest.mock import patch\n\n@patch(\"calc.fetch\")\ndef test_fetch(m):\n    \
             assert False\n"
                .to_owned(),
            "from hypothesis import given, strategies as st\n\n@given(st.integers())\ndef \
             test_n(n):\n    assert n != n\n"
                .to_owned(),
            "from helpers import numbers\n\ndef test_n(numbers):\n    assert False\n".to_owned(),
            "pytest_plugins = [\"fixtures_numbers\"]\n\ndef test_n(numbers):\n    assert False\n"
                .to_owned(),
        ];
        for disguise in &disguises {
            let (dir, files) = setup(&[
                ("tests/test_ok.py", "def test_ok():\n    pass\n"),
                ("tests/test_hidden.py", disguise),
            ]);
            let suite = found(detect(&Fake::all(), &dir, &files));
            assert_eq!(suite.framework.as_deref(), Some("pytest"), "{disguise}");
            assert!(
                suite.args.iter().all(|a| !a.starts_with("--ignore")),
                "{disguise}: {:?}",
                suite.args
            );
            // Alone, the file is a suite of its own.
            let (dir, files) = setup(&[("tests/test_hidden.py", disguise)]);
            let suite = found(detect(&Fake::all(), &dir, &files));
            assert_eq!(suite.framework.as_deref(), Some("pytest"), "{disguise}");
        }
    }

    #[test]
    fn conftests_up_to_the_repository_root_supply_fixtures() {
        let shared = "def test_add_numbers(numbers):\n    assert sum(numbers) == 5\n";
        let conftest = "import pytest\n\n@pytest.fixture\ndef numbers():\n    return (2, 2)\n";
        let (dir, _) = setup(&[
            ("conftest.py", conftest),
            ("skills/calc/tests/test_shared.py", shared),
        ]);
        let root = dir.path().canonicalize().expect("canon");
        let skill = root.join("skills/calc");
        let files = vec!["tests/test_shared.py".to_owned()];
        let meta = crate::skill::SkillMeta::default();
        let resolve = |repo: &std::path::Path| {
            crate::suite::resolve::resolve_on(&Fake::all(), &skill, repo, &meta, &files)
        };
        assert_eq!(found(resolve(&root)).framework.as_deref(), Some("pytest"));
        // Nothing above the repository is read.
        assert_eq!(resolve(&skill), Resolution::None);
        // A conftest's imported fixtures, or its plugins, count too.
        for conftest in [
            "from fixtures import numbers\n",
            "pytest_plugins = [\"fixtures\"]\n",
        ] {
            let (dir, files) =
                setup(&[("tests/test_shared.py", shared), ("conftest.py", conftest)]);
            let suite = found(detect(&Fake::all(), &dir, &files));
            assert_eq!(suite.framework.as_deref(), Some("pytest"), "{conftest}");
        }
    }

    #[test]
    fn only_what_pytest_would_collect_is_looked_at() {
        let test = "def test_a():\n    pass\n";
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[("check_grade.py", test)], false),
            (
                &[
                    ("check_grade.py", test),
                    ("pytest.ini", "[pytest]\npython_files = check_*.py\n"),
                ],
                true,
            ),
            (
                &[
                    ("check_grade.py", test),
                    (
                        "pyproject.toml",
                        "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
                    ),
                ],
                true,
            ),
            (
                &[
                    ("src/test_grade.py", test),
                    (
                        "setup.cfg",
                        "[metadata]\nname = x\n\n[tool:pytest]\ntestpaths =\n    tests\n",
                    ),
                ],
                false,
            ),
            (
                &[
                    ("tests/unit/test_grade.py", test),
                    ("tox.ini", "[pytest]\ntestpaths = tests\n"),
                ],
                true,
            ),
            (&[("node_modules/x/test_a.py", test)], false),
            (&[(".venv/lib/test_a.py", test)], false),
            (&[("grade_test.py", test)], true),
            (&[("test_grade.txt", test)], false),
        ];
        for (files, expected) in cases {
            let (dir, names) = setup(files);
            let got = detect(&Fake::all(), &dir, &names);
            assert_eq!(got != Resolution::None, *expected, "{files:?}: {got:?}");
        }
    }
}
