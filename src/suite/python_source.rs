//! What a Python file shows about itself: whether it is a test module pytest or unittest can
//! run, or a program that only has `test` in its name (`scripts/test_api_auth.py`, whose
//! `test_api_authentication(token, api_url)` takes a command line's values, not fixtures).
//! This only decides whether pytest is chosen: once it is, it runs every file it collects.

/// pytest's own fixtures, and those of the plugins most suites install: a test function may
/// take these without defining them.
const KNOWN_FIXTURES: &[&str] = &[
    // pytest
    "cache",
    "capfd",
    "capfdbinary",
    "caplog",
    "capsys",
    "capsysbinary",
    "doctest_namespace",
    "monkeypatch",
    "pytestconfig",
    "pytester",
    "record_property",
    "record_testsuite_property",
    "record_xml_attribute",
    "recwarn",
    "request",
    "subtests",
    "testdir",
    "tmp_path",
    "tmp_path_factory",
    "tmpdir",
    "tmpdir_factory",
    // pytest-mock, pytest-asyncio, anyio, pytest-benchmark, requests-mock, pytest-httpx,
    // pytest-freezer, syrupy, pytest-httpserver, Faker
    "mocker",
    "class_mocker",
    "module_mocker",
    "session_mocker",
    "event_loop",
    "anyio_backend",
    "benchmark",
    "requests_mock",
    "httpx_mock",
    "freezer",
    "snapshot",
    "httpserver",
    "faker",
    // pytest-django, pytest-flask, pytest-aiohttp, pytest-playwright, pytest-qt, pytest-xdist,
    // pytest-datadir
    "client",
    "admin_client",
    "admin_user",
    "db",
    "transactional_db",
    "django_db_setup",
    "django_user_model",
    "settings",
    "rf",
    "live_server",
    "aiohttp_client",
    "aiohttp_server",
    "aiohttp_raw_server",
    "aiohttp_unused_port",
    "page",
    "browser",
    "context",
    "qtbot",
    "worker_id",
    "datadir",
    "shared_datadir",
];

/// What one Python file says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct PythonSource {
    /// `import pytest`, `from pytest import …`.
    pub imports_pytest: bool,
    /// A class deriving from a `TestCase`.
    pub has_test_case: bool,
    /// `test*` functions and methods pytest collects, each with the parameters it asks pytest
    /// to supply (not `self`, not those with defaults) and the names parametrize gives it.
    pub tests: Vec<TestFunction>,
    /// Fixtures the file defines (`@pytest.fixture`, `token = pytest.fixture(_token)`), by the
    /// names tests may ask for.
    pub fixtures: Vec<String>,
    /// Names `from … import …` binds: a fixture may be imported.
    pub imported: Vec<String>,
    /// It defines `pytest_generate_tests`, which may parametrize any argument.
    pub generates_tests: bool,
    /// Fixtures may come from where the file does not name them: `from … import *`, or
    /// `pytest_plugins`.
    pub any_fixture: bool,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct TestFunction {
    pub name: String,
    pub line: usize,
    /// What pytest must supply: less `self`, those with defaults, the leading ones `@patch`
    /// decorators pass and those hypothesis' `@given` draws.
    pub params: Vec<String>,
    pub parametrized: Vec<String>,
    /// `@pytest.mark.usefixtures(…)`: written for pytest.
    pub uses_fixtures: bool,
}

