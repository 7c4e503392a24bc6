//! Files a `SKILL.md` body refers to must exist inside the skill: an agent that follows a link
//! to a file the skill does not ship, or runs a command on one, is left guessing.
//!
//! Read with a CommonMark parser, three kinds of reference, from the surest to the weakest:
//! - **links**: the destination of a Markdown link or image (`[run](scripts/run.sh)`,
//!   `![flow](assets/flow.png)`) and of a link reference definition (`[run]: scripts/run.sh`),
//!   unless it is a URL (`https:`, `mailto:`, any `scheme:`), `//host`, an anchor (`#usage`),
//!   an absolute or home path (`/etc/x`, `~/x`), `www.…`, or a template (`{{x}}`, `${X}`, `<x>`);
//!   its `#fragment` and `?query` are dropped and `%20` decoded. Missing: an error.
//! - **commands**: the files the commands of the shell fences run or read, as
//!   [`super::commands`] tells them (`python3 scripts/run.py`, `cat references/api.md`,
//!   `${CLAUDE_SKILL_DIR}/scripts/x.sh`, `python3 build.py` after `cd "$SKILL_DIR/scripts"`):
//!   those under the skill's directory variable, and the relative ones in `scripts/`,
//!   `references/`, `assets/` or a directory the skill has. A path another tool runs (`uv run
//!   scripts/x.py`, `npx`, `make`) is the user's. A block in no language (unlabelled, `text`,
//!   indented) counts only its lines that start with an interpreter or a reader, for a path
//!   under the variable or in the spec's three directories. Missing: an error, unless an earlier
//!   command writes it (`> references/summary.md`, `tee`, `mkdir`, `cp`, `-o`).
//! - **mentions**: in inline code in prose, each word that starts with `scripts/`,
//!   `references/` or `assets/` (the spec's directories; `skilo` checks the same three) or
//!   the skill's directory variable. Prose also names the user's files and the folders a skill
//!   writes to, so a missing one is only a warning, said once per path, and never for a
//!   directory (`assets/visuals/`, or a last part without an extension: `scripts/lib`), a glob or
//!   placeholder (`scripts/*.sh`, `scripts/<name>.py`), a path after another tool
//!   (`` `uv run scripts/validate.py` ``), a path a link or command already reports, or a table
//!   none of whose paths the skill has (it describes another tree: the user's project), or a
//!   file the skill's commands write.
//!
//! Raw HTML, and code blocks in another language (Python, JSON, …), are never read.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::commands::{self, Target};
use crate::skill::Finding;

/// Past this many, the rest of a body's broken references are counted, not listed.
pub const MAX_FINDINGS: usize = 50;

/// What ends a word of inline code besides whitespace: `open('assets/x.png')`,
/// `--config=references/a.toml`.
const WORD_BREAKS: &[char] = &['(', ')', '\'', '"', '=', ',', ';'];

/// The spec's directories: a word in inline code starting with one of them names a file.
const SKILL_DIRS: &[&str] = &["scripts/", "references/", "assets/"];

/// How a reference was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A link, image or link reference definition.
    Link,
    /// A word in inline code.
    Code,
}

/// A relative path the body refers to, where it is written (1-based, in the body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// As written, for messages.
    pub written: String,
    /// The path, relative to the skill directory: no fragment, query or percent-escapes.
    pub path: String,
    pub kind: Kind,
    pub line: usize,
    pub column: usize,
    /// Inline code that runs the file itself: the first word of its span, written `./x`, under
    /// the skill's directory variable, or followed by arguments (`scripts/x.py --json`).
    pub executes: bool,
    /// The table it stands in (counted from 0), if any.
    pub table: Option<usize>,
}

