//! What a file's path says about it: its base name, whether it is the skill's `SKILL.md`, and
//! whether it belongs to the skill's tests.

/// The base name of a `/`-separated path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `path` is the skill's own `SKILL.md` (or `skill.md`) at its root.
pub fn is_skill_file(path: &str) -> bool {
    path.eq_ignore_ascii_case("skill.md")
}

const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "e2e",
    "testdata",
    "test-data",
    "test_data",
    "fixture",
    "fixtures",
    "__fixtures__",
    "mocks",
    "__mocks__",
];

/// Whether a file belongs to the skill's test suite by where it is or its name: under a
/// directory of [`TEST_DIRS`] (`tests/`, `fixtures/`, `__mocks__/`, `e2e/`…), or named as test
/// frameworks name their files (`test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`,
/// `x_spec.rb`, `XTest.java`, `test.sh`, `conftest.py`, `x.bats`). Only the place: a caller
/// that exempts tests also asks whether the skill runs the file ([`super::Source::run_by_skill`]).
pub fn is_test_path(path: &str) -> bool {
    let in_test_dir = path
        .split('/')
        .rev()
        .skip(1)
        .any(|dir| TEST_DIRS.contains(&dir.to_ascii_lowercase().as_str()));
    let name = base_name(path);
    let lower = name.to_ascii_lowercase();
    let stem = lower.split('.').next().unwrap_or(&lower);
    let (own_stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    // `AuthTest.java`, `AuthTests.swift`: the case matters, `Contest.java` is no test.
    let class = (own_stem.ends_with("Test") || own_stem.ends_with("Tests"))
        && matches!(
            ext,
            "java" | "kt" | "cs" | "swift" | "php" | "scala" | "groovy"
        );
    in_test_dir
        || stem == "test"
        || stem == "conftest"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || lower.ends_with(".bats")
        || class
}
