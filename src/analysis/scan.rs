//! What the content signals share: the code lines of a skill's files (comments and Markdown prose
//! left out), the commands on a shell line, and the [`Evidence`] a reviewer is shown.
//!
//! Which lines are code:
//! - scripts and source files, by extension, file name or shebang: every line but comments
//!   (whole-line comments, block comments that open a line, and trailing `#`/`//`/`--` comments
//!   outside quotes);
//! - configuration (JSON, YAML, TOML, INI, `.env`, Terraform, XML): every line but comments; in
//!   YAML, the values of `run:`, `script:`, `command:` and the like are read as shell, and so
//!   are the values of a `package.json`'s `scripts` (npm runs them with `sh`; one script a
//!   line, as npm writes the file);
//! - `SKILL.md`: fenced code blocks tagged with a language the signals read (shell, Python,
//!   JavaScript/TypeScript, Go, Ruby, SQL): those are commands and code the agent is told to run;
//!   and, in untagged fences and indented blocks, the lines that start with a known program
//!   (`curl`, `sudo`, `bash`, `pip`, `chmod`, …, after a `$ ` prompt and assignments) and the
//!   lines they continue with `\`, as shell: sample output there is left alone. Its prose and
//!   its frontmatter are not code, and neither is any other Markdown or text file (references,
//!   READMEs): they describe, they do not run.
//!
//! Everything here is one pass over each line: time and memory follow the size of the input,
//! which [`super::Sources`] bounds.

use serde::{Deserialize, Serialize};

use super::Source;

/// One thing a signal found, where a reviewer can look at it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Evidence {
    /// What was found, in a reviewer's words: `api.stripe.com`, `sudo`, `INSERT INTO orders`.
    pub what: String,
    /// Relative to the skill directory, `/`-separated.
    pub file: String,
    /// 1-based.
    pub line: u32,
}

impl Evidence {
    pub fn new(what: impl Into<String>, file: &str, line: u32) -> Self {
        Self {
            what: what.into(),
            file: file.to_owned(),
            line,
        }
    }

    /// `file:line`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The language a code line is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// sh, bash, zsh, PowerShell, Dockerfiles, Makefiles, YAML `run:` values.
    Shell,
    Python,
    /// JavaScript and TypeScript.
    JavaScript,
    Go,
    Ruby,
    Rust,
    Sql,
    /// Other programming languages (C-like comments).
    OtherCode,
    /// JSON, YAML, TOML, INI, `.env`, Terraform, XML.
    Config,
}

/// A line the signals read: its 1-based number, its text without comments, its language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLine<'a> {
    pub number: u32,
    pub text: &'a str,
    pub lang: Lang,
}

/// The base name of a `/`-separated path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `path` is the skill's own `SKILL.md` (or `skill.md`) at its root.
pub fn is_skill_file(path: &str) -> bool {
    path.eq_ignore_ascii_case("skill.md")
}

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Code(Lang, Comments),
    /// `SKILL.md`: fenced blocks only.
    SkillMarkdown,
    /// Prose, data, anything else: not read.
    Skip,
}

/// Which comment syntaxes a language has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Comments {
    hash: bool,
    slash: bool,
    dash: bool,
    semicolon: bool,
    /// `/* … */`
    block: bool,
}

const HASH: Comments = Comments {
    hash: true,
    slash: false,
    dash: false,
    semicolon: false,
    block: false,
};
const C_LIKE: Comments = Comments {
    hash: false,
    slash: true,
    dash: false,
    semicolon: false,
    block: true,
};
const SQL: Comments = Comments {
    hash: false,
    slash: false,
    dash: true,
    semicolon: false,
    block: true,
};
const NONE: Comments = Comments {
    hash: false,
    slash: false,
    dash: false,
    semicolon: false,
    block: false,
};

fn comments_of(lang: Lang) -> Comments {
    match lang {
        Lang::Shell | Lang::Python | Lang::Ruby => HASH,
        Lang::JavaScript | Lang::Go | Lang::Rust | Lang::OtherCode => C_LIKE,
        Lang::Sql => SQL,
        Lang::Config => HASH,
    }
}

