//! bun's test runner: run when a package's test script runs `bun test`, or, without a test
//! script, when the skill has test files and says it is a bun project (`bunfig.toml`, a
//! `bun:test` import). Another script that runs bun (`"format": "bunx prettier"`) says nothing
//! about the tests. It writes JUnit and lcov into the report directory.

use std::path::Path;

use super::host::Host;
use super::resolve::{Detected, MAX_DETECT_BYTES, Suite, SuiteSource, file_name, with_tool};
use super::shell::{first_command, shown, strip_launchers};

/// bun's flags that ours set: the script's own are dropped so that two do not clash.
const BUN_OWNED: &[&str] = &[
    "--reporter",
    "--reporter-outfile",
    "--coverage",
    "--coverage-reporter",
    "--coverage-dir",
    "--watch",
];

/// What `bun test` runs: `*.test.*`, `*_test.*`, `*.spec.*`, `*_spec.*` scripts.
pub(super) fn is_bun_test_file(path: &str) -> bool {
    if path.split('/').any(|s| s == "node_modules") {
        return false;
    }
    let name = file_name(path);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    ["js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts"].contains(&ext)
        && [".test", "_test", ".spec", "_spec"]
            .iter()
            .any(|s| stem.ends_with(s))
}

/// The arguments of a test script whose first command is `bun test`, less those ours set.
fn script_args(script: &str) -> Option<Vec<String>> {
    let words = first_command(script)?;
    let (_, rest) = strip_launchers(&words);
    match rest {
        [bun, test, args @ ..] if file_name(bun) == "bun" && test == "test" => Some(
            args.iter()
                .filter(|a| {
                    let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f);
                    !BUN_OWNED.contains(&flag)
                })
                .cloned()
                .collect(),
        ),
        _ => None,
    }
}

