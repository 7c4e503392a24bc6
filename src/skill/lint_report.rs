//! What `skillgate lint` found, as a value: the skills it read and their findings, for the
//! renderers and the gate to use without reading a file.

use serde::{Deserialize, Serialize};

use super::{Finding, Severity, SkillMeta};

/// The version of the document `skillgate lint --format json` prints.
pub const REPORT_SCHEMA: &str = "skillgate.lint/1";

/// What `skillgate lint` found: the skills it read, and every finding (theirs, then those of
/// the search for them), each at its file, line and column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    /// Whether `[lint] strict` was on.
    pub strict: bool,
    pub summary: Summary,
    pub skills: Vec<SkillEntry>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub skills: usize,
    pub errors: usize,
    pub warnings: usize,
}

/// One skill read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// Its `SKILL.md`, as findings name it.
    pub file: String,
    /// `name` from its frontmatter, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub errors: usize,
    pub warnings: usize,
}

impl Report {
    /// `skills` with their findings, then findings that belong to no skill.
    pub fn new(strict: bool, skills: Vec<(String, Linted)>, other: Vec<Finding>) -> Self {
        let count = |findings: &[Finding], severity| {
            findings.iter().filter(|f| f.severity == severity).count()
        };
        let mut entries = Vec::with_capacity(skills.len());
        let mut findings = Vec::new();
        for (file, linted) in skills {
            entries.push(SkillEntry {
                file,
                name: linted.meta.name,
                errors: count(&linted.findings, Severity::Error),
                warnings: count(&linted.findings, Severity::Warning),
            });
            findings.extend(linted.findings);
        }
        findings.extend(other);
        Self {
            schema: REPORT_SCHEMA.to_owned(),
            strict,
            summary: Summary {
                skills: entries.len(),
                errors: count(&findings, Severity::Error),
                warnings: count(&findings, Severity::Warning),
            },
            skills: entries,
            findings,
        }
    }
}

/// A skill linted: its fields (default when its `SKILL.md` cannot be read) and its findings.
#[derive(Debug, Clone, Default)]
pub struct Linted {
    pub meta: SkillMeta,
    pub findings: Vec<Finding>,
}