/// The references of a Markdown body, in the order they are written: links, and the words of
/// inline code that name a file of the skill (see the module's docs). `name` is the skill's
/// directory name (for its installed path, `~/.claude/skills/<name>/`).
pub fn references(body: &str, name: &str) -> Vec<Reference> {
    let lines = LineIndex::new(body);
    let mut found = Vec::new();
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let parser = Parser::new_ext(body, options);
    for (_, def) in parser.reference_definitions().iter() {
        if let Some(path) = link_path(&def.dest) {
            let at = find_after(body, def.span.clone(), "]:", &def.dest);
            found.push(lines.reference(&def.dest, path, Kind::Link, at));
        }
    }
    let mut tables = 0;
    let mut table = None;
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Table(_)) => {
                table = Some(tables);
                tables += 1;
            }
            Event::End(TagEnd::Table) => table = None,
            Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                title,
                ..
            })
            | Event::Start(Tag::Image {
                link_type: LinkType::Inline,
                dest_url,
                title,
                ..
            }) => {
                if let Some(path) = link_path(&dest_url) {
                    let at = destination(body, range, &dest_url, &title);
                    found.push(lines.reference(&dest_url, path, Kind::Link, at));
                }
            }
            Event::Code(code) => {
                let span = &body[range.clone()];
                for (at, written, path, executes) in code_paths(&code, span, name) {
                    let mut r = lines.reference(written, path, Kind::Code, range.start + at);
                    r.executes = executes;
                    r.table = table;
                    found.push(r);
                }
            }
            _ => {}
        }
    }
    found.sort_by_key(|r| (r.line, r.column));
    found
}

/// The paths of one inline code span: offset in `span` (the span as written, with backticks),
/// the word as written, the path, and whether the span runs it. None when the span is a command
/// of another tool (`uv run scripts/x.py`, `npm run scripts/x`, `git add scripts/x.py`).
fn code_paths<'c>(code: &'c str, span: &str, name: &str) -> Vec<(usize, &'c str, String, bool)> {
    let tokens: Vec<&str> = code.split_whitespace().collect();
    // Past a prompt, assignments and wrappers (`$ FOO=1 sudo …`) to the program.
    let first = tokens.iter().position(|t| {
        !(*t == "$" || commands_is_assignment(t) || crate::analysis::line_commands::is_wrapper(t))
    });
    let Some(first) = first else {
        return Vec::new();
    };
    let program = tokens[first];
    let is_program = first + 1 < tokens.len()
        && !program.contains('/')
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-'));
    if is_program && !commands::is_interpreter(program) && !commands::is_reader(program) {
        return Vec::new();
    }
    let path_first = !is_program;
    let mut found = Vec::new();
    let mut from = 0;
    let words = code
        .split(|c: char| c.is_whitespace() || WORD_BREAKS.contains(&c))
        .filter(|w| !w.is_empty());
    for word in words {
        let offset = span[from..].find(word).map(|i| from + i);
        if let Some(i) = offset {
            from = i + word.len();
        }
        if let Some((lead, written, path, prefixed)) = code_path(word, name) {
            let executes = path_first
                && word == program
                && (written.starts_with("./") || prefixed || tokens.len() > first + 1);
            found.push((offset.map_or(0, |i| i + lead), written, path, executes));
        }
    }
    found
}

