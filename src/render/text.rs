//! The terminal report: a headline, a table of skills, then the details a reviewer asks for.

use std::fmt::Write;

use super::cells;
use crate::gate::GateRun;
use crate::untrusted::inert;

const HEADERS: [&str; 6] = [
    "SKILL",
    "CHANGE",
    "TIER",
    "PASS RATE",
    "COVERAGE",
    "REASONS",
];

/// Text from skills and tests, made safe for a terminal and a log, on one line: control and
/// bidirectional characters (a newline, a cursor move) are shown as `�`, and what could start a
/// workflow command is broken (see [`inert`]). Done per cell, so columns are measured on what
/// is shown.
pub(super) fn clean(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    inert::text(&one_line)
}

/// The report for a terminal or a log. A cell's text can land at a line's start (a reason on a
/// continuation line), so the whole report is made inert once more at the end.
pub fn text(run: &GateRun) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "skillgate: {}", cells::headline(run));
    if !run.skills.is_empty() {
        out.push('\n');
        table(run, &mut out);
    }
    failures(run, &mut out);
    findings(run, &mut out);
    inert::text(&out)
}

fn table(run: &GateRun, out: &mut String) {
    let rows: Vec<([String; 5], Vec<String>)> = run
        .skills
        .iter()
        .map(|skill| {
            let change = match &skill.change {
                crate::changes::ChangeKind::Renamed { from } => {
                    format!("renamed from {}", clean(from))
                }
                other => other.label().to_owned(),
            };
            (
                [
                    clean(&cells::display_name(run, skill)),
                    change,
                    cells::tier(skill).to_owned(),
                    cells::pass_rate(skill),
                    cells::coverage(skill),
                ],
                cells::reasons(skill).iter().map(|r| clean(r)).collect(),
            )
        })
        .collect();
    let mut widths = [0usize; 5];
    for (i, width) in widths.iter_mut().enumerate() {
        *width = rows
            .iter()
            .map(|(cols, _)| cols[i].chars().count())
            .chain(std::iter::once(HEADERS[i].chars().count()))
            .max()
            .unwrap_or(0);
    }
    let indent: usize = widths.iter().map(|w| w + 2).sum();
    for (i, header) in HEADERS.iter().take(5).enumerate() {
        let _ = write!(out, "{header:<w$}  ", w = widths[i]);
    }
    let _ = writeln!(out, "{}", HEADERS[5]);
    for (cols, reasons) in rows {
        for (i, col) in cols.iter().enumerate() {
            let pad = widths[i].saturating_sub(col.chars().count());
            let _ = write!(out, "{col}{}  ", " ".repeat(pad));
        }
        let mut reasons = reasons.into_iter();
        let _ = writeln!(out, "{}", reasons.next().unwrap_or_default());
        for reason in reasons {
            let _ = writeln!(out, "{}{reason}", " ".repeat(indent));
        }
    }
}

fn failures(run: &GateRun, out: &mut String) {
    for skill in &run.skills {
        let Some(tests) = &skill.tests else { continue };
        if tests.failed_tests.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\nfailed tests in {} ({} of {}):",
            clean(&cells::display_name(run, skill)),
            tests.fail_count,
            tests.total_count
        );
        for case in &tests.failed_tests {
            // Frameworks that name a test by its file give it as an absolute path on the
            // runner: shown from the skill, as the load-failure lines are.
            let place = match (&case.file, case.line) {
                (Some(file), Some(line)) => {
                    format!(" ({}:{line})", cells::in_skill(file, &skill.dir))
                }
                (Some(file), None) => format!(" ({})", cells::in_skill(file, &skill.dir)),
                _ => String::new(),
            };
            let name = cells::in_skill(&case.name, &skill.dir);
            let _ = writeln!(out, "  ✗ {}{}", clean(&name), clean(&place));
            if let Some(line) = cells::failure_line(skill, tests, case) {
                let _ = writeln!(out, "      {}", clean(&line));
            }
        }
        let kept = tests.failed_tests.len() as u64;
        if tests.fail_count > kept {
            let _ = writeln!(out, "  … and {} more", tests.fail_count - kept);
        }
    }
}

fn findings(run: &GateRun, out: &mut String) {
    let all: Vec<_> = run
        .findings
        .iter()
        .chain(run.skills.iter().flat_map(|s| s.lint.iter()))
        .collect();
    if all.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nfindings:");
    for finding in all {
        let severity = match finding.severity {
            crate::skill::Severity::Error => "error",
            crate::skill::Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "  {}: {severity}[{}]: {}",
            clean(&finding.location()),
            clean(&finding.rule),
            clean(&finding.message)
        );
    }
}
