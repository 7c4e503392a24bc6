//! A file the skill runs directly (`./scripts/deploy.sh`) can be run as it is: executable, and
//! starting with a `#!` line.
//!
//! Only files something runs directly are held to it: a command of `SKILL.md` whose program is
//! the file (in a shell fence, or inline code that starts with it: `./scripts/x.sh`,
//! `scripts/x.py --json`, `${CLAUDE_SKILL_DIR}/scripts/x.sh`), an `allowed-tools` entry
//! (`Bash(scripts/x.sh:*)`), or a command of another file of the skill, its test suite included
//! (`run ./scripts/x.sh` in a `.bats` file, `"$(dirname "$0")/lib/x.sh"`,
//! `subprocess.run(["./scripts/x.sh"])`). A file run through an interpreter
//! (`python3 scripts/x.py`) needs neither, and a module that is only imported is not run at all.
//! Both rules are warnings, as in `skilo` (W002, W003), which the reference validator checks
//! for no file. A compiled program (ELF, Mach-O, NUL bytes) needs no `#!`.

use std::collections::BTreeMap;
use std::path::Path;

use super::commands::{self, How, Target};
use crate::analysis::code_lines::Lang;
use crate::analysis::shell::{self, Word};
use crate::analysis::syntax::{self, Grammar};
use crate::analysis::{MAX_FILE_BYTES, MAX_TOTAL_BYTES, Source};
use crate::analysis::{code_lines, paths};
use crate::skill::Finding;

/// Read at most this much of a script: the rules only need its first line, and a larger file
/// is not one anybody reviews.
pub const MAX_SCRIPT_BYTES: u64 = 8 << 20;

/// Extensions of the files whose commands are read for the scripts they run.
const RUNNER_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "bats", "py", "js", "mjs", "cjs", "ts", "mts", "cts", "rb",
];

/// Calls that run a program given as their first argument, in the languages that are not shell.
const SPAWN_CALLS: &[&str] = &[
    "subprocess.run(",
    "subprocess.call(",
    "subprocess.check_call(",
    "subprocess.check_output(",
    "subprocess.Popen(",
    "os.system(",
    "execFileSync(",
    "execFile(",
    "execSync(",
    "spawnSync(",
    "spawn(",
    "execa(",
    "system(",
];

/// What `SKILL.md` says, for [`executed`].
#[derive(Debug, Clone, Copy)]
pub struct Instructions<'a> {
    /// The whole `SKILL.md`.
    pub text: &'a str,
    /// Its body, and the line the body starts on; `None` when the frontmatter is broken.
    pub body: Option<(&'a str, usize)>,
    pub allowed_tools: &'a [String],
    /// As findings name it: `SKILL.md`.
    pub file_name: &'a str,
}

/// The files of the skill (`files`, relative to `skill_dir`, named `name`) that something runs
/// directly, each with the first place that does (`SKILL.md:12`, `tests/run.bats:4`).
pub fn executed(
    repo: &Path,
    skill_dir: &Path,
    name: &str,
    instructions: &Instructions<'_>,
    files: &[String],
) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut add = |path: Option<String>, by: String| {
        if let Some(path) = path {
            found.entry(path).or_insert(by);
        }
    };
    let md = instructions.file_name;
    let in_skill = |path: &str| in_files(files, path);
    for u in commands::fence_uses(instructions.text, name) {
        if u.how == How::Executes {
            add(in_skill(u.target.path()), format!("{md}:{}", u.line));
        }
    }
    if let Some((body, body_line)) = instructions.body {
        for r in super::references::references(body, name) {
            if r.executes {
                add(
                    in_skill(&r.path),
                    format!("{md}:{}", body_line + r.line - 1),
                );
            }
        }
    }
    for (_, target) in commands::allowed_tool_programs(instructions.allowed_tools, name) {
        add(in_skill(target.path()), format!("`allowed-tools` in {md}"));
    }
    for source in runners(repo, skill_dir, files) {
        for (line, word) in direct_runs(&source) {
            add(
                resolve(files, &source.path, &word, name),
                format!("{}:{line}", source.path),
            );
        }
    }
    found
}

/// The file of the skill `path` (relative to it) names, normalized, when there is one.
fn in_files(files: &[String], path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    let path = parts.join("/");
    files.contains(&path).then_some(path)
}

