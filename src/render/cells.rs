//! The figures every renderer shows the same way.

use crate::gate::{CoverageSource, FailedTest, GateRun, SkillResult, TestResults};
use crate::policy::Verdict;
use crate::results::FailureKind;

/// The message pytest's JUnit XML gives a test module it could not collect; the traceback,
/// with the error itself on its last `E   ` line, follows.
const PYTEST_COLLECTION: &str = "collection failure";
/// The case unittest makes of a test module that did not import.
const UNITTEST_FAILED_IMPORT: &str = "unittest.loader._FailedTest";
/// First lines that only announce the error a framework prints further down.
const WRAPPERS: [&str; 5] = [
    PYTEST_COLLECTION,
    "Jest encountered an unexpected token",
    "ImportError while importing test module",
    // pytest's JUnit for a test whose fixture failed: the source it points at, then `E` lines.
    "failed on setup with",
    "failed on teardown with",
];
/// How many causes of test files that did not load a table row shows; the failed tests list
/// every one.
const LOAD_CAUSES_SHOWN: usize = 3;
/// How many files one such cause names in a table row before "and N more".
const FILES_NAMED: usize = 3;

/// `1.00 (14/14)`, `no tests`, or `—` when the suite did not run.
pub fn pass_rate(skill: &SkillResult) -> String {
    match &skill.tests {
        Some(t) => match t.pass_rate {
            Some(rate) => format!("{rate:.2} ({}/{})", t.pass_count, t.total_count),
            None => "no tests".to_owned(),
        },
        None => "—".to_owned(),
    }
}

/// `0.97`, `0.90 declared`, or `—`.
pub fn coverage(skill: &SkillResult) -> String {
    match &skill.coverage {
        Some(c) if c.source == CoverageSource::Declared => format!("{:.2} declared", c.ratio),
        Some(c) => format!("{:.2}", c.ratio),
        None => "—".to_owned(),
    }
}

/// `0.18`, or `—` when the skill was not analysed.
pub fn risk(skill: &SkillResult) -> String {
    match &skill.signals.risk {
        Some(risk) => format!("{:.2}", risk.score),
        None => "—".to_owned(),
    }
}

/// `auto`, `escalate`, `human`, or `correction` for a skill that needs one.
pub fn tier(skill: &SkillResult) -> &'static str {
    match skill.decision.decision {
        Verdict::NeedsCorrection => "correction",
        _ => skill.decision.tier.as_str(),
    }
}

/// The reasons to show in a table: the blockers, or a short line for an approval; then why test
/// files did not load, one line per cause (`collection failure in tests/test_x.py:
/// ModuleNotFoundError: No module named 'notion_client'`), since their tests never ran.
pub fn reasons(skill: &SkillResult) -> Vec<String> {
    let mut reasons = if skill.decision.decision == Verdict::Approved {
        vec![format!(
            "all {} criteria met",
            skill.decision.criteria.len()
        )]
    } else {
        skill.decision.reasons.clone()
    };
    reasons.extend(load_causes(skill));
    reasons
}

/// The line a failed test is shown with: its error's first line, unwrapped (see [`cause`]), and
/// for a test file that did not load, what did not and where.
pub fn failure_line(skill: &SkillResult, tests: &TestResults, case: &FailedTest) -> Option<String> {
    match load_failure(skill, tests, case) {
        Some(failure) => Some(failure.to_string()),
        None => case.error.as_deref().map(|e| cause(e).to_owned()),
    }
}

/// The line that says why a test failed: the message's first line that is not blank, or when it only
/// announces an error printed further down (pytest's `collection failure`, Jest's `Jest
/// encountered an unexpected token`), that error: pytest's last `E   ` line, else the last line
/// that names an exception (`SyntaxError: …`, `ModuleNotFoundError: …`).
pub fn cause(error: &str) -> &str {
    let mut lines = error
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    if !WRAPPERS.iter().any(|w| first.trim().starts_with(w)) {
        return first;
    }
    let rest: Vec<&str> = lines.collect();
    // pytest's `E` lines: the last one at the margin (an exception), else the first of any
    // indent (`E       fixture 'url' not found`).
    let pytest = rest
        .iter()
        .rev()
        .find_map(|l| {
            l.strip_prefix("E   ")
                .filter(|e| !e.starts_with(char::is_whitespace))
        })
        .or_else(|| {
            rest.iter().find_map(|l| {
                l.strip_prefix("E ")
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
            })
        });
    let named = || {
        rest.iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| names_an_exception(l))
    };
    pytest.or_else(named).unwrap_or(first).trim()
}