/// `NAME=value`.
fn commands_is_assignment(token: &str) -> bool {
    token.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Check every reference of `body` (which starts at line `body_line` of `file`, whose whole
/// text is `text`) against the skill directory `skill_dir`, named `name`.
pub fn check(
    text: &str,
    body: &str,
    body_line: usize,
    file: &str,
    skill_dir: &Path,
    name: &str,
) -> Vec<Finding> {
    let exists =
        |inside: &str| inside.is_empty() || std::fs::metadata(skill_dir.join(inside)).is_ok();
    let refs = references(body, name);
    let commands = commands::read(text, name);
    // What the skill's commands write is not a file it ships.
    let made = |path: &str| commands.made.contains(path);
    let mut findings: Vec<Finding> = Vec::new();
    // Paths an error or a warning already names: a mention of them adds nothing.
    let mut reported: BTreeSet<String> = BTreeSet::new();
    for r in refs
        .iter()
        .filter(|r| r.kind == Kind::Link && !made(&r.path))
    {
        let line = Some(body_line + r.line - 1);
        let written = Written {
            text: &r.written,
            cwd: None,
        };
        if let Some(finding) = missing(file, line, r.column, written, &r.path, &exists, None) {
            if let Some(inside) = normalize(&r.path) {
                reported.insert(inside);
            }
            findings.push(finding);
        }
    }
    let index = LineIndex::new(text);
    for u in &commands.uses {
        let counts = match &u.target {
            Target::Skill(_) => true,
            Target::Relative(path) => {
                SKILL_DIRS.iter().any(|d| path.starts_with(d))
                    || path.split_once('/').is_some_and(|(dir, _)| {
                        std::fs::metadata(skill_dir.join(dir)).is_ok_and(|m| m.is_dir())
                    })
            }
        };
        if !counts {
            continue;
        }
        let (line, column) = u
            .offset
            .map_or((u.line, 1), |offset| index.position(offset));
        let how = match u.how {
            commands::How::Executes | commands::How::Runs => "runs",
            commands::How::Reads => "reads",
        };
        let written = Written {
            text: &u.written,
            cwd: u.cwd.as_deref(),
        };
        if let Some(finding) = missing(
            file,
            Some(line),
            column,
            written,
            u.target.path(),
            &exists,
            Some(how),
        ) {
            if let Some(inside) = normalize(u.target.path()) {
                reported.insert(inside);
            }
            findings.push(finding);
        }
    }
    // A table none of whose paths the skill has describes another tree.
    let foreign_tables: BTreeSet<usize> = {
        let mut tables: std::collections::BTreeMap<usize, bool> = Default::default();
        for r in refs
            .iter()
            .filter(|r| r.kind == Kind::Code && is_file_like(&r.path))
        {
            if let Some(t) = r.table {
                let has = normalize(&r.path).is_some_and(|p| exists(&p));
                *tables.entry(t).or_default() |= has;
            }
        }
        tables
            .into_iter()
            .filter(|(_, has)| !has)
            .map(|(t, _)| t)
            .collect()
    };
    for r in refs.iter().filter(|r| r.kind == Kind::Code) {
        if !is_file_like(&r.path) || r.table.is_some_and(|t| foreign_tables.contains(&t)) {
            continue;
        }
        let Some(inside) = normalize(&r.path) else {
            findings.push(outside(
                file,
                Some(body_line + r.line - 1),
                r.column,
                &r.written,
            ));
            continue;
        };
        if exists(&inside) || made(&inside) || !reported.insert(inside.clone()) {
            continue;
        }
        let what = if r.written == inside {
            format!("`{inside}` is")
        } else {
            format!("`{}` names `{inside}`, which is", r.written)
        };
        findings.push(
            Finding::warning(
                "reference-mention-missing",
                file,
                Some(body_line + r.line - 1),
                format!(
                    "{what} not in the skill: add it or fix the name; if it is a file of the \
                     user's project, this is no error (a link or a command in a shell block \
                     would make it one)"
                ),
            )
            .at_column(r.column),
        );
    }
    findings.sort_by_key(|f| (f.line, f.column));
    if findings.len() > MAX_FINDINGS {
        let more = findings.len() - MAX_FINDINGS;
        findings.truncate(MAX_FINDINGS);
        findings.push(Finding::error(
            "reference-missing",
            file,
            None,
            format!("and {more} more references that are not in the skill (or outside it)"),
        ));
    }
    findings
}

/// Whether a path names a file: not a directory (`assets/visuals/`), and its last part has an
/// extension (`scripts/lib`, `assets/output` are folders as often as files).
fn is_file_like(path: &str) -> bool {
    !path.ends_with('/')
        && path
            .rsplit('/')
            .next()
            .and_then(|last| last.rsplit_once('.'))
            .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty())
}

/// A reference as written, and the directory a `cd` before it went to (as written).
#[derive(Clone, Copy)]
struct Written<'a> {
    text: &'a str,
    cwd: Option<&'a str>,
}