fn kind_of(source: &Source) -> Kind {
    let name = base_name(&source.path);
    let lower = name.to_ascii_lowercase();
    if is_skill_file(&source.path) {
        return Kind::SkillMarkdown;
    }
    let by_name = match lower.as_str() {
        "dockerfile" | "containerfile" | "makefile" | "gnumakefile" | ".envrc" => Some(Lang::Shell),
        "gemfile" | "rakefile" => Some(Lang::Ruby),
        "jenkinsfile" => Some(Lang::OtherCode),
        "pipfile" => Some(Lang::Config),
        _ if lower.starts_with("dockerfile.") => Some(Lang::Shell),
        _ if lower.starts_with(".env") => Some(Lang::Config),
        _ => None,
    };
    if let Some(lang) = by_name {
        return Kind::Code(lang, comments_of(lang));
    }
    let ext = source.extension();
    let lang = match ext.as_str() {
        "sh" | "bash" | "zsh" | "ksh" | "dash" | "fish" | "bats" | "ps1" | "psm1" | "mk"
        | "dockerfile" => Lang::Shell,
        "py" | "pyw" | "pyi" => Lang::Python,
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts" => Lang::JavaScript,
        "go" => Lang::Go,
        "rb" | "rake" => Lang::Ruby,
        "rs" => Lang::Rust,
        "sql" | "psql" | "ddl" => Lang::Sql,
        "pl" | "pm" | "php" | "lua" | "java" | "kt" | "kts" | "scala" | "groovy" | "gradle"
        | "cs" | "swift" | "c" | "h" | "cc" | "cpp" | "hpp" | "r" => Lang::OtherCode,
        "json" | "jsonc" | "json5" | "xml" | "plist" => {
            return Kind::Code(Lang::Config, NONE);
        }
        "tf" | "tfvars" | "hcl" => {
            return Kind::Code(
                Lang::Config,
                Comments {
                    hash: true,
                    ..C_LIKE
                },
            );
        }
        "ini" | "cfg" | "conf" | "properties" => {
            return Kind::Code(
                Lang::Config,
                Comments {
                    semicolon: true,
                    ..HASH
                },
            );
        }
        "yaml" | "yml" | "toml" | "env" => Lang::Config,
        "" => match source.shebang().map(interpreter) {
            Some(Some(lang)) => lang,
            _ => return Kind::Skip,
        },
        _ => return Kind::Skip,
    };
    Kind::Code(lang, comments_of(lang))
}

/// The language a `#!` line runs.
fn interpreter(shebang: &str) -> Option<Lang> {
    let mut words = shebang.trim_start_matches("#!").split_whitespace();
    let mut program = base_name(words.next()?);
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    let program = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match program {
        "sh" | "bash" | "zsh" | "ksh" | "dash" | "ash" | "fish" | "pwsh" => Some(Lang::Shell),
        "python" | "pypy" | "uv" => Some(Lang::Python),
        "node" | "deno" | "bun" | "ts-node" | "tsx" => Some(Lang::JavaScript),
        "ruby" => Some(Lang::Ruby),
        "perl" | "php" | "lua" => Some(Lang::OtherCode),
        _ => None,
    }
}

/// The language of a fenced block in `SKILL.md`, from its info string; `None` when the block is
/// not read. `console` blocks keep only their `$ ` prompt lines.
fn fence_lang(info: &str) -> Option<(Lang, bool)> {
    let tag = info
        .trim()
        .trim_start_matches('{')
        .trim_start_matches('.')
        .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let lang = match tag.as_str() {
        "bash" | "sh" | "shell" | "zsh" | "ksh" | "powershell" | "pwsh" | "ps1" => Lang::Shell,
        "console" | "shell-session" | "shellsession" | "terminal" => {
            return Some((Lang::Shell, true));
        }
        "python" | "py" | "python3" => Lang::Python,
        "javascript" | "js" | "node" | "typescript" | "ts" | "jsx" | "tsx" | "mjs" => {
            Lang::JavaScript
        }
        "go" | "golang" => Lang::Go,
        "ruby" | "rb" => Lang::Ruby,
        "sql" | "sqlite" | "postgresql" | "postgres" | "psql" | "mysql" | "plsql" | "tsql" => {
            Lang::Sql
        }
        _ => return None,
    };
    Some((lang, false))
}

/// The code lines of one file, in order: read as its own kind, then again as each language
/// another file runs it as ([`Source::run_as`]), so a line can come once per language.
pub fn code_lines(source: &Source) -> CodeLines<'_> {
    let own = kind_of(source);
    let own_lang = match own {
        Kind::Code(lang, _) => Some(lang),
        _ => None,
    };
    let mut lines = own_code_lines(source);
    lines.more = source
        .run_as
        .iter()
        .rev()
        .copied()
        .filter(|lang| Some(*lang) != own_lang)
        .collect();
    lines
}

/// The code lines of one file read as its own kind only (extension, name, shebang).
pub fn own_code_lines(source: &Source) -> CodeLines<'_> {
    CodeLines {
        text: &source.text,
        lines: source.text.lines(),
        number: 0,
        kind: kind_of(source),
        more: Vec::new(),
        yaml: matches!(source.extension().as_str(), "yaml" | "yml"),
        in_block: false,
        fence: None,
        frontmatter: false,
        yaml_shell: None,
        package_json: base_name(&source.path).eq_ignore_ascii_case("package.json"),
        in_scripts: false,
        prev_blank: true,
        indented: false,
        continues: false,
    }
}

/// An open fence in `SKILL.md`.
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: u8,
    len: usize,
    /// `None` when the block is not read.
    lang: Option<Lang>,
    prompts_only: bool,
    /// Untagged: only the lines that look like commands are read ([`looks_like_command`]).
    guess: bool,
}

/// Iterator over [`CodeLine`]s; see [`code_lines`].
#[derive(Debug, Clone)]
pub struct CodeLines<'a> {
    text: &'a str,
    lines: std::str::Lines<'a>,
    number: u32,
    kind: Kind,
    /// The languages left to read the whole text as, last first.
    more: Vec<Lang>,
    yaml: bool,
    in_block: bool,
    fence: Option<Fence>,
    frontmatter: bool,
    /// The column of a YAML key whose indented block is shell (`run: |`).
    yaml_shell: Option<usize>,
    /// A `package.json`, and whether the line is inside its `scripts` object.
    package_json: bool,
    in_scripts: bool,
    /// Markdown: the line before was blank (an indented block may start), the line is in an
    /// indented block, the last command read in an untagged block ends with `\\`.
    prev_blank: bool,
    indented: bool,
    continues: bool,
}

