//! The report's data, read from a trail opened read-only ([`TrailView`]): the seed's section-7
//! queries over a time window, and what they leave out (who is waiting, flaky tests, time to
//! approval, the migration assessment).
//!
//! Every statement filters the window on `approval_history.timestamp` (or
//! `skill_usage_log.loaded_at`, `skills.created_at`) with bound parameters, so the indexes of
//! migration 0006 serve them on a single file; times are compared as the trail stores them,
//! `YYYY-MM-DD HH:MM:SS` UTC. Rows a review appended (`review_id` set) repeat the escalation's
//! test results: the pass-rate and flaky-test figures count the gate's own rows only.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::reviews::pending_at;
use super::{StoreError, TrailView};
use crate::config::Routing;
use crate::report::{
    CategoryCoverage, CategoryGaps, DailyPassRate, Effectiveness, FlakyTest, Generated,
    PassRatePoint, PassRates, Report, SCHEMA, Section, SectionName, SkillPassRate,
    TierApprovalTime, TierPerformance, Waiting,
};
use crate::skill::{Reviewers, Tier};

/// Seed query 1 keeps the latest 20 rows of a skill.
const POINTS_PER_SKILL: i64 = 20;
/// The flakiest tests listed.
const FLAKY_TESTS: i64 = 50;

/// The statements that filter a window, each bound to `?1` (since) and `?2` (until): the
/// indexes of migrations 0001 and 0006 serve them (`tests::windows_search_an_index`).
const IN_WINDOW: &str =
    "SELECT count(*) FROM approval_history WHERE timestamp >= ?1 AND timestamp < ?2";
const DAILY: &str = "SELECT substr(timestamp, 1, 10) AS day, avg(pass_rate), count(*)
         FROM approval_history
         WHERE timestamp >= ?1 AND timestamp < ?2 AND review_id IS NULL
           AND pass_rate IS NOT NULL
         GROUP BY day ORDER BY day";
const POINTS: &str = "SELECT skill_id, runs, timestamp, approval_level, pass_rate,
                json_extract(test_results, '$.pass_count'),
                json_extract(test_results, '$.fail_count'),
                json_extract(test_results, '$.coverage'), decision
         FROM (SELECT ah.*, row_number() OVER win AS n, count(*) OVER (PARTITION BY skill_id) AS runs
               FROM approval_history ah
               WHERE timestamp >= ?1 AND timestamp < ?2 AND review_id IS NULL
                 AND pass_rate IS NOT NULL
               WINDOW win AS (PARTITION BY skill_id ORDER BY timestamp DESC, id DESC))
         WHERE n <= ?3
         ORDER BY skill_id, timestamp, id";
const EFFECTIVENESS: &str = "SELECT
             sl.agent_type,
             s.name,
             s.category,
             ROUND(JSON_EXTRACT(sl.test_execution_result, '$.pass_rate'), 3) as test_pass_rate,
             ROUND(sl.confidence_after - sl.confidence_before, 3) as confidence_improvement,
             COUNT(sl.id) as usage_count,
             ROUND(AVG(CAST(sl.success_indicator as FLOAT)), 3) as success_rate
         FROM skill_usage_log sl
         JOIN skills s ON sl.skill_id = s.id
         WHERE sl.task_id IS NOT NULL AND sl.loaded_at >= ?1 AND sl.loaded_at < ?2
         GROUP BY sl.skill_id, sl.agent_type
         HAVING test_pass_rate >= 0.90
         ORDER BY confidence_improvement DESC, sl.agent_type, s.name";
