//! Reviews in `approval_history`: which skills of a pull request head wait for a human, and the
//! rows a review appends (never an UPDATE: the escalation and its review both stay in the chain).
//!
//! A review is of a head commit, so every review row of that head counts, whichever gate run
//! escalated the skill; each reviewer's latest review of a skill is their word on it, as on
//! GitHub (changes requested, then approved, is approved). A skill is its row in `skills` (its
//! directory): two skills with one name are reviewed, and counted, apart.

use std::collections::BTreeMap;

use rusqlite::{Connection, TransactionBehavior, params};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::chain::{self, canonical, column_list};
use super::history::sqlite_timestamp;
use super::key::Key;
use super::{Store, StoreError};
use crate::skill::Tier;

/// A skill whose latest gate decision at a pull request head is `escalated`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pending {
    /// The `approval_history` row of that latest decision.
    pub escalation_id: i64,
    pub skill_id: i64,
    /// The skill's name, as shown.
    pub skill: String,
    /// The skill's directory relative to the repository: what identifies it. `None` for a row
    /// inserted by hand.
    pub dir: Option<String>,
    /// `escalate` or `human`: the row's `approval_level`.
    pub tier: Tier,
    /// The escalation categories (`coverage`, `infrastructure`, …); empty for the human tier.
    pub categories: Vec<String>,
    /// When the skill was first escalated at this head, uninterrupted since (`YYYY-MM-DD
    /// HH:MM:SS`, UTC).
    pub escalated_at: String,
    pub repository: String,
    pub pull_request: u64,
    /// The pull request head the reviews are made on.
    pub head_sha: String,
    /// Reviewers whose latest review of this skill at this head approved it, sorted.
    pub approvers: Vec<String>,
    /// Reviewers whose latest review of this skill at this head asked for changes, sorted.
    pub changes_requested_by: Vec<String>,
}

impl Pending {
    /// Whether `required` distinct reviewers approved and nobody's latest word is a change
    /// request.
    pub fn is_approved(&self, required: u32) -> bool {
        self.changes_requested_by.is_empty() && self.approvers.len() >= required as usize
    }
}

/// A skill that needs correction at a pull request head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Correction {
    pub skill_id: i64,
    /// The skill's name, as shown.
    pub skill: String,
    /// The skill's directory relative to the repository; `None` for a row inserted by hand.
    pub dir: Option<String>,
}

/// A reviewer's decision on a pull request head, for each skill pending there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// The reviewer's login.
    pub approver: String,
    pub decision: ReviewDecision,
    /// The review's text, already escaped for wherever it will be shown.
    pub reasoning: String,
    /// RFC 3339 (`2026-11-30T11:15:00Z`), the review's `submitted_at`.
    pub reviewed_at: String,
    /// The review's id: with the skill and head, what makes the row once-only.
    pub review_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecision {
    Approved,
    NeedsCorrection,
    /// The review was dismissed: the reviewer's word no longer counts, and the skill waits
    /// again (recorded as `escalated`).
    Dismissed,
}

impl ReviewDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::NeedsCorrection => "needs_correction",
            Self::Dismissed => "escalated",
        }
    }
}

/// The columns a review row takes over from the escalation it answers.
const CARRIED: &[&str] = &[
    "skill_id",
    "version",
    "approval_level",
    "test_results",
    "approval_criteria_check",
    "risk_assessment",
    "escalation_reason",
    "escalated_to",
    "escalation_timestamp",
    "repository",
    "pull_request",
    "base_sha",
    "head_sha",
    "pull_request_head",
    "change_kind",
    "content_hash",
    "escalation_categories",
];

impl Store {
    /// Skills whose latest gate decision at this head needs correction, by name then
    /// directory: no review makes the check pass while one does.
    pub fn corrections_at(
        &self,
        repository: &str,
        pull_request: u64,
        head_sha: &str,
    ) -> Result<Vec<Correction>, StoreError> {
        let rows = head_rows(&self.conn, repository, pull_request, head_sha).map_err(|source| {
            StoreError::Read {
                path: self.path.clone(),
                source,
            }
        })?;
        let mut latest: BTreeMap<SkillKey, String> = BTreeMap::new();
        for row in rows.into_iter().filter(|r| r.review_id.is_none()) {
            latest.insert(row.key(), row.decision);
        }
        Ok(latest
            .into_iter()
            .filter(|(_, d)| d == "needs_correction" || d == "rejected")
            .map(|((skill, dir, skill_id), _)| Correction {
                skill_id,
                skill,
                dir,
            })
            .collect())
    }