/// The finding for a reference to `path` (written `written`, at `line`/`column` of `file`) when
/// it is outside the skill or missing; `command` says what a command does with it.
fn missing(
    file: &str,
    line: Option<usize>,
    column: usize,
    written: Written<'_>,
    path: &str,
    exists: &dyn Fn(&str) -> bool,
    command: Option<&str>,
) -> Option<Finding> {
    let Some(inside) = normalize(path) else {
        return Some(outside(file, line, column, written.text));
    };
    // `metadata` follows symlinks: a link to nothing is as missing as no file.
    if exists(&inside) {
        return None;
    }
    let what = match written.cwd {
        Some(cwd) if written.text == inside => format!("`{inside}` (after `cd {cwd}`) is"),
        Some(cwd) => format!(
            "`{}` (after `cd {cwd}`) names `{inside}`, which is",
            written.text
        ),
        None if written.text == inside => format!("`{inside}` is"),
        None => format!("`{}` names `{inside}`, which is", written.text),
    };
    let message = match command {
        None => format!("{what} not in the skill: add it, or fix the reference"),
        Some(how) => format!(
            "{what} not in the skill, and this command {how} it: add it, or fix the command"
        ),
    };
    Some(Finding::error("reference-missing", file, line, message).at_column(column))
}

fn outside(file: &str, line: Option<usize>, column: usize, written: &str) -> Finding {
    Finding::warning(
        "reference-outside-skill",
        file,
        line,
        format!(
            "`{written}` points outside the skill: a skill is installed as its own directory, \
             and the file will not be there"
        ),
    )
    .at_column(column)
}

