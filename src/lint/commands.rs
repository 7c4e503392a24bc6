//! What `SKILL.md` tells the agent to run, and which of the skill's files those commands run or
//! read: the references that must exist, and the scripts that must be executable.
//!
//! A path names the skill's own file when it stands under the skill's directory variable
//! (`${CLAUDE_SKILL_DIR}/`, `$SKILL_DIR/`, `$SKILL_ROOT/`, `{baseDir}/`) or its installed place
//! (`~/.claude/skills/<name>/`, any `…/skills/<name>/`): then whatever command runs it, it is the
//! skill's. A relative path (`scripts/run.py`) is the skill's only when an interpreter runs it
//! (`python3 scripts/run.py`, `bash scripts/x.sh`), a reader reads it (`cat`, `source`, `.`),
//! or it is the command itself (`./scripts/x.sh`); as the argument of another tool (`uv run`,
//! `npx`, `npm run`, `make`, `poetry run`, `cargo run`, `git`, …) it is a file of the user's
//! project, which the agent stands in.

use crate::analysis::Source;
use crate::analysis::shell::{self, Cmd, Input, Word};
use crate::analysis::syntax::{self, Grammar};

/// How a command uses a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum How {
    /// The command is the file: `./scripts/x.sh`, `${CLAUDE_SKILL_DIR}/scripts/x.py`. It
    /// needs a `#!` line and the executable bit.
    Executes,
    /// An interpreter runs it: `python3 scripts/x.py`, `bash scripts/x.sh`.
    Runs,
    /// A command reads it: `cat references/api.md`, `source scripts/env.sh`, `< assets/x`.
    Reads,
}

/// Where a path points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Under the skill's directory variable or installed place: the rest, relative to the skill.
    Skill(String),
    /// Relative as written (no `./`): the skill's or the user's, depending on the command.
    Relative(String),
}

impl Target {
    pub fn path(&self) -> &str {
        match self {
            Self::Skill(p) | Self::Relative(p) => p,
        }
    }
}

/// A file a command in `SKILL.md` runs or reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    /// As written, for messages.
    pub written: String,
    pub target: Target,
    pub how: How,
    /// 1-based, in `SKILL.md`.
    pub line: usize,
    /// Byte offset of the word in `SKILL.md`, when known.
    pub offset: Option<usize>,
}

/// Variables skills use for their own directory.
const SKILL_DIR_PREFIXES: &[&str] = &[
    "${CLAUDE_SKILL_DIR}/",
    "$CLAUDE_SKILL_DIR/",
    "${SKILL_DIR}/",
    "$SKILL_DIR/",
    "${SKILL_ROOT}/",
    "$SKILL_ROOT/",
    "{baseDir}/",
    "${baseDir}/",
    "$baseDir/",
];

/// Programs that run the file they are given: the shells, Python, JavaScript runtimes, Ruby,
/// Perl, PHP, R, Lua.
pub fn is_interpreter(program: &str) -> bool {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        stem,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "ash"
            | "mksh"
            | "fish"
            | "python"
            | "pypy"
            | "node"
            | "nodejs"
            | "deno"
            | "bun"
            | "tsx"
            | "ts-node"
            | "ruby"
            | "perl"
            | "php"
            | "Rscript"
            | "lua"
            | "osascript"
    )
}

/// Programs that read every file they are given.
pub fn is_reader(program: &str) -> bool {
    matches!(
        program,
        "cat" | "source" | "." | "head" | "tail" | "less" | "more" | "bat"
    )
}

/// Where the path `word` (quotes removed, expansions written `${X}` or `$X`) points, for a
/// skill whose directory is named `name`; `None` when it is not a path we can follow (a URL, an
/// absolute path, another variable, a glob or a placeholder).
pub fn target(word: &str, name: &str) -> Option<Target> {
    let word = word.trim_matches(['"', '\'']);
    if let Some(rest) = SKILL_DIR_PREFIXES.iter().find_map(|p| word.strip_prefix(p)) {
        return plain(rest).map(|rest| Target::Skill(rest.to_owned()));
    }
    // `~/.claude/skills/pdf/scripts/x.py`, `.agents/skills/pdf/…`: the skill installed.
    let marker = format!("skills/{name}/");
    if !name.is_empty()
        && let Some(at) = word.find(&marker)
        && (at == 0 || word[..at].ends_with('/'))
    {
        return plain(&word[at + marker.len()..]).map(|rest| Target::Skill(rest.to_owned()));
    }
    let rest = word.strip_prefix("./").unwrap_or(word);
    if rest.starts_with(['/', '~', '-']) || rest.contains("://") {
        return None;
    }
    plain(rest).map(|rest| Target::Relative(rest.to_owned()))
}

