//! Bats: `*.bats` files, run by `bats` with TAP on stdout and JUnit into the report directory.

use super::host::Host;
use super::resolve::{Detected, detected, with_tool};

/// The bats suite of a skill with `.bats` files, each passed by name (bats does not recurse
/// into directories unless told).
pub(super) fn bats_suite(host: &dyn Host, files: &[String]) -> Option<Detected> {
    let tests: Vec<&str> = files
        .iter()
        .map(String::as_str)
        .filter(|f| f.ends_with(".bats") && !f.split('/').any(|s| s == "node_modules"))
        .collect();
    if tests.is_empty() {
        return None;
    }
    let mut args = vec![
        "--formatter",
        "tap",
        "--report-formatter",
        "junit",
        "--output",
        "{report_dir}",
    ];
    let names: Vec<String> = tests
        .iter()
        .map(|t| {
            if t.starts_with('-') {
                format!("./{t}")
            } else {
                (*t).to_owned()
            }
        })
        .collect();
    args.extend(names.iter().map(String::as_str));
    Some(Detected::new(
        with_tool(host, detected("bats", "bats", &args), "bats"),
        "bats".to_owned(),
        tests.iter().map(|&t| t.to_owned()).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use crate::suite::testing::{Fake, detect, found, setup, strings, unavailable_reason};

    #[test]
    fn bats_files_run_with_tap_and_a_junit_report() {
        let (dir, files) = setup(&[
            ("tests/grade.bats", "@test \"a\" { true; }\n"),
            ("tests/helpers.bash", ""),
            ("smoke.bats", ""),
        ]);
        let suite = found(detect(&Fake::all().with_tool("bats"), &dir, &files));
        assert_eq!(suite.framework.as_deref(), Some("bats"));
        assert_eq!(
            suite.args,
            strings(&[
                "--formatter",
                "tap",
                "--report-formatter",
                "junit",
                "--output",
                "{report_dir}",
                "tests/grade.bats",
                "smoke.bats",
            ])
        );
        assert_eq!(
            suite.command,
            "bats --formatter tap --report-formatter junit --output \"$SKILLGATE_REPORT_DIR\" \
             tests/grade.bats smoke.bats"
        );
        let (_, reason) = unavailable_reason(detect(&Fake::all(), &dir, &files));
        assert_eq!(
            reason,
            "bats suite found, but `bats` is not installed (help: run `apt-get install bats`, \
             or see https://bats-core.readthedocs.io/en/stable/installation.html)"
        );
    }
}
