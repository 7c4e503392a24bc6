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
//! project, which the agent stands in. An interpreter's options are not its script: the value
//! of `python3 -W ignore`, `-X utf8`, `node -r x`, `--import x`, `bash -o pipefail` is skipped.
//!
//! Within one block, `cd` is followed: after `cd "${CLAUDE_SKILL_DIR}/scripts"` (or `cd
//! $SKILL_DIR`, `cd {baseDir}`), `python3 build.py` and `./generate.sh` run the skill's
//! `scripts/build.py` and `scripts/generate.sh`; after a `cd` anywhere else, a relative path is
//! not the skill's.
//!
//! Shell blocks are read as shell, whole. Blocks in no language (an unlabelled or `text`
//! fence, an indented block) are read a line at a time, and only a line whose first word is an
//! interpreter, a reader or `cd` counts, for a path under the skill's directory variable or in
//! `scripts/`, `references/`, `assets/`: `python3 scripts/build.py --input data.csv` there is a
//! command the agent runs as surely as in a `bash` fence, and sample output never starts so.
//!
//! Files the commands write (`> out.md`, `>> log`, `tee`, `touch`, `mkdir`, the destination of
//! `cp`/`mv`/`ln`/`install`, `-o`/`--output`/`--out` values) are not files the skill ships: a
//! later command that reads one does not need it in the skill.

use std::collections::BTreeSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::analysis::Source;
use crate::analysis::shell::{self, Cmd, Input, Script, Word};
use crate::analysis::syntax::{self, Grammar, Unit};

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
    /// The directory an earlier `cd` of the block went to, as written, when the path is read
    /// from there (`${CLAUDE_SKILL_DIR}/scripts`).
    pub cwd: Option<String>,
}

/// The files and directories the commands of `SKILL.md` write, relative to the skill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Made {
    files: BTreeSet<String>,
    /// Everything under one of these is written too.
    dirs: BTreeSet<String>,
}

impl Made {
    /// Whether `path` (relative to the skill) is written by a command, or under a directory
    /// one creates.
    pub fn contains(&self, path: &str) -> bool {
        let Some(path) = normalize(path) else {
            return false;
        };
        if self.files.contains(&path) {
            return true;
        }
        // The path itself, then each directory above it.
        let mut at = Some(path.as_str());
        while let Some(dir) = at {
            if self.dirs.contains(dir) {
                return true;
            }
            at = dir.rsplit_once('/').map(|(up, _)| up);
        }
        false
    }

    fn add_file(&mut self, path: &str) {
        if let Some(path) = normalize(path).filter(|p| !p.is_empty()) {
            self.files.insert(path);
        }
    }

    /// A directory a command creates. The skill itself and the spec's directories hold files
    /// the skill ships besides what is written there: `mkdir -p references` makes nothing under
    /// `references/` optional.
    fn add_dir(&mut self, path: &str) {
        if let Some(path) = normalize(path)
            && !path.is_empty()
            && !SPEC_DIRS.iter().any(|d| d.trim_end_matches('/') == path)
        {
            self.dirs.insert(path);
        }
    }
}

/// What the commands of `SKILL.md` do with files: those they run or read, in order, and those
/// they write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    /// Run or read, and not written by an earlier command.
    pub uses: Vec<Use>,
    pub made: Made,
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

/// The spec's directories: in a block in no language, only a relative path in one of them (or
/// under the skill's directory variable) is read as the skill's.
const SPEC_DIRS: &[&str] = &["scripts/", "references/", "assets/"];

/// Fence info strings that name no language: the block is read a line at a time.
const PLAIN_INFO: &[&str] = &[
    "",
    "text",
    "txt",
    "plain",
    "plaintext",
    "none",
    "nohighlight",
];

/// Programs that run the file they are given: those the analysis reads the file of
/// (`analysis::runs::runs_as`: the shells, Python, JavaScript runtimes), and fish, Ruby, Perl,
/// PHP, R, Lua, osascript. `source` and `.` read rather than run ([`is_reader`]).
pub fn is_interpreter(program: &str) -> bool {
    if matches!(program, "." | "source") {
        return false;
    }
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    crate::analysis::runs::runs_as(program).is_some()
        || matches!(
            stem,
            "fish" | "ruby" | "perl" | "php" | "Rscript" | "lua" | "osascript"
        )
}

/// Programs that read every file they are given.
pub fn is_reader(program: &str) -> bool {
    matches!(
        program,
        "cat" | "source" | "." | "head" | "tail" | "less" | "more" | "bat"
    )
}