    /// The skills escalated at a pull request head (`head_sha` is the pull request's head, as a
    /// review names it), with who approved or asked for changes so far, by skill name then
    /// directory. A skill whose latest gate decision there is not `escalated` is not listed.
    pub fn pending_escalations(
        &self,
        repository: &str,
        pull_request: u64,
        head_sha: &str,
    ) -> Result<Vec<Pending>, StoreError> {
        pending_at(&self.conn, repository, pull_request, head_sha).map_err(|source| {
            StoreError::Read {
                path: self.path.clone(),
                source,
            }
        })
    }

    /// Append a reviewer's decision on a pending skill: a chained row that carries the
    /// escalation's results, with the reviewer as approver, the review's text as reasoning and
    /// the minutes since the escalation. Returns `false` when this review of this skill was
    /// already recorded (re-running the same review job adds nothing).
    pub fn record_review(
        &mut self,
        pending: &Pending,
        review: &Review,
    ) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let write_err = |source| StoreError::Write {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(write_err)?;
        if let Some(problem) = super::schema::problems(&tx)
            .map_err(write_err)?
            .into_iter()
            .next()
        {
            return Err(StoreError::Schema {
                path: self.path.clone(),
                problem,
            });
        }
        let key = review_key(pending, review);
        if key.recorded(&tx).map_err(write_err)?
            || recorded_by_name(&tx, pending, review).map_err(write_err)?
        {
            return Ok(false);
        }
        let reviewed_at = sqlite_timestamp(&review.reviewed_at);
        if !is_timestamp(&tx, &reviewed_at) {
            return Err(StoreError::Review {
                path: self.path.clone(),
                message: format!(
                    "review {} of skill {}: `{}` is not an RFC 3339 time",
                    review.review_id, pending.skill, review.reviewed_at
                ),
            });
        }
        // Whole minutes; a review stamped before the escalation (clock skew) took none.
        let minutes: Option<i64> = tx
            .query_row(
                "SELECT max(0, (unixepoch(?2) - unixepoch(?1)) / 60)",
                params![pending.escalated_at, reviewed_at],
                |row| row.get(0),
            )
            .map_err(write_err)?;
        let carried: Vec<String> = CARRIED.iter().map(|c| (*c).to_owned()).collect();
        let mut row: Map<String, Value> = tx
            .query_row(
                &format!(
                    "SELECT {} FROM approval_history WHERE id = ?1",
                    column_list(&carried)
                ),
                [pending.escalation_id],
                |r| canonical(r, &carried),
            )
            .map_err(write_err)?;
        let mut put = |column: &str, value: Value| {
            row.insert(column.to_owned(), value);
        };
        put("approver", review.approver.as_str().into());
        put("decision", review.decision.as_str().into());
        put("reasoning", review.reasoning.as_str().into());
        put("timestamp", reviewed_at.into());
        put(
            "review_duration_minutes",
            minutes.map_or(Value::Null, Value::from),
        );
        put("review_id", review.review_id.as_str().into());
        put("idempotency_key", key.as_str().into());
        chain::append(&tx, &row).map_err(write_err)?;
        tx.commit().map_err(write_err)?;
        Ok(true)
    }

    /// How many distinct reviewers' latest review of the skill whose row is `skill_id` at this
    /// pull request head approved it: what the caller compares with the approvals the skill's
    /// tier requires.
    pub fn approvals_for(
        &self,
        repository: &str,
        pull_request: u64,
        head_sha: &str,
        skill_id: i64,
    ) -> Result<u32, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let mut latest: BTreeMap<String, String> = BTreeMap::new();
        for row in head_rows(&self.conn, repository, pull_request, head_sha).map_err(read)? {
            if let (Some(_), Some(approver), true) =
                (&row.review_id, row.approver, row.skill_id == skill_id)
            {
                latest.insert(approver, row.decision);
            }
        }
        let approved = latest.values().filter(|d| *d == "approved").count();
        Ok(u32::try_from(approved).unwrap_or(u32::MAX))
    }
}

/// A skill at a head: `(name, directory, row id)`, so that skills list by name and two skills
/// with one name stay apart.
/// The skills escalated at a pull request head, with who approved or asked for changes so far
/// ([`Store::pending_escalations`]); `conn` may be a [`super::TrailView`]'s.
fn pending_at(
    conn: &Connection,
    repository: &str,
    pull_request: u64,
    head_sha: &str,
) -> rusqlite::Result<Vec<Pending>> {
    let rows = head_rows(conn, repository, pull_request, head_sha)?;
    Ok(pending_of(rows, repository, pull_request, head_sha))
}

