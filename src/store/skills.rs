//! The `skills` table: one row per skill directory, upserted by every gate run. The directory
//! (relative to the repository) is what identifies a skill; its `name` is what it is called.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::{Store, StoreError};
use crate::changes::{ChangeKind, SkillChange};
use crate::gate::SkillResult;
use crate::skill::Tier;

/// The row holding the history of the skill at `dir` named `name`, if there is one: the row at
/// `dir`; for a skill that moved, the row at its old directory (`from`); else a row inserted by
/// hand under its name, with no directory and no decision skillgate recorded (the seed's
/// `INSERT INTO skills`), which the skill takes over. A row that lost its directory when the
/// trail moved to identity by path (migration 0004) has decisions, and is not taken over.
fn holding(
    conn: &Connection,
    dir: &str,
    from: Option<&str>,
    name: &str,
) -> rusqlite::Result<Option<i64>> {
    let at = |dir: &str| {
        conn.query_row("SELECT id FROM skills WHERE skill_dir = ?1", [dir], |row| {
            row.get(0)
        })
        .optional()
    };
    if let Some(id) = at(dir)? {
        return Ok(Some(id));
    }
    if let Some(id) = from.map(at).transpose()?.flatten() {
        return Ok(Some(id));
    }
    conn.query_row(
        "SELECT id FROM skills s
         WHERE s.skill_dir IS NULL AND s.name = ?1
           AND NOT EXISTS (SELECT 1 FROM approval_history ah
                           WHERE ah.skill_id = s.id AND ah.row_hash IS NOT NULL)
         ORDER BY s.id LIMIT 1",
        [name],
        |row| row.get(0),
    )
    .optional()
}

fn renamed_from(change: &ChangeKind) -> Option<&str> {
    match change {
        ChangeKind::Renamed { from } => Some(from),
        _ => None,
    }
}