const PERFORMANCE: &str = "SELECT
             ah.approval_level,
             COUNT(ah.id) as total_approvals,
             SUM(CASE WHEN ah.decision = 'approved' THEN 1 ELSE 0 END) as approved_count,
             SUM(CASE WHEN ah.decision = 'rejected' THEN 1 ELSE 0 END) as rejected_count,
             SUM(CASE WHEN ah.decision = 'needs_correction' THEN 1 ELSE 0 END) as correction_count,
             SUM(CASE WHEN ah.decision = 'escalated' THEN 1 ELSE 0 END),
             ROUND(100.0 * SUM(CASE WHEN ah.decision = 'approved' THEN 1 ELSE 0 END) / COUNT(ah.id), 1) as approval_rate,
             ROUND(AVG(CAST(ah.review_duration_minutes as FLOAT)), 1) as avg_review_time_minutes
         FROM approval_history ah
         WHERE ah.timestamp >= ?1 AND ah.timestamp < ?2
         GROUP BY ah.approval_level
         ORDER BY CASE ah.approval_level WHEN 'auto' THEN 0 WHEN 'escalate' THEN 1 ELSE 2 END";
const PHASE4: &str = "SELECT s.name, s.category, s.phase4_pattern_id, s.test_coverage,
                s.required_test_pass_rate,
                (SELECT decision FROM approval_history WHERE skill_id = s.id
                 ORDER BY timestamp DESC, id DESC LIMIT 1),
                (SELECT approval_level FROM approval_history WHERE skill_id = s.id
                 ORDER BY timestamp DESC, id DESC LIMIT 1),
                (SELECT max(timestamp) FROM approval_history
                 WHERE skill_id = s.id AND decision = 'approved'),
                s.created_at
         FROM skills s
         WHERE s.is_auto_generated = 1
           AND lower(s.generated_by) = 'phase4'
           AND s.created_at >= ?1 AND s.created_at < ?2
         ORDER BY s.created_at DESC, s.name";
const FLAKY: &str = "SELECT ah.skill_id, f.value, count(*), max(ah.timestamp)
         FROM approval_history ah, json_each(ah.test_results, '$.flaky_tests') f
         WHERE ah.timestamp >= ?1 AND ah.timestamp < ?2 AND ah.review_id IS NULL
           AND ah.test_results LIKE '%\"flaky_tests\"%'
           AND json_valid(ah.test_results) AND f.type = 'text'
         GROUP BY ah.skill_id, f.value
         ORDER BY count(*) DESC, max(ah.timestamp) DESC, ah.skill_id, f.value
         LIMIT ?3";
/// Per pull request and skill with an approval in the window: its first decision, and its first
/// approval with that row's tier (`timestamp tier`; times sort as text), in one pass over the
/// rows of those pull requests.
const APPROVALS: &str = "SELECT julianday(substr(approved, 1, 19)) - julianday(first_at),
                substr(approved, 21), substr(approved, 1, 19)
         FROM (SELECT min(timestamp) AS first_at,
                      min(CASE WHEN decision = 'approved'
                               THEN timestamp || ' ' || approval_level END) AS approved
               FROM approval_history
               WHERE (repository, pull_request) IN (
                   SELECT repository, pull_request FROM approval_history
                   WHERE decision = 'approved' AND pull_request IS NOT NULL
                     AND timestamp >= ?1 AND timestamp < ?2)
               GROUP BY repository, pull_request, skill_id)
         WHERE substr(approved, 1, 19) >= ?1 AND substr(approved, 1, 19) < ?2";

/// What a report covers.
#[derive(Debug, Clone)]
pub struct ReportQuery<'a> {
    /// The window, `YYYY-MM-DD HH:MM:SS` UTC: from `since` (inclusive) to `until` (exclusive).
    pub since: String,
    pub until: String,
    /// When the report is made; waits are measured to `until`.
    pub generated_at: String,
    pub repository: Option<String>,
    /// The sections, in any order; the report keeps [`SectionName::ALL`]'s.
    pub sections: Vec<SectionName>,
    /// How many approvals a waiting skill needs (the trusted `[routing]`).
    pub routing: &'a Routing,
}

impl TrailView {
    /// The repository of the trail's latest decision, for a report's header.
    pub fn repository(&self) -> Result<Option<String>, StoreError> {
        self.connection()
            .query_row(
                "SELECT repository FROM approval_history WHERE repository IS NOT NULL
                 ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|source| StoreError::Read {
                path: self.path().to_path_buf(),
                source,
            })
    }