/// Whether the option `option` of the reader `program` takes the next word as its value:
/// `head -n 5`, `tail -c 100`, `bat -l md`.
fn reader_takes_value(program: &str, option: &str) -> bool {
    match program {
        "head" | "tail" => matches!(option, "-n" | "-c" | "--lines" | "--bytes"),
        "bat" => matches!(
            option,
            "-l" | "--language" | "-r" | "--line-range" | "-H" | "--highlight-line" | "--style"
        ),
        _ => false,
    }
}

/// Programs that change the directory the next commands run in.
fn is_cd(program: &str) -> bool {
    matches!(program, "cd" | "pushd" | "popd")
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

/// A directory as `cd` is given it, when it is the skill's own or one in it:
/// `"${CLAUDE_SKILL_DIR}"`, `$SKILL_DIR/scripts`, `{baseDir}`, `~/.claude/skills/<name>`.
fn skill_dir(word: &str, name: &str) -> Option<String> {
    let word = word.trim_matches(['"', '\'']).trim_end_matches('/');
    let with_slash = format!("{word}/");
    if let Some(rest) = SKILL_DIR_PREFIXES
        .iter()
        .find_map(|p| with_slash.strip_prefix(p))
    {
        return if rest.is_empty() {
            Some(String::new())
        } else {
            plain(rest).map(str::to_owned)
        };
    }
    let marker = format!("skills/{name}/");
    let at = with_slash.find(&marker)?;
    if name.is_empty() || !(at == 0 || with_slash[..at].ends_with('/')) {
        return None;
    }
    let rest = &with_slash[at + marker.len()..];
    if rest.is_empty() {
        Some(String::new())
    } else {
        plain(rest).map(str::to_owned)
    }
}

/// A path with nothing left to expand, or `None`.
fn plain(path: &str) -> Option<&str> {
    let path = path.trim_start_matches("./");
    let placeholder = path.contains([
        '$', '*', '?', '[', ']', '{', '}', '<', '>', '|', '&', '\\', '…', '%', '`', '(', ')', '=',
    ]) || path.contains("...");
    (!path.is_empty() && !placeholder).then_some(path)
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs out. `""` is where it started.
fn normalize(path: &str) -> Option<String> {
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
    Some(parts.join("/"))
}

/// The text a shell word stands for, expansions written `${X}`.
fn word_text(word: &Word) -> &str {
    match &word.value {
        Some(value) => value,
        None => &word.template,
    }
}

/// An interpreter's options, as its command line reads them.
struct Flags {
    /// Short options that take the next word (or the rest of their cluster) as their value.
    value: &'static str,
    /// Long options that take the next word as their value (unless written `--x=value`).
    value_long: &'static [&'static str],
    /// Short options that say the code is inline or on standard input: there is no script.
    inline: &'static str,
    inline_long: &'static [&'static str],
}

/// The options of the interpreter `stem` (its name without a version).
fn flags(stem: &str) -> Flags {
    const NONE: &[&str] = &[];
    match stem {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "fish" => Flags {
            value: "oO",
            value_long: &["--rcfile", "--init-file"],
            inline: "cs",
            inline_long: &["--command"],
        },
        "python" | "pypy" => Flags {
            value: "WXQ",
            value_long: &["--check-hash-based-pycs"],
            inline: "cm",
            inline_long: NONE,
        },
        "node" | "nodejs" | "tsx" | "ts-node" => Flags {
            value: "rC",
            value_long: &[
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--conditions",
                "--input-type",
                "--env-file",
                "--title",
                "--tsconfig",
                "--project",
                "--compiler",
            ],
            inline: "ep",
            inline_long: &["--eval", "--print"],
        },
        "deno" => Flags {
            value: "cL",
            value_long: &[
                "--config",
                "--import-map",
                "--lock",
                "--cert",
                "--log-level",
                "--location",
                "--seed",
                "--v8-flags",
            ],
            inline: "",
            inline_long: NONE,
        },
        "bun" => Flags {
            value: "r",
            value_long: &["--preload", "--config", "--env-file", "--tsconfig-override"],
            inline: "ep",
            inline_long: &["--eval", "--print"],
        },
        "ruby" => Flags {
            value: "IrCE",
            value_long: NONE,
            inline: "e",
            inline_long: NONE,
        },
        "php" => Flags {
            value: "cdz",
            value_long: NONE,
            inline: "rBRE",
            inline_long: NONE,
        },
        "lua" | "osascript" => Flags {
            value: "l",
            value_long: NONE,
            inline: "e",
            inline_long: NONE,
        },
        _ => Flags {
            value: "",
            value_long: NONE,
            inline: "eE",
            inline_long: &["--eval", "--print", "--command"],
        },
    }
}

