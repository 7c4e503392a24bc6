//! Python, as lizard reads it: a function is a `def` (a `lambda` belongs to the function around
//! it), and each `if`, `elif`, `for`, `while`, `except`, `finally`, `and`, `or` and `case` adds
//! one, wherever it stands (comprehensions, conditional expressions, f-string fields, guards).
//! A nested `def` is named after the function around it: `outer.inner`.

use tree_sitter::Node;

use super::walker::{Rules, Signature, function_definition};

pub(super) struct Python;

impl Rules for Python {
    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }

    fn function(&self, node: Node<'_>, _: Option<Node<'_>>, src: &str) -> Option<Signature> {
        function_definition(node, src)
    }

    fn decisions(&self, node: Node<'_>, _: Option<Node<'_>>, _: &str) -> u32 {
        if node.is_named() {
            return 0;
        }
        u32::from(matches!(
            node.kind(),
            "if" | "elif" | "for" | "while" | "except" | "finally" | "and" | "or" | "case"
        ))
    }

    fn nested_names(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::complexity::functions::tests::{measured, rows};

    #[test]
    fn each_decision_point_adds_one() {
        let src = "\
import sys

def plain():
    return 1

def branches(a, b):
    if a and b:
        return 1
    elif a or not b:
        return 2
    else:
        return 3

def loops(items):
    for i in items:
        while i:
            i -= 1
    else:
        pass
    return [x for x in items if x]

def errors():
    try:
        pass
    except ValueError:
        pass
    except* TypeError:
        pass
    else:
        pass
    finally:
        pass

def expressions(a):
    f = lambda x: x or 0
    return (a if a else 0, f\"{'y' if a else 'n'}\", {k: v for k, v in a.items()})

def matching(cmd):
    match cmd:
        case [\"go\", where] if where:
            pass
        case _:
            pass

if __name__ == \"__main__\" and len(sys.argv) > 1:
    for arg in sys.argv:
        print(arg)
";
        assert_eq!(
            measured("s.py", src),
            rows(&[
                ("*global*", 1, 4),
                ("plain", 3, 1),
                ("branches", 6, 5),
                ("loops", 14, 5),
                ("errors", 22, 4),
                ("expressions", 34, 5),
                ("matching", 38, 4),
            ])
        );
    }

    #[test]
    fn nested_functions_are_their_own_and_named_after_their_outer() {
        let src = "\
def outer(x):
    def inner(y):
        return y if y else 0
    class K:
        def method(self):
            if self:
                pass
    return inner(x) and x

class C:
    @staticmethod
    async def run(b=lambda q: q or 1):
        async for i in b:
            pass
";
        assert_eq!(
            measured("n.py", src),
            rows(&[
                ("*global*", 1, 1),
                ("outer", 1, 2),
                ("outer.inner", 2, 2),
                ("outer.method", 5, 2),
                ("run", 12, 3),
            ])
        );
    }
}
