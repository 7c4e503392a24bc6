//! Finding skills: in a working tree (following symlinks that stay inside the repository), or in
//! a list of paths (a commit's tree), and the nearest enclosing skill of a file.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::config::SkillsConfig;
use crate::glob;
use crate::skill::Finding;

/// Directories never searched and never part of a skill's content.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".venv",
    ".skillgate",
];

/// The file names that make a directory a skill, in order of preference. Any other casing of
/// `skill.md` (`Skill.md`, `SKILL.MD`) makes one too, after these, with a [`FILE_CASE_RULE`]
/// warning: a case-insensitive file system (macOS, Windows) loads it as `SKILL.md`.
pub const SKILL_FILES: &[&str] = &["SKILL.md", "skill.md"];

/// The warning for a skill file named with another casing than [`SKILL_FILES`].
pub const FILE_CASE_RULE: &str = "skill-file-case";

/// How much a file name is a skill file: 0 for `SKILL.md`, 1 for `skill.md`, 2 for another
/// casing of it, `None` for any other name.
pub fn skill_file_rank(name: &str) -> Option<u8> {
    match SKILL_FILES.iter().position(|f| *f == name) {
        Some(i) => Some(i as u8),
        None => name.eq_ignore_ascii_case(SKILL_FILES[0]).then_some(2),
    }
}

/// A skill file that is not spelled `SKILL.md` or `skill.md`.
pub fn is_odd_casing(name: &str) -> bool {
    skill_file_rank(name) == Some(2)
}

/// Directories that hold a project's or a skill's test data, templates, examples, assets,
/// reference pages, documentation, vendored code or build output: a `SKILL.md` below one is a
/// fixture, a template, an example or a copy, not a skill (a skill's own
/// `tests/fixtures/other/SKILL.md` or `examples/basic/SKILL.md` is part of that skill: Claude
/// Code loads only `skills/<x>/SKILL.md`). A root that names such a directory itself
/// (`roots = ["tests/fixtures/skills"]`) or matches it with a one-segment `*`
/// (`plugins/*/skills` at `plugins/test/skills`: a plugin's name is no fixture) still counts,
/// and a skill directly below its root may be named `tests` or `docs`. One in a `skills/<x>/`
/// directory stays a [`Place::Hidden`] skill: gated when it changes, since a plugin manifest or
/// a link can load it from anywhere.
const NOT_SKILL_DIRS: &[&str] = &[
    "tests",
    "test",
    "__tests__",
    "fixtures",
    "__fixtures__",
    "testdata",
    "test-data",
    "templates",
    "template",
    "vendor",
    "third_party",
    "third-party",
    "dist",
    "build",
    "examples",
    "example",
    "samples",
    "sample",
    "assets",
    "references",
    "docs",
    "doc",
];

/// The finding made for a `SKILL.md` that no root covers.
pub const UNCOVERED_RULE: &str = "skill-uncovered";

/// A skill's place in the tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SkillDir {
    /// Repository-relative, `/`-separated; empty for the repository itself (a root of `.`).
    pub dir: String,
    /// `SKILL.md`, `skill.md`, or another casing of it ([`skill_file_rank`]).
    pub skill_file: String,
}

impl SkillDir {
    /// The directory's last segment: what the spec wants `name` to equal.
    pub fn dir_name(&self) -> &str {
        self.dir.rsplit('/').next().unwrap_or(&self.dir)
    }

    pub fn skill_file_path(&self) -> String {
        if self.dir.is_empty() {
            return self.skill_file.clone();
        }
        format!("{}/{}", self.dir, self.skill_file)
    }
}

/// The skills of a tree, and what got in the way of finding them.
#[derive(Debug, Default)]
pub struct Tree {
    pub skills: Vec<SkillDir>,
    /// Every `SKILL.md` no root covers and nothing ignores (see [`Layout::place`]); each also
    /// has a [`UNCOVERED_RULE`] warning in `findings`.
    pub uncovered: Vec<SkillDir>,
    /// Every skill file laid out as a skill where no root reaches ([`Place::Hidden`]), outside
    /// the never-searched directories: no warning, but a change to a file in one gates it.
    pub hidden: Vec<SkillDir>,
    pub findings: Vec<Finding>,
    /// Symlinks below a root that lead to another place in the repository: a change there is
    /// a change to the skill that links to it.
    pub links: Vec<Link>,
}

/// A symlink inside the repository, every path repository-relative and `/`-separated.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    /// Where the link is: `.claude/skills/x/scripts/run.sh`.
    pub path: String,
    /// Where it leads, resolved: `tools/v1.sh`.
    pub target: String,
    /// The other symlinks resolving it passes through, in order: links it leads to
    /// (`tools/current.sh -> v1.sh`) and linked directories on the way (`tools -> tools-v1`).
    /// Retargeting any of them changes what the skill runs, without touching `path` or `target`.
    pub through: Vec<String>,
}

/// The skill directories among a list of paths, and the skill files no root covers.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub skills: Vec<SkillDir>,
    /// `SKILL.md` files no root covers ([`Place::Uncovered`]).
    pub uncovered: Vec<SkillDir>,
    /// Skill files laid out as skills where no root reaches ([`Place::Hidden`]).
    pub hidden: Vec<SkillDir>,
}

impl Found {
    /// The directories no root covers that a change to one of their files gates as a skill
    /// ([`gated_uncovered`]): the uncovered and the hidden ones.
    pub fn unrooted(&self) -> impl Iterator<Item = &SkillDir> {
        self.uncovered.iter().chain(&self.hidden)
    }
}

impl Tree {
    /// The directories no root covers that a change to one of their files gates as a skill:
    /// as [`Found::unrooted`].
    pub fn unrooted(&self) -> impl Iterator<Item = &SkillDir> {
        self.uncovered.iter().chain(&self.hidden)
    }
}

/// What a directory holding a skill file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A skill, under this root: the nearest directory above it that a root pattern matches
    /// (`plugins/a/skills`), or the directory `lint PATH` searched.
    Skill { root: String },
    /// Under no root, and nothing says it is not a skill: worth a warning, and gated when a
    /// change touches its `SKILL.md`.
    Uncovered,
    /// Laid out as a skill (`…/skills/<x>/SKILL.md`) where no root reaches, below a test,
    /// template, vendored, build or never-searched directory (`tests/fixtures/skills/x`,
    /// `vendor/acme/skills/x`): no warning, as fixtures are common, but gated (by a
    /// maintainer) when a change touches its `SKILL.md`, since a plugin manifest or a link can
    /// load it as a skill whatever the directories above it are called.
    Hidden,
    /// Not a skill: ignored, a fixture, a template, an example, an asset, documentation,
    /// vendored or built (see [`NOT_SKILL_DIRS`]).
    NotASkill,
}

/// Which directories are skill roots and which paths are ignored.
pub struct Layout<'a> {
    config: &'a SkillsConfig,
}

impl<'a> Layout<'a> {
    pub fn new(config: &'a SkillsConfig) -> Self {
        Self { config }
    }

    fn is_root(&self, dir: &str) -> bool {
        self.config
            .roots
            .iter()
            .any(|root| glob::matches(root, dir))
    }

