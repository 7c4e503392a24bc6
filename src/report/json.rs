//! The report as JSON (schema `skillgate.report/1`): the same data, with stable keys.
//!
//! Keys come in the order the types declare them (`schema` first); sections are an array of
//! `{"section": "pass-rates", "data": …}` in the report's order. Every number with a fraction is
//! rounded to 4 decimals, so a rate the database computed as `0.9366666666666666` reads `0.9367`
//! and the document does not change with the last bits of a float.

use super::{
    CategoryCoverage, CategoryGaps, DailyPassRate, Effectiveness, FlakyTest, Generated,
    PassRatePoint, PassRates, Report, Section, SkillPassRate, TierApprovalTime, TierPerformance,
    Waiting,
};

/// The report as a pretty-printed JSON document, ending in a newline.
pub fn render(report: &Report) -> String {
    let report = rounded(report);
    let mut out = serde_json::to_string_pretty(&report).unwrap_or_else(|err| {
        // Serializing plain data cannot fail; if it ever does, say so in valid JSON.
        serde_json::json!({ "error": format!("failed to serialize the report: {err}") }).to_string()
    });
    out.push('\n');
    out
}

/// `value` to 4 decimals.
pub(super) fn round4(value: f64) -> f64 {
    if value.is_finite() {
        (value * 10_000.0).round() / 10_000.0
    } else {
        value
    }
}

fn round_opt(value: &mut Option<f64>) {
    if let Some(v) = value {
        *v = round4(*v);
    }
}