/// A path with nothing left to expand, or `None`.
fn plain(path: &str) -> Option<&str> {
    let path = path.trim_start_matches("./");
    let placeholder = path.contains([
        '$', '*', '?', '[', ']', '{', '}', '<', '>', '|', '&', '\\', '…', '%', '`', '(', ')', '=',
    ]) || path.contains("...");
    (!path.is_empty() && !placeholder).then_some(path)
}

/// The text a shell word stands for, expansions written `${X}`.
fn word_text(word: &Word) -> &str {
    match &word.value {
        Some(value) => value,
        None => &word.template,
    }
}

/// The word an interpreter is given as its script: its first operand, unless `-c`/`-m`/`-e`
/// says the code is inline. `deno run x.ts`, `bun run x.ts`: the operand after `run`.
fn script_operand<'w>(program: &str, args: &'w [Word]) -> Option<&'w Word> {
    let mut operands = args.iter().filter(|a| {
        let t = a.text();
        !t.starts_with('-')
    });
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let shell = matches!(
        stem,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "fish"
    );
    for arg in args {
        let t = arg.text();
        if !t.starts_with('-') {
            break;
        }
        // The code is inline: `bash -c`, `bash -lc`, `python3 -c`/`-m`, `node -e`/`-p`.
        let inline = if shell {
            !t.starts_with("--") && t.contains('c') || t == "--command"
        } else {
            matches!(
                t,
                "-c" | "-m" | "-e" | "-E" | "-p" | "--eval" | "--print" | "--command"
            )
        };
        if inline {
            return None;
        }
    }
    let first = operands.next()?;
    if matches!(program, "deno" | "bun") && first.text() == "run" {
        return operands.next();
    }
    Some(first)
}

/// The files one command runs or reads, with how, as words of its unit.
pub fn uses_of<'c>(cmd: &'c Cmd, name: &str) -> Vec<(How, &'c Word, Target)> {
    let mut found = Vec::new();
    let mut push = |how, word: &'c Word, skill_only: bool| {
        if let Some(t) = target(word_text(word), name)
            && (!skill_only || matches!(t, Target::Skill(_)))
        {
            found.push((how, word, t));
        }
    };
    let program = cmd.program().unwrap_or_default();
    let named = word_text(&cmd.name);
    if named.contains('/') && target(named, name).is_some() {
        push(How::Executes, &cmd.name, false);
    } else if is_interpreter(program) {
        if let Some(word) = script_operand(program, &cmd.args) {
            push(How::Runs, word, false);
        }
    } else if is_reader(program) {
        let operands = cmd.args.iter().filter(|a| !a.text().starts_with('-'));
        // `source x args…` passes the rest to the file.
        let operands: Vec<&Word> = if matches!(program, "source" | ".") {
            operands.take(1).collect()
        } else {
            operands.collect()
        };
        for word in operands {
            push(How::Reads, word, false);
        }
    } else {
        // Another tool (`uv run`, `npx`, `cp`): only what is plainly the skill's counts, and
        // only a file (with an extension), not a directory it may create.
        for word in &cmd.args {
            let has_extension = target(word_text(word), name).is_some_and(|t| {
                let last = t.path().rsplit('/').next().unwrap_or_default();
                last.rsplit_once('.')
                    .is_some_and(|(stem, _)| !stem.is_empty())
            });
            if has_extension {
                push(How::Reads, word, true);
            }
        }
    }
    if let Some(Input::File(word)) = &cmd.input {
        push(How::Reads, word, false);
    }
    found
}

/// The commands of `SKILL.md`'s shell fences (`text` is the whole file), with the byte offset
/// of their unit in `text`.
pub fn fence_commands(text: &str) -> Vec<(usize, Cmd)> {
    let source = Source::new("SKILL.md", text);
    let mut parser = tree_sitter::Parser::new();
    let mut found = Vec::new();
    for unit in syntax::units(&source) {
        if unit.grammar != Grammar::Bash {
            continue;
        }
        let base = offset_in(&source.text, unit.text);
        let script = shell::read(&mut parser, &unit);
        for cmd in script.commands {
            found.push((base.unwrap_or(usize::MAX), cmd));
        }
    }
    found
}

/// The files the commands of `SKILL.md`'s shell fences run or read, in order.
pub fn fence_uses(text: &str, name: &str) -> Vec<Use> {
    let mut found = Vec::new();
    for (base, cmd) in fence_commands(text) {
        for (how, word, target) in uses_of(&cmd, name) {
            found.push(Use {
                written: word.raw.trim_matches(['"', '\'']).to_owned(),
                target,
                how,
                line: cmd.line as usize,
                offset: (base != usize::MAX).then(|| base + word.start),
            });
        }
    }
    found.sort_by_key(|u| (u.line, u.offset));
    found
}

/// Where `part` (a slice of `whole`) starts in it.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

