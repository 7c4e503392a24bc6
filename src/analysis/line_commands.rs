//! The commands on one code line: the simple commands of a shell line (through wrappers such as
//! `sudo`, `env`, `xargs`), and the command line a spawning call in another language runs
//! (`subprocess.run([...])`, `execSync("...")`, `exec.Command(...)`). One pass over the line.

use super::code_lines::{CodeLine, Lang};
use super::paths::base_name;
use super::patterns::Needles;

/// Without one pair of surrounding quotes.
pub fn unquote(text: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner;
        }
    }
    text
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command<'a> {
    pub name: &'a str,
    pub args: Vec<&'a str>,
    /// Its input is the previous command's output (`a | b`).
    pub piped: bool,
}

/// Wrappers that run another command: they are commands themselves, then the one they run.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "exec", "time", "nohup", "xargs", "env", "timeout", "nice", "command",
    "builtin", "stdbuf", "watch", "-exec", "ionice", "chrt", "taskset",
];

/// Wrappers whose first operand is theirs whatever its shape: `timeout "$T"`, `chrt 10`,
/// `taskset 0x3`; the command comes after it.
const OPERAND_WRAPPERS: &[&str] = &["timeout", "chrt", "taskset"];

/// Shell keywords and Dockerfile instructions before a command.
const KEYWORDS: &[&str] = &[
    "then",
    "do",
    "else",
    "elif",
    "if",
    "while",
    "until",
    "!",
    "fi",
    "done",
    "esac",
    "RUN",
    "CMD",
    "ENTRYPOINT",
];

/// Options of wrappers that take a value (`sudo -u root`, `timeout -s KILL 10`).
fn option_takes_value(wrapper: &str, option: &str) -> bool {
    match wrapper {
        "sudo" | "doas" => matches!(
            option,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
        ),
        "xargs" => matches!(
            option,
            "-I" | "-n" | "-P" | "-L" | "-d" | "-s" | "-E" | "-a"
        ),
        "timeout" => matches!(option, "-s" | "-k" | "--signal" | "--kill-after"),
        "nice" => matches!(option, "-n" | "--adjustment"),
        "ionice" => matches!(option, "-c" | "-n" | "--class" | "--classdata"),
        "stdbuf" => matches!(option, "-i" | "-o" | "-e"),
        "env" => matches!(option, "-u" | "-C" | "-S"),
        "watch" => matches!(option, "-n" | "-d"),
        _ => false,
    }
}

/// The commands on one line of shell: split at `|`, `;`, `&`, parentheses, braces, backticks and
/// at a quote opened after `-c` or `eval` (`bash -c "curl …"`), then past assignments, keywords
/// and wrappers. Quotes are otherwise not tracked: a separator inside a string starts a command.
pub fn shell_commands(line: &str) -> Vec<Command<'_>> {
    let bytes = line.as_bytes();
    let mut commands = Vec::new();
    let mut start = 0;
    let mut piped = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let split = match b {
            // `>&2`, `2>&1`, `<&3` and `&>file` are redirections, not a command's end.
            b'&' => {
                !(i > 0 && matches!(bytes[i - 1], b'>' | b'<')) && bytes.get(i + 1) != Some(&b'>')
            }
            b'|' | b';' | b'(' | b')' | b'`' | b'{' | b'}' => true,
            b'"' | b'\'' => {
                let before = line[start..i].trim_end();
                before.ends_with(" -c")
                    || before.ends_with(" -lc")
                    || before.ends_with(" -ec")
                    || before == "-c"
                    || before.ends_with("eval")
            }
            _ => false,
        };
        if split {
            segment(&line[start..i], piped, &mut commands);
            piped = false;
            if b == b'|' {
                if bytes.get(i + 1) == Some(&b'|') {
                    i += 1;
                } else {
                    piped = true;
                }
            } else if b == b'&' && bytes.get(i + 1) == Some(&b'&') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    segment(&line[start..], piped, &mut commands);
    commands
}

/// At most this many wrappers before a command (`sudo env nohup curl`): each copies the words
/// after it, and a line of a million `sudo` must not cost a million squared.
const MAX_WRAPPERS: usize = 8;

fn segment<'a>(text: &'a str, piped: bool, commands: &mut Vec<Command<'a>>) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    let mut wrapper: Option<&str> = None;
    let mut operands = 0;
    let mut wrappers = 0;
    let mut first = true;
    while i < words.len() {
        let word = words[i];
        if let Some(w) = wrapper {
            if word.starts_with('-') && word.len() > 1 {
                i += if option_takes_value(w, word) { 2 } else { 1 };
                continue;
            }
            if operands > 0 {
                operands -= 1;
                i += 1;
                continue;
            }
        }
        let is_assignment = word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        if is_assignment || KEYWORDS.contains(&word) {
            i += 1;
            continue;
        }
        let name = program_name(word);
        if name.is_empty() || name.starts_with('$') {
            return;
        }
        commands.push(Command {
            name,
            args: words[i + 1..].to_vec(),
            piped: piped && first,
        });
        first = false;
        if WRAPPERS.contains(&name) && wrappers < MAX_WRAPPERS {
            wrappers += 1;
            wrapper = Some(name);
            operands = usize::from(OPERAND_WRAPPERS.contains(&name));
            i += 1;
            continue;
        }
        return;
    }
}

/// A command word without quotes, a leading `\` and its directory: `"/usr/bin/curl"` → `curl`.
fn program_name(word: &str) -> &str {
    let word = word
        .trim_matches(|c| c == '"' || c == '\'')
        .trim_start_matches('\\');
    base_name(word)
}

