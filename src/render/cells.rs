//! The figures every renderer shows the same way.

use crate::gate::{GateRun, SkillResult};
use crate::policy::Verdict;

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
        Some(c) if c.source == "declared" => format!("{:.2} declared", c.ratio),
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

/// The reasons to show in a table: the blockers, or a short line for an approval.
pub fn reasons(skill: &SkillResult) -> Vec<String> {
    if skill.decision.decision == Verdict::Approved {
        vec![format!(
            "all {} criteria met",
            skill.decision.criteria.len()
        )]
    } else {
        skill.decision.reasons.clone()
    }
}

/// `5 skills gated: 1 auto, 2 escalate, 1 human, 1 needs correction`.
pub fn headline(run: &GateRun) -> String {
    let s = &run.summary;
    if s.skills == 0 {
        return "no skills to gate".to_owned();
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
