//! Each gated skill read from disk: its `SKILL.md` linted, its files hashed and measured, its
//! suite found, what breaks against the base.

use std::path::Path;

use crate::analysis::{self, Sources};
use crate::changes::{ChangeKind, SkillChange};
use crate::config::Config;
use crate::discover::{Layout, SkillDir, Tree, skill_files};
use crate::error::Error;
use crate::gate::Redacted;
use crate::lint;
use crate::policy::stricter::BaseCategory;
use crate::signals::{Analysis, CategoryChange};
use crate::skill::{self, Finding, SkillMeta};
use crate::suite::{self, Resolution, Unavailability};

use super::scope::BaseReader;

/// A skill read from disk, ready to run.
pub struct Prepared {
    pub change: SkillChange,
    pub name: String,
    pub meta: SkillMeta,
    pub lint: Vec<Finding>,
    pub content_hash: Option<String>,
    pub resolution: Resolution,
    /// What the skill's files show; `None` for a deleted skill.
    pub analysis: Option<Analysis>,
    /// What breaks for the skill's users against the base: `name` changed, a major version, a
    /// documented input or field removed.
    pub breaking: Vec<String>,
    /// The base's `category` when the change gives the skill another one.
    pub category_change: Option<CategoryChange>,
    /// The skill's `category` as the base had it, unknown for a new skill: the head's is the
    /// pull request's word and only tightens the policy.
    pub base_category: BaseCategory,
    /// Why the skill is gated though no skill root covers it (a changed `SKILL.md` outside the
    /// roots): a maintainer decides.
    pub uncovered: Option<String>,
}

/// Read a skill's `SKILL.md`, lint it, hash it and find its suite.
pub fn prepare(
    repo: &Path,
    tree: &Tree,
    change: &SkillChange,
    base: Option<&BaseReader>,
    config: &Config,
) -> Result<Prepared, Error> {
    let skill = &change.skill;
    let file = skill.skill_file_path();
    // A `SKILL.md` no root covers, gated because it changed: a maintainer decides.
    let uncovered = crate::discover::gated_reason(&Layout::new(&config.skills), skill);
    if change.kind == ChangeKind::Deleted {
        // The skill is gone from the working tree: its last frontmatter is at the base.
        let text = base.and_then(|b| b.read(&file));
        let meta = text
            .map(|t| skill::read_meta(&t, &file, skill.dir_name()).0)
            .unwrap_or_default();
        // `meta` is the base's own.
        let base_category = BaseCategory::Known(meta.category.clone());
        return Ok(Prepared {
            change: change.clone(),
            name: skill.dir_name().to_owned(),
            meta,
            lint: Vec::new(),
            content_hash: None,
            resolution: Resolution::None,
            analysis: None,
            breaking: Vec::new(),
            category_change: None,
            base_category,
            uncovered,
        });
    }
    let dir = repo.join(&skill.dir);
    let files = skill_files(repo, skill, &tree.skills)
        .map_err(|err| Error::io("list the files of", &dir, err))?;
    let crate::skill::lint_report::Linted {
        meta,
        findings: mut lint,
    } = lint::lint_skill(repo, repo, skill, &files, &config.lint);
    let content_hash = skill::content_hash(&dir, &files)
        .map_err(|err| Error::io("hash the files of", &dir, err))?;
    let resolution = suite::resolve(&dir, repo, &meta, &files);
    if let Resolution::Unavailable {
        reason,
        kind: Unavailability::OutsideRepository,
        ..
    } = &resolution
    {
        lint.push(Finding::error("path-escape", &file, None, reason.clone()));
    }
    // A name that holds a secret is not a name to record or show.
    let secret_name = meta.name.as_deref().is_some_and(|n| Redacted::new(n) != n);
    if secret_name {
        lint.push(Finding::error(
            "name-secret",
            &file,
            None,
            "the `name` holds what looks like a secret: it is not recorded or shown",
        ));
    }
    let name = meta
        .name
        .clone()
        .filter(|n| skill::name_problem(n).is_none() && !secret_name)
        .unwrap_or_else(|| Redacted::new(skill.dir_name()).into_string());
    let sources = Sources::read(repo, &dir, &files);
    let analysis = analysis::measure(&sources, &meta, &skill.dir);
    // The skill as it was at the base, for what its users see change.
    let base_file = match &change.kind {
        ChangeKind::Renamed { from } => Some(
            SkillDir {
                dir: from.clone(),
                skill_file: skill.skill_file.clone(),
            }
            .skill_file_path(),
        ),
        ChangeKind::Modified => Some(file.clone()),
        _ => None,
    };
    let before_text = base_file.and_then(|path| base.and_then(|b| b.read(&path)));
    let before = before_text
        .as_deref()
        .map(|text| skill::read_meta(text, &file, skill.dir_name()).0);
    let mut breaking = before
        .as_ref()
        .map(|before| skill::breaking_changes(before, &meta))
        .unwrap_or_default();
    // Inputs and fields the base documented that the head no longer does.
    if let Some(before_text) = &before_text
        && let Some(now) = read_skill_md(&dir.join(&skill.skill_file))
    {
        breaking.extend(crate::documented::removed(before_text, &now));
    }
    let breaking = breaking
        .iter()
        .map(|b| Redacted::new(b).into_string())
        .collect();
    // A category picks the policy: the skill cannot choose a looser one for itself.
    let category_change = before.as_ref().and_then(|before| {
        CategoryChange::between(before.category.as_deref(), meta.category.as_deref()).map(
            |change| CategoryChange {
                from: change.from.map(|c| Redacted::new(&c).into_string()),
                to: change.to.map(|c| Redacted::new(&c).into_string()),
            },
        )
    });
    let base_category = match (&change.kind, &before) {
        // `--all` gates the tree as it is: no pull request chose the category.
        (ChangeKind::Unchanged, _) => BaseCategory::Known(meta.category.clone()),
        (_, Some(before)) => BaseCategory::Known(before.category.clone()),
        (_, None) => BaseCategory::Unknown,
    };
    Ok(Prepared {
        change: change.clone(),
        name,
        meta,
        lint,
        content_hash: Some(content_hash),
        resolution,
        analysis: Some(analysis),
        breaking,
        category_change,
        base_category,
        uncovered,
    })
}

