//! The pieces of a skill's files that tree-sitter reads, and their parse within a time limit:
//! a script whole, or one code line of a file that only holds code in places (`SKILL.md`
//! fences, YAML `run:` values, `package.json` scripts, Dockerfiles).

use std::ops::ControlFlow;
use std::time::Instant;

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

use super::Source;
use super::code_lines::{CodeLine, Lang, own_code_lines};
use super::complexity::{Language, PARSE_TIME_LIMIT};

/// A grammar the signals read code with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    Bash,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
}

impl Grammar {
    fn language(self) -> tree_sitter::Language {
        match self {
            Self::Bash => tree_sitter_bash::LANGUAGE.into(),
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    pub fn is_javascript(self) -> bool {
        matches!(self, Self::JavaScript | Self::TypeScript | Self::Tsx)
    }
}

/// Code to parse: a whole file, or one line of it (`first_line` is its 1-based number).
#[derive(Debug, Clone)]
pub struct Unit<'a> {
    pub grammar: Grammar,
    pub text: &'a str,
    pub first_line: u32,
}

/// The code of `source` tree-sitter can read: the whole file when it is a script in a parsed
/// language (by extension or shebang), else each code line in such a language on its own; and
/// the whole file once more in each language another file runs it as. Each unit is read on its
/// own: a parse that fails in one language keeps what the others find.
pub fn units(source: &Source) -> Vec<Unit<'_>> {
    let whole = |language: Language| Unit {
        grammar: match language {
            Language::Bash => Grammar::Bash,
            Language::Python => Grammar::Python,
            Language::JavaScript => Grammar::JavaScript,
            Language::TypeScript => Grammar::TypeScript,
            Language::Tsx => Grammar::Tsx,
        },
        text: &source.text,
        first_line: 1,
    };
    let mut units: Vec<Unit<'_>> = match Language::own(source) {
        Some(_) => Vec::new(),
        // PowerShell is not bash: `$x = 1` read as bash is a command named `$x`. Its lines
        // are still read by the line signals ([`super::code_lines`]).
        None if is_powershell_file(source) => Vec::new(),
        None if source.extension() == "md" => fence_units(source, false),
        None => own_code_lines(source)
            .filter_map(|line| line_unit(&line))
            .collect(),
    };
    units.extend(Language::all(source).into_iter().map(whole));
    units
}

fn is_powershell_file(source: &Source) -> bool {
    matches!(source.extension().as_str(), "ps1" | "psm1" | "psd1")
}

/// The commands of a Markdown file's untagged fences and indented blocks (the lines
/// [`super::code_lines`] takes for commands there: a known program first, sample output left out),
/// read as [`fence_units`] reads a tagged block, each run of consecutive lines a unit. Apart
/// from [`units`], whose readers (the lint of `SKILL.md`'s commands) read those blocks their
/// own way.
pub fn plain_units(source: &Source) -> Vec<Unit<'_>> {
    if source.extension() != "md" || Language::own(source).is_some() {
        return Vec::new();
    }
    fence_units(source, true)
}

