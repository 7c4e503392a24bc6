//! Destructive commands: `rm -r` of the whole system or the user's home: `/`, `/*`, a top-level
//! system directory, `~`, `$HOME` (`${HOME:?}` and `${HOME:-x}` too), or `"$DIR"/*` whose
//! variable may be empty (then it is `/*`). Repeated `/` are one, and trailing globs and
//! braces of globs (`/*/`, `/[a-z]*`, `"$HOME"/{*,.[!.]*}`) remove what they are under.
//! `find <same> -delete` and Python's `shutil.rmtree` of the home or `/` count too. One line
//! of a skill can wipe the machine its agent runs on; a human reads it first.
//! `rm -rf "$HOME/.cache/x"`, `rm -rf "$tmp"`, `rm -rf "$OUT"/` (rm refuses `/`), and
//! `rm -rf "$BUILD"/*` where BUILD holds fixed text (`"$ROOT/build"`, `"${1:-./out}"`, a
//! `for` over fixed words) are ordinary clean-ups and are not flagged.

use super::shell::{Cmd, Script, Shape, Word};

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

/// `find / -delete`, `find "$HOME" -mindepth 1 -delete`: every file under the start.
fn find_deletes(cmd: &Cmd) -> Option<String> {
    if !cmd.args.iter().any(|a| a.text() == "-delete") {
        return None;
    }
    let start = cmd
        .args
        .iter()
        .take_while(|a| !a.text().starts_with(['-', '(', '!']))
        .find_map(|a| what_it_is(a))?;
    let shown: Vec<&str> = cmd.args.iter().map(|a| a.raw.as_str()).collect();
    Some(format!("find {} ({start})", shown.join(" ")))
}

/// Whether an operand is the home, the root or a system directory, and which.
fn what_it_is(operand: &Word) -> Option<&'static str> {
    let (target, _) = target_of(&operand.template);
    let bare = target
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .map(|t| t.trim_end_matches([':', '?', '-']));
    if bare == Some("HOME") || (target == "~" && !operand.raw.starts_with(['"', '\''])) {
        return Some("the home directory");
    }
    if target.is_empty() && operand.template.starts_with('/') {
        return Some("the whole file system");
    }
    target
        .strip_prefix('/')
        .is_some_and(|dir| SYSTEM_DIRS.contains(&dir))
        .then_some("a system directory")
}

/// `shutil.rmtree(os.path.expanduser("~"))`, `shutil.rmtree(Path.home())`, `shutil.rmtree("/")`:
/// the text of the call when its first argument is the home or the root.
pub fn python_rmtree(function: &str, first_argument: &str) -> Option<&'static str> {
    if !function.ends_with("rmtree") {
        return None;
    }
    let arg: String = first_argument
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let home = matches!(
        arg.as_str(),
        "os.path.expanduser(\"~\")"
            | "os.path.expanduser('~')"
            | "Path.home()"
            | "pathlib.Path.home()"
            | "os.environ[\"HOME\"]"
            | "os.environ['HOME']"
            | "os.getenv(\"HOME\")"
            | "os.getenv('HOME')"
            | "os.environ.get(\"HOME\")"
            | "os.environ.get('HOME')"
    );
    if home {
        return Some("the home directory");
    }
    matches!(arg.as_str(), "\"/\"" | "'/'").then_some("the whole file system")
}

/// `rm -rf ~ (the home directory)` when `cmd` recursively removes the system or a home.
fn removes_everything(cmd: &Cmd, script: &Script) -> Option<String> {
    if cmd.program() == Some("find") {
        return find_deletes(cmd);
    }
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
        if let Some(what) = what_it_is(operand) {
            return Some(format!("{flags} {} ({what})", operand.raw));
        }
        let (target, globbed) = target_of(&operand.template);
        // `"$DIR"/*`: empty or unset, DIR leaves `/*`. (`"$DIR/"` leaves `/`, which rm refuses.)
        if globbed
            && let Shape::Path = operand.shape
            && let Some(name) = target.strip_prefix("${").and_then(|t| t.strip_suffix('}'))
            && !name.ends_with(":?")
            && !name.ends_with(":-")
            && unchecked(name, script)
        {
            return Some(format!(
                "{flags} {} (an empty ${name} removes /*)",
                operand.raw
            ));
        }
    }
    no_preserve.then(|| format!("{flags} --no-preserve-root"))
}

/// What an operand removes the whole of, and whether a glob was cut to find it: repeated `/`
/// collapsed, then trailing parts that are only globs or braces of globs (`*`, `.*`, `?*`,
/// `[a-z]*`, `{*,.[!.]*}`, `{.,}*`) and trailing `/` cut: `//*` → `` (the root), `~/*/` → `~`,
/// `"$HOME"/{*,.[!.]*}` → `${HOME}`, `/usr/*/` → `/usr`.
fn target_of(template: &str) -> (String, bool) {
    let mut collapsed = String::with_capacity(template.len());
    for c in template.chars() {
        if !(c == '/' && collapsed.ends_with('/')) {
            collapsed.push(c);
        }
    }
    let mut parts: Vec<&str> = collapsed.split('/').collect();
    let mut globbed = false;
    while parts.len() > 1 {
        let last = parts[parts.len() - 1];
        if last.is_empty() {
            parts.pop();
        } else if glob_only(last) {
            globbed = true;
            parts.pop();
        } else {
            break;
        }
    }
    (parts.join("/"), globbed)
}

