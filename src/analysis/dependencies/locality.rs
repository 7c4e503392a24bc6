//! Whether a file's generic HTTP client libraries reach only local addresses, decided per call.
//!
//! A library (`requests`, `httpx`, `urllib.request`, `axios`, `fetch`, …) reaches nothing
//! external only when every use of every name its import binds (`import requests as r`,
//! `from requests import post`, `const { get } = require('axios')`) is a request whose address,
//! on the call's own line, is local:
//! - a literal URL whose host is loopback or reserved, its host closed by `/`, `?`, `#` or the
//!   end of the string (`"http://localhost" + x` may go to `localhost.evil.io`);
//! - or a name the file assigns once, to such a literal, alone or followed by a path
//!   (`BASE + "/health"`, `f"{BASE}/health"`, `` `${BASE}/x` ``).
//!
//! Anything else counts as reaching somewhere not named: an address from the environment
//! (`os.environ.get("URL", "http://localhost:8000")`), a variable, another argument, a session
//! object, the library passed around (`r = requests`), an import the analysis cannot read, or a
//! library never called. One local URL elsewhere in the file decides nothing.

use std::collections::{HashMap, HashSet};

use super::context::Context;
use super::hosts::Target;
use super::libraries::{JS_LIBRARIES, PYTHON_LIBRARIES};
use super::urls::{authority, urls};
use crate::analysis::code_lines::{CodeLine, Lang};
use crate::analysis::imports;

/// HTTP libraries whose requests name their address in their first argument (or `url=`).
const READABLE: &[&str] = &[
    "requests",
    "httpx",
    "urllib.request",
    "axios",
    "node-fetch",
    "cross-fetch",
    "got",
    "ky",
    "fetch",
];

/// Methods that make a request, lowercase.
const VERBS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "head", "options", "request", "urlopen", "fetch",
    "stream",
];

/// Attributes of a library that make no request (`requests.exceptions.Timeout`,
/// `urllib.parse.quote`).
const INERT: &[&str] = &[
    "exceptions",
    "parse",
    "error",
    "codes",
    "status_codes",
    "isaxioserror",
];

/// A name an import binds to a library.
#[derive(Debug)]
struct Binding {
    library: &'static str,
    name: String,
    line: u32,
}

/// At most this many distinct names are followed in one file; past it every library counts (a
/// file of a thousand aliases must not cost a thousand passes over its lines).
const MAX_BINDINGS: usize = 32;

/// A name assigned a local URL, and whether that URL already holds a path (`…:8000/api`), so
/// that anything after the name is the path.
#[derive(Debug, Default)]
struct Constants {
    local: HashMap<String, bool>,
    other: HashSet<String>,
}

