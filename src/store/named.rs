//! The seed's analytics as named queries for `skillgate query NAME`. Each `sql` is the seed's
//! statement verbatim (a contract: a test finds it in `tests/fixtures/seed/statements.sql`).
//! Left out: the seed's SELECTs that only run once a literal is edited by hand (section 5's
//! `category = 'testing'`, section 9's `name = 'cfn-test-runner-jest'` and `agent_type =
//! 'backend-developer'`); run those with `query --sql`.

/// One named query of the seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedQuery {
    /// Kebab-case, as `query NAME` takes it.
    pub name: &'static str,
    /// One line for `query --list`.
    pub summary: &'static str,
    /// Where the seed has it.
    pub source: &'static str,
    /// The parameters it needs (`SKILL_ID` for `$SKILL_ID`), given with `--param NAME=VALUE`.
    pub params: &'static [&'static str],
    pub sql: &'static str,
}

/// Every named query, the seed's numbered analytics first.
pub const CATALOG: &[NamedQuery] = &[
    NamedQuery {
        name: "pass-rate-trend",
        summary: "a skill's last 20 runs: pass rate, counts, coverage, decision",
        source: "seed section 7, query 1",
        params: &["SKILL_ID"],
        sql: r#"SELECT
ah.timestamp,
ah.approval_level,
JSON_EXTRACT(ah.test_results, '$.pass_rate') as pass_rate,
JSON_EXTRACT(ah.test_results, '$.pass_count') as pass_count,
JSON_EXTRACT(ah.test_results, '$.fail_count') as fail_count,
JSON_EXTRACT(ah.test_results, '$.coverage') as coverage,
ah.decision
FROM approval_history ah
WHERE ah.skill_id = $SKILL_ID
ORDER BY ah.timestamp DESC
LIMIT 20;"#,
    },
    NamedQuery {
        name: "human-approval",
        summary: "skills at the human level escalated or sent back in the last 7 days",
        source: "seed section 7, query 2",
        params: &[],
        sql: r#"SELECT
s.id,
s.name,
s.category,
s.test_coverage,
COUNT(ah.id) as review_count,
MAX(ah.timestamp) as last_review,
ah.escalation_reason,
ah.approval_level
FROM skills s
LEFT JOIN approval_history ah ON s.id = ah.skill_id
WHERE ah.approval_level = 'human'
AND ah.decision IN ('escalated', 'needs_correction')
AND ah.timestamp > datetime('now', '-7 days')
GROUP BY s.id
ORDER BY last_review DESC;"#,
    },
    NamedQuery {
        name: "effectiveness",
        summary: "test pass rate against agents' confidence change, from skill_usage_log",
        source: "seed section 7, query 3",
        params: &[],
        sql: r#"SELECT
sl.agent_type,
s.name,
s.category,
ROUND(JSON_EXTRACT(sl.test_execution_result, '$.pass_rate'), 3) as test_pass_rate,
ROUND(sl.confidence_after - sl.confidence_before, 3) as confidence_improvement,
COUNT(sl.id) as usage_count,
ROUND(AVG(CAST(sl.success_indicator as FLOAT)), 3) as success_rate
FROM skill_usage_log sl
JOIN skills s ON sl.skill_id = s.id
WHERE sl.task_id IS NOT NULL
GROUP BY sl.skill_id, sl.agent_type
HAVING test_pass_rate >= 0.90
ORDER BY confidence_improvement DESC;"#,
    },
    NamedQuery {
        name: "coverage-by-category",
        summary: "test coverage per category: average, range, excellent/good/poor counts",
        source: "seed section 7, query 4",
        params: &[],
        sql: r#"SELECT
s.category,
COUNT(s.id) as skill_count,
ROUND(AVG(s.test_coverage), 3) as avg_coverage,
ROUND(MIN(s.test_coverage), 3) as min_coverage,
ROUND(MAX(s.test_coverage), 3) as max_coverage,
SUM(CASE WHEN s.test_coverage >= 0.95 THEN 1 ELSE 0 END) as excellent_coverage_count,
SUM(CASE WHEN s.test_coverage >= 0.80 AND s.test_coverage < 0.95 THEN 1 ELSE 0 END) as good_coverage_count,
SUM(CASE WHEN s.test_coverage < 0.80 THEN 1 ELSE 0 END) as poor_coverage_count
FROM skills s
GROUP BY s.category
ORDER BY avg_coverage DESC;"#,
    },
    NamedQuery {
        name: "gate-performance",
        summary: "decisions per approval level in the last 30 days: approval rate, review time",
        source: "seed section 7, query 5",
        params: &[],
        sql: r#"SELECT
ah.approval_level,
COUNT(ah.id) as total_approvals,
SUM(CASE WHEN ah.decision = 'approved' THEN 1 ELSE 0 END) as approved_count,
SUM(CASE WHEN ah.decision = 'rejected' THEN 1 ELSE 0 END) as rejected_count,
SUM(CASE WHEN ah.decision = 'needs_correction' THEN 1 ELSE 0 END) as correction_count,
ROUND(100.0 * SUM(CASE WHEN ah.decision = 'approved' THEN 1 ELSE 0 END) / COUNT(ah.id), 1) as approval_rate,
ROUND(AVG(CAST(ah.review_duration_minutes as FLOAT)), 1) as avg_review_time_minutes
FROM approval_history ah
WHERE ah.timestamp > datetime('now', '-30 days')
GROUP BY ah.approval_level
ORDER BY approval_rate DESC;"#,
    },
    NamedQuery {
        name: "recently-generated",
        summary: "skills Phase 4 generated in the last 30 days, with their approvals",
        source: "seed section 8",
        params: &[],
        sql: r#"SELECT
s.id,
s.name,
s.category,
s.test_coverage,
s.required_test_pass_rate,
ah.decision,
ah.approval_level,
ah.timestamp as approved_at
FROM skills s
LEFT JOIN approval_history ah ON s.id = ah.skill_id AND ah.decision = 'approved'
WHERE s.is_auto_generated = 1
AND s.generated_by = 'phase4'
AND s.created_at > datetime('now', '-30 days')
ORDER BY s.created_at DESC;"#,
    },
    NamedQuery {
        name: "migration-assessment",
        summary: "skills per category without coverage data or a test path, and deprecated",
        source: "seed section 10, phase 1",
        params: &[],
        sql: r#"SELECT
category,
COUNT(*) as skill_count,
SUM(CASE WHEN test_coverage IS NULL THEN 1 ELSE 0 END) as no_coverage_data,
SUM(CASE WHEN test_suite_path IS NULL THEN 1 ELSE 0 END) as no_test_path,
SUM(CASE WHEN status = 'deprecated' THEN 1 ELSE 0 END) as deprecated
FROM skills
GROUP BY category
ORDER BY skill_count DESC;"#,
    },
    NamedQuery {
        name: "migration-verify",
        summary: "coverage per category over the skills that record it",
        source: "seed section 10, migration script",
        params: &[],
        sql: r#"SELECT
category,
COUNT(*) as skill_count,
ROUND(AVG(test_coverage), 2) as avg_coverage,
MIN(test_coverage) as min_coverage,
MAX(test_coverage) as max_coverage
FROM skills
WHERE test_coverage IS NOT NULL
GROUP BY category
ORDER BY avg_coverage DESC;"#,
    },
    NamedQuery {
        name: "auto-approval-check",
        summary: "auto-level skills within the auto thresholds, with their coverage and pass-rate checks",
        source: "seed section 6, level 1",
        params: &[],
        sql: r#"SELECT
s.id,
s.name,
s.test_coverage,
s.required_test_pass_rate,
CASE
WHEN s.test_coverage >= 0.95 THEN 'Pass'
ELSE 'Fail'
END as coverage_check,
CASE
WHEN (SELECT pass_rate FROM approval_history ah
WHERE ah.skill_id = s.id
ORDER BY ah.timestamp DESC LIMIT 1) >= 0.95
THEN 'Pass'
ELSE 'Fail'
END as test_pass_check
FROM skills s
WHERE s.approval_level = 'auto'
AND s.test_coverage >= 0.95
AND s.risk_score <= 0.30
AND s.cyclomatic_complexity <= 5;"#,
    },
    NamedQuery {
        name: "escalation-reasons",
        summary: "escalate-level skills past a threshold, and the first reason why",
        source: "seed section 6, level 2",
        params: &[],
        sql: r#"SELECT
s.id,
s.name,
CASE
WHEN s.test_coverage < 0.95 THEN 'Low test coverage: ' || s.test_coverage
WHEN (SELECT pass_rate FROM approval_history ah
WHERE ah.skill_id = s.id
ORDER BY ah.timestamp DESC LIMIT 1) < 0.95
THEN 'Insufficient test pass rate'
WHEN s.cyclomatic_complexity > 5 THEN 'High complexity: ' || s.cyclomatic_complexity
WHEN s.risk_score > 0.30 THEN 'Elevated risk: ' || s.risk_score
ELSE 'Requires expert review'
END as escalation_reason
FROM skills s
WHERE s.approval_level = 'escalate'
AND (
s.test_coverage < 0.95
OR s.risk_score BETWEEN 0.31 AND 0.60
OR s.cyclomatic_complexity BETWEEN 6 AND 15
OR external_dependencies > 0
);"#,
    },
    NamedQuery {
        name: "pending-human",
        summary: "decisions escalated to a human in the last 48 hours, oldest first",
        source: "seed section 6, level 3",
        params: &[],
        sql: r#"SELECT
s.id,
s.name,
s.category,
s.test_coverage,
ah.approval_level,
ah.escalation_reason,
ah.timestamp,
ah.review_duration_minutes
FROM approval_history ah
JOIN skills s ON ah.skill_id = s.id
WHERE ah.decision = 'escalated'
AND ah.approval_level = 'human'
AND ah.timestamp > datetime('now', '-48 hours')
ORDER BY ah.timestamp ASC;"#,
    },
];