/// The paths `allowed-tools` lets the agent run directly: `Bash(scripts/x.sh:*)`,
/// `Bash(./scripts/x.sh *)`, `Bash(${CLAUDE_SKILL_DIR}/scripts/x.py)`.
pub fn allowed_tool_programs(tools: &[String], name: &str) -> Vec<(String, Target)> {
    let mut found = Vec::new();
    for tool in tools {
        let Some(inner) = tool
            .trim()
            .strip_prefix("Bash(")
            .and_then(|t| t.strip_suffix(')'))
        else {
            continue;
        };
        let command = inner.split(':').next().unwrap_or(inner);
        let Some(program) = command.split_whitespace().next() else {
            continue;
        };
        if !program.contains('/') {
            continue;
        }
        if let Some(t) = target(program, name) {
            found.push((program.to_owned(), t));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(fence: &str) -> Vec<(How, Target, usize)> {
        let text = format!("---\nname: pdf\n---\n```bash\n{fence}```\n");
        fence_uses(&text, "pdf")
            .into_iter()
            .map(|u| (u.how, u.target, u.line))
            .collect()
    }

    fn rel(p: &str) -> Target {
        Target::Relative(p.to_owned())
    }

    fn skill(p: &str) -> Target {
        Target::Skill(p.to_owned())
    }

    #[test]
    fn interpreters_readers_and_direct_runs_name_files() {
        assert_eq!(
            uses(
                "python3 scripts/run.py --json in.csv\nbash -e scripts/x.sh\ncat references/api.md references/b.md\nsource scripts/env.sh arg\n./scripts/deploy.sh prod\nsudo scripts/root.sh\nnode < assets/x.js\npython3 -m scripts.tool\nbash -c 'echo hi'\ndeno run scripts/a.ts\n"
            ),
            vec![
                (How::Runs, rel("scripts/run.py"), 5),
                (How::Runs, rel("scripts/x.sh"), 6),
                (How::Reads, rel("references/api.md"), 7),
                (How::Reads, rel("references/b.md"), 7),
                (How::Reads, rel("scripts/env.sh"), 8),
                (How::Executes, rel("scripts/deploy.sh"), 9),
                (How::Executes, rel("scripts/root.sh"), 10),
                (How::Reads, rel("assets/x.js"), 11),
                (How::Runs, rel("scripts/a.ts"), 14),
            ]
        );
    }

    #[test]
    fn the_skill_directory_variables_name_the_skills_files_whatever_runs_them() {
        assert_eq!(
            uses(
                "python3 \"${CLAUDE_SKILL_DIR}/scripts/a.py\"\n$SKILL_DIR/scripts/b.sh\nuv run {baseDir}/scripts/c.py\nuv run scripts/user.py\nnpx tsx scripts/user.ts\ncp ~/.claude/skills/pdf/assets/t.html out/\nmkdir -p \"$SKILL_DIR/out\"\nmake -C scripts/build.mk\npython3 \"$CLAUDE_PLUGIN_ROOT/scripts/p.py\"\n"
            ),
            vec![
                (How::Runs, skill("scripts/a.py"), 5),
                (How::Executes, skill("scripts/b.sh"), 6),
                (How::Reads, skill("scripts/c.py"), 7),
                (How::Reads, skill("assets/t.html"), 10),
            ]
        );
    }

    #[test]
    fn targets() {
        assert_eq!(target("./scripts/x.sh", "pdf"), Some(rel("scripts/x.sh")));
        assert_eq!(
            target("$HOME/.claude/skills/pdf/scripts/x.sh", "pdf"),
            Some(skill("scripts/x.sh"))
        );
        assert_eq!(target("~/.claude/skills/other/scripts/x.sh", "pdf"), None);
        assert_eq!(target("/usr/bin/x", "pdf"), None);
        assert_eq!(target("https://x.io/a.sh", "pdf"), None);
        assert_eq!(target("scripts/*.sh", "pdf"), None);
        assert_eq!(target("$OUT/x.sh", "pdf"), None);
    }

    #[test]
    fn allowed_tools_that_run_a_path() {
        let tools = [
            "Bash(scripts/x.sh:*)",
            "Bash(./scripts/y.py *)",
            "Bash(git status:*)",
            "Read",
            "Bash(${CLAUDE_SKILL_DIR}/scripts/z.sh)",
        ]
        .map(str::to_owned);
        assert_eq!(
            allowed_tool_programs(&tools, "pdf"),
            vec![
                ("scripts/x.sh".to_owned(), rel("scripts/x.sh")),
                ("./scripts/y.py".to_owned(), rel("scripts/y.py")),
                (
                    "${CLAUDE_SKILL_DIR}/scripts/z.sh".to_owned(),
                    skill("scripts/z.sh")
                ),
            ]
        );
    }
}