/// A link destination as a path relative to the skill, or `None` when it is not one.
fn link_path(dest: &str) -> Option<String> {
    let dest = dest.trim();
    let scheme = dest
        .split_once(':')
        .is_some_and(|(scheme, _)| is_scheme(scheme));
    if dest.is_empty()
        || dest.starts_with(['#', '/', '\\', '~'])
        || scheme
        || dest.starts_with("www.")
        || dest.contains(['{', '}', '$', '<', '>', '*'])
    {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or_default();
    let path = percent_decode(path);
    (!path.is_empty()).then_some(path)
}

/// `https`, `mailto`, `vscode`, `C` (a Windows drive): letters, then letters, digits, `+-.`.
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A word of inline code as a path in one of the spec's directories or under the skill's
/// directory variable: how many bytes of brackets come before it, the word without them (or a
/// closing `.`), the path, and whether it stood under the variable. `None` when it is not one.
fn code_path<'w>(word: &'w str, name: &str) -> Option<(usize, &'w str, String, bool)> {
    let trimmed = word.trim_start_matches('[');
    let lead = word.len() - trimmed.len();
    let written = trimmed.trim_end_matches([']', '.', ':']);
    // `scripts/run.py:42` and `scripts/run.py#L42` name the file.
    let path = written.split('#').next().unwrap_or(written);
    let path = match path.split_once(':') {
        Some((file, rest))
            if rest
                .split(':')
                .all(|n| n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            file
        }
        Some(_) => return None,
        None => path,
    };
    let (path, prefixed) = match commands::target(path, name)? {
        Target::Skill(path) => (path, true),
        Target::Relative(path) if SKILL_DIRS.iter().any(|dir| path.starts_with(dir)) => {
            (path, false)
        }
        Target::Relative(_) => return None,
    };
    // `plain` keeps a trailing `/`: a directory, which the caller leaves alone.
    let path = if written.ends_with('/') && !path.ends_with('/') {
        format!("{path}/")
    } else {
        path
    };
    Some((lead, written, path, prefixed))
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs out of the skill. `""` is the skill itself.
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

/// `%20` → ` `; anything not a valid escape of UTF-8 is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// Where an inline link's destination starts: after the last `](` of the link followed by it.
/// Only the link's tail is searched (where destination and title stand), so that images nested
/// a hundred thousand deep cost no more than one.
fn destination(body: &str, range: Range<usize>, dest: &str, title: &str) -> usize {
    let window = 3 * (dest.len() + title.len()) + 64;
    let mut from = range.end.saturating_sub(window).max(range.start);
    while !body.is_char_boundary(from) {
        from += 1;
    }
    let span = &body[from..range.end];
    span.rmatch_indices("](")
        .find_map(|(i, _)| {
            let after = &span[i + 2..];
            let skipped = after.len() - after.trim_start_matches([' ', '\t', '\n', '<']).len();
            after[skipped..]
                .starts_with(dest)
                .then_some(from + i + 2 + skipped)
        })
        .unwrap_or(range.start)
}

/// Where `needle` first stands after `marker` in `body[range]`; the range's start if nowhere.
fn find_after(body: &str, range: Range<usize>, marker: &str, needle: &str) -> usize {
    let span = &body[range.clone()];
    let from = span.find(marker).map_or(0, |i| i + marker.len());
    span[from..]
        .find(needle)
        .map_or(range.start, |i| range.start + from + i)
}

/// Byte offsets to 1-based lines and columns (in characters), each in constant time: a
/// megabyte on one line with a reference every few bytes costs one pass, in any order.
struct LineIndex<'a> {
    bytes: &'a [u8],
    starts: Vec<usize>,
    /// Characters before each 64-byte block.
    blocks: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    const BLOCK: usize = 64;

    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
            .collect();
        let mut blocks = Vec::with_capacity(bytes.len() / Self::BLOCK + 1);
        let mut chars = 0;
        for block in bytes.chunks(Self::BLOCK) {
            blocks.push(chars);
            chars += block.iter().filter(|&&b| !is_continuation(b)).count();
        }
        blocks.push(chars);
        Self {
            bytes,
            starts,
            blocks,
        }
    }

    /// Characters in the text before `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len());
        let block = offset / Self::BLOCK;
        self.blocks[block]
            + self.bytes[block * Self::BLOCK..offset]
                .iter()
                .filter(|&&b| !is_continuation(b))
                .count()
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line.saturating_sub(1)];
        (
            line,
            self.chars_before(offset) - self.chars_before(start) + 1,
        )
    }

    fn reference(&self, written: &str, path: String, kind: Kind, offset: usize) -> Reference {
        let (line, column) = self.position(offset);
        Reference {
            written: written.to_owned(),
            path,
            kind,
            line,
            column,
            executes: false,
            table: None,
        }
    }
}

