//! The commands a file of a skill runs, each at its line, read where a shell would run them:
//! shell through tree-sitter's bash grammar, so a word inside quotes, a heredoc, a regex or a
//! message (`grep -E "pause|admin|sudo"`, `echo "use sudo to …"`) is not a command; and the
//! program a spawning call in another language runs, its argv kept apart
//! (`subprocess.run(["grep", "-E", "a|sudo"])` runs grep, `subprocess.run(["sudo", …])` sudo,
//! `execSync("sudo …")` a shell line). The environment variables the shell sets and the files
//! it redirects output to come with them. [`super::sensitive`] reads these.

use tree_sitter::{Node, Parser};

use super::Source;
use super::scan::{Lang, code_lines};
use super::shell::{self, Cmd, Input, Script, Shape};
use super::syntax::{self, Grammar, Unit, line_of, text};

/// One command run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// 1-based, in the file.
    pub line: u32,
    /// The program's base name: `/usr/bin/curl` → `curl`.
    pub program: String,
    /// Its words as the shell passes them (quotes removed when the text is fixed).
    pub args: Vec<String>,
    /// The wrappers before it, by name: `sudo` and `env` of `sudo -E env X=1 make`.
    pub wrappers: Vec<String>,
    /// The programs whose output it reads through a pipe.
    pub upstream: Vec<String>,
    /// Its standard input comes from a redirect of its own (`sh < x`, `bash <<EOF`).
    pub input_redirected: bool,
}

/// An environment variable set: `X=1 cmd`, `export X=1`, `env X=1 cmd`, Dockerfile `ENV X=1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub line: u32,
    pub name: String,
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

/// Shell text inside shell text (`bash -c "…"`, `eval "…"`, a heredoc fed to `sh`) is read
/// this many levels deep.
const MAX_DEPTH: usize = 4;

/// What `source` runs: every unit of shell tree-sitter reads (see [`syntax::units`]), and the
/// command lines and argv of the spawning calls on its code lines in other languages.
pub fn read(source: &Source) -> Invoked {
    let mut parser = Parser::new();
    let mut out = Invoked::default();
    for unit in syntax::units(source) {
        if unit.grammar != Grammar::Bash {
            continue;
        }
        if read_shell(&mut parser, unit.text, unit.first_line, 0, &mut out) {
            let lines = u32::try_from(unit.text.lines().count().max(1)).unwrap_or(u32::MAX);
            out.covered
                .push((unit.first_line, unit.first_line.saturating_add(lines - 1)));
        }
    }
    for line in code_lines(source) {
        if matches!(line.lang, Lang::Shell | Lang::Sql | Lang::Config) {
            continue;
        }
        for spawned in spawned_lines(line.text, line.lang) {
            read_shell(&mut parser, &spawned, line.number, 1, &mut out);
        }
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
    for node in syntax::nodes(tree.root_node()) {
        match node.kind() {
            "variable_assignment" => {
                if let Some(name) = node.child_by_field_name("name") {
                    out.assignments.push(Assignment {
                        line: line_of(node, &unit),
                        name: text(name, src).to_owned(),
                    });
                }
            }
            "file_redirect" => {
                if let Some(target) = written(node, src) {
                    out.writes.push(Write {
                        line: line_of(node, &unit),
                        target,
                    });
                }
            }
            _ => {}
        }
    }
    let script = shell::read(parser, &unit);
    // Where each line ends, to number the shell inside a word.
    let newlines: Vec<usize> = src.match_indices('\n').map(|(at, _)| at).collect();
    for cmd in &script.commands {
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
            };
            out.commands.push(invocation.clone());
            inner(parser, &unit, &newlines, cmd, &invocation, depth, out);
        }
        // `env LD_PRELOAD=x app`: the wrapper's assignments.
        if cmd.wrappers.first().and_then(|w| w.value.as_deref()) == Some("env") {
            for word in &cmd.wrappers[1..] {
                if let Some((name, _)) = word.text().split_once('=')
                    && is_name(name)
                {
                    out.assignments.push(Assignment {
                        line: cmd.line,
                        name: name.to_owned(),
                    });
                }
            }
        }
    }
    true
}

