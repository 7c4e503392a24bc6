//! The `approval_criteria_templates` table: the category templates `check` decides under.

use super::{Store, StoreError};
use crate::policy::template::CategoryTemplate;

impl Store {
    /// Every category template, newest first (a category with several uses its newest); a row
    /// whose criteria cannot be read is an error that names it.
    pub fn category_templates(&self) -> Result<Vec<CategoryTemplate>, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, category, approval_level, criteria_json \
                 FROM approval_criteria_templates ORDER BY updated_at DESC, id DESC",
            )
            .map_err(read)?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                ))
            })
            .map_err(read)?;
        let mut templates = Vec::new();
        for row in rows {
            let (name, category, level, criteria) = row.map_err(read)?;
            let template = CategoryTemplate::parse(&name, &category, &level, &criteria).map_err(
                |message| StoreError::Template {
                    path: self.path.clone(),
                    name: name.clone(),
                    message,
                },
            )?;
            templates.push(template);
        }
        Ok(templates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::Tier;

    #[test]
    fn the_seeds_templates_are_shipped_and_a_plain_insert_replaces_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        let templates = store.category_templates().expect("read");
        let mut names: Vec<(&str, &str)> = templates
            .iter()
            .map(|t| (t.name.as_str(), t.category.as_str()))
            .collect();
        names.sort();
        assert_eq!(
            names,
            vec![
                ("Backend API Service - Auto Approval", "backend"),
                ("Frontend Component - Escalated Review", "frontend"),
            ]
        );
        let frontend = templates
            .iter()
            .find(|t| t.category == "frontend")
            .expect("fe");
        assert_eq!(frontend.policy.approval_level, Some(Tier::Escalate));
        assert_eq!(frontend.policy.auto.coverage, Some(0.80));
        // The seed's own kind of INSERT, without OR REPLACE: it replaces the shipped default.
        store
            .connection()
            .execute(
                "INSERT INTO approval_criteria_templates (name, category, approval_level, criteria_json) \
                 VALUES ('Backend API Service - Auto Approval', 'backend', 'auto', '{\"coverage\": {\"min\": 0.85}}')",
                [],
            )
            .expect("plain insert replaces");
        let templates = store.category_templates().expect("read");
        assert_eq!(templates.len(), 2);
        let backend = templates
            .iter()
            .find(|t| t.category == "backend")
            .expect("be");
        assert_eq!(backend.policy.auto.coverage, Some(0.85));
        assert_eq!(backend.policy.auto.complexity, None);
    }

    #[test]
    fn a_template_that_cannot_be_read_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        store
            .connection()
            .execute(
                "UPDATE approval_criteria_templates SET criteria_json = '{\"coverage\": \"most\"}' \
                 WHERE category = 'frontend'",
                [],
            )
            .expect("update");
        let err = store.category_templates().expect_err("bad criteria");
        assert!(
            err.to_string().ends_with(
                "skills.db: template `Frontend Component - Escalated Review`: criteria_json \
                 `coverage`: min must be a number between 0.0 and 1.0, not \"most\""
            ),
            "{err}"
        );
    }

    #[test]
    fn migrating_a_version_1_database_keeps_its_templates() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("skills.db");
        {
            let conn = rusqlite::Connection::open(&path).expect("open");
            conn.execute_batch(super::super::MIGRATIONS[0].1)
                .expect("v1");
            conn.pragma_update(None, "user_version", 1).expect("pragma");
            conn.execute(
                "INSERT INTO approval_criteria_templates (name, category, approval_level, criteria_json) \
                 VALUES ('Backend API Service - Auto Approval', 'backend', 'human', '{}')",
                [],
            )
            .expect("a repository's own template");
        }
        let store = Store::open(&path).expect("migrate");
        assert_eq!(
            store.version().expect("version"),
            super::super::LATEST_VERSION
        );
        let templates = store.category_templates().expect("read");
        let backend = templates
            .iter()
            .find(|t| t.category == "backend")
            .expect("be");
        assert_eq!(
            backend.policy.approval_level,
            Some(Tier::Human),
            "the repository's template is kept, not replaced by the default"
        );
        assert_eq!(templates.len(), 2);
    }
}
