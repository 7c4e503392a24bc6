//! Which skills a set of file changes touches, and how: added, modified, deleted or renamed.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::discover::{self, Found, Layout, Link, SkillDir, Tree, owner};
use crate::skill::Finding;

/// How one file changed between two commits: a line of `git diff --name-status`, or a file of
/// a pull request's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    Added(String),
    Modified(String),
    Deleted(String),
    Renamed { from: String, to: String },
}

/// How a gated skill changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    /// The skill's directory moved; `from` is its old directory.
    Renamed {
        from: String,
    },
    /// Gated with `--all`: not compared with anything.
    Unchanged,
}

impl ChangeKind {
    pub fn label(&self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Modified => "modified",
            Self::Deleted => "deleted",
            Self::Renamed { .. } => "renamed",
            Self::Unchanged => "unchanged",
        }
    }
}

/// A skill to gate: where it is (its old place when deleted) and how it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillChange {
    pub skill: SkillDir,
    pub kind: ChangeKind,
}

/// The file changes, and for each changed path a skill's symlink depends on, the same change at
/// the link's path: a skill whose `scripts/run.sh` links to `tools/run.sh` changes when
/// `tools/run.sh` does, or a file below it when the link is to a directory, or any link passed
/// through on the way (`tools/current.sh -> v1.sh` retargeted to `v2.sh`).
pub fn through_links(links: &[Link], files: &[FileChange]) -> Vec<FileChange> {
    let mut out = files.to_vec();
    for change in files {
        let paths: Vec<&String> = match change {
            FileChange::Added(p) | FileChange::Modified(p) | FileChange::Deleted(p) => vec![p],
            FileChange::Renamed { from, to } => vec![from, to],
        };
        for path in paths {
            for link in links {
                let linked = if *path == link.target || link.through.contains(path) {
                    Some(link.path.clone())
                } else {
                    path.strip_prefix(&link.target)
                        .and_then(|rest| rest.strip_prefix('/'))
                        .map(|rest| format!("{}/{rest}", link.path))
                };
                if let Some(linked) = linked {
                    let modified = FileChange::Modified(linked);
                    if !out.contains(&modified) {
                        out.push(modified);
                    }
                }
            }
        }
    }
    out
}

/// Map file changes to the skills that own them. A file belongs to its nearest enclosing skill:
/// new paths to the skills of the head, old paths to the skills of the base.
pub fn skill_changes(
    head: &[SkillDir],
    base: &[SkillDir],
    files: &[FileChange],
) -> Vec<SkillChange> {
    changes_by(head, base, files, |skills, path| {
        owner(skills, path).into_iter().collect()
    })
}

/// [`skill_changes`], where `owners` names the skills of a side (head or base) a path touches.
fn changes_by<'s>(
    head: &'s [SkillDir],
    base: &'s [SkillDir],
    files: &[FileChange],
    owners: impl Fn(&'s [SkillDir], &str) -> Vec<&'s SkillDir>,
) -> Vec<SkillChange> {
    let renamed_from = renames(head, base, files);
    let mut touched_head: BTreeMap<&str, &SkillDir> = BTreeMap::new();
    let mut touched_base: BTreeMap<&str, &SkillDir> = BTreeMap::new();
    for change in files {
        let (new_path, old_path) = match change {
            FileChange::Added(p) => (Some(p), None),
            FileChange::Modified(p) => (Some(p), Some(p)),
            FileChange::Deleted(p) => (None, Some(p)),
            FileChange::Renamed { from, to } => (Some(to), Some(from)),
        };
        for skill in new_path.map(|p| owners(head, p)).unwrap_or_default() {
            touched_head.insert(&skill.dir, skill);
        }
        for skill in old_path.map(|p| owners(base, p)).unwrap_or_default() {
            touched_base.insert(&skill.dir, skill);
        }
    }

    let mut out = Vec::new();
    for skill in head {
        let touched = touched_head.contains_key(skill.dir.as_str())
            || touched_base.contains_key(skill.dir.as_str());
        if !touched {
            continue;
        }
        let kind = if let Some(from) = renamed_from.get(skill.dir.as_str()) {
            ChangeKind::Renamed {
                from: (*from).to_owned(),
            }
        } else if base.iter().any(|b| b.dir == skill.dir) {
            ChangeKind::Modified
        } else {
            ChangeKind::Added
        };
        out.push(SkillChange {
            skill: skill.clone(),
            kind,
        });
    }
    let rename_sources: Vec<&str> = renamed_from.values().copied().collect();
    for (dir, skill) in touched_base {
        if head.iter().any(|h| h.dir == dir) || rename_sources.contains(&dir) {
            continue;
        }
        out.push(SkillChange {
            skill: skill.clone(),
            kind: ChangeKind::Deleted,
        });
    }
    out.sort_by(|a, b| a.skill.dir.cmp(&b.skill.dir));
    out
}