/// A `SKILL.md` as text, unless it is too large or unreadable (lint reports why).
fn read_skill_md(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, skill::MAX_SKILL_FILE_BYTES + 1),
        &mut text,
    )
    .ok()?;
    (text.len() as u64 <= skill::MAX_SKILL_FILE_BYTES).then_some(text)
}

/// The rules across skills ([`lint::duplicate_names`]) over every skill of the tree, as `lint`
/// applies them; each gated skill gets the findings about it. The `name` of a skill not gated
/// is read from its `SKILL.md` (one that cannot be read has none).
pub fn flag_duplicate_names(repo: &Path, config: &Config, tree: &Tree, prepared: &mut [Prepared]) {
    let layout = Layout::new(&config.skills);
    let gated = |skill: &SkillDir| {
        prepared
            .iter()
            .find(|p| p.change.kind != ChangeKind::Deleted && p.change.skill.dir == skill.dir)
    };
    let roots: Vec<Option<String>> = tree.skills.iter().map(|s| layout.root_of(&s.dir)).collect();
    // Only a skill under the root of a gated one can share its name within that root: the
    // others' `SKILL.md` files are not read (a run that gates one skill of thousands reads one
    // root's).
    let gated_roots: std::collections::HashSet<&Option<String>> = tree
        .skills
        .iter()
        .zip(&roots)
        .filter(|(skill, _)| gated(skill).is_some())
        .map(|(_, root)| root)
        .collect();
    let names: Vec<Option<String>> = tree
        .skills
        .iter()
        .zip(&roots)
        .map(|(skill, root)| match gated(skill) {
            Some(p) => p.meta.name.clone(),
            None if !gated_roots.contains(root) => None,
            None => {
                let file = skill.skill_file_path();
                lint::read_skill_file(repo, &repo.join(&file), &file)
                    .ok()
                    .and_then(|text| skill::read_meta(&text, &file, skill.dir_name()).0.name)
            }
        })
        .collect();
    let placed: Vec<lint::Placed<'_>> = tree
        .skills
        .iter()
        .zip(&names)
        .zip(&roots)
        .map(|((skill, name), root)| lint::Placed {
            skill,
            root: root.as_deref(),
            name: name.as_deref(),
        })
        .collect();
    for finding in lint::duplicate_names(&placed) {
        if let Some(p) = prepared.iter_mut().find(|p| {
            p.change.kind != ChangeKind::Deleted && p.change.skill.skill_file_path() == finding.file
        }) {
            p.lint.push(finding);
        }
    }
}
