//! The `skills` table: one row per skill name, upserted by every gate run.

use rusqlite::{OptionalExtension, Transaction, params};

use super::{Store, StoreError};
use crate::changes::ChangeKind;
use crate::gate::SkillResult;
use crate::skill::Tier;

/// Insert or update a skill's row; returns its id. A renamed skill keeps its row (and history).
pub(super) fn upsert(
    tx: &Transaction<'_>,
    skill: &SkillResult,
    now: &str,
) -> rusqlite::Result<i64> {
    if let ChangeKind::Renamed { from } = &skill.change {
        let taken: bool = tx
            .query_row(
                "SELECT 1 FROM skills WHERE name = ?1",
                [&skill.name],
                |_| Ok(true),
            )
            .optional()?
            .unwrap_or(false);
        if !taken {
            tx.execute(
                "UPDATE skills SET name = ?1, skill_dir = ?2 WHERE skill_dir = ?3",
                params![skill.name, skill.dir, from],
            )?;
        }
    }
    let status = match skill.change {
        ChangeKind::Deleted => "deleted",
        _ => "active",
    };
    let approved = skill.decision.tier == Tier::Auto;
    let criteria = serde_json::to_string(&skill.decision.criteria).unwrap_or_default();
    let tags =
        (!skill.tags.is_empty()).then(|| serde_json::to_string(&skill.tags).unwrap_or_default());
    let suite_path = skill
        .suite
        .as_ref()
        .and_then(|s| s.suite.as_ref())
        .map(|s| match &s.path {
            Some(path) => format!("{}/{path}", skill.dir),
            None => s.command.clone(),
        });
    let framework = skill.tests.as_ref().map(|t| t.framework.clone());
    let analysis = skill.signals.analysis.as_ref();
    tx.query_row(
        "INSERT INTO skills (
            name, category, team, content_path, content_hash, tags, version, status,
            test_coverage, test_suite_path, required_test_pass_rate, approval_level,
            approval_criteria, last_approved_by, last_approval_date, phase4_pattern_id,
            generated_by, is_auto_generated, owner, risk_score, skill_dir, test_framework,
            created_at, updated_at, cyclomatic_complexity, external_dependencies
         ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                   ?18, ?19, ?20, ?21, ?22, ?23, ?23, ?24, ?25)
         ON CONFLICT(name) DO UPDATE SET
            category = excluded.category,
            team = COALESCE(excluded.team, skills.team),
            content_path = excluded.content_path,
            content_hash = CASE WHEN excluded.status = 'deleted' THEN skills.content_hash
                                ELSE excluded.content_hash END,
            tags = COALESCE(excluded.tags, skills.tags),
            version = excluded.version,
            status = excluded.status,
            test_coverage = COALESCE(excluded.test_coverage, skills.test_coverage),
            test_suite_path = COALESCE(excluded.test_suite_path, skills.test_suite_path),
            required_test_pass_rate = excluded.required_test_pass_rate,
            approval_level = excluded.approval_level,
            approval_criteria = excluded.approval_criteria,
            last_approved_by = COALESCE(excluded.last_approved_by, skills.last_approved_by),
            last_approval_date = COALESCE(excluded.last_approval_date, skills.last_approval_date),
            phase4_pattern_id = excluded.phase4_pattern_id,
            generated_by = excluded.generated_by,
            is_auto_generated = excluded.is_auto_generated,
            owner = COALESCE(excluded.owner, skills.owner),
            risk_score = COALESCE(excluded.risk_score, skills.risk_score),
            cyclomatic_complexity = CASE WHEN ?26 THEN excluded.cyclomatic_complexity
                                         ELSE skills.cyclomatic_complexity END,
            external_dependencies = CASE WHEN ?26 THEN excluded.external_dependencies
                                         ELSE skills.external_dependencies END,
            skill_dir = excluded.skill_dir,
            test_framework = COALESCE(excluded.test_framework, skills.test_framework),
            updated_at = excluded.updated_at
         RETURNING id",
        params![
            skill.name,
            skill.category.as_deref().unwrap_or("uncategorized"),
            skill.team,
            format!("{}/{}", skill.dir, skill.skill_file),
            skill.content_hash.as_deref().unwrap_or(""),
            tags,
            skill.version.as_deref().unwrap_or("0.0.0"),
            status,
            skill.coverage.as_ref().map(|c| c.ratio),
            suite_path,
            skill.signals.required_pass_rate,
            skill.decision.tier.as_str(),
            criteria,
            approved.then_some("system"),
            approved.then_some(now),
            skill.phase4_pattern_id,
            skill.generated_by,
            skill.generated_by.as_deref() == Some("phase4"),
            skill.owner,
            // Measured (raised by the declared floor); the declared floor alone when the
            // skill was not analysed.
            skill
                .signals
                .risk
                .as_ref()
                .map(|r| r.score)
                .or(skill.signals.declared_risk),
            skill.dir,
            framework,
            now,
            analysis.and_then(|a| a.complexity.as_ref()).map(|c| c.max),
            analysis.map(|a| a.dependency_count),
            // Analysed now: what it found replaces what was, none included.
            analysis.is_some(),
        ],
        |row| row.get(0),
    )
}

impl Store {
    /// The coverage last recorded for a skill, for the run's `coverage_delta`.
    pub fn previous_coverage(&self, name: &str) -> Result<Option<f64>, StoreError> {
        self.conn
            .query_row(
                "SELECT test_coverage FROM skills WHERE name = ?1",
                [name],
                |row| row.get::<_, Option<f64>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|source| StoreError::Read {
                path: self.path.clone(),
                source,
            })
    }
}