/// A path part that matches whatever is there: globs, with brackets and braces of globs.
fn glob_only(part: &str) -> bool {
    let mut rest = String::with_capacity(part.len());
    let mut in_bracket = false;
    for c in part.chars() {
        match c {
            '[' if !in_bracket => {
                in_bracket = true;
                rest.push('?');
            }
            ']' if in_bracket => in_bracket = false,
            _ if in_bracket => {}
            _ => rest.push(c),
        }
    }
    !in_bracket
        && rest.contains(['*', '?'])
        && rest
            .chars()
            .all(|c| matches!(c, '*' | '?' | '.' | '{' | '}' | ',' | '!'))
}

/// Whether nothing makes sure `name` holds a path: no test of it, no `${name:?}`, no value
/// with fixed text assigned to it (`"$ROOT/build"`, `"${1:-./out}"`), no `for` over fixed
/// words setting it, no `$(mktemp …)`. `$PWD` is the shell's own, never empty.
fn unchecked(name: &str, script: &Script) -> bool {
    if name == "PWD" && !script.assigned.contains_key(name) {
        return false;
    }
    let fixed = script.assigned.get(name).is_some_and(Option::is_some)
        || script.non_empty.get(name).copied().unwrap_or(false);
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
        let text = "rm -rf \"$HOME\"\nrm -fr /\nrm -r -f ~\nrm --recursive --force ${HOME}/*\nsudo rm -Rf /*\nrm -rf ~/\nrm -rf \"$TARGET\"/*\nrm -rf /usr\nrm -rf --no-preserve-root /\n";
        let expected = [
            "rm -rf \"$HOME\" (the home directory)",
            "rm -rf / (the whole file system)",
            "rm -rf ~ (the home directory)",
            "rm -rf ${HOME}/* (the home directory)",
            "rm -rf /* (the whole file system)",
            "rm -rf ~/ (the home directory)",
            "rm -rf \"$TARGET\"/* (an empty $TARGET removes /*)",
            "rm -rf /usr (a system directory)",
            "rm -rf / (the whole file system)",
        ];
        let expected: Vec<(u32, String)> = (1..)
            .zip(expected.iter().map(|w| (*w).to_owned()))
            .collect();
        assert_eq!(found(text), expected);
    }

    #[test]
    fn globs_braces_repeated_slashes_and_operators_do_not_hide_the_target() {
        let operands = [
            ("\"${HOME:?}\"/*", "the home directory"),
            ("//*", "the whole file system"),
            ("/*/", "the whole file system"),
            ("/?*", "the whole file system"),
            ("/[a-z]*", "the whole file system"),
            ("~/*/", "the home directory"),
            ("\"$HOME\"/*/", "the home directory"),
            ("\"$HOME\"/{*,.[!.]*}", "the home directory"),
            ("\"${HOME}/\"{.,}*", "the home directory"),
            ("\"${HOME:-/tmp}\"", "the home directory"),
            ("/usr/*/", "a system directory"),
        ];
        let text: String = operands
            .iter()
            .map(|(o, _)| format!("rm -rf {o}\n"))
            .collect();
        let expected: Vec<(u32, String)> = (1..)
            .zip(
                operands
                    .iter()
                    .map(|(o, why)| format!("rm -rf {o} ({why})")),
            )
            .collect();
        assert_eq!(found(&text), expected);
    }

    #[test]
    fn ordinary_clean_ups_are_not_flagged() {
        let text = "rm -rf \"$HOME/.cache/tool\"\nrm -rf \"$tmp\"\nrm -f /tmp/x\nrm -rf build/ dist\nrm ~/\ntmp=$(mktemp -d)\nrm -rf \"$tmp/\"\n: \"${OUT:?}\"\nrm -rf \"$OUT\"/*\nrm -rf \"${WORK:?}/\"\nrm -rf /tmp/x\nrm -rf /usr/local/lib/x/*\nrm -rf \"$HOME\"/.cache/{a,b}\n";
        assert_eq!(found(text), vec![]);
    }

    #[test]
    fn variables_that_hold_a_path_are_checked() {
        let text = "OUTPUT_DIR=\"${1:-./output}\"\nrm -rf \"$OUTPUT_DIR\"/*\nBUILD=\"$ROOT/build\"\nrm -rf \"$BUILD\"/ \"$BUILD\"/*\nfor d in build dist .cache; do rm -rf \"$d\"/ \"$d\"/*; done\nVENV_DIR=\"${VENV_DIR:-$HOME/.venvs/pdf}\"\nrm -rf \"$VENV_DIR\"/ \"$VENV_DIR\"/*\nrm -rf \"${OUT:-out}\"/ \"${OUT:-out}\"/*\nrm -rf \"$X/\"\n";
        assert_eq!(found(text), vec![]);
        // A variable that may be empty still is.
        let text = "D=\"$1\"\nrm -rf \"$D\"/*\nfor d in \"$@\"; do rm -rf \"$d\"/*; done\n";
        assert_eq!(
            found(text),
            vec![
                (2, "rm -rf \"$D\"/* (an empty $D removes /*)".to_owned()),
                (3, "rm -rf \"$d\"/* (an empty $d removes /*)".to_owned()),
            ]
        );
    }
}
