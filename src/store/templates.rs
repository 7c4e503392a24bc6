//! The `approval_criteria_templates` table: the category templates `check` decides under.

use rusqlite::types::ValueRef;
use serde::Serialize;

use super::{Store, StoreError};
use crate::policy::template::CategoryTemplate;

/// A template row that cannot be read, named by the template and the column at fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateProblem {
    /// The template's `name` (or `id N` when the name itself cannot be read).
    pub name: String,
    /// What is wrong, starting with the column: `criteria_json \`coverage\`: …`.
    pub message: String,
}

impl std::fmt::Display for TemplateProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "template `{}`: {}", self.name, self.message)
    }
}

const COLUMNS: [&str; 4] = ["name", "category", "approval_level", "criteria_json"];

impl Store {
    /// Every category template, newest first (a category with several uses its newest); a row
    /// whose criteria cannot be read is an error that names it and the column.
    pub fn category_templates(&self) -> Result<Vec<CategoryTemplate>, StoreError> {
        let mut templates = Vec::new();
        for row in self.template_rows()? {
            match row {
                Ok(template) => templates.push(template),
                Err(problem) => {
                    return Err(StoreError::Template {
                        path: self.path.clone(),
                        name: problem.name,
                        message: problem.message,
                    });
                }
            }
        }
        Ok(templates)
    }

    /// Every template that cannot be read (`audit verify` reports them all).
    pub fn template_problems(&self) -> Result<Vec<TemplateProblem>, StoreError> {
        Ok(self
            .template_rows()?
            .into_iter()
            .filter_map(Result::err)
            .collect())
    }

    fn template_rows(&self) -> Result<Vec<Result<CategoryTemplate, TemplateProblem>>, StoreError> {
        let read = |source| StoreError::Read {
            path: self.path.clone(),
            source,
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, category, approval_level, criteria_json, id \
                 FROM approval_criteria_templates ORDER BY updated_at DESC, id DESC",
            )
            .map_err(read)?;
        let mut rows = stmt.query([]).map_err(read)?;
        let mut templates = Vec::new();
        while let Some(row) = rows.next().map_err(read)? {
            let id: i64 = row.get(4).map_err(read)?;
            // Each column as text, or the problem naming it: a NULL or a blob planted with
            // writable_schema must not turn into an error that names neither row nor column.
            let mut text = Vec::with_capacity(COLUMNS.len());
            for (index, column) in COLUMNS.iter().enumerate() {
                text.push(match row.get_ref(index).map_err(read)? {
                    ValueRef::Text(t) => Ok(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Null => Err(format!("{column} is NULL")),
                    ValueRef::Integer(_) | ValueRef::Real(_) => {
                        Err(format!("{column} is a number, not text"))
                    }
                    ValueRef::Blob(_) => Err(format!("{column} is a blob, not text")),
                });
            }
            let name = text[0].clone().unwrap_or_else(|_| format!("id {id}"));
            let parsed = match (&text[0], &text[1], &text[2], &text[3]) {
                (Ok(_), Ok(category), Ok(level), Ok(criteria)) => {
                    CategoryTemplate::parse(&name, category, level, criteria)
                }
                _ => Err(text
                    .iter()
                    .find_map(|t| t.as_ref().err().cloned())
                    .unwrap_or_default()),
            };
            templates.push(parsed.map_err(|message| TemplateProblem {
                name: name.clone(),
                message,
            }));
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

    #[test]
    fn every_broken_template_is_listed_with_its_column() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("skills.db")).expect("open");
        store
            .connection()
            .execute_batch(
                "UPDATE approval_criteria_templates SET criteria_json = x'7b7d' \
                 WHERE category = 'backend';
                 UPDATE approval_criteria_templates SET criteria_json = '[1]' \
                 WHERE category = 'frontend';",
            )
            .expect("update");
        let mut problems = store.template_problems().expect("read");
        problems.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(
            problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "template `Backend API Service - Auto Approval`: criteria_json is a blob, not text",
                "template `Frontend Component - Escalated Review`: criteria_json must be a JSON \
                 object of criteria",
            ]
        );
        let err = store.category_templates().expect_err("broken");
        assert!(
            matches!(&err, StoreError::Template { name, .. } if name.ends_with(" - Escalated Review") || name.ends_with(" - Auto Approval")),
            "{err}"
        );
    }
}
