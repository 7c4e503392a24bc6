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
    /// The size in bytes at which the newest segment of the trail on the branch is sealed
    /// (`8 MiB`, `8388608`): every file stays below it plus one run.
    #[serde(deserialize_with = "size")]
    pub segment_size: u64,
}

/// The least and the most `segment-size` may be: the most keeps every file far below the 40 MiB
/// at which the Git Data API is reported to refuse a blob.
pub const MIN_SEGMENT_SIZE: u64 = 64 << 10;
pub const MAX_SEGMENT_SIZE: u64 = 32 << 20;
pub const DEFAULT_SEGMENT_SIZE: u64 = 8 << 20;

/// A size: a number of bytes, or a string with a unit (`512 KiB`, `8 MiB`, `8MB`).
fn size<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Text(String),
    }
    match Size::deserialize(deserializer)? {
        Size::Bytes(bytes) => Ok(bytes),
        Size::Text(text) => parse_size(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{text}` is not a size: write bytes (8388608) or a number and a unit (8 MiB, 512 KiB)"
            ))
        }),
    }
}

/// `8 MiB` → 8388608; units B, KB/KiB, MB/MiB (KB and MB count 1000s, as their names say).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "kib" => 1 << 10,
        "mb" => 1_000_000,
        "mib" => 1 << 20,
        _ => return None,
    };
    number.checked_mul(factor)
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self {
            db: ".skillgate/skills.db".to_owned(),
            branch: "skillgate/audit".to_owned(),
            commit: CommitMode::Api,
            attempts: 10,
            segment_size: DEFAULT_SEGMENT_SIZE,
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
        if !(MIN_SEGMENT_SIZE..=MAX_SEGMENT_SIZE).contains(&self.segment_size) {
            return Some((
                "segment-size",
                format!(
                    "`segment-size` is {} bytes; it must be between 64 KiB and 32 MiB (GitHub is reported to refuse a blob of 40 MiB)",
                    self.segment_size
                ),
            ));
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

    #[test]
    fn segment_sizes_read_with_or_without_a_unit_and_stay_in_bounds() {
        assert_eq!(parse_size("8 MiB"), Some(8 << 20));
        assert_eq!(parse_size("8MiB"), Some(8 << 20));
        assert_eq!(parse_size("512 KiB"), Some(512 << 10));
        assert_eq!(parse_size("2 MB"), Some(2_000_000));
        assert_eq!(parse_size("65536"), Some(65_536));
        for bad in ["", "MiB", "8 GiB", "-1", "1.5 MiB", "8 MiB extra"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
        let read = |toml: &str| -> Result<AuditConfig, String> {
            toml::from_str::<AuditConfig>(toml).map_err(|e| e.to_string())
        };
        assert_eq!(
            read("segment-size = \"16 MiB\"").map(|c| c.segment_size),
            Ok(16 << 20)
        );
        assert_eq!(
            read("segment-size = 1048576").map(|c| c.segment_size),
            Ok(1 << 20)
        );
        assert!(read("segment-size = \"big\"").is_err_and(|e| e.contains("is not a size")));
        let config = read("segment-size = \"33 MiB\"").expect("parses");
        assert_eq!(config.problem().map(|(key, _)| key), Some("segment-size"));
        let config = read("segment-size = \"32 MiB\"").expect("parses");
        assert_eq!(config.problem(), None);
    }
}
