//! The Markdown report (job summary, PR comment): a table of skills, then failures and findings.
//! Every piece of text that came from a skill or a test is escaped.

use std::fmt::Write;

use super::cells;
use super::escape::markdown_text as esc;
use crate::gate::GateRun;

pub fn markdown(run: &GateRun) -> String {
    let mut out = table(run);
    out.push_str(&details(run));
    out
}

/// The headline and one row per skill: tier, pass rate, coverage, risk and reasons.
pub fn table(run: &GateRun) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### skillgate: {}\n", cells::headline(run));
    if !run.skills.is_empty() {
        let _ = writeln!(
            out,
            "| skill | change | tier | pass rate | coverage | risk | reasons |"
        );
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |");
        for skill in &run.skills {
            let reasons: Vec<String> = cells::reasons(skill).iter().map(|r| esc(r)).collect();
            let _ = writeln!(
                out,
                "| {} | {} | **{}** | {} | {} | {} | {} |",
                esc(&cells::display_name(run, skill)),
                skill.change.label(),
                cells::tier(skill),
                cells::pass_rate(skill),
                cells::coverage(skill),
                cells::risk(skill),
                reasons.join("<br>")
            );
        }
    }
    out
}

/// Failed tests (folded, one block per skill) and findings.
pub fn details(run: &GateRun) -> String {
    let mut out = String::new();
    for skill in &run.skills {
        let Some(tests) = &skill.tests else { continue };
        if tests.failed_tests.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n<details><summary>{} failed tests in {}</summary>\n",
            tests.fail_count,
            esc(&cells::display_name(run, skill))
        );
        for case in &tests.failed_tests {
            let error = cells::failure_line(skill, tests, case)
                .map(|line| format!(": {}", esc(&line)))
                .unwrap_or_default();
            let name = cells::in_skill(&case.name, &skill.dir);
            let _ = writeln!(out, "- {}{error}", esc(&name));
        }
        let _ = writeln!(out, "\n</details>");
    }
    let findings: Vec<_> = run
        .findings
        .iter()
        .chain(run.skills.iter().flat_map(|s| s.lint.iter()))
        .collect();
    if !findings.is_empty() {
        let _ = writeln!(out, "\n**Findings**\n");
        for f in findings {
            let _ = writeln!(
                out,
                "- {} ({}): {}",
                esc(&f.location()),
                esc(&f.rule),
                esc(&f.message)
            );
        }
    }
    out
}
