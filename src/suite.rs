//! Which command tests a skill: the declared `test-suite`, a conventional `test.sh`, or a
//! framework found in the skill's files. First match wins.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::skill::SkillMeta;

/// In a suite's arguments, stands for the directory its reports go to (`SKILLGATE_REPORT_DIR`).
pub const REPORT_DIR: &str = "{report_dir}";

/// Conventional suite scripts, in order.
pub const CONVENTIONAL: &[&str] = &["test.sh", "tests/test.sh", "scripts/test.sh"];

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
    /// What a person would type: `bash test.sh`, `npm test`.
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
    if let Some(declared) = meta
        .test_suite
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        return declared_suite(dir, repo, declared, meta.test_framework.clone());
    }
    for candidate in CONVENTIONAL {
        if files.iter().any(|f| f == candidate) {
            return file_suite(
                dir,
                repo,
                candidate,
                SuiteSource::Conventional,
                meta.test_framework.clone(),
            );
        }
    }
    detect_framework(dir, repo, files)
}

fn declared_suite(
    dir: &Path,
    repo: &Path,
    declared: &str,
    framework: Option<String>,
) -> Resolution {
    let looks_like_path = !declared.contains(char::is_whitespace);
    if looks_like_path && dir.join(declared).exists() {
        return file_suite(dir, repo, declared, SuiteSource::Declared, framework);
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
    with_tool(suite, "bash")
}

fn file_suite(
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
    with_tool(suite, program)
}

/// A framework found in the skill's files, run the way its users run it.
fn detect_framework(dir: &Path, repo: &Path, files: &[String]) -> Resolution {
    let has = |pred: &dyn Fn(&str) -> bool| files.iter().any(|f| pred(f));
    let name_of = |f: &str| f.rsplit('/').next().unwrap_or(f).to_owned();
    let detected: Option<(&str, &str, Vec<&str>)> = if files.iter().any(|f| f == "package.json")
        && package_test_script(repo, &dir.join("package.json"))
    {
        Some(("npm", "npm", vec!["test"]))
    } else if has(&|f| {
        let n = name_of(f);
        [".test.js", ".test.mjs", ".test.cjs", "_test.js", ".spec.js"]
            .iter()
            .any(|s| n.ends_with(s))
    }) {
        Some(("node:test", "node", vec!["--test"]))
    } else if has(&|f| {
        let n = name_of(f);
        n.ends_with(".py") && (n.starts_with("test_") || n.ends_with("_test.py"))
    }) {
        if has(&|f| ["conftest.py", "pytest.ini"].contains(&name_of(f).as_str())) {
            Some(("pytest", "python3", vec!["-m", "pytest"]))
        } else {
            Some((
                "unittest",
                "python3",
                vec!["-m", "unittest", "discover", "-v"],
            ))
        }
    } else if has(&|f| f.ends_with("_test.go")) {
        Some(("go", "go", vec!["test", "./..."]))
    } else if files.iter().any(|f| f == "Cargo.toml") {
        Some(("cargo", "cargo", vec!["test"]))
    } else {
        None
    };
    let Some((framework, program, args)) = detected else {
        return Resolution::None;
    };
    let suite = Suite {
        source: SuiteSource::Detected,
        command: std::iter::once(program)
            .chain(args.iter().copied())
            .collect::<Vec<_>>()
            .join(" "),
        program: program.to_owned(),
        args: args.into_iter().map(str::to_owned).collect(),
        framework: Some(framework.to_owned()),
        path: None,
    };
    with_tool(suite, program)
}

/// Whether a package.json has a real `test` script (not npm's placeholder).
fn package_test_script(repo: &Path, path: &Path) -> bool {
    let Ok(bytes) = crate::untrusted::read_file(repo, path, 1 << 20) else {
        return false;
    };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    json.pointer("/scripts/test")
        .and_then(|t| t.as_str())
        .is_some_and(|t| !t.contains("no test specified"))
}

fn with_tool(suite: Suite, tool: &str) -> Resolution {
    if find_in_path(tool).is_some() {
        Resolution::Found(suite)
    } else {
        let reason = match &suite.framework {
            Some(framework) => format!("{framework} suite found, but `{tool}` is not installed"),
            None => format!("test suite needs `{tool}`, which is not installed"),
        };
        Resolution::Unavailable {
            suite: Some(suite),
            reason,
        }
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

    fn found(res: Resolution) -> Suite {
        match res {
            Resolution::Found(suite) => suite,
            other => panic!("expected a suite, got {other:?}"),
        }
    }

    #[test]
    fn declared_wins_then_conventional_then_framework() {
        let (dir, files) = setup(&[("test.sh", ""), ("run_tests.sh", ""), ("x.test.js", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("run_tests.sh".into()),
            ..SkillMeta::default()
        };
        let suite = found(resolve(&root, &root, &meta, &files));
        assert_eq!(
            (suite.source, suite.command.as_str()),
            (SuiteSource::Declared, "bash run_tests.sh")
        );
        let suite = found(resolve(&root, &root, &SkillMeta::default(), &files));
        assert_eq!(
            (suite.source, suite.command.as_str()),
            (SuiteSource::Conventional, "bash test.sh")
        );
        let suite = found(resolve(&root, &root, &SkillMeta::default(), &files[2..]));
        assert_eq!(suite.framework.as_deref(), Some("node:test"));
        assert_eq!(suite.command, "node --test");
    }

    #[test]
    fn declared_command_runs_through_bash() {
        let (dir, files) = setup(&[("a.txt", "")]);
        let root = dir.path().canonicalize().expect("canon");
        let meta = SkillMeta {
            test_suite: Some("python3 -m unittest -v".into()),
            ..SkillMeta::default()
        };
        let suite = found(resolve(&root, &root, &meta, &files));
        assert_eq!(suite.args, vec!["-c", "python3 -m unittest -v"]);
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
    fn python_frameworks_and_nothing() {
        let (dir, files) = setup(&[("tests/test_x.py", ""), ("conftest.py", "")]);
        let root = dir.path().canonicalize().expect("canon");
        match resolve(&root, &root, &SkillMeta::default(), &files) {
            Resolution::Found(s) | Resolution::Unavailable { suite: Some(s), .. } => {
                assert_eq!(s.framework.as_deref(), Some("pytest"));
            }
            other => panic!("{other:?}"),
        }
        let (dir, files) = setup(&[("README.md", "")]);
        let root = dir.path().canonicalize().expect("canon");
        assert_eq!(
            resolve(&root, &root, &SkillMeta::default(), &files),
            Resolution::None
        );
    }
}
