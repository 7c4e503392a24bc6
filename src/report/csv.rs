//! The report as CSV: one file per section (`pass-rates.csv`, …), RFC 4180.
//!
//! Each file is a header row then one row per record, lines ending in CRLF as RFC 4180 has them
//! (Python's `csv`, pandas and spreadsheets read it; so do `cut` and `awk` with a `\r` to
//! spare). A field holding `,`, `"`, CR or LF is quoted, its quotes doubled. A text field that a
//! spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) gets a
//! leading `'`, unless it is a plain number. Rates and coverage are fractions (`0.957`) rounded
//! to 4 decimals, as in the JSON; a missing value is an empty field; lists (who was asked, who
//! approved) are joined with `;`. An empty section is its header alone.
//!
//! `pass-rates.csv` has one row per (skill, run), seed query 1's rows; the daily mean pass rate
//! across skills is in the JSON format (`report --format json`), not here.

use super::json::round4;
use super::{Report, Section};

/// One `(file name, contents)` per section of the report.
pub fn render(report: &Report) -> Vec<(String, String)> {
    report
        .sections
        .iter()
        .map(|section| {
            let (header, rows) = table(section);
            let mut out = String::new();
            line(&mut out, header.iter().map(|h| text(h)));
            for row in rows {
                line(&mut out, row);
            }
            (format!("{}.csv", section.name().as_str()), out)
        })
        .collect()
}

fn line(out: &mut String, fields: impl IntoIterator<Item = String>) {
    let fields: Vec<String> = fields.into_iter().collect();
    out.push_str(&fields.join(","));
    out.push_str("\r\n");
}