impl<'a> Iterator for CodeLines<'a> {
    type Item = CodeLine<'a>;

    fn next(&mut self) -> Option<CodeLine<'a>> {
        loop {
            let raw = match self.lines.next() {
                Some(raw) if self.kind != Kind::Skip => raw,
                _ => {
                    let lang = self.more.pop()?;
                    self.read_again_as(lang);
                    continue;
                }
            };
            self.number = self.number.saturating_add(1);
            let found = match self.kind {
                Kind::Skip => continue,
                Kind::Code(lang, comments) => self.code(raw, lang, comments),
                Kind::SkillMarkdown => self.markdown(raw),
            };
            if let Some((text, lang)) = found
                && !text.trim().is_empty()
            {
                return Some(CodeLine {
                    number: self.number,
                    text,
                    lang,
                });
            }
        }
    }
}

impl<'a> CodeLines<'a> {
    /// Start over at the first line, every line code in `lang` (a file run as it).
    fn read_again_as(&mut self, lang: Lang) {
        self.lines = self.text.lines();
        self.number = 0;
        self.kind = Kind::Code(lang, comments_of(lang));
        self.yaml = false;
        self.in_block = false;
        self.fence = None;
        self.frontmatter = false;
        self.yaml_shell = None;
        self.package_json = false;
        self.in_scripts = false;
        self.prev_blank = true;
        self.indented = false;
        self.continues = false;
    }

    fn code(&mut self, raw: &'a str, lang: Lang, comments: Comments) -> Option<(&'a str, Lang)> {
        let text = self.without_comments(raw, comments)?;
        if self.yaml {
            return Some(self.yaml_line(text));
        }
        if self.package_json {
            return Some(self.package_line(text));
        }
        Some((text, lang))
    }

    /// A line of `package.json`: inside `"scripts": {`, each `"name": "command"` is the command,
    /// as shell (JSON escapes left as written).
    fn package_line(&mut self, text: &'a str) -> (&'a str, Lang) {
        let trimmed = text.trim();
        if !self.in_scripts {
            if let Some(rest) = trimmed.strip_prefix("\"scripts\"")
                && rest.trim_start().strip_prefix(':').is_some_and(|r| {
                    let r = r.trim();
                    r.starts_with('{') && !r.contains('}')
                })
            {
                self.in_scripts = true;
            }
            return (text, Lang::Config);
        }
        if trimmed.starts_with('}') {
            self.in_scripts = false;
            return (text, Lang::Config);
        }
        // `"postinstall": "curl https://x.io | sh",`
        let value = trimmed
            .strip_prefix('"')
            .and_then(|rest| rest.split_once("\":"))
            .map(|(_, value)| value.trim().trim_end_matches(',').trim_end())
            .and_then(|value| value.strip_prefix('"')?.strip_suffix('"'));
        match value {
            Some(command) => (command, Lang::Shell),
            None => (text, Lang::Config),
        }
    }

