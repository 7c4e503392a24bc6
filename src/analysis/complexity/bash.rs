//! bash and sh. lizard has no shell reader, so its rules for C-like languages are carried over:
//! a function is a function definition; `if`, `elif`, `for`, `select`, `while`, `until`, `&&` and
//! `||` (command lists, `[[ ]]`, `(( ))`), the arithmetic `?:`, and each `case` branch except the
//! catch-all `*)` (C's `default:`) add one. `-a`/`-o` inside `[ ]` are words to the parser and
//! are not counted; the text of heredocs and quoted `trap`/`eval` strings is not code to it.

use tree_sitter::Node;

use super::walker::{Rules, Signature, function_definition, text_of};

pub(super) struct Bash;

impl Rules for Bash {
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_bash::LANGUAGE.into()
    }

    fn function(&self, node: Node<'_>, _: Option<Node<'_>>, src: &str) -> Option<Signature> {
        function_definition(node, src)
    }

    fn decisions(&self, node: Node<'_>, parent: Option<Node<'_>>, src: &str) -> u32 {
        if node.kind() == "case_item" {
            return u32::from(!is_catch_all(node, src));
        }
        if node.is_named() {
            return 0;
        }
        match node.kind() {
            "if" | "elif" | "for" | "select" | "while" | "until" | "&&" | "||" => 1,
            "?" => u32::from(parent.is_some_and(|p| p.kind() == "ternary_expression")),
            _ => 0,
        }
    }
}

/// `*)`: the branch taken when no other matches.
fn is_catch_all(item: Node<'_>, src: &str) -> bool {
    let mut cursor = item.walk();
    let mut patterns = item.children_by_field_name("value", &mut cursor);
    let first = patterns.next();
    patterns.next().is_none() && first.is_some_and(|p| text_of(p, src) == "*")
}

#[cfg(test)]
mod tests {
    use crate::analysis::complexity::functions::tests::{measured, rows};

    #[test]
    fn each_decision_point_adds_one() {
        let src = r#"#!/usr/bin/env bash
set -euo pipefail

usage() { echo "usage: $0 [-v] FILE" >&2; }

parse() {
  while getopts "vh" opt; do
    case "$opt" in
      v) verbose=1 ;;
      h|x) usage; exit 0 ;;
      *) usage; exit 2 ;;
    esac
  done
}

function check {
  if [[ -z "${1:-}" || ! -f "$1" ]]; then
    return 1
  elif [ -d "$1" ] && [ -r "$1" ]; then
    return 2
  fi
  for f in "$@"; do :; done
  for ((i = 0; i < 3; i++)); do :; done
  until true; do :; done
  n=$(( i > 2 ? 1 : 0 ))
  select x in a b; do break; done
  out="$(grep -q x "$1" && echo yes || echo no)"
  cat <<EOF
if && || while
EOF
}

parse "$@" || usage
[ "${verbose:-0}" = 1 ] && echo verbose
"#;
        assert_eq!(
            measured("run.sh", src),
            rows(&[
                ("*global*", 1, 3),
                ("usage", 4, 1),
                ("parse", 6, 4),
                ("check", 16, 12),
            ])
        );
    }

    #[test]
    fn nested_definitions_count_on_their_own() {
        let src = "outer() {\n  inner() { [ -n \"$1\" ] && echo; }\n  inner || true\n}\n";
        assert_eq!(
            measured("x.bash", src),
            rows(&[("*global*", 1, 1), ("outer", 1, 2), ("inner", 2, 2)])
        );
    }
}