/// The file of the skill a program word written in `from` runs: under the skill's directory
/// variable; relative to the skill or to `from`'s directory; under another variable
/// (`"$(dirname "$0")/x.sh"`, `$SCRIPT_DIR/x.sh`), relative to `from`'s directory, the skill,
/// or else the one file whose path ends with it.
fn resolve(files: &[String], from: &str, word: &str, name: &str) -> Option<String> {
    let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    let beside = |p: &str| in_files(files, &format!("{dir}/{p}"));
    match commands::target(word, name) {
        Some(Target::Skill(p)) => return in_files(files, &p),
        Some(Target::Relative(p)) => return in_files(files, &p).or_else(|| beside(&p)),
        None => {}
    }
    let rest = word
        .strip_prefix("${")
        .or_else(|| word.strip_prefix("$("))?;
    let tail = &rest[rest.find(['}', ')'])? + 1..];
    let tail = tail.strip_prefix('/')?;
    if tail.contains(['$', '*', '?', '{', '(']) {
        return None;
    }
    beside(tail).or_else(|| in_files(files, tail)).or_else(|| {
        let clean: Vec<&str> = tail
            .split('/')
            .filter(|p| !matches!(*p, "" | "." | ".."))
            .collect();
        let clean = clean.join("/");
        let mut matching = files
            .iter()
            .filter(|f| **f == clean || f.ends_with(&format!("/{clean}")));
        let first = matching.next()?;
        matching.next().is_none().then(|| first.clone())
    })
}

/// The code files of the skill whose commands may run another of its files, read within the
/// analysis bounds.
fn runners(repo: &Path, skill_dir: &Path, files: &[String]) -> Vec<Source> {
    let mut sources = Vec::new();
    let mut total = 0;
    for rel in files {
        let name = paths::base_name(rel);
        let ext = name
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        let candidate = RUNNER_EXTENSIONS.contains(&ext.as_str()) || !name.contains('.');
        if !candidate || paths::is_skill_file(rel) || total >= MAX_TOTAL_BYTES {
            continue;
        }
        let Ok(bytes) = crate::untrusted::read_file(repo, &skill_dir.join(rel), MAX_FILE_BYTES)
        else {
            continue;
        };
        // An extensionless file is code only with a `#!` line.
        if ext.is_empty() && !bytes.starts_with(b"#!") {
            continue;
        }
        total += bytes.len() as u64;
        sources.push(Source::new(rel, &String::from_utf8_lossy(&bytes)));
    }
    sources
}

/// `(line, program as written)` of each command of `source` whose program is a path: a shell
/// command (`./x.sh`, `"$DIR/x.sh"`, bats' `run ./x.sh`), or a spawn whose first argument is a
/// string naming one (`subprocess.run(["./x.sh"])`).
fn direct_runs(source: &Source) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let mut parser = tree_sitter::Parser::new();
    let bats = source.path.ends_with(".bats");
    let mut shell_lines = false;
    for unit in syntax::units(source) {
        if unit.grammar != Grammar::Bash {
            continue;
        }
        shell_lines = true;
        let script = shell::read(&mut parser, &unit);
        for cmd in &script.commands {
            let mut program = &cmd.name;
            if bats && cmd.program() == Some("run") {
                let Some(next) = cmd
                    .args
                    .iter()
                    .find(|a| !a.text().starts_with('-') && a.text() != "!")
                else {
                    continue;
                };
                program = next;
            }
            let text = word_text(program);
            if text.contains('/') {
                found.push((cmd.line, text.to_owned()));
            }
        }
    }
    if shell_lines {
        return found;
    }
    for line in code_lines::code_lines(source) {
        if matches!(line.lang, Lang::Shell | Lang::Config) {
            continue;
        }
        if let Some(program) = spawned_program(line.text) {
            found.push((line.number, program));
        }
    }
    found
}

/// The text a shell word stands for, expansions written `${X}`.
fn word_text(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.template)
}