    /// The line without comments; `None` when nothing is left.
    fn without_comments(&mut self, raw: &'a str, comments: Comments) -> Option<&'a str> {
        let mut text = raw;
        if self.in_block {
            let end = text.find("*/")?;
            self.in_block = false;
            text = &text[end + 2..];
        }
        let trimmed = text.trim_start();
        if comments.block && trimmed.starts_with("/*") {
            match trimmed[2..].find("*/") {
                Some(end) => text = &trimmed[2 + end + 2..],
                None => {
                    self.in_block = true;
                    return None;
                }
            }
        }
        let trimmed = text.trim_start();
        let whole_line = (comments.hash && trimmed.starts_with('#'))
            || (comments.slash && trimmed.starts_with("//"))
            || (comments.dash && trimmed.starts_with("--"))
            || (comments.semicolon && trimmed.starts_with(';'));
        if whole_line {
            return None;
        }
        Some(strip_trailing_comment(text, comments))
    }

    /// YAML: the value of a shell key, or a line of a shell key's block, is shell.
    fn yaml_line(&mut self, text: &'a str) -> (&'a str, Lang) {
        if text.trim().is_empty() {
            // A blank line does not end a block.
            return (text, Lang::Config);
        }
        let indent = text.len() - text.trim_start().len();
        if let Some(column) = self.yaml_shell {
            if indent > column {
                let item = text.trim_start();
                let item = item.strip_prefix("- ").unwrap_or(item);
                return (unquote(item), Lang::Shell);
            }
            self.yaml_shell = None;
        }
        let trimmed = text.trim_start();
        let (column, entry) = match trimmed.strip_prefix("- ") {
            Some(rest) => (
                indent + 2 + (rest.len() - rest.trim_start().len()),
                rest.trim_start(),
            ),
            None => (indent, trimmed),
        };
        if let Some((key, value)) = entry.split_once(':') {
            let key = unquote(key.trim());
            if SHELL_KEYS.contains(&key) {
                let value = value.trim();
                let is_block = value.is_empty()
                    || value.starts_with('|')
                    || (value.starts_with('>') && !value.starts_with(">="));
                if is_block {
                    self.yaml_shell = Some(column);
                    return ("", Lang::Config);
                }
                if !value.starts_with('[') && !value.starts_with('{') {
                    return (unquote(value), Lang::Shell);
                }
            }
        }
        (text, Lang::Config)
    }

    fn markdown(&mut self, raw: &'a str) -> Option<(&'a str, Lang)> {
        if self.number == 1 && raw.trim_end() == "---" {
            self.frontmatter = true;
            return None;
        }
        if self.frontmatter {
            if raw.trim_end() == "---" || raw.trim_end() == "..." {
                self.frontmatter = false;
            }
            return None;
        }
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let trimmed = &raw[indent..];
        let marker = trimmed.bytes().next();
        let fence_len = |m: u8| trimmed.bytes().take_while(|b| *b == m).count();
        if let Some(fence) = self.fence {
            if indent < 4
                && marker == Some(fence.marker)
                && fence_len(fence.marker) >= fence.len
                && trimmed
                    .trim_start_matches(fence.marker as char)
                    .trim()
                    .is_empty()
            {
                self.fence = None;
                return None;
            }
            let lang = fence.lang?;
            if fence.guess {
                return self.guessed(raw);
            }
            let comments = comments_of(lang);
            let mut text = raw;
            if lang == Lang::Shell {
                let line = raw.trim_start();
                match line.strip_prefix("$ ") {
                    Some(command) => text = command,
                    None if fence.prompts_only => return None,
                    None => {}
                }
            }
            let text = self.without_comments(text, comments)?;
            return Some((text, lang));
        }
        if indent < 4
            && let Some(m @ (b'`' | b'~')) = marker
        {
            let len = fence_len(m);
            let info = &trimmed[len..];
            if len >= 3 && !(m == b'`' && info.contains('`')) {
                let guess = info.trim().is_empty();
                let (lang, prompts_only) = match fence_lang(info) {
                    Some((lang, prompts)) => (Some(lang), prompts),
                    None if guess => (Some(Lang::Shell), false),
                    None => (None, false),
                };
                self.in_block = false;
                self.continues = false;
                self.prev_blank = false;
                self.indented = false;
                self.fence = Some(Fence {
                    marker: m,
                    len,
                    lang,
                    prompts_only,
                    guess,
                });
                return None;
            }
        }
        // An indented code block: four spaces or a tab in, after a blank line.
        let blank = raw.trim().is_empty();
        let indented =
            !blank && (indent >= 4 || raw.starts_with('\t')) && (self.prev_blank || self.indented);
        self.indented = indented || (blank && self.indented);
        self.prev_blank = blank;
        if indented {
            return self.guessed(raw);
        }
        if !blank {
            self.continues = false;
        }
        None
    }

    /// A line of an untagged fence or an indented block: read as shell when it looks like a
    /// command ([`looks_like_command`], after a `$ ` prompt) or continues one with `\\`.
    fn guessed(&mut self, raw: &'a str) -> Option<(&'a str, Lang)> {
        let line = raw.trim_start();
        let line = line.strip_prefix("$ ").unwrap_or(line);
        if !(self.continues || looks_like_command(line)) {
            self.continues = false;
            return None;
        }
        let text = self.without_comments(line, HASH)?;
        self.continues = text.trim_end().ends_with('\\');
        Some((text, Lang::Shell))
    }
}

/// Programs a line of an untagged fence or an indented block of `SKILL.md` starts with when it
/// is a command the agent is told to run; other lines there (sample output, trees, prose) are
/// not read.
const KNOWN_PROGRAMS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "pkexec",
    "curl",
    "wget",
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "source",
    "eval",
    "exec",
    "python",
    "python3",
    "python2",
    "pip",
    "pip3",
    "pipx",
    "uv",
    "uvx",
    "node",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "go",
    "cargo",
    "gem",
    "ruby",
    "perl",
    "php",
    "chmod",
    "chown",
    "chgrp",
    "rm",
    "cp",
    "mv",
    "ln",
    "tee",
    "dd",
    "mkdir",
    "install",
    "make",
    "gcc",
    "g++",
    "cc",
    "clang",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "brew",
    "apt",
    "apt-get",
    "yum",
    "dnf",
    "apk",
    "pacman",
    "snap",
    "git",
    "export",
    "systemctl",
    "service",
    "launchctl",
    "crontab",
    "ssh",
    "scp",
    "rsync",
    "openssl",
    "gpg",
    "ssh-keygen",
    "ssh-add",
    "insmod",
    "modprobe",
    "setcap",
    "iptables",
    "ufw",
    "useradd",
    "usermod",
    "visudo",
    "echo",
    "printf",
    "cat",
];

/// Variables that load code into the programs started: a line setting one is a command.
const LOADER_VARIABLES: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
];