/// The named query called `name`.
pub fn find(name: &str) -> Option<&'static NamedQuery> {
    CATALOG.iter().find(|q| q.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = include_str!("../../tests/fixtures/seed/statements.sql");

    #[test]
    fn each_query_is_a_seed_select_verbatim() {
        for query in CATALOG {
            assert!(
                SEED.contains(query.sql),
                "{} is not the seed's text",
                query.name
            );
            assert!(query.sql.starts_with("SELECT\n"), "{}", query.name);
            assert!(query.sql.ends_with(';'), "{}", query.name);
            for param in query.params {
                assert!(query.sql.contains(&format!("${param}")), "{}", query.name);
            }
            assert_eq!(
                query.sql.contains("$SKILL_ID"),
                !query.params.is_empty(),
                "{}",
                query.name
            );
        }
    }

    #[test]
    fn names_are_kebab_case_unique_and_summaries_one_short_line() {
        let mut names: Vec<_> = CATALOG.iter().map(|q| q.name).collect();
        for name in &names {
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                    && !name.starts_with('-')
                    && !name.ends_with('-'),
                "{name}"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CATALOG.len());
        for query in CATALOG {
            assert!(
                !query.summary.contains('\n') && query.summary.len() <= 90,
                "{}",
                query.name
            );
        }
        assert_eq!(
            find("gate-performance").map(|q| q.source),
            Some("seed section 7, query 5")
        );
        assert_eq!(find("nope"), None);
    }
}
