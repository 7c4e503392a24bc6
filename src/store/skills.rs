//! The `skills` table: one row per skill directory, upserted by every gate run. The directory
//! (relative to the repository) is what identifies a skill; its `name` is what it is called.
//!
//! A run recorded for a pull request describes a branch that may never merge, so it never
//! changes what identifies main's skills: it moves no row to another directory, takes over no
//! row, and keeps an existing row's `name` (the seed's key), `status` and paths (`content_path`,
//! `test_suite_path`). It writes what the latest decision was about (content hash, version,
//! coverage, tier, risk, …), as every gate run does: the seed's queries read those beside the
//! latest `approval_history` row, which is the pull request's, and the next run that gates the
//! skill replaces them. A deletion in a pull request writes nothing to `skills`: the skill is
//! still there on main.

use rusqlite::{Connection, OptionalExtension, ToSql, Transaction};

use super::{Store, StoreError};
use crate::changes::{ChangeKind, SkillChange};
use crate::gate::{RunInfo, SkillResult};
use crate::skill::Tier;

/// Whether `run` was recorded for a pull request (or a merge queue), whose branch may never
/// reach the default branch: it names a pull request, or its event is one of a pull request's.
/// A `push`, a schedule, a dispatch or a local run records what its checkout holds.
pub(super) fn for_pull_request(run: &RunInfo) -> bool {
    run.pull_request.is_some()
        || run.event.starts_with("pull_request")
        || run.event == "merge_group"
}

/// How a skill's row was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// The row at the skill's old directory (`from`): the skill moved.
    Moved,
    /// The row at the skill's directory.
    Here,
    /// A row the seed inserted by name, with no directory and no decision of skillgate's.
    Seeded,
}

/// The row holding the history of the skill at `dir` named `name`, if there is one: for a
/// skill that moved, the row at its old directory (`from`), even when another row is at `dir`
/// (a skill deleted there: the moved skill is not it); else the row at `dir`; else, outside a
/// pull request, a row inserted by hand under its name, with no directory and no decision
/// skillgate recorded (the seed's `INSERT INTO skills`), which the skill takes over. A row that
/// lost its directory when the trail moved to identity by path (migration 0004) has decisions,
/// and is not taken over.
fn holding(
    conn: &Connection,
    dir: &str,
    from: Option<&str>,
    name: &str,
    pull_request: bool,
) -> rusqlite::Result<Option<(i64, Found)>> {
    let at = |dir: &str| {
        conn.query_row("SELECT id FROM skills WHERE skill_dir = ?1", [dir], |row| {
            row.get(0)
        })
        .optional()
    };
    if let Some(id) = from.map(at).transpose()?.flatten() {
        return Ok(Some((id, Found::Moved)));
    }
    if let Some(id) = at(dir)? {
        return Ok(Some((id, Found::Here)));
    }
    if pull_request {
        return Ok(None);
    }
    let seeded = conn
        .query_row(
            "SELECT id FROM skills s
             WHERE s.skill_dir IS NULL AND s.name = ?1
               AND NOT EXISTS (SELECT 1 FROM approval_history ah
                               WHERE ah.skill_id = s.id AND ah.row_hash IS NOT NULL)
             ORDER BY s.id LIMIT 1",
            [name],
            |row| row.get(0),
        )
        .optional()?;
    Ok(seeded.map(|id| (id, Found::Seeded)))
}

fn renamed_from(change: &ChangeKind) -> Option<&str> {
    match change {
        ChangeKind::Renamed { from } => Some(from),
        _ => None,
    }
}