/// `SyntaxError: …`, `requests.exceptions.ConnectionError: …`.
fn names_an_exception(line: &str) -> bool {
    let Some((name, _)) = line.split_once(": ") else {
        return false;
    };
    let last = name.rsplit('.').next().unwrap_or(name);
    (last.ends_with("Error") || last.ends_with("Exception"))
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A test file that failed as a whole, before any of its tests ran.
struct LoadFailure<'a> {
    /// `collection failure` (pytest's word) or `load failure`.
    what: &'static str,
    /// Relative to the skill when the framework gave an absolute path.
    file: String,
    cause: &'a str,
}

impl std::fmt::Display for LoadFailure<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in {}: {}", self.what, self.file, self.cause)
    }
}

/// Whether `case` stands for a test file that did not load: pytest's collection errors (its
/// JUnit `collection failure`, or a case named by its `.py` file in its output), unittest's
/// `_FailedTest`, and a file that jest, vitest or node:test name as the failed case when an
/// import could not be resolved or the code did not parse.
fn load_failure<'a>(
    skill: &SkillResult,
    tests: &TestResults,
    case: &'a FailedTest,
) -> Option<LoadFailure<'a>> {
    let error = case.error.as_deref().unwrap_or_default();
    let first = error
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let whole_file = case.file.as_deref() == Some(case.name.as_str());
    let what = if first.trim() == PYTEST_COLLECTION
        || (whole_file && tests.framework == "pytest" && case.name.ends_with(".py"))
    {
        "collection failure"
    } else if case.suite.as_deref() == Some(UNITTEST_FAILED_IMPORT)
        || (whole_file
            && matches!(
                case.kind,
                Some(FailureKind::Dependency | FailureKind::Syntax)
            ))
    {
        "load failure"
    } else {
        return None;
    };
    let file = case.file.as_deref().unwrap_or(&case.name);
    Some(LoadFailure {
        what,
        file: in_skill(file, &skill.dir),
        cause: if error.trim().is_empty() {
            "(no message)"
        } else {
            cause(error)
        },
    })
}

/// `file` as the skill's own path when a framework wrote it absolute
/// (`/home/runner/work/r/r/skills/a/tests/x.py` → `tests/x.py`).
pub(crate) fn in_skill(file: &str, dir: &str) -> String {
    let file = file.trim_start_matches("./");
    let dir = dir.trim_end_matches('/');
    match file.find(&format!("/{dir}/")) {
        Some(at) if file.starts_with('/') && !dir.is_empty() => {
            file[at + dir.len() + 2..].to_owned()
        }
        _ => file.to_owned(),
    }
}

/// The table's lines for test files that did not load: one per cause, naming its files.
fn load_causes(skill: &SkillResult) -> Vec<String> {
    let Some(tests) = &skill.tests else {
        return Vec::new();
    };
    // (what, cause) → files, in the order the failures came.
    let mut causes: Vec<((&str, &str), Vec<String>)> = Vec::new();
    for failure in tests
        .failed_tests
        .iter()
        .filter_map(|case| load_failure(skill, tests, case))
    {
        let key = (failure.what, failure.cause);
        match causes.iter_mut().find(|(k, _)| *k == key) {
            Some((_, files)) => files.push(failure.file),
            None => causes.push((key, vec![failure.file])),
        }
    }
    let mut lines: Vec<String> = causes
        .iter()
        .take(LOAD_CAUSES_SHOWN)
        .map(|((what, cause), files)| {
            let mut named = files
                .iter()
                .take(FILES_NAMED)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            if files.len() > FILES_NAMED {
                named.push_str(&format!(" and {} more", files.len() - FILES_NAMED));
            }
            format!("{what} in {named}: {cause}")
        })
        .collect();
    if causes.len() > LOAD_CAUSES_SHOWN {
        let rest: usize = causes
            .iter()
            .skip(LOAD_CAUSES_SHOWN)
            .map(|(_, files)| files.len())
            .sum();
        let noun = if rest == 1 { "file" } else { "files" };
        lines.push(format!(
            "{rest} more test {noun} did not load (see the failed tests)"
        ));
    }
    lines
}