/// The index in `args` of the word an interpreter is given as its script: its first operand
/// past its options and their values (`python3 -W ignore x.py`, `bash -o pipefail x.sh`,
/// `node --require y x.js`); `None` when an option says the code is inline or read from
/// standard input (`bash -c`, `bash -lc`, `bash -s`, `python3 -c`/`-m`, `node -e`, `-`).
/// `deno run x.ts`, `bun run x.ts`: the operand after `run`.
fn script_operand(program: &str, args: &[Word]) -> Option<usize> {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let flags = flags(stem);
    let shell = flags.value == "oO";
    let mut subcommand = matches!(stem, "deno" | "bun");
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text();
        if t == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        if t == "-" {
            return None;
        }
        if let Some(long) = t.strip_prefix("--") {
            let option = format!("--{}", long.split('=').next().unwrap_or(long));
            if flags.inline_long.contains(&option.as_str()) {
                return None;
            }
            let takes_next = !long.contains('=') && flags.value_long.contains(&option.as_str());
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        let cluster = t
            .strip_prefix('-')
            .or_else(|| t.strip_prefix('+').filter(|_| shell));
        if let Some(cluster) = cluster.filter(|c| !c.is_empty()) {
            let mut skip = 1;
            for (at, letter) in cluster.char_indices() {
                if flags.inline.contains(letter) {
                    return None;
                }
                if flags.value.contains(letter) {
                    // The rest of the cluster is the value, or else the next word is.
                    if at + letter.len_utf8() == cluster.len() {
                        skip = 2;
                    }
                    break;
                }
            }
            i += skip;
            continue;
        }
        if subcommand && t == "run" {
            subcommand = false;
            i += 1;
            continue;
        }
        return Some(i);
    }
    None
}

/// The files one command runs or reads, with how, as words of its unit, where they point as
/// written (before any `cd`).
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
        if let Some(at) = script_operand(program, &cmd.args) {
            push(How::Runs, &cmd.args[at], false);
        }
    } else if is_reader(program) {
        let mut operands: Vec<&Word> = Vec::new();
        let mut args = cmd.args.iter();
        while let Some(arg) = args.next() {
            let t = arg.text();
            if reader_takes_value(program, t) {
                args.next();
            } else if !t.starts_with('-') {
                operands.push(arg);
            }
        }
        // `source x args…` passes the rest to the file.
        if matches!(program, "source" | ".") {
            operands.truncate(1);
        }
        for word in operands {
            push(How::Reads, word, false);
        }
    } else if !is_cd(program) {
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

/// The files one command writes, as words of its unit, each with whether it is a directory
/// (whose contents are written too). `cp a b dir/` writes `dir/a` and `dir/b`, given as the
/// path to add to `dir/`.
fn made_by(cmd: &Cmd) -> Vec<(String, bool)> {
    let program = cmd.program().unwrap_or_default();
    let args = &cmd.args;
    let texts: Vec<&str> = args.iter().map(word_text).collect();
    // The options of these take a value that is not a file written.
    let takes_value = |option: &str| match program {
        "touch" => matches!(option, "-r" | "-t" | "-d"),
        "mkdir" => option == "-m",
        "install" => matches!(option, "-m" | "-o" | "-g"),
        _ => false,
    };
    let mut operands: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        if t.starts_with('-') && t.len() > 1 {
            i += if takes_value(t) { 2 } else { 1 };
        } else {
            operands.push(t);
            i += 1;
        }
    }
    let mut found: Vec<(String, bool)> = Vec::new();
    match program {
        "tee" | "touch" => found.extend(operands.iter().map(|o| ((*o).to_owned(), false))),
        "mkdir" => found.extend(operands.iter().map(|o| ((*o).to_owned(), true))),
        "install" if texts.contains(&"-d") => {
            found.extend(operands.iter().map(|o| ((*o).to_owned(), true)));
        }
        "cp" | "mv" | "ln" | "install" | "rsync" => {
            // The last operand, past at least one source.
            match operands.split_last() {
                Some((dest, sources)) if !sources.is_empty() && dest.ends_with('/') => {
                    for source in sources {
                        let base = source.trim_end_matches('/').rsplit('/').next();
                        if let Some(base) = base.filter(|b| !b.is_empty()) {
                            found.push((format!("{dest}{base}"), false));
                        }
                    }
                }
                Some((dest, sources)) if !sources.is_empty() => {
                    found.push(((*dest).to_owned(), false));
                }
                _ => {}
            }
        }
        _ => {}
    }
    // `-o out.md`, `--output out.md`, `--out=out.md`, `--output-dir out/`: for an interpreter,
    // only past its script (before it, `-o` is the interpreter's own option).
    let from = if is_interpreter(program) {
        match script_operand(program, args) {
            Some(at) => at + 1,
            None => args.len(),
        }
    } else {
        0
    };
    let output = |option: &str| -> Option<bool> {
        match option {
            "-o" | "--output" | "--out" | "--outfile" | "--output-file" | "--out-file" => {
                Some(false)
            }
            "-O" if program == "wget" => Some(false),
            "--output-dir" | "--outdir" | "--out-dir" | "--output-directory" => Some(true),
            _ => None,
        }
    };
    let mut i = from;
    while i < texts.len() {
        let t = texts[i];
        if let Some((option, value)) = t.split_once('=')
            && let Some(dir) = output(option)
        {
            found.push((value.to_owned(), dir));
        } else if let Some(dir) = output(t)
            && let Some(value) = texts.get(i + 1)
        {
            found.push(((*value).to_owned(), dir));
            i += 1;
        }
        i += 1;
    }
    found
}