    fn is_ignored(&self, path: &str) -> bool {
        self.config.ignore.iter().any(|pattern| {
            glob::matches(pattern, path) || glob::matches(&format!("{pattern}/**"), path)
        })
    }

    /// Whether a root pattern matches `prefix` (a directory's first segments) without a `**`
    /// standing for a test, template or vendored directory: `**/skills` is no root at
    /// `tests/fixtures/skills`; `tests/fixtures/skills` is, and so is `plugins/*/skills` at
    /// `plugins/test/skills` (one segment, a plugin's name, chosen by whoever names it).
    fn is_root_at(&self, prefix: &[&str]) -> bool {
        self.config.roots.iter().any(|root| {
            let pattern: Vec<&str> = root
                .split('/')
                .filter(|s| !s.is_empty() && *s != ".")
                .collect();
            root_matches(&pattern, prefix)
        })
    }

    /// Whether a root makes the repository itself a skill: `.` (or an empty root).
    fn top_is_skill(&self) -> bool {
        self.config
            .roots
            .iter()
            .any(|root| !glob::is_glob(root) && glob::matches(root, ""))
    }

    /// What the directory `dir` (repository-relative), which holds a skill file, is. `searched`
    /// is the directory `lint PATH` searches: every directory at or below it counts as under a
    /// root. A skill's root is the nearest root above it; a test, template or vendored directory
    /// between the root and the skill makes it a fixture of whatever holds it.
    pub fn place(&self, dir: &str, searched: Option<&str>) -> Place {
        if self.is_ignored(dir) || self.is_ignored(&format!("{dir}/{}", SKILL_FILES[0])) {
            return Place::NotASkill;
        }
        let segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
        if segments.is_empty() && searched.is_none() && self.top_is_skill() {
            return Place::Skill {
                root: ".".to_owned(),
            };
        }
        match self.place_by_roots(&segments, searched) {
            // `…/skills/<x>`: laid out as a skill, wherever it is.
            Place::NotASkill if segments.len() >= 2 && segments[segments.len() - 2] == "skills" => {
                Place::Hidden
            }
            place => place,
        }
    }

    /// [`Self::place`] by the roots and the directories on the way alone.
    fn place_by_roots(&self, segments: &[&str], searched: Option<&str>) -> Place {
        // Below what `lint PATH` searched, only the segments below it say what it is.
        let below_search = searched.and_then(|start| {
            let start: Vec<&str> = start.split('/').filter(|s| !s.is_empty()).collect();
            segments.starts_with(&start).then_some(start.len())
        });
        let from = below_search.unwrap_or(0);
        if segments[from..].iter().any(|s| SKIPPED_DIRS.contains(s)) {
            return Place::NotASkill;
        }
        // From the first `n` segments to the directory: its own name counts only when it is
        // deeper than a direct child of the root (a skill may be named `tests`; a `templates`
        // inside a skill is that skill's template).
        let within = |n: usize| {
            let end = if n + 1 >= segments.len() {
                segments.len().saturating_sub(1)
            } else {
                segments.len()
            };
            segments[n.min(end)..end]
                .iter()
                .any(|s| NOT_SKILL_DIRS.contains(s))
        };
        if let Some(n) = (1..segments.len())
            .rev()
            .find(|&n| self.is_root_at(&segments[..n]))
        {
            return if within(n.max(from)) {
                Place::NotASkill
            } else {
                Place::Skill {
                    root: segments[..n].join("/"),
                }
            };
        }
        if let Some(n) = below_search {
            return if within(n) {
                Place::NotASkill
            } else {
                Place::Skill {
                    root: segments[..n].join("/"),
                }
            };
        }
        if segments.iter().any(|s| NOT_SKILL_DIRS.contains(s)) {
            Place::NotASkill
        } else {
            Place::Uncovered
        }
    }

    /// The root of the skill at `dir`, `None` when no root covers it.
    pub fn root_of(&self, dir: &str) -> Option<String> {
        match self.place(dir, None) {
            Place::Skill { root } => Some(root),
            _ => None,
        }
    }

