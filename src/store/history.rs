//! `approval_history`: one chained row per gated skill and run, written in one transaction.

use rusqlite::TransactionBehavior;
use serde_json::{Map, Value, json};

use super::key::Key;
use super::{Store, StoreError, chain, skills};
use crate::gate::{GateRun, SkillResult};
use crate::policy::Verdict;

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
        // Under the write lock: nothing planted since the file was opened fires on these rows.
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
        let mut stats = RecordStats::default();
        let now = sqlite_timestamp(&run.run.finished_at);
        let pull_request = skills::for_pull_request(&run.run);
        for skill in &run.skills {
            let key = idempotency_key(run, skill);
            if key.recorded(&tx).map_err(write_err)? {
                stats.already_recorded += 1;
                continue;
            }
            let skill_id = skills::upsert(&tx, skill, &now, pull_request).map_err(write_err)?;
            chain::append(&tx, &row_values(run, skill, skill_id, key.as_str(), &now))
                .map_err(write_err)?;
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
    // The score's weighted parts stay in the results document: every row would pay ~100
    // bytes for figures the criteria check and the score already carry.
    if let Some(risk) = &signals.risk {
        assessment["score"] = json!(risk.score);
    }
    if let Some(declared) = signals.declared_risk {
        assessment["declared_risk"] = json!(declared);
    }
    assessment.to_string().into()
}

/// The seed's test-results JSON as a row stores it: every figure the suite reported, without
/// the empty ones (`null`, `[]`) and without `format` when it only repeats `framework`. Rows are
/// the bulk of the audit branch, and every run commits the whole file.
fn stored_test_results(mut tests: Value) -> Value {
    if let Value::Object(fields) = &mut tests {
        if fields.get("format") == fields.get("framework") {
            fields.remove("format");
        }
        fields.retain(|_, v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()));
    }
    tests
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
            .and_then(|t| serde_json::to_value(t).ok())
            .map_or(Value::Null, |t| stored_test_results(t).to_string().into()),
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
    // Who was asked: `{"users": [...], "teams": [...]}` from the routing, on every decision a
    // person must review; NULL for an approval (or no route).
    put(
        "escalated_to",
        if decision.reviewers.is_empty() || decision.decision == Verdict::Approved {
            Value::Null
        } else {
            serde_json::to_string(&decision.reviewers)
                .unwrap_or_default()
                .into()
        },
    );
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
fn idempotency_key(run: &GateRun, skill: &SkillResult) -> Key {
    Key::of(&json!([
        run.run.repository,
        run.run.pull_request,
        run.run.head,
        skill.name,
        skill.dir,
        skill.content_hash,
        run.run.run_id,
        run.run.run_attempt,
    ]))
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
    use super::{idempotency_key, sqlite_timestamp, stored_test_results};
    use crate::gate::GateRun;
    use crate::store::Store;
    use serde_json::json;

    fn gate_run() -> GateRun {
        serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
            .expect("fixture")
    }

    #[test]
    fn a_run_recorded_again_adds_nothing_whatever_form_its_keys_were_stored_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open(&dir.path().join("skills.db")).expect("open");
        let run = gate_run();
        assert_eq!(store.record(&run).expect("record").inserted, 5);
        let keys: Vec<String> = store
            .conn
            .prepare("SELECT idempotency_key FROM approval_history ORDER BY id")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("keys");
        let expected: Vec<String> = run
            .skills
            .iter()
            .map(|skill| idempotency_key(&run, skill).as_str().to_owned())
            .collect();
        assert_eq!(keys, expected);
        assert!(keys.iter().all(|k| k.len() == 32));
        let again = store.record(&run).expect("again");
        assert_eq!((again.inserted, again.already_recorded), (0, 5));

        // Rows from before keys were cut to 128 bits carry the whole digest.
        for skill in &run.skills {
            let key = idempotency_key(&run, skill);
            store
                .conn
                .execute(
                    "UPDATE approval_history SET idempotency_key = ?1 WHERE idempotency_key = ?2",
                    [key.legacy(), key.as_str()],
                )
                .expect("legacy key");
        }
        let again = store.record(&run).expect("after the upgrade");
        assert_eq!((again.inserted, again.already_recorded), (0, 5));
    }

    #[test]
    fn keys_tell_two_skills_with_one_name_apart() {
        let run = gate_run();
        let mut a = run.skills[1].clone();
        let mut b = a.clone();
        a.name = "setup".to_owned();
        a.dir = "plugins/a/skills/setup".to_owned();
        b.name = "setup".to_owned();
        b.dir = "plugins/b/skills/setup".to_owned();
        assert_ne!(idempotency_key(&run, &a), idempotency_key(&run, &b));
    }

    #[test]
    fn stored_test_results_drop_empty_fields_only() {
        let stored = stored_test_results(json!({
            "framework": "pytest", "format": "pytest", "pass_count": 3, "fail_count": 0,
            "pass_rate": 1.0, "coverage": null, "failed_tests": [], "skip_count": 0,
        }));
        assert_eq!(
            stored,
            json!({"framework": "pytest", "pass_count": 3, "fail_count": 0, "pass_rate": 1.0, "skip_count": 0})
        );
        let stored = stored_test_results(json!({
            "framework": "jest", "format": "junit", "failed_tests": [{"name": "t"}],
        }));
        assert_eq!(
            stored,
            json!({"framework": "jest", "format": "junit", "failed_tests": [{"name": "t"}]})
        );
    }

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