/// A copy of `report` with every float rounded. The patterns name every field, so a float added
/// to a row type does not compile until it is rounded here too.
fn rounded(report: &Report) -> Report {
    let mut report = report.clone();
    for section in &mut report.sections {
        match section {
            Section::PassRates(PassRates { daily, skills }) => {
                for DailyPassRate {
                    day: _,
                    mean_pass_rate,
                    decisions: _,
                } in daily
                {
                    *mean_pass_rate = round4(*mean_pass_rate);
                }
                let points = skills.iter_mut().flat_map(
                    |SkillPassRate {
                         skill: _,
                         dir: _,
                         category: _,
                         runs: _,
                         points,
                     }| points.iter_mut(),
                );
                for point in points {
                    let PassRatePoint {
                        timestamp: _,
                        approval_level: _,
                        pass_rate,
                        pass_count: _,
                        fail_count: _,
                        coverage,
                        decision: _,
                    } = point;
                    round_opt(pass_rate);
                    round_opt(coverage);
                }
            }
            Section::Waiting(rows) => {
                for Waiting {
                    skill: _,
                    dir: _,
                    category: _,
                    approval_level: _,
                    repository: _,
                    pull_request: _,
                    head_sha: _,
                    since: _,
                    waited_hours: _,
                    escalation_reason: _,
                    escalated_to: _,
                    approvals: _,
                    test_coverage,
                } in rows
                {
                    round_opt(test_coverage);
                }
            }
            Section::Effectiveness(rows) => {
                for Effectiveness {
                    agent_type: _,
                    skill: _,
                    category: _,
                    test_pass_rate,
                    confidence_improvement,
                    usage_count: _,
                    success_rate,
                } in rows
                {
                    round_opt(test_pass_rate);
                    round_opt(confidence_improvement);
                    round_opt(success_rate);
                }
            }
            Section::Coverage(rows) => {
                for CategoryCoverage {
                    category: _,
                    skill_count: _,
                    avg_coverage,
                    min_coverage,
                    max_coverage,
                    excellent: _,
                    good: _,
                    poor: _,
                    unmeasured: _,
                } in rows
                {
                    round_opt(avg_coverage);
                    round_opt(min_coverage);
                    round_opt(max_coverage);
                }
            }
            Section::GatePerformance(rows) => {
                for TierPerformance {
                    approval_level: _,
                    total: _,
                    approved: _,
                    rejected: _,
                    needs_correction: _,
                    escalated: _,
                    approval_rate,
                    avg_review_minutes,
                } in rows
                {
                    *approval_rate = round4(*approval_rate);
                    round_opt(avg_review_minutes);
                }
            }
            Section::Phase4(rows) => {
                for Generated {
                    skill: _,
                    category: _,
                    phase4_pattern_id: _,
                    test_coverage,
                    required_test_pass_rate,
                    decision: _,
                    approval_level: _,
                    approved_at: _,
                    created_at: _,
                } in rows
                {
                    round_opt(test_coverage);
                    round_opt(required_test_pass_rate);
                }
            }
            Section::TimeToApproval(rows) => {
                for TierApprovalTime {
                    approval_level: _,
                    approvals: _,
                    median_minutes,
                    p90_minutes,
                    max_minutes,
                } in rows
                {
                    for v in [median_minutes, p90_minutes, max_minutes] {
                        *v = round4(*v);
                    }
                }
            }
            // Counts and text only, named so that a float added to them is seen here.
            Section::FlakyTests(rows) => {
                for FlakyTest {
                    skill: _,
                    test: _,
                    flaky_runs: _,
                    runs: _,
                    last_seen: _,
                } in rows
                {}
            }
            Section::Migration(rows) => {
                for CategoryGaps {
                    category: _,
                    skill_count: _,
                    no_coverage_data: _,
                    no_test_path: _,
                    deprecated: _,
                    latest_auto: _,
                    latest_escalate: _,
                    latest_human: _,
                    never_gated: _,
                } in rows
                {}
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::report::{SCHEMA, SectionName, sample};

    fn parse(json: &str) -> Value {
        serde_json::from_str(json).expect("the report is JSON")
    }

    #[test]
    fn the_sample_reads_back_with_stable_keys() {
        let json = render(&sample::report());
        assert!(json.ends_with("}\n"));
        assert!(
            json.starts_with("{\n  \"schema\": \"skillgate.report/1\",\n  \"repository\""),
            "schema first: {json}"
        );
        let doc = parse(&json);
        assert_eq!(doc["schema"], SCHEMA);
        assert_eq!(doc["repository"], "acme/skills");
        assert_eq!(doc["since"], "2026-11-01 00:00:00");
        assert_eq!(doc["decisions_in_window"], 315);
        assert_eq!(doc["decisions_total"], 1204);
        let sections = doc["sections"].as_array().expect("an array");
        let names: Vec<&str> = sections
            .iter()
            .map(|s| s["section"].as_str().expect("a name"))
            .collect();
        let all: Vec<&str> = SectionName::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, all);
        let pass = &sections[0]["data"];
        assert_eq!(pass["daily"][1]["mean_pass_rate"], 0.936);
        assert_eq!(pass["skills"][0]["skill"], "api-tester");
        assert_eq!(pass["skills"][0]["points"][2]["pass_count"], 45);
        // Text is data here: the hostile name is kept as it was, JSON-escaped only.
        assert_eq!(pass["skills"][1]["skill"], "<b>x</b> @team | `y`");
        let waiting = &sections[1]["data"][0];
        assert_eq!(waiting["escalated_to"][1], "acme/infra");
        assert_eq!(waiting["approvals"], Value::Array(vec![]));
        assert_eq!(sections[4]["data"][2]["approval_rate"], 66.7);
        assert_eq!(sections[4]["data"][0]["avg_review_minutes"], Value::Null);
        insta::assert_snapshot!("json_sample", json);
    }

    #[test]
    fn the_empty_report_has_every_section_empty() {
        let json = render(&sample::empty());
        let doc = parse(&json);
        assert_eq!(doc["repository"], Value::Null);
        let sections = doc["sections"].as_array().expect("an array");
        assert_eq!(sections.len(), SectionName::ALL.len());
        assert_eq!(
            sections[0]["data"],
            serde_json::json!({ "daily": [], "skills": [] })
        );
        assert_eq!(sections[1]["data"], serde_json::json!([]));
        insta::assert_snapshot!("json_empty", json);
    }

    #[test]
    fn floats_are_rounded_to_four_decimals() {
        assert_eq!(round4(0.936_666_666_666_666_6), 0.9367);
        assert_eq!(round4(2.0 / 3.0), 0.6667);
        assert!(round4(f64::NAN).is_nan());
        let mut report = sample::report();
        for section in &mut report.sections {
            match section {
                Section::PassRates(p) => {
                    p.daily[0].mean_pass_rate = 2.0 / 3.0;
                    p.skills[0].points[0].coverage = Some(0.123_456_789);
                }
                Section::TimeToApproval(rows) => rows[0].median_minutes = 10.0 / 3.0,
                _ => {}
            }
        }
        let doc = parse(&render(&report));
        let sections = &doc["sections"];
        assert_eq!(sections[0]["data"]["daily"][0]["mean_pass_rate"], 0.6667);
        assert_eq!(
            sections[0]["data"]["skills"][0]["points"][0]["coverage"],
            0.1235
        );
        assert_eq!(sections[7]["data"][0]["median_minutes"], 3.3333);
    }
}