/// The program a spawn call runs when its first argument (or the first item of a list there)
/// is a string literal naming a path: `subprocess.run(["./scripts/x.sh", "-v"])` →
/// `./scripts/x.sh`. `subprocess.run([sys.executable, "x.py"])` runs Python, not `x.py`.
fn spawned_program(text: &str) -> Option<String> {
    let at = SPAWN_CALLS
        .iter()
        .filter_map(|call| {
            text.match_indices(call)
                .find(|(i, _)| {
                    // `subprocess.run(` is not `os.subprocess.run(`'s tail, but `spawn(` must not
                    // be the tail of `respawn(`.
                    *i == 0
                        || !text[..*i]
                            .chars()
                            .next_back()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
                .map(|(i, _)| i + call.len())
        })
        .min()?;
    let rest = text[at..].trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest).trim_start();
    let quote = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let end = rest[1..].find(quote)?;
    let program = rest[1..1 + end].split_whitespace().next()?;
    program.contains('/').then(|| program.to_owned())
}

/// Check the files of the skill something runs directly (`executed`, from [`executed`];
/// relative to `skill_dir`, which is `dir` in findings). `repo` (canonical) bounds what may be
/// read.
pub fn check(
    repo: &Path,
    skill_dir: &Path,
    dir: &str,
    executed: &BTreeMap<String, String>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (rel, by) in executed {
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
                    format!("{by} runs it directly, and it cannot be checked: {reason}"),
                ));
                continue;
            }
        };
        if let Some(problem) = shebang_problem(&bytes) {
            findings.push(
                Finding::warning(
                    "script-shebang",
                    &file,
                    Some(1),
                    format!("{by} runs it directly, and {problem}"),
                )
                .at_column(1),
            );
        }
        if !executable(&path) {
            findings.push(Finding::warning(
                "script-not-executable",
                &file,
                None,
                format!(
                    "{by} runs it directly, and the script is not executable: `chmod +x` it \
                     (and `git update-index --chmod=+x` it, so that the repository keeps the bit)"
                ),
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

    fn files(list: &[&str]) -> Vec<String> {
        list.iter().map(|f| (*f).to_owned()).collect()
    }

    fn run_directly(
        skill: &Path,
        root: &Path,
        text: &str,
        tools: &[String],
        list: &[&str],
    ) -> Vec<(String, String)> {
        let body_line = text
            .match_indices("\n---\n")
            .next()
            .map_or(1, |(i, _)| text[..i + 5].matches('\n').count() + 1);
        let body_start: usize = text
            .split_inclusive('\n')
            .take(body_line - 1)
            .map(str::len)
            .sum();
        let instructions = Instructions {
            text,
            body: Some((&text[body_start..], body_line)),
            allowed_tools: tools,
            file_name: "SKILL.md",
        };
        executed(root, skill, "pdf", &instructions, &files(list))
            .into_iter()
            .collect()
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_owned(), b.to_owned())
    }

    #[test]
    fn what_runs_a_file_directly() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path().canonicalize().expect("canon");
        let skill = root.join("skills/pdf");
        for (rel, text) in [
            (
                "scripts/main.py",
                "import lib.helpers\nsubprocess.run([sys.executable, \"scripts/via.py\"])\n",
            ),
            ("scripts/lib/helpers.py", "def f():\n    pass\n"),
            ("scripts/via.py", "print(1)\n"),
            ("scripts/deploy.sh", "echo deploy\n"),
            ("scripts/fenced.sh", "echo\n"),
            ("scripts/tool.py", "print(1)\n"),
            ("scripts/allowed.sh", "echo\n"),
            (
                "scripts/run.sh",
                "#!/bin/sh\n\"$(dirname \"$0\")/lib/inner.sh\"\npython3 \"$(dirname \"$0\")/main.py\"\n",
            ),
            ("scripts/lib/inner.sh", "echo\n"),
            (
                "tests/cli.bats",
                "@test \"x\" {\n  run ./scripts/from-bats.sh --help\n}\n",
            ),
            ("scripts/from-bats.sh", "echo\n"),
            (
                "tests/test_cli.py",
                "def test_x():\n    subprocess.run([\"./scripts/from-pytest.sh\"], check=True)\n",
            ),
            ("scripts/from-pytest.sh", "echo\n"),
            ("scripts/only-interpreted.sh", "echo\n"),
        ] {
            write(&skill, rel, text.as_bytes(), 0o644);
        }
        let text = "---\nname: pdf\ndescription: d\n---\nRun `./scripts/deploy.sh`, `scripts/tool.py --json`, not `scripts/main.py`.\n\n```bash\nbash scripts/only-interpreted.sh\npython3 scripts/main.py\n${CLAUDE_SKILL_DIR}/scripts/fenced.sh --x\n```\n";
        let all = [
            "SKILL.md",
            "scripts/main.py",
            "scripts/lib/helpers.py",
            "scripts/via.py",
            "scripts/deploy.sh",
            "scripts/fenced.sh",
            "scripts/tool.py",
            "scripts/allowed.sh",
            "scripts/run.sh",
            "scripts/lib/inner.sh",
            "tests/cli.bats",
            "scripts/from-bats.sh",
            "tests/test_cli.py",
            "scripts/from-pytest.sh",
            "scripts/only-interpreted.sh",
        ];
        let tools = ["Bash(scripts/allowed.sh:*)".to_owned(), "Read".to_owned()];
        assert_eq!(
            run_directly(&skill, &root, text, &tools, &all),
            vec![
                pair("scripts/allowed.sh", "`allowed-tools` in SKILL.md"),
                pair("scripts/deploy.sh", "SKILL.md:5"),
                pair("scripts/fenced.sh", "SKILL.md:10"),
                pair("scripts/from-bats.sh", "tests/cli.bats:2"),
                pair("scripts/from-pytest.sh", "tests/test_cli.py:2"),
                pair("scripts/lib/inner.sh", "scripts/run.sh:2"),
                pair("scripts/tool.py", "SKILL.md:5"),
            ]
        );
    }

    #[test]
    fn a_cd_into_the_skill_is_followed_to_the_scripts_it_runs_directly() {
        let repo = tempfile::tempdir().expect("tempdir");
        let root = repo.path().canonicalize().expect("canon");
        let skill = root.join("skills/pdf");
        for rel in [
            "scripts/generate.sh",
            "scripts/render.sh",
            "scripts/made.sh",
            "tools/t.sh",
        ] {
            write(&skill, rel, b"echo\n", 0o644);
        }
        let text = "---\nname: pdf\ndescription: d\n---\n```bash\ncd \"${CLAUDE_SKILL_DIR}/scripts\"\n\
                    ./generate.sh --all\n```\n\n```bash\ncd {baseDir} && scripts/render.sh\n\
                    cp assets/t.sh scripts/made.sh && ./scripts/made.sh\n```\n\n```bash\n\
                    cd /tmp && ./tools/t.sh\n```\n\n```\n./scripts/render.sh\n```\n";
        let all = [
            "SKILL.md",
            "scripts/generate.sh",
            "scripts/render.sh",
            "scripts/made.sh",
            "tools/t.sh",
        ];
        assert_eq!(
            run_directly(&skill, &root, text, &[], &all),
            vec![
                pair("scripts/generate.sh", "SKILL.md:7"),
                pair("scripts/render.sh", "SKILL.md:11"),
            ],
            "not a copy the skill makes, a path after `cd` elsewhere, nor a line of a block in \
             no language"
        );
    }

    #[test]
    fn only_files_run_directly_must_be_executable_and_start_with_a_shebang() {
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
        write(&skill, "scripts/lib/imported.py", b"x = 1\n", 0o644);
        std::os::unix::fs::symlink("/etc/hostname", skill.join("scripts/escape")).expect("link");
        let executed: BTreeMap<String, String> = [
            ("scripts/good.sh", "SKILL.md:3"),
            ("scripts/plain.py", "SKILL.md:4"),
            ("scripts/lib/mod.js", "tests/run.sh:9"),
            ("scripts/escape", "SKILL.md:5"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
        let findings = check(&root, &skill, "skills/pdf", &executed);
        let got: Vec<_> = findings
            .iter()
            .map(|f| (f.file.as_str(), f.rule.as_str(), f.line, f.column))
            .collect();
        assert_eq!(
            got,
            vec![
                ("skills/pdf/scripts/escape", "script-unreadable", None, None),
                (
                    "skills/pdf/scripts/lib/mod.js",
                    "script-shebang",
                    Some(1),
                    Some(1)
                ),
                (
                    "skills/pdf/scripts/plain.py",
                    "script-not-executable",
                    None,
                    None
                ),
            ],
            "the imported module nobody runs says nothing"
        );
        assert!(findings.iter().all(|f| f.severity == Severity::Warning));
        assert!(
            findings[0]
                .message
                .starts_with("SKILL.md:5 runs it directly, and it cannot be checked")
                && findings[0].message.contains("outside the repository"),
            "{}",
            findings[0].message
        );
        assert_eq!(
            findings[1].message,
            "tests/run.sh:9 runs it directly, and the script does not start with a `#!` line \
             naming its interpreter (like `#!/usr/bin/env bash`)"
        );
    }

    #[test]
    fn spawn_calls_name_a_program_only_as_their_first_string() {
        assert_eq!(
            spawned_program("subprocess.run([\"./scripts/x.sh\", \"-v\"])"),
            Some("./scripts/x.sh".to_owned())
        );
        assert_eq!(
            spawned_program("execSync('scripts/y.sh --all', {stdio: 'inherit'})"),
            Some("scripts/y.sh".to_owned())
        );
        assert_eq!(
            spawned_program("subprocess.run([sys.executable, \"scripts/x.py\"])"),
            None
        );
        assert_eq!(spawned_program("respawn(\"./x.sh\")"), None);
        assert_eq!(
            spawned_program("subprocess.run([\"git\", \"status\"])"),
            None
        );
    }
}