/// Insert or update a skill's row; returns its id. Outside a pull request, a skill that moved
/// takes its row (and history) to its new directory, and a row still at that directory (a
/// skill deleted there) keeps its history without one; a renamed `name` is the same skill,
/// called something else. For a pull request, see the module's documentation.
pub(super) fn upsert(
    tx: &Transaction<'_>,
    skill: &SkillResult,
    now: &str,
    pull_request: bool,
) -> rusqlite::Result<i64> {
    let found = holding(
        tx,
        &skill.dir,
        renamed_from(&skill.change),
        &skill.name,
        pull_request,
    )?;
    let deleted = skill.change == ChangeKind::Deleted;
    match found {
        // Still there on main, as it was.
        Some((id, _)) if pull_request && deleted => return Ok(id),
        // The skill moved onto a directory another row holds (a skill deleted there): that row
        // keeps its history, without a directory; the update below moves this one there.
        Some((id, Found::Moved)) if !pull_request => {
            tx.execute(
                "UPDATE skills SET skill_dir = NULL WHERE skill_dir = ?1 AND id <> ?2",
                rusqlite::params![skill.dir, id],
            )?;
        }
        _ => {}
    }
    let status = if deleted && !pull_request {
        "deleted"
    } else {
        "active"
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
            Some(path) => in_repository(&skill.dir, path),
            None => s.command.clone(),
        });
    let framework = skill.tests.as_ref().map(|t| t.framework.clone());
    let analysis = skill.signals.analysis.as_ref();
    let category = skill.category.as_deref().unwrap_or("uncategorized");
    let content_path = in_repository(&skill.dir, &skill.skill_file);
    let content_hash = skill.content_hash.as_deref().unwrap_or("");
    let version = skill.version.as_deref().unwrap_or("0.0.0");
    let coverage = skill.coverage.as_ref().map(|c| c.ratio);
    let level = skill.decision.tier.as_str();
    let approved_by = approved.then_some("system");
    let approved_at = approved.then_some(now);
    let auto_generated = skill.generated_by.as_deref() == Some("phase4");
    // Measured (raised by the declared floor); the declared floor alone when the skill was not
    // analysed.
    let risk = skill
        .signals
        .risk
        .as_ref()
        .map(|r| r.score)
        .or(skill.signals.declared_risk);
    let complexity = analysis.and_then(|a| a.complexity.as_ref()).map(|c| c.max);
    let dependencies = analysis.map(|a| a.dependency_count);
    let mut values: Vec<(&str, &dyn ToSql)> = vec![
        (":name", &skill.name),
        (":category", &category),
        (":team", &skill.team),
        (":content_path", &content_path),
        (":content_hash", &content_hash),
        (":tags", &tags),
        (":version", &version),
        (":status", &status),
        (":coverage", &coverage),
        (":suite_path", &suite_path),
        (":pass_rate", &skill.signals.required_pass_rate),
        (":level", &level),
        (":criteria", &criteria),
        (":approved_by", &approved_by),
        (":approved_at", &approved_at),
        (":pattern", &skill.phase4_pattern_id),
        (":generated_by", &skill.generated_by),
        (":auto_generated", &auto_generated),
        (":owner", &skill.owner),
        (":risk", &risk),
        (":dir", &skill.dir),
        (":framework", &framework),
        (":now", &now),
        (":complexity", &complexity),
        (":dependencies", &dependencies),
    ];
    let Some((id, _)) = found else {
        return tx.query_row(
            "INSERT INTO skills (
                name, category, team, content_path, content_hash, tags, version, status,
                test_coverage, test_suite_path, required_test_pass_rate, approval_level,
                approval_criteria, last_approved_by, last_approval_date, phase4_pattern_id,
                generated_by, is_auto_generated, owner, risk_score, skill_dir, test_framework,
                created_at, updated_at, cyclomatic_complexity, external_dependencies
             ) VALUES (:name, :category, :team, :content_path, :content_hash, :tags, :version,
                       :status, :coverage, :suite_path, :pass_rate, :level, :criteria,
                       :approved_by, :approved_at, :pattern, :generated_by, :auto_generated,
                       :owner, :risk, :dir, :framework, :now, :now, :complexity, :dependencies)
             RETURNING id",
            &values[..],
            |row| row.get(0),
        );
    };
    // Analysed now: what it found replaces what was, none included.
    let analysed = analysis.is_some();
    values.extend([
        (":analysed", &analysed as &dyn ToSql),
        (":pull_request", &pull_request),
        (":id", &id),
    ]);
    tx.execute(
        "UPDATE skills SET
            name = CASE WHEN :pull_request THEN name ELSE :name END,
            category = :category,
            team = COALESCE(:team, team),
            content_path = CASE WHEN :pull_request THEN content_path ELSE :content_path END,
            content_hash = CASE WHEN :status = 'deleted' THEN content_hash
                                ELSE :content_hash END,
            tags = COALESCE(:tags, tags),
            version = :version,
            status = CASE WHEN :pull_request THEN status ELSE :status END,
            test_coverage = COALESCE(:coverage, test_coverage),
            test_suite_path = CASE WHEN :pull_request THEN test_suite_path
                                   ELSE COALESCE(:suite_path, test_suite_path) END,
            required_test_pass_rate = :pass_rate,
            approval_level = :level,
            approval_criteria = :criteria,
            last_approved_by = COALESCE(:approved_by, last_approved_by),
            last_approval_date = COALESCE(:approved_at, last_approval_date),
            phase4_pattern_id = :pattern,
            generated_by = :generated_by,
            is_auto_generated = :auto_generated,
            owner = COALESCE(:owner, owner),
            risk_score = COALESCE(:risk, risk_score),
            skill_dir = CASE WHEN :pull_request THEN skill_dir ELSE :dir END,
            test_framework = COALESCE(:framework, test_framework),
            cyclomatic_complexity = CASE WHEN :analysed THEN :complexity
                                         ELSE cyclomatic_complexity END,
            external_dependencies = CASE WHEN :analysed THEN :dependencies
                                         ELSE external_dependencies END,
            updated_at = :now
         WHERE id = :id",
        &values[..],
    )?;
    Ok(id)
}