/// The header and the rows (fields already encoded) of one section.
fn table(section: &Section) -> (&'static [&'static str], Vec<Vec<String>>) {
    match section {
        Section::PassRates(p) => (
            &[
                "skill",
                "dir",
                "category",
                "runs",
                "timestamp",
                "approval_level",
                "pass_rate",
                "pass_count",
                "fail_count",
                "coverage",
                "decision",
            ],
            p.skills
                .iter()
                .flat_map(|s| {
                    s.points.iter().map(|p| {
                        vec![
                            text(&s.skill),
                            opt_text(s.dir.as_deref()),
                            text(&s.category),
                            int(s.runs),
                            text(&p.timestamp),
                            text(&p.approval_level),
                            opt_real(p.pass_rate),
                            opt_int(p.pass_count),
                            opt_int(p.fail_count),
                            opt_real(p.coverage),
                            text(&p.decision),
                        ]
                    })
                })
                .collect(),
        ),
        Section::Waiting(rows) => (
            &[
                "skill",
                "dir",
                "category",
                "approval_level",
                "repository",
                "pull_request",
                "head_sha",
                "since",
                "waited_hours",
                "escalation_reason",
                "escalated_to",
                "approvals",
                "test_coverage",
            ],
            rows.iter()
                .map(|w| {
                    vec![
                        text(&w.skill),
                        opt_text(w.dir.as_deref()),
                        text(&w.category),
                        text(&w.approval_level),
                        text(&w.repository),
                        int(w.pull_request),
                        text(&w.head_sha),
                        text(&w.since),
                        int(w.waited_hours),
                        opt_text(w.escalation_reason.as_deref()),
                        text(&w.escalated_to.join(";")),
                        text(&w.approvals.join(";")),
                        opt_real(w.test_coverage),
                    ]
                })
                .collect(),
        ),
        Section::Effectiveness(rows) => (
            &[
                "agent_type",
                "skill",
                "category",
                "test_pass_rate",
                "confidence_improvement",
                "usage_count",
                "success_rate",
            ],
            rows.iter()
                .map(|e| {
                    vec![
                        text(&e.agent_type),
                        text(&e.skill),
                        text(&e.category),
                        opt_real(e.test_pass_rate),
                        opt_real(e.confidence_improvement),
                        int(e.usage_count),
                        opt_real(e.success_rate),
                    ]
                })
                .collect(),
        ),
        Section::Coverage(rows) => (
            &[
                "category",
                "skill_count",
                "avg_coverage",
                "min_coverage",
                "max_coverage",
                "excellent",
                "good",
                "poor",
                "unmeasured",
            ],
            rows.iter()
                .map(|c| {
                    vec![
                        text(&c.category),
                        int(c.skill_count),
                        opt_real(c.avg_coverage),
                        opt_real(c.min_coverage),
                        opt_real(c.max_coverage),
                        int(c.excellent),
                        int(c.good),
                        int(c.poor),
                        int(c.unmeasured),
                    ]
                })
                .collect(),
        ),
        Section::GatePerformance(rows) => (
            &[
                "approval_level",
                "total",
                "approved",
                "rejected",
                "needs_correction",
                "escalated",
                "approval_rate",
                "avg_review_minutes",
            ],
            rows.iter()
                .map(|t| {
                    vec![
                        text(&t.approval_level),
                        int(t.total),
                        int(t.approved),
                        int(t.rejected),
                        int(t.needs_correction),
                        int(t.escalated),
                        real(t.approval_rate),
                        opt_real(t.avg_review_minutes),
                    ]
                })
                .collect(),
        ),
        Section::Phase4(rows) => (
            &[
                "skill",
                "category",
                "phase4_pattern_id",
                "test_coverage",
                "required_test_pass_rate",
                "decision",
                "approval_level",
                "approved_at",
                "created_at",
            ],
            rows.iter()
                .map(|g| {
                    vec![
                        text(&g.skill),
                        text(&g.category),
                        g.phase4_pattern_id
                            .map(|id| id.to_string())
                            .unwrap_or_default(),
                        opt_real(g.test_coverage),
                        opt_real(g.required_test_pass_rate),
                        opt_text(g.decision.as_deref()),
                        opt_text(g.approval_level.as_deref()),
                        opt_text(g.approved_at.as_deref()),
                        text(&g.created_at),
                    ]
                })
                .collect(),
        ),
        Section::FlakyTests(rows) => (
            &["skill", "test", "flaky_runs", "runs", "last_seen"],
            rows.iter()
                .map(|f| {
                    vec![
                        text(&f.skill),
                        text(&f.test),
                        int(f.flaky_runs),
                        int(f.runs),
                        text(&f.last_seen),
                    ]
                })
                .collect(),
        ),
        Section::TimeToApproval(rows) => (
            &[
                "approval_level",
                "approvals",
                "median_minutes",
                "p90_minutes",
                "max_minutes",
            ],
            rows.iter()
                .map(|t| {
                    vec![
                        text(&t.approval_level),
                        int(t.approvals),
                        real(t.median_minutes),
                        real(t.p90_minutes),
                        real(t.max_minutes),
                    ]
                })
                .collect(),
        ),
        Section::Migration(rows) => (
            &[
                "category",
                "skill_count",
                "no_coverage_data",
                "no_test_path",
                "deprecated",
                "latest_auto",
                "latest_escalate",
                "latest_human",
                "never_gated",
            ],
            rows.iter()
                .map(|g| {
                    vec![
                        text(&g.category),
                        int(g.skill_count),
                        int(g.no_coverage_data),
                        int(g.no_test_path),
                        int(g.deprecated),
                        int(g.latest_auto),
                        int(g.latest_escalate),
                        int(g.latest_human),
                        int(g.never_gated),
                    ]
                })
                .collect(),
        ),
    }
}