/// The columns of a head's row, as [`head_row`] reads them from the first ten of a statement.
pub(super) const HEAD_ROW_COLUMNS: &str =
    "ah.id, ah.skill_id, s.name, s.skill_dir, ah.approval_level, ah.decision,
     ah.escalation_categories, COALESCE(ah.escalation_timestamp, ah.timestamp),
     ah.approver, ah.review_id";

/// The skills escalated at a head, from every row there (oldest first): see
/// [`Store::pending_escalations`].
pub(super) fn pending_of(
    rows: Vec<HeadRow>,
    repository: &str,
    pull_request: u64,
    head_sha: &str,
) -> Vec<Pending> {
    let mut by_skill: BTreeMap<SkillKey, SkillState> = BTreeMap::new();
    for row in rows {
        let state = by_skill.entry(row.key()).or_default();
        match &row.review_id {
            Some(_) => {
                if let Some(approver) = &row.approver {
                    state.reviews.insert(approver.clone(), row.decision.clone());
                }
            }
            None => {
                let since = match &state.latest {
                    Some(prev) if prev.decision == "escalated" => state.since.clone(),
                    _ => Some(row.escalated_at.clone()),
                };
                state.since = since;
                state.latest = Some(row);
            }
        }
    }
    let mut pending = Vec::new();
    for ((skill, dir, _), state) in by_skill {
        let Some(latest) = state.latest.filter(|r| r.decision == "escalated") else {
            continue;
        };
        let pick = |wanted: &str| -> Vec<String> {
            state
                .reviews
                .iter()
                .filter(|(_, decision)| decision.as_str() == wanted)
                .map(|(approver, _)| approver.clone())
                .collect()
        };
        pending.push(Pending {
            escalation_id: latest.id,
            skill_id: latest.skill_id,
            skill,
            dir,
            tier: Tier::parse(&latest.tier).unwrap_or(Tier::Human),
            categories: latest
                .categories
                .as_deref()
                .and_then(|c| serde_json::from_str(c).ok())
                .unwrap_or_default(),
            escalated_at: state.since.unwrap_or(latest.escalated_at),
            repository: repository.to_owned(),
            pull_request,
            head_sha: head_sha.to_owned(),
            approvers: pick("approved"),
            changes_requested_by: pick("needs_correction"),
        });
    }
    pending
}

type SkillKey = (String, Option<String>, i64);

#[derive(Default)]
struct SkillState {
    /// The latest row the gate wrote (no review id).
    latest: Option<HeadRow>,
    /// Since when the skill has been escalated without a break.
    since: Option<String>,
    /// Each reviewer's latest decision.
    reviews: BTreeMap<String, String>,
}

pub(super) struct HeadRow {
    pub(super) id: i64,
    pub(super) skill_id: i64,
    skill: String,
    dir: Option<String>,
    tier: String,
    pub(super) decision: String,
    categories: Option<String>,
    escalated_at: String,
    pub(super) approver: Option<String>,
    review_id: Option<String>,
}

/// Every row of a pull request head, oldest first. A row's head is the pull request head it
/// recorded, else the commit it tested.
fn head_rows(
    conn: &Connection,
    repository: &str,
    pull_request: u64,
    head_sha: &str,
) -> rusqlite::Result<Vec<HeadRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {HEAD_ROW_COLUMNS}
         FROM approval_history ah JOIN skills s ON s.id = ah.skill_id
         WHERE ah.repository = ?1 AND ah.pull_request = ?2
           AND COALESCE(ah.pull_request_head, ah.head_sha) = ?3
         ORDER BY ah.id"
    ))?;
    let rows = stmt.query_map(
        params![
            repository,
            i64::try_from(pull_request).unwrap_or(i64::MAX),
            head_sha
        ],
        head_row,
    )?;
    rows.collect()
}

/// A head's row from the first ten columns of a statement ([`HEAD_ROW_COLUMNS`]).
pub(super) fn head_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<HeadRow> {
    Ok(HeadRow {
        id: row.get(0)?,
        skill_id: row.get(1)?,
        skill: row.get(2)?,
        dir: row.get(3)?,
        tier: row.get(4)?,
        decision: row.get(5)?,
        categories: row.get(6)?,
        escalated_at: row.get(7)?,
        approver: row.get(8)?,
        review_id: row.get(9)?,
    })
}

impl HeadRow {
    /// A row a review appended (not the gate's).
    pub(super) fn is_review(&self) -> bool {
        self.review_id.is_some()
    }

    fn key(&self) -> SkillKey {
        (self.skill.clone(), self.dir.clone(), self.skill_id)
    }
}

