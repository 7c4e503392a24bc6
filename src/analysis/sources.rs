//! The text of a skill's files, read once for every analysis, within bounds.

use std::path::Path;

/// Files larger than this are not analysed (a minified bundle, a data file): a note says so.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// At most this much text of one skill is analysed; the files past it are noted.
pub const MAX_TOTAL_BYTES: u64 = 16 * 1024 * 1024;

/// Extensions of files an interpreter or a build runs.
const CODE_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx",
    "rb", "pl", "php", "go", "rs", "lua", "ps1", "bat", "cmd", "java", "kt", "swift", "c", "cc",
    "cpp", "h", "cs", "r", "sql",
];

/// Whether a path names code by its extension.
pub fn is_code_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && CODE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// One text file of the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Relative to the skill directory, `/`-separated.
    pub path: String,
    /// The text, with invalid UTF-8 replaced by U+FFFD.
    pub text: String,
    /// The languages other files of the skill run it as (`bash assets/notes.txt`), besides
    /// its own: it is read as each of them and as its own (see [`super::runs`]), so a decoy
    /// `python3 run.sh` beside `bash run.sh` hides nothing.
    pub run_as: Vec<super::code_lines::Lang>,
    /// Run or sourced by a file of the skill that is not a test (`bash fixtures/setup.sh` in
    /// `SKILL.md`): what it does is what the skill does, wherever it lives.
    pub run_by_skill: bool,
}

impl Source {
    pub fn new(path: &str, text: &str) -> Self {
        Self {
            path: path.to_owned(),
            text: text.to_owned(),
            run_as: Vec::new(),
            run_by_skill: false,
        }
    }

    /// The extension, lowercase, without the dot (`""` when none).
    pub fn extension(&self) -> String {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
            _ => String::new(),
        }
    }

    /// The first line when it is a `#!` line.
    pub fn shebang(&self) -> Option<&str> {
        self.text.lines().next().filter(|l| l.starts_with("#!"))
    }
}

/// The skill's text files, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    pub files: Vec<Source>,
    /// `path: why` for each file not analysed (binary, too large, unreadable, past the total).
    pub skipped: Vec<String>,
    /// Git submodules in the skill: code from elsewhere, not in any diff.
    pub submodules: Vec<super::gitlinks::Submodule>,
}

impl Sources {
    /// Read the skill at `dir` (inside the canonical `repo`) whose files, relative to `dir`, are
    /// `files`. Binary files (a NUL byte in the first 8 KiB) are skipped silently: they are not
    /// code. Everything else left out is noted.
    pub fn read(repo: &Path, dir: &Path, files: &[String]) -> Self {
        let mut sources = Self::default();
        let mut total: u64 = 0;
        for rel in files {
            if total >= MAX_TOTAL_BYTES {
                sources.skipped.push(format!(
                    "{rel}: past the {} MiB analysed per skill",
                    MAX_TOTAL_BYTES >> 20
                ));
                continue;
            }
            let path = dir.join(rel);
            let size = std::fs::metadata(&path).map_or(0, |m| m.len());
            if size > MAX_FILE_BYTES {
                sources.skipped.push(format!(
                    "{rel}: {size} bytes, more than the {} MiB analysed per file",
                    MAX_FILE_BYTES >> 20
                ));
                continue;
            }
            let bytes = match crate::untrusted::read_file(repo, &path, MAX_FILE_BYTES) {
                Ok(bytes) => bytes,
                Err(reason) => {
                    sources.skipped.push(format!("{rel}: {reason}"));
                    continue;
                }
            };
            // Binaries are not code, but a script stays a script whatever bytes it holds: an
            // interpreter runs a file with a `#!` line or a code extension all the same.
            let looks_like_code = bytes.starts_with(b"#!") || is_code_path(rel);
            if !looks_like_code && bytes.iter().take(8192).any(|b| *b == 0) {
                continue;
            }
            total += bytes.len() as u64;
            sources.files.push(Source {
                path: rel.clone(),
                text: String::from_utf8_lossy(&bytes).into_owned(),
                run_as: Vec::new(),
                run_by_skill: false,
            });
        }
        super::runs::mark(&mut sources);
        sources.submodules = super::gitlinks::find(repo, dir, files);
        sources
    }

    /// For tests and callers that have the text already.
    /// (Files run as another language are not marked: [`super::runs::mark`] does that.)
    pub fn from_texts(files: &[(&str, &str)]) -> Self {
        Self {
            files: files
                .iter()
                .map(|(path, text)| Source::new(path, text))
                .collect(),
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_read_binaries_and_large_files_are_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canon");
        std::fs::write(root.join("run.sh"), "#!/bin/bash\necho hi\n").expect("write");
        std::fs::write(root.join("logo.png"), b"\x89PNG\0\0\0").expect("write");
        std::fs::write(root.join("broken.py"), b"x = '\xff'\n").expect("write");
        std::fs::write(
            root.join("bundle.min.js"),
            vec![b'a'; (MAX_FILE_BYTES + 1) as usize],
        )
        .expect("write");
        let names: Vec<String> = ["run.sh", "logo.png", "broken.py", "bundle.min.js"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let sources = Sources::read(&root, &root, &names);
        let read: Vec<&str> = sources.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(read, ["run.sh", "broken.py"]);
        assert_eq!(sources.files[1].text, "x = '\u{fffd}'\n");
        assert_eq!(sources.files[0].shebang(), Some("#!/bin/bash"));
        assert_eq!(sources.files[1].extension(), "py");
        assert_eq!(
            sources.skipped,
            ["bundle.min.js: 1048577 bytes, more than the 1 MiB analysed per file"]
        );
    }
}