/// A text field: formulas neutralised, then quoted when it must be.
fn text(value: &str) -> String {
    let starts_a_formula = value.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let value = if starts_a_formula && !is_number(value) {
        format!("'{value}")
    } else {
        value.to_owned()
    };
    if value.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

fn opt_text(value: Option<&str>) -> String {
    value.map(text).unwrap_or_default()
}

/// Whether a spreadsheet reads `value` as a plain number (`-6.4`, `+1e3`), not a formula.
fn is_number(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
        && value.parse::<f64>().is_ok_and(f64::is_finite)
}

fn int(value: u64) -> String {
    value.to_string()
}

fn opt_int(value: Option<u64>) -> String {
    value.map(int).unwrap_or_default()
}

/// A number to 4 decimals, without trailing zeros (`0.957`, `98`); empty when not a number.
fn real(value: f64) -> String {
    if value.is_finite() {
        round4(value).to_string()
    } else {
        String::new()
    }
}

fn opt_real(value: Option<f64>) -> String {
    value.map(real).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{SectionName, sample};

    fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_str())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn one_file_per_section_named_by_it() {
        let files = render(&sample::report());
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let expected: Vec<String> = SectionName::ALL
            .iter()
            .map(|s| format!("{}.csv", s.as_str()))
            .collect();
        assert_eq!(names, expected);
        for (name, contents) in &files {
            assert!(contents.ends_with("\r\n"), "{name}");
            assert!(!contents.replace("\r\n", "").contains('\n'), "{name}");
        }
    }

    #[test]
    fn pass_rates_have_a_row_per_point() {
        let files = render(&sample::report());
        let csv = file(&files, "pass-rates.csv");
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert_eq!(lines.len(), 1 + 3 + 1);
        assert_eq!(
            lines[0],
            "skill,dir,category,runs,timestamp,approval_level,pass_rate,pass_count,fail_count,coverage,decision"
        );
        assert_eq!(
            lines[2],
            "api-tester,.claude/skills/api-tester,testing,3,2026-11-15 10:00:00,escalate,0.936,44,3,0.88,escalated"
        );
        // Text is data in CSV: kept as written, quoted only where it must be.
        assert_eq!(
            lines[4],
            "<b>x</b> @team | `y`,skills/evil,general,1,2026-11-15 10:00:00,escalate,0.5,1,1,0.88,needs_correction"
        );
    }

    #[test]
    fn waiting_lists_who_was_asked() {
        let files = render(&sample::report());
        let csv = file(&files, "waiting.csv");
        let row = csv.split_terminator("\r\n").nth(1).expect("a row");
        assert!(row.contains(",72,"), "{row}");
        assert!(
            row.ends_with("infrastructure change: deploy.sh runs kubectl,alice;acme/infra,,0.91"),
            "{row}"
        );
    }

    #[test]
    fn fields_are_quoted_as_rfc_4180_has_it() {
        assert_eq!(text("plain"), "plain");
        assert_eq!(text("a,b"), "\"a,b\"");
        assert_eq!(text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(text("two\nlines"), "\"two\nlines\"");
        assert_eq!(text("cr\rhere"), "\"cr\rhere\"");
        assert_eq!(text(""), "");
    }

    #[test]
    fn formulas_are_neutralised_but_numbers_stay_numbers() {
        assert_eq!(text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(text("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(text("-2+3"), "'-2+3");
        assert_eq!(text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text("\tx"), "'\tx");
        assert_eq!(text("\rx"), "\"'\rx\"");
        assert_eq!(text("-inf"), "'-inf");
        // Plain numbers, as text or not, are left alone.
        assert_eq!(text("-6.4"), "-6.4");
        assert_eq!(text("+1e3"), "+1e3");
        assert_eq!(real(-6.4), "-6.4");
        assert_eq!(real(98.0), "98");
        assert_eq!(real(2.0 / 3.0), "0.6667");
        assert_eq!(real(f64::NAN), "");
        // Only the start counts.
        assert_eq!(text("a=b"), "a=b");
    }

    #[test]
    fn hostile_names_cannot_run_in_a_spreadsheet() {
        let mut report = sample::report();
        for section in &mut report.sections {
            if let Section::FlakyTests(rows) = section {
                rows[0].test = "=cmd|'/C calc'!A0,\"x\"".into();
                rows[0].skill = "@evil".into();
            }
        }
        let files = render(&report);
        let csv = file(&files, "flaky-tests.csv");
        assert_eq!(
            csv,
            "skill,test,flaky_runs,runs,last_seen\r\n\
             '@evil,\"'=cmd|'/C calc'!A0,\"\"x\"\"\",4,9,2026-11-16 10:00:00\r\n"
        );
    }

    #[test]
    fn sample_files() {
        for (name, contents) in render(&sample::report()) {
            insta::assert_snapshot!(
                format!("csv_sample_{}", name.trim_end_matches(".csv")),
                contents
            );
        }
    }

    #[test]
    fn empty_sections_are_their_header_alone() {
        let files = render(&sample::empty());
        assert_eq!(files.len(), SectionName::ALL.len());
        for (name, contents) in &files {
            assert_eq!(contents.matches("\r\n").count(), 1, "{name}: {contents}");
            insta::assert_snapshot!(
                format!("csv_empty_{}", name.trim_end_matches(".csv")),
                contents
            );
        }
    }
}