    /// The skill directories among a commit's file paths (from `git ls-tree`).
    pub fn skills_in_paths<'p>(&self, paths: impl IntoIterator<Item = &'p str>) -> Vec<SkillDir> {
        self.find_in_paths(paths).skills
    }

    /// The skill directories among a commit's file paths, and the `SKILL.md` files there that
    /// no root covers (as [`Self::find_skills`] tells them apart).
    pub fn find_in_paths<'p>(&self, paths: impl IntoIterator<Item = &'p str>) -> Found {
        let mut found = Found::default();
        for path in paths {
            let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
            let Some(rank) = skill_file_rank(file) else {
                continue;
            };
            let list = match self.place(dir, None) {
                Place::Skill { .. } => &mut found.skills,
                // A lowercase `skill.md` outside a root is as often a page about skills.
                Place::Uncovered if file == SKILL_FILES[0] => &mut found.uncovered,
                Place::Hidden => &mut found.hidden,
                _ => continue,
            };
            match list.iter_mut().find(|s| s.dir == dir) {
                // `SKILL.md` wins over `skill.md`, which wins over other casings.
                Some(existing)
                    if skill_file_rank(&existing.skill_file)
                        .is_none_or(|had| (rank, file) < (had, existing.skill_file.as_str())) =>
                {
                    existing.skill_file = file.to_owned();
                }
                Some(_) => {}
                None => list.push(SkillDir {
                    dir: dir.to_owned(),
                    skill_file: file.to_owned(),
                }),
            }
        }
        found.skills.sort();
        found.uncovered.sort();
        found.hidden.sort();
        found
    }

    /// Walk a working tree for skills. Real directories come first; symlinked directories are
    /// followed afterwards, while they stay inside the repository and lead somewhere not yet
    /// searched, so a skill reachable both ways is found once, at its real path (the one git
    /// reports changes under). Loops and escapes become warnings.
    pub fn find_skills(&self, repo: &Path) -> std::io::Result<Tree> {
        self.walk(repo, "", false)
    }

    /// Every skill in `dir` (repository-relative) and below it, roots or not: `dir` itself when
    /// it holds a `SKILL.md`, and every directory below that does. Ignores still apply.
    pub fn find_skills_below(&self, repo: &Path, dir: &str) -> std::io::Result<Tree> {
        self.walk(repo, dir, true)
    }

    /// The walk of [`Self::find_skills`] from `start`; `everywhere` makes every directory count
    /// as below a root.
    fn walk(&self, repo: &Path, start: &str, everywhere: bool) -> std::io::Result<Tree> {
        let canonical_repo = repo.canonicalize()?;
        let searched = everywhere.then_some(start);
        let mut tree = Tree::default();
        let mut visited: HashSet<PathBuf> = HashSet::new();
        // The real paths of the skills found there.
        let mut skill_reals: HashSet<PathBuf> = HashSet::new();
        // The real paths of the `SKILL.md` files no root covers, and of the hidden skill files.
        let mut uncovered_reals: HashSet<PathBuf> = HashSet::new();
        let mut hidden_reals: HashSet<PathBuf> = HashSet::new();
        // The link targets searched again at a link's place.
        let mut relinked: HashSet<PathBuf> = HashSet::new();
        // The real paths that a link made a skill of at its own place.
        let mut linked_in: Vec<PathBuf> = Vec::new();
        let start_abs = if start.is_empty() {
            repo.to_path_buf()
        } else {
            repo.join(start)
        };
        // (relative dir, absolute path, strictly below a root)
        let mut stack: Vec<(String, PathBuf, bool)> =
            vec![(start.to_owned(), start_abs, everywhere)];
        let mut links: Vec<(String, PathBuf, bool, PathBuf)> = Vec::new();
        loop {
            let (rel, abs, under_root) = match stack.pop() {
                Some(next) => next,
                None => match links.pop() {
                    Some((rel, abs, under_root, target)) => {
                        // Searched at its real path already? A skill there is found once,
                        // there; but a directory that was no skill there (a fixture, one no
                        // root covers) loads at the link's place when that is a root or below
                        // one: search it again there (once), for the skills only a link makes.
                        let loads = under_root || self.is_root(&rel);
                        let search = visited.insert(target.clone())
                            || (loads && relinked.insert(target.clone()));
                        if !search {
                            // Searched again already: the link's own directory, at most.
                            if loads
                                && !skill_reals.contains(&target)
                                && let Some(skill_file) = skill_file_at(&abs)
                                && matches!(self.place(&rel, searched), Place::Skill { .. })
                            {
                                self.found(&mut tree, &rel, skill_file);
                                linked_in.push(target);
                            }
                            continue;
                        }
                        (rel, abs, under_root)
                    }
                    None => break,
                },
            };
            let real = abs.canonicalize().ok();
            if let Some(real) = &real {
                visited.insert(real.clone());
            }
            let mut entries: Vec<_> = match std::fs::read_dir(&abs) {
                Ok(entries) => entries.filter_map(Result::ok).collect(),
                Err(err) => {
                    tree.findings.push(Finding::warning(
                        "unreadable-dir",
                        &rel,
                        None,
                        format!("cannot read directory: {err}"),
                    ));
                    continue;
                }
            };
            entries.sort_by_key(|e| e.file_name());
            if let Some(skill_file) = skill_file_among(&entries) {
                let new_real = |reals: &HashSet<PathBuf>| {
                    real.as_ref().is_none_or(|real| !reals.contains(real))
                };
                match self.place(&rel, searched) {
                    Place::Skill { .. } if new_real(&skill_reals) => {
                        self.found(&mut tree, &rel, skill_file);
                        // Found at its real path, or at a link's place.
                        if let Some(real) = real {
                            if relative(&real, &canonical_repo).is_some_and(|r| r == rel) {
                                skill_reals.insert(real);
                            } else {
                                linked_in.push(real);
                            }
                        }
                    }
                    Place::Uncovered
                        if skill_file == SKILL_FILES[0] && new_real(&uncovered_reals) =>
                    {
                        tree.uncovered.push(SkillDir {
                            dir: rel.clone(),
                            skill_file,
                        });
                        uncovered_reals.extend(real);
                    }
                    Place::Hidden if new_real(&hidden_reals) => {
                        tree.hidden.push(SkillDir {
                            dir: rel.clone(),
                            skill_file,
                        });
                        hidden_reals.extend(real);
                    }
                    _ => {}
                }
            }
            let children_under_root = under_root || self.is_root(&rel);
            for entry in entries.into_iter().rev() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if SKIPPED_DIRS.contains(&name) {
                    continue;
                }
                let child_rel = if rel.is_empty() {
                    name.to_owned()
                } else {
                    format!("{rel}/{name}")
                };
                if self.is_ignored(&child_rel) {
                    continue;
                }
                let child_abs = entry.path();
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                if file_type.is_dir() {
                    stack.push((child_rel, child_abs, children_under_root));
                } else if file_type.is_symlink() {
                    // A link below a root, or one that is a root (`.claude/skills -> ../tools`).
                    if (children_under_root || self.is_root(&child_rel))
                        && let Ok(chain) = resolve_chain(&canonical_repo.join(&child_rel))
                        && let Some(target) = relative(&chain.target, &canonical_repo)
                    {
                        let through = chain
                            .links
                            .iter()
                            .filter_map(|link| relative(link, &canonical_repo))
                            .filter(|link| *link != child_rel)
                            .collect();
                        tree.links.push(Link {
                            path: child_rel.clone(),
                            target,
                            through,
                        });
                    }
                    match resolve_symlink(&child_abs, &canonical_repo) {
                        Ok(Some(target)) => {
                            links.push((child_rel, child_abs, children_under_root, target));
                        }
                        Ok(None) => {} // a link to a file
                        Err(unfollowed) => tree.findings.push(unfollowed.finding(&child_rel)),
                    }
                }
            }
        }
        // A `SKILL.md` no root covers that a link under a root loads is that link's skill.
        let linked_dirs: Vec<String> = linked_in
            .iter()
            .filter_map(|real| relative(real, &canonical_repo))
            .collect();
        tree.uncovered.retain(|u| !linked_dirs.contains(&u.dir));
        tree.hidden.retain(|h| !linked_dirs.contains(&h.dir));
        tree.skills.sort();
        tree.uncovered.sort();
        tree.uncovered.dedup();
        tree.hidden.sort();
        tree.hidden.dedup();
        for file in &tree.uncovered {
            tree.findings.push(uncovered_finding(self, file));
        }
        tree.links.sort();
        Ok(tree)
    }

    /// Record a skill the walk found, and warn of a skill file with an odd casing.
    fn found(&self, tree: &mut Tree, dir: &str, skill_file: String) {
        let skill = SkillDir {
            dir: dir.to_owned(),
            skill_file,
        };
        if is_odd_casing(&skill.skill_file) {
            tree.findings.push(Finding::warning(
                FILE_CASE_RULE,
                &skill.skill_file_path(),
                None,
                format!(
                    "`{}` is read as this skill's SKILL.md, as a case-insensitive file system \
                     (macOS, Windows) loads it; an agent on Linux looks for `SKILL.md` and does \
                     not find it: rename it to `SKILL.md`",
                    skill.skill_file
                ),
            ));
        }
        tree.skills.push(skill);
    }
}

/// Whether the segments of a root pattern match `path` with no `**` standing for a test,
/// template or vendored directory ([`NOT_SKILL_DIRS`]); a literal or a one-segment wildcard may.
fn root_matches(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| {
            path[..skip].iter().all(|s| !NOT_SKILL_DIRS.contains(s))
                && root_matches(rest, &path[skip..])
        }),
        Some((first, rest)) => path.split_first().is_some_and(|(segment, path_rest)| {
            glob::matches(first, segment) && root_matches(rest, path_rest)
        }),
    }
}

