//! `skillgate lint`'s output: one line per finding for a terminal or an editor's problem
//! matcher, or the report as JSON.

use std::fmt::Write;

use super::text::clean;
use crate::skill::Severity;
use crate::skill::lint_report::Report;
use crate::untrusted::inert;

/// `file:line:column: severity[rule]: message` per finding, then a count; inert in a log.
pub fn lint_text(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        let severity = match finding.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "{}: {severity}[{}]: {}",
            clean(&finding.location()),
            finding.rule,
            clean(&finding.message)
        );
    }
    let summary = &report.summary;
    if summary.skills == 0 {
        out.push_str("no skills found\n");
        return inert::text(&out);
    }
    if !report.findings.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{}: {}",
        plural(summary.skills, "skill"),
        if summary.errors + summary.warnings == 0 {
            "no findings".to_owned()
        } else {
            format!(
                "{}, {}",
                plural(summary.errors, "error"),
                plural(summary.warnings, "warning")
            )
        }
    );
    inert::text(&out)
}

/// The report as pretty JSON with a trailing newline.
pub fn lint_json(report: &Report) -> String {
    let mut out = serde_json::to_string_pretty(report).unwrap_or_else(|err| {
        serde_json::json!({ "error": format!("failed to serialize the report: {err}") }).to_string()
    });
    out.push('\n');
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::Finding;
    use crate::skill::lint_report::Linted;

    #[test]
    fn one_line_per_finding_then_a_count() {
        let linted = Linted {
            findings: vec![
                Finding::error("name-invalid", "s/a/SKILL.md", Some(2), "bad \u{1b}[2Jname")
                    .at_column(7),
                Finding::warning("script-not-executable", "s/a/scripts/x.sh", None, "chmod"),
            ],
            ..Linted::default()
        };
        let other = vec![Finding::warning("symlink-loop", "s/loop", None, "skipped")];
        let report = Report::new(false, vec![("s/a/SKILL.md".into(), linted)], other);
        assert_eq!(
            lint_text(&report),
            "s/a/SKILL.md:2:7: error[name-invalid]: bad \u{fffd}[2Jname\n\
             s/a/scripts/x.sh: warning[script-not-executable]: chmod\n\
             s/loop: warning[symlink-loop]: skipped\n\
             \n\
             1 skill: 1 error, 2 warnings\n"
        );
        let clean = Report::new(
            false,
            vec![("s/b/SKILL.md".into(), Linted::default())],
            vec![],
        );
        assert_eq!(lint_text(&clean), "1 skill: no findings\n");
        assert_eq!(
            lint_text(&Report::new(true, vec![], vec![])),
            "no skills found\n"
        );
    }

    #[test]
    fn json_round_trips() {
        let linted = Linted {
            findings: vec![Finding::error("x", "f", Some(1), "m").at_column(3)],
            ..Linted::default()
        };
        let report = Report::new(true, vec![("f".into(), linted)], vec![]);
        let json = lint_json(&report);
        let value: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(value["schema"], "skillgate.lint/1");
        assert_eq!(value["findings"][0]["column"], 3);
        assert_eq!(value["summary"]["errors"], 1);
        let again: Report = serde_json::from_str(&json).expect("parses");
        assert_eq!(again, report);
    }
}