/// The code of a Markdown file's fences: each block of shell whole, so that a variable set on
/// one line is known on the next and a `\` continues a command, with its first line's number.
/// PowerShell blocks are left out. A block that does not parse as bash is read a line at a
/// time instead, as is a `console` block, whose lines are its prompts. `plain`: the untagged
/// fences and indented blocks only, else the tagged fences only.
fn fence_units(source: &Source, plain: bool) -> Vec<Unit<'_>> {
    let text = source.text.as_str();
    let offset = |line: &CodeLine<'_>| line.text.as_ptr() as usize - text.as_ptr() as usize;
    let at_line_start = |at: usize| at == 0 || text.as_bytes().get(at - 1) == Some(&b'\n');
    let mut blocks: Vec<Vec<CodeLine<'_>>> = Vec::new();
    let mut end = 0;
    for line in own_code_lines(source) {
        let start = offset(&line);
        let same_block = blocks.last().and_then(|b| b.last()).is_some_and(|last| {
            last.lang == line.lang
                && at_line_start(start)
                && at_line_start(offset(last))
                && !text
                    .get(end..start)
                    .unwrap_or_default()
                    .lines()
                    .any(is_fence_marker)
        });
        if same_block {
            if let Some(block) = blocks.last_mut() {
                block.push(line);
            }
        } else {
            blocks.push(vec![line]);
        }
        end = start + line.text.len();
    }
    let fenced = fences(text);
    // Untagged blocks: a run of consecutive lines at a time (sample output between is no part
    // of the commands).
    let blocks: Vec<Vec<CodeLine<'_>>> = blocks
        .into_iter()
        .filter(|b| {
            b.first()
                .is_some_and(|f| untagged(&fenced, offset(f)) == plain)
        })
        .collect();
    let blocks = if plain {
        // Lines next to each other, only whitespace between (no prompt, no output line).
        let mut runs: Vec<Vec<CodeLine<'_>>> = Vec::new();
        for line in blocks.into_iter().flatten() {
            let joins = runs.last().and_then(|r| r.last()).is_some_and(|last| {
                let between = text
                    .get(offset(last) + last.text.len()..offset(&line))
                    .unwrap_or("x");
                last.number + 1 == line.number
                    && between.trim().is_empty()
                    && between.matches('\n').count() == 1
            });
            match runs.last_mut() {
                Some(run) if joins => run.push(line),
                _ => runs.push(vec![line]),
            }
        }
        runs
    } else {
        blocks
    };
    let mut parser = Parser::new();
    let mut units = Vec::new();
    for block in blocks {
        let (Some(first), Some(last)) = (block.first(), block.last()) else {
            continue;
        };
        if first.lang == Lang::Shell && powershell_fence(text, offset(first)) {
            continue;
        }
        let whole = text.get(offset(first)..offset(last) + last.text.len());
        let read_whole = block.len() > 1
            && first.lang == Lang::Shell
            && whole.is_some_and(|whole| {
                parse(&mut parser, Grammar::Bash, whole)
                    .is_some_and(|tree| !has_errors(tree.root_node(), whole))
            });
        match whole {
            Some(whole) if read_whole => units.push(Unit {
                grammar: Grammar::Bash,
                text: whole,
                first_line: first.number,
            }),
            _ => units.extend(block.iter().filter_map(line_unit)),
        }
    }
    units
}

/// The fences of a Markdown text: `(start, end, tag)`, bytes from the opening line to the
/// closing one (or the end), the tag lowercased (empty when untagged).
fn fences(text: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    // (marker, its length, start, tag) of the open fence.
    let mut open: Option<(char, usize, usize, String)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim();
        let Some(marker) = trimmed.chars().next().filter(|c| matches!(c, '`' | '~')) else {
            continue;
        };
        let len = trimmed.chars().take_while(|c| *c == marker).count();
        if indent >= 4 || len < 3 {
            continue;
        }
        let info = &trimmed[len..];
        match &open {
            Some((m, l, from, tag)) if *m == marker && len >= *l && info.trim().is_empty() => {
                found.push((*from, at, tag.clone()));
                open = None;
            }
            Some(_) => {}
            None if !(marker == '`' && info.contains('`')) => {
                open = Some((marker, len, start, fence_tag(info)));
            }
            None => {}
        }
    }
    if let Some((_, _, from, tag)) = open {
        found.push((from, text.len(), tag));
    }
    found
}

