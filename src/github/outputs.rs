//! The job's own files: the Markdown report appended to `GITHUB_STEP_SUMMARY`, and `tier`,
//! `decision` and `results` written to `GITHUB_OUTPUT` for later steps.

use std::io::Write;
use std::path::Path;

use crate::gate::GateRun;
use crate::policy::Verdict;
use crate::skill::Tier;

/// GitHub caps a job's outputs at 1 MB in all; a bigger document is summarised.
const MAX_RESULTS_OUTPUT: usize = 900 * 1024;

/// The run's heaviest tier: `auto`, `escalate`, `human`, or `none` with nothing to gate.
pub fn tier(run: &GateRun) -> &'static str {
    run.skills
        .iter()
        .map(|s| s.decision.tier)
        .max_by_key(|t| match t {
            Tier::Auto => 0,
            Tier::Escalate => 1,
            Tier::Human => 2,
        })
        .map_or("none", Tier::as_str)
}

/// `needs_correction`, `escalated`, `approved`, or `none` with nothing to gate.
pub fn decision(run: &GateRun) -> &'static str {
    let verdicts = || run.skills.iter().map(|s| s.decision.decision);
    if run.skills.is_empty() {
        "none"
    } else if verdicts().any(|v| v == Verdict::NeedsCorrection) {
        Verdict::NeedsCorrection.as_str()
    } else if verdicts().any(|v| v == Verdict::Escalated) {
        Verdict::Escalated.as_str()
    } else {
        Verdict::Approved.as_str()
    }
}

/// Append `text` to the step summary file.
pub fn append_summary(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// The `GITHUB_OUTPUT` lines for a run. Every value uses the heredoc form with a delimiter no
/// value can contain (random, and checked), so a skill's text cannot set another output.
pub fn output_lines(run: &GateRun) -> Result<String, String> {
    let mut results = crate::render::json(run);
    if results.len() > MAX_RESULTS_OUTPUT {
        results = serde_json::json!({
            "schema": run.schema,
            "run": run.run,
            "summary": run.summary,
            "truncated": "the results document is larger than a job output may be; use check --out",
        })
        .to_string();
    }
    let mut out = String::new();
    for (name, value) in [
        ("tier", tier(run).to_owned()),
        ("decision", decision(run).to_owned()),
        ("results", results),
    ] {
        let delimiter = loop {
            let candidate = format!(
                "skillgate_{}",
                crate::random::hex(16).ok_or("no source of randomness for a delimiter")?
            );
            if !value.contains(&candidate) {
                break candidate;
            }
        };
        out.push_str(&format!("{name}<<{delimiter}\n{value}"));
        if !value.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&delimiter);
        out.push('\n');
    }
    Ok(out)
}

/// Append the outputs to the `GITHUB_OUTPUT` file.
pub fn write_outputs(path: &Path, run: &GateRun) -> std::io::Result<()> {
    let lines = output_lines(run).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(lines.as_bytes())
}