/// How to settle a `SKILL.md` no root covers: the `.skillgate.toml` key that gates it as a
/// skill, or the one that says it is none (keys a user can copy).
pub fn uncovered_advice(layout: &Layout<'_>, skill: &SkillDir) -> String {
    let file = skill.skill_file_path();
    let ignore = format!("or add `{file}` to `[skills] ignore` if it is not a skill");
    let parent = skill.dir.rsplit_once('/').map_or("", |(parent, _)| parent);
    if skill.dir.is_empty() {
        format!(
            "add `.` to `[skills] roots` in .skillgate.toml if the repository itself is a skill \
             (one installed by cloning it into `~/.claude/skills/<name>`), {ignore}"
        )
    } else if layout.is_root(&skill.dir) {
        format!(
            "`{}` is a skill root: its skills are the directories below it; move this one into \
             a directory of its own to gate it, {ignore}",
            skill.dir
        )
    } else if parent.is_empty() {
        format!(
            "move it into `skills/{}/` to gate it as a skill, {ignore}",
            skill.dir
        )
    } else {
        format!(
            "add `{parent}` to `[skills] roots` in .skillgate.toml to gate it as a skill, {ignore}"
        )
    }
}

/// The warning for a `SKILL.md` no root covers: where it is, what that means, and the way out.
fn uncovered_finding(layout: &Layout<'_>, skill: &SkillDir) -> Finding {
    Finding::warning(
        UNCOVERED_RULE,
        &skill.skill_file_path(),
        None,
        format!(
            "no skill root covers this SKILL.md: it is not linted, and a change to it needs a \
             maintainer's review; {}",
            uncovered_advice(layout, skill)
        ),
    )
}

/// Why a skill no root covers is gated (a file in it changed): `None` for a skill under a root.
pub fn gated_reason(layout: &Layout<'_>, skill: &SkillDir) -> Option<String> {
    let file = skill.skill_file_path();
    match layout.place(&skill.dir, None) {
        Place::Skill { .. } => None,
        Place::Hidden => {
            let segments: Vec<&str> = skill.dir.split('/').collect();
            let below = segments[..segments.len().saturating_sub(2)]
                .iter()
                .rev()
                .find(|s| NOT_SKILL_DIRS.contains(s) || SKIPPED_DIRS.contains(s))
                .map_or("a directory no skill root reaches".to_owned(), |s| {
                    format!("`{s}/`")
                });
            let skills_dir = &skill.dir[..skill.dir.rfind('/').unwrap_or(0)];
            Some(format!(
                "{file} is laid out as a skill (`skills/{}/`) below {below}, where no skill root \
                 reaches: its directory is gated as a skill because a file there changed, since \
                 a plugin manifest or a symlink can load it whatever the directories above it \
                 are called; add `{file}` to `[skills] ignore` in .skillgate.toml if it is a \
                 fixture or a template, or `{skills_dir}` to `[skills] roots` if it is a skill",
                skill.dir_name()
            ))
        }
        Place::Uncovered | Place::NotASkill => Some(format!(
            "{file} is under no skill root: its directory is gated as a skill because a file \
             there changed; {}",
            uncovered_advice(layout, skill)
        )),
    }
}

/// Whether a changed skill file at `path` makes its directory a skill to gate though no root
/// covers it: a `SKILL.md` no root covers ([`Place::Uncovered`], `SKILL.md` spelled so: a
/// lowercase `skill.md` outside a root is as often a page about skills), or any skill file laid
/// out as a skill below a fixture, template or vendored directory ([`Place::Hidden`]).
pub fn gated_uncovered(layout: &Layout<'_>, path: &str) -> Option<SkillDir> {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    skill_file_rank(file)?;
    let gated = match layout.place(dir, None) {
        Place::Uncovered => file == SKILL_FILES[0],
        Place::Hidden => true,
        Place::Skill { .. } | Place::NotASkill => false,
    };
    gated.then(|| SkillDir {
        dir: dir.to_owned(),
        skill_file: file.to_owned(),
    })
}

/// The skill file among a directory's entries, if any: the best ranked ([`skill_file_rank`]) of
/// the files (or links to files) named so, by their real names (on a case-insensitive file
/// system `exists()` would find `skill.md` for `SKILL.md`).
fn skill_file_among(entries: &[std::fs::DirEntry]) -> Option<String> {
    entries
        .iter()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let rank = skill_file_rank(&name)?;
            entry.path().is_file().then_some((rank, name))
        })
        .min()
        .map(|(_, name)| name)
}

/// The skill file a directory holds, if any.
fn skill_file_at(dir: &Path) -> Option<String> {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .collect();
    skill_file_among(&entries)
}

/// The symlinks followed after this many are a loop, as for the kernel (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Where a path leads and the symlinks on the way there.
struct Chain {
    /// The path resolved, as `canonicalize` would give it.
    target: PathBuf,
    /// Every symlink met, at its real place, in the order they were followed.
    links: Vec<PathBuf>,
}

/// Resolve an absolute path one component at a time, as the kernel does, keeping each symlink
/// met: a path component that is a link (`tools` → `tools-v1`) and a link a link leads to
/// (`run.sh` → `current.sh` → `v1.sh`). `canonicalize` gives only the end.
fn resolve_chain(path: &Path) -> std::io::Result<Chain> {
    use std::path::Component;
    /// A component still to walk.
    enum Step {
        Root,
        Parent,
        Name(std::ffi::OsString),
    }
    // Last first: a link's target goes on top of the components that followed the link.
    fn push(rest: &mut Vec<Step>, path: &Path) {
        for component in path.components().rev() {
            match component {
                Component::RootDir | Component::Prefix(_) => rest.push(Step::Root),
                Component::CurDir => {}
                Component::ParentDir => rest.push(Step::Parent),
                Component::Normal(name) => rest.push(Step::Name(name.to_owned())),
            }
        }
    }
    let mut rest = Vec::new();
    push(&mut rest, path);
    let mut target = PathBuf::from("/");
    let mut links = Vec::new();
    while let Some(step) = rest.pop() {
        match step {
            Step::Root => target = PathBuf::from("/"),
            Step::Parent => {
                target.pop();
            }
            Step::Name(name) => {
                let next = target.join(name);
                if std::fs::symlink_metadata(&next)?.file_type().is_symlink() {
                    if links.len() == MAX_LINKS {
                        return Err(std::io::Error::from_raw_os_error(libc::ELOOP));
                    }
                    let leads_to = std::fs::read_link(&next)?;
                    links.push(next);
                    push(&mut rest, &leads_to);
                } else {
                    target = next;
                }
            }
        }
    }
    Ok(Chain { target, links })
}

/// `path` relative to the repository, `/`-separated; `None` outside it.
fn relative(path: &Path, canonical_repo: &Path) -> Option<String> {
    let inside = path.strip_prefix(canonical_repo).ok()?;
    Some(inside.to_string_lossy().replace('\\', "/"))
}

/// Why a symlink is not followed, with the reason its finding gives.
enum Unfollowed {
    /// It leads into itself, or to one of its own parents (`symlink-loop`).
    Loop(String),
    /// It is broken, or leads out of the repository (`symlink-skipped`).
    Skipped(String),
}

impl Unfollowed {
    /// The warning for the link at `path`.
    fn finding(self, path: &str) -> Finding {
        match self {
            Self::Loop(message) => Finding::warning("symlink-loop", path, None, message),
            Self::Skipped(message) => Finding::warning("symlink-skipped", path, None, message),
        }
    }
}