/// The bun suite of a skill, when it is a bun project with tests. `script` is the package's
/// test script: when there is one, it alone decides.
pub(super) fn bun_suite(
    host: &dyn Host,
    dir: &Path,
    repo: &Path,
    files: &[String],
    script: Option<&str>,
) -> Option<Detected> {
    let from_script = script.and_then(script_args);
    let tests: Vec<&String> = files.iter().filter(|f| is_bun_test_file(f)).collect();
    let imports_bun_test = || {
        tests.iter().any(|f| {
            crate::untrusted::read_file(repo, &dir.join(f), MAX_DETECT_BYTES).is_ok_and(|b| {
                let text = String::from_utf8_lossy(&b);
                text.contains("\"bun:test\"") || text.contains("'bun:test'")
            })
        })
    };
    let is_bun = match script {
        Some(_) => from_script.is_some(),
        None => {
            !tests.is_empty() && (files.iter().any(|f| f == "bunfig.toml") || imports_bun_test())
        }
    };
    if !is_bun {
        return None;
    }
    let mut args = vec!["test".to_owned()];
    args.extend(from_script.unwrap_or_default());
    args.extend(
        [
            "--reporter=junit",
            "--reporter-outfile={report_dir}/bun.xml",
            "--coverage",
            "--coverage-reporter=lcov",
            "--coverage-dir={report_dir}/coverage",
        ]
        .map(str::to_owned),
    );
    let suite = Suite {
        source: SuiteSource::Detected,
        command: shown("bun", &args),
        program: "bun".to_owned(),
        args,
        framework: Some("bun".to_owned()),
        path: None,
        unrun: Vec::new(),
    };
    Some(Detected::new(
        with_tool(host, suite, "bun"),
        "bun".to_owned(),
        tests.into_iter().cloned().collect(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::suite::testing::{Fake, detect, found, setup, strings, unavailable_reason};

    const BUN_REPORT: &[&str] = &[
        "--reporter=junit",
        "--reporter-outfile={report_dir}/bun.xml",
        "--coverage",
        "--coverage-reporter=lcov",
        "--coverage-dir={report_dir}/coverage",
    ];

    #[test]
    fn a_bun_test_script_runs_bun_with_its_arguments_and_the_report_flags() {
        let (dir, files) = setup(&[
            (
                "package.json",
                r#"{"scripts":{"test":"bun test --timeout 5000 --reporter=dots src"}}"#,
            ),
            ("src/grade.test.ts", ""),
        ]);
        let suite = found(detect(&Fake::all().with_tool("bun"), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("bun"));
        assert_eq!(suite.program, "bun");
        let mut expected = strings(&["test", "--timeout", "5000", "src"]);
        expected.extend(strings(BUN_REPORT));
        assert_eq!(suite.args, expected);
        assert_eq!(
            suite.command,
            "bun test --timeout 5000 src --reporter=junit \
             --reporter-outfile=\"$SKILLGATE_REPORT_DIR\"/bun.xml --coverage \
             --coverage-reporter=lcov --coverage-dir=\"$SKILLGATE_REPORT_DIR\"/coverage"
        );
    }

    #[test]
    fn bun_projects_are_known_by_bunfig_or_imports() {
        let cases: &[&[(&str, &str)]] = &[
            &[("bunfig.toml", ""), ("grade.test.ts", "")],
            &[("grade.test.ts", "import { test } from \"bun:test\";\n")],
            &[(
                "tests/grade_spec.tsx",
                "import { expect } from 'bun:test';\n",
            )],
            // A package without a test script leaves it to the files.
            &[
                (
                    "package.json",
                    r#"{"scripts":{"dev":"bun run src/index.ts"}}"#,
                ),
                ("bunfig.toml", ""),
                ("grade.test.ts", ""),
            ],
        ];
        for files in cases {
            let (dir, names) = setup(files);
            let suite = found(detect(&Fake::all().with_tool("bun"), &dir, &names));
            assert_eq!(suite.args[0], "test", "{files:?}");
            assert_eq!(suite.framework.as_deref(), Some("bun"), "{files:?}");
        }
        // Test files alone, or a bunfig without tests, are no bun suite.
        let (dir, names) = setup(&[("grade.test.ts", "")]);
        assert_eq!(
            detect(&Fake::all().with_tool("bun"), &dir, &names),
            crate::suite::Resolution::None
        );
        let (dir, names) = setup(&[("bunfig.toml", ""), ("index.ts", "")]);
        assert_eq!(
            detect(&Fake::all().with_tool("bun"), &dir, &names),
            crate::suite::Resolution::None
        );
    }

    #[test]
    fn a_test_script_decides_whatever_the_other_scripts_run() {
        // A jest skill whose formatter runs through bunx (issue #15 review): jest runs.
        let package = r#"{"scripts":{"test":"jest","format":"bunx prettier --write ."},
                          "devDependencies":{"jest":"30"}}"#;
        let cases: &[&[(&str, &str)]] = &[
            &[("package.json", package), ("smoke.test.js", "")],
            &[
                ("package.json", package),
                ("bunfig.toml", ""),
                ("smoke.test.ts", "import { test } from \"bun:test\";\n"),
            ],
        ];
        for files in cases {
            let (dir, names) = setup(files);
            crate::suite::testing::fake_bin(dir.path(), "node_modules/.bin/jest");
            let suite = found(detect(&Fake::all().with_tool("bun"), &dir, &names));
            assert_eq!(suite.framework.as_deref(), Some("jest"), "{files:?}");
        }
        // Scripts alone, without a test script, are no bun project either.
        let (dir, names) = setup(&[
            (
                "package.json",
                r#"{"scripts":{"dev":"bun run src/index.ts"}}"#,
            ),
            ("grade.test.ts", ""),
        ]);
        assert_eq!(
            detect(&Fake::all().with_tool("bun"), &dir, &names),
            crate::suite::Resolution::None
        );
    }

    #[test]
    fn without_bun_the_reason_names_how_to_install_it() {
        let (dir, files) = setup(&[("package.json", r#"{"scripts":{"test":"bun test"}}"#)]);
        let (suite, reason) = unavailable_reason(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            reason,
            "bun suite found, but `bun` is not installed (help: run `npm install -g bun`)"
        );
        assert_eq!(suite.command.split(' ').next(), Some("bun"));
    }
}