    /// The report `query` asks for.
    pub fn report(&self, query: &ReportQuery<'_>) -> Result<Report, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path().to_path_buf(),
            source,
        };
        let conn = self.connection();
        let window = Window {
            since: &query.since,
            until: &query.until,
        };
        let mut sections = Vec::new();
        for name in SectionName::ALL {
            if !query.sections.is_empty() && !query.sections.contains(&name) {
                continue;
            }
            let section = match name {
                SectionName::PassRates => pass_rates(conn, &window),
                SectionName::Waiting => waiting(conn, &window, query.routing),
                SectionName::Effectiveness => effectiveness(conn, &window),
                SectionName::Coverage => coverage(conn),
                SectionName::GatePerformance => gate_performance(conn, &window),
                SectionName::Phase4 => phase4(conn, &window),
                SectionName::FlakyTests => flaky_tests(conn, &window),
                SectionName::TimeToApproval => time_to_approval(conn, &window),
                SectionName::Migration => migration(conn),
            };
            sections.push(section.map_err(read)?);
        }
        let decisions_in_window = conn
            .query_row(IN_WINDOW, params![window.since, window.until], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(read)?;
        let decisions_total = conn
            .query_row("SELECT count(*) FROM approval_history", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(read)?;
        Ok(Report {
            schema: SCHEMA,
            repository: query.repository.clone(),
            since: query.since.clone(),
            until: query.until.clone(),
            generated_at: query.generated_at.clone(),
            decisions_in_window: count(decisions_in_window),
            decisions_total: count(decisions_total),
            sections,
        })
    }
}

struct Window<'a> {
    since: &'a str,
    until: &'a str,
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn rows<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare(sql)?;
    stmt.query_map(params, map)?.collect()
}

/// `"88%"` (the seed's form) or a number: coverage as a fraction.
fn coverage_fraction(text: Option<String>) -> Option<f64> {
    let text = text?;
    let trimmed = text.trim();
    match trimmed.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => trimmed
            .parse::<f64>()
            .ok()
            .map(|v| if v > 1.0 { v / 100.0 } else { v }),
    }
}

fn pass_rates(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    let daily = rows(conn, DAILY, params![w.since, w.until], |r| {
        Ok(DailyPassRate {
            day: r.get(0)?,
            mean_pass_rate: r.get(1)?,
            decisions: count(r.get(2)?),
        })
    })?;
    // Seed query 1 for every skill at once: each skill's latest 20 rows in the window.
    let points = rows(
        conn,
        POINTS,
        params![w.since, w.until, POINTS_PER_SKILL],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                PassRatePoint {
                    timestamp: r.get(2)?,
                    approval_level: r.get(3)?,
                    pass_rate: r.get(4)?,
                    pass_count: r.get::<_, Option<i64>>(5)?.map(count),
                    fail_count: r.get::<_, Option<i64>>(6)?.map(count),
                    coverage: coverage_fraction(r.get::<_, Option<String>>(7).unwrap_or(None)),
                    decision: r.get(8)?,
                },
            ))
        },
    )?;
    let names = skill_names(conn)?;
    let mut by_skill: BTreeMap<i64, SkillPassRate> = BTreeMap::new();
    for (skill_id, runs, point) in points {
        let entry = by_skill.entry(skill_id).or_insert_with(|| {
            let (skill, dir, category) = names
                .get(&skill_id)
                .cloned()
                .unwrap_or_else(|| (format!("skill #{skill_id}"), None, "unknown".to_owned()));
            SkillPassRate {
                skill,
                dir,
                category,
                runs: count(runs),
                points: Vec::new(),
            }
        });
        entry.points.push(point);
    }
    let mut skills: Vec<SkillPassRate> = by_skill.into_values().collect();
    skills.sort_by(|a, b| (&a.skill, &a.dir).cmp(&(&b.skill, &b.dir)));
    Ok(Section::PassRates(PassRates { daily, skills }))
}