impl PythonSource {
    pub(super) fn read(text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut source = Self::default();
        // Decorators seen since the last definition, their text joined.
        let mut decorators = String::new();
        // The indentation of the class whose body we are in, and whether pytest collects it.
        let mut class: Option<(usize, bool)> = None;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            i += 1;
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some((class_indent, _)) = class
                && indent <= class_indent
            {
                class = None;
            }
            if trimmed.starts_with("import pytest")
                || trimmed.starts_with("from pytest ")
                || trimmed.starts_with("from pytest.")
                || trimmed.starts_with("from _pytest")
            {
                source.imports_pytest = true;
            }
            if let Some(rest) = trimmed.strip_prefix("from ")
                && rest.contains(" import ")
            {
                let (statement, next) = joined(&lines, i - 1, trimmed);
                i = next;
                match imported_names(&statement) {
                    Some(names) => source.imported.extend(names),
                    None => source.any_fixture = true,
                }
                decorators.clear();
                continue;
            }
            if indent == 0
                && trimmed
                    .strip_prefix("pytest_plugins")
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            {
                source.any_fixture = true;
            }
            if let Some(names) = fixture_assignment(trimmed) {
                let (statement, next) = joined(&lines, i - 1, trimmed);
                i = next;
                source
                    .fixtures
                    .extend(fixture_assignment(&statement).unwrap_or(names));
                decorators.clear();
                continue;
            }
            if trimmed.starts_with('@') {
                let (decorator, next) = joined(&lines, i - 1, trimmed);
                decorators.push_str(&decorator);
                decorators.push('\n');
                i = next;
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("class ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let bases = rest[name.len()..].trim_start();
                if bases.starts_with('(') && bases.contains("TestCase") {
                    source.has_test_case = true;
                }
                // pytest collects `Test*` classes without an `__init__`; unittest's are
                // collected for their `TestCase`.
                let collected = name.starts_with("Test");
                class = Some((indent, collected));
                decorators.clear();
                continue;
            }
            let def = trimmed
                .strip_prefix("async def ")
                .or_else(|| trimmed.strip_prefix("def "));
            let Some(def) = def else {
                decorators.clear();
                continue;
            };
            let name: String = def
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let line_number = i;
            let (signature, next) = joined(&lines, i - 1, trimmed);
            i = next;
            let in_class = class.is_some_and(|(class_indent, _)| indent > class_indent);
            let is_fixture = decorators.lines().any(is_fixture_decorator);
            if is_fixture {
                source
                    .fixtures
                    .push(fixture_name(&decorators).unwrap_or_else(|| name.clone()));
            }
            if name == "pytest_generate_tests" {
                source.generates_tests = true;
            }
            let collected_here = match class {
                Some((class_indent, collected)) if indent > class_indent => collected,
                _ => indent == 0,
            };
            if name.starts_with("test") && collected_here && !is_fixture {
                let mut params = parameters(&signature);
                if in_class && !params.is_empty() {
                    params.remove(0);
                }
                source.tests.push(TestFunction {
                    name: name.clone(),
                    line: line_number,
                    params: unsupplied(params, &decorators),
                    parametrized: parametrized(&decorators),
                    uses_fixtures: decorators.contains("usefixtures("),
                });
            }
            decorators.clear();
        }
        source
    }

    /// Whether pytest or unittest would find tests here that it can run: it imports pytest,
    /// has a `TestCase`, or has a test written for pytest (`usefixtures`) or whose every
    /// parameter pytest can supply (from `fixtures`, the file's own or imported ones,
    /// parametrize, or pytest's). A test without parameters is always one, whatever else the
    /// file does. `any_fixture`: a conftest may supply any name (`pytest_generate_tests`,
    /// `pytest_plugins`, `from … import *`).
    pub(super) fn looks_like_tests(&self, fixtures: &[String], any_fixture: bool) -> bool {
        if self.imports_pytest || self.has_test_case {
            return true;
        }
        let any = any_fixture || self.generates_tests || self.any_fixture;
        self.tests.iter().any(|test| {
            any || test.uses_fixtures
                || test.params.iter().all(|p| {
                    KNOWN_FIXTURES.contains(&p.as_str())
                        || self.fixtures.contains(p)
                        || self.imported.contains(p)
                        || fixtures.contains(p)
                        || test.parametrized.contains(p)
                })
        })
    }
}

