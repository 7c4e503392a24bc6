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

use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use super::reviews::{HEAD_ROW_COLUMNS, HeadRow, head_row, pending_of};
use super::{Assembly, StoreError, TrailView};
use crate::config::Routing;
use crate::report::{
    CategoryCoverage, CategoryGaps, DailyPassRate, Effectiveness, FlakyTest, Generated,
    PassRatePoint, PassRates, Report, SCHEMA, Section, SectionName, SkillPassRate,
    TierApprovalTime, TierPerformance, Waiting,
};
use crate::skill::Reviewers;

/// Seed query 1 keeps the latest 20 rows of a skill.
const POINTS_PER_SKILL: i64 = 20;
/// The flakiest tests listed.
const FLAKY_TESTS: i64 = 50;

/// Rows in the window, on column `c`: `?1` and `?2` are the window (`YYYY-MM-DD HH:MM:SS`, both
/// ends included: a report made the second a run ends holds that run), `?3`
/// and `?4` the same a day wider. The gate stores times in that form; a row written by hand may
/// hold RFC 3339 (`2026-11-10T06:00:00Z`), which sorts after it on its day as text. So a text
/// range a day wider picks the rows from an index, and `datetime()` of each decides.
macro_rules! window {
    ($c:literal) => {
        concat!(
            $c,
            " >= ?3 AND ",
            $c,
            " < ?4 AND datetime(",
            $c,
            ") >= ?1 AND datetime(",
            $c,
            ") <= ?2"
        )
    };
}