/// The readable libraries of the file whose every use is a request to a local address.
pub(super) fn local_only(lines: &[CodeLine<'_>], ctx: Context) -> HashSet<&'static str> {
    let mut bindings: Vec<Binding> = Vec::new();
    let mut unreadable: HashSet<&'static str> = HashSet::new();
    let mut constants = Constants::default();
    for line in lines {
        if !matches!(line.lang, Lang::Python | Lang::JavaScript) {
            continue;
        }
        constants.read(line.text, ctx);
        let table = if line.lang == Lang::Python {
            PYTHON_LIBRARIES
        } else {
            JS_LIBRARIES
        };
        let modules = imports::imports(line);
        let libraries: Vec<&'static str> = modules
            .iter()
            .filter_map(|m| imports::library_of(m, table))
            .filter(|l| READABLE.contains(l))
            .collect();
        if line.lang == Lang::JavaScript && imports::calls(line.text, "fetch(") {
            bindings.push(Binding {
                library: "fetch",
                name: "fetch".to_owned(),
                line: 0,
            });
        }
        if libraries.is_empty() {
            continue;
        }
        let bound = match line.lang {
            Lang::Python => python_bindings(line.text, table),
            _ => js_bindings(line.text, table),
        };
        match bound {
            Some(bound) => bindings.extend(bound.into_iter().map(|(library, name)| Binding {
                library,
                name,
                line: line.number,
            })),
            None => unreadable.extend(libraries),
        }
    }
    constants.keep_bound_once(lines);
    // One pass per distinct name, skipping every line that imports it.
    let mut names: HashMap<(&'static str, &str), HashSet<u32>> = HashMap::new();
    for binding in &bindings {
        let lines = names.entry((binding.library, &binding.name)).or_default();
        if binding.line != 0 {
            lines.insert(binding.line);
        }
    }
    if names.len() > MAX_BINDINGS {
        return HashSet::new();
    }
    let mut used: HashSet<&'static str> = HashSet::new();
    let mut reaching: HashSet<&'static str> = HashSet::new();
    for ((library, name), imports) in &names {
        for (i, line) in lines.iter().enumerate() {
            if imports.contains(&line.number) {
                continue;
            }
            let next = lines.get(i + 1).map(|l| l.text);
            for local in uses(line.text, name, next, &constants, ctx) {
                used.insert(*library);
                if !local {
                    reaching.insert(*library);
                }
            }
        }
    }
    used.into_iter()
        .filter(|l| !reaching.contains(l) && !unreadable.contains(l))
        .collect()
}

impl Constants {
    /// Record `NAME = "…"` (`const`, `let`, `var`, `export`, a type annotation, `:=`).
    fn read(&mut self, text: &str, ctx: Context) {
        let mut t = text.trim();
        for prefix in ["export ", "const ", "let ", "var ", "final "] {
            t = t.strip_prefix(prefix).map_or(t, str::trim_start);
        }
        let end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(t.len());
        let (name, rest) = t.split_at(end);
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return;
        }
        let mut rest = rest.trim_start();
        if let Some(typed) = rest.strip_prefix(':')
            && !typed.starts_with('=')
        {
            rest = typed.find('=').map_or("", |at| &typed[at..]);
        }
        let Some(value) = rest
            .strip_prefix(":=")
            .or_else(|| rest.strip_prefix('='))
            .filter(|v| !v.starts_with(['=', '>']))
        else {
            return;
        };
        let value = value.trim().trim_end_matches([';', ',']).trim_end();
        match local_literal(value, ctx) {
            Some(has_path) if !self.other.contains(name) => {
                let entry = self.local.entry(name.to_owned()).or_insert(has_path);
                *entry &= has_path;
            }
            _ => {
                self.local.remove(name);
                self.other.insert(name.to_owned());
            }
        }
    }
}

impl Constants {
    /// Keep only the names bound exactly once in the file: a name assigned again (`BASE +=
    /// ".evil.io"`), a destructuring or tuple target (`[BASE] = [process.env.SINK]`), a
    /// parameter (`def push(BASE):`), a `for`/`with`/`as`/`except` target, `global`/`nonlocal`,
    /// a second `let`/`var` is another value under the same name, so none is trusted.
    fn keep_bound_once(&mut self, lines: &[CodeLine<'_>]) {
        if self.local.is_empty() {
            return;
        }
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut in_parameters = 0usize;
        for line in lines {
            if !matches!(line.lang, Lang::Python | Lang::JavaScript) {
                continue;
            }
            // A parameter list continued from an earlier line: every name on it is bound.
            let continued = in_parameters > 0;
            in_parameters = open_parameters(line.text, in_parameters);
            for name in self.local.keys() {
                let binds = if continued {
                    has_word(line.text, name)
                } else {
                    binds(line.text, name)
                };
                if binds {
                    *counts.entry(name.clone()).or_default() += 1;
                }
            }
        }
        self.local
            .retain(|name, _| counts.get(name).copied().unwrap_or(0) == 1);
    }
}

/// The depth of a parameter list still open after `text`, given the depth before it
/// (`def push(\n    BASE,\n):`).
fn open_parameters(text: &str, depth: usize) -> usize {
    let mut depth = depth;
    let opens = depth > 0
        || ["def ", "function", "lambda", "catch"]
            .iter()
            .any(|k| text.contains(k));
    if !opens {
        return 0;
    }
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

/// The places of `name` on a line as a word (not an attribute, `self.BASE`).
fn word_places(text: &str, name: &str) -> Vec<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(name) {
        let at = from + at;
        from = at + name.len();
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| ident(c) || c == '.') || text[from..].starts_with(ident) {
            continue;
        }
        found.push(at);
    }
    found
}

fn has_word(text: &str, name: &str) -> bool {
    !word_places(text, name).is_empty()
}

/// Whether a line binds `name`: assigns it (`=`, `+=`, `:=`, `: str =`), destructures into it,
/// declares it (`let`, `var`, `const`, `global`, `nonlocal`, `import … as`), or takes it as a
/// parameter or a `for`/`with`/`except` target. When unsure, it binds.
fn binds(text: &str, name: &str) -> bool {
    let trimmed = text.trim_start();
    let keyword = |k: &str| {
        trimmed
            .strip_prefix(k)
            .is_some_and(|r| r.starts_with([' ', '(', '\t']))
    };
    let declares = ["global", "nonlocal", "import", "from", "class"]
        .iter()
        .any(|k| keyword(k));
    let declaration = ["let", "var", "const"].iter().any(|k| keyword(k));
    let assignment = first_assignment(text);
    let loops = keyword("for") || keyword("async for");
    for at in word_places(text, name) {
        let before = &text[..at];
        let after = text[at + name.len()..].trim_start();
        // `BASE = …`, `BASE += …`, `BASE := …`, `BASE: str = …`.
        let op_end = after
            .find(|c: char| {
                !matches!(
                    c,
                    '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '@' | '?' | '<' | '>' | ':'
                )
            })
            .unwrap_or(after.len());
        let op = &after[..op_end];
        let rest = &after[op_end..];
        let assigns = rest.starts_with('=')
            && !rest[1..].starts_with(['=', '>'])
            && !matches!(op, "<" | ">" | "!" | "?");
        let annotated = after.starts_with(':')
            && !after.starts_with(":=")
            && after.find('=').is_some_and(|eq| {
                let typ = &after[1..eq];
                !after[eq + 1..].starts_with('=')
                    && typ.chars().all(|c| {
                        c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | ' ' | '|' | ',')
                    })
            });
        // Left of a line's own `=` with no call there: `[BASE] = …`, `a, BASE = …`, `{ BASE } = …`.
        let target = assignment.is_some_and(|eq| at < eq && !text[..eq].contains('('))
            || (declaration && assignment.is_none_or(|eq| at < eq));
        let as_target = before.trim_end().ends_with(" as") || before.trim_end() == "as";
        let loop_target = loops
            && [" in ", " of "]
                .iter()
                .filter_map(|w| text.find(w))
                .min()
                .is_none_or(|end| at < end);
        let parameter = in_parameter_list(before)
            || text[at..]
                .find("=>")
                .is_some_and(|arrow| !text[at..at + arrow].contains('('));
        if assigns || annotated || target || as_target || loop_target || parameter || declares {
            return true;
        }
    }
    false
}

/// Where a line's first assignment `=` is (not `==`, `!=`, `<=`, `>=`, `=>`), outside strings.
fn first_assignment(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    for (at, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' | b'`' => quote = Some(b),
            b'=' => {
                let prev = at.checked_sub(1).map(|i| bytes[i]);
                let next = bytes.get(at + 1).copied();
                if !matches!(prev, Some(b'=' | b'!' | b'<' | b'>'))
                    && !matches!(next, Some(b'=' | b'>'))
                {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the end of `before` is inside the parameters of a `def`, `function`, `lambda` or
/// `catch` on the same line.
fn in_parameter_list(before: &str) -> bool {
    if let Some(at) = before.rfind("lambda") {
        let params = &before[at + "lambda".len()..];
        if !params.contains(':') {
            return true;
        }
    }
    ["def ", "function", "catch"].iter().any(|k| {
        before.rfind(k).is_some_and(|at| {
            let mut depth = 0i32;
            let mut opened = false;
            for c in before[at..].chars() {
                match c {
                    '(' => {
                        depth += 1;
                        opened = true;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            opened && depth > 0
        })
    })
}

/// `Some(has_path)` when `value` is one plain string literal holding one local URL.
fn local_literal(value: &str, ctx: Context) -> Option<bool> {
    let inner = plain_literal(value)?;
    let found = urls(inner, ctx);
    if found.is_empty() || found.iter().any(|u| u.target != Target::NotExternal) {
        return None;
    }
    let at = inner.find("://")? + 3;
    let rest = &inner[at + authority(&inner[at..]).len()..];
    Some(rest.starts_with('/'))
}

/// The text of a string literal that is the whole of `value`, without interpolation.
fn plain_literal(value: &str) -> Option<&str> {
    let value = value.trim();
    let q = value
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let inner = value.strip_prefix(q)?.strip_suffix(q)?;
    let interpolated = q == '`' && inner.contains("${");
    (!inner.contains(q) && !interpolated).then_some(inner)
}

/// For each use of `name` on a line, whether it is a request to a local address.
fn uses(
    text: &str,
    name: &str,
    next: Option<&str>,
    constants: &Constants,
    ctx: Context,
) -> Vec<bool> {
    let mut found = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut from = 0;
    while let Some(at) = text[from..].find(name) {
        let at = from + at;
        from = at + name.len();
        let before = text[..at].chars().next_back();
        let after = &text[from..];
        if before.is_some_and(|c| ident(c) || c == '.') || after.starts_with(ident) {
            continue;
        }
        // `requests.adapters.HTTPAdapter`, `urllib.request.urlopen(`: the chain of attributes.
        let mut chain = Vec::new();
        let mut rest = after;
        while let Some(attribute) = rest.strip_prefix('.') {
            let end = attribute
                .find(|c: char| !ident(c))
                .unwrap_or(attribute.len());
            if end == 0 {
                break;
            }
            chain.push(&attribute[..end]);
            rest = &attribute[end..];
        }
        let inert = chain.first().is_some_and(|first| {
            INERT.contains(&first.to_ascii_lowercase().as_str())
                || (first.starts_with(|c: char| c.is_ascii_uppercase()) && !rest.starts_with('('))
        });
        if inert {
            continue;
        }
        let method = chain.last().map_or(name, |m| *m).to_ascii_lowercase();
        let call = rest.strip_prefix('(');
        let local = match call {
            Some(args) if chain.is_empty() || VERBS.contains(&method.as_str()) => {
                call_is_local(args, next, &method, constants, ctx)
            }
            _ => false,
        };
        found.push(local);
    }
    found
}

/// Whether a request's address (its first argument, `url=`, or the second after a method
/// string: `request("GET", url)`) is local.
fn call_is_local(
    args: &str,
    next: Option<&str>,
    method: &str,
    constants: &Constants,
    ctx: Context,
) -> bool {
    let (mut inside, closed) = balanced(args);
    if !closed && inside.trim().is_empty() {
        // `requests.post(` with its arguments on the next lines.
        inside = next.unwrap_or("");
    }
    let parts = split_arguments(inside);
    let keyword = parts.iter().find_map(|p| {
        let p = p.trim();
        p.strip_prefix("url=")
            .or_else(|| p.strip_prefix("url:"))
            .or_else(|| p.strip_prefix("url ="))
    });
    let target = match keyword {
        Some(target) => target,
        None => {
            let skip = usize::from(
                method == "request"
                    && parts.len() > 1
                    && plain_literal(parts[0]).is_some_and(|m| !m.contains('/')),
            );
            match parts.get(skip) {
                Some(target) => target,
                None => return false,
            }
        }
    };
    target_is_local(target.trim(), constants, ctx)
}

/// Whether an address expression is local: a literal local URL with its host closed, or a
/// local constant followed by nothing or a path.
fn target_is_local(target: &str, constants: &Constants, ctx: Context) -> bool {
    if target.is_empty() || target.starts_with('{') || target.contains('@') {
        return false;
    }
    if let Some(at) = target.find("://") {
        let found = urls(target, ctx);
        if found.is_empty() || found.iter().any(|u| u.target != Target::NotExternal) {
            return false;
        }
        let after = &target[at + 3 + authority(&target[at + 3..]).len()..];
        return after.starts_with(['/', '?', '#']) || plain_literal(target).is_some();
    }
    let compact: String = target.chars().filter(|c| !c.is_whitespace()).collect();
    let body = ["f\"{", "f'{", "`${", "str("]
        .iter()
        .find_map(|p| compact.strip_prefix(p))
        .unwrap_or(&compact);
    let end = body
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(body.len());
    let (name, rest) = body.split_at(end);
    let Some(has_path) = constants.local.get(name) else {
        return false;
    };
    *has_path
        || rest.is_empty()
        || [
            "+\"/", "+'/", "+f\"/", "+f'/", "+`/", "}/", "+\"?", "+'?", "}?", "}\"", "}'", "}`",
            ")",
        ]
        .iter()
        .any(|p| rest.starts_with(p))
}

/// The text up to the `)` that closes the call (quotes respected), and whether it was found.
fn balanced(text: &str) -> (&str, bool) {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ')' => return (&text[..at], true),
            _ => {}
        }
    }
    (text, false)
}