type Names = BTreeMap<i64, (String, Option<String>, String)>;

fn skill_names(conn: &Connection) -> rusqlite::Result<Names> {
    let mut stmt = conn.prepare("SELECT id, name, skill_dir, category FROM skills")?;
    stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?
        .collect()
}

/// The heads of pull requests (each pull request's latest head the gate decided on) where a
/// skill's latest decision is escalated, then who approved it there.
fn waiting(conn: &Connection, w: &Window<'_>, routing: &Routing) -> rusqlite::Result<Section> {
    let heads: Vec<(String, i64, String)> = rows(
        conn,
        "WITH latest AS (
             SELECT repository, pull_request, max(id) AS id FROM approval_history
             WHERE review_id IS NULL AND pull_request IS NOT NULL AND repository IS NOT NULL
             GROUP BY repository, pull_request),
         heads AS (
             SELECT l.repository, l.pull_request,
                    COALESCE(ah.pull_request_head, ah.head_sha) AS head
             FROM latest l JOIN approval_history ah ON ah.id = l.id)
         SELECT h.repository, h.pull_request, h.head FROM heads h
         WHERE h.head IS NOT NULL AND EXISTS (
             SELECT 1 FROM approval_history e
             WHERE e.repository = h.repository AND e.pull_request = h.pull_request
               AND COALESCE(e.pull_request_head, e.head_sha) = h.head
               AND e.decision = 'escalated' AND e.review_id IS NULL)
         ORDER BY h.repository, h.pull_request",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut out = Vec::new();
    for (repository, pull_request, head) in heads {
        let Ok(number) = u64::try_from(pull_request) else {
            continue;
        };
        let pending = pending_at(conn, &repository, number, &head)?;
        for p in pending {
            if p.is_approved(routing.required(p.tier, &p.categories)) {
                continue;
            }
            let detail = conn
                .query_row(
                    "SELECT s.category, s.test_coverage, ah.escalation_reason, ah.escalated_to
                     FROM approval_history ah JOIN skills s ON s.id = ah.skill_id
                     WHERE ah.id = ?1",
                    [p.escalation_id],
                    |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, Option<f64>>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, Option<String>>(3)?,
                        ))
                    },
                )
                .optional()?;
            let (category, test_coverage, escalation_reason, escalated_to) =
                detail.unwrap_or_else(|| ("unknown".to_owned(), None, None, None));
            out.push(Waiting {
                skill: p.skill,
                dir: p.dir,
                category,
                approval_level: p.tier.as_str().to_owned(),
                waited_hours: hours_between(&p.escalated_at, w.until),
                since: p.escalated_at,
                repository: repository.clone(),
                pull_request: number,
                head_sha: head.clone(),
                escalation_reason,
                escalated_to: asked(escalated_to.as_deref(), &repository),
                approvals: p.approvers,
                test_coverage,
            });
        }
    }
    out.sort_by(|a, b| {
        (b.waited_hours, &a.repository, a.pull_request, &a.skill).cmp(&(
            a.waited_hours,
            &b.repository,
            b.pull_request,
            &b.skill,
        ))
    });
    Ok(Section::Waiting(out))
}

/// `escalated_to` as recorded (`{"users": [...], "teams": [...]}`), users then teams named
/// `org/slug` with the repository's owner; a hand-written plain value is kept as it is.
pub fn asked(recorded: Option<&str>, repository: &str) -> Vec<String> {
    let Some(text) = recorded.map(str::trim).filter(|t| !t.is_empty()) else {
        return Vec::new();
    };
    match serde_json::from_str::<Reviewers>(text) {
        Ok(reviewers) => {
            let owner = repository.split_once('/').map(|(o, _)| o);
            reviewers
                .users
                .into_iter()
                .chain(reviewers.teams.into_iter().map(|slug| match owner {
                    Some(owner) => format!("{owner}/{slug}"),
                    None => slug,
                }))
                .collect()
        }
        Err(_) => vec![text.to_owned()],
    }
}

