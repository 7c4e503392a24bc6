//! `[audit]`: where the audit trail lives and how it is committed back.

use serde::Deserialize;

/// How the database reaches the audit branch at the end of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitMode {
    /// Through GitHub's Git Data API: blob, tree, commit, update-ref without force.
    #[default]
    Api,
    /// `git push` from the runner, with the checkout's credentials.
    Git,
    /// Only the local file.
    None,
}

impl CommitMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Api => "api",
            Self::Git => "git",
            Self::None => "none",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuditConfig {
    /// The database, relative to the repository; also its path on the audit branch.
    pub db: String,
    /// The branch that holds the committed database.
    pub branch: String,
    pub commit: CommitMode,
    /// Attempts to land a commit when other runs move the branch meanwhile.
    pub attempts: u32,
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self {
            db: ".skillgate/skills.db".to_owned(),
            branch: "skillgate/audit".to_owned(),
            commit: CommitMode::Api,
            attempts: 10,
        }
    }
}

impl AuditConfig {
    /// The first key whose value cannot be used, and why.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if !is_repo_path(&self.db) {
            return Some((
                "db",
                format!(
                    "`{}` must be a relative path inside the repository (letters, digits, `._-/`)",
                    self.db
                ),
            ));
        }
        if !is_branch(&self.branch) {
            return Some((
                "branch",
                format!("`{}` is not a usable branch name", self.branch),
            ));
        }
        if !(1..=50).contains(&self.attempts) {
            return Some(("attempts", "`attempts` must be between 1 and 50".to_owned()));
        }
        None
    }
}

/// A `/`-separated relative path with plain characters: safe in an API URL and a git tree.
pub fn is_repo_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 255
        && path.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
}

/// A branch name git and the API both take without quoting.
pub fn is_branch(name: &str) -> bool {
    is_repo_path(name)
        && !name.starts_with('-')
        && !name.contains("..")
        && !name
            .split('/')
            .any(|p| p.starts_with('.') || p.ends_with(".lock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_branches_are_plain() {
        assert!(is_repo_path(".skillgate/skills.db"));
        assert!(is_branch("skillgate/audit"));
        for bad in ["", "/abs", "a/../b", "a//b", "a b", "a?b", "a\\b"] {
            assert!(!is_repo_path(bad), "{bad}");
        }
        for bad in ["-x", "a..b", "a/.hidden", "x.lock", "a/b.lock"] {
            assert!(!is_branch(bad), "{bad}");
        }
        assert_eq!(AuditConfig::default().problem(), None);
    }
}