/// The statements that filter a window (see [`window!`]): the indexes of migrations 0001 and
/// 0006 serve them (`tests::windows_search_an_index`).
const IN_WINDOW: &str = concat!(
    "SELECT count(*) FROM approval_history WHERE ",
    window!("timestamp")
);
const DAILY: &str = concat!(
    "SELECT substr(datetime(timestamp), 1, 10) AS day, avg(pass_rate), count(*)
     FROM approval_history
     WHERE review_id IS NULL AND pass_rate IS NOT NULL AND ",
    window!("timestamp"),
    " GROUP BY day ORDER BY day"
);
/// Seed query 1 for every skill: the latest 20 of each in the window, numbered without reading
/// their test results, which are read for the rows kept only.
const POINTS: &str = concat!(
    "SELECT w.skill_id, w.runs, datetime(w.timestamp), w.approval_level, w.pass_rate,
            json_extract(t.test_results, '$.pass_count'),
            json_extract(t.test_results, '$.fail_count'),
            json_extract(t.test_results, '$.coverage'), w.decision
     FROM (SELECT id, skill_id, timestamp, approval_level, pass_rate, decision,
                  row_number() OVER win AS n, count(*) OVER (PARTITION BY skill_id) AS runs
           FROM approval_history
           WHERE review_id IS NULL AND pass_rate IS NOT NULL AND ",
    window!("timestamp"),
    " WINDOW win AS (PARTITION BY skill_id ORDER BY datetime(timestamp) DESC, id DESC)) w
     JOIN approval_history t ON t.id = w.id
     WHERE w.n <= ?5
     ORDER BY w.skill_id, datetime(w.timestamp), w.id"
);
/// Seed query 3, but with the averages of the skill's uses: the seed's bare
/// `JSON_EXTRACT(...)` and `confidence_after - confidence_before` under `GROUP BY` take one
/// arbitrary use's values (and its `HAVING` filters on that one). `query effectiveness` runs the
/// seed's own text.
const EFFECTIVENESS: &str = concat!(
    "SELECT
         sl.agent_type,
         s.name,
         s.category,
         ROUND(AVG(JSON_EXTRACT(sl.test_execution_result, '$.pass_rate')), 3) as test_pass_rate,
         ROUND(AVG(sl.confidence_after - sl.confidence_before), 3) as confidence_improvement,
         COUNT(sl.id) as usage_count,
         ROUND(AVG(CAST(sl.success_indicator as FLOAT)), 3) as success_rate
     FROM skill_usage_log sl
     JOIN skills s ON sl.skill_id = s.id
     WHERE sl.task_id IS NOT NULL AND ",
    window!("sl.loaded_at"),
    " GROUP BY sl.skill_id, sl.agent_type
     HAVING test_pass_rate >= 0.90
     ORDER BY confidence_improvement DESC, sl.agent_type, s.name"
);
/// Each change decided in the window, once: a skill at a pull request's head (or a row outside
/// any pull request), by its latest row in the window (the gate's decision, or the review that
/// answered it); its tier, that row's decision and time, and the change's first row's time.
/// Seed query 5 counts rows instead, so an escalation and the approval that answers it are two
/// decisions and a re-run counts twice: `query gate-performance` runs the seed's own text.
const CHANGES: &str = concat!(
    "SELECT ah.approval_level, ah.decision, datetime(ah.timestamp),
            CASE WHEN ah.pull_request IS NULL OR ah.repository IS NULL THEN datetime(ah.timestamp)
            ELSE (SELECT min(datetime(f.timestamp)) FROM approval_history f
                  WHERE f.repository = ah.repository AND f.pull_request = ah.pull_request
                    AND f.skill_id = ah.skill_id
                    AND COALESCE(f.pull_request_head, f.head_sha)
                        IS COALESCE(ah.pull_request_head, ah.head_sha)) END,
            ah.repository, ah.pull_request, COALESCE(ah.pull_request_head, ah.head_sha),
            ah.skill_id
     FROM approval_history ah
     WHERE ah.id IN (
         SELECT max(id) FROM approval_history WHERE ",
    window!("timestamp"),
    " GROUP BY CASE WHEN pull_request IS NULL OR repository IS NULL THEN 'row ' || id
                    ELSE repository || ' ' || pull_request || ' '
                         || COALESCE(pull_request_head, head_sha, '') || ' ' || skill_id END)"
);
/// Every row at the heads where a change of the window was escalated or reviewed, by head and
/// id: whether such a change is approved is what its reviews say against the approvals its
/// route needs (as the waits read them), not its latest row alone.
const REVIEWED: &str = concat!(
    "WITH keys AS MATERIALIZED (
         SELECT DISTINCT repository, pull_request, COALESCE(pull_request_head, head_sha) AS head,
                skill_id
         FROM approval_history
         WHERE pull_request IS NOT NULL AND repository IS NOT NULL
           AND (decision = 'escalated' OR review_id IS NOT NULL) AND ",
    window!("timestamp"),
    ")
     SELECT ah.id, ah.skill_id, s.name, s.skill_dir, ah.approval_level, ah.decision,
            ah.escalation_categories, COALESCE(ah.escalation_timestamp, ah.timestamp),
            ah.approver, ah.review_id, k.repository, k.pull_request, k.head,
            datetime(ah.timestamp)
     FROM keys k
     JOIN approval_history ah
       ON ah.repository = k.repository AND ah.pull_request = k.pull_request
      AND ah.skill_id = k.skill_id AND COALESCE(ah.pull_request_head, ah.head_sha) = k.head
     JOIN skills s ON s.id = ah.skill_id
     WHERE datetime(ah.timestamp) <= ?2
     ORDER BY k.repository, k.pull_request, k.head, ah.id"
);
/// The minutes reviews took (review rows that decided, not dismissals), per tier.
const REVIEW_MINUTES: &str = concat!(
    "SELECT approval_level, ROUND(AVG(CAST(review_duration_minutes as FLOAT)), 1)
     FROM approval_history
     WHERE review_id IS NOT NULL AND review_duration_minutes IS NOT NULL
       AND decision != 'escalated' AND ",
    window!("timestamp"),
    " GROUP BY approval_level"
);
const PHASE4: &str = concat!(
    "SELECT s.name, s.category, s.phase4_pattern_id, s.test_coverage,
            s.required_test_pass_rate,
            (SELECT decision FROM approval_history WHERE skill_id = s.id
             ORDER BY timestamp DESC, id DESC LIMIT 1),
            (SELECT approval_level FROM approval_history WHERE skill_id = s.id
             ORDER BY timestamp DESC, id DESC LIMIT 1),
            (SELECT datetime(max(timestamp)) FROM approval_history
             WHERE skill_id = s.id AND decision = 'approved'),
            datetime(s.created_at)
     FROM skills s
     WHERE s.is_auto_generated = 1 AND lower(s.generated_by) = 'phase4' AND ",
    window!("s.created_at"),
    " ORDER BY s.created_at DESC, s.name"
);
const FLAKY: &str = concat!(
    "SELECT ah.skill_id, f.value, count(*), datetime(max(ah.timestamp))
     FROM approval_history ah, json_each(ah.test_results, '$.flaky_tests') f
     WHERE ah.review_id IS NULL AND ah.test_results LIKE '%\"flaky_tests\"%'
       AND json_valid(ah.test_results) AND f.type = 'text' AND ",
    window!("ah.timestamp"),
    " GROUP BY ah.skill_id, f.value
     ORDER BY count(*) DESC, max(ah.timestamp) DESC, ah.skill_id, f.value
     LIMIT ?5"
);

/// What a report covers.
#[derive(Debug, Clone)]
pub struct ReportQuery<'a> {
    /// The window, `YYYY-MM-DD HH:MM:SS` UTC: from `since` to `until`, both included.
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
        let window = Window {
            since: &query.since,
            until: &query.until,
            wide_since: shifted(&query.since, -1),
            wide_until: shifted(&query.until, 1),
        };
        let wanted = |name| query.sections.is_empty() || query.sections.contains(&name);
        // On a single file, the waits (the longest section on a large trail) are read on a
        // second read-only connection beside the rest: two cores, half the wait.
        let path = self.path().to_path_buf();
        let beside = wanted(SectionName::Waiting) && self.assembly() == Assembly::Single;
        std::thread::scope(|scope| {
            let waits = beside.then(|| {
                scope.spawn(|| {
                    let other = TrailView::open_single(&path)?;
                    waiting(other.connection(), &window, query.routing).map_err(|source| {
                        StoreError::Read {
                            path: path.clone(),
                            source,
                        }
                    })
                })
            });
            let mut sections = self.sections(query, &window, beside)?;
            if let Some(waits) = waits {
                let section = waits.join().map_err(|_| StoreError::Read {
                    path: path.clone(),
                    source: rusqlite::Error::InvalidQuery,
                })??;
                let at = sections
                    .iter()
                    .position(|s| s.name() > SectionName::Waiting)
                    .unwrap_or(sections.len());
                sections.insert(at, section);
            }
            self.finish(query, &window, sections)
        })
    }

    /// Every section `query` wants but the waits when `skip_waiting`, in the report's order.
    fn sections(
        &self,
        query: &ReportQuery<'_>,
        window: &Window<'_>,
        skip_waiting: bool,
    ) -> Result<Vec<Section>, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path().to_path_buf(),
            source,
        };
        let conn = self.connection();
        let mut sections = Vec::new();
        // The changes decided in the window: read once for the two sections that count them.
        let mut decided: Option<Vec<Change>> = None;
        for name in SectionName::ALL {
            if name == SectionName::Waiting && skip_waiting {
                continue;
            }
            if !query.sections.is_empty() && !query.sections.contains(&name) {
                continue;
            }
            let section = match name {
                SectionName::PassRates => pass_rates(conn, window),
                SectionName::Waiting => waiting(conn, window, query.routing),
                SectionName::Effectiveness => effectiveness(conn, window),
                SectionName::Coverage => coverage(conn),
                SectionName::GatePerformance => {
                    changes_of(conn, window, query.routing, &mut decided)
                        .and_then(|c| gate_performance(conn, window, c))
                }
                SectionName::Phase4 => phase4(conn, window),
                SectionName::FlakyTests => flaky_tests(conn, window),
                SectionName::TimeToApproval => {
                    changes_of(conn, window, query.routing, &mut decided).map(time_to_approval)
                }
                SectionName::Migration => migration(conn),
            };
            sections.push(section.map_err(read)?);
        }
        Ok(sections)
    }

    /// The report, with the counts of its header.
    fn finish(
        &self,
        query: &ReportQuery<'_>,
        window: &Window<'_>,
        sections: Vec<Section>,
    ) -> Result<Report, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path().to_path_buf(),
            source,
        };
        let conn = self.connection();
        let decisions_in_window = conn
            .query_row(IN_WINDOW, params_from_iter(window.params()), |r| {
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
    /// A day wider on each side: the text range an index serves (see [`window!`]).
    wide_since: String,
    wide_until: String,
}

impl Window<'_> {
    /// `?1` to `?4` of a windowed statement.
    fn params(&self) -> [&str; 4] {
        [self.since, self.until, &self.wide_since, &self.wide_until]
    }
}

