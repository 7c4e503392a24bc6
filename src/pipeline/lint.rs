//! `lint`: the skill lint alone, on the repository's skills or on the paths given; nothing is
//! run and nothing is recorded.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::discover::{Layout, Place, SKILL_FILES, SkillDir, skill_files};
use crate::error::Error;
use crate::lint;
use crate::skill::Finding;
use crate::skill::lint_report::{Linted, Report};

use super::scope::open_repo;

/// What `lint` is asked to do.
#[derive(Debug)]
pub struct LintRequest {
    /// `--repo`: the repository, whose config applies.
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    /// The skills, or directories to search; none for the repository's skills.
    pub paths: Vec<PathBuf>,
}

/// Skills found together, and where they are.
struct Group {
    /// Canonical; nothing outside it is read.
    boundary: PathBuf,
    /// Canonical; what the skills' `dir` is relative to.
    base: PathBuf,
    /// The skills to lint.
    skills: Vec<SkillDir>,
    /// Every skill of the search (nested skills own their files).
    all: Vec<SkillDir>,
    /// What got in the way of the search (`file` relative to `base`).
    findings: Vec<Finding>,
    /// The directory a PATH searched (relative to `base`): everything below it counts as under
    /// a root. `None` for the repository's own roots.
    searched: Option<String>,
}

/// Lint the skills `request` names, as `check` lints them.
pub fn lint(request: &LintRequest) -> Result<Report, Error> {
    let repo = open_repo(&request.repo)?;
    let config = Config::load(&repo, request.config.as_deref())?;
    let layout = Layout::new(&config.skills);
    let groups = if request.paths.is_empty() {
        let tree = layout
            .find_skills(&repo)
            .map_err(|err| Error::io("search for skills in", &repo, err))?;
        vec![Group {
            boundary: repo.clone(),
            base: repo.clone(),
            skills: tree.skills.clone(),
            all: tree.skills,
            findings: tree.findings,
            searched: None,
        }]
    } else {
        request
            .paths
            .iter()
            .map(|path| resolve(path, &repo, &layout))
            .collect::<Result<_, _>>()?
    };

    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .unwrap_or_else(|_| repo.clone());
    let shown = |base: &Path, file: &str| display(&base.join(file), &repo, &cwd);
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut skills: Vec<(String, Linted)> = Vec::new();
    let mut other: Vec<Finding> = Vec::new();
    for group in groups {
        let mut linted_here: Vec<(&SkillDir, Linted)> = Vec::new();
        for skill in &group.skills {
            if !seen.insert(group.base.join(&skill.dir)) {
                continue;
            }
            let dir = group.base.join(&skill.dir);
            let files = skill_files(&group.base, skill, &group.all)
                .map_err(|err| Error::io("list the files of", &dir, err))?;
            let linted =
                lint::lint_skill(&group.boundary, &group.base, skill, &files, &config.lint);
            linted_here.push((skill, linted));
        }
        // The rules across skills, as `check` applies them.
        let roots: Vec<Option<String>> = linted_here
            .iter()
            .map(
                |(skill, _)| match layout.place(&skill.dir, group.searched.as_deref()) {
                    Place::Skill { root } => Some(root),
                    _ => None,
                },
            )
            .collect();
        let placed: Vec<lint::Placed<'_>> = linted_here
            .iter()
            .zip(&roots)
            .map(|((skill, linted), root)| lint::Placed {
                skill,
                root: root.as_deref(),
                name: linted.meta.name.as_deref(),
            })
            .collect();
        let across = lint::duplicate_names(&placed);
        for (skill, mut linted) in linted_here {
            let file = skill.skill_file_path();
            linted
                .findings
                .extend(across.iter().filter(|f| f.file == file).cloned());
            for finding in &mut linted.findings {
                finding.file = shown(&group.base, &finding.file);
            }
            skills.push((shown(&group.base, &file), linted));
        }
        other.extend(group.findings.into_iter().map(|mut finding| {
            finding.file = shown(&group.base, &finding.file);
            finding
        }));
    }
    Ok(Report::new(config.lint.strict, skills, other))
}

/// The skills a PATH names: a `SKILL.md`, a directory holding one, or a directory to search.
/// Inside the repository the repository bounds what is read; outside it, the PATH does.
fn resolve(path: &Path, repo: &Path, layout: &Layout<'_>) -> Result<Group, Error> {
    let meta = std::fs::metadata(path).map_err(|err| {
        if err.kind() == std::io::ErrorKind::NotFound {
            Error::usage(format!("{} does not exist", path.display()), None)
        } else {
            Error::io("read", path, err)
        }
    })?;
    let real = path
        .canonicalize()
        .map_err(|err| Error::io("resolve", path, err))?;
    let (dir, skill_file) = if meta.is_dir() {
        (real, None)
    } else {
        let name = real
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match (SKILL_FILES.iter().find(|f| **f == name), real.parent()) {
            (Some(file), Some(parent)) => (parent.to_path_buf(), Some((*file).to_owned())),
            _ => {
                return Err(Error::usage(
                    format!("{} is neither a SKILL.md nor a directory", path.display()),
                    Some("name a skill's directory, its SKILL.md, or a directory to search"),
                ));
            }
        }
    };
    let (boundary, start) = match dir.strip_prefix(repo) {
        Ok(rel) => (repo.to_path_buf(), slash_path(rel)),
        Err(_) => (dir.clone(), String::new()),
    };
    let tree = layout
        .find_skills_below(&boundary, &start)
        .map_err(|err| Error::io("search for skills in", &dir, err))?;
    let skills = match skill_file {
        Some(skill_file) => vec![SkillDir {
            dir: start.clone(),
            skill_file,
        }],
        None => tree.skills.clone(),
    };
    if skills.is_empty() {
        return Err(Error::usage(
            format!("no SKILL.md in {} or below it", path.display()),
            None,
        ));
    }
    let mut group = Group {
        base: boundary.clone(),
        boundary,
        skills,
        all: tree.skills,
        findings: tree.findings,
        searched: Some(start.clone()),
    };
    // A skill at the top of what was searched has no directory name to compare `name` with:
    // name everything from the parent instead (what is read stays bounded as it was).
    if group.skills.iter().any(|s| s.dir.is_empty()) {
        let (Some(parent), Some(name)) = (
            group.boundary.parent(),
            group.boundary.file_name().and_then(|n| n.to_str()),
        ) else {
            return Err(Error::usage(
                format!(
                    "{} has no directory name to check `name` against",
                    path.display()
                ),
                None,
            ));
        };
        let under = |rel: &str| {
            if rel.is_empty() {
                name.to_owned()
            } else {
                format!("{name}/{rel}")
            }
        };
        for skill in group.skills.iter_mut().chain(group.all.iter_mut()) {
            skill.dir = under(&skill.dir);
        }
        for finding in &mut group.findings {
            finding.file = under(&finding.file);
        }
        group.searched = Some(under(&start));
        group.base = parent.to_path_buf();
    }
    Ok(group)
}

/// How a file is named in findings: relative to the repository, else to the working directory,
/// else in full.
fn display(path: &Path, repo: &Path, cwd: &Path) -> String {
    path.strip_prefix(repo)
        .or_else(|_| path.strip_prefix(cwd))
        .map(slash_path)
        .unwrap_or_else(|_| path.to_string_lossy().into_owned())
}

fn slash_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}