/// The names `from module import a, b as c` binds (`a`, `c`); `None` for `import *`, which
/// may bind any.
fn imported_names(statement: &str) -> Option<Vec<String>> {
    let (_, names) = statement.split_once(" import ")?;
    let names = names.split('#').next().unwrap_or_default();
    let mut bound = Vec::new();
    for part in names.split(',') {
        let part = part.trim().trim_matches(['(', ')']).trim();
        if part == "*" {
            return None;
        }
        let name = part.rsplit(" as ").next().unwrap_or(part).trim();
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            bound.push(name.to_owned());
        }
    }
    Some(bound)
}

/// `params` less what the decorators supply: each `@patch(…)`, `@mock.patch(…)` or
/// `@patch.object(…)` passes one leading argument (unless it is given `new`); hypothesis'
/// `@given` draws the arguments it names and, for its positional strategies, the last ones.
fn unsupplied(mut params: Vec<String>, decorators: &str) -> Vec<String> {
    let mut patched = 0;
    for decorator in decorators.lines() {
        let name = decorator_name(decorator);
        let args = decorator
            .split_once('(')
            .map(|(_, rest)| split_top_level(rest))
            .unwrap_or_default();
        let keywords: Vec<&str> = args
            .iter()
            .filter_map(|a| a.split_once('=').map(|(k, _)| k.trim()))
            .filter(|k| k.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .collect();
        let positional = args
            .iter()
            .filter(|a| !a.trim().is_empty())
            .count()
            .saturating_sub(keywords.len());
        let segments: Vec<&str> = name.rsplit('.').collect();
        match segments.as_slice() {
            ["patch", ..] if positional < 2 && !keywords.contains(&"new") => patched += 1,
            ["object", "patch", ..] if positional < 3 && !keywords.contains(&"new") => {
                patched += 1;
            }
            ["given", ..] => {
                params.retain(|p| !keywords.contains(&p.as_str()));
                params.truncate(params.len().saturating_sub(positional));
            }
            _ => {}
        }
    }
    params.drain(..patched.min(params.len()));
    params
}

/// `pytest.fixture` of `@pytest.fixture(scope="session")`.
fn decorator_name(decorator: &str) -> &str {
    decorator
        .trim_start_matches('@')
        .split(['(', ' '])
        .next()
        .unwrap_or_default()
}

/// The statement starting at `lines[start]` (from `first`, its trimmed text) up to where its
/// brackets close, joined on one line; and the index of the line after it.
fn joined(lines: &[&str], start: usize, first: &str) -> (String, usize) {
    let mut text = first.to_owned();
    let mut depth = bracket_depth(first);
    let mut next = start + 1;
    // A signature or decorator rarely spans more than a few dozen lines.
    while depth > 0 && next < lines.len() && next < start + 64 {
        text.push(' ');
        text.push_str(lines[next].trim());
        depth += bracket_depth(lines[next]);
        next += 1;
    }
    (text, next)
}

fn bracket_depth(text: &str) -> i32 {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => break,
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// The parameters of `def name(…)` pytest would have to supply: not `*args`, `**kwargs`, the
/// `/` and `*` markers, nor those with a default.
fn parameters(signature: &str) -> Vec<String> {
    let Some(open) = signature.find('(') else {
        return Vec::new();
    };
    let inner = &signature[open + 1..];
    let mut params = Vec::new();
    for part in split_top_level(inner) {
        let part = part.trim();
        if part.is_empty() || part.starts_with('*') || part == "/" || part.contains('=') {
            continue;
        }
        let name: String = part
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            params.push(name);
        }
    }
    params
}

/// `text` (after an opening bracket) split at its top-level commas, up to the bracket that
/// closes it.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') if depth == 0 => {
                parts.push(&text[start..i]);
                return parts;
            }
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The names `@pytest.mark.parametrize("a, b", …)` (or `(["a", "b"], …)`) gives a test.
fn parametrized(decorators: &str) -> Vec<String> {
    let mut names = Vec::new();
    for decorator in decorators.lines() {
        let Some(at) = decorator.find("parametrize(") else {
            continue;
        };
        let args = &decorator[at + "parametrize(".len()..];
        let Some(first) = split_top_level(args).first().map(|s| s.trim()) else {
            continue;
        };
        for literal in string_literals(first) {
            names.extend(
                literal
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    names
}

/// `@pytest.fixture`, `@fixture(…)`, `@pytest_asyncio.fixture`: not `@pytest.mark.usefixtures`.
fn is_fixture_decorator(decorator: &str) -> bool {
    let name = decorator_name(decorator);
    name == "fixture" || name.ends_with(".fixture")
}

/// The name a fixture decorator gives (`@pytest.fixture(name="db")`).
fn fixture_name(decorators: &str) -> Option<String> {
    let decorator = decorators.lines().find(|d| is_fixture_decorator(d))?;
    let at = decorator.find("name=")?;
    string_literals(&decorator[at + "name=".len()..])
        .into_iter()
        .next()
}

/// The fixture names `token = pytest.fixture(_token, name="token")` or
/// `token = pytest.fixture(name="token")(_token)` may define: the name assigned, the `name=`
/// given and the function's (pytest's versions differ on which counts). `None` when the
/// statement assigns no fixture.
fn fixture_assignment(statement: &str) -> Option<Vec<String>> {
    let (target, value) = statement.split_once('=')?;
    let target = target.trim();
    if target.is_empty() || !target.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let value = value.trim_start();
    let (callee, args) = value.split_once('(')?;
    let callee = callee.trim();
    if !(callee == "fixture" || callee.ends_with(".fixture"))
        || !callee
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return None;
    }
    let mut names = vec![target.to_owned()];
    let parts = split_top_level(args);
    for part in &parts {
        let part = part.trim();
        match part.split_once('=') {
            Some((key, literal)) if key.trim() == "name" => {
                names.extend(string_literals(literal).into_iter().take(1));
            }
            Some(_) => {}
            None if !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                names.push(part.to_owned());
            }
            None => {}
        }
    }
    // `pytest.fixture(name="x")(func)`: the function is the second call's argument.
    let closed: usize = parts.iter().map(|p| p.len() + 1).sum();
    if let Some(rest) = args
        .get(closed..)
        .and_then(|r| r.trim_start().strip_prefix('('))
    {
        let function = split_top_level(rest).first().map(|f| f.trim().to_owned());
        names.extend(
            function
                .filter(|f| !f.is_empty() && f.chars().all(|c| c.is_alphanumeric() || c == '_')),
        );
    }
    Some(names)
}

/// The contents of the quoted strings in `text`, in order.
fn string_literals(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let literal: String = chars.by_ref().take_while(|&d| d != c).collect();
            found.push(literal);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cli_whose_test_function_takes_its_arguments_is_no_test_module() {
        let text = "#!/usr/bin/env python3\n\"\"\"Check the API token.\"\"\"\nimport argparse\n\
                    import requests\n\n\ndef test_api_authentication(token, api_url):\n    \
                    return requests.get(api_url, headers={\"Authorization\": token}).ok\n\n\n\
                    if __name__ == \"__main__\":\n    parser = argparse.ArgumentParser()\n    \
                    parser.add_argument(\"--token\")\n    args = parser.parse_args()\n";
        let source = PythonSource::read(text);
        assert_eq!(
            source.tests,
            vec![TestFunction {
                name: "test_api_authentication".into(),
                line: 7,
                params: vec!["token".into(), "api_url".into()],
                parametrized: vec![],
                uses_fixtures: false,
            }]
        );
        assert!(!source.looks_like_tests(&[], false));
        // Without its command line, the parameters still say it is no pytest test.
        let plain = "def test_api_authentication(token, api_url):\n    pass\n";
        assert!(!PythonSource::read(plain).looks_like_tests(&[], false));
        // Unless a conftest defines those fixtures.
        let fixtures = ["token".to_owned(), "api_url".to_owned()];
        assert!(PythonSource::read(plain).looks_like_tests(&fixtures, false));
    }

    #[test]
    fn tests_pytest_can_supply_are_evidence() {
        let cases = [
            ("def test_a():\n    assert 1\n", true),
            (
                "def test_a(tmp_path, capsys, monkeypatch):\n    pass\n",
                true,
            ),
            ("async def test_a(mocker):\n    pass\n", true),
            (
                "def test_a(\n    tmp_path,\n    retries: int = 3,\n    *args,\n):\n    pass\n",
                true,
            ),
            ("def test_a(token):\n    pass\n", false),
            ("def helper(token):\n    pass\n", false),
            // Nested functions are not collected.
            ("def run():\n    def test_a():\n        pass\n", false),
            (
                "@pytest.fixture\ndef token():\n    return 't'\n\ndef test_a(token):\n    pass\n",
                true,
            ),
            (
                "@pytest.fixture(name=\"db\")\ndef make_db():\n    pass\n\ndef test_a(db):\n    \
                 pass\n",
                true,
            ),
            (
                "@mark.parametrize(\"x, expected\", [(1, 2)])\ndef test_a(x, expected):\n    \
                 pass\n",
                true,
            ),
            (
                "@mark.parametrize(\n    (\"x\", \"y\"),\n    [(1, 2)],\n)\ndef test_a(x, y):\n    \
                 pass\n",
                true,
            ),
            (
                "@mark.parametrize(\"x\", [1])\ndef test_a(x, y):\n    pass\n",
                false,
            ),
            (
                "class TestThing:\n    def test_a(self, tmp_path):\n        pass\n",
                true,
            ),
            (
                "class TestThing:\n    def test_a(self, token):\n        pass\n",
                false,
            ),
            // Not a `Test` class: pytest does not collect its methods.
            (
                "class Helper:\n    def test_a(self):\n        pass\n",
                false,
            ),
            (
                "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        \
                 pass\n",
                true,
            ),
            ("import pytest\n", true),
            // Written for pytest: it asks for fixtures by name.
            (
                "@mark.usefixtures(\"db\")\ndef test_a(token):\n    pass\n",
                true,
            ),
            (
                "def pytest_generate_tests(metafunc):\n    pass\n\ndef test_a(anything):\n    \
                 pass\n",
                true,
            ),
        ];
        for (text, expected) in cases {
            let source = PythonSource::read(text);
            assert_eq!(source.looks_like_tests(&[], false), expected, "{text}");
        }
    }

    #[test]
    fn a_test_without_parameters_is_one_whatever_else_the_file_does() {
        // A failing test with a command line appended (issue #15 review): still a test.
        let cli = "import argparse\nfrom calc import add\n\ndef test_add_big():\n    assert \
                   add(10**6, 1) == 10**6\n\nif __name__ == \"__main__\":\n    \
                   argparse.ArgumentParser().parse_args()\n    test_add_big()\n";
        assert!(PythonSource::read(cli).looks_like_tests(&[], false));
        let argv = "import sys\n\ndef test_ping():\n    pass\n\nif __name__ == \"__main__\":\n    \
                    main(sys.argv[1:])\n";
        assert!(PythonSource::read(argv).looks_like_tests(&[], false));
        let unit = "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        \
                    pass\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
        assert!(PythonSource::read(unit).looks_like_tests(&[], false));
    }

    #[test]
    fn patch_given_imports_and_plugins_supply_parameters() {
        let cases = [
            // Each `@patch` passes one leading argument, the rest pytest supplies.
            (
                "from unittest.mock import patch\n\n@patch(\"calc.fetch\")\ndef \
                 test_a(fetch_mock):\n    pass\n",
                true,
            ),
            (
                "@mock.patch(\"a\")\n@mock.patch.object(Calc, \"b\")\ndef test_a(m_b, m_a, \
                 tmp_path):\n    pass\n",
                true,
            ),
            (
                "@patch.object(Calc, \"b\", autospec=True)\ndef test_a(m_b, token):\n    pass\n",
                false,
            ),
            // Given `new`, a patch passes nothing; `patch.dict` never does.
            ("@patch(\"a\", new=1)\ndef test_a(m_a):\n    pass\n", false),
            ("@patch(\"a\", 1)\ndef test_a(m_a):\n    pass\n", false),
            (
                "@patch.dict(\"os.environ\", {})\ndef test_a(m_a):\n    pass\n",
                false,
            ),
            // hypothesis draws the last positional arguments, or the named ones.
            (
                "from hypothesis import given, strategies as st\n\n@given(st.integers(), \
                 st.integers())\ndef test_a(a, b):\n    pass\n",
                true,
            ),
            (
                "@given(b=st.integers())\ndef test_a(tmp_path, b):\n    pass\n",
                true,
            ),
            (
                "@given(st.integers())\ndef test_a(token, b):\n    pass\n",
                false,
            ),
            // A fixture may be imported, or come from plugins or a star import.
            (
                "from helpers import numbers\ndef test_a(numbers):\n    pass\n",
                true,
            ),
            (
                "from helpers import (\n    other,\n    numbers as nums,\n)\ndef test_a(nums):\n    \
                 pass\n",
                true,
            ),
            (
                "from helpers import numbers as nums\ndef test_a(numbers):\n    pass\n",
                false,
            ),
            (
                "pytest_plugins = [\"fixtures_numbers\"]\ndef test_a(numbers):\n    pass\n",
                true,
            ),
            (
                "from fixtures import *\ndef test_a(numbers):\n    pass\n",
                true,
            ),
        ];
        for (text, expected) in cases {
            let source = PythonSource::read(text);
            assert_eq!(source.looks_like_tests(&[], false), expected, "{text}");
        }
        let source = PythonSource::read(
            "@patch(\"a\")\n@given(st.integers())\ndef test_a(m_a, fix, n):\n    pass\n",
        );
        assert_eq!(source.tests[0].params, vec!["fix"]);
    }

    #[test]
    fn fixtures_assigned_rather_than_decorated_are_fixtures() {
        // Issue #15 review: a conftest defining its fixture by assignment.
        let cases: &[(&str, &[&str])] = &[
            (
                "token = pytest.fixture(_token, name=\"token\")\n",
                &["token", "_token", "token"],
            ),
            ("api = fixture(_api)\n", &["api", "_api"]),
            (
                "db = pytest.fixture(name=\"database\")(make_db)\n",
                &["db", "database", "make_db"],
            ),
            (
                "client = pytest_asyncio.fixture(\n    _client,\n    scope=\"module\",\n)\n",
                &["client", "_client"],
            ),
            // Not fixtures.
            ("token = make_token(\"t\")\n", &[]),
            ("if a == pytest.fixture(b):\n    pass\n", &[]),
        ];
        for (text, names) in cases {
            assert_eq!(PythonSource::read(text).fixtures, *names, "{text}");
        }
        let conftest = PythonSource::read("import pytest\n\ntoken = pytest.fixture(_token)\n");
        let test = PythonSource::read("def test_token(token):\n    assert token\n");
        assert!(!test.looks_like_tests(&[], false));
        assert!(test.looks_like_tests(&conftest.fixtures, false));
        // Fixtures of common plugins are pytest's to supply.
        let plugin = "def test_home(client, db, settings):\n    pass\n\nasync def \
                      test_api(aiohttp_client):\n    pass\n";
        assert!(PythonSource::read(plugin).looks_like_tests(&[], false));
    }

    #[test]
    fn fixtures_are_named_by_their_function_or_their_name() {
        let text = "import pytest\n\n@pytest.fixture(scope=\"session\")\ndef api_url():\n    \
                    return 'http://localhost'\n\n@pytest.fixture(\n    name=\"token\",\n)\ndef \
                    _token():\n    return 't'\n";
        assert_eq!(PythonSource::read(text).fixtures, vec!["api_url", "token"]);
    }
}