fn is_timestamp(conn: &Connection, text: &str) -> bool {
    conn.query_row("SELECT unixepoch(?1) IS NOT NULL", [text], |row| row.get(0))
        .unwrap_or(false)
}

/// One row per review, skill and head: the same review job run twice adds nothing. The skill
/// is its directory: two skills named `setup` each get the review's row.
fn review_key(pending: &Pending, review: &Review) -> Key {
    match &pending.dir {
        Some(dir) => Key::of(&json!([
            review_kind(review),
            pending.repository,
            pending.pull_request,
            pending.head_sha,
            pending.skill,
            review.review_id,
            dir,
        ])),
        None => name_key(pending, review),
    }
}

/// The key skillgate wrote before skills were identified by directory (and still writes for a
/// row inserted by hand, which has none).
fn name_key(pending: &Pending, review: &Review) -> Key {
    Key::of(&json!([
        review_kind(review),
        pending.repository,
        pending.pull_request,
        pending.head_sha,
        pending.skill,
        review.review_id,
    ]))
}

/// A dismissal is the same review, later: its own row.
fn review_kind(review: &Review) -> &'static str {
    match review.decision {
        ReviewDecision::Dismissed => "dismissal",
        _ => "review",
    }
}

/// Whether this review of this skill was recorded under the key of a trail identified by name:
/// the same review job, re-run after skillgate was upgraded, adds nothing either. Only a row of
/// this very skill counts: another skill of the same name was not reviewed by it.
fn recorded_by_name(
    conn: &Connection,
    pending: &Pending,
    review: &Review,
) -> rusqlite::Result<bool> {
    if pending.dir.is_none() {
        return Ok(false);
    }
    name_key(pending, review).recorded_for(conn, pending.skill_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::GateRun;

    const HEAD: &str = "3333333333333333333333333333333333333333";

    /// The examples' escalated csv-summary as `setup` at each of `dirs`, at one head.
    fn run_at(dirs: &[&str]) -> GateRun {
        let mut run: GateRun =
            serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
                .expect("fixture");
        let escalated = run.skills.swap_remove(1);
        run.skills = dirs
            .iter()
            .map(|dir| {
                let mut skill = escalated.clone();
                skill.name = "setup".to_owned();
                skill.dir = (*dir).to_owned();
                skill
            })
            .collect();
        run.run.repository = "octo/plugins".to_owned();
        run.run.pull_request = Some(9);
        run.run.pull_request_head = Some(HEAD.to_owned());
        run.run.run_attempt = u32::try_from(dirs.len()).expect("small");
        run
    }

    fn approval() -> Review {
        Review {
            approver: "alice".to_owned(),
            decision: ReviewDecision::Approved,
            reasoning: "approved by @alice".to_owned(),
            reviewed_at: "2026-11-30T12:00:00Z".to_owned(),
            review_id: "500".to_owned(),
        }
    }

    #[test]
    fn a_review_recorded_under_its_name_key_is_not_recorded_again_for_that_skill_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("skills.db")).expect("open");
        store
            .record(&run_at(&["plugins/a/skills/setup"]))
            .expect("a");
        let a = store
            .pending_escalations("octo/plugins", 9, HEAD)
            .expect("pending")
            .remove(0);
        // The row skillgate wrote for this review before skills were identified by directory.
        let mut row = Map::new();
        row.insert("skill_id".into(), a.skill_id.into());
        row.insert("version".into(), "1.0.0".into());
        row.insert("approval_level".into(), "escalate".into());
        row.insert("decision".into(), "approved".into());
        row.insert("approver".into(), "alice".into());
        row.insert("review_id".into(), "500".into());
        row.insert(
            "idempotency_key".into(),
            name_key(&a, &approval()).as_str().into(),
        );
        chain::append(&store.conn, &row).expect("old review row");
        assert!(
            !store.record_review(&a, &approval()).expect("re-run"),
            "the re-run review job adds nothing"
        );
        assert_ne!(review_key(&a, &approval()), name_key(&a, &approval()));

        // Another `setup`, at the same head, was not reviewed by it.
        store
            .record(&run_at(&[
                "plugins/a/skills/setup",
                "plugins/b/skills/setup",
            ]))
            .expect("b");
        let b = store
            .pending_escalations("octo/plugins", 9, HEAD)
            .expect("pending")
            .into_iter()
            .find(|p| p.dir.as_deref() == Some("plugins/b/skills/setup"))
            .expect("b pending");
        assert_eq!(name_key(&b, &approval()), name_key(&a, &approval()));
        assert!(store.record_review(&b, &approval()).expect("b's review"));
        assert!(!store.record_review(&b, &approval()).expect("once"));
    }
}