/// The longest directory `cd` is followed into, in bytes.
const MAX_CWD_BYTES: usize = 1024;

/// Where the commands of a block stand.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// Where the agent started, or a relative directory from there (`cd scripts`): relative
    /// paths are read as the module's docs say.
    Start(String),
    /// In the skill (`cd "$SKILL_DIR/scripts"`): the directory in it, and the `cd` as written.
    Skill { dir: String, written: String },
    /// Somewhere else: relative paths are not the skill's.
    Elsewhere,
}

impl Cwd {
    /// Where `cd word` goes from here (`word` as [`word_text`] gives it).
    fn cd(&self, word: Option<&Word>, name: &str) -> Cwd {
        let Some(word) = word else {
            return Cwd::Elsewhere;
        };
        let text = word_text(word);
        if text == "-" {
            return Cwd::Start(String::new());
        }
        if let Some(dir) = skill_dir(text, name) {
            return match normalize(&dir) {
                Some(dir) => Cwd::Skill {
                    dir,
                    written: word.raw.replace(['"', '\''], ""),
                },
                None => Cwd::Elsewhere,
            };
        }
        match (target(text, name), self) {
            // Past a sane depth (`cd scripts` a thousand times), nothing is followed.
            _ if self.depth() > MAX_CWD_BYTES => Cwd::Elsewhere,
            (Some(Target::Relative(path)), Cwd::Start(from)) => {
                normalize(&join(from, &path)).map_or(Cwd::Elsewhere, Cwd::Start)
            }
            (Some(Target::Relative(path)), Cwd::Skill { dir, written }) => {
                match normalize(&join(dir, &path)) {
                    Some(dir) => Cwd::Skill {
                        dir,
                        written: format!("{written}/{}", word.raw.replace(['"', '\''], "")),
                    },
                    None => Cwd::Elsewhere,
                }
            }
            _ => Cwd::Elsewhere,
        }
    }

    /// Where `target` points from here; `None` when it is not the skill's to check.
    fn resolve(&self, target: Target) -> Option<Target> {
        match (target, self) {
            (Target::Skill(path), _) => Some(Target::Skill(path)),
            (Target::Relative(path), Cwd::Start(from)) if from.is_empty() => {
                Some(Target::Relative(path))
            }
            (Target::Relative(path), Cwd::Start(from)) => {
                normalize(&join(from, &path)).map(Target::Relative)
            }
            // Kept as joined: a path that climbs out of the skill is reported so.
            (Target::Relative(path), Cwd::Skill { dir, .. }) => {
                Some(Target::Skill(join(dir, &path)))
            }
            (Target::Relative(_), Cwd::Elsewhere) => None,
        }
    }

    /// How long the directory's path is.
    fn depth(&self) -> usize {
        match self {
            Cwd::Start(dir) => dir.len(),
            Cwd::Skill { dir, written } => dir.len().max(written.len()),
            Cwd::Elsewhere => 0,
        }
    }

    fn written(&self) -> Option<String> {
        match self {
            Cwd::Skill { written, .. } => Some(written.clone()),
            _ => None,
        }
    }
}

fn join(dir: &str, path: &str) -> String {
    if dir.is_empty() {
        path.to_owned()
    } else {
        format!("{dir}/{path}")
    }
}

/// A code block of `SKILL.md`.
#[derive(Debug)]
struct Block {
    range: Range<usize>,
    /// In no language: read a line at a time (see the module's docs).
    plain: bool,
    /// For a plain block, its lines as the block holds them (without a list's or a quote's
    /// indentation), each with its byte offset in `SKILL.md`.
    lines: Vec<(String, usize)>,
}