/// The tag of a fence's info string: `bash` of `{.bash title="x"}`.
fn fence_tag(info: &str) -> String {
    info.trim()
        .trim_start_matches(['{', '.'])
        .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Whether byte `at` is in an untagged fence or in no fence (an indented block).
fn untagged(fences: &[(usize, usize, String)], at: usize) -> bool {
    let i = fences.partition_point(|(start, _, _)| *start <= at);
    match i.checked_sub(1).and_then(|i| fences.get(i)) {
        Some((_, end, tag)) if at < *end => tag.is_empty(),
        _ => true,
    }
}

/// Whether a tree holds a syntax error that is one: tree-sitter's bash grammar does not know
/// `<>` (`exec 3<>/dev/tcp/host/80` opens a descriptor for reading and writing), valid bash.
pub fn has_errors(root: Node<'_>, src: &str) -> bool {
    root.has_error() && nodes(root).any(|n| (n.is_error() || n.is_missing()) && !tolerated(n, src))
}

/// A syntax error of the bash grammar in valid bash: the `>` of a `<>` redirect.
pub fn tolerated(node: Node<'_>, src: &str) -> bool {
    node.is_error()
        && node
            .parent()
            .is_some_and(|p| p.kind() == "file_redirect" && text(p, src).contains("<>"))
        && matches!(text(node, src).trim(), ">" | "<>")
}

/// A line that opens or closes a Markdown fence.
fn is_fence_marker(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("```") || line.starts_with("~~~")
}

/// Whether the fence around the code at byte `at` is tagged PowerShell.
fn powershell_fence(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or_default();
    let Some(open) = before.lines().rev().find(|l| is_fence_marker(l)) else {
        return false;
    };
    let tag = open
        .trim_start()
        .trim_start_matches(['`', '~'])
        .trim()
        .trim_start_matches(['{', '.'])
        .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(tag.as_str(), "powershell" | "pwsh" | "ps1" | "ps" | "posh")
}

/// A code line in a parsed language, as a unit of its own.
fn line_unit<'a>(line: &CodeLine<'a>) -> Option<Unit<'a>> {
    let grammar = match line.lang {
        Lang::Shell => Grammar::Bash,
        Lang::Python => Grammar::Python,
        Lang::JavaScript => Grammar::JavaScript,
        _ => return None,
    };
    Some(Unit {
        grammar,
        text: strip_instruction(line.text, line.lang),
        first_line: line.number,
    })
}

/// A Dockerfile's `RUN`/`CMD`/`ENTRYPOINT` is not part of the command it runs.
fn strip_instruction(text: &str, lang: Lang) -> &str {
    if lang != Lang::Shell {
        return text;
    }
    let trimmed = text.trim_start();
    for instruction in ["RUN ", "CMD ", "ENTRYPOINT "] {
        if let Some(rest) = trimmed.strip_prefix(instruction) {
            return rest;
        }
    }
    text
}

/// Parse `text`, giving up after [`PARSE_TIME_LIMIT`]; `None` when it did not parse in time.
pub fn parse(parser: &mut Parser, grammar: Grammar, text: &str) -> Option<Tree> {
    parser.set_language(&grammar.language()).ok()?;
    let deadline = Instant::now() + PARSE_TIME_LIMIT;
    let mut progress = |_: &ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    // A cancelled parse leaves state behind that the next parse would resume from.
    parser.reset();
    tree
}

/// Every node of a tree, parents before children, without recursion (a hostile file nests
/// deeper than any stack).
pub fn nodes(root: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = root.walk();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let node = cursor.node();
        if !cursor.goto_first_child() {
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    done = true;
                    break;
                }
            }
        }
        Some(node)
    })
}

/// The text of a node.
pub fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or_default()
}

/// A 1-based line in the file of a node of `unit`.
pub fn line_of(node: Node<'_>, unit: &Unit<'_>) -> u32 {
    let row = u32::try_from(node.start_position().row).unwrap_or(u32::MAX);
    unit.first_line.saturating_add(row)
}

