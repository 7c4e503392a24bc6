//! JavaScript and TypeScript (with JSX), as lizard reads them. A function is a declaration, a
//! function or arrow expression, or a method; it takes the name it is bound to (`const f = …`,
//! `key: …`, `obj.prop = …`, a class field) or is `(anonymous)`, and getters and setters are
//! `get x`/`set x`. Each `if`, `for`, `while`, `catch`, `case`, `&&`, `||`, `??` (and their
//! assignment forms), ternary `?`, TypeScript conditional type `?`, and each default value of a
//! parameter or destructured binding adds one.
//!
//! Where lizard's tokenizer reads the code differently, this follows the syntax tree (each case
//! is in the tests below, with lizard 1.24.3's number):
//! - the fields of template literals (`${a ? b : c}`) are code here, opaque to lizard;
//! - an arrow whose expression body starts on the next line keeps it here; lizard ends the arrow
//!   at the line break and gives the rest to the code around it;
//! - a promise's `.catch(…)` is a method call here, a catch clause to lizard;
//! - TypeScript's optional markers (`title?: string`) are not decisions here; lizard counts them
//!   as `?` in `.tsx` and `.jsx` files (not in `.ts`);
//! - methods named `get` or `set` are methods here; lizard takes the name for an accessor prefix
//!   and loses its place in the class;
//! - some constructs make lizard lose track of where a function ends (`f(x || [])` in a `try`,
//!   an arrow inside an arrow's call arguments): it gives the decisions after them to another;
//! - `async` methods of object literals and computed keys (`[k]: () => …`) are functions here,
//!   not to lizard, and a TypeScript overload signature without a body is none here, one to it.

use tree_sitter::Node;

use super::walker::{Rules, Signature, is_token, line_of, text_of};

pub(super) struct JavaScript {
    grammar: fn() -> tree_sitter::Language,
}

impl JavaScript {
    pub(super) const JAVASCRIPT: Self = Self {
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
    };
    pub(super) const TYPESCRIPT: Self = Self {
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    };
    pub(super) const TSX: Self = Self {
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    };
}

const ANONYMOUS: &str = "(anonymous)";

impl Rules for JavaScript {
    fn grammar(&self) -> tree_sitter::Language {
        (self.grammar)()
    }

    fn function(&self, node: Node<'_>, parent: Option<Node<'_>>, src: &str) -> Option<Signature> {
        if !matches!(
            node.kind(),
            "function_declaration"
                | "function_expression"
                | "generator_function_declaration"
                | "generator_function"
                | "arrow_function"
                | "method_definition"
        ) {
            return None;
        }
        let line = node
            .child_by_field_name("parameters")
            .or_else(|| node.child_by_field_name("parameter"))
            .map_or_else(|| line_of(node), line_of);
        Some(Signature {
            name: name(node, parent, src).unwrap_or_else(|| ANONYMOUS.to_owned()),
            line,
        })
    }

    fn decisions(&self, node: Node<'_>, parent: Option<Node<'_>>, _: &str) -> u32 {
        if node.is_named() {
            return 0;
        }
        let parent_kind = parent.map_or("", |p| p.kind());
        u32::from(match node.kind() {
            "if" | "for" | "while" | "catch" | "case" => true,
            "&&" | "||" | "??" | "&&=" | "||=" | "??=" => true,
            "?" => matches!(parent_kind, "ternary_expression" | "conditional_type"),
            // A default value: `(a = 1)`, `{ b = 2 }`, `[c = 3]`.
            "=" => matches!(
                parent_kind,
                "assignment_pattern"
                    | "object_assignment_pattern"
                    | "required_parameter"
                    | "optional_parameter"
            ),
            _ => false,
        })
    }
}

fn name(node: Node<'_>, parent: Option<Node<'_>>, src: &str) -> Option<String> {
    if let Some(own) = node.child_by_field_name("name") {
        let name = key_name(own, src)?;
        // `get size() {…}`: the keyword stands before the name.
        let mut cursor = node.walk();
        let accessor = node
            .children(&mut cursor)
            .take_while(|child| child.id() != own.id())
            .find(|child| is_token(*child, "get") || is_token(*child, "set"));
        return Some(match accessor {
            Some(accessor) => format!("{} {name}", accessor.kind()),
            None => name,
        });
    }
    let parent = parent?;
    let bound = match parent.kind() {
        "variable_declarator" => parent.child_by_field_name("name")?,
        "assignment_expression" => parent.child_by_field_name("left")?,
        "pair" => parent.child_by_field_name("key")?,
        "field_definition" => parent.child_by_field_name("property")?,
        "public_field_definition" => parent.child_by_field_name("name")?,
        _ => return None,
    };
    key_name(bound, src)
}