/// The code blocks of `text` (the whole `SKILL.md`, its frontmatter left out).
fn code_blocks(text: &str) -> Vec<Block> {
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES;
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<Block> = None;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let plain = match kind {
                    CodeBlockKind::Indented => true,
                    CodeBlockKind::Fenced(info) => {
                        let tag = info
                            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                            .next()
                            .unwrap_or_default()
                            .to_ascii_lowercase();
                        PLAIN_INFO.contains(&tag.as_str())
                    }
                };
                open = Some(Block {
                    range,
                    plain,
                    lines: Vec::new(),
                });
            }
            Event::Text(content) => {
                if let Some(block) = open.as_mut().filter(|b| b.plain) {
                    let mut from = range.start;
                    for line in content.lines() {
                        let at = text
                            .get(from..range.end)
                            .and_then(|span| span.find(line))
                            .map_or(from, |i| from + i);
                        from = (at + line.len()).min(range.end);
                        block.lines.push((line.to_owned(), at));
                    }
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(open.take()),
            _ => {}
        }
    }
    blocks
}

/// A piece of shell read on its own: a shell unit of a fence, or one line of a plain block.
struct Piece {
    /// The block it stands in (one of its own when none).
    block: usize,
    plain: bool,
    script: Script,
    /// `(start in the piece, destination as written)` of each `>`/`>>` redirect to a file.
    outputs: Vec<(usize, String)>,
    /// `(start in the piece, offset in SKILL.md)` of each stretch copied from it.
    map: Vec<(usize, usize)>,
}

impl Piece {
    /// The offset in `SKILL.md` of byte `at` of the piece.
    fn offset(&self, at: usize) -> Option<usize> {
        let i = self.map.partition_point(|(start, _)| *start <= at);
        let (start, offset) = self.map.get(i.checked_sub(1)?)?;
        Some(offset + (at - start))
    }
}