/// At most `max` characters of `text` on one line, `…` when cut: evidence quotes code.
pub fn excerpt(text: &str, max: usize) -> String {
    let one_line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    if one_line.chars().count() > max {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nodes_of_a_deep_tree_are_walked_without_recursion() {
        let deep = format!("x = {}1{}\n", "(".repeat(20_000), ")".repeat(20_000));
        let tree = parse(&mut Parser::new(), Grammar::Python, &deep).expect("parsed");
        assert!(nodes(tree.root_node()).count() > 20_000);
    }

    #[test]
    fn scripts_are_read_whole_and_other_files_by_code_line() {
        let script = Source::new("run.sh", "a\nb\n");
        let units_of = |s: &Source| {
            units(s)
                .iter()
                .map(|u| (u.grammar, u.text.to_owned(), u.first_line))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            units_of(&script),
            vec![(Grammar::Bash, "a\nb\n".to_owned(), 1)]
        );
        let docker = Source::new("Dockerfile", "FROM x\nRUN bash -c \"$X\"\n");
        assert_eq!(
            units_of(&docker)[1],
            (Grammar::Bash, "bash -c \"$X\"".to_owned(), 2)
        );
        assert_eq!(excerpt("a\n  b\u{1b}c", 3), "a b…");
    }

    #[test]
    fn untagged_blocks_are_plain_units_a_run_of_commands_at_a_time() {
        let of = |units: Vec<Unit<'_>>| {
            units
                .iter()
                .map(|u| (u.grammar, u.text.to_owned(), u.first_line))
                .collect::<Vec<_>>()
        };
        let md = Source::new(
            "SKILL.md",
            "---\nname: x\n---\n```\n$ A=1 curl -s x \\\n  | sudo bash\noutput line\n$ echo \"$A\"\n```\n```bash\nls\n```\n\n    chmod +s x\n",
        );
        assert_eq!(of(units(&md)), vec![(Grammar::Bash, "ls".to_owned(), 11)]);
        assert_eq!(
            of(plain_units(&md)),
            vec![
                (
                    Grammar::Bash,
                    "A=1 curl -s x \\\n  | sudo bash".to_owned(),
                    5
                ),
                (Grammar::Bash, "echo \"$A\"".to_owned(), 8),
                (Grammar::Bash, "chmod +s x".to_owned(), 14),
            ]
        );
        assert!(plain_units(&Source::new("run.sh", "curl x\n")).is_empty());
    }

    #[test]
    fn a_read_write_redirect_is_valid_bash() {
        let mut parser = Parser::new();
        let src = "exec 3<>/dev/tcp/localhost/80\necho hi >&3\n";
        let tree = parse(&mut parser, Grammar::Bash, src).expect("parsed");
        // The grammar reports an error the shell does not make.
        assert!(tree.root_node().has_error());
        assert!(!has_errors(tree.root_node(), src));
        let broken = "echo $(\nif then\n";
        let tree = parse(&mut parser, Grammar::Bash, broken).expect("parsed");
        assert!(has_errors(tree.root_node(), broken));
    }

    #[test]
    fn a_skill_md_fence_is_one_unit_and_powershell_none() {
        let units_of = |s: &Source| {
            units(s)
                .iter()
                .map(|u| (u.grammar, u.text.to_owned(), u.first_line))
                .collect::<Vec<_>>()
        };
        let md = Source::new(
            "SKILL.md",
            "---\nname: x\n---\n```bash\nA=1 # one\n\necho \"$A\" \\\n  x\n```\n```pwsh\n$x = 1\n```\n```console\n$ ls\n$ pwd\n```\n",
        );
        assert_eq!(
            units_of(&md),
            vec![
                (
                    Grammar::Bash,
                    "A=1 # one\n\necho \"$A\" \\\n  x".to_owned(),
                    5
                ),
                (Grammar::Bash, "ls".to_owned(), 14),
                (Grammar::Bash, "pwd".to_owned(), 15),
            ]
        );
        assert!(units(&Source::new("setup.ps1", "$x = 1\n$x | Out-Null\n")).is_empty());
    }
}