/// How a skill is named in a report: its `name`, and its directory too when another skill of
/// the run has the same name (two plugins' `setup`: `setup (plugins/a/skills/setup)`).
pub fn display_name(run: &GateRun, skill: &SkillResult) -> String {
    let clash = run
        .skills
        .iter()
        .any(|other| other.name == skill.name && other.dir != skill.dir);
    if clash {
        let dir = if skill.dir.is_empty() {
            "."
        } else {
            &skill.dir
        };
        format!("{} ({dir})", skill.name)
    } else {
        skill.name.clone()
    }
}

/// `5 skills gated: 1 auto, 2 escalate, 1 human, 1 needs correction`.
pub fn headline(run: &GateRun) -> String {
    let s = &run.summary;
    if s.skills == 0 {
        // Only when no `SKILL.md` changed: one that did and is no skill is named.
        let ungated = run
            .findings
            .iter()
            .filter(|f| f.rule == crate::changes::NOT_GATED_RULE)
            .count();
        return match ungated {
            0 => "no skills to gate".to_owned(),
            1 => "no skills to gate, but 1 changed SKILL.md is not a skill (see the findings)"
                .to_owned(),
            n => format!(
                "no skills to gate, but {n} changed SKILL.md files are not skills (see the findings)"
            ),
        };
    }
    let noun = if s.skills == 1 { "skill" } else { "skills" };
    let mut line = format!(
        "{} {noun} gated: {} auto, {} escalate, {} human",
        s.skills, s.auto, s.escalate, s.human
    );
    if s.needs_correction > 0 {
        line.push_str(&format!(", {} need correction", s.needs_correction));
    }
    line
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::gate::Redacted;

    #[test]
    fn a_fixture_pytest_could_not_supply_is_the_cause_shown() {
        // pytest 9.2's JUnit message for `def test_connection(url, token)`.
        let error = "failed on setup with \"file /w/scripts/test_connection.py, line 1\n  \
                     def test_connection(url, token):\nE       fixture 'url' not found\n>       \
                     available fixtures: cache, capfd\n>       use 'pytest --fixtures \
                     [testpath]' for help on them.\n";
        assert_eq!(cause(error), "fixture 'url' not found");
    }

    #[test]
    fn skills_of_one_name_are_told_apart_by_their_directory() {
        let mut run: GateRun =
            serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
                .expect("the fixture parses");
        let mut other = run.skills[0].clone();
        let alone = display_name(&run, &run.skills[1]);
        assert_eq!(alone, run.skills[1].name, "no clash, no directory");
        other.dir = "plugins/b/skills/x".into();
        run.skills.push(other);
        let first = &run.skills[0];
        assert_eq!(
            display_name(&run, first),
            format!("{} ({})", first.name, first.dir)
        );
        let last = run.skills.last().expect("pushed");
        assert_eq!(
            display_name(&run, last),
            format!("{} (plugins/b/skills/x)", last.name)
        );
        assert!(crate::render::text(&run).contains("(plugins/b/skills/x)"));
    }

    /// A skill at `skills/notion-sync` whose results were read from `report` (a committed
    /// fixture), as `check` would store them.
    fn skill_with(report: &str) -> SkillResult {
        let run = crate::results::read_report_file(Path::new(report))
            .expect("the fixture reads")
            .expect("the fixture holds results");
        let tests = TestResults::from_run(&run, 0, "2026-12-01T00:00:00Z", None, None);
        let run: GateRun =
            serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
                .expect("the render fixture is a results document");
        let mut skill = run.skills.into_iter().next().expect("a skill");
        skill.name = "notion-sync".into();
        skill.dir = "skills/notion-sync".into();
        skill.tests = Some(tests);
        skill
    }

    fn failure_lines(skill: &SkillResult) -> Vec<String> {
        let tests = skill.tests.as_ref().expect("tests");
        tests
            .failed_tests
            .iter()
            .filter_map(|case| failure_line(skill, tests, case))
            .collect()
    }

    #[test]
    fn a_wrapper_line_gives_way_to_the_error_it_wraps() {
        assert_eq!(
            cause("AssertionError: 1 != 2\n- 1\n+ 2"),
            "AssertionError: 1 != 2"
        );
        // The first line that says anything, as it was written.
        assert_eq!(cause("\n  expected 3, got 4  \n"), "  expected 3, got 4");
        // pytest's JUnit message for a module it could not collect: the last `E   ` line.
        assert_eq!(
            cause(
                "collection failure\nImportError while importing test module '/w/t.py'.\n\
                 Traceback:\nt.py:3: in <module>\n    import x\n\
                 E   ModuleNotFoundError: No module named 'x'"
            ),
            "ModuleNotFoundError: No module named 'x'"
        );
        // Its SyntaxError: the indented `E     File …` lines are the place, not the error.
        assert_eq!(
            cause(
                "collection failure\nE     File \"/w/t.py\", line 4\nE       def t(:\n\
                 E                      ^\nE   SyntaxError: invalid syntax"
            ),
            "SyntaxError: invalid syntax"
        );
        // A wrapper with nothing under it is shown as it is.
        assert_eq!(cause("collection failure"), "collection failure");
        assert!(names_an_exception(
            "requests.exceptions.ConnectionError: refused"
        ));
        assert!(!names_an_exception("at Error.<anonymous>: x"));
        assert!(!names_an_exception("SyntaxError"));
    }

    #[test]
    fn pytest_collection_failures_show_their_cause_and_file() {
        let skill = skill_with("tests/fixtures/causes/pytest-collect.xml");
        assert_eq!(
            failure_lines(&skill),
            [
                "collection failure in tests/test_pages.py: SyntaxError: invalid syntax",
                "collection failure in tests/test_sync.py: ModuleNotFoundError: No module \
                 named 'notion_client'"
            ]
        );
        assert_eq!(
            load_causes(&skill),
            [
                "collection failure in tests/test_pages.py: SyntaxError: invalid syntax",
                "collection failure in tests/test_sync.py: ModuleNotFoundError: No module \
                 named 'notion_client'"
            ]
        );
    }

    #[test]
    fn jest_files_that_did_not_load_show_their_cause() {
        let mut skill = skill_with("tests/fixtures/reports/jest/mixed.json");
        // The fixture ran in /tmp/skillgate-fixtures/jest.
        skill.dir = "skillgate-fixtures/jest".into();
        // Tests that failed inside files that loaded keep their first line.
        assert_eq!(
            failure_lines(&skill),
            [
                "Error: expect(received).toBe(expected) // Object.is equality",
                "Error: expect(received).toBe(expected) // Object.is equality",
                "Error: thrown: \"Exceeded timeout of 50 ms for a test.",
                "TypeError: slugify expects a string",
                "Error: database fixture could not connect",
                "load failure in missing.suite.js: Cannot find module './not-installed' from \
                 'missing.suite.js'",
                "load failure in broken.suite.js: SyntaxError: \
                 /tmp/skillgate-fixtures/jest/broken.suite.js: Unexpected token (4:0)"
            ]
        );
        assert_eq!(load_causes(&skill).len(), 2);
    }

    #[test]
    fn one_cause_is_one_line_naming_its_files() {
        let mut skill = skill_with("tests/fixtures/causes/pytest-collect.xml");
        let tests = skill.tests.as_mut().expect("tests");
        let sync = tests.failed_tests[1].clone();
        tests.failed_tests = (1..=5)
            .map(|i| FailedTest {
                name: Redacted::new(&format!("tests.test_sync{i}")),
                file: Some(Redacted::new(&format!("tests/test_sync{i}.py"))),
                ..sync.clone()
            })
            .collect();
        assert_eq!(
            load_causes(&skill),
            [
                "collection failure in tests/test_sync1.py, tests/test_sync2.py, \
                 tests/test_sync3.py and 2 more: ModuleNotFoundError: No module named \
                 'notion_client'"
            ]
        );
        // More causes than a row shows: the rest are counted.
        let tests = skill.tests.as_mut().expect("tests");
        for (i, case) in tests.failed_tests.iter_mut().enumerate() {
            case.error = Some(Redacted::new(&format!(
                "collection failure\nE   ImportError: cannot import m{i}"
            )));
        }
        let lines = load_causes(&skill);
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[3],
            "2 more test files did not load (see the failed tests)"
        );
    }

    #[test]
    fn absolute_paths_are_shown_from_the_skill() {
        assert_eq!(
            in_skill("/home/runner/work/r/r/skills/a/tests/x.py", "skills/a"),
            "tests/x.py"
        );
        assert_eq!(in_skill("./tests/x.py", "skills/a"), "tests/x.py");
        assert_eq!(in_skill("/elsewhere/x.py", "skills/a"), "/elsewhere/x.py");
    }
}