/// The destinations of the redirects of `text` (bash) that write a file: `> x`, `>> x`,
/// `2> x`, `&> x`, `>| x`; not `>&2`.
fn output_redirects(parser: &mut tree_sitter::Parser, text: &str) -> Vec<(usize, String)> {
    let Some(tree) = syntax::parse(parser, Grammar::Bash, text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for node in syntax::nodes(tree.root_node()) {
        if node.kind() != "file_redirect" {
            continue;
        }
        let Some(destination) = node.child_by_field_name("destination") else {
            continue;
        };
        let operator = syntax::text(node, text)
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        let writes = (operator.starts_with('>') || operator.starts_with("&>"))
            && !operator.starts_with(">&");
        if writes {
            let written = syntax::text(destination, text).replace(['"', '\''], "");
            found.push((node.start_byte(), written));
        }
    }
    found
}

/// The pieces of `text`'s blocks, in order: each shell unit, and each line of a plain block
/// that starts with an interpreter, a reader or `cd` (after a `$ ` prompt, assignments and
/// wrappers), lines continued with `\` joined.
fn pieces(text: &str, blocks: &[Block]) -> Vec<Piece> {
    let source = Source::new("SKILL.md", text);
    let mut parser = tree_sitter::Parser::new();
    let mut found: Vec<Piece> = Vec::new();
    let block_of = |at: usize| blocks.iter().position(|b| b.range.contains(&at));
    for (i, unit) in syntax::units(&source).into_iter().enumerate() {
        if unit.grammar != Grammar::Bash {
            continue;
        }
        let Some(base) = offset_in(&source.text, unit.text) else {
            continue;
        };
        let script = shell::read(&mut parser, &unit);
        let outputs = output_redirects(&mut parser, unit.text);
        found.push(Piece {
            block: block_of(base).unwrap_or(blocks.len() + i),
            plain: false,
            script,
            outputs,
            map: vec![(0, base)],
        });
    }
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |at: usize| starts.partition_point(|&start| start <= at);
    for (b, block) in blocks.iter().enumerate().filter(|(_, b)| b.plain) {
        let mut lines = block.lines.iter();
        while let Some((line, at)) = lines.next() {
            let (line, at) = strip_prompt(line, *at);
            if !starts_with_command(line) {
                continue;
            }
            let mut joined = line.to_owned();
            let mut map = vec![(0, at)];
            let mut last = line;
            while last.trim_end().ends_with('\\')
                && let Some((next, next_at)) = lines.next()
            {
                joined.push('\n');
                map.push((joined.len(), *next_at));
                joined.push_str(next);
                last = next;
            }
            let unit = Unit {
                grammar: Grammar::Bash,
                text: &joined,
                first_line: u32::try_from(line_of(at)).unwrap_or(u32::MAX),
            };
            let script = shell::read(&mut parser, &unit);
            let outputs = output_redirects(&mut parser, &joined);
            found.push(Piece {
                block: b,
                plain: true,
                script,
                outputs,
                map,
            });
        }
    }
    found.sort_by_key(|p| p.map.first().map_or(0, |(_, at)| *at));
    found
}

/// A line without its `$ ` prompt, and where it then starts.
fn strip_prompt(line: &str, at: usize) -> (&str, usize) {
    let trimmed = line.trim_start();
    let at = at + (line.len() - trimmed.len());
    match trimmed.strip_prefix("$ ") {
        Some(rest) => {
            let rest_trimmed = rest.trim_start();
            (rest_trimmed, at + (trimmed.len() - rest_trimmed.len()))
        }
        None => (trimmed, at),
    }
}

/// Whether a line of a plain block starts with an interpreter, a reader or `cd`, after
/// assignments and wrappers: cheap, so that sample output is never parsed.
fn starts_with_command(line: &str) -> bool {
    line.split_whitespace()
        .find(|w| !(is_assignment(w) || crate::analysis::line_commands::is_wrapper(w)))
        .is_some_and(|w| {
            let program = w.rsplit('/').next().unwrap_or(w);
            is_interpreter(program) || is_reader(program) || is_cd(program)
        })
}

/// `NAME=value`.
fn is_assignment(token: &str) -> bool {
    token.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// What the commands of `SKILL.md`'s blocks (`text` is the whole file) run, read and write,
/// for a skill whose directory is named `name`; see the module's docs.
pub fn read(text: &str, name: &str) -> Commands {
    let blocks = code_blocks(text);
    let mut uses = Vec::new();
    let mut made = Made::default();
    let mut block = None;
    let mut cwd = Cwd::Start(String::new());
    for piece in pieces(text, &blocks) {
        if block != Some(piece.block) {
            block = Some(piece.block);
            cwd = Cwd::Start(String::new());
        }
        let mut commands: Vec<&Cmd> = piece.script.commands.iter().collect();
        commands.sort_by_key(|c| c.start);
        // In a plain block, the line's first command decides whether it is one.
        if piece.plain
            && !commands.first().is_some_and(|c| {
                let program = c.program().unwrap_or_default();
                is_interpreter(program) || is_reader(program) || is_cd(program)
            })
        {
            continue;
        }
        // Commands and redirects in the order they stand: a redirect writes after its command.
        let mut outputs = piece.outputs.iter().peekable();
        for cmd in commands {
            while let Some((_, written)) = outputs.next_if(|(start, _)| *start < cmd.start) {
                record(&mut made, &cwd, written, false, name);
            }
            let program = cmd.program().unwrap_or_default();
            if is_cd(program) {
                cwd = match program {
                    "popd" => Cwd::Start(String::new()),
                    _ => cwd.cd(cmd.args.iter().find(|a| !a.text().starts_with('-')), name),
                };
                continue;
            }
            if piece.plain && !(is_interpreter(program) || is_reader(program)) {
                continue;
            }
            for (how, word, t) in uses_of(cmd, name) {
                let Some(t) = cwd.resolve(t) else {
                    continue;
                };
                let counts = !piece.plain
                    || (how != How::Executes
                        && match &t {
                            Target::Skill(_) => true,
                            Target::Relative(p) => SPEC_DIRS.iter().any(|d| p.starts_with(d)),
                        });
                if !counts || made.contains(t.path()) {
                    continue;
                }
                let offset = piece.offset(word.start);
                uses.push(Use {
                    written: word.raw.trim_matches(['"', '\'']).to_owned(),
                    cwd: matches!(t, Target::Skill(_))
                        .then(|| cwd.written())
                        .flatten()
                        .filter(|_| target(word_text(word), name) != Some(t.clone())),
                    target: t,
                    how,
                    line: cmd.line as usize,
                    offset,
                });
            }
            for (written, dir) in made_by(cmd) {
                record(&mut made, &cwd, &written, dir, name);
            }
        }
        for (_, written) in outputs {
            record(&mut made, &cwd, written, false, name);
        }
    }
    uses.sort_by_key(|u| (u.line, u.offset));
    Commands { uses, made }
}

/// Note that a command in `cwd` writes `written` (a directory when `dir`).
fn record(made: &mut Made, cwd: &Cwd, written: &str, dir: bool, name: &str) {
    let resolved = skill_dir(written, name)
        .map(Target::Skill)
        .or_else(|| target(written, name))
        .and_then(|t| cwd.resolve(t));
    if let Some(t) = resolved {
        if dir {
            made.add_dir(t.path());
        } else {
            made.add_file(t.path());
        }
    }
}

/// The files the commands of `SKILL.md`'s blocks run or read, in order (see [`read`]).
pub fn fence_uses(text: &str, name: &str) -> Vec<Use> {
    read(text, name).uses
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

    /// `(how, target, line, column)` of each use in `body` (after a 3-line frontmatter).
    fn uses_in(body: &str) -> Vec<(How, Target, usize, usize)> {
        let text = format!("---\nname: pdf\n---\n{body}");
        read(&text, "pdf")
            .uses
            .into_iter()
            .map(|u| {
                let offset = u.offset.expect("an offset");
                let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
                assert_eq!(u.line, text[..offset].matches('\n').count() + 1, "{u:?}");
                (u.how, u.target, u.line, offset - start + 1)
            })
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

    #[test]
    fn blocks_in_no_language_count_lines_an_interpreter_or_reader_starts() {
        let body = "```\npython3 scripts/a.py --input data.csv\n```\n\n\
                    ```text\n$ cat references/b.md\nusage: b.py [-h]\n```\n\n\
                    1. Run:\n\n        bash scripts/c.sh \\\n          --fast\n\n\
                    > ```\n> node scripts/d.js\n> ```\n\n\
                    ```\nSample output:\npython3 app.py\npython3 tools/x.py\n./scripts/e.sh\n\
                    uv run scripts/f.py\ncat: references/g.md: No such file\n\
                    echo hi && python3 scripts/h.py\nsudo python3 \"$SKILL_DIR/scripts/i.py\"\n```\n\n\
                    ```json\n{\"run\": \"python3 scripts/j.py\"}\n```\n";
        assert_eq!(
            uses_in(body),
            vec![
                (How::Runs, rel("scripts/a.py"), 5, 9),
                (How::Reads, rel("references/b.md"), 9, 7),
                (How::Runs, rel("scripts/c.sh"), 15, 14),
                (How::Runs, rel("scripts/d.js"), 19, 8),
                (How::Runs, skill("scripts/i.py"), 30, 14),
            ],
            "not the user's files (app.py, tools/), a direct run, another tool, an error \
             message, a line another command starts, nor a JSON block"
        );
    }

    #[test]
    fn the_values_of_interpreter_options_are_not_the_script() {
        assert_eq!(
            uses(
                "python3 -W ignore scripts/a.py --in x\npython3 -X utf8 scripts/b.py\n\
                 python3 -Wignore -u scripts/c.py\npython3 -uX dev scripts/d.py\n\
                 node --require ./scripts/setup.js scripts/e.js\n\
                 node -r x --import y --loader=z scripts/f.mjs\nbash -o pipefail scripts/g.sh\n\
                 bash -euo pipefail scripts/h.sh\nbash +O extglob scripts/i.sh\n\
                 python3 -O scripts/j.py\ndeno run -A --config deno.json scripts/k.ts\n\
                 bash -s < scripts/l.sh\npython3 - < scripts/m.py\npython3 -c 'x' scripts/n.py\n\
                 node -- scripts/o.js\n"
            ),
            vec![
                (How::Runs, rel("scripts/a.py"), 5),
                (How::Runs, rel("scripts/b.py"), 6),
                (How::Runs, rel("scripts/c.py"), 7),
                (How::Runs, rel("scripts/d.py"), 8),
                (How::Runs, rel("scripts/e.js"), 9),
                (How::Runs, rel("scripts/f.mjs"), 10),
                (How::Runs, rel("scripts/g.sh"), 11),
                (How::Runs, rel("scripts/h.sh"), 12),
                (How::Runs, rel("scripts/i.sh"), 13),
                (How::Runs, rel("scripts/j.py"), 14),
                (How::Runs, rel("scripts/k.ts"), 15),
                (How::Reads, rel("scripts/l.sh"), 16),
                (How::Reads, rel("scripts/m.py"), 17),
                (How::Runs, rel("scripts/o.js"), 19),
            ]
        );
    }

    #[test]
    fn cd_into_the_skill_is_followed_within_its_block() {
        let body = "```bash\ncd \"${CLAUDE_SKILL_DIR}/scripts\"\npython3 build.py\n./generate.sh\n\
                    cat ../references/api.md\n```\n\n\
                    ```bash\ncd \"$SKILL_DIR\" && python3 report.py && bash scripts/x.sh\n```\n\n\
                    ```bash\ncd {baseDir}/scripts && ./run.sh\ncd ..\ncat assets/a.txt\n```\n\n\
                    ```bash\ncd ~/.claude/skills/pdf\nsource env.sh\n```\n\n\
                    ```bash\ncd /tmp/work\npython3 scripts/users.py\ncd \"$PROJECT\"\ncat references/theirs.md\n```\n\n\
                    ```bash\ncd scripts\npython3 here.py\n```\n\n\
                    ```bash\npython3 build.py\npython3 scripts/after.py\n```\n\
                    ```bash\ncd \"$SKILL_DIR\"\npython3 \"$SKILL_DIR/scripts/whole.py\"\n```\n";
        assert_eq!(
            uses_in(body),
            vec![
                (How::Runs, skill("scripts/build.py"), 6, 9),
                (How::Executes, skill("scripts/generate.sh"), 7, 1),
                (How::Reads, skill("scripts/../references/api.md"), 8, 5),
                (How::Runs, skill("report.py"), 12, 28),
                (How::Runs, skill("scripts/x.sh"), 12, 46),
                (How::Executes, skill("scripts/run.sh"), 16, 25),
                (How::Reads, skill("assets/a.txt"), 18, 5),
                (How::Reads, skill("env.sh"), 23, 8),
                (How::Runs, rel("scripts/here.py"), 35, 9),
                (How::Runs, rel("build.py"), 39, 9),
                (How::Runs, rel("scripts/after.py"), 40, 9),
                (How::Runs, skill("scripts/whole.py"), 44, 9),
            ],
            "after `cd` elsewhere relative paths are not the skill's; each block starts afresh"
        );
        let text = format!("---\nname: pdf\n---\n{body}");
        let cwds: Vec<Option<String>> =
            read(&text, "pdf").uses.into_iter().map(|u| u.cwd).collect();
        let cd = |dir: &str| Some(dir.to_owned());
        assert_eq!(
            cwds,
            vec![
                cd("${CLAUDE_SKILL_DIR}/scripts"),
                cd("${CLAUDE_SKILL_DIR}/scripts"),
                cd("${CLAUDE_SKILL_DIR}/scripts"),
                cd("$SKILL_DIR"),
                cd("$SKILL_DIR"),
                cd("{baseDir}/scripts"),
                cd("{baseDir}/scripts/.."),
                cd("~/.claude/skills/pdf"),
                None,
                None,
                None,
                None,
            ],
            "what a `cd` decides names it; a path under the skill's variable needs none"
        );
    }

    #[test]
    fn files_an_earlier_command_writes_are_not_required() {
        let body = "```bash\npython3 scripts/p.py > references/summary.md\ncat references/summary.md\n\
                    python3 scripts/p.py | tee -a assets/t.csv\nhead -n 5 assets/t.csv\n\
                    mkdir -p assets/charts && cat assets/charts/a.md\n\
                    cp assets/tpl.md references/r.md && cat references/r.md\n\
                    cp a.txt b.txt references/ && cat references/b.txt\n\
                    python3 scripts/p.py -o references/o.txt --output=references/q.txt\n\
                    cat references/o.txt references/q.txt\ntouch -r x scripts/stamp.sh\n\
                    ./scripts/stamp.sh\ncat references/later.md\n\
                    python3 scripts/p.py > references/later.md\nmkdir -p references\n\
                    cat references/api.md\npython3 scripts/p.py 2>&1 >/dev/null\n```\n\n\
                    ```\ncd \"$SKILL_DIR\" && python3 scripts/p.py > out/x.md\n```\n\n\
                    ```bash\ncat \"${CLAUDE_SKILL_DIR}/out/x.md\"\n```\n";
        let text = format!("---\nname: pdf\n---\n{body}");
        let found = read(&text, "pdf");
        let paths: Vec<&str> = found.uses.iter().map(|u| u.target.path()).collect();
        assert_eq!(
            paths,
            vec![
                "scripts/p.py",
                "scripts/p.py",
                "scripts/p.py",
                "references/later.md",
                "scripts/p.py",
                "references/api.md",
                "scripts/p.py",
                "scripts/p.py",
            ],
            "a file read before it is written is still required, and `mkdir -p references` \
             makes nothing in it optional"
        );
        for path in [
            "references/summary.md",
            "./assets/t.csv",
            "assets/charts/a.md",
            "references/r.md",
            "references/a.txt",
            "references/o.txt",
            "references/q.txt",
            "scripts/stamp.sh",
            "out/x.md",
        ] {
            assert!(found.made.contains(path), "{path} is written");
        }
        for path in [
            "references/api.md",
            "assets/tpl.md",
            "x",
            "scripts/p.py",
            "/dev/null",
        ] {
            assert!(!found.made.contains(path), "{path} is not written");
        }
    }

    #[test]
    fn pathological_blocks_stay_fast() {
        let started = std::time::Instant::now();
        for body in [
            format!("```\n{}```\n", "cat scripts/x.sh\n".repeat(20_000)),
            format!("```\n{}```\n", "python3 \\\n".repeat(20_000)),
            format!("```bash\n{}```\n", "cd scripts\n".repeat(20_000)),
            format!("```bash\n{}```\n", "mkdir -p a/b\n".repeat(20_000)),
            "    cat references/x.md\n".repeat(20_000),
            "```\n".repeat(50_000),
        ] {
            let _ = read(&body, "pdf");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "took {:?}",
            started.elapsed()
        );
    }
}
