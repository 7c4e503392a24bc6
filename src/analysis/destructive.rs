//! Destructive commands: `rm -r` of the whole system or the user's home: `/`, `/*`, a top-level
//! system directory, `~`, `$HOME`, or `"$DIR/"` whose variable nothing checks (empty, it is
//! `/`). One line of a skill can wipe the machine its agent runs on; a human reads it first.
//! `rm -rf "$HOME/.cache/x"` and `rm -rf "$tmp"` are ordinary clean-ups and are not flagged.

use super::shell::{Cmd, Script, Shape};

/// Top-level directories whose removal breaks the system.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib64",
    "opt",
    "proc",
    "root",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "Users",
    "System",
    "Library",
    "Applications",
];

/// `(line, what)` for each destructive command of a script.
pub fn in_shell(script: &Script) -> Vec<(u32, String)> {
    script
        .commands
        .iter()
        .filter_map(|cmd| removes_everything(cmd, script).map(|what| (cmd.line, what)))
        .collect()
}

/// `rm -rf ~ (the home directory)` when `cmd` recursively removes the system or a home.
fn removes_everything(cmd: &Cmd, script: &Script) -> Option<String> {
    if cmd.program() != Some("rm") {
        return None;
    }
    let mut recursive = false;
    let mut force = false;
    let mut no_preserve = false;
    let mut operands = Vec::new();
    let mut options_done = false;
    for arg in &cmd.args {
        let t = arg.text();
        if options_done || !t.starts_with('-') || t == "-" {
            operands.push(arg);
        } else if t == "--" {
            options_done = true;
        } else if let Some(long) = t.strip_prefix("--") {
            match long {
                "recursive" => recursive = true,
                "force" => force = true,
                "no-preserve-root" => no_preserve = true,
                _ => {}
            }
        } else {
            recursive |= t.contains(['r', 'R']);
            force |= t.contains('f');
        }
    }
    if !recursive {
        return None;
    }
    let flags = if force { "rm -rf" } else { "rm -r" };
    for operand in operands {
        let template = operand.template.as_str();
        let target = template
            .strip_suffix("/*")
            .or_else(|| template.strip_suffix("/.*"))
            .or_else(|| template.strip_suffix('/'))
            .unwrap_or(template);
        // A quoted `"~"` is a directory named `~`; `"$HOME"` is the home all the same.
        let home = target == "${HOME}" || (target == "~" && !operand.raw.starts_with(['"', '\'']));
        if home {
            return Some(format!("{flags} {} (the home directory)", operand.raw));
        }
        if target.is_empty() && template.starts_with('/') {
            return Some(format!("{flags} {} (the whole file system)", operand.raw));
        }
        if let Some(dir) = target.strip_prefix('/')
            && SYSTEM_DIRS.contains(&dir)
        {
            return Some(format!("{flags} {} (a system directory)", operand.raw));
        }
        // `"$DIR/"`, `"$DIR"/*`: empty or unset, DIR leaves `/`.
        if let Shape::Path = operand.shape
            && template != target
            && let Some(name) = target.strip_prefix("${").and_then(|t| t.strip_suffix('}'))
            && !name.ends_with(":?")
            && unchecked(name, script)
        {
            return Some(format!(
                "{flags} {} (an empty ${name} removes /)",
                operand.raw
            ));
        }
    }
    no_preserve.then(|| format!("{flags} --no-preserve-root"))
}

/// Whether nothing makes sure `name` holds a path: no test of it, no `${name:?}`, no fixed
/// value or `$(mktemp …)` assigned to it.
fn unchecked(name: &str, script: &Script) -> bool {
    let fixed = script.assigned.get(name).is_some_and(Option::is_some);
    !(fixed
        || script.checked.iter().any(|c| c == name)
        || script.substituted.iter().any(|s| s == name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::shell;
    use crate::analysis::syntax::{Grammar, Unit};

    fn found(text: &str) -> Vec<(u32, String)> {
        let unit = Unit {
            grammar: Grammar::Bash,
            text,
            first_line: 1,
        };
        in_shell(&shell::read(&mut tree_sitter::Parser::new(), &unit))
    }

    #[test]
    fn every_spelling_of_rm_rf_of_root_or_home() {
        let text = "rm -rf \"$HOME\"\nrm -fr /\nrm -r -f ~\nrm --recursive --force ${HOME}/*\nsudo rm -Rf /*\nrm -rf ~/\nrm -rf \"$TARGET/\"\nrm -rf /usr\nrm -rf --no-preserve-root /\n";
        let expected = [
            "rm -rf \"$HOME\" (the home directory)",
            "rm -rf / (the whole file system)",
            "rm -rf ~ (the home directory)",
            "rm -rf ${HOME}/* (the home directory)",
            "rm -rf /* (the whole file system)",
            "rm -rf ~/ (the home directory)",
            "rm -rf \"$TARGET/\" (an empty $TARGET removes /)",
            "rm -rf /usr (a system directory)",
            "rm -rf / (the whole file system)",
        ];
        let expected: Vec<(u32, String)> = (1..)
            .zip(expected.iter().map(|w| (*w).to_owned()))
            .collect();
        assert_eq!(found(text), expected);
    }

    #[test]
    fn ordinary_clean_ups_are_not_flagged() {
        let text = "rm -rf \"$HOME/.cache/tool\"\nrm -rf \"$tmp\"\nrm -f /tmp/x\nrm -rf build/ dist\nrm ~/\ntmp=$(mktemp -d)\nrm -rf \"$tmp/\"\n: \"${OUT:?}\"\nrm -rf \"$OUT\"/*\nrm -rf \"${WORK:?}/\"\nrm -rf /tmp/x\n";
        assert_eq!(found(text), vec![]);
    }
}
