//! The modules a code line imports, in each language the signals read, and the calls it makes
//! by name.

use super::code_lines::{CodeLine, Lang};

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