/// Whether a line of an untagged block is a command: its program (after assignments) is one of
/// [`KNOWN_PROGRAMS`], or it sets one of [`LOADER_VARIABLES`]. `curl: (6) Could not resolve`
/// and `npm WARN` lines of output start otherwise or name no command worth reading.
fn looks_like_command(line: &str) -> bool {
    for word in line.split_whitespace().take(16) {
        if let Some((name, _)) = word.split_once('=')
            && !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            if LOADER_VARIABLES.contains(&name) {
                return true;
            }
            continue;
        }
        let program = base_name(word.trim_start_matches('\\'));
        return KNOWN_PROGRAMS.contains(&program);
    }
    false
}

/// YAML keys whose values are shell commands (GitHub Actions, GitLab CI, Compose, Kubernetes).
const SHELL_KEYS: &[&str] = &[
    "run",
    "script",
    "before_script",
    "after_script",
    "command",
    "commands",
    "cmd",
    "entrypoint",
];

/// Without one pair of surrounding quotes.
pub fn unquote(text: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(q).and_then(|t| t.strip_suffix(q)) {
            return inner;
        }
    }
    text
}

/// Cut a trailing comment that starts outside quotes after whitespace.
fn strip_trailing_comment(text: &str, comments: Comments) -> &str {
    if !(comments.hash || comments.slash || comments.dash) {
        return text;
    }
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => {
                let after_space = i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t';
                let next = bytes.get(i + 1).copied();
                if after_space
                    && ((comments.hash && b == b'#')
                        || (comments.slash && b == b'/' && next == Some(b'/'))
                        || (comments.dash && b == b'-' && next == Some(b'-')))
                {
                    return &text[..i];
                }
                if matches!(b, b'"' | b'\'' | b'`') {
                    quote = Some(b);
                } else if b == b'\\' {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    text
}

/// One simple command on a shell line: its program (path and quotes stripped) and its words.
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

/// The modules a code line imports, as the language names them: Python `import a.b, c` and
/// `from a import b` (→ `a`, `a.b`), JavaScript `require("x")`/`import … from "x"`/`import("x")`
/// (`node:` dropped), Go import lines, Ruby `require 'x'`, Rust `use x::…`/`extern crate x`.
pub fn imports(line: &CodeLine<'_>) -> Vec<String> {
    let text = line.text.trim();
    match line.lang {
        Lang::Python => python_imports(text),
        Lang::JavaScript => js_imports(text)
            .into_iter()
            .map(|m| m.strip_prefix("node:").map_or(m.clone(), str::to_owned))
            .collect(),
        Lang::Go => go_import(text).into_iter().collect(),
        Lang::Ruby => ruby_require(text).into_iter().collect(),
        Lang::Rust => text
            .strip_prefix("use ")
            .or_else(|| text.strip_prefix("extern crate "))
            .and_then(|rest| {
                rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
            })
            .filter(|krate| !krate.is_empty())
            .map(str::to_owned)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// The entry of `table` that names `module` or a package holding it: `boto3` for
/// `boto3.session`, `@aws-sdk` (written `@aws-sdk/`) for `@aws-sdk/client-s3`. The longest wins.
pub fn library_of(module: &str, table: &[&'static str]) -> Option<&'static str> {
    table
        .iter()
        .filter(|lib| {
            let lib = lib.trim_end_matches('/');
            module == lib
                || module.starts_with(&format!("{lib}/"))
                || module.starts_with(&format!("{lib}."))
        })
        .max_by_key(|lib| lib.len())
        .map(|lib| lib.trim_end_matches('/'))
}

/// Whether `text` calls `call` (`fetch(`) as a free function, not as a method (`this.fetch(`).
pub fn calls(text: &str, call: &str) -> bool {
    let mut from = 0;
    while let Some(at) = text[from..].find(call) {
        let at = from + at;
        let before = text[..at].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$')) {
            return true;
        }
        from = at + call.len();
    }
    false
}

fn python_imports(text: &str) -> Vec<String> {
    if let Some(rest) = text.strip_prefix("import ") {
        return rest
            .split(',')
            .filter_map(|m| m.split_whitespace().next())
            .map(str::to_owned)
            .collect();
    }
    if let Some(rest) = text.strip_prefix("from ")
        && let Some((module, names)) = rest.split_once(" import ")
    {
        let module = module.trim();
        let mut modules = vec![module.to_owned()];
        for name in names.trim_matches(['(', ')', ' ']).split(',') {
            if let Some(name) = name.split_whitespace().next() {
                modules.push(format!("{module}.{name}"));
            }
        }
        return modules;
    }
    Vec::new()
}

fn js_imports(text: &str) -> Vec<String> {
    let mut modules = Vec::new();
    for marker in ["require(", "import(", " from ", "import "] {
        let mut from = 0;
        while let Some(at) = text[from..].find(marker) {
            from += at + marker.len();
            let rest = text[from..].trim_start();
            if let Some(q @ ('"' | '\'' | '`')) = rest.chars().next()
                && let Some(end) = rest[1..].find(q)
            {
                modules.push(rest[1..1 + end].to_owned());
            }
        }
    }
    modules
}

/// `import "net/http"`, `"net/http"`, `alias "net/http"`.
fn go_import(text: &str) -> Option<String> {
    let rest = text.strip_prefix("import").map_or(text, str::trim_start);
    let rest = rest.trim_start_matches('(').trim();
    let quoted = match rest.find('"') {
        Some(0) => rest,
        Some(at)
            if rest[..at]
                .trim()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') =>
        {
            &rest[at..]
        }
        _ => return None,
    };
    let inner = quoted.strip_prefix('"')?;
    let end = inner.find('"')?;
    inner[end + 1..]
        .trim()
        .is_empty()
        .then(|| inner[..end].to_owned())
}

fn ruby_require(text: &str) -> Option<String> {
    let rest = text
        .strip_prefix("require ")
        .or_else(|| text.strip_prefix("require("))?
        .trim();
    let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let end = rest[1..].find(q)?;
    Some(rest[1..1 + end].to_owned())
}

/// Directories of a test suite and its data, in any case.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "e2e",
    "testdata",
    "test-data",
    "test_data",
    "fixture",
    "fixtures",
    "__fixtures__",
    "mocks",
    "__mocks__",
];

/// Whether a file belongs to the skill's test suite by where it is or its name: under a
/// directory of [`TEST_DIRS`] (`tests/`, `fixtures/`, `__mocks__/`, `e2e/`…), or named as test
/// frameworks name their files (`test_x.py`, `x_test.go`, `x.test.ts`, `x.spec.js`,
/// `x_spec.rb`, `XTest.java`, `test.sh`, `conftest.py`, `x.bats`). Only the place: a caller
/// that exempts tests also asks whether the skill runs the file ([`super::Source::run_by_skill`]).
pub fn is_test_path(path: &str) -> bool {
    let in_test_dir = path
        .split('/')
        .rev()
        .skip(1)
        .any(|dir| TEST_DIRS.contains(&dir.to_ascii_lowercase().as_str()));
    let name = base_name(path);
    let lower = name.to_ascii_lowercase();
    let stem = lower.split('.').next().unwrap_or(&lower);
    let (own_stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    // `AuthTest.java`, `AuthTests.swift`: the case matters, `Contest.java` is no test.
    let class = (own_stem.ends_with("Test") || own_stem.ends_with("Tests"))
        && matches!(
            ext,
            "java" | "kt" | "cs" | "swift" | "php" | "scala" | "groovy"
        );
    in_test_dir
        || stem == "test"
        || stem == "conftest"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || lower.ends_with(".bats")
        || class
}

/// The line lowercased, without whitespace next to punctuation and with one space between
/// words, for patterns that tolerate spacing: `eval "$( curl` → `eval"$(curl`,
/// `verify = False` → `verify=false`, `ssh -o X=no` → `ssh -o x=no`.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if pending_space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        pending_space = false;
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The 1-based line of the first frontmatter key among `keys` (at any indentation, so keys
/// inside `metadata` count).
pub fn frontmatter_line(text: &str, keys: &[&str]) -> Option<u32> {
    let mut lines = text.lines().enumerate();
    let (_, first) = lines.next()?;
    if first.trim_start_matches('\u{feff}').trim_end() != "---" {
        return None;
    }
    for (i, line) in lines {
        let trimmed = line.trim();
        if trimmed == "---" || trimmed == "..." {
            return None;
        }
        if let Some((key, _)) = trimmed.split_once(':')
            && keys.contains(&key.trim().trim_matches(['"', '\'']))
        {
            return u32::try_from(i + 1).ok();
        }
    }
    None
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

/// Fixed patterns compiled once (the searchers cost more to build than to run on one line),
/// searched for in text already lowercased when the patterns are.
#[derive(Debug)]
pub struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    pub fn new(patterns: impl IntoIterator<Item = &'static str>) -> Self {
        Self(
            patterns
                .into_iter()
                .map(|p| memchr::memmem::Finder::new(p.as_bytes()))
                .collect(),
        )
    }

    /// Where pattern `index` first occurs in `hay`.
    pub fn find(&self, index: usize, hay: &str) -> Option<usize> {
        self.0.get(index)?.find(hay.as_bytes())
    }

    /// Where pattern `index` first occurs in `hay` as a whole word: no letter, digit or `_`
    /// continues it on either side.
    pub fn find_word(&self, index: usize, hay: &str) -> Option<usize> {
        let finder = self.0.get(index)?;
        let needle = finder.needle();
        let bytes = hay.as_bytes();
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        finder.find_iter(bytes).find(|&at| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + needle.len()).copied();
            before.is_none_or(|b| !is_word(b) || !needle.first().is_some_and(|n| is_word(*n)))
                && after.is_none_or(|b| !is_word(b) || !needle.last().is_some_and(|n| is_word(*n)))
        })
    }
}

/// `a, b, c and 2 more`: at most `limit` items, in the order given.
pub fn list(items: &[String], limit: usize) -> String {
    let shown = items
        .iter()
        .take(limit)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match items.len().saturating_sub(limit) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// `1 external endpoint`, `2 external endpoints`.
pub fn count_of(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Add `evidence` unless the same `what` was already found in the same file.
pub fn push_once(
    found: &mut Vec<Evidence>,
    seen: &mut std::collections::HashSet<(String, String)>,
    evidence: Evidence,
) {
    if seen.insert((evidence.what.clone(), evidence.file.clone())) {
        found.push(evidence);
    }
}

/// `what (file:line)` for each, at most `limit`, then `and N more`.
pub fn located(found: &[Evidence], limit: usize) -> String {
    let items: Vec<String> = found
        .iter()
        .map(|e| format!("{} ({})", e.what, e.location()))
        .collect();
    list(&items, limit)
}

/// Fixture skills under `tests/fixtures/analysis/`, read as the gate reads them.
#[cfg(test)]
pub(crate) mod fixtures {
    use std::path::{Path, PathBuf};

    use crate::analysis::Sources;
    use crate::skill::{SkillMeta, read_meta};

    /// The sources and frontmatter of fixture skill `name`.
    pub(crate) fn skill(name: &str) -> (Sources, SkillMeta) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/analysis")
            .join(name)
            .canonicalize()
            .expect("fixture");
        let mut files = Vec::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            for entry in std::fs::read_dir(dir.join(&rel)).expect("read_dir") {
                let entry = entry.expect("entry");
                let child = rel.join(entry.file_name());
                if entry.file_type().expect("type").is_dir() {
                    stack.push(child);
                } else {
                    files.push(child.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        files.sort();
        let sources = Sources::read(&dir, &dir, &files);
        assert_eq!(sources.skipped, Vec::<String>::new());
        let text = std::fs::read_to_string(dir.join("SKILL.md")).expect("SKILL.md");
        let (meta, findings) = read_meta(&text, "SKILL.md", name);
        assert!(findings.is_empty(), "{findings:?}");
        (sources, meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(path: &str, text: &str) -> Vec<(u32, String, Lang)> {
        let source = Source::new(path, text);
        code_lines(&source)
            .map(|l| (l.number, l.text.to_owned(), l.lang))
            .collect()
    }

    #[test]
    fn package_json_scripts_are_shell_and_the_rest_is_config() {
        let text = "{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"test\": \"jest --ci\",\n    \"postinstall\": \"curl https://get.tool.io | sh\"\n  },\n  \"config\": { \"url\": \"https://a.io\" }\n}\n";
        let shell: Vec<(u32, String)> = lines("package.json", text)
            .into_iter()
            .filter(|(_, _, lang)| *lang == Lang::Shell)
            .map(|(n, t, _)| (n, t))
            .collect();
        assert_eq!(
            shell,
            vec![
                (4, "jest --ci".to_owned()),
                (5, "curl https://get.tool.io | sh".to_owned()),
            ]
        );
        // Another JSON file with a `scripts` key is only configuration.
        assert!(
            lines("settings.json", text)
                .iter()
                .all(|(_, _, lang)| *lang == Lang::Config)
        );
    }

    #[test]
    fn comments_are_left_out() {
        let got = lines(
            "run.sh",
            "#!/bin/bash\n# curl https://a.io\ncurl https://b.io # see https://c.io\necho 'x # y'\n",
        );
        assert_eq!(
            got,
            vec![
                (3, "curl https://b.io ".to_owned(), Lang::Shell),
                (4, "echo 'x # y'".to_owned(), Lang::Shell),
            ]
        );
        let got = lines(
            "a.js",
            "/* header\n https://x.io\n*/\n// https://y.io\nfetch('https://z.io') // note\n",
        );
        assert_eq!(
            got,
            vec![(5, "fetch('https://z.io') ".to_owned(), Lang::JavaScript)]
        );
        let got = lines("q.sql", "-- DROP TABLE x;\nSELECT 1; -- DELETE FROM y\n");
        assert_eq!(got, vec![(2, "SELECT 1; ".to_owned(), Lang::Sql)]);
    }

    #[test]
    fn files_are_read_by_extension_name_or_shebang() {
        assert_eq!(
            lines("bin/tool", "#!/usr/bin/env python3\nimport os\n")[0].2,
            Lang::Python
        );
        assert_eq!(lines("Dockerfile", "RUN curl x\n")[0].2, Lang::Shell);
        assert!(lines("notes.txt", "curl https://a.io\n").is_empty());
        assert!(lines("references/api.md", "```bash\ncurl https://a.io\n```\n").is_empty());
        assert!(lines("bin/data", "no shebang\n").is_empty());
    }

    #[test]
    fn skill_md_is_read_in_tagged_fences_and_commands_of_untagged_blocks() {
        let text = "---\nname: x\nhomepage: https://front.io\n---\nSee https://prose.io\n```bash\n$ curl https://a.io\n# comment\n```\n```\ncurl https://untagged.io\n```\n```console\n$ wget https://b.io\nsome output https://out.io\n```\n````python\nimport requests\n````\n";
        let got = lines("SKILL.md", text);
        assert_eq!(
            got,
            vec![
                (7, "curl https://a.io".to_owned(), Lang::Shell),
                (11, "curl https://untagged.io".to_owned(), Lang::Shell),
                (14, "wget https://b.io".to_owned(), Lang::Shell),
                (18, "import requests".to_owned(), Lang::Python),
            ]
        );
        // In an untagged fence or an indented block, commands and their `\` continuations are
        // read; output, trees and prose are not.
        let text = "# Setup\n\n```\n$ curl -fsSL https://get.helpertool.dev \\\n    | sudo bash\ncurl: (6) Could not resolve host\nInstalled helpertool 1.2\nsrc/\n  main.py\n```\n\nOr:\n\n    wget -qO- https://get.helpertool.dev | sh\n    Done.\n\n~~~\nLD_PRELOAD=./hook.so ./app\n~~~\n    indented prose after text is no block\n";
        assert_eq!(
            lines("SKILL.md", text),
            vec![
                (
                    4,
                    "curl -fsSL https://get.helpertool.dev \\".to_owned(),
                    Lang::Shell
                ),
                (5, "| sudo bash".to_owned(), Lang::Shell),
                (
                    14,
                    "wget -qO- https://get.helpertool.dev | sh".to_owned(),
                    Lang::Shell
                ),
                (18, "LD_PRELOAD=./hook.so ./app".to_owned(), Lang::Shell),
            ]
        );
    }

    #[test]
    fn yaml_shell_values_are_shell() {
        let text = "jobs:\n  a:\n    steps:\n      - run: curl -s https://a.io | sh\n      - name: b\n        run: |\n          wget https://b.io\n\n          echo done\n      - uses: x/y@v1\ntest:\n  script:\n    - \"nc host.io 80\"\n";
        let got = lines(".github/workflows/ci.yml", text);
        let shell: Vec<(u32, &str)> = got
            .iter()
            .filter(|l| l.2 == Lang::Shell)
            .map(|l| (l.0, l.1.as_str()))
            .collect();
        assert_eq!(
            shell,
            vec![
                (4, "curl -s https://a.io | sh"),
                (7, "wget https://b.io"),
                (9, "echo done"),
                (13, "nc host.io 80"),
            ]
        );
        assert!(got.iter().any(|l| l.0 == 10 && l.2 == Lang::Config));
    }

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

    #[test]
    fn words_and_lists() {
        let words = Needles::new(["requests", "curl", "-c"]);
        assert_eq!(words.find_word(0, "x = requests.get(u)"), Some(4));
        assert_eq!(words.find_word(0, "my_requests = requests"), Some(14));
        assert_eq!(words.find_word(0, "requests_x"), None);
        assert_eq!(words.find_word(1, "a curl b"), Some(2));
        assert_eq!(words.find_word(2, "sh -c x"), Some(3));
        assert_eq!(words.find(1, "libcurl"), Some(3));
        let items: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(list(&items, 3), "a, b, c and 1 more");
        assert_eq!(list(&items[..2], 3), "a, b");
        assert_eq!(count_of(1, "endpoint", "endpoints"), "1 endpoint");
    }

    #[test]
    fn random_text_in_every_kind_of_file_never_panics() {
        use crate::analysis::{
            Sources, database, dependencies, generated, infrastructure, sensitive,
        };
        let pieces = [
            "curl",
            " ",
            "|",
            "sh",
            "$(",
            ")",
            "\"",
            "'",
            "`",
            "https://",
            "é",
            "«",
            "://",
            "@",
            ":",
            "/",
            ".",
            "io",
            "{",
            "}",
            "<",
            ">",
            "%",
            "*",
            "#",
            "//",
            "--",
            "/*",
            "*/",
            "\n",
            "INSERT",
            "INTO",
            "UPDATE",
            "SET",
            "CREATE",
            "TABLE",
            "sudo",
            "chmod",
            "777",
            "eval",
            "-c",
            "run: |",
            "  ",
            "- ",
            "```bash",
            "```",
            "---",
            "import ",
            "from ",
            "require(",
            "exec(",
            "subprocess.run([",
            "$GITHUB_TOKEN",
            "${{ secrets.",
            "apiVersion:",
            "kind:",
            "\u{fffd}",
            "日本",
            "\t",
            "=",
            ";",
            "&&",
            "\\",
        ];
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            usize::try_from(seed >> 33).unwrap_or(0) % n
        };
        let names = [
            "SKILL.md",
            "a.sh",
            "b.py",
            "c.js",
            "d.sql",
            "e.yaml",
            "f.go",
            "g.rb",
            "h.rs",
            "Dockerfile",
            "package.json",
            "requirements.txt",
            "go.mod",
            "x.tf",
            ".github/workflows/w.yml",
        ];
        for _ in 0..60 {
            let texts: Vec<String> = names
                .iter()
                .map(|_| (0..400).map(|_| pieces[next(pieces.len())]).collect())
                .collect();
            let files: Vec<(&str, &str)> = names
                .iter()
                .copied()
                .zip(texts.iter().map(String::as_str))
                .collect();
            let sources = Sources::from_texts(&files);
            let meta = crate::skill::SkillMeta {
                allowed_tools: vec![texts[0].chars().take(20).collect()],
                ..Default::default()
            };
            let deps = dependencies::analyze(&sources, &meta);
            let _ = (deps.count(), deps.reason());
            let _ = sensitive::analyze(&sources).reason();
            let _ = infrastructure::analyze(&sources, &meta).reason();
            let _ = database::analyze(&sources).reason();
            let _ = generated::analyze(&sources, &meta).reason();
        }
    }
}