/// An identifier, a member chain (`module.exports.run`), a private name, or a property key
/// (a quoted key without its quotes); nothing for a destructuring pattern.
fn key_name(node: Node<'_>, src: &str) -> Option<String> {
    match node.kind() {
        "identifier"
        | "property_identifier"
        | "private_property_identifier"
        | "shorthand_property_identifier"
        | "member_expression"
        | "number" => Some(text_of(node, src).split_whitespace().collect()),
        "string" => Some(
            text_of(node, src)
                .trim_matches(|c| c == '"' || c == '\'')
                .to_owned(),
        ),
        "computed_property_name" => Some(
            text_of(node, src)
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split_whitespace()
                .collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::complexity::functions::tests::{measured, rows};

    #[test]
    fn each_decision_point_adds_one() {
        let src = r#"const fs = require('fs');
if (process.argv.length > 2 && fs) { console.log(1); }

function plain() { return 1; }

function branches(a, b = 2, { c = 3, d } = {}) {
  if (a) { return b ? 1 : 2; } else if (c) { return 3; }
  for (const x of a) { while (x) { break; } }
  for (let i = 0; i < 3; i++) { do { } while (false); }
  try { fs.readFileSync(a); } catch (e) { return a || b || c; } finally { }
  switch (a) { case 1: case 2: break; default: break; }
  a ??= b?.c ?? d;
  c &&= 1; c ||= 2;
  return `${a ? 1 : 2}`;
}
"#;
        assert_eq!(
            measured("a.js", src),
            rows(&[("*global*", 1, 3), ("plain", 4, 1), ("branches", 6, 21)])
        );
    }

    #[test]
    fn functions_take_the_names_they_are_bound_to() {
        let src = r#"export default function (a) { return a || 1; }
const bar = (x) => x || 0;
const baz = async function (y) { if (y) return y; };
module.exports.handler = function (e) { if (e) return 1; };
exports.other = e => { while (e) e--; };
function* gen() { yield 1; }
const o = {
  handle(a) { if (a) return 1; },
  other: function () { return 1 && 2; },
  'quoted': () => 1,
  get val() { return this.a ?? 1; },
  set val(v) { this.a = v; },
};
class K extends Base {
  #priv() { if (this) {} }
  field = (ev) => ev && ev.x;
  static async create() { return new K(); }
  constructor() { super(); [1].map(v => v > 1 ? v : 0); }
}
(function iife() { if (1) {} })();
"#;
        assert_eq!(
            measured("b.mjs", src),
            rows(&[
                ("*global*", 1, 1),
                ("(anonymous)", 1, 2),
                ("bar", 2, 2),
                ("baz", 3, 2),
                ("module.exports.handler", 4, 2),
                ("exports.other", 5, 2),
                ("gen", 6, 1),
                ("handle", 8, 2),
                ("other", 9, 2),
                ("quoted", 10, 1),
                ("get val", 11, 2),
                ("set val", 12, 1),
                ("#priv", 15, 2),
                ("field", 16, 2),
                ("create", 17, 1),
                ("constructor", 18, 1),
                ("(anonymous)", 18, 2),
                ("iife", 20, 2),
            ])
        );
    }

    #[test]
    fn typescript_types_are_not_code_and_defaults_count() {
        let src = r#"interface Opts { verbose?: boolean; run(x: number): void; }
type Fn = (a: string) => number;
type Cond<T> = T extends string ? 'a' : 'b';
declare function external(a: string): void;
export async function load(path: string, opts?: Opts): Promise<string | undefined> {
  if (!path || opts?.verbose) { return undefined; }
  return path;
}
abstract class Base<T> {
  abstract name(): string;
  constructor(private readonly items: T[] = []) {}
  count(pred?: (t: T) => boolean): number {
    return this.items.filter((t) => !pred || pred(t)).length;
  }
}
"#;
        assert_eq!(
            measured("c.ts", src),
            rows(&[
                ("*global*", 1, 2),
                ("load", 5, 3),
                ("constructor", 11, 2),
                ("count", 12, 1),
                ("(anonymous)", 13, 2),
            ])
        );
    }

    #[test]
    fn jsx_expressions_count() {
        let src = r#"export function List({ items, loading = false }: Props) {
  if (loading) return <p>Loading</p>;
  return <ul>{items.length > 0 && items.map((i) => <li key={i}>{i ? i : '-'}</li>)}</ul>;
}
"#;
        assert_eq!(
            measured("d.tsx", src),
            rows(&[("*global*", 1, 1), ("List", 1, 4), ("(anonymous)", 3, 2)])
        );
        let jsx = "const App = () => <div>{a ?? 'x'}</div>;\n";
        assert_eq!(
            measured("e.jsx", jsx),
            rows(&[("*global*", 1, 1), ("App", 1, 2)])
        );
    }

    #[test]
    fn where_lizard_reads_the_tokens_differently() {
        let src = r#"function f(a) {
  return `${a ? 1 : 2}`;
}
const g = (a) =>
  a ? 1 : 2;
main().catch((e) => console.error(e));
class Cache {
  get(key) { if (key) return 1; }
  set(key, value) { this.k = key || value; }
}
function List({ url }) {
  useEffect(() => {
    let cancelled = false;
    async function load() {
      try {
        if (!cancelled) setRuns(data.runs || []);
      } catch (err) {
        if (!cancelled) setError(err.message);
      }
    }
    load();
  }, [url]);
}
"#;
        // lizard: f 1, g 1, no `get` or `set`, and the top level 5 with their decisions, `g`'s
        // `?` and `.catch`; the arrow in `List` 3 and `load` 3, two of its decisions moved out.
        assert_eq!(
            measured("l.js", src),
            rows(&[
                ("*global*", 1, 1),
                ("f", 1, 2),
                ("g", 4, 2),
                ("(anonymous)", 6, 1),
                ("get", 8, 2),
                ("set", 9, 2),
                ("List", 11, 1),
                ("(anonymous)", 12, 1),
                ("load", 14, 5),
            ])
        );
        // lizard: the top level 3, counting `title?` and `onSelect?`.
        let tsx = "interface P { title?: string; onSelect?: () => void }\n\
                   const C = ({ title }: P) => <h1>{title}</h1>;\n";
        assert_eq!(
            measured("p.tsx", tsx),
            rows(&[("*global*", 1, 1), ("C", 2, 1)])
        );
    }
}