/// A UTF-8 byte that continues a character.
fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(path, kind, line, column)` of every reference.
    fn refs(body: &str) -> Vec<(String, Kind, usize, usize)> {
        references(body, "pdf")
            .into_iter()
            .map(|r| (r.path, r.kind, r.line, r.column))
            .collect()
    }

    fn r(path: &str, kind: Kind, line: usize, column: usize) -> (String, Kind, usize, usize) {
        (path.to_owned(), kind, line, column)
    }

    #[test]
    fn links_images_and_definitions_are_references() {
        let body = "# Title\n\nSee [the guide](references/guide.md#setup) and\n![flow](assets/flow%20chart.png \"Flow\").\n\n[run]: ./scripts/run.sh\n\nUse [run] or [the runner][run].\n";
        assert_eq!(
            refs(body),
            vec![
                r("references/guide.md", Kind::Link, 3, 17),
                r("assets/flow chart.png", Kind::Link, 4, 9),
                r("./scripts/run.sh", Kind::Link, 6, 8),
            ],
            "a reference link is checked once, at its definition"
        );
    }

    #[test]
    fn urls_anchors_absolute_paths_and_templates_are_not() {
        let body = "[a](https://example.com/x.md) [b](#usage) [c](/etc/passwd) [d](~/x)\n\
                    [e](mailto:me@example.com) [f](//cdn.example.com/x.js) [g](www.example.com)\n\
                    [h]({{base}}/x.md) [i](${DIR}/x) [j](C:/x) <https://example.com> [k](?q=1)\n";
        assert_eq!(refs(body), Vec::new());
    }

    #[test]
    fn code_samples_are_not_references() {
        let body = "```bash\nbash scripts/missing.sh\n[x](missing.md)\n```\n\n    [y](missing.md)\n\n<a href=\"missing.md\">x</a>\n\n~~~\n`scripts/in-fence.sh`\n~~~\n";
        assert_eq!(refs(body), Vec::new());
    }

    #[test]
    fn inline_code_words_in_the_spec_directories_are_references() {
        let body = "Run `python3 scripts/report.py --json data.csv` or `./scripts/run.sh`,\nread `references/api.md:12`; not `src/app.py`, `scripts/*.sh`, `scripts/<name>.py`,\n`assets/…` or `tests/run.py`. `open('assets/logo.png')`\n";
        assert_eq!(
            refs(body),
            vec![
                r("scripts/report.py", Kind::Code, 1, 14),
                r("scripts/run.sh", Kind::Code, 1, 53),
                r("references/api.md", Kind::Code, 2, 7),
                r("assets/logo.png", Kind::Code, 3, 38),
            ]
        );
        let found = references(body, "pdf");
        assert_eq!(found[3].written, "assets/logo.png");
        let executes: Vec<bool> = found.iter().map(|r| r.executes).collect();
        assert_eq!(executes, vec![false, true, false, false]);
    }

    #[test]
    fn inline_code_of_another_tool_names_the_users_files() {
        let body =
            "Run `uv run scripts/validate-skills.py`, `npm run scripts/x`, `make -f scripts/a.mk`,
`git add scripts/b.py`, `FOO=1 npx tsx scripts/c.ts`; but `sudo bash scripts/d.sh` and
`python3 ${CLAUDE_SKILL_DIR}/scripts/e.py` and `~/.claude/skills/pdf/references/f.md`.
";
        assert_eq!(
            refs(body),
            vec![
                r("scripts/d.sh", Kind::Code, 2, 70),
                r("scripts/e.py", Kind::Code, 3, 10),
                r("references/f.md", Kind::Code, 3, 49),
            ]
        );
    }

    #[test]
    fn columns_count_characters_and_handle_repeats() {
        let body = "Ünïcödé [scripts/a.sh](scripts/a.sh)\n`scripts/b.sh scripts/b.sh`\n";
        assert_eq!(
            refs(body),
            vec![
                r("scripts/a.sh", Kind::Link, 1, 24),
                r("scripts/b.sh", Kind::Code, 2, 2),
                r("scripts/b.sh", Kind::Code, 2, 15),
            ]
        );
    }

    #[test]
    fn paths_are_normalized_and_may_not_climb_out() {
        assert_eq!(
            normalize("./scripts/../assets/x.png"),
            Some("assets/x.png".into())
        );
        assert_eq!(normalize("scripts/"), Some("scripts".into()));
        assert_eq!(normalize("."), Some(String::new()));
        assert_eq!(normalize("../other/SKILL.md"), None);
        assert_eq!(normalize("a/../../x"), None);
        assert_eq!(percent_decode("a%20b%zz%"), "a b%zz%");
        assert_eq!(percent_decode("%ff"), "%ff", "not UTF-8: kept as written");
    }

    /// `(rule, severity, line, column)` of each finding of `check` on a `SKILL.md` whose
    /// frontmatter takes lines 1-5.
    fn checked(
        body: &str,
        dir: &Path,
    ) -> Vec<(String, crate::skill::Severity, Option<usize>, Option<usize>)> {
        let text = format!("---\nname: pdf\ndescription: d\nlicense: MIT\n---\n{body}");
        check(&text, body, 6, "s/pdf/SKILL.md", dir, "pdf")
            .into_iter()
            .map(|f| (f.rule, f.severity, f.line, f.column))
            .collect()
    }

    fn at(
        rule: &str,
        severity: crate::skill::Severity,
        line: usize,
        column: usize,
    ) -> (String, crate::skill::Severity, Option<usize>, Option<usize>) {
        (rule.to_owned(), severity, Some(line), Some(column))
    }

    #[test]
    fn missing_and_outside_references_are_findings_at_their_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/run.sh"), "#!/bin/sh\n").expect("write");
        std::fs::write(dir.path().join("guide.md"), "# guide\n").expect("write");
        std::os::unix::fs::symlink("nowhere", dir.path().join("dangling.md")).expect("link");
        let body = "[guide](guide.md) [run](scripts/run.sh) [dir](scripts/) [here](.)\n\
                    [gone](references/gone.md) `scripts/gone.py` [up](../shared/x.md)\n\
                    [dangling](dangling.md)\n";
        let text = format!("---\nname: pdf\ndescription: d\nlicense: MIT\n---\n{body}");
        let findings = check(&text, body, 6, "s/pdf/SKILL.md", dir.path(), "pdf");
        use crate::skill::Severity::{Error, Warning};
        assert_eq!(
            checked(body, dir.path()),
            vec![
                at("reference-missing", Error, 7, 8),
                at("reference-mention-missing", Warning, 7, 29),
                at("reference-outside-skill", Warning, 7, 51),
                at("reference-missing", Error, 8, 12),
            ]
        );
        assert_eq!(
            findings[0].message,
            "`references/gone.md` is not in the skill: add it, or fix the reference"
        );
        assert!(
            findings[1]
                .message
                .starts_with("`scripts/gone.py` is not in the skill: add it or fix the name; if it is a file of the user's project"),
            "{}",
            findings[1].message
        );
        assert_eq!(
            findings[3].message, "`dangling.md` is not in the skill: add it, or fix the reference",
            "a symlink to nothing is missing"
        );
        assert!(findings.iter().all(|f| f.file == "s/pdf/SKILL.md"));
    }

    #[test]
    fn commands_in_shell_fences_require_the_files_they_run_or_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("tools")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/run.py"), "print(1)\n").expect("write");
        let body = "```bash\npython3 scripts/run.py\npython3 scripts/gone.py --in x\ncat references/api.md\n\
                    uv run scripts/validate.py\nnpx tsx scripts/user.ts\npython3 app.py\n\
                    bash tools/setup.sh\n\"${CLAUDE_SKILL_DIR}/scripts/x.sh\" --fast\n\
                    python3 \"$SKILL_DIR/../other/y.py\"\n```\n\n```python\nopen(\"assets/x.png\")\n```\n\
                    Then `scripts/gone.py` again.\n";
        use crate::skill::Severity::{Error, Warning};
        assert_eq!(
            checked(body, dir.path()),
            vec![
                at("reference-missing", Error, 8, 9),
                at("reference-missing", Error, 9, 5),
                at("reference-missing", Error, 13, 6),
                at("reference-missing", Error, 14, 1),
                at("reference-outside-skill", Warning, 15, 9),
            ],
            "the user's files (uv run, npx, app.py), the Python block and a mention of a path \
             a command already reports say nothing"
        );
        let text = format!("---\nname: pdf\ndescription: d\nlicense: MIT\n---\n{body}");
        let findings = check(&text, body, 6, "s/pdf/SKILL.md", dir.path(), "pdf");
        assert_eq!(
            findings[0].message,
            "`scripts/gone.py` is not in the skill, and this command runs it: add it, or fix the command"
        );
        assert_eq!(
            findings[2].message,
            "`tools/setup.sh` is not in the skill, and this command runs it: add it, or fix the command",
            "a relative path in a directory the skill has is the skill's"
        );
        assert_eq!(
            findings[3].message,
            "`${CLAUDE_SKILL_DIR}/scripts/x.sh` names `scripts/x.sh`, which is not in the skill, and this command runs it: add it, or fix the command"
        );
    }

    #[test]
    fn plain_blocks_cd_and_written_files_decide_what_a_command_needs() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/present.py"), "print(1)\n").expect("write");
        let body = "```\npython3 scripts/build_report.py --input data.csv\nusage: x\n```\n\
                    ```bash\ncd \"${CLAUDE_SKILL_DIR}/scripts\"\npython3 build.py\n\
                    python3 present.py > ../references/summary.md\n```\n\
                    ```bash\ncat \"$SKILL_DIR/references/summary.md\" references/other.md\n```\n\
                    Read [the summary](references/summary.md), also `references/summary.md`.\n";
        use crate::skill::Severity::Error;
        assert_eq!(
            checked(body, dir.path()),
            vec![
                at("reference-missing", Error, 7, 9),
                at("reference-missing", Error, 12, 9),
                at("reference-missing", Error, 16, 40),
            ],
            "the summary a command writes is needed neither by `cat`, the link nor the mention"
        );
        let text = format!("---\nname: pdf\ndescription: d\nlicense: MIT\n---\n{body}");
        let findings = check(&text, body, 6, "s/pdf/SKILL.md", dir.path(), "pdf");
        assert_eq!(
            findings[0].message,
            "`scripts/build_report.py` is not in the skill, and this command runs it: add it, \
             or fix the command",
            "a command in a block in no language is a command: an error"
        );
        assert_eq!(
            findings[1].message,
            "`build.py` (after `cd ${CLAUDE_SKILL_DIR}/scripts`) names `scripts/build.py`, which \
             is not in the skill, and this command runs it: add it, or fix the command"
        );
        assert_eq!(
            findings[2].message,
            "`references/other.md` is not in the skill, and this command reads it: add it, or \
             fix the command"
        );
    }

    #[test]
    fn prose_never_warns_about_directories_globs_other_tools_or_a_users_table() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/extract.py"), "print(1)\n").expect("write");
        let body = "Save charts to `assets/visuals/`, never call the child's `scripts/`, keep `scripts/lib`.\n\
                    Validate with `uv run scripts/validate-skills.py` or `npm run scripts/x`.\n\
                    \n\
                    | Script | Does |\n\
                    |---|---|\n\
                    | `scripts/build.sh` | builds the user's app |\n\
                    | `scripts/deploy.sh` | deploys it |\n\
                    \n\
                    | Ours | Does |\n\
                    |---|---|\n\
                    | `scripts/extract.py` | extracts |\n\
                    | `scripts/lost.py` | lost |\n\
                    \n\
                    Read `references/missing.md`, then `references/missing.md` again.\n";
        use crate::skill::Severity::Warning;
        assert_eq!(
            checked(body, dir.path()),
            vec![
                at("reference-mention-missing", Warning, 17, 4),
                at("reference-mention-missing", Warning, 19, 7),
            ],
            "a table the skill has none of is the user's; one warning per path"
        );
    }

    #[test]
    fn a_flood_of_broken_references_is_counted_past_fifty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let body = "[x](gone.md)\n".repeat(10_000);
        let findings = check(&body, &body, 1, "SKILL.md", dir.path(), "pdf");
        assert_eq!(findings.len(), MAX_FINDINGS + 1);
        assert_eq!(
            findings[MAX_FINDINGS].message,
            "and 9950 more references that are not in the skill (or outside it)"
        );
    }

    #[test]
    fn pathological_markdown_stays_fast() {
        let started = std::time::Instant::now();
        for body in [
            "[".repeat(200_000),
            "[a](".repeat(100_000),
            "`".repeat(200_000),
            "*a ".repeat(100_000),
            "> ".repeat(100_000),
            "- ".repeat(100_000),
            "![".repeat(100_000) + &"](x)".repeat(100_000),
            "[x]: y\n".repeat(100_000),
        ] {
            let _ = references(&body, "pdf");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "took {:?}",
            started.elapsed()
        );
    }
}