/// Insert or update a skill's row by its directory; returns its id. A skill that moved keeps
/// its row (and history); a renamed `name` is the same skill, called something else.
pub(super) fn upsert(
    tx: &Transaction<'_>,
    skill: &SkillResult,
    now: &str,
) -> rusqlite::Result<i64> {
    if let Some(id) = holding(tx, &skill.dir, renamed_from(&skill.change), &skill.name)? {
        // Moves the row to the skill's directory when it was elsewhere (or nowhere); the
        // upsert below then finds it there.
        tx.execute(
            "UPDATE skills SET skill_dir = ?1 WHERE id = ?2",
            params![skill.dir, id],
        )?;
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
         ON CONFLICT(skill_dir) DO UPDATE SET
            name = excluded.name,
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
    /// The coverage last recorded for a skill, for the run's `coverage_delta`: from the row its
    /// decision will be recorded on (see `holding`).
    pub fn previous_coverage(
        &self,
        change: &SkillChange,
        name: &str,
    ) -> Result<Option<f64>, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let Some(id) = holding(
            &self.conn,
            &change.skill.dir,
            renamed_from(&change.kind),
            name,
        )
        .map_err(read)?
        else {
            return Ok(None);
        };
        self.conn
            .query_row(
                "SELECT test_coverage FROM skills WHERE id = ?1",
                [id],
                |row| row.get::<_, Option<f64>>(0),
            )
            .map_err(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::SkillDir;
    use crate::gate::GateRun;

    /// A run of one skill, `name` at `dir`, from the examples' run (csv-summary, coverage
    /// 81/89); `attempt` makes each run a new job, so nothing is skipped as already recorded.
    fn run_of(dir: &str, name: &str, change: ChangeKind, attempt: u32) -> GateRun {
        let mut run: GateRun =
            serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
                .expect("fixture");
        run.skills = vec![run.skills.swap_remove(1)];
        run.run.run_attempt = attempt;
        let skill = &mut run.skills[0];
        skill.dir = dir.to_owned();
        skill.name = name.to_owned();
        skill.change = change;
        run
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        (dir, store)
    }

    /// `(id, name, skill_dir, decisions)` of every row.
    fn rows(store: &Store) -> Vec<(i64, String, Option<String>, i64)> {
        store
            .conn
            .prepare(
                "SELECT s.id, s.name, s.skill_dir,
                        (SELECT count(*) FROM approval_history ah WHERE ah.skill_id = s.id)
                 FROM skills s ORDER BY s.id",
            )
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect()
            })
            .expect("rows")
    }

    fn change(dir: &str, kind: ChangeKind) -> SkillChange {
        SkillChange {
            skill: SkillDir {
                dir: dir.to_owned(),
                skill_file: "SKILL.md".to_owned(),
            },
            kind,
        }
    }

    const A: &str = "plugins/a/skills/setup";
    const B: &str = "plugins/b/skills/setup";

    #[test]
    fn one_name_in_two_directories_is_two_skills_with_two_histories() {
        let (_dir, mut store) = store();
        for attempt in 1..=2 {
            let mut run = run_of(A, "setup", ChangeKind::Added, attempt);
            run.skills
                .extend(run_of(B, "setup", ChangeKind::Added, attempt).skills);
            assert_eq!(store.record(&run).expect("record").inserted, 2);
        }
        assert_eq!(
            rows(&store),
            vec![
                (1, "setup".into(), Some(A.into()), 2),
                (2, "setup".into(), Some(B.into()), 2),
            ]
        );
    }

    #[test]
    fn a_moved_skill_keeps_its_row_and_a_new_name_is_the_same_skill() {
        let (_dir, mut store) = store();
        store
            .record(&run_of(B, "setup", ChangeKind::Added, 1))
            .expect("record");
        store
            .record(&run_of(A, "setup", ChangeKind::Added, 1))
            .expect("the other setup");
        let moved = "plugins/b/skills/install";
        let renamed = ChangeKind::Renamed { from: B.to_owned() };
        // The moved skill's coverage is read from its old row.
        assert_eq!(
            store
                .previous_coverage(&change(moved, renamed.clone()), "setup")
                .expect("coverage"),
            Some(81.0 / 89.0)
        );
        assert_eq!(
            store
                .previous_coverage(&change(moved, ChangeKind::Added), "setup")
                .expect("coverage"),
            None,
            "a skill new at that directory has none"
        );
        store
            .record(&run_of(moved, "setup", renamed, 2))
            .expect("moved");
        // Its `name` changes where it is: still the same skill.
        store
            .record(&run_of(moved, "install", ChangeKind::Modified, 3))
            .expect("renamed");
        assert_eq!(
            rows(&store),
            vec![
                (1, "install".into(), Some(moved.into()), 3),
                (2, "setup".into(), Some(A.into()), 1),
            ]
        );
    }

    #[test]
    fn a_row_the_seed_inserted_by_name_is_taken_over_by_one_skill_only() {
        let (_dir, mut store) = store();
        store
            .conn
            .execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version,
                                     test_coverage)
                 VALUES ('setup', 'testing', './.claude/skills/setup.md', 'h', '1.0.0', 0.42)",
                [],
            )
            .expect("seed row");
        assert_eq!(
            store
                .previous_coverage(&change(A, ChangeKind::Added), "setup")
                .expect("coverage"),
            Some(0.42)
        );
        let mut run = run_of(A, "setup", ChangeKind::Added, 1);
        run.skills
            .extend(run_of(B, "setup", ChangeKind::Added, 1).skills);
        store.record(&run).expect("record");
        // b's row is new (its id is whatever the upsert drew: each one draws one).
        let rows = rows(&store);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0], (1, "setup".into(), Some(A.into()), 1));
        let (id, name, dir, decisions) = rows[1].clone();
        assert_ne!(id, 1);
        assert_eq!((name, dir, decisions), ("setup".into(), Some(B.into()), 1));
    }

    #[test]
    fn a_row_without_a_directory_that_has_decisions_is_not_taken_over() {
        let (_dir, mut store) = store();
        // What migration 0004 leaves of a skill replaced in its directory under v3.
        store
            .conn
            .execute(
                "INSERT INTO skills (name, category, content_path, content_hash, version,
                                     test_coverage)
                 VALUES ('setup', 'testing', 'plugins/a/skills/setup/SKILL.md', 'h', '1.0.0',
                         0.42)",
                [],
            )
            .expect("detached row");
        let mut row = serde_json::Map::new();
        row.insert("skill_id".into(), 1.into());
        row.insert("version".into(), "1.0.0".into());
        row.insert("approval_level".into(), "human".into());
        row.insert("decision".into(), "escalated".into());
        super::super::chain::append(&store.conn, &row).expect("its decision");
        assert_eq!(
            store
                .previous_coverage(&change(B, ChangeKind::Added), "setup")
                .expect("coverage"),
            None
        );
        store
            .record(&run_of(B, "setup", ChangeKind::Added, 1))
            .expect("record");
        assert_eq!(
            rows(&store),
            vec![
                (1, "setup".into(), None, 1),
                (2, "setup".into(), Some(B.into()), 1),
            ]
        );
    }
}
