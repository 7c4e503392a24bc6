//! A fixed report with every section filled, for the renderers' unit tests.

use super::{
    CategoryCoverage, CategoryGaps, DailyPassRate, Effectiveness, FlakyTest, Generated,
    PassRatePoint, PassRates, Report, SCHEMA, Section, SectionName, SkillPassRate,
    TierApprovalTime, TierPerformance, Waiting,
};

fn point(day: u32, rate: f64, pass: u64, fail: u64, decision: &str) -> PassRatePoint {
    PassRatePoint {
        timestamp: format!("2026-11-{day:02} 10:00:00"),
        approval_level: if decision == "approved" {
            "auto".into()
        } else {
            "escalate".into()
        },
        pass_rate: Some(rate),
        pass_count: Some(pass),
        fail_count: Some(fail),
        coverage: Some(0.88),
        decision: decision.into(),
    }
}

/// Every section with rows; a name with Markdown, HTML and a mention in it, as a hostile
/// skill would have.
pub fn report() -> Report {
    let sections = vec![
        Section::PassRates(PassRates {
            daily: vec![
                DailyPassRate {
                    day: "2026-11-14".into(),
                    mean_pass_rate: 1.0,
                    decisions: 2,
                },
                DailyPassRate {
                    day: "2026-11-15".into(),
                    mean_pass_rate: 0.936,
                    decisions: 3,
                },
                DailyPassRate {
                    day: "2026-11-16".into(),
                    mean_pass_rate: 0.957,
                    decisions: 1,
                },
            ],
            skills: vec![
                SkillPassRate {
                    skill: "api-tester".into(),
                    dir: Some(".claude/skills/api-tester".into()),
                    category: "testing".into(),
                    runs: 3,
                    points: vec![
                        point(14, 1.0, 47, 0, "approved"),
                        point(15, 0.936, 44, 3, "escalated"),
                        point(16, 0.957, 45, 2, "approved"),
                    ],
                },
                SkillPassRate {
                    skill: "<b>x</b> @team | `y`".into(),
                    dir: Some("skills/evil".into()),
                    category: "general".into(),
                    runs: 1,
                    points: vec![point(15, 0.5, 1, 1, "needs_correction")],
                },
            ],
        }),
        Section::Waiting(vec![Waiting {
            skill: "deploy-helper".into(),
            dir: Some(".claude/skills/deploy-helper".into()),
            category: "infrastructure".into(),
            approval_level: "human".into(),
            repository: "acme/skills".into(),
            pull_request: 42,
            head_sha: "3f2a9c1d0e5b7a6f8c9d0e1f2a3b4c5d6e7f8091".into(),
            since: "2026-11-28 09:15:00".into(),
            waited_hours: 72,
            escalation_reason: Some("infrastructure change: deploy.sh runs kubectl".into()),
            categories: vec![],
            escalated_to: vec!["alice".into(), "acme/infra".into()],
            approvals: vec![],
            changes_requested_by: vec![],
            test_coverage: Some(0.91),
        }]),
        Section::Effectiveness(vec![Effectiveness {
            agent_type: "backend-developer".into(),
            skill: "api-tester".into(),
            category: "testing".into(),
            test_pass_rate: Some(0.957),
            confidence_improvement: Some(0.125),
            usage_count: 14,
            success_rate: Some(0.95),
        }]),
        Section::Coverage(vec![
            CategoryCoverage {
                category: "testing".into(),
                skill_count: 12,
                avg_coverage: Some(0.92),
                min_coverage: Some(0.85),
                max_coverage: Some(0.99),
                excellent: 10,
                good: 2,
                poor: 0,
                unmeasured: 0,
            },
            CategoryCoverage {
                category: "general".into(),
                skill_count: 3,
                avg_coverage: None,
                min_coverage: None,
                max_coverage: None,
                excellent: 0,
                good: 0,
                poor: 0,
                unmeasured: 3,
            },
        ]),
        Section::GatePerformance(vec![
            TierPerformance {
                approval_level: "auto".into(),
                total: 245,
                approved: 240,
                rejected: 0,
                needs_correction: 0,
                escalated: 5,
                approval_rate: 98.0,
                avg_review_minutes: None,
            },
            TierPerformance {
                approval_level: "escalate".into(),
                total: 58,
                approved: 48,
                rejected: 8,
                needs_correction: 2,
                escalated: 0,
                approval_rate: 82.8,
                avg_review_minutes: Some(4.2),
            },
            TierPerformance {
                approval_level: "human".into(),
                total: 12,
                approved: 8,
                rejected: 3,
                needs_correction: 1,
                escalated: 0,
                approval_rate: 66.7,
                avg_review_minutes: Some(18.5),
            },
        ]),
        Section::Phase4(vec![Generated {
            skill: "cfn-token-validation-error-recovery".into(),
            category: "error-handling".into(),
            phase4_pattern_id: Some(487),
            test_coverage: Some(0.92),
            required_test_pass_rate: Some(0.95),
            decision: Some("approved".into()),
            approval_level: Some("auto".into()),
            approved_at: Some("2026-11-20 08:00:00".into()),
            created_at: "2026-11-19 17:30:00".into(),
        }]),
        Section::FlakyTests(vec![FlakyTest {
            skill: "api-tester".into(),
            test: "tests/test_api.py::test_retry_on_timeout".into(),
            flaky_runs: 4,
            runs: 9,
            last_seen: "2026-11-16 10:00:00".into(),
        }]),
        Section::TimeToApproval(vec![
            TierApprovalTime {
                approval_level: "auto".into(),
                approvals: 240,
                median_minutes: 0.0,
                p90_minutes: 35.0,
                max_minutes: 1440.0,
            },
            TierApprovalTime {
                approval_level: "escalate".into(),
                approvals: 48,
                median_minutes: 95.0,
                p90_minutes: 1320.0,
                max_minutes: 2880.0,
            },
        ]),
        Section::Migration(vec![CategoryGaps {
            category: "testing".into(),
            skill_count: 12,
            no_coverage_data: 0,
            no_test_path: 1,
            deprecated: 0,
            latest_auto: 9,
            latest_escalate: 2,
            latest_human: 0,
            never_gated: 1,
        }]),
    ];
    Report {
        schema: SCHEMA,
        repository: Some("acme/skills".into()),
        since: "2026-11-01 00:00:00".into(),
        until: "2026-12-01 00:00:00".into(),
        generated_at: "2026-12-01 00:00:00".into(),
        decisions_in_window: 315,
        decisions_total: 1204,
        sections,
    }
}

/// Every section, each empty.
pub fn empty() -> Report {
    let sections = SectionName::ALL
        .into_iter()
        .map(|name| match name {
            SectionName::PassRates => Section::PassRates(PassRates {
                daily: vec![],
                skills: vec![],
            }),
            SectionName::Waiting => Section::Waiting(vec![]),
            SectionName::Effectiveness => Section::Effectiveness(vec![]),
            SectionName::Coverage => Section::Coverage(vec![]),
            SectionName::GatePerformance => Section::GatePerformance(vec![]),
            SectionName::Phase4 => Section::Phase4(vec![]),
            SectionName::FlakyTests => Section::FlakyTests(vec![]),
            SectionName::TimeToApproval => Section::TimeToApproval(vec![]),
            SectionName::Migration => Section::Migration(vec![]),
        })
        .collect();
    Report {
        schema: SCHEMA,
        repository: None,
        since: "2026-11-01 00:00:00".into(),
        until: "2026-12-01 00:00:00".into(),
        generated_at: "2026-12-01 00:00:00".into(),
        decisions_in_window: 0,
        decisions_total: 0,
        sections,
    }
}