/// The shell inside a command, read as shell too: `bash -c "…"`, `su -c "…"`, `eval "…"`, a
/// heredoc fed to a shell; a Dockerfile `ENV`'s assignments.
fn inner(
    parser: &mut Parser,
    unit: &Unit<'_>,
    newlines: &[usize],
    cmd: &Cmd,
    invocation: &Invocation,
    depth: usize,
    out: &mut Invoked,
) {
    let program = invocation.program.as_str();
    let args = &invocation.args;
    if program == "ENV" {
        // `ENV A=1 B=2` or `ENV A 1`.
        let names: Vec<&str> = match args.first() {
            Some(first) if !first.contains('=') => vec![first.as_str()],
            _ => args
                .iter()
                .filter_map(|a| Some(a.split_once('=')?.0))
                .collect(),
        };
        for name in names.into_iter().filter(|n| is_name(n)) {
            out.assignments.push(Assignment {
                line: invocation.line,
                name: name.to_owned(),
            });
        }
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let at_word = |start: usize| {
        let newlines = newlines.partition_point(|&at| at < start);
        unit.first_line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX))
    };
    if SHELLS.contains(&program) || program == "su" {
        // The operand of `-c` (`-c`, `-lc`, `-ec`, …), when its text is fixed.
        let dash_c = cmd.args.iter().position(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains('c')
        });
        if let Some(word) = dash_c.and_then(|at| cmd.args.get(at + 1))
            && let Some(script) = word.value.as_deref()
        {
            read_shell(parser, script, at_word(word.start), depth + 1, out);
        }
        if let Some(Input::Here { body, first_line }) = &cmd.input
            && let Some(script) = body.value.as_deref()
            && dash_c.is_none()
        {
            read_shell(parser, script, *first_line, depth + 1, out);
        }
    }
    if program == "eval" {
        let words: Option<Vec<&str>> = cmd.args.iter().map(|a| a.value.as_deref()).collect();
        if let (Some(words), Some(first)) = (words, cmd.args.first()) {
            read_shell(
                parser,
                &words.join(" "),
                at_word(first.start),
                depth + 1,
                out,
            );
        }
    }
}