/// `time` moved by `days` (either way), in the trail's form; `time` itself when it does not read.
fn shifted(time: &str, days: i64) -> String {
    epoch(time)
        .and_then(|at| i64::try_from(at).ok())
        .map(|at| at + days * 86_400)
        .and_then(|at| u64::try_from(at).ok())
        .map_or_else(
            || time.to_owned(),
            |at| {
                let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at);
                super::history::sqlite_timestamp(&humantime::format_rfc3339_seconds(at).to_string())
            },
        )
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
fn coverage_fraction(value: rusqlite::types::Value) -> Option<f64> {
    use rusqlite::types::Value;
    let text = match value {
        Value::Text(text) => text,
        Value::Real(v) => v.to_string(),
        Value::Integer(v) => v.to_string(),
        Value::Null | Value::Blob(_) => return None,
    };
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
    let daily = rows(conn, DAILY, params_from_iter(w.params()), |r| {
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
        params![
            w.since,
            w.until,
            w.wide_since,
            w.wide_until,
            POINTS_PER_SKILL
        ],
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
                    coverage: coverage_fraction(r.get::<_, rusqlite::types::Value>(7)?),
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
    // Every row at those heads, in one statement (a head at a time would be a query per
    // pull request), with what the report shows of each escalation.
    let sql = format!(
        "WITH prs AS MATERIALIZED (
             SELECT DISTINCT repository, pull_request FROM approval_history
             WHERE decision = 'escalated' AND review_id IS NULL),
         heads AS MATERIALIZED (
             SELECT p.repository, p.pull_request,
                    -- The latest gate row, walking the pull request's rows newest first.
                    (SELECT COALESCE(g.pull_request_head, g.head_sha) FROM approval_history g
                     WHERE g.repository = p.repository AND g.pull_request = p.pull_request
                       AND g.review_id IS NULL
                     ORDER BY g.id DESC LIMIT 1) AS head
             FROM prs p WHERE p.repository IS NOT NULL AND p.pull_request IS NOT NULL),
         waits AS MATERIALIZED (
             SELECT h.repository, h.pull_request, h.head FROM heads h
             WHERE h.head IS NOT NULL AND EXISTS (
                 SELECT 1 FROM approval_history e
                 WHERE e.repository = h.repository AND e.pull_request = h.pull_request
                   AND e.decision = 'escalated' AND e.review_id IS NULL
                   AND COALESCE(e.pull_request_head, e.head_sha) = h.head))
         SELECT {HEAD_ROW_COLUMNS}, wt.repository, wt.pull_request, wt.head,
                s.category, s.test_coverage, ah.escalation_reason, ah.escalated_to
         FROM waits wt
         JOIN approval_history ah
           ON ah.repository = wt.repository AND ah.pull_request = wt.pull_request
          AND COALESCE(ah.pull_request_head, ah.head_sha) = wt.head
          -- Only a skill escalated there can wait there.
          AND ah.skill_id IN (
              SELECT e.skill_id FROM approval_history e
              WHERE e.repository = wt.repository AND e.pull_request = wt.pull_request
                AND e.decision = 'escalated' AND e.review_id IS NULL
                AND COALESCE(e.pull_request_head, e.head_sha) = wt.head)
         JOIN skills s ON s.id = ah.skill_id
         ORDER BY wt.repository, wt.pull_request, ah.id"
    );
    type Detail = (String, Option<f64>, Option<String>, Option<String>);
    let mut heads: Vec<((String, i64, String), Vec<HeadRow>)> = Vec::new();
    let mut details: BTreeMap<i64, Detail> = BTreeMap::new();
    let mut stmt = conn.prepare(&sql)?;
    let mut found = stmt.query([])?;
    while let Some(r) = found.next()? {
        let row = head_row(r)?;
        let at: (String, i64, String) = (r.get(10)?, r.get(11)?, r.get(12)?);
        details.insert(row.id, (r.get(13)?, r.get(14)?, r.get(15)?, r.get(16)?));
        match heads.last_mut() {
            Some((last, rows)) if *last == at => rows.push(row),
            _ => heads.push((at, vec![row])),
        }
    }
    let mut out = Vec::new();
    for ((repository, pull_request, head), rows) in heads {
        let Ok(number) = u64::try_from(pull_request) else {
            continue;
        };
        for p in pending_of(rows, &repository, number, &head) {
            // Approved, or escalated only after the window's end (the state shown is the
            // trail's now: a wait begun later is not one at `until`).
            if p.is_approved(routing.required(p.tier, &p.categories))
                || epoch(&p.escalated_at)
                    .zip(epoch(w.until))
                    .is_some_and(|(a, b)| a > b)
            {
                continue;
            }
            let (category, test_coverage, escalation_reason, escalated_to) = details
                .get(&p.escalation_id)
                .cloned()
                .unwrap_or_else(|| ("unknown".to_owned(), None, None, None));
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
                categories: p.categories,
                escalated_to: asked(escalated_to.as_deref(), &repository),
                approvals: p.approvers,
                changes_requested_by: p.changes_requested_by,
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
    rows(conn, EFFECTIVENESS, params_from_iter(w.params()), |r| {
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

/// One change decided in the window ([`CHANGES`]).
struct Change {
    tier: String,
    decision: String,
    /// Minutes from its first row to its latest (to its approval, once approved).
    minutes: f64,
}

/// A change's identity: repository, pull request, head, skill.
type ChangeKey = (String, i64, String, i64);

/// The changes decided in the window, each once ([`CHANGES`]); a change escalated or reviewed
/// there is resolved as the waits are ([`REVIEWED`]): approved once the approvals its route
/// needs stand with no change request, at the review that completed them; a change request is
/// `needs_correction`; else it is still `escalated`.
fn changes(conn: &Connection, w: &Window<'_>, routing: &Routing) -> rusqlite::Result<Vec<Change>> {
    let minutes_between = |first: Option<&str>, last: Option<&str>| match (
        first.and_then(epoch),
        last.and_then(epoch),
    ) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 60.0,
        _ => 0.0,
    };
    let mut resolved: BTreeMap<ChangeKey, (String, Option<String>)> = BTreeMap::new();
    let mut heads: Vec<((String, i64, String), Vec<HeadRow>)> = Vec::new();
    let mut times: BTreeMap<i64, String> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(REVIEWED)?;
        let mut found = stmt.query(params_from_iter(w.params()))?;
        while let Some(r) = found.next()? {
            let row = head_row(r)?;
            let at: (String, i64, String) = (r.get(10)?, r.get(11)?, r.get(12)?);
            times.insert(row.id, r.get(13)?);
            match heads.last_mut() {
                Some((last, rows)) if *last == at => rows.push(row),
                _ => heads.push((at, vec![row])),
            }
        }
    }
    for ((repository, pull_request, head), rows) in heads {
        let approvals: Vec<(i64, String, String)> = rows
            .iter()
            .filter(|r| r.is_review() && r.decision == "approved")
            .map(|r| {
                (
                    r.skill_id,
                    r.approver.clone().unwrap_or_default(),
                    times.get(&r.id).cloned().unwrap_or_default(),
                )
            })
            .collect();
        let number = u64::try_from(pull_request).unwrap_or(0);
        for p in pending_of(rows, &repository, number, &head) {
            let key = (repository.clone(), pull_request, head.clone(), p.skill_id);
            let outcome = if p.is_approved(routing.required(p.tier, &p.categories)) {
                // The latest approval among those that stand completed them.
                let at = approvals
                    .iter()
                    .filter(|(skill, who, _)| *skill == p.skill_id && p.approvers.contains(who))
                    .map(|(_, _, at)| at.clone())
                    .max();
                ("approved".to_owned(), at)
            } else if !p.changes_requested_by.is_empty() {
                ("needs_correction".to_owned(), None)
            } else {
                ("escalated".to_owned(), None)
            };
            resolved.insert(key, outcome);
        }
    }
    rows(conn, CHANGES, params_from_iter(w.params()), |r| {
        let last: Option<String> = r.get(2)?;
        let first: Option<String> = r.get(3)?;
        let key: Option<ChangeKey> = match (r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?) {
            (Some(repo), Some(pr), Some(head), Some(skill)) => Some((repo, pr, head, skill)),
            _ => None,
        };
        let mut decision: String = r.get(1)?;
        let mut until = last;
        if let Some((outcome, at)) = key.and_then(|k| resolved.get(&k)) {
            decision = outcome.clone();
            if at.is_some() {
                until = at.clone();
            }
        }
        Ok(Change {
            tier: r.get(0)?,
            decision,
            minutes: minutes_between(first.as_deref(), until.as_deref()),
        })
    })
}

/// `auto`, `escalate`, `human`, then anything a hand-written row holds.
fn tier_order(level: &str) -> (u8, String) {
    let order = match level {
        "auto" => 0,
        "escalate" => 1,
        "human" => 2,
        _ => 3,
    };
    (order, level.to_owned())
}

/// [`changes`], read the first time either section asks.
fn changes_of<'c>(
    conn: &Connection,
    w: &Window<'_>,
    routing: &Routing,
    cache: &'c mut Option<Vec<Change>>,
) -> rusqlite::Result<&'c [Change]> {
    if cache.is_none() {
        *cache = Some(changes(conn, w, routing)?);
    }
    Ok(cache.as_deref().unwrap_or_default())
}

fn gate_performance(
    conn: &Connection,
    w: &Window<'_>,
    changes: &[Change],
) -> rusqlite::Result<Section> {
    let minutes: BTreeMap<String, Option<f64>> =
        rows(conn, REVIEW_MINUTES, params_from_iter(w.params()), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .into_iter()
        .collect();
    let mut tiers: BTreeMap<(u8, String), TierPerformance> = BTreeMap::new();
    for change in changes {
        let tier = tiers
            .entry(tier_order(&change.tier))
            .or_insert_with(|| TierPerformance {
                approval_level: change.tier.clone(),
                total: 0,
                approved: 0,
                rejected: 0,
                needs_correction: 0,
                escalated: 0,
                approval_rate: 0.0,
                avg_review_minutes: minutes.get(&change.tier).copied().flatten(),
            });
        tier.total += 1;
        match change.decision.as_str() {
            "approved" => tier.approved += 1,
            "rejected" => tier.rejected += 1,
            "needs_correction" => tier.needs_correction += 1,
            _ => tier.escalated += 1,
        }
    }
    Ok(Section::GatePerformance(
        tiers
            .into_values()
            .map(|mut t| {
                t.approval_rate = round1(100.0 * t.approved as f64 / t.total.max(1) as f64);
                t
            })
            .collect(),
    ))
}

fn phase4(conn: &Connection, w: &Window<'_>) -> rusqlite::Result<Section> {
    // Seed section 8's query, one row per skill: its latest decision and its latest approval.
    rows(conn, PHASE4, params_from_iter(w.params()), |r| {
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
    let flaky: Vec<(i64, String, i64, String)> = rows(
        conn,
        FLAKY,
        params![w.since, w.until, w.wide_since, w.wide_until, FLAKY_TESTS],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
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
            concat!(
                "SELECT count(*) FROM approval_history
                 WHERE skill_id = ?5 AND review_id IS NULL AND test_results IS NOT NULL AND ",
                window!("timestamp")
            ),
            params![w.since, w.until, w.wide_since, w.wide_until, skill_id],
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

/// The changes approved in the window (their latest word an approval): minutes from their first
/// decision to it, by tier.
fn time_to_approval(changes: &[Change]) -> Section {
    let mut by_tier: BTreeMap<(u8, String), Vec<f64>> = BTreeMap::new();
    for change in changes {
        if change.decision == "approved" {
            by_tier
                .entry(tier_order(&change.tier))
                .or_default()
                .push(change.minutes);
        }
    }
    Section::TimeToApproval(
        by_tier
            .into_iter()
            .map(|((_, level), mut minutes)| {
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
    )
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
             SUM(CASE WHEN l.level = 'auto' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.level = 'escalate' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.level = 'human' THEN 1 ELSE 0 END),
             SUM(CASE WHEN l.level IS NULL THEN 1 ELSE 0 END)
         FROM skills s
         -- Each skill's latest row, found at the end of its index range: a seek a skill,
         -- never a pass over the whole history.
         LEFT JOIN (SELECT k.id AS skill_id,
                           (SELECT approval_level FROM approval_history
                            WHERE id = (SELECT max(id) FROM approval_history
                                        WHERE skill_id = k.id)) AS level
                    FROM skills k) l ON l.skill_id = s.id
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
        use rusqlite::types::Value;
        assert_eq!(coverage_fraction(Value::Text("88%".into())), Some(0.88));
        assert_eq!(coverage_fraction(Value::Text("0.9".into())), Some(0.9));
        assert_eq!(coverage_fraction(Value::Real(0.75)), Some(0.75));
        assert_eq!(coverage_fraction(Value::Integer(88)), Some(0.88));
        assert_eq!(coverage_fraction(Value::Text("n/a".into())), None);
        assert_eq!(coverage_fraction(Value::Null), None);
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
            ("CHANGES", super::CHANGES, "idx_approval_history_timestamp"),
            ("PHASE4", super::PHASE4, "idx_skills_created_at"),
            ("FLAKY", super::FLAKY, "idx_approval_history_timestamp"),
            (
                "REVIEW_MINUTES",
                super::REVIEW_MINUTES,
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
                    2 => "2026-10-31 00:00:00".to_owned(),
                    3 => "2026-12-02 00:00:00".to_owned(),
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
