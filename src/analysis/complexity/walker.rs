//! Parses one file within a time limit and walks its tree once, without recursion, handing each
//! node to a language's [`Rules`]: a function opens a scope, a decision point adds one to the
//! innermost open scope, and what lies outside every function belongs to the file's
//! [`GLOBAL`] pseudo-function.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, ParseState, Parser};

use super::functions::GLOBAL;

/// Names longer than this (a long member chain, deep nesting) are cut.
const MAX_NAME_CHARS: usize = 120;

/// What a language counts: which nodes are functions and which are decision points.
pub(super) trait Rules {
    fn grammar(&self) -> tree_sitter::Language;

    /// When `node` is a function: its name and the line it is reported at.
    fn function(&self, node: Node<'_>, parent: Option<Node<'_>>, src: &str) -> Option<Signature>;

    /// How many decision points `node` itself adds (its descendants are visited on their own).
    fn decisions(&self, node: Node<'_>, parent: Option<Node<'_>>, src: &str) -> u32;

    /// Whether a nested function's name is prefixed with its enclosing function's (`outer.inner`).
    fn nested_names(&self) -> bool {
        false
    }
}

/// A function as a language names it.
pub(super) struct Signature {
    pub name: String,
    /// 1-based.
    pub line: u32,
}

/// One measured function of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Measured {
    pub name: String,
    pub line: u32,
    pub complexity: u32,
}

/// A file's functions, its top-level code first, and where its first syntax error is.
#[derive(Debug)]
pub(super) struct FileMeasure {
    pub functions: Vec<Measured>,
    pub first_error_line: Option<u32>,
}

/// Parse `text` (giving up after `limit`) and measure every function in it.
pub(super) fn measure_file(
    parser: &mut Parser,
    rules: &dyn Rules,
    text: &str,
    limit: Duration,
) -> Result<FileMeasure, String> {
    parser
        .set_language(&rules.grammar())
        .map_err(|e| format!("the grammar could not be loaded ({e})"))?;
    let deadline = Instant::now() + limit;
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
    let Some(tree) = tree else {
        return Err(format!(
            "not parsed within {} s: not measured",
            limit.as_secs()
        ));
    };
    Ok(walk(tree.root_node(), rules, text))
}

fn walk(root: Node<'_>, rules: &dyn Rules, src: &str) -> FileMeasure {
    let mut functions = vec![Measured {
        name: GLOBAL.to_owned(),
        line: 1,
        complexity: 1,
    }];
    let mut first_error_line = None;
    // Open functions: (depth of the function node, index in `functions`).
    let mut scopes: Vec<(usize, usize)> = Vec::new();
    // The ancestors of the cursor's node; tree-sitter's own `parent()` walks down from the root.
    let mut path: Vec<Node<'_>> = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let depth = path.len();
        while scopes.last().is_some_and(|&(d, _)| d >= depth) {
            scopes.pop();
        }
        if first_error_line.is_none()
            && (node.is_error() || node.is_missing())
            && !crate::analysis::syntax::tolerated(node, src)
        {
            first_error_line = Some(line_of(node));
        }
        let parent = path.last().copied();
        if let Some(signature) = rules.function(node, parent, src) {
            let name = match scopes.last() {
                Some(&(_, outer)) if rules.nested_names() => {
                    format!("{}.{}", functions[outer].name, signature.name)
                }
                _ => signature.name,
            };
            functions.push(Measured {
                name: bounded_name(name),
                line: signature.line,
                complexity: 1,
            });
            scopes.push((depth, functions.len() - 1));
        } else if !node.is_missing() {
            let added = rules.decisions(node, parent, src);
            if added > 0 {
                let scope = scopes.last().map_or(0, |&(_, index)| index);
                let function = &mut functions[scope];
                function.complexity = function.complexity.saturating_add(added);
            }
        }
        if cursor.goto_first_child() {
            path.push(node);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return FileMeasure {
                    functions,
                    first_error_line,
                };
            }
            path.pop();
        }
    }
}

/// The 1-based line a node starts on.
pub(super) fn line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

/// A `function_definition` node's signature, by its `name` field (bash and Python alike).
pub(super) fn function_definition(node: Node<'_>, src: &str) -> Option<Signature> {
    if node.kind() != "function_definition" {
        return None;
    }
    let name = node.child_by_field_name("name")?;
    Some(Signature {
        name: text_of(name, src).to_owned(),
        line: line_of(name),
    })
}

/// The source text of a node.
pub(super) fn text_of<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or_default()
}

/// Whether `node` is the anonymous token `kind` (a keyword or operator, not an identifier).
pub(super) fn is_token(node: Node<'_>, kind: &str) -> bool {
    !node.is_named() && node.kind() == kind
}

/// Printable, at most [`MAX_NAME_CHARS`]: names come from untrusted source text.
fn bounded_name(name: String) -> String {
    if name.chars().count() <= MAX_NAME_CHARS && !name.chars().any(char::is_control) {
        return name;
    }
    let mut bounded: String = name
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect();
    if name.chars().filter(|c| !c.is_control()).count() > MAX_NAME_CHARS {
        bounded.push('…');
    }
    bounded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bounded_and_printable() {
        assert_eq!(bounded_name("main".to_owned()), "main");
        assert_eq!(bounded_name("a\u{1b}[31mb".to_owned()), "a[31mb");
        let long = bounded_name("x".repeat(500));
        assert_eq!(long.chars().count(), MAX_NAME_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}