/// What a command runs, with its arguments: its program, or the first word of each fixed value
/// of the variable that names it (`SUDO=sudo; $SUDO apt-get …`).
fn programs(cmd: &Cmd, script: &Script) -> Vec<(String, Vec<String>)> {
    let args = || -> Vec<String> { cmd.args.iter().map(|a| a.text().to_owned()).collect() };
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

/// The file a redirect writes, when its target is fixed text: `> /etc/x`, `>> "/etc/x"`,
/// `&> f`, `>| f`; not `2>&1`, `< f`.
fn written(node: Node<'_>, src: &str) -> Option<String> {
    let mut cursor = node.walk();
    let operator = node
        .children(&mut cursor)
        .find(|c| !c.is_named())
        .map(|c| c.kind())?;
    if !matches!(operator, ">" | ">>" | "&>" | "&>>" | ">|") {
        return None;
    }
    let destination = node.child_by_field_name("destination")?;
    let target = text(destination, src).trim_matches(['"', '\'']);
    (!target.is_empty() && !target.starts_with('&')).then(|| target.to_owned())
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

/// At most this many spawning calls are read on one line: a minified bundle of a million
/// `system(` costs one pass, not a million parses.
const MAX_SPAWNS_PER_LINE: usize = 16;

/// JavaScript objects whose `.exec(` runs a command (a regex's `.exec(` matches text).
const EXEC_RECEIVERS: &[&str] = &["child_process", "childProcess", "cp", "child", "shell"];

/// The shell text each spawning call on a code line runs: a command line given as one string
/// (`os.system("…")`, `execSync("…")`, `subprocess.run("…", shell=True)`, a Ruby or zx
/// backtick string) as written, an argv (`["sudo", "apt-get", x]`, `spawn("sudo", [...])`,
/// `exec.Command("sudo", "x")`) with each word quoted, so a `|` inside one stays a word.
pub fn spawned_lines(text: &str, lang: Lang) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut opened: Vec<usize> = Vec::new();
    for spawn in SPAWNS {
        let mut from = 0;
        while opened.len() < MAX_SPAWNS_PER_LINE
            && let Some(at) = text.get(from..).and_then(|t| t.find(spawn))
        {
            let at = from + at;
            from = at + spawn.len();
            if !is_spawn(text, at, spawn, lang) {
                continue;
            }
            let open = if *spawn == "subprocess." {
                let rest = &text[from..];
                let name = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if rest[name..].starts_with('(') {
                    from + name
                } else {
                    continue;
                }
            } else {
                from - 1
            };
            if opened.contains(&open) {
                continue;
            }
            opened.push(open);
            let (args, end) = arguments(text, open + 1);
            let mut argv = argv_of(&args);
            if *spawn == "Command::new(" && argv.as_ref().is_some_and(|a| a.len() == 1) {
                // `Command::new("sudo").arg("x").args(["y", "z"])`.
                let words = literals(text.get(end..).unwrap_or_default());
                if let Some(a) = argv.as_mut() {
                    a.extend(words.into_iter().map(Some));
                }
            }
            match (argv, args.first()) {
                (Some(argv), _) => found.push(quoted(&argv)),
                (None, Some(Argument::Literal(line))) => found.push(line.clone()),
                _ => {}
            }
        }
    }
    // `` `sudo x` `` in Ruby, `` $`sudo x` `` in zx.
    let backtick = match lang {
        Lang::Ruby => text.find('`'),
        Lang::JavaScript => text.find("$`").map(|at| at + 1),
        _ => None,
    };
    if let Some(at) = backtick
        && let Some(len) = text[at + 1..].find('`')
    {
        found.push(text[at + 1..at + 1 + len].to_owned());
    }
    found
}

/// Whether the match of `spawn` at `at` is a call that runs a program: not part of a longer
/// name (`filesystem(`), not Python's `exec(` (it runs Python), not a regex's `.exec(`.
fn is_spawn(text: &str, at: usize, spawn: &str, lang: Lang) -> bool {
    let before = text[..at].chars().next_back();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if before.is_some_and(word) && spawn.starts_with(|c: char| c.is_alphanumeric()) {
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
            return EXEC_RECEIVERS.contains(&receiver);
        }
    }
    true
}

/// One argument of a call, as far as a line tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Argument {
    /// A string literal (the first one, when it is concatenated with more).
    Literal(String),
    /// A list of words: each a literal or not (`None`).
    List(Vec<Option<String>>),
    Other,
}

/// The arguments of the call whose `(` is just before `from`, up to its `)` or the end of the
/// line, and where they end.
fn arguments(text: &str, from: usize) -> (Vec<Argument>, usize) {
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
                args.push(argument(&text[start..i]));
                return (args, i + 1);
            }
            b',' if depth == 0 => {
                args.push(argument(&text[start..i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !text[start..].trim().is_empty() {
        args.push(argument(&text[start..]));
    }
    (args, text.len())
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

fn argument(text: &str) -> Argument {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let (items, _) = arguments(&format!("{inner})"), 0);
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
/// lone string is a command line, not an argv.
fn argv_of(args: &[Argument]) -> Option<Vec<Option<String>>> {
    match args {
        [Argument::List(words), ..] => Some(words.clone()),
        [Argument::Literal(program), Argument::List(words), ..] => {
            let mut argv = vec![Some(program.clone())];
            argv.extend(words.iter().cloned());
            Some(argv)
        }
        [Argument::Literal(program), rest @ ..]
            if rest.iter().any(|a| matches!(a, Argument::Literal(_))) =>
        {
            let mut argv = vec![Some(program.clone())];
            argv.extend(rest.iter().map(|a| match a {
                Argument::Literal(word) => Some(word.clone()),
                _ => None,
            }));
            Some(argv)
        }
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
        assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
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
