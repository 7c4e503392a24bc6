//! Python: pytest, unittest.

use std::path::Path;

use super::host::Host;
use super::resolve::{MAX_DETECT_BYTES, Resolution, detected, file_name, unavailable, with_tool};

pub(super) fn python_suite(
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

#[cfg(test)]
mod tests {
    use crate::suite::testing::{Fake, detect, found, setup, strings, unavailable_reason};

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
}