impl Store {
    /// The coverage last recorded for a skill, for the run's `coverage_delta`: from the row its
    /// decision will be recorded on outside a pull request (see `holding`). A pull request's
    /// decision is recorded on a new row rather than on a row the seed inserted by name, but its
    /// delta is still from that row's coverage: the last one known for the skill.
    pub fn previous_coverage(
        &self,
        change: &SkillChange,
        name: &str,
    ) -> Result<Option<f64>, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let Some((id, _)) = holding(
            &self.conn,
            &change.skill.dir,
            renamed_from(&change.kind),
            name,
            false,
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

/// A path of the skill's, relative to the repository: the skill at the repository's top (a root
/// of `.`) has the empty directory, and its files no leading `/`.
fn in_repository(dir: &str, path: &str) -> String {
    if dir.is_empty() {
        path.to_owned()
    } else {
        format!("{dir}/{path}")
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

    /// `run_of`, recorded for pull request 7.
    fn pr_run_of(dir: &str, name: &str, change: ChangeKind, attempt: u32) -> GateRun {
        let mut run = run_of(dir, name, change, attempt);
        run.run.pull_request = Some(7);
        run.run.event = "pull_request".to_owned();
        run
    }

    /// `(name, skill_dir, status, content_path, content_hash)` of row `id`.
    fn identity(store: &Store, id: i64) -> (String, Option<String>, String, String, String) {
        store
            .conn
            .query_row(
                "SELECT name, skill_dir, status, content_path, content_hash FROM skills
                 WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .expect("row")
    }

    #[test]
    fn runs_for_a_pull_request_are_told_by_its_number_or_event() {
        let mut run = run_of(A, "setup", ChangeKind::Added, 1).run;
        assert!(!for_pull_request(&run), "a local run");
        for event in ["push", "schedule", "workflow_dispatch"] {
            run.event = event.to_owned();
            assert!(!for_pull_request(&run), "{event}");
        }
        for event in ["pull_request", "pull_request_target", "merge_group"] {
            run.event = event.to_owned();
            assert!(for_pull_request(&run), "{event}");
        }
        run.event = "workflow_run".to_owned();
        run.pull_request = Some(3);
        assert!(for_pull_request(&run), "a publish job of pull request 3");
    }

    #[test]
    fn a_pull_request_records_a_move_on_the_old_row_without_moving_or_renaming_it() {
        let (_dir, mut store) = store();
        store
            .record(&run_of(B, "setup", ChangeKind::Added, 1))
            .expect("main");
        let before = identity(&store, 1);
        let moved = "plugins/b/skills/evil";
        let mut run = pr_run_of(moved, "evil", ChangeKind::Renamed { from: B.into() }, 2);
        run.skills[0].content_hash = Some("pr-content".to_owned());
        store.record(&run).expect("pull request");
        // Its decision joined the moved skill's history; main's row is still where it is,
        // called what it is called, and says what the pull request's content was.
        assert_eq!(rows(&store), vec![(1, "setup".into(), Some(B.into()), 2)]);
        assert_eq!(
            identity(&store, 1),
            (
                before.0,
                before.1,
                before.2,
                before.3,
                "pr-content".to_owned()
            )
        );
        // A pull request changing the name in place does not rename main's row either.
        store
            .record(&pr_run_of(B, "evil", ChangeKind::Modified, 3))
            .expect("renamed in place");
        assert_eq!(rows(&store), vec![(1, "setup".into(), Some(B.into()), 3)]);
        // Outside a pull request (the merge, recorded on the default branch), it moves.
        store
            .record(&run_of(
                moved,
                "evil",
                ChangeKind::Renamed { from: B.into() },
                4,
            ))
            .expect("merged");
        assert_eq!(
            rows(&store),
            vec![(1, "evil".into(), Some(moved.into()), 4)]
        );
        assert_eq!(
            identity(&store, 1).3,
            format!("{moved}/SKILL.md"),
            "its content path follows it"
        );
    }

    #[test]
    fn a_deletion_in_a_pull_request_leaves_mains_row_as_it_was() {
        let (_dir, mut store) = store();
        store
            .record(&run_of(A, "setup", ChangeKind::Added, 1))
            .expect("main");
        let row = |store: &Store| -> (String, String, String, Option<f64>) {
            store
                .conn
                .query_row(
                    "SELECT status, approval_level, updated_at, test_coverage FROM skills
                     WHERE id = 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .expect("row")
        };
        let before = row(&store);
        assert_eq!(before.0, "active");
        let mut run = pr_run_of(A, "setup", ChangeKind::Deleted, 2);
        run.run.finished_at = "2026-12-01T10:00:00Z".to_owned();
        run.skills[0].decision.tier = Tier::Human;
        store.record(&run).expect("pull request");
        assert_eq!(row(&store), before);
        assert_eq!(rows(&store), vec![(1, "setup".into(), Some(A.into()), 2)]);
        // Recorded outside a pull request, the deletion is the skill's.
        store
            .record(&run_of(A, "setup", ChangeKind::Deleted, 3))
            .expect("main");
        assert_eq!(row(&store).0, "deleted");
    }

    #[test]
    fn a_pull_request_never_takes_over_a_row_the_seed_inserted() {
        let (_dir, mut store) = store();
        store
            .conn
            .execute_batch(
                "INSERT INTO skills (name, category, content_path, content_hash, version,
                                     test_coverage)
                 VALUES ('setup', 'testing', './.claude/skills/setup.md', 'h', '1.0.0', 0.42);
                 INSERT INTO agent_skill_mappings (agent_type, skill_id) VALUES ('coder', 1);",
            )
            .expect("seed row");
        // Its delta is still from the coverage the seed gave the skill.
        assert_eq!(
            store
                .previous_coverage(&change(A, ChangeKind::Added), "setup")
                .expect("coverage"),
            Some(0.42)
        );
        store
            .record(&pr_run_of(A, "setup", ChangeKind::Added, 1))
            .expect("pull request");
        assert_eq!(
            rows(&store),
            vec![
                (1, "setup".into(), None, 0),
                (2, "setup".into(), Some(A.into()), 1),
            ]
        );
        let mapped: i64 = store
            .conn
            .query_row("SELECT skill_id FROM agent_skill_mappings", [], |r| {
                r.get(0)
            })
            .expect("mapping");
        assert_eq!(mapped, 1);
        // Outside a pull request, a skill of that name elsewhere takes it over.
        store
            .record(&run_of(B, "setup", ChangeKind::Added, 2))
            .expect("main");
        assert_eq!(rows(&store)[0], (1, "setup".into(), Some(B.into()), 1));
    }

    #[test]
    fn a_skill_moved_onto_a_deleted_skills_directory_keeps_its_own_row() {
        let (_dir, mut store) = store();
        let old = "skills/old";
        let x = "skills/x";
        store
            .record(&run_of(old, "old", ChangeKind::Added, 1))
            .expect("old");
        store
            .record(&run_of(old, "old", ChangeKind::Deleted, 2))
            .expect("deleted");
        store
            .record(&run_of(x, "x", ChangeKind::Added, 3))
            .expect("x");
        let renamed = ChangeKind::Renamed { from: x.into() };
        // In a pull request: on x's row, which stays where it is, and the old row keeps its
        // directory.
        store
            .record(&pr_run_of(old, "x", renamed.clone(), 4))
            .expect("pull request");
        assert_eq!(
            rows(&store),
            vec![
                (1, "old".into(), Some(old.into()), 2),
                (2, "x".into(), Some(x.into()), 2),
            ]
        );
        assert_eq!(
            store
                .previous_coverage(&change(old, renamed.clone()), "x")
                .expect("coverage"),
            Some(81.0 / 89.0),
            "read from x's row"
        );
        // Outside one: x's row moves there; the deleted skill keeps its history, no directory.
        store.record(&run_of(old, "x", renamed, 5)).expect("merged");
        assert_eq!(
            rows(&store),
            vec![
                (1, "old".into(), None, 2),
                (2, "x".into(), Some(old.into()), 3),
            ]
        );
        assert_eq!(identity(&store, 1).2, "deleted");
        assert_eq!(identity(&store, 2).2, "active");
    }
}