/// Where a symlinked directory leads, if it may be followed: `Ok(None)` for links to files,
/// `Err` for loops, broken links and links out of the repository.
fn resolve_symlink(link: &Path, canonical_repo: &Path) -> Result<Option<PathBuf>, Unfollowed> {
    let target = match link.canonicalize() {
        Ok(target) => target,
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Unfollowed::Loop("symlink loop; skipped".to_owned()));
        }
        Err(err) => {
            return Err(Unfollowed::Skipped(format!(
                "broken symlink ({err}); skipped"
            )));
        }
    };
    if !target.starts_with(canonical_repo) {
        return Err(Unfollowed::Skipped(format!(
            "symlink leads outside the repository (to {}); skipped",
            target.display()
        )));
    }
    if !target.is_dir() {
        return Ok(None);
    }
    // A link to one of its own ancestors would make the walk endless.
    if link.parent().is_some_and(|p| {
        p.canonicalize()
            .map(|parent| parent.starts_with(&target))
            .unwrap_or(false)
    }) {
        return Err(Unfollowed::Loop(
            "symlink loop (it leads to one of its own parents); skipped".to_owned(),
        ));
    }
    Ok(Some(target))
}

/// The files of a skill, relative to its directory, without the directories of the skills
/// nested inside it (their files are theirs). Symlinks are listed, not followed.
pub fn skill_files(
    repo: &Path,
    skill: &SkillDir,
    all: &[SkillDir],
) -> std::io::Result<Vec<String>> {
    // The repository itself (`dir` empty) holds every other skill.
    let prefix = if skill.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", skill.dir)
    };
    let nested: Vec<&str> = all
        .iter()
        .filter(|other| other.dir != skill.dir)
        .filter_map(|other| other.dir.strip_prefix(&prefix))
        .collect();
    let base = repo.join(&skill.dir);
    let mut files = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(rel) = stack.pop() {
        let abs = if rel.is_empty() {
            base.clone()
        } else {
            base.join(&rel)
        };
        for entry in std::fs::read_dir(&abs)? {
            let entry = entry?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let child = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) && !nested.contains(&child.as_str()) {
                    stack.push(child);
                }
            } else if file_type.is_file() || file_type.is_symlink() {
                // FIFOs, sockets and devices are no content: reading one would block or never end.
                files.push(child);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The nearest enclosing skill of a repository-relative path (the repository itself, `dir`
/// empty, encloses every path).
pub fn owner<'s>(
    skills: impl IntoIterator<Item = &'s SkillDir>,
    path: &str,
) -> Option<&'s SkillDir> {
    skills
        .into_iter()
        .filter(|s| encloses(s, path))
        .max_by_key(|s| s.dir.len())
}