/// Arguments split at top-level commas.
fn split_arguments(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(&text[start..]);
    }
    parts
}

/// The names a Python import line binds to readable libraries; `None` when it cannot be read
/// (`from requests import *`, an import continued on the next line).
fn python_bindings(text: &str, table: &[&'static str]) -> Option<Vec<(&'static str, String)>> {
    let text = text.trim();
    let readable = |m: &str| imports::library_of(m, table).filter(|l| READABLE.contains(l));
    let mut found = Vec::new();
    if let Some(rest) = text.strip_prefix("import ") {
        for part in rest.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let Some(module) = words.first() else {
                continue;
            };
            let Some(library) = readable(module) else {
                continue;
            };
            let name = match words.as_slice() {
                [_, "as", alias, ..] => (*alias).to_owned(),
                _ => module.split('.').next().unwrap_or(module).to_owned(),
            };
            found.push((library, name));
        }
        return Some(found);
    }
    let (module, names) = text.strip_prefix("from ")?.split_once(" import ")?;
    let module = module.trim();
    let names = names.trim();
    if names.contains('*')
        || (names.starts_with('(') && !names.contains(')'))
        || names.ends_with('\\')
    {
        return None;
    }
    for part in names.trim_matches(['(', ')']).split(',') {
        let words: Vec<&str> = part.split_whitespace().collect();
        let Some(item) = words.first() else {
            continue;
        };
        let Some(library) = readable(&format!("{module}.{item}")).or_else(|| readable(module))
        else {
            continue;
        };
        let name = match words.as_slice() {
            [_, "as", alias, ..] => *alias,
            _ => item,
        };
        found.push((library, name.to_owned()));
    }
    Some(found)
}

