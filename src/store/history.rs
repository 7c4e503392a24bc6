//! `approval_history`: one chained row per gated skill and run, written in one transaction.

use rusqlite::{OptionalExtension, TransactionBehavior};
use serde_json::{Map, Value, json};

use super::{Store, StoreError, chain, skills};
use crate::gate::{GateRun, SkillResult};
use crate::policy::Verdict;
use crate::skill::hex;

/// What a `record` call wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecordStats {
    /// New `approval_history` rows.
    pub inserted: usize,
    /// Rows already recorded by an earlier run of the same job (same idempotency key).
    pub already_recorded: usize,
}

impl Store {
    /// Record a gate run: upsert each skill and append its decision, all or nothing.
    pub fn record(&mut self, run: &GateRun) -> Result<RecordStats, StoreError> {
        let path = self.path.clone();
        let write_err = |source| StoreError::Write {
            path: path.clone(),
            source,
        };
        // IMMEDIATE: the write lock is taken before the chain's last hash is read, so two
        // writers on one file queue (busy_timeout) instead of both chaining to the same row.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(write_err)?;
        let mut stats = RecordStats::default();
        let now = sqlite_timestamp(&run.run.finished_at);
        for skill in &run.skills {
            let key = idempotency_key(run, skill);
            let seen: Option<i64> = tx
                .query_row(
                    "SELECT id FROM approval_history WHERE idempotency_key = ?1",
                    [&key],
                    |row| row.get(0),
                )
                .optional()
                .map_err(write_err)?;
            if seen.is_some() {
                stats.already_recorded += 1;
                continue;
            }
            let skill_id = skills::upsert(&tx, skill, &now).map_err(write_err)?;
            chain::append(&tx, &row_values(run, skill, skill_id, &key, &now)).map_err(write_err)?;
            stats.inserted += 1;
        }
        tx.commit().map_err(write_err)?;
        Ok(stats)
    }
}

/// The seed's `risk_assessment` (`{"security": "low", "complexity": "medium"}`), with the score
/// and its parts. Complexity ≤ 5 is low, 6–15 medium, above high; security is high for a secret
/// or security-sensitive code, medium for an infrastructure change or a database write.
fn risk_assessment(skill: &SkillResult) -> Value {
    let signals = &skill.signals;
    let Some(analysis) = &signals.analysis else {
        return signals.declared_risk.map_or(Value::Null, |r| {
            json!({ "declared_risk": r }).to_string().into()
        });
    };
    let security = if !analysis.secrets.is_empty() || !analysis.security_sensitive.is_empty() {
        "high"
    } else if !analysis.infrastructure.is_empty() || !analysis.database_writes.is_empty() {
        "medium"
    } else {
        "low"
    };
    let complexity = match analysis.complexity.as_ref().map(|c| c.max) {
        None => Value::Null,
        Some(0..=5) => "low".into(),
        Some(6..=15) => "medium".into(),
        Some(_) => "high".into(),
    };
    let mut assessment = json!({
        "security": security,
        "complexity": complexity,
        "external_dependencies": analysis.dependency_count,
    });
    if let Some(risk) = &signals.risk {
        assessment["score"] = json!(risk.score);
        assessment["parts"] = json!(risk.parts);
    }
    if let Some(declared) = signals.declared_risk {
        assessment["declared_risk"] = json!(declared);
    }
    assessment.to_string().into()
}

/// The columns a gate-written row fills, hashed in this canonical form.
fn row_values(
    run: &GateRun,
    skill: &SkillResult,
    skill_id: i64,
    key: &str,
    now: &str,
) -> Map<String, Value> {
    let decision = &skill.decision;
    let escalated = decision.decision == Verdict::Escalated;
    let reasoning = decision.reasons.join("; ");
    let mut row = Map::new();
    let mut put = |column: &str, value: Value| {
        row.insert(column.to_owned(), value);
    };
    put("skill_id", skill_id.into());
    put(
        "version",
        skill.version.as_deref().unwrap_or("0.0.0").into(),
    );
    put("approval_level", decision.tier.as_str().into());
    put(
        "test_results",
        skill
            .tests
            .as_ref()
            .and_then(|t| serde_json::to_string(t).ok())
            .map_or(Value::Null, Value::String),
    );
    put(
        "approval_criteria_check",
        serde_json::to_string(&decision.criteria)
            .unwrap_or_default()
            .into(),
    );
    put(
        "approver",
        if escalated {
            Value::Null
        } else {
            "system".into()
        },
    );
    put("decision", decision.decision.as_str().into());
    put("reasoning", reasoning.into());
    put("risk_assessment", risk_assessment(skill));
    put(
        "escalation_reason",
        if escalated {
            decision
                .reasons
                .first()
                .map_or(Value::Null, |r| r.as_str().into())
        } else {
            Value::Null
        },
    );
    put("escalated_to", Value::Null);
    put(
        "escalation_timestamp",
        if escalated { now.into() } else { Value::Null },
    );
    put("timestamp", now.into());
    put("repository", run.run.repository.as_str().into());
    put(
        "pull_request",
        run.run.pull_request.map_or(Value::Null, Value::from),
    );
    put(
        "base_sha",
        run.run.base.as_deref().map_or(Value::Null, Value::from),
    );
    put(
        "head_sha",
        run.run.head.as_deref().map_or(Value::Null, Value::from),
    );
    put(
        "pull_request_head",
        run.run
            .pull_request_head
            .as_deref()
            .map_or(Value::Null, Value::from),
    );
    put(
        "run_id",
        run.run.run_id.as_deref().map_or(Value::Null, Value::from),
    );
    put("run_attempt", run.run.run_attempt.into());
    put("change_kind", skill.change.label().into());
    put(
        "content_hash",
        skill
            .content_hash
            .as_deref()
            .map_or(Value::Null, Value::from),
    );
    put(
        "escalation_categories",
        if decision.escalation_categories.is_empty() {
            Value::Null
        } else {
            serde_json::to_string(&decision.escalation_categories)
                .unwrap_or_default()
                .into()
        },
    );
    put("idempotency_key", key.into());
    row
}

/// One row per repository, PR, head commit, skill, skill content, run and attempt: re-running
/// the same job adds nothing.
fn idempotency_key(run: &GateRun, skill: &SkillResult) -> String {
    use sha2::{Digest, Sha256};
    let parts = json!([
        run.run.repository,
        run.run.pull_request,
        run.run.head,
        skill.name,
        skill.dir,
        skill.content_hash,
        run.run.run_id,
        run.run.run_attempt,
    ]);
    hex(&Sha256::digest(parts.to_string().as_bytes()))
}

/// `2026-11-30T03:37:06Z` → `2026-11-30 03:37:06`, the form `datetime('now')` writes, so the
/// seed's `timestamp > datetime('now', '-7 days')` comparisons hold.
pub fn sqlite_timestamp(rfc3339: &str) -> String {
    rfc3339
        .trim_end_matches('Z')
        .split('.')
        .next()
        .unwrap_or(rfc3339)
        .replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::sqlite_timestamp;

    #[test]
    fn timestamps_compare_like_sqlite_datetime() {
        assert_eq!(
            sqlite_timestamp("2026-11-30T03:37:06Z"),
            "2026-11-30 03:37:06"
        );
        assert_eq!(
            sqlite_timestamp("2026-11-30T03:37:06.123Z"),
            "2026-11-30 03:37:06"
        );
    }
}
