//! A skill's scripts can be run as they are: executable, and starting with a `#!` line.
//!
//! A script is a file under the skill's `scripts/` (the spec's directory for code an agent
//! runs), at any depth, whose name has no extension or a scripting language's (`.sh`, `.py`,
//! `.js`, …); not `__init__.py`, dotfiles, data or docs. Both rules are warnings, as in `skilo`
//! (W002, W003): a script called as `bash scripts/x.sh` works without either, and the
//! reference validator checks neither. A compiled program (ELF, Mach-O, NUL bytes) needs no `#!`.

use std::path::Path;

use crate::skill::Finding;

/// Extensions of languages run through an interpreter named on a `#!` line.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "rb", "pl", "php", "js", "mjs", "cjs", "ts", "mts",
    "cts", "lua", "r", "tcl", "awk",
];

/// Read at most this much of a script: the rules only need its first line, and a larger file
/// under `scripts/` is not one anybody reviews.
pub const MAX_SCRIPT_BYTES: u64 = 8 << 20;

/// Whether `rel` (relative to the skill) is a script.
pub fn is_script(rel: &str) -> bool {
    let Some(inside) = rel.strip_prefix("scripts/") else {
        return false;
    };
    let name = inside.rsplit('/').next().unwrap_or(inside);
    if name.starts_with('.') || name == "__init__.py" {
        return false;
    }
    match name.rsplit_once('.') {
        None => true,
        Some((_, ext)) => SCRIPT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()),
    }
}

/// Check the scripts among a skill's `files` (relative to `skill_dir`, which is `dir` in
/// findings). `repo` (canonical) bounds what may be read.
pub fn check(repo: &Path, skill_dir: &Path, dir: &str, files: &[String]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for rel in files.iter().filter(|f| is_script(f)) {
        let file = if dir.is_empty() {
            rel.clone()
        } else {
            format!("{dir}/{rel}")
        };
        let path = skill_dir.join(rel);
        let bytes = match crate::untrusted::read_file(repo, &path, MAX_SCRIPT_BYTES) {
            Ok(bytes) => bytes,
            Err(reason) => {
                findings.push(Finding::warning(
                    "script-unreadable",
                    &file,
                    None,
                    format!("cannot check this script: {reason}"),
                ));
                continue;
            }
        };
        if let Some(problem) = shebang_problem(&bytes) {
            findings.push(Finding::warning("script-shebang", &file, Some(1), problem).at_column(1));
        }
        if !executable(&path) {
            findings.push(Finding::warning(
                "script-not-executable",
                &file,
                None,
                "the script is not executable: `chmod +x` it (and `git update-index --chmod=+x` \
                 it, so that the repository keeps the bit)",
            ));
        }
    }
    findings
}

/// What is wrong with a script's first line, if anything.
fn shebang_problem(bytes: &[u8]) -> Option<String> {
    const BINARY_MAGIC: &[&[u8]] = &[
        b"\x7fELF",
        b"\xcf\xfa\xed\xfe",
        b"\xce\xfa\xed\xfe",
        b"\xfe\xed\xfa\xcf",
        b"\xfe\xed\xfa\xce",
        b"\xca\xfe\xba\xbe",
    ];
    let head = &bytes[..bytes.len().min(8192)];
    if BINARY_MAGIC.iter().any(|magic| bytes.starts_with(magic)) || head.contains(&0) {
        return None;
    }
    if bytes.starts_with(b"\xef\xbb\xbf#!") {
        return Some(
            "a byte-order mark stands before `#!`, so the system does not see the `#!` line: \
             save the script without it"
                .to_owned(),
        );
    }
    let Some(rest) = bytes.strip_prefix(b"#!") else {
        return Some(
            "the script does not start with a `#!` line naming its interpreter \
             (like `#!/usr/bin/env bash`)"
                .to_owned(),
        );
    };
    let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
    if line.ends_with(b"\r") {
        return Some(
            "the `#!` line ends in a carriage return (Windows line endings): the system looks \
             for an interpreter whose name ends in `\\r`; save the script with `\\n` endings"
                .to_owned(),
        );
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Some("the `#!` line names no interpreter".to_owned());
    }
    None
}

#[cfg(unix)]
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(_path: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::skill::Severity;

    #[test]
    fn what_counts_as_a_script() {
        for yes in [
            "scripts/run.sh",
            "scripts/lib/helper.py",
            "scripts/tool",
            "scripts/build.JS",
        ] {
            assert!(is_script(yes), "{yes}");
        }
        for no in [
            "run.sh",
            "test.sh",
            "tests/run.py",
            "scripts/README.md",
            "scripts/data.json",
            "scripts/__init__.py",
            "scripts/.gitkeep",
            "references/scripts/x.sh",
        ] {
            assert!(!is_script(no), "{no}");
        }
    }

    #[test]
    fn first_lines() {
        assert_eq!(shebang_problem(b"#!/usr/bin/env bash\necho hi\n"), None);
        assert_eq!(shebang_problem(b"#!/bin/sh"), None);
        assert_eq!(
            shebang_problem(b"\x7fELF\x02\x01\x01\0\0"),
            None,
            "a program"
        );
        assert_eq!(shebang_problem(b"PK\x03\x04\0\0"), None, "binary data");
        for (bytes, says) in [
            (&b"echo hi\n"[..], "does not start with a `#!` line"),
            (b"", "does not start with a `#!` line"),
            (b"'use strict';\n", "does not start with a `#!` line"),
            (b"\xef\xbb\xbf#!/bin/sh\n", "byte-order mark"),
            (b"#!/bin/bash\r\necho\r\n", "carriage return"),
            (b"#!  \nx\n", "names no interpreter"),
        ] {
            let problem = shebang_problem(bytes).expect("a problem");
            assert!(problem.contains(says), "{problem}");
        }
    }

    fn write(root: &Path, rel: &str, text: &[u8], mode: u32) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn scripts_must_be_executable_and_start_with_a_shebang() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path().canonicalize().expect("canon");
        let skill = root.join("skills/pdf");
        write(&skill, "scripts/good.sh", b"#!/bin/sh\necho ok\n", 0o755);
        write(
            &skill,
            "scripts/plain.py",
            b"#!/usr/bin/env python3\n",
            0o644,
        );
        write(
            &skill,
            "scripts/lib/mod.js",
            b"module.exports = 1;\n",
            0o755,
        );
        write(&skill, "scripts/notes.txt", b"not a script\n", 0o644);
        write(&skill, "test.sh", b"echo not under scripts\n", 0o644);
        std::os::unix::fs::symlink("/etc/hostname", skill.join("scripts/escape")).expect("link");
        let files: Vec<String> = [
            "scripts/good.sh",
            "scripts/plain.py",
            "scripts/lib/mod.js",
            "scripts/notes.txt",
            "test.sh",
            "scripts/escape",
        ]
        .map(str::to_owned)
        .to_vec();
        let findings = check(&root, &skill, "skills/pdf", &files);
        let got: Vec<_> = findings
            .iter()
            .map(|f| (f.file.as_str(), f.rule.as_str(), f.line, f.column))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "skills/pdf/scripts/plain.py",
                    "script-not-executable",
                    None,
                    None
                ),
                (
                    "skills/pdf/scripts/lib/mod.js",
                    "script-shebang",
                    Some(1),
                    Some(1)
                ),
                ("skills/pdf/scripts/escape", "script-unreadable", None, None),
            ]
        );
        assert!(findings.iter().all(|f| f.severity == Severity::Warning));
        assert!(
            findings[2].message.contains("outside the repository"),
            "{}",
            findings[2].message
        );
    }
}