/// The names a JavaScript import line binds to readable libraries: `import x from`, `import *
/// as x from`, `import { a, b as c } from`, `const x = require(…)`, `const { a, b: c } =
/// require(…)`; `None` for any other shape that loads one (`require('axios').get(…)`).
fn js_bindings(text: &str, table: &[&'static str]) -> Option<Vec<(&'static str, String)>> {
    let modules = {
        let line = CodeLine {
            number: 0,
            text,
            lang: Lang::JavaScript,
        };
        imports::imports(&line)
    };
    let library = modules
        .iter()
        .filter_map(|m| imports::library_of(m.strip_prefix("node:").unwrap_or(m), table))
        .find(|l| READABLE.contains(l))?;
    if modules.len() != 1 {
        return None;
    }
    let t = text.trim().trim_end_matches(';').trim_end();
    let t = t.strip_prefix("export ").unwrap_or(t);
    let clause = if let Some(rest) = t.strip_prefix("import ") {
        rest.rsplit_once(" from ")?.0.trim()
    } else {
        let mut t = t;
        for keyword in ["const ", "let ", "var "] {
            t = t.strip_prefix(keyword).unwrap_or(t);
        }
        let (lhs, rhs) = t.split_once('=')?;
        let rhs = rhs.trim();
        let rhs = rhs.strip_prefix("await ").unwrap_or(rhs);
        let call = rhs
            .strip_prefix("require(")
            .or_else(|| rhs.strip_prefix("import("))?;
        // Nothing after the call: `require('axios').default` binds something else.
        if !call.trim_end().ends_with(')') || call.matches(')').count() != 1 {
            return None;
        }
        lhs.trim()
    };
    let mut names = Vec::new();
    let (default, braces) = match clause.find('{') {
        Some(at) => (&clause[..at], Some(&clause[at..])),
        None => (clause, None),
    };
    let default = default.trim().trim_end_matches(',').trim();
    if !default.is_empty() {
        let name = default.strip_prefix("* as ").unwrap_or(default).trim();
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        {
            return None;
        }
        names.push(name.to_owned());
    }
    if let Some(braces) = braces {
        let inner = braces.strip_prefix('{')?.strip_suffix('}')?;
        for part in inner.split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let name = part
                .rsplit_once(" as ")
                .map(|(_, b)| b)
                .or_else(|| part.split_once(':').map(|(_, b)| b))
                .unwrap_or(part)
                .trim();
            if !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
            {
                return None;
            }
            names.push(name.to_owned());
        }
    }
    Some(names.into_iter().map(|n| (library, n)).collect())
}