/// The skills a change gates: [`skill_changes`] over the skills of the head and of the base,
/// where a directory holding a skill file no root covers counts as a skill (see
/// [`discover::gated_uncovered`]: a `SKILL.md` under no root, the one at the top of the
/// repository included, or one laid out as a skill below a fixture, template or vendored
/// directory) when the change touches a file in it, its skill file or any other
/// (`scripts/run.sh`): a change to it never passes unseen, and a maintainer decides. A file
/// belongs to the nearest such directory; one inside a skill under a root is that skill's too
/// (the top `SKILL.md` of a repository with `skills/a` gets every change but those to
/// `skills/a`). The gate's own `.skillgate/` is no skill's.
///
/// A head skill reached through a symlink (`head.links`: `.claude/skills/x -> ../../tools/x`,
/// or a linked root `.claude/skills -> ../tools`) changes with the link: adding the link adds
/// it, retargeting it modifies it. The base's paths show the link, not the `SKILL.md` behind
/// it: such a skill was there at the base unless the change adds the link or that `SKILL.md`.
pub fn gated_changes(
    layout: &Layout<'_>,
    head: &Tree,
    base: &Found,
    files: &[FileChange],
) -> Vec<SkillChange> {
    let added = |path: &str| {
        files.iter().any(|change| match change {
            FileChange::Added(p) | FileChange::Renamed { to: p, .. } => p == path,
            _ => false,
        })
    };
    let mut files = files.to_vec();
    let mut base_skills = base.skills.clone();
    for skill in &head.skills {
        // The link it is reached through, and its skill file at the link's target.
        let Some((link, real_file)) = head.links.iter().find_map(|link| {
            let rest = if skill.dir == link.path {
                ""
            } else {
                skill.dir.strip_prefix(&format!("{}/", link.path))?
            };
            let real_dir = if rest.is_empty() {
                link.target.clone()
            } else {
                format!("{}/{rest}", link.target)
            };
            Some((link, format!("{real_dir}/{}", skill.skill_file)))
        }) else {
            continue;
        };
        let file = skill.skill_file_path();
        if added(&link.path) {
            files.push(FileChange::Added(file));
        } else {
            if files.contains(&FileChange::Modified(link.path.clone())) {
                files.push(FileChange::Modified(file));
            }
            if !added(&real_file) && !base_skills.iter().any(|b| b.dir == skill.dir) {
                base_skills.push(skill.clone());
            }
        }
    }
    let files = files.as_slice();
    let (new_paths, old_paths) = touched(files);
    let rooted: BTreeSet<String> = head
        .skills
        .iter()
        .chain(&base_skills)
        .map(|s| s.dir.clone())
        .collect();
    fn add(all: &mut Vec<SkillDir>, more: impl IntoIterator<Item = SkillDir>) {
        for skill in more {
            if !all.iter().any(|s| s.dir == skill.dir) {
                all.push(skill);
            }
        }
    }
    let changed_skill_files = |paths: &[&str]| -> Vec<SkillDir> {
        paths
            .iter()
            .filter_map(|path| discover::gated_uncovered(layout, path))
            .collect()
    };
    // The head's unrooted directories, and the skill files the change touches in
    // never-searched ones (`node_modules/pkg/skills/x/SKILL.md`), which the walk did not see.
    let mut head_all = head.skills.clone();
    add(&mut head_all, head.unrooted().cloned());
    add(&mut head_all, changed_skill_files(&new_paths));
    head_all.sort();
    // The base's that are still there: one the change removes or moves has its skill file
    // among the old paths; one the head holds in another way (behind a link) is none here.
    let mut base_all = base_skills;
    add(
        &mut base_all,
        base.unrooted()
            .filter(|s| head_all.iter().any(|h| h.dir == s.dir))
            .cloned(),
    );
    add(&mut base_all, changed_skill_files(&old_paths));
    base_all.sort();
    let unrooted: BTreeSet<String> = head_all
        .iter()
        .chain(&base_all)
        .filter(|s| !rooted.contains(&s.dir))
        .map(|s| s.dir.clone())
        .collect();
    changes_by(&head_all, &base_all, files, |skills, path| {
        gated_owners(skills, path, &unrooted)
    })
}