/// Whole hours from `from` to `to` (both as the trail stores times); 0 when either does not
/// read or `to` is earlier.
fn hours_between(from: &str, to: &str) -> u64 {
    match (epoch(from), epoch(to)) {
        (Some(a), Some(b)) if b > a => (b - a) / 3600,
        _ => 0,
    }
}

/// Seconds since the epoch of `YYYY-MM-DD HH:MM:SS` (UTC), or RFC 3339.
pub fn epoch(text: &str) -> Option<u64> {
    let rfc = if text.contains('T') {
        text.to_owned()
    } else {
        format!("{}Z", text.replacen(' ', "T", 1))
    };
    let at = humantime::parse_rfc3339_weak(rfc.trim_end_matches('Z')).ok()?;
    at.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

fn effectiveness(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    // Seed query 3, over the window's usage.
    rows(conn, EFFECTIVENESS, params![w.since, w.until], |r| {
        Ok(Effectiveness {
            agent_type: r.get(0)?,
            skill: r.get(1)?,
            category: r.get(2)?,
            test_pass_rate: r.get(3)?,
            confidence_improvement: r.get(4)?,
            usage_count: count(r.get(5)?),
            success_rate: r.get(6)?,
        })
    })
    .map(Section::Effectiveness)
}

fn coverage(conn: &Connection) -> rusqlite::Result<Section> {
    // Seed query 4, with the skills that have no coverage at all counted apart.
    rows(
        conn,
        "SELECT
             s.category,
             COUNT(s.id) as skill_count,
             ROUND(AVG(s.test_coverage), 3) as avg_coverage,
             ROUND(MIN(s.test_coverage), 3) as min_coverage,
             ROUND(MAX(s.test_coverage), 3) as max_coverage,
             SUM(CASE WHEN s.test_coverage >= 0.95 THEN 1 ELSE 0 END),
             SUM(CASE WHEN s.test_coverage >= 0.80 AND s.test_coverage < 0.95 THEN 1 ELSE 0 END),
             SUM(CASE WHEN s.test_coverage < 0.80 THEN 1 ELSE 0 END),
             SUM(CASE WHEN s.test_coverage IS NULL THEN 1 ELSE 0 END)
         FROM skills s
         GROUP BY s.category
         ORDER BY avg_coverage DESC, s.category",
        [],
        |r| {
            Ok(CategoryCoverage {
                category: r.get(0)?,
                skill_count: count(r.get(1)?),
                avg_coverage: r.get(2)?,
                min_coverage: r.get(3)?,
                max_coverage: r.get(4)?,
                excellent: count(r.get(5)?),
                good: count(r.get(6)?),
                poor: count(r.get(7)?),
                unmeasured: count(r.get(8)?),
            })
        },
    )
    .map(Section::Coverage)
}

fn gate_performance(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    // Seed query 5 over the window: reviews are rows of their tier, as in the seed.
    rows(conn, PERFORMANCE, params![w.since, w.until], |r| {
        Ok(TierPerformance {
            approval_level: r.get(0)?,
            total: count(r.get(1)?),
            approved: count(r.get(2)?),
            rejected: count(r.get(3)?),
            needs_correction: count(r.get(4)?),
            escalated: count(r.get(5)?),
            approval_rate: r.get(6)?,
            avg_review_minutes: r.get(7)?,
        })
    })
    .map(Section::GatePerformance)
}

fn phase4(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    // Seed section 8's query, one row per skill: its latest decision and its latest approval.
    rows(conn, PHASE4, params![w.since, w.until], |r| {
        Ok(Generated {
            skill: r.get(0)?,
            category: r.get(1)?,
            phase4_pattern_id: r.get(2)?,
            test_coverage: r.get(3)?,
            required_test_pass_rate: r.get(4)?,
            decision: r.get(5)?,
            approval_level: r.get(6)?,
            approved_at: r.get(7)?,
            created_at: r.get(8)?,
        })
    })
    .map(Section::Phase4)
}

fn flaky_tests(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    let flaky: Vec<(i64, String, i64, String)> =
        rows(conn, FLAKY, params![w.since, w.until, FLAKY_TESTS], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
    if flaky.is_empty() {
        return Ok(Section::FlakyTests(Vec::new()));
    }
    let names = skill_names(conn)?;
    let mut runs: BTreeMap<i64, i64> = BTreeMap::new();
    for (skill_id, ..) in &flaky {
        if runs.contains_key(skill_id) {
            continue;
        }
        let n = conn.query_row(
            "SELECT count(*) FROM approval_history
             WHERE skill_id = ?1 AND timestamp >= ?2 AND timestamp < ?3
               AND review_id IS NULL AND test_results IS NOT NULL",
            params![skill_id, w.since, w.until],
            |r| r.get(0),
        )?;
        runs.insert(*skill_id, n);
    }
    Ok(Section::FlakyTests(
        flaky
            .into_iter()
            .map(|(skill_id, test, n, last_seen)| FlakyTest {
                skill: names
                    .get(&skill_id)
                    .map_or_else(|| format!("skill #{skill_id}"), |(name, ..)| name.clone()),
                test,
                flaky_runs: count(n),
                runs: count(runs.get(&skill_id).copied().unwrap_or(n)),
                last_seen,
            })
            .collect(),
    ))
}

/// Per pull request and skill whose first approval falls in the window: minutes from its first
/// decision there to that approval, grouped by the approving row's tier.
fn time_to_approval(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    let samples: Vec<(String, f64)> = rows(conn, APPROVALS, params![w.since, w.until], |r| {
        Ok((
            r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            r.get::<_, Option<f64>>(0)?.unwrap_or(0.0) * 1440.0,
        ))
    })?;
    let mut by_tier: BTreeMap<u8, (String, Vec<f64>)> = BTreeMap::new();
    for (level, minutes) in samples {
        let order = match Tier::parse(&level) {
            Some(Tier::Auto) => 0,
            Some(Tier::Escalate) => 1,
            Some(Tier::Human) => 2,
            None => 3,
        };
        by_tier
            .entry(order)
            .or_insert_with(|| (level, Vec::new()))
            .1
            .push(minutes.max(0.0));
    }
    Ok(Section::TimeToApproval(
        by_tier
            .into_values()
            .map(|(level, mut minutes)| {
                minutes.sort_by(f64::total_cmp);
                TierApprovalTime {
                    approval_level: level,
                    approvals: minutes.len() as u64,
                    median_minutes: round1(percentile(&minutes, 50)),
                    p90_minutes: round1(percentile(&minutes, 90)),
                    max_minutes: round1(minutes.last().copied().unwrap_or(0.0)),
                }
            })
            .collect(),
    ))
}

/// The nearest-rank percentile of sorted values (0 for none).
pub fn percentile(sorted: &[f64], p: u32) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (f64::from(p) / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn migration(conn: &Connection) -> rusqlite::Result<Section> {
    // Seed section 10, phase 1, and the tier of each skill's latest decision.
    rows(
        conn,
        "SELECT
             s.category,
             COUNT(*) as skill_count,
             SUM(CASE WHEN s.test_coverage IS NULL THEN 1 ELSE 0 END) as no_coverage_data,
             SUM(CASE WHEN s.test_suite_path IS NULL THEN 1 ELSE 0 END) as no_test_path,
             SUM(CASE WHEN s.status = 'deprecated' THEN 1 ELSE 0 END) as deprecated,
             SUM(CASE WHEN l.approval_level = 'auto' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.approval_level = 'escalate' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.approval_level = 'human' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.approval_level IS NULL THEN 1 ELSE 0 END)
         FROM skills s
         LEFT JOIN (SELECT skill_id, approval_level, max(id) FROM approval_history
                    GROUP BY skill_id) l ON l.skill_id = s.id
         GROUP BY s.category
         ORDER BY skill_count DESC, s.category",
        [],
        |r| {
            Ok(CategoryGaps {
                category: r.get(0)?,
                skill_count: count(r.get(1)?),
                no_coverage_data: count(r.get(2)?),
                no_test_path: count(r.get(3)?),
                deprecated: count(r.get(4)?),
                latest_auto: count(r.get(5)?),
                latest_escalate: count(r.get(6)?),
                latest_human: count(r.get(7)?),
                never_gated: count(r.get(8)?),
            })
        },
    )
    .map(Section::Migration)
}

#[cfg(test)]
mod tests {
    use super::{asked, coverage_fraction, epoch, hours_between, percentile};

    #[test]
    fn percentiles_are_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&v, 50), 5.0);
        assert_eq!(percentile(&v, 90), 9.0);
        assert_eq!(percentile(&[7.0], 90), 7.0);
        assert_eq!(percentile(&[], 50), 0.0);
    }

    #[test]
    fn coverage_reads_the_seeds_percent_form() {
        assert_eq!(coverage_fraction(Some("88%".into())), Some(0.88));
        assert_eq!(coverage_fraction(Some("0.9".into())), Some(0.9));
        assert_eq!(coverage_fraction(Some("n/a".into())), None);
        assert_eq!(coverage_fraction(None), None);
    }

    #[test]
    fn waits_are_whole_hours_to_the_windows_end() {
        assert_eq!(epoch("2026-12-01 00:00:00"), epoch("2026-12-01T00:00:00Z"));
        assert_eq!(
            hours_between("2026-11-28 09:15:00", "2026-12-01 09:14:59"),
            71
        );
        assert_eq!(
            hours_between("2026-12-02 00:00:00", "2026-12-01 00:00:00"),
            0
        );
        assert_eq!(hours_between("garbage", "2026-12-01 00:00:00"), 0);
    }

    #[test]
    fn who_was_asked_reads_as_recorded() {
        assert_eq!(
            asked(
                Some(r#"{"users":["alice"],"teams":["infra"]}"#),
                "acme/skills"
            ),
            ["alice", "acme/infra"]
        );
        assert_eq!(asked(Some("bob"), "acme/skills"), ["bob"]);
        assert!(asked(None, "acme/skills").is_empty());
    }

    /// Each windowed statement searches an index for its window instead of scanning the table.
    #[test]
    fn windows_search_an_index() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = crate::store::Store::open(&dir.path().join("t.db")).expect("open");
        let conn = store.connection();
        for (name, sql, index) in [
            (
                "IN_WINDOW",
                super::IN_WINDOW,
                "idx_approval_history_timestamp",
            ),
            ("DAILY", super::DAILY, "idx_approval_history_timestamp"),
            ("POINTS", super::POINTS, "idx_approval_history_timestamp"),
            ("EFFECTIVENESS", super::EFFECTIVENESS, "idx_usage_loaded_at"),
            (
                "PERFORMANCE",
                super::PERFORMANCE,
                "idx_approval_history_timestamp",
            ),
            ("PHASE4", super::PHASE4, "idx_skills_created_at"),
            ("FLAKY", super::FLAKY, "idx_approval_history_timestamp"),
            (
                "APPROVALS",
                super::APPROVALS,
                "idx_approval_history_timestamp",
            ),
        ] {
            let mut stmt = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let count = stmt.parameter_count();
            let values: Vec<String> = (0..count)
                .map(|i| match i {
                    0 => "2026-11-01 00:00:00".to_owned(),
                    1 => "2026-12-01 00:00:00".to_owned(),
                    _ => "20".to_owned(),
                })
                .collect();
            let plan: Vec<String> = stmt
                .query_map(rusqlite::params_from_iter(values.iter()), |r| r.get(3))
                .and_then(Iterator::collect)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let plan = plan.join("\n");
            assert!(
                plan.lines().any(|line| line.contains("SEARCH")
                    && (line.contains(&format!("USING INDEX {index} ("))
                        || line.contains(&format!("USING COVERING INDEX {index} (")))),
                "{name} does not search {index}:\n{plan}"
            );
        }
    }
}
