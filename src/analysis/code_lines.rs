//! Which lines of a skill's files are code, in which language: comments and Markdown prose
//! left out.
//!
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

use super::Source;
use super::line_commands::unquote;
use super::paths::{base_name, is_skill_file};

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
}