/// Calls that run a program, in the languages that are not shell.
const SPAWNS: &[&str] = &[
    "subprocess.",
    "os.system(",
    "os.popen(",
    "Popen(",
    "check_output(",
    "check_call(",
    "execSync(",
    "execFileSync(",
    "execFile(",
    "spawnSync(",
    "spawn(",
    "exec(",
    "execa(",
    "exec.Command(",
    "exec.CommandContext(",
    "system(",
    "Command::new(",
    "shell_exec(",
    "proc_open(",
    "ProcessBuilder(",
    "$`",
];

static SPAWN_NEEDLES: std::sync::LazyLock<Needles> =
    std::sync::LazyLock::new(|| Needles::new(SPAWNS.iter().copied()));

/// The command line a non-shell code line runs, when it runs one: the string literals after a
/// process-spawning call joined by spaces (`subprocess.run(["curl", "-s", url])` → `curl -s`),
/// or a Ruby/zx backtick string.
pub fn spawned_command(text: &str, lang: Lang) -> Option<String> {
    let at = (0..SPAWNS.len())
        .filter_map(|i| SPAWN_NEEDLES.find(i, text))
        .min()
        .or_else(|| (lang == Lang::Ruby).then(|| text.find('`')).flatten())?;
    let rest = &text[at..];
    let mut words = Vec::new();
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if matches!(q, b'"' | b'\'' | b'`') {
            match rest[i + 1..].find(q as char) {
                Some(len) => {
                    words.push(&rest[i + 1..i + 1 + len]);
                    i += len + 2;
                    continue;
                }
                None => break,
            }
        }
        i += 1;
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// Whether `name` runs the command that follows it (`sudo`, `env`, `xargs`, …).
pub fn is_wrapper(name: &str) -> bool {
    WRAPPERS.contains(&name)
}

/// The commands a code line runs: those of a shell line, or those of the command line a
/// spawning call in another language runs (kept in `spawned`, which the commands borrow).
pub fn commands_of<'a>(line: &CodeLine<'a>, spawned: &'a mut Option<String>) -> Vec<Command<'a>> {
    match line.lang {
        Lang::Shell => shell_commands(line.text),
        Lang::Sql | Lang::Config => Vec::new(),
        lang => {
            *spawned = spawned_command(line.text, lang);
            spawned.as_deref().map(shell_commands).unwrap_or_default()
        }
    }
}

/// Call `f` with every command a code line runs (see [`commands_of`]).
pub fn for_each_command(line: &CodeLine<'_>, f: impl FnMut(&Command<'_>)) {
    let mut spawned = None;
    commands_of(line, &mut spawned).iter().for_each(f);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Source;
    use crate::analysis::code_lines::{CodeLine, Lang, code_lines};

    #[test]
    fn commands_on_a_shell_line() {
        let names = |line: &str| -> Vec<(String, bool)> {
            shell_commands(line)
                .iter()
                .map(|c| (c.name.to_owned(), c.piped))
                .collect()
        };
        assert_eq!(
            names("FOO=1 sudo -u root /usr/bin/curl -s x | bash && echo ok"),
            vec![
                ("sudo".to_owned(), false),
                ("curl".to_owned(), false),
                ("bash".to_owned(), true),
                ("echo".to_owned(), false),
            ]
        );
        assert_eq!(
            names("if out=$(wget -qO- x); then bash -c \"nc h 1\"; fi"),
            vec![
                ("wget".to_owned(), false),
                ("bash".to_owned(), false),
                ("nc".to_owned(), false),
            ]
        );
        // Redirections through a descriptor end no command: `2` is no program.
        assert_eq!(
            names("echo \"see https://x.io\" >&2; make 2>&1 | tee log &>/dev/null & wait"),
            vec![
                ("echo".to_owned(), false),
                ("make".to_owned(), false),
                ("tee".to_owned(), true),
                ("wait".to_owned(), false),
            ]
        );
        let args = shell_commands("timeout 10 ssh -p 22 deploy@h.io");
        assert_eq!(args[1].name, "ssh");
        assert_eq!(args[1].args, vec!["-p", "22", "deploy@h.io"]);
    }

    #[test]
    fn commands_spawned_from_other_languages() {
        assert_eq!(
            spawned_command(
                "subprocess.run([\"curl\", \"-s\", url], check=True)",
                Lang::Python
            )
            .as_deref(),
            Some("curl -s")
        );
        assert_eq!(
            spawned_command("const out = execSync(`wget ${u}`)", Lang::JavaScript).as_deref(),
            Some("wget ${u}")
        );
        assert_eq!(
            spawned_command("out = `ssh h.io uptime`", Lang::Ruby).as_deref(),
            Some("ssh h.io uptime")
        );
        assert_eq!(
            spawned_command("print(\"curl failed\")", Lang::Python),
            None
        );
    }

    #[test]
    fn hostile_lines_cost_linear_time() {
        let sudo = "sudo ".repeat(200_000);
        let commands = shell_commands(&sudo);
        assert_eq!(commands.len(), MAX_WRAPPERS + 1);
        let minified = format!("{}fetch(\"https://api.io/x\")", "a=b;c(d);".repeat(100_000));
        let source = Source::new("bundle.min.js", &minified);
        let started = std::time::Instant::now();
        let lines: Vec<CodeLine<'_>> = code_lines(&source).collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(spawned_command(lines[0].text, Lang::JavaScript), None);
        assert!(lines[0].text.ends_with("fetch(\"https://api.io/x\")"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