/// Whether `path` (repository-relative) is below the skill's directory.
fn encloses(skill: &SkillDir, path: &str) -> bool {
    (skill.dir.is_empty() && !path.is_empty())
        || (path.starts_with(&skill.dir) && path.as_bytes().get(skill.dir.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(skills: &[SkillDir]) -> Vec<&str> {
        skills.iter().map(|s| s.dir.as_str()).collect()
    }

    #[test]
    fn skills_in_paths_use_roots_nesting_and_ignores() {
        let config = SkillsConfig {
            ignore: vec!["skills/legacy".to_owned()],
            ..SkillsConfig::default()
        };
        let layout = Layout::new(&config);
        let found = layout.skills_in_paths([
            ".claude/skills/pdf/SKILL.md",
            ".claude/skills/pdf/lib/inner/SKILL.md",
            ".claude/skills/pdf/scripts/run.sh",
            "skills/csv/skill.md",
            "skills/legacy/old/SKILL.md",
            "packages/web/.claude/skills/lint/SKILL.md",
            "notes/SKILL.md",
            ".claude/skills/SKILL.md",
        ]);
        assert_eq!(
            dirs(&found),
            vec![
                ".claude/skills/pdf",
                ".claude/skills/pdf/lib/inner",
                "packages/web/.claude/skills/lint",
                "skills/csv"
            ]
        );
        assert_eq!(found[3].skill_file, "skill.md");
    }

    #[test]
    fn default_roots_cover_marketplaces_monorepos_and_claude_dirs() {
        let config = SkillsConfig::default();
        let layout = Layout::new(&config);
        let skill = |root: &str| Place::Skill {
            root: root.to_owned(),
        };
        for (dir, place) in [
            ("plugins/a/skills/x", skill("plugins/a/skills")),
            ("packages/web/skills/lint", skill("packages/web/skills")),
            (".claude/skills/pdf", skill(".claude/skills")),
            (
                "packages/web/.claude/skills/pdf",
                skill("packages/web/.claude/skills"),
            ),
            (".github/skills/review", skill(".github/skills")),
            // Nested: the nearest root, and a skill's inner skill stays a skill.
            ("skills/pdf/lib/inner", skill("skills")),
            ("skills/tool/skills/inner", skill("skills/tool/skills")),
            // A skill may carry the name of a directory that holds fixtures.
            ("skills/tests", skill("skills")),
            // A skill's own fixtures and templates are its files, a template at the top of a
            // skill too: only a direct child of a root may be named like them.
            ("skills/pdf/tests/fixtures/broken", Place::NotASkill),
            ("skills/maker/templates/new", Place::NotASkill),
            ("skills/maker/templates", Place::NotASkill),
            ("plugins/a/skills/maker/tests", Place::NotASkill),
            ("plugins/a/skills/tests", skill("plugins/a/skills")),
            // A plugin's name is no fixture directory: `*` matched it.
            ("plugins/test/skills/deploy", skill("plugins/test/skills")),
            ("plugins/build/skills/x", skill("plugins/build/skills")),
            (
                "plugins/templates/skills/x",
                skill("plugins/templates/skills"),
            ),
            // A `**` does not reach into test, template, vendored or installed copies, but one
            // laid out as a skill there is hidden: gated when it changes.
            ("tests/fixtures/skills/fake", Place::Hidden),
            ("vendor/acme/skills/theirs", Place::Hidden),
            ("node_modules/pkg/skills/dep", Place::Hidden),
            ("packages/test/skills/x", Place::Hidden),
            ("skills/pdf/tests/fixtures/skills/x", Place::Hidden),
            ("tests/fixtures/x", Place::NotASkill),
            ("template", Place::NotASkill),
            // No root: a warning.
            ("tools/foo", Place::Uncovered),
            ("skills", Place::Uncovered),
            ("", Place::Uncovered),
        ] {
            assert_eq!(layout.place(dir, None), place, "{dir}");
        }

        // A root that names a fixture directory itself is one; ignores win over roots.
        let config = SkillsConfig {
            roots: vec!["tests/fixtures/skills".to_owned()],
            ignore: vec![
                "tests/fixtures/skills/old".to_owned(),
                "a/SKILL.md".to_owned(),
            ],
        };
        let layout = Layout::new(&config);
        assert_eq!(
            layout.place("tests/fixtures/skills/fake", None),
            skill("tests/fixtures/skills")
        );
        assert_eq!(
            layout.place("tests/fixtures/skills/old", None),
            Place::NotASkill
        );
        assert_eq!(layout.place("a", None), Place::NotASkill);
        assert_eq!(layout.place("b", None), Place::Uncovered);

        // What `lint PATH` searched counts as a root below it, fixtures inside it or not.
        let config = SkillsConfig::default();
        let layout = Layout::new(&config);
        assert_eq!(
            layout.place("tests/fixtures/x", Some("tests/fixtures")),
            skill("tests/fixtures")
        );
        assert_eq!(
            layout.place("work/x/tests/y", Some("work")),
            Place::NotASkill
        );
    }

    #[test]
    fn paths_tell_skills_from_uncovered_skill_files() {
        let config = SkillsConfig::default();
        let found = Layout::new(&config).find_in_paths([
            "plugins/a/skills/x/SKILL.md",
            "tools/foo/SKILL.md",
            "tools/foo/run.sh",
            "notes/skill.md",
            "tests/fixtures/skills/fake/SKILL.md",
            "SKILL.md",
        ]);
        assert_eq!(dirs(&found.skills), vec!["plugins/a/skills/x"]);
        assert_eq!(dirs(&found.uncovered), vec!["", "tools/foo"]);
        assert_eq!(dirs(&found.hidden), vec!["tests/fixtures/skills/fake"]);
    }

    #[test]
    fn examples_assets_references_and_docs_inside_a_skill_are_its_files() {
        let config = SkillsConfig::default();
        let layout = Layout::new(&config);
        let skill = |root: &str| Place::Skill {
            root: root.to_owned(),
        };
        for (dir, place) in [
            ("skills/skill-creator/examples/basic", Place::NotASkill),
            (
                "skills/skill-creator/examples/hello-world",
                Place::NotASkill,
            ),
            ("skills/skill-creator/example", Place::NotASkill),
            ("skills/skill-creator/assets/starter", Place::NotASkill),
            ("skills/x/references/y", Place::NotASkill),
            ("skills/x/samples/y", Place::NotASkill),
            ("skills/x/sample/y", Place::NotASkill),
            ("skills/x/docs/y", Place::NotASkill),
            ("plugins/p/skills/x/doc/y", Place::NotASkill),
            // A project's examples and docs are none either.
            ("examples/hello", Place::NotASkill),
            ("docs", Place::NotASkill),
            // Laid out as a skill, wherever: gated when it changes.
            ("docs/skills/x", Place::Hidden),
            ("examples/skills/x", Place::Hidden),
            // A skill directly below its root may be named so.
            ("skills/examples", skill("skills")),
            ("skills/docs", skill("skills")),
            ("plugins/p/skills/assets", skill("plugins/p/skills")),
        ] {
            assert_eq!(layout.place(dir, None), place, "{dir}");
        }

        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        for (file, text) in [
            (
                "skills/skill-creator/SKILL.md",
                "---\nname: skill-creator\n---\n",
            ),
            (
                "skills/skill-creator/examples/basic/SKILL.md",
                "---\nname: my-skill\n---\n",
            ),
            (
                "skills/skill-creator/examples/hello-world/SKILL.md",
                "---\n---\n",
            ),
            (
                "skills/skill-creator/assets/starter/SKILL.md",
                "---\nname: <skill-name>\n---\n",
            ),
            ("docs/skills/guide/SKILL.md", "---\n---\n"),
            ("node_modules/pkg/skills/dep/SKILL.md", "---\n---\n"),
        ] {
            std::fs::create_dir_all(root.join(file).parent().expect("parent")).expect("mkdir");
            std::fs::write(root.join(file), text).expect("write");
        }
        let tree = layout.find_skills(root).expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["skills/skill-creator"]);
        assert!(tree.uncovered.is_empty(), "{:?}", tree.uncovered);
        assert!(tree.findings.is_empty(), "{:?}", tree.findings);
        // Hidden: recorded without a warning, outside the never-searched directories.
        assert_eq!(dirs(&tree.hidden), vec!["docs/skills/guide"]);
        let files = skill_files(root, &tree.skills[0], &tree.skills).expect("files");
        assert_eq!(
            files,
            vec![
                "SKILL.md",
                "assets/starter/SKILL.md",
                "examples/basic/SKILL.md",
                "examples/hello-world/SKILL.md"
            ]
        );
    }

    #[test]
    fn the_walk_warns_of_every_uncovered_skill_md_once() {
        let repo = tempfile::tempdir().expect("tempdir");
        for dir in [
            "skills/a",
            "tools/foo",
            "tools/foo/tests/fixtures/x",
            "templates",
        ] {
            std::fs::create_dir_all(repo.path().join(dir)).expect("mkdir");
            std::fs::write(repo.path().join(dir).join("SKILL.md"), "---\n---\n").expect("w");
        }
        std::fs::create_dir_all(repo.path().join("notes")).expect("mkdir");
        std::fs::write(repo.path().join("notes/skill.md"), "about skills\n").expect("w");
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(repo.path()).expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["skills/a"]);
        assert_eq!(dirs(&tree.uncovered), vec!["tools/foo"]);
        let warnings: Vec<(&str, &str)> = tree
            .findings
            .iter()
            .map(|f| (f.rule.as_str(), f.file.as_str()))
            .collect();
        assert_eq!(warnings, vec![(UNCOVERED_RULE, "tools/foo/SKILL.md")]);
        assert!(
            tree.findings[0]
                .message
                .ends_with("add `tools` to `[skills] roots` in .skillgate.toml to gate it as a skill, or add `tools/foo/SKILL.md` to `[skills] ignore` if it is not a skill"),
            "{}",
            tree.findings[0].message
        );
    }

    #[test]
    fn the_advice_fits_where_the_skill_md_is() {
        let config = SkillsConfig::default();
        let layout = Layout::new(&config);
        let advice = |dir: &str| {
            uncovered_advice(
                &layout,
                &SkillDir {
                    dir: dir.to_owned(),
                    skill_file: "SKILL.md".to_owned(),
                },
            )
        };
        assert!(
            advice("a/b/c").starts_with("add `a/b` to `[skills] roots` in .skillgate.toml"),
            "{}",
            advice("a/b/c")
        );
        assert!(advice("tools").starts_with("move it into `skills/tools/`"));
        assert!(
            advice("").starts_with(
                "add `.` to `[skills] roots` in .skillgate.toml if the repository itself is a skill"
            ),
            "{}",
            advice("")
        );
        assert!(
            advice(".claude/skills").starts_with("`.claude/skills` is a skill root"),
            "{}",
            advice(".claude/skills")
        );
        assert!(
            advice("a/b/c")
                .ends_with("or add `a/b/c/SKILL.md` to `[skills] ignore` if it is not a skill")
        );
    }

    #[test]
    fn owner_is_the_nearest_enclosing_skill() {
        let skills = vec![
            SkillDir {
                dir: "s/pdf".into(),
                skill_file: "SKILL.md".into(),
            },
            SkillDir {
                dir: "s/pdf/lib/inner".into(),
                skill_file: "SKILL.md".into(),
            },
            SkillDir {
                dir: "s/pdf2".into(),
                skill_file: "SKILL.md".into(),
            },
        ];
        let owner_dir = |p: &str| owner(&skills, p).map(|s| s.dir.as_str());
        assert_eq!(owner_dir("s/pdf/run.sh"), Some("s/pdf"));
        assert_eq!(owner_dir("s/pdf/lib/inner/x.py"), Some("s/pdf/lib/inner"));
        assert_eq!(owner_dir("s/pdf/lib/other.py"), Some("s/pdf"));
        assert_eq!(owner_dir("s/pdf2/SKILL.md"), Some("s/pdf2"));
        assert_eq!(owner_dir("s/README.md"), None);
    }

    #[test]
    fn walk_finds_nested_skills_and_survives_symlink_loops() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path().join(".claude/skills");
        std::fs::create_dir_all(root.join("pdf/lib/inner")).expect("mkdir");
        std::fs::write(root.join("pdf/SKILL.md"), "---\n---\n").expect("write");
        std::fs::write(root.join("pdf/lib/inner/SKILL.md"), "---\n---\n").expect("write");
        std::fs::write(root.join("pdf/lib/helper.py"), "x = 1\n").expect("write");
        std::fs::write(root.join("SKILL.md"), "a root is not a skill\n").expect("write");
        std::os::unix::fs::symlink("loop", root.join("loop")).expect("symlink");
        std::os::unix::fs::symlink("..", root.join("pdf/up")).expect("symlink");
        std::os::unix::fs::symlink("/", root.join("escape")).expect("symlink");
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(repo.path()).expect("walk");
        assert_eq!(
            dirs(&tree.skills),
            vec![".claude/skills/pdf", ".claude/skills/pdf/lib/inner"]
        );
        let rules: Vec<(&str, &str)> = tree
            .findings
            .iter()
            .map(|f| (f.file.as_str(), f.rule.as_str()))
            .collect();
        assert!(
            rules.contains(&(".claude/skills/loop", "symlink-loop")),
            "{rules:?}"
        );
        assert!(
            rules.contains(&(".claude/skills/pdf/up", "symlink-loop")),
            "{rules:?}"
        );
        assert!(
            rules.contains(&(".claude/skills/escape", "symlink-skipped")),
            "{rules:?}"
        );

        let files = skill_files(repo.path(), &tree.skills[0], &tree.skills).expect("files");
        assert_eq!(files, vec!["SKILL.md", "lib/helper.py", "up"]);
    }

    #[test]
    fn below_a_directory_every_skill_counts_roots_or_not() {
        let repo = tempfile::tempdir().expect("tempdir");
        for dir in [
            "work/pdf",
            "work/pdf/lib/inner",
            "work/deep/er/csv",
            "other/x",
        ] {
            std::fs::create_dir_all(repo.path().join(dir)).expect("mkdir");
            std::fs::write(repo.path().join(dir).join("SKILL.md"), "---\n---\n").expect("write");
        }
        std::fs::create_dir_all(repo.path().join("work/node_modules/y")).expect("mkdir");
        std::fs::write(repo.path().join("work/node_modules/y/SKILL.md"), "").expect("write");
        let config = SkillsConfig {
            ignore: vec!["work/deep".to_owned()],
            ..SkillsConfig::default()
        };
        let layout = Layout::new(&config);
        let tree = layout.find_skills_below(repo.path(), "work").expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["work/pdf", "work/pdf/lib/inner"]);
        let tree = layout
            .find_skills_below(repo.path(), "work/pdf")
            .expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["work/pdf", "work/pdf/lib/inner"]);
        let tree = layout.find_skills(repo.path()).expect("walk");
        assert!(tree.skills.is_empty(), "no roots there: {:?}", tree.skills);
    }

    #[test]
    fn links_inside_the_repository_are_recorded_with_their_target() {
        let repo = tempfile::tempdir().expect("tempdir");
        let skill = repo.path().join(".claude/skills/x/scripts");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::create_dir_all(repo.path().join("tools/lib")).expect("mkdir");
        std::fs::write(repo.path().join(".claude/skills/x/SKILL.md"), "---\n---\n").expect("w");
        std::fs::write(repo.path().join("tools/run.sh"), "echo\n").expect("w");
        std::os::unix::fs::symlink("../../../../tools/run.sh", skill.join("run.sh")).expect("ln");
        std::os::unix::fs::symlink("../../../../tools/lib", skill.join("lib")).expect("ln");
        std::os::unix::fs::symlink("/etc/hostname", skill.join("out")).expect("ln");
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(repo.path()).expect("walk");
        let links: Vec<(&str, &str)> = tree
            .links
            .iter()
            .map(|l| (l.path.as_str(), l.target.as_str()))
            .collect();
        assert_eq!(
            links,
            vec![
                (".claude/skills/x/scripts/lib", "tools/lib"),
                (".claude/skills/x/scripts/run.sh", "tools/run.sh"),
            ]
        );
        assert!(tree.links.iter().all(|l| l.through.is_empty()), "{tree:?}");
    }

    #[test]
    fn every_link_passed_through_is_recorded() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        std::fs::create_dir_all(root.join("skills/x/scripts")).expect("mkdir");
        std::fs::write(root.join("skills/x/SKILL.md"), "---\n---\n").expect("w");
        std::fs::create_dir_all(root.join("tools-v1")).expect("mkdir");
        std::fs::write(root.join("tools-v1/v1.sh"), "echo\n").expect("w");
        let link = |target: &str, at: &str| {
            std::os::unix::fs::symlink(target, root.join(at)).expect("symlink");
        };
        // run.sh -> tools/current.sh, where `tools` -> tools-v1 and current.sh -> v1.sh.
        link("tools-v1", "tools");
        link("v1.sh", "tools-v1/current.sh");
        link("../../../tools/current.sh", "skills/x/scripts/run.sh");
        // A chain that leaves the repository on the way is not recorded.
        link("/etc/../etc/hostname", "skills/x/scripts/out");
        let config = SkillsConfig {
            roots: vec!["skills".to_owned()],
            ..SkillsConfig::default()
        };
        let tree = Layout::new(&config).find_skills(root).expect("walk");
        assert_eq!(
            tree.links,
            vec![Link {
                path: "skills/x/scripts/run.sh".into(),
                target: "tools-v1/v1.sh".into(),
                through: vec!["tools".into(), "tools-v1/current.sh".into()],
            }]
        );
    }

    #[test]
    fn a_chain_resolves_as_the_kernel_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
        std::fs::write(root.join("a/f"), "").expect("w");
        // `..` after a linked directory goes up from where the link leads, not from the link.
        std::os::unix::fs::symlink("a/b", root.join("l")).expect("ln");
        std::os::unix::fs::symlink("../f", root.join("a/b/up")).expect("ln");
        let chain = resolve_chain(&root.join("l/up")).expect("resolves");
        assert_eq!(chain.target, root.join("a/f"));
        assert_eq!(
            chain.target,
            root.join("l/up").canonicalize().expect("canonical")
        );
        assert_eq!(chain.links, vec![root.join("l"), root.join("a/b/up")]);
        // A loop is ELOOP, like canonicalize's.
        std::os::unix::fs::symlink("loop", root.join("loop")).expect("ln");
        let err = resolve_chain(&root.join("loop")).err().expect("a loop");
        assert_eq!(err.raw_os_error(), Some(libc::ELOOP));
        assert!(resolve_chain(&root.join("missing")).is_err());
    }

    #[test]
    fn a_link_under_a_root_to_a_directory_that_is_no_skill_is_a_skill_at_its_place() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        for dir in ["tests/fixtures/evil", "tools/helper", "skills/real"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
            std::fs::write(root.join(dir).join("SKILL.md"), "---\n---\n").expect("w");
        }
        std::fs::create_dir_all(root.join(".claude/skills")).expect("mkdir");
        for (link, to) in [
            ("evil", "../../tests/fixtures/evil"),
            ("helper", "../../tools/helper"),
            // A skill at its real path is found once, there.
            ("real", "../../skills/real"),
        ] {
            std::os::unix::fs::symlink(to, root.join(".claude/skills").join(link)).expect("ln");
        }
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(root).expect("walk");
        assert_eq!(
            dirs(&tree.skills),
            vec![
                ".claude/skills/evil",
                ".claude/skills/helper",
                "skills/real"
            ]
        );
        // The link covers `tools/helper`: no warning that nothing does.
        assert!(tree.uncovered.is_empty(), "{:?}", tree.uncovered);
        assert!(tree.findings.is_empty(), "{:?}", tree.findings);
        let links: Vec<(&str, &str)> = tree
            .links
            .iter()
            .map(|l| (l.path.as_str(), l.target.as_str()))
            .collect();
        assert!(
            links.contains(&(".claude/skills/evil", "tests/fixtures/evil")),
            "{links:?}"
        );
    }

    #[test]
    fn a_root_linked_to_a_fixture_directory_makes_its_children_skills() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        for dir in ["tests/fixtures/skills/evil", "skills/real"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
            std::fs::write(root.join(dir).join("SKILL.md"), "---\n---\n").expect("w");
        }
        std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
        std::os::unix::fs::symlink("../tests/fixtures/skills", root.join(".claude/skills"))
            .expect("ln");
        // And a root that links to a root: its skills are found once, at their real paths.
        std::fs::create_dir_all(root.join(".codex")).expect("mkdir");
        std::os::unix::fs::symlink("../skills", root.join(".codex/skills")).expect("ln");
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(root).expect("walk");
        assert_eq!(
            dirs(&tree.skills),
            vec![".claude/skills/evil", "skills/real"]
        );
        assert!(tree.findings.is_empty(), "{:?}", tree.findings);
        let links: Vec<(&str, &str)> = tree
            .links
            .iter()
            .map(|l| (l.path.as_str(), l.target.as_str()))
            .collect();
        assert_eq!(
            links,
            vec![
                (".claude/skills", "tests/fixtures/skills"),
                (".codex/skills", "skills")
            ]
        );
    }

    #[test]
    fn a_skill_file_of_any_casing_counts_and_the_exact_one_wins() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        for (dir, files) in [
            ("skills/a", &["Skill.md"][..]),
            ("skills/b", &["SKILL.MD", "skill.md"][..]),
            ("skills/c", &["SKILL.md", "Skill.md"][..]),
            ("notes", &["Skill.md"][..]),
        ] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
            for file in files {
                std::fs::write(root.join(dir).join(file), "---\n---\n").expect("w");
            }
        }
        let config = SkillsConfig::default();
        let layout = Layout::new(&config);
        let tree = layout.find_skills(root).expect("walk");
        let files: Vec<String> = tree.skills.iter().map(SkillDir::skill_file_path).collect();
        assert_eq!(
            files,
            vec![
                "skills/a/Skill.md",
                "skills/b/skill.md",
                "skills/c/SKILL.md"
            ]
        );
        let warned: Vec<(&str, &str)> = tree
            .findings
            .iter()
            .map(|f| (f.rule.as_str(), f.file.as_str()))
            .collect();
        assert_eq!(warned, vec![(FILE_CASE_RULE, "skills/a/Skill.md")]);

        let found = layout.find_in_paths([
            "skills/a/Skill.md",
            "skills/b/SKILL.MD",
            "skills/b/skill.md",
            "skills/c/Skill.md",
            "skills/c/SKILL.md",
            "skills/d/skill.mdx",
        ]);
        let files: Vec<String> = found.skills.iter().map(SkillDir::skill_file_path).collect();
        assert_eq!(
            files,
            vec![
                "skills/a/Skill.md",
                "skills/b/skill.md",
                "skills/c/SKILL.md"
            ]
        );
    }

    #[test]
    fn a_root_of_dot_makes_the_repository_a_skill_that_holds_the_others() {
        let config = SkillsConfig {
            roots: vec![".".to_owned(), "skills".to_owned()],
            ..SkillsConfig::default()
        };
        let layout = Layout::new(&config);
        assert_eq!(
            layout.place("", None),
            Place::Skill {
                root: ".".to_owned()
            }
        );
        assert_eq!(layout.place("tools/x", None), Place::Uncovered);
        for roots in [vec!["**".to_owned()], vec!["*".to_owned()], Vec::new()] {
            let config = SkillsConfig {
                roots,
                ..SkillsConfig::default()
            };
            assert_eq!(Layout::new(&config).place("", None), Place::Uncovered);
        }

        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path();
        std::fs::create_dir_all(root.join("skills/inner/lib")).expect("mkdir");
        std::fs::create_dir_all(root.join("scripts")).expect("mkdir");
        for file in [
            "SKILL.md",
            "scripts/run.sh",
            "skills/inner/SKILL.md",
            "skills/inner/lib/x.py",
        ] {
            std::fs::write(root.join(file), "---\n---\n").expect("w");
        }
        let tree = layout.find_skills(root).expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["", "skills/inner"]);
        assert_eq!(tree.skills[0].skill_file_path(), "SKILL.md");
        let files = skill_files(root, &tree.skills[0], &tree.skills).expect("files");
        assert_eq!(files, vec!["SKILL.md", "scripts/run.sh"]);
        let owner_dir = |p: &str| owner(&tree.skills, p).map(|s| s.dir.as_str());
        assert_eq!(owner_dir("scripts/run.sh"), Some(""));
        assert_eq!(owner_dir("skills/inner/lib/x.py"), Some("skills/inner"));
        assert_eq!(owner_dir("README.md"), Some(""));
    }

    #[test]
    fn a_root_reachable_through_a_symlink_is_searched_once_at_its_real_path() {
        let repo = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(repo.path().join("skills/foo")).expect("mkdir");
        std::fs::write(repo.path().join("skills/foo/SKILL.md"), "---\n---\n").expect("write");
        std::fs::create_dir_all(repo.path().join(".claude")).expect("mkdir");
        std::os::unix::fs::symlink("../skills", repo.path().join(".claude/skills")).expect("link");
        let config = SkillsConfig::default();
        let tree = Layout::new(&config).find_skills(repo.path()).expect("walk");
        assert_eq!(dirs(&tree.skills), vec!["skills/foo"]);
        assert!(tree.findings.is_empty(), "{:?}", tree.findings);
    }
}
