//! Git submodules in a skill: a directory holding a `.git` file or directory (a checkout of
//! another repository), or a `.gitmodules` entry (the skill's own, or the repository's) whose
//! `path` lies in the skill. What a submodule holds is whatever its URL serves at the commit
//! the gitlink names: none of it is in the pull request's diff, so a reviewer looks.

use std::path::Path;

use super::evidence::Evidence;

/// One submodule: `what` names its path and URL; `file:line` is where it is declared, relative
/// to the skill (`../../.gitmodules` for the repository's own file).
pub type Submodule = Evidence;

/// The submodules of the skill at `dir` (inside the canonical `repo`), whose files relative to
/// `dir` are `files`.
pub fn find(repo: &Path, dir: &Path, files: &[String]) -> Vec<Submodule> {
    let mut found: Vec<Submodule> = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    // The skill's own `.gitmodules` files, and the repository's between it and the skill.
    for rel in files.iter().filter(|f| base(f) == ".gitmodules") {
        let prefix = rel.strip_suffix(".gitmodules").unwrap_or_default();
        if let Ok(bytes) = crate::untrusted::read_file(repo, &dir.join(rel), 256 * 1024) {
            for entry in entries(&String::from_utf8_lossy(&bytes)) {
                let path = format!("{prefix}{}", entry.path);
                declared.push(path.clone());
                found.push(Evidence::new(entry.describe(&path), rel, entry.line));
            }
        }
    }
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut up = String::new();
    let mut ancestor = canonical.parent();
    while let Some(above) = ancestor.filter(|a| a.starts_with(repo)) {
        up.push_str("../");
        let gitmodules = above.join(".gitmodules");
        if gitmodules.is_file()
            && let Ok(bytes) = crate::untrusted::read_file(repo, &gitmodules, 256 * 1024)
            && let Ok(skill) = canonical.strip_prefix(above)
        {
            let skill = skill.to_string_lossy().replace('\\', "/");
            for entry in entries(&String::from_utf8_lossy(&bytes)) {
                let Some(inside) = entry
                    .path
                    .strip_prefix(&skill)
                    .and_then(|rest| rest.strip_prefix('/'))
                else {
                    continue;
                };
                declared.push(inside.to_owned());
                found.push(Evidence::new(
                    entry.describe(inside),
                    &format!("{up}.gitmodules"),
                    entry.line,
                ));
            }
        }
        ancestor = above.parent();
    }
    // Checkouts: a `.git` file (listed) or directory (never listed) below the skill.
    let mut checkouts: Vec<String> = files
        .iter()
        .filter(|f| base(f) == ".git" && f.contains('/'))
        .filter_map(|f| f.rsplit_once('/').map(|(d, _)| d.to_owned()))
        .collect();
    checkouts.extend(git_dirs(dir));
    checkouts.sort();
    checkouts.dedup();
    for checkout in checkouts {
        if !declared.contains(&checkout) {
            found.push(Evidence::new(
                format!("git submodule {checkout} (a checkout of another repository)"),
                &format!("{checkout}/.git"),
                1,
            ));
        }
    }
    found
}

fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Directories below `dir` that hold a `.git` directory, relative to `dir`; at most 10,000
/// directories are looked at.
fn git_dirs(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![String::new()];
    let mut seen = 0;
    while let Some(rel) = stack.pop() {
        seen += 1;
        if seen > 10_000 {
            break;
        }
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if !kind.is_dir() {
                continue;
            }
            if name == ".git" {
                if !rel.is_empty() {
                    found.push(rel.clone());
                }
                continue;
            }
            if name == "node_modules" {
                continue;
            }
            stack.push(if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            });
        }
    }
    found
}

/// One `[submodule "…"]` of a `.gitmodules`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    url: Option<String>,
    /// Of its `path =` line.
    line: u32,
}

impl Entry {
    fn describe(&self, path: &str) -> String {
        match &self.url {
            Some(url) => format!("git submodule {path} from {url}"),
            None => format!("git submodule {path}"),
        }
    }
}

/// A `[submodule]` section being read: its URL, and its path with the path's line.
#[derive(Default)]
struct Section {
    url: Option<String>,
    path: Option<(String, u32)>,
}

impl Section {
    fn into_entry(self) -> Option<Entry> {
        let (path, line) = self.path?;
        Some(Entry {
            path,
            url: self.url,
            line,
        })
    }
}

/// The entries of a `.gitmodules` (git's config syntax: sections, `key = value`).
fn entries(text: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut current: Option<Section> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            out.extend(current.take().and_then(Section::into_entry));
            current = line
                .to_ascii_lowercase()
                .starts_with("[submodule")
                .then(Section::default);
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let Some(section) = current.as_mut() else {
            continue;
        };
        let value = value
            .trim()
            .trim_matches('"')
            .trim_end_matches('/')
            .to_owned();
        match key.trim().to_ascii_lowercase().as_str() {
            "path" => section.path = Some((value, u32::try_from(i + 1).unwrap_or(u32::MAX))),
            "url" => section.url = Some(value),
            _ => {}
        }
    }
    out.extend(current.and_then(Section::into_entry));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submodules_declared_in_the_repository_or_the_skill_and_checkouts() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let repo = tmp.path().canonicalize().expect("canon");
        let skill = repo.join(".claude/skills/x");
        std::fs::create_dir_all(skill.join("vendor/lib")).expect("mkdir");
        std::fs::create_dir_all(skill.join("deps/tool/.git")).expect("mkdir");
        std::fs::create_dir_all(skill.join("inner")).expect("mkdir");
        std::fs::write(skill.join("inner/.git"), "gitdir: ../../.git/modules/y\n").expect("w");
        std::fs::write(
            repo.join(".gitmodules"),
            "[submodule \"other\"]\n\tpath = other\n\turl = https://a.example/o.git\n[submodule \"lib\"]\n\tpath = .claude/skills/x/vendor/lib\n\turl = https://evil.example/p.git\n",
        )
        .expect("w");
        std::fs::write(
            skill.join(".gitmodules"),
            "[submodule \"z\"]\n  url = git@host.example:z.git\n  path = z\n",
        )
        .expect("w");
        let files = vec![".gitmodules".to_owned(), "inner/.git".to_owned()];
        let found: Vec<(String, String, u32)> = find(&repo, &skill, &files)
            .into_iter()
            .map(|e| (e.what, e.file, e.line))
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    "git submodule z from git@host.example:z.git".to_owned(),
                    ".gitmodules".to_owned(),
                    3
                ),
                (
                    "git submodule vendor/lib from https://evil.example/p.git".to_owned(),
                    "../../../.gitmodules".to_owned(),
                    5
                ),
                (
                    "git submodule deps/tool (a checkout of another repository)".to_owned(),
                    "deps/tool/.git".to_owned(),
                    1
                ),
                (
                    "git submodule inner (a checkout of another repository)".to_owned(),
                    "inner/.git".to_owned(),
                    1
                ),
            ]
        );
    }
}