/// The skills among `skills` a changed `path` touches: its nearest enclosing one, and when that
/// one is under no root (`unrooted`), the nearest enclosing skill under a root too (a file under
/// a covered skill keeps its owner).
fn gated_owners<'s>(
    skills: &'s [SkillDir],
    path: &str,
    unrooted: &BTreeSet<String>,
) -> Vec<&'s SkillDir> {
    if is_gate_own(path) {
        return Vec::new();
    }
    let Some(nearest) = owner(skills, path) else {
        return Vec::new();
    };
    let mut out = vec![nearest];
    if unrooted.contains(&nearest.dir) {
        out.extend(owner(
            skills.iter().filter(|s| !unrooted.contains(&s.dir)),
            path,
        ));
    }
    out
}

/// Where the gate keeps its database, at the top of the repository it checks (`Git::is_dirty`
/// leaves it out too).
const GATE_DIR: &str = ".skillgate";

/// Whether a path is the gate's own (`.skillgate/skills.db`, written by every `check`, and
/// untracked or committed): no skill's file, not even the repository's when it is one.
fn is_gate_own(path: &str) -> bool {
    path.strip_prefix(GATE_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The paths a change leaves (new) and the paths it touched before (old).
fn touched(files: &[FileChange]) -> (Vec<&str>, Vec<&str>) {
    let mut new_paths = Vec::new();
    let mut old_paths = Vec::new();
    for change in files {
        match change {
            FileChange::Added(p) => new_paths.push(p.as_str()),
            FileChange::Modified(p) => {
                new_paths.push(p.as_str());
                old_paths.push(p.as_str());
            }
            FileChange::Deleted(p) => old_paths.push(p.as_str()),
            FileChange::Renamed { from, to } => {
                new_paths.push(to.as_str());
                old_paths.push(from.as_str());
            }
        }
    }
    (new_paths, old_paths)
}

/// The `SKILL.md` files a change touches that no gated skill holds (itself, as its nearest
/// enclosing skill, or through a link under a root): test fixtures, templates, vendored or
/// ignored copies. The report names them, so that "no skills to gate" is never all it says of a
/// change to a `SKILL.md`.
pub fn ungated_skill_files(
    gated: &[SkillChange],
    files: &[FileChange],
    links: &[Link],
) -> Vec<String> {
    let dirs: Vec<SkillDir> = gated
        .iter()
        .flat_map(|change| {
            let from = match &change.kind {
                ChangeKind::Renamed { from } => Some(SkillDir {
                    dir: from.clone(),
                    skill_file: change.skill.skill_file.clone(),
                }),
                _ => None,
            };
            std::iter::once(change.skill.clone()).chain(from)
        })
        .collect();
    let (new_paths, old_paths) = touched(files);
    let mut out: Vec<String> = new_paths
        .into_iter()
        .chain(old_paths)
        .filter(|path| {
            let file = path.rsplit('/').next().unwrap_or(path);
            // A lowercase `skill.md` is as often a page about skills.
            let skill_file = file == discover::SKILL_FILES[0] || discover::is_odd_casing(file);
            let gated_here = |path: &str| {
                dirs.iter().any(|d| d.skill_file_path() == path) || owner(&dirs, path).is_some()
            };
            // One a gated skill links to is that skill's.
            let linked = through_links(links, &[FileChange::Modified((*path).to_owned())]);
            skill_file
                && !linked.iter().any(|change| match change {
                    FileChange::Modified(p) => gated_here(p),
                    _ => false,
                })
        })
        .map(str::to_owned)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The finding [`not_gated`] makes.
pub const NOT_GATED_RULE: &str = "skill-not-gated";

/// A warning for each changed `SKILL.md` that no gated skill holds ([`ungated_skill_files`]):
/// a change to a `SKILL.md` is never passed over in silence.
pub fn not_gated(gated: &[SkillChange], files: &[FileChange], links: &[Link]) -> Vec<Finding> {
    ungated_skill_files(gated, files, links)
        .iter()
        .map(|file| {
            Finding::warning(
                NOT_GATED_RULE,
                file,
                None,
                "this SKILL.md changed but is not gated: it is no skill here (in a test, \
                 template, example, asset, reference, docs, vendored or build directory, or \
                 named by `[skills] ignore`); add the directory above its own to `[skills] \
                 roots` if it is a skill",
            )
        })
        .collect()
}

/// Skills whose directory moved: head dir → base dir. A base skill that is gone at the head pairs
/// with a new head skill when git saw its skill file renamed there, or most of its files (git's
/// rename detection misses a small `SKILL.md` whose `name` changed, but rarely a whole skill's
/// scripts). One shared file, a LICENSE or a template script, is not a rename.
fn renames<'a>(
    head: &'a [SkillDir],
    base: &'a [SkillDir],
    files: &[FileChange],
) -> BTreeMap<&'a str, &'a str> {
    let gone = |dir: &str| !head.iter().any(|s| s.dir == dir);
    let new = |dir: &str| !base.iter().any(|s| s.dir == dir);
    // Every file a gone skill had shows in the diff (deleted or renamed away), and every file
    // of a new one (added or renamed in): count them, skill files aside.
    let mut old_files: BTreeMap<&str, usize> = BTreeMap::new();
    let mut new_files: BTreeMap<&str, usize> = BTreeMap::new();
    for change in files {
        let (old_path, new_path) = match change {
            FileChange::Deleted(p) => (Some(p), None),
            FileChange::Added(p) => (None, Some(p)),
            FileChange::Renamed { from, to } => (Some(from), Some(to)),
            FileChange::Modified(_) => continue,
        };
        if let Some(path) = old_path
            && let Some(old) = owner(base, path)
            && *path != old.skill_file_path()
        {
            *old_files.entry(old.dir.as_str()).or_default() += 1;
        }
        if let Some(path) = new_path
            && let Some(now) = owner(head, path)
            && *path != now.skill_file_path()
        {
            *new_files.entry(now.dir.as_str()).or_default() += 1;
        }
    }
    // (new dir, old dir) → (skill file renamed, files renamed)
    let mut votes: BTreeMap<(&str, &str), (bool, usize)> = BTreeMap::new();
    for change in files {
        let FileChange::Renamed { from, to } = change else {
            continue;
        };
        let (Some(old), Some(now)) = (owner(base, from), owner(head, to)) else {
            continue;
        };
        if old.dir == now.dir || !gone(&old.dir) || !new(&now.dir) {
            continue;
        }
        let vote = votes
            .entry((now.dir.as_str(), old.dir.as_str()))
            .or_default();
        if *from == old.skill_file_path() && *to == now.skill_file_path() {
            vote.0 = true;
        } else {
            vote.1 += 1;
        }
    }
    let mut ranked: Vec<_> = votes
        .into_iter()
        .filter(|((now, old), (skill_file, moved))| {
            let majority = |counts: &BTreeMap<&str, usize>, dir: &str| {
                moved * 2 > counts.get(dir).copied().unwrap_or(0)
            };
            *skill_file || (majority(&old_files, old) && majority(&new_files, now))
        })
        .collect();
    ranked.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    let mut pairs = BTreeMap::new();
    let mut used_old = Vec::new();
    for ((now, old), _) in ranked {
        if pairs.contains_key(now) || used_old.contains(&old) {
            continue;
        }
        pairs.insert(now, old);
        used_old.push(old);
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(dir: &str) -> SkillDir {
        SkillDir {
            dir: dir.to_owned(),
            skill_file: "SKILL.md".to_owned(),
        }
    }

    /// A head whose walk found these skills under roots and these links.
    fn head_of(skills: &[SkillDir], links: &[Link]) -> Tree {
        Tree {
            skills: skills.to_vec(),
            links: links.to_vec(),
            ..Tree::default()
        }
    }

    /// A base whose paths hold these skills under roots.
    fn base_of(skills: &[SkillDir]) -> Found {
        Found {
            skills: skills.to_vec(),
            ..Found::default()
        }
    }

    #[test]
    fn a_changed_uncovered_skill_md_is_gated_and_other_ones_are_named() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let head = vec![skill("skills/a")];
        let files = vec![
            FileChange::Modified("tools/foo/SKILL.md".into()),
            // A directory with no `SKILL.md` at the head or the base is no skill.
            FileChange::Modified("tools/bar/run.sh".into()),
            FileChange::Modified("tests/fixtures/x/SKILL.md".into()),
            FileChange::Modified("templates/SKILL.md".into()),
            FileChange::Modified("skills/a/tests/fixtures/y/SKILL.md".into()),
        ];
        let changes = gated_changes(&layout, &head_of(&head, &[]), &base_of(&head), &files);
        assert_eq!(
            kinds(&changes),
            vec![
                ("skills/a", ChangeKind::Modified),
                ("tools/foo", ChangeKind::Modified)
            ]
        );
        assert_eq!(
            ungated_skill_files(&changes, &files, &[]),
            vec!["templates/SKILL.md", "tests/fixtures/x/SKILL.md"]
        );

        // Moved under a root: a rename from where no root looked.
        let files = vec![FileChange::Renamed {
            from: "tools/foo/SKILL.md".into(),
            to: "skills/foo/SKILL.md".into(),
        }];
        let changes = gated_changes(
            &layout,
            &head_of(&[skill("skills/foo")], &[]),
            &base_of(&[]),
            &files,
        );
        assert_eq!(
            kinds(&changes),
            vec![(
                "skills/foo",
                ChangeKind::Renamed {
                    from: "tools/foo".into()
                }
            )]
        );
        assert!(ungated_skill_files(&changes, &files, &[]).is_empty());
    }

    /// A head and a base that both hold these skills under roots, `SKILL.md` files no root
    /// covers and skills hidden below fixture or vendored directories.
    fn both(skills: &[&str], uncovered: &[&str], hidden: &[&str]) -> (Tree, Found) {
        let list = |dirs: &[&str]| dirs.iter().map(|d| skill(d)).collect::<Vec<_>>();
        let head = Tree {
            skills: list(skills),
            uncovered: list(uncovered),
            hidden: list(hidden),
            ..Tree::default()
        };
        let base = Found {
            skills: list(skills),
            uncovered: list(uncovered),
            hidden: list(hidden),
        };
        (head, base)
    }

    #[test]
    fn any_changed_file_of_a_skill_no_root_covers_gates_it() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let (head, base) = both(
            &["skills/a"],
            &["document-skills/pdf"],
            &[
                "vendor/acme/skills/theirs",
                "skills/a/tests/fixtures/skills/x",
            ],
        );
        let gated =
            |files: &[FileChange]| owned_kinds(&gated_changes(&layout, &head, &base, files));
        assert_eq!(
            gated(&[FileChange::Modified(
                "document-skills/pdf/scripts/run.sh".into()
            )]),
            vec![("document-skills/pdf".to_owned(), ChangeKind::Modified)]
        );
        assert_eq!(
            gated(&[FileChange::Added(
                "vendor/acme/skills/theirs/lib/new.py".into()
            )]),
            vec![("vendor/acme/skills/theirs".to_owned(), ChangeKind::Modified)]
        );
        assert_eq!(
            gated(&[FileChange::Deleted(
                "document-skills/pdf/reference.md".into()
            )]),
            vec![("document-skills/pdf".to_owned(), ChangeKind::Modified)]
        );
        // A file under a skill below a root keeps that owner, and gates the hidden one too.
        assert_eq!(
            gated(&[FileChange::Modified(
                "skills/a/tests/fixtures/skills/x/data.json".into()
            )]),
            vec![
                ("skills/a".to_owned(), ChangeKind::Modified),
                (
                    "skills/a/tests/fixtures/skills/x".to_owned(),
                    ChangeKind::Modified
                )
            ]
        );
        // Beside them: nothing.
        assert!(gated(&[FileChange::Modified("document-skills/README.md".into())]).is_empty());
    }

    #[test]
    fn a_top_level_skill_md_owns_every_file_but_those_of_the_skills_under_roots() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let (head, base) = both(&["skills/a"], &[""], &[]);
        let gated =
            |files: &[FileChange]| owned_kinds(&gated_changes(&layout, &head, &base, files));
        assert_eq!(
            gated(&[
                FileChange::Modified("scripts/run.sh".into()),
                FileChange::Added("scripts/new.sh".into()),
                FileChange::Deleted("README.md".into()),
            ]),
            vec![("".to_owned(), ChangeKind::Modified)]
        );
        assert_eq!(
            gated(&[FileChange::Modified("skills/a/run.sh".into())]),
            vec![("skills/a".to_owned(), ChangeKind::Modified)]
        );
        // A fixture `SKILL.md` that is no skill is a file of the repository's skill.
        let files = [FileChange::Modified("tests/fixtures/x/SKILL.md".into())];
        let changes = gated_changes(&layout, &head, &base, &files);
        assert_eq!(kinds(&changes), vec![("", ChangeKind::Modified)]);
        assert!(ungated_skill_files(&changes, &files, &[]).is_empty());
        // The gate's own database is no file of it, nor of a repository that is a skill by a
        // root of `.`.
        assert!(gated(&[FileChange::Added(".skillgate/skills.db".into())]).is_empty());
        let (mut rooted, base) = both(&[""], &[], &[]);
        rooted.skills.push(skill("skills/a"));
        assert!(
            gated_changes(
                &layout,
                &rooted,
                &base,
                &[FileChange::Modified(".skillgate/skills.db".into())]
            )
            .is_empty()
        );
        assert!(is_gate_own(".skillgate") && !is_gate_own(".skillgate.toml"));
    }

    #[test]
    fn a_new_skill_no_root_covers_is_added_and_one_behind_a_link_is_not_deleted() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let head = Tree {
            uncovered: vec![skill("tools/new")],
            ..Tree::default()
        };
        let files = [
            FileChange::Added("tools/new/SKILL.md".into()),
            FileChange::Added("tools/new/run.sh".into()),
        ];
        assert_eq!(
            kinds(&gated_changes(&layout, &head, &base_of(&[]), &files)),
            vec![("tools/new", ChangeKind::Added)]
        );

        // The base's paths show a hidden skill that the head's walk found behind a link: a
        // change to a file of it is a change to the linked skill, and no deletion.
        let links = [Link {
            path: ".claude/skills/evil".into(),
            target: "tests/fixtures/skills/evil".into(),
            through: vec![],
        }];
        let head = head_of(&[skill(".claude/skills/evil")], &links);
        let base = Found {
            hidden: vec![skill("tests/fixtures/skills/evil")],
            ..Found::default()
        };
        let files = through_links(
            &links,
            &[FileChange::Modified(
                "tests/fixtures/skills/evil/run.sh".into(),
            )],
        );
        assert_eq!(
            kinds(&gated_changes(&layout, &head, &base, &files)),
            vec![(".claude/skills/evil", ChangeKind::Modified)]
        );
    }

    #[test]
    fn a_skill_md_laid_out_as_a_skill_is_gated_wherever_it_is() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let files = vec![
            FileChange::Added("tests/fixtures/skills/evil/SKILL.md".into()),
            FileChange::Modified("vendor/acme/skills/theirs/Skill.md".into()),
            FileChange::Modified("node_modules/pkg/skills/dep/SKILL.md".into()),
            FileChange::Deleted("build/skills/old/SKILL.md".into()),
            // The top of the repository: its own directory, gated.
            FileChange::Modified("SKILL.md".into()),
        ];
        let changes = gated_changes(&layout, &head_of(&[], &[]), &base_of(&[]), &files);
        assert_eq!(
            kinds(&changes),
            vec![
                ("", ChangeKind::Modified),
                ("build/skills/old", ChangeKind::Deleted),
                ("node_modules/pkg/skills/dep", ChangeKind::Modified),
                ("tests/fixtures/skills/evil", ChangeKind::Added),
                ("vendor/acme/skills/theirs", ChangeKind::Modified),
            ]
        );
        assert!(ungated_skill_files(&changes, &files, &[]).is_empty());
        // Ignored: the config says it is none.
        let config = crate::config::SkillsConfig {
            ignore: vec!["tests/fixtures".to_owned()],
            ..crate::config::SkillsConfig::default()
        };
        let files = vec![FileChange::Added(
            "tests/fixtures/skills/evil/SKILL.md".into(),
        )];
        let changes = gated_changes(
            &Layout::new(&config),
            &head_of(&[], &[]),
            &base_of(&[]),
            &files,
        );
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(
            ungated_skill_files(&changes, &files, &[]),
            vec!["tests/fixtures/skills/evil/SKILL.md"]
        );
    }

    #[test]
    fn a_link_added_or_retargeted_to_a_skill_directory_gates_that_skill() {
        let config = crate::config::SkillsConfig::default();
        let layout = Layout::new(&config);
        let head = vec![skill(".claude/skills/evil"), skill(".claude/skills/moved")];
        let link = |path: &str, target: &str| Link {
            path: path.into(),
            target: target.into(),
            through: vec![],
        };
        let links = vec![
            link(".claude/skills/evil", "tests/fixtures/evil"),
            link(".claude/skills/moved", "tools/moved"),
        ];
        let files = vec![
            FileChange::Added(".claude/skills/evil".into()),
            FileChange::Modified(".claude/skills/moved".into()),
        ];
        assert_eq!(
            kinds(&gated_changes(
                &layout,
                &head_of(&head, &links),
                &base_of(&[]),
                &files
            )),
            vec![
                (".claude/skills/evil", ChangeKind::Added),
                (".claude/skills/moved", ChangeKind::Modified)
            ]
        );
        // A change to what the link leads to changes the skill, and is not "not gated".
        let files = through_links(
            &links,
            &[FileChange::Modified("tests/fixtures/evil/SKILL.md".into())],
        );
        let changes = gated_changes(&layout, &head_of(&head, &links), &base_of(&[]), &files);
        assert_eq!(
            kinds(&changes),
            vec![(".claude/skills/evil", ChangeKind::Modified)]
        );
        assert!(ungated_skill_files(&changes, &files, &links).is_empty());
        assert_eq!(
            ungated_skill_files(&changes, &files, &[]),
            vec!["tests/fixtures/evil/SKILL.md"],
            "without the link it would be named"
        );
    }

    fn owned_kinds(changes: &[SkillChange]) -> Vec<(String, ChangeKind)> {
        changes
            .iter()
            .map(|c| (c.skill.dir.clone(), c.kind.clone()))
            .collect()
    }

    fn kinds(changes: &[SkillChange]) -> Vec<(&str, ChangeKind)> {
        changes
            .iter()
            .map(|c| (c.skill.dir.as_str(), c.kind.clone()))
            .collect()
    }

    #[test]
    fn modified_added_deleted_and_untouched() {
        let base = vec![skill("s/a"), skill("s/b"), skill("s/gone")];
        let head = vec![skill("s/a"), skill("s/b"), skill("s/new")];
        let files = vec![
            FileChange::Modified("s/a/run.sh".into()),
            FileChange::Added("s/new/SKILL.md".into()),
            FileChange::Deleted("s/gone/SKILL.md".into()),
            FileChange::Deleted("s/gone/run.sh".into()),
            FileChange::Modified("README.md".into()),
        ];
        assert_eq!(
            kinds(&skill_changes(&head, &base, &files)),
            vec![
                ("s/a", ChangeKind::Modified),
                ("s/gone", ChangeKind::Deleted),
                ("s/new", ChangeKind::Added),
            ]
        );
    }

    #[test]
    fn renamed_skill_keeps_its_old_directory() {
        let base = vec![skill("s/old")];
        let head = vec![skill("s/new")];
        let files = vec![
            FileChange::Renamed {
                from: "s/old/SKILL.md".into(),
                to: "s/new/SKILL.md".into(),
            },
            FileChange::Renamed {
                from: "s/old/run.sh".into(),
                to: "s/new/run.sh".into(),
            },
        ];
        assert_eq!(
            kinds(&skill_changes(&head, &base, &files)),
            vec![(
                "s/new",
                ChangeKind::Renamed {
                    from: "s/old".into()
                }
            )]
        );
    }

    #[test]
    fn a_rename_is_found_by_its_scripts_when_the_skill_file_changed_too_much() {
        let base = vec![skill("s/old"), skill("s/other")];
        let head = vec![skill("s/new"), skill("s/other")];
        let files = vec![
            FileChange::Deleted("s/old/SKILL.md".into()),
            FileChange::Added("s/new/SKILL.md".into()),
            FileChange::Renamed {
                from: "s/old/test.sh".into(),
                to: "s/new/test.sh".into(),
            },
        ];
        assert_eq!(
            kinds(&skill_changes(&head, &base, &files)),
            vec![(
                "s/new",
                ChangeKind::Renamed {
                    from: "s/old".into()
                }
            )]
        );
    }

    #[test]
    fn one_shared_file_does_not_make_a_rename() {
        let base = vec![skill("s/pdf-reader")];
        let head = vec![skill("s/csv-writer")];
        let files = vec![
            FileChange::Deleted("s/pdf-reader/SKILL.md".into()),
            FileChange::Deleted("s/pdf-reader/read.py".into()),
            FileChange::Renamed {
                from: "s/pdf-reader/LICENSE.txt".into(),
                to: "s/csv-writer/LICENSE.txt".into(),
            },
            FileChange::Added("s/csv-writer/SKILL.md".into()),
            FileChange::Added("s/csv-writer/write.py".into()),
        ];
        assert_eq!(
            kinds(&skill_changes(&head, &base, &files)),
            vec![
                ("s/csv-writer", ChangeKind::Added),
                ("s/pdf-reader", ChangeKind::Deleted)
            ]
        );
    }

    #[test]
    fn nested_skills_own_their_files() {
        let skills = vec![skill("s/pdf"), skill("s/pdf/lib/inner")];
        let files = vec![FileChange::Modified("s/pdf/lib/inner/x.py".into())];
        assert_eq!(
            kinds(&skill_changes(&skills, &skills, &files)),
            vec![("s/pdf/lib/inner", ChangeKind::Modified)]
        );
    }

    #[test]
    fn a_file_moved_between_skills_touches_both() {
        let skills = vec![skill("s/a"), skill("s/b")];
        let files = vec![FileChange::Renamed {
            from: "s/a/util.sh".into(),
            to: "s/b/util.sh".into(),
        }];
        assert_eq!(
            kinds(&skill_changes(&skills, &skills, &files)),
            vec![("s/a", ChangeKind::Modified), ("s/b", ChangeKind::Modified)]
        );
    }

    #[test]
    fn a_change_behind_a_symlink_modifies_the_skill_that_links_to_it() {
        let skills = vec![skill(".claude/skills/x"), skill(".claude/skills/y")];
        let links = vec![
            Link {
                path: ".claude/skills/x/scripts/run.sh".into(),
                target: "tools/run.sh".into(),
                through: vec![],
            },
            Link {
                path: ".claude/skills/y/lib".into(),
                target: "shared/lib".into(),
                through: vec![],
            },
        ];
        let files = vec![
            FileChange::Modified("tools/run.sh".into()),
            FileChange::Added("shared/lib/a.sh".into()),
            FileChange::Modified("tools/run.sh.bak".into()),
        ];
        let files = through_links(&links, &files);
        assert_eq!(
            kinds(&skill_changes(&skills, &skills, &files)),
            vec![
                (".claude/skills/x", ChangeKind::Modified),
                (".claude/skills/y", ChangeKind::Modified)
            ]
        );
        assert!(
            skill_changes(
                &skills,
                &skills,
                &[FileChange::Modified("tools/run.sh".into())]
            )
            .is_empty()
        );
    }

    #[test]
    fn a_change_to_a_link_on_the_way_modifies_the_skill_that_links_through_it() {
        let skills = vec![skill("s/x"), skill("s/y")];
        let links = vec![Link {
            path: "s/x/scripts/run.sh".into(),
            target: "tools-v1/v1.sh".into(),
            through: vec!["tools".into(), "tools-v1/current.sh".into()],
        }];
        for changed in ["tools", "tools-v1/current.sh", "tools-v1/v1.sh"] {
            let files = through_links(&links, &[FileChange::Modified(changed.into())]);
            assert_eq!(
                kinds(&skill_changes(&skills, &skills, &files)),
                vec![("s/x", ChangeKind::Modified)],
                "{changed}"
            );
        }
        // A link retargeted by a rename (`git mv`) counts on either side.
        let files = through_links(
            &links,
            &[FileChange::Renamed {
                from: "tools-v1/current.sh".into(),
                to: "tools-v1/old.sh".into(),
            }],
        );
        assert!(files.contains(&FileChange::Modified("s/x/scripts/run.sh".into())));
        // Beside the chain: nothing.
        for beside in ["tools-v1/v2.sh", "tools2", "tools-v1/current.sh.bak"] {
            let files = through_links(&links, &[FileChange::Modified(beside.into())]);
            assert!(
                skill_changes(&skills, &skills, &files).is_empty(),
                "{beside}"
            );
        }
    }

    #[test]
    fn removing_only_the_skill_file_deletes_the_skill() {
        let base = vec![skill("s/a")];
        let files = vec![FileChange::Deleted("s/a/SKILL.md".into())];
        assert_eq!(
            kinds(&skill_changes(&[], &base, &files)),
            vec![("s/a", ChangeKind::Deleted)]
        );
    }
}
