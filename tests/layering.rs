//! The layering of #16, enforced: every `crate::` path in `src/` (outside `#[cfg(test)]` code)
//! must keep to the layer table below. Std only: a small Rust tokenizer, no parser crate.
//!
//! - R1: no import cycle among top-level modules.
//! - R2: pure layers and domain modules never import an edge, pipeline, commands, cli or error.
//! - R3: only `main.rs` and `commands/` import `cli`; only `main.rs` imports `commands`; only
//!   `commands/` import `pipeline`.
//! - R4: no `commands/x.rs` imports `commands/y.rs`.
//! - R5: edges never import pipeline, commands, cli or error.
//! - R6: `render` never imports `lint`, `discover` or `suite`.
//! - R7: domain modules import only domain modules: the vocabulary depends on nothing above it.
//!
//! An "import" is any path that reaches another top-level module: `use crate::a::b;`, grouped
//! `use crate::{a::{b, c}, d};`, inline `crate::a::f()`, and `super::` paths that climb out of a
//! top-level module. Comments, string literals, attributes and `#[cfg(test)]` items are skipped.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

/// The layers, top to bottom. A module may import its own layer and the layers below it, within
/// the rules R1–R7 (see [`check_import`] and [`cycles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// `main.rs` and the clap types: parse the command line, map the outcome to an exit code.
    Entry,
    /// One thin file per subcommand: arguments → request → pipeline → outcome.
    Commands,
    /// The stages of a gate run, and the top-level `Error` wrapping each edge's error.
    Pipeline,
    /// Modules that talk to the world: processes, git, the database, GitHub, the terminal.
    Edge,
    /// Pure logic over domain values: decide, measure, read reports, render.
    Pure,
    /// The domain types: values without I/O that every layer above shares.
    Domain,
}

use Layer::{Commands, Domain, Edge, Entry, Pipeline, Pure};

/// The architecture: every top-level module of `src/` (a file `src/x.rs` or a folder `src/x/`)
/// and its layer. A new module must be added here, so that its place is chosen, not found.
const LAYERS: &[(&str, Layer)] = &[
    // 1. Entry
    ("main", Entry),
    ("cli", Entry),
    // 2. Commands: nothing but `main.rs` imports them; no command imports another.
    ("commands", Commands),
    // 3. Pipeline: only `commands/` imports `pipeline`; only this level, commands and main
    //    import `error`.
    ("pipeline", Pipeline),
    ("error", Pipeline),
    // 4. Edges: never import pipeline, commands, cli or error.
    ("git", Edge),
    ("runner", Edge),
    ("store", Edge),
    ("github", Edge),
    ("audit", Edge),
    ("progress", Edge),
    // 5. Pure layers: never import an edge, pipeline, commands, cli or error;
    //    `render` never imports `lint`, `discover` or `suite`.
    ("policy", Pure),
    ("analysis", Pure),
    ("lint", Pure),
    ("render", Pure),
    ("results", Pure),
    ("coverage", Pure),
    ("input", Pure),
    ("discover", Pure),
    ("suite", Pure),
    ("routing", Pure),
    ("changes", Pure), // what changed, mapped to skills
    ("signals", Pure), // what was measured, as the policy reads it
    ("gate", Pure),    // the results document: built of the layers above, read by edges
    ("report", Pure),  // the trail's analytics, rendered
    // 6. Domain types: the pure layers' bans, and they import only each other (R7).
    ("skill", Domain),
    ("config", Domain),
    ("frontmatter", Domain),
    ("documented", Domain),
    ("glob", Domain),
    ("untrusted", Domain),
    ("random", Domain),
    ("exit_codes", Domain),
    ("warning", Domain),
];

fn layer(module: &str) -> Option<Layer> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|&(_, layer)| layer)
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Entry => "entry",
            Commands => "commands",
            Pipeline => "pipeline level",
            Edge => "edge",
            Pure => "pure layer",
            Domain => "domain",
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

/// One broken rule: which rules an import breaks, what it is, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Broken {
    rules: Vec<&'static str>,
    what: String,
    hint: &'static str,
}

/// The rules R2–R7 for one import of `to` (an absolute path, at least its top-level module) by a
/// file of the top-level module `from`; `from_file` is the file's module under `from`
/// (`check` for `commands/check.rs`), `command_files` the modules of `commands/`.
fn check_import(
    from: &str,
    from_file: Option<&str>,
    to: &[String],
    command_files: &BTreeSet<String>,
) -> Option<Broken> {
    let target = to.first()?.as_str();
    let (Some(from_layer), Some(to_layer)) = (layer(from), layer(target)) else {
        return None;
    };
    let mut rules = Vec::new();
    let mut hint = "";
    let above_edges = matches!(to_layer, Entry | Commands | Pipeline);
    if matches!(from_layer, Pure | Domain) && (above_edges || to_layer == Edge) {
        rules.push("R2");
        hint = match (target, to_layer) {
            ("cli", _) => "move the type the command line shares into the domain (config or gate)",
            ("error", _) => "return this module's own error type; the pipeline wraps it in Error",
            (_, Edge) => {
                "move the shared type into a domain module, or let the pipeline call the edge and pass the value in"
            }
            _ => "pure and domain code takes values from the pipeline, it never calls up into it",
        };
    }
    if from != target {
        let only = match target {
            "cli" => Some(&["main", "commands"][..]),
            "commands" => Some(&["main"][..]),
            // The pipeline's own level (error, attempt) is part of it.
            "pipeline" => Some(&["commands"][..]),
            _ => None,
        };
        if only.is_some_and(|only| !only.contains(&from)) {
            rules.push("R3");
            if hint.is_empty() {
                hint = match target {
                    "cli" => "cli types stop at commands/: turn them into a request type there",
                    "commands" => {
                        "commands are called from main.rs only: move the shared part into the pipeline"
                    }
                    _ => "only commands/ call the pipeline: pass the value down instead",
                };
            }
        }
    }
    if from == "commands"
        && target == "commands"
        && let (Some(mine), Some(theirs)) = (from_file, to.get(1))
        && mine != theirs
        && command_files.contains(theirs)
    {
        rules.push("R4");
        hint = "a command never calls another: move the shared part into pipeline/";
    }
    if from_layer == Edge && above_edges {
        rules.push("R5");
        if hint.is_empty() {
            hint = "an edge returns its own error and types; the pipeline wraps and combines them";
        }
    }
    if from_layer == Domain && to_layer != Domain {
        rules.push("R7");
        if hint.is_empty() {
            hint = "the vocabulary depends on nothing above it: move the type down, or the code up";
        }
    }
    if from == "render" && ["lint", "discover", "suite"].contains(&target) {
        rules.push("R6");
        hint =
            "render takes domain values: move the type into the domain, the walk into the pipeline";
    }
    if rules.is_empty() {
        return None;
    }
    let what = match (from_file, to.get(1)) {
        (Some(mine), Some(theirs)) if rules == ["R4"] => {
            format!("commands/{mine} imports commands/{theirs}")
        }
        _ => format!("{from} ({from_layer}) imports {target} ({to_layer})"),
    };
    Some(Broken { rules, what, hint })
}

/// Where an import points in the layer table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Down,
    /// Between two modules of the same layer.
    Sideways,
    /// Up the table (or to a module outside it): what a cycle should be cut at first.
    Up,
}

fn direction(from: &str, to: &str) -> Direction {
    match (layer(from), layer(to)) {
        (Some(from), Some(to)) if to > from => Direction::Down,
        (Some(from), Some(to)) if to == from => Direction::Sideways,
        _ => Direction::Up,
    }
}

/// The edges of a cycle to cut: those pointing up, or when none does, those sideways.
fn to_cut(cycle: &[String], direction: &impl Fn(&str, &str) -> Direction) -> Vec<(String, String)> {
    let edges = |wanted| -> Vec<(String, String)> {
        cycle
            .windows(2)
            .filter(|pair| direction(&pair[0], &pair[1]) == wanted)
            .map(|pair| (pair[0].clone(), pair[1].clone()))
            .collect()
    };
    let up = edges(Direction::Up);
    if up.is_empty() {
        edges(Direction::Sideways)
    } else {
        up
    }
}

/// R1: the import cycles among top-level modules, each starting at its smallest module and
/// ending where it started. Every edge to cut (see [`to_cut`]) that lies on a cycle is on at
/// least one cycle returned, the shortest through it; cycles adding no such edge are left out,
/// so the list stays short.
fn cycles(
    edges: &BTreeSet<(String, String)>,
    direction: impl Fn(&str, &str) -> Direction,
) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges {
        if from != to {
            next.entry(from).or_default().push(to);
        }
    }
    // Shortest path start → … → goal, by breadth-first search.
    let path = |start: &str, goal: &str| -> Option<Vec<String>> {
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        let mut seen = BTreeSet::from([start]);
        while let Some(at) = queue.pop_front() {
            if at == goal {
                let mut path = vec![goal.to_owned()];
                let mut step = goal;
                while step != start {
                    step = came_from[step];
                    path.push(step.to_owned());
                }
                path.reverse();
                return Some(path);
            }
            for &to in next.get(at).into_iter().flatten() {
                if seen.insert(to) {
                    came_from.insert(to, at);
                    queue.push_back(to);
                }
            }
        }
        None
    };
    let mut candidates = BTreeSet::new();
    for (from, to) in edges {
        if from == to || direction(from, to) == Direction::Down {
            continue;
        }
        if let Some(back) = path(to, from) {
            let mut cycle = vec![from.clone()];
            cycle.extend(back);
            cycle.pop(); // the cycle without its repeated end
            let first = (0..cycle.len())
                .min_by_key(|&i| &cycle[i])
                .unwrap_or_default();
            cycle.rotate_left(first);
            cycle.push(cycle[0].clone());
            candidates.insert(cycle);
        }
    }
    let mut candidates: Vec<_> = candidates.into_iter().collect();
    candidates.sort_by_key(|cycle| cycle.len());
    let mut covered = BTreeSet::new();
    let mut found = Vec::new();
    for cycle in candidates {
        let mut new = false;
        for edge in to_cut(&cycle, &direction) {
            new |= covered.insert(edge);
        }
        if new {
            found.push(cycle);
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// The tree
// ---------------------------------------------------------------------------------------------

/// One import in non-test code: where it is and the absolute path it reaches (the top-level
/// module and, when the path names one, what it names inside).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Import {
    line: u32,
    path: Vec<String>,
}

/// A source file of `src/`, where it sits in the module tree, and what it imports.
struct Source {
    file: String,
    module: Vec<String>,
    scan: Scan,
}

/// The module path of a file under `src/`: `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`;
/// `main.rs` is the binary's root, `main`; `lib.rs` the library's root, empty.
fn module_of(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if module.last().is_some_and(|last| last == "mod") {
        module.pop();
    }
    if module == ["lib"] {
        module.clear();
    }
    module
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `root/src`, scanned.
fn scan_tree(root: &Path) -> Vec<Source> {
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&src).expect("a file under src/");
            let module = module_of(relative);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
            let root = if module == ["main"] {
                Root::Binary
            } else {
                Root::Library(&module)
            };
            let scan = scan(&text, root);
            Source {
                file: format!("src/{}", relative.display()),
                module,
                scan,
            }
        })
        .collect()
}

/// Everything wrong with the tree, one line each, sorted: unknown modules, R1 cycles, and the
/// imports that break R2–R7.
fn check(sources: &[Source]) -> Vec<String> {
    // (file, line, text): sorted by place, the cycles first.
    let mut problems: BTreeSet<(String, u32, String)> = BTreeSet::new();
    // Modules declared `#[cfg(test)] mod x;` are test code, with every file under them.
    let test_modules: Vec<&Vec<String>> =
        sources.iter().flat_map(|s| &s.scan.test_modules).collect();
    let is_test = |source: &Source| {
        source.scan.test_only || test_modules.iter().any(|m| source.module.starts_with(m))
    };
    // The library root's re-exports (`pub use error::Error;` makes `crate::Error` reach `error`).
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    let mut on_disk: BTreeSet<String> = BTreeSet::new();
    let mut command_files: BTreeSet<String> = BTreeSet::new();
    for source in sources {
        match source.module.as_slice() {
            [] => reexports.extend(source.scan.reexports.iter().cloned()),
            [top, rest @ ..] => {
                on_disk.insert(top.clone());
                if let ("commands", [file, ..]) = (top.as_str(), rest) {
                    command_files.insert(file.clone());
                }
            }
        }
    }
    for module in &on_disk {
        if layer(module).is_none() {
            problems.insert((
                format!("src/{module}"),
                0,
                format!(
                    "src/{module}: unknown top-level module `{module}`: add it to LAYERS in \
                     tests/layering.rs, in the layer it belongs to"
                ),
            ));
        }
    }
    let mut edges: BTreeMap<(String, String), (String, u32)> = BTreeMap::new();
    for source in sources.iter().filter(|s| !is_test(s)) {
        let Some(from) = source.module.first() else {
            continue; // lib.rs only declares the modules
        };
        for import in &source.scan.imports {
            let mut path = import.path.clone();
            if !on_disk.contains(&path[0]) && layer(&path[0]).is_none() {
                match reexports.get(&path[0]) {
                    Some(module) => path = vec![module.clone()],
                    None => {
                        problems.insert((
                            source.file.clone(),
                            import.line,
                            format!(
                                "{}:{}: `crate::{}` is not a module in LAYERS: add it to the \
                                 table in tests/layering.rs",
                                source.file, import.line, path[0]
                            ),
                        ));
                        continue;
                    }
                }
            }
            let place = (source.file.clone(), import.line);
            edges
                .entry((from.clone(), path[0].clone()))
                .and_modify(|first| *first = (*first).clone().min(place.clone()))
                .or_insert(place);
            let from_file = source.module.get(1).map(String::as_str);
            if let Some(broken) = check_import(from, from_file, &path, &command_files) {
                problems.insert((
                    source.file.clone(),
                    import.line,
                    format!(
                        "{}:{}: {}: {} (`{}`); hint: {}",
                        source.file,
                        import.line,
                        broken.rules.join(", "),
                        broken.what,
                        path.join("::"),
                        broken.hint
                    ),
                ));
            }
        }
    }
    let graph: BTreeSet<(String, String)> = edges.keys().cloned().collect();
    for cycle in cycles(&graph, direction) {
        let made_by: Vec<String> = cycle
            .windows(2)
            .map(|pair| {
                let (file, line) = &edges[&(pair[0].clone(), pair[1].clone())];
                format!("{} → {} at {file}:{line}", pair[0], pair[1])
            })
            .collect();
        let against: Vec<String> = to_cut(&cycle, &direction)
            .iter()
            .map(|(from, to)| format!("{from} → {to}"))
            .collect();
        problems.insert((
            String::new(),
            0,
            format!(
                "R1: import cycle {}: {}; hint: cut {} (against the layer table)",
                cycle.join(" → "),
                made_by.join(", "),
                against.join(" or ")
            ),
        ));
    }
    problems.into_iter().map(|(_, _, text)| text).collect()
}

fn this_tree() -> Vec<Source> {
    scan_tree(Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn the_layers_hold() {
    let problems = check(&this_tree());
    assert!(
        problems.is_empty(),
        "{} layering problem(s) (see the layer table at the top of tests/layering.rs):\n{}\n",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The scanner
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    /// `::`
    Sep,
    Punct(u8),
    /// A number, string or character literal.
    Literal,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    line: u32,
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The tokens of Rust source, without comments; literals become [`Tok::Literal`].
fn tokenize(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let mut tokens = Vec::new();
    let mut line = 1u32;
    let mut i = 0;
    // Skips a quoted string whose body starts at `i`; returns the index after the closing quote.
    let string = |mut i: usize, line: &mut u32| {
        while i < b.len() && b[i] != b'"' {
            if b[i] == b'\\' {
                i += 1;
            }
            if at(i) == b'\n' {
                *line += 1;
            }
            i += 1;
        }
        i + 1
    };
    // A raw string `r##"…"##` with its body at `i`.
    let raw = |mut i: usize, hashes: usize, line: &mut u32| {
        while i < b.len() {
            if b[i] == b'"' && (1..=hashes).all(|k| at(i + k) == b'#') {
                return i + 1 + hashes;
            }
            if b[i] == b'\n' {
                *line += 1;
            }
            i += 1;
        }
        i
    };
    while i < b.len() {
        let c = b[i];
        let start_line = line;
        let mut push = |tok| {
            tokens.push(Token {
                tok,
                line: start_line,
            })
        };
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            b'/' if at(i + 1) == b'/' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if at(i + 1) == b'*' => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && at(i + 1) == b'*' {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && at(i + 1) == b'/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if b[i] == b'\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                }
            }
            b'"' => {
                i = string(i + 1, &mut line);
                push(Tok::Literal);
            }
            b'\'' => {
                if at(i + 1) == b'\\' {
                    i += 3; // the quote, the backslash and the escaped character
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                    push(Tok::Literal);
                } else {
                    let width = src
                        .get(i + 1..)
                        .and_then(|rest| rest.chars().next())
                        .map_or(1, char::len_utf8);
                    if at(i + 1 + width) == b'\'' {
                        i += width + 2;
                        push(Tok::Literal);
                    } else {
                        i += 1; // a lifetime or a label: its name follows as an identifier
                    }
                }
            }
            _ if ident_byte(c) && !c.is_ascii_digit() => {
                // String prefixes: b"…", c"…", b'…', r"…", r#"…"#, br"…", cr#"…"#; and r#ident.
                let prefixed = matches!(c, b'b' | b'c') && at(i + 1) == b'r';
                let r = if c == b'r' {
                    Some(i + 1)
                } else if prefixed {
                    Some(i + 2)
                } else {
                    None
                };
                if let Some(after_r) = r {
                    let hashes = (after_r..).take_while(|&k| at(k) == b'#').count();
                    if at(after_r + hashes) == b'"' {
                        i = raw(after_r + hashes + 1, hashes, &mut line);
                        push(Tok::Literal);
                        continue;
                    }
                    if c == b'r' && hashes == 1 && ident_byte(at(after_r + 1)) {
                        let start = after_r + 1;
                        i = start;
                        while i < b.len() && ident_byte(b[i]) {
                            i += 1;
                        }
                        push(Tok::Ident(&src[start..i]));
                        continue;
                    }
                }
                if matches!(c, b'b' | b'c') && at(i + 1) == b'"' {
                    i = string(i + 2, &mut line);
                    push(Tok::Literal);
                    continue;
                }
                if c == b'b' && at(i + 1) == b'\'' {
                    i += 2;
                    if at(i) == b'\\' {
                        i += 2;
                    }
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                    push(Tok::Literal);
                    continue;
                }
                let start = i;
                while i < b.len() && ident_byte(b[i]) {
                    i += 1;
                }
                push(Tok::Ident(&src[start..i]));
            }
            _ if c.is_ascii_digit() => {
                while i < b.len() && ident_byte(b[i]) {
                    i += 1;
                }
                push(Tok::Literal);
            }
            b':' if at(i + 1) == b':' => {
                i += 2;
                push(Tok::Sep);
            }
            _ => {
                i += 1;
                push(Tok::Punct(c));
            }
        }
    }
    tokens
}

/// Which crate root `crate::` paths start from in a file.
#[derive(Clone, Copy)]
enum Root<'a> {
    /// A library file at this module path: `crate::`, `super::` and `self::` paths count.
    Library(&'a [String]),
    /// `main.rs`: the library is `skillgate::`; its own `crate`, `super`, `self` are the binary.
    Binary,
}

/// What one file imports, outside test code.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    imports: Vec<Import>,
    /// Modules declared with `#[cfg(test)] mod x;` or `#[cfg(test)] mod x { … }`, absolute.
    test_modules: Vec<Vec<String>>,
    /// The file starts with `#![cfg(test)]`.
    test_only: bool,
    /// `pub use a::…::Name;` at this file's top level: `Name` → `a` (used for `lib.rs`).
    reexports: Vec<(String, String)>,
}

fn is(tokens: &[Token], i: usize, tok: Tok) -> bool {
    tokens.get(i).is_some_and(|t| t.tok == tok)
}

/// The index of the bracket closing the one at `open` (or the end).
fn closing(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.tok {
            Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
            Tok::Punct(b')' | b']' | b'}') => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Whether a `cfg` predicate holds only under `cfg(test)`; `i` moves past it.
fn test_only(tokens: &[Token], i: &mut usize) -> bool {
    let Some(Tok::Ident(name)) = tokens.get(*i).map(|t| t.tok) else {
        *i += 1;
        return false;
    };
    *i += 1;
    if is(tokens, *i, Tok::Punct(b'(')) {
        *i += 1;
        let mut parts = Vec::new();
        while *i < tokens.len() && !is(tokens, *i, Tok::Punct(b')')) {
            parts.push(test_only(tokens, i));
            if is(tokens, *i, Tok::Punct(b',')) {
                *i += 1;
            }
        }
        *i += 1;
        return match name {
            "all" => parts.iter().any(|&p| p),
            "any" => !parts.is_empty() && parts.iter().all(|&p| p),
            _ => false, // not(…)
        };
    }
    if is(tokens, *i, Tok::Punct(b'=')) {
        *i += 2;
        return false;
    }
    name == "test"
}

/// Whether the attribute between `[` at `open` and `]` at `close` is a test-only `cfg`.
fn test_cfg(tokens: &[Token], open: usize, close: usize) -> bool {
    let attribute = &tokens[open + 1..close];
    if !is(attribute, 0, Tok::Ident("cfg")) || !is(attribute, 1, Tok::Punct(b'(')) {
        return false;
    }
    let mut i = 2;
    test_only(attribute, &mut i)
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn",
    "mod",
    "use",
    "impl",
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "const",
    "static",
    "let",
    "extern",
    "unsafe",
    "async",
    "macro_rules",
];

/// Skips the item (or field, or statement) starting at `start`, after its `#[cfg(test)]`: returns
/// where it ends and, for `mod x`, the module's name.
fn skip_item<'a>(tokens: &[Token<'a>], start: usize) -> (usize, Option<&'a str>) {
    let mut j = start;
    while is(tokens, j, Tok::Punct(b'#')) && is(tokens, j + 1, Tok::Punct(b'[')) {
        j = closing(tokens, j + 1) + 1;
    }
    let mut k = j;
    if is(tokens, k, Tok::Ident("pub")) {
        k += 1;
        if is(tokens, k, Tok::Punct(b'(')) {
            k = closing(tokens, k) + 1;
        }
    }
    let keyword =
        matches!(tokens.get(k).map(|t| t.tok), Some(Tok::Ident(w)) if ITEM_KEYWORDS.contains(&w));
    let module = match (
        tokens.get(k).map(|t| t.tok),
        tokens.get(k + 1).map(|t| t.tok),
    ) {
        (Some(Tok::Ident("mod")), Some(Tok::Ident(name))) => Some(name),
        _ => None,
    };
    let mut depth = 0usize;
    while j < tokens.len() {
        match tokens[j].tok {
            Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
            Tok::Punct(close @ (b')' | b']' | b'}')) => {
                if depth == 0 {
                    return (j, module); // the end of the enclosing block: not ours
                }
                depth -= 1;
                if depth == 0 && close == b'}' {
                    return (j + 1, module);
                }
            }
            Tok::Punct(b';') if depth == 0 => return (j + 1, module),
            // A field, an argument or a match arm ends at its comma.
            Tok::Punct(b',') if depth == 0 && !keyword => return (j + 1, module),
            _ => {}
        }
        j += 1;
    }
    (j, module)
}

/// The absolute paths a path (or use tree) starting at `i` reaches, given its resolved `prefix`:
/// cut after two segments, each with the line of its top-level segment.
fn expand(tokens: &[Token], i: usize, prefix: &[String], line: u32, out: &mut Vec<Import>) {
    let emit = |out: &mut Vec<Import>, path: &[String], line| {
        if !path.is_empty() {
            out.push(Import {
                line,
                path: path.to_vec(),
            });
        }
    };
    if prefix.len() >= 2 {
        return emit(out, prefix, line);
    }
    match tokens.get(i).map(|t| t.tok) {
        Some(Tok::Ident(name)) if name != "self" && name != "super" && name != "crate" => {
            let line = if prefix.is_empty() {
                tokens[i].line
            } else {
                line
            };
            let mut path = prefix.to_vec();
            path.push(name.to_owned());
            if is(tokens, i + 1, Tok::Sep) {
                expand(tokens, i + 2, &path, line, out);
            } else {
                emit(out, &path, line);
            }
        }
        Some(Tok::Punct(b'{')) => {
            let end = closing(tokens, i);
            let mut branch = i + 1;
            while branch < end {
                expand(tokens, branch, prefix, line, out);
                // The next branch starts after the next comma at this level.
                let mut depth = 0usize;
                while branch < end {
                    match tokens[branch].tok {
                        Tok::Punct(b'{') => depth += 1,
                        Tok::Punct(b'}') => depth -= 1,
                        Tok::Punct(b',') if depth == 0 => break,
                        _ => {}
                    }
                    branch += 1;
                }
                branch += 1;
            }
        }
        _ => emit(out, prefix, line),
    }
}

/// The imports of one file (see the module doc).
fn scan(src: &str, root: Root) -> Scan {
    let tokens = tokenize(src);
    let mut scan = Scan::default();
    let (file_module, crate_word): (&[String], &str) = match root {
        Root::Library(module) => (module, "crate"),
        Root::Binary => (&[], "skillgate"),
    };
    let library = matches!(root, Root::Library(_));
    let mut depth = 0usize;
    // Inline modules we are in: name, and the brace depth inside them.
    let mut inline: Vec<(&str, usize)> = Vec::new();
    let here = |inline: &[(&str, usize)]| -> Vec<String> {
        let mut path = file_module.to_vec();
        path.extend(inline.iter().map(|(name, _)| (*name).to_owned()));
        path
    };
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let prev = i.checked_sub(1).map(|p| tokens[p].tok);
        match token.tok {
            Tok::Punct(b'#') => {
                let inner = is(&tokens, i + 1, Tok::Punct(b'!'));
                let open = i + 1 + usize::from(inner);
                if is(&tokens, open, Tok::Punct(b'[')) {
                    let close = closing(&tokens, open);
                    if test_cfg(&tokens, open, close) {
                        if inner && depth == 0 {
                            scan.test_only = true;
                            return scan;
                        }
                        let (end, module) = if inner {
                            // `#![cfg(test)]` inside `mod x { … }`: the rest of the block.
                            (closing_of_block(&tokens, close + 1), None)
                        } else {
                            skip_item(&tokens, close + 1)
                        };
                        if let Some(name) = module {
                            let mut path = here(&inline);
                            path.push(name.to_owned());
                            scan.test_modules.push(path);
                        }
                        i = end;
                        continue;
                    }
                    i = close + 1; // attributes hold no imports
                    continue;
                }
            }
            Tok::Punct(b'{') => depth += 1,
            Tok::Punct(b'}') => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|&(_, inside)| inside > depth) {
                    inline.pop();
                }
            }
            Tok::Ident("mod") => {
                if let (Some(Tok::Ident(name)), true) = (
                    tokens.get(i + 1).map(|t| t.tok),
                    is(&tokens, i + 2, Tok::Punct(b'{')),
                ) {
                    inline.push((name, depth + 1));
                    i += 2;
                    continue;
                }
            }
            Tok::Ident("use") if depth == 0 && library && file_module.is_empty() => {
                reexport(&tokens, i + 1, &mut scan.reexports);
            }
            // `pub(in crate::x)` names an ancestor: not an import.
            Tok::Ident(word)
                if word == crate_word
                    && is(&tokens, i + 1, Tok::Sep)
                    && prev != Some(Tok::Sep)
                    && prev != Some(Tok::Ident("in")) =>
            {
                expand(&tokens, i + 2, &[], token.line, &mut scan.imports);
            }
            Tok::Ident("super" | "self")
                if library && prev != Some(Tok::Sep) && is(&tokens, i + 1, Tok::Sep) =>
            {
                let mut path = here(&inline);
                let mut j = i;
                if is(&tokens, j, Tok::Ident("self")) {
                    j += 2;
                }
                let mut climbed_out = false;
                while is(&tokens, j, Tok::Ident("super")) && is(&tokens, j + 1, Tok::Sep) {
                    climbed_out |= path.pop().is_none();
                    j += 2;
                }
                if !climbed_out {
                    expand(&tokens, j, &path, token.line, &mut scan.imports);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// The index of the `}` closing the block we are in at `i`.
fn closing_of_block(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
            Tok::Punct(b')' | b']' | b'}') => {
                if depth == 0 {
                    return i;
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The names a crate-root `use` at `i` brings in, with the module they come from:
/// `error::Error` and `error::{Error, Other as O}` give `Error` (and `O`) → `error`.
fn reexport(tokens: &[Token], i: usize, out: &mut Vec<(String, String)>) {
    let Some(Tok::Ident(module)) = tokens.get(i).map(|t| t.tok) else {
        return;
    };
    let end = (i..tokens.len())
        .find(|&j| is(tokens, j, Tok::Punct(b';')))
        .unwrap_or(tokens.len());
    // A leaf is the identifier before `,` `}` or `;`: the renamed name after `as`, or the last.
    for j in i + 1..end {
        let Tok::Ident(name) = tokens[j].tok else {
            continue;
        };
        let next = tokens.get(j + 1).map(|t| t.tok);
        if matches!(next, Some(Tok::Punct(b',' | b'}' | b';'))) && name != "self" {
            out.push((name.to_owned(), module.to_owned()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests of the scanner and the rules, so that the layering test cannot pass by seeing nothing
// ---------------------------------------------------------------------------------------------

fn strings(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| (*s).to_owned()).collect()
}

/// The imports of `src` in the library module `module`, as `a::b` strings.
fn imports_in(module: &[&str], src: &str) -> Vec<String> {
    let module = strings(module);
    scan(src, Root::Library(&module))
        .imports
        .iter()
        .map(|import| import.path.join("::"))
        .collect()
}

#[test]
fn grouped_use_trees_give_each_branch() {
    let src = "use crate::{a::{b, c::D}, d, e::*};\nuse crate::f::{self, g};\n";
    assert_eq!(
        imports_in(&["x"], src),
        ["a::b", "a::c", "d", "e", "f", "f::g"].map(String::from)
    );
}

#[test]
fn inline_paths_count_and_visibility_does_not() {
    let src = "pub(crate) fn f() -> crate::git::Sha {\n    crate::runner::run(&x)\n}\n\
               pub(in crate::x) struct S;\nfn g() { <crate::skill::Tier as Default>::default(); }";
    assert_eq!(
        imports_in(&["x"], src),
        ["git::Sha", "runner::run", "skill::Tier"].map(String::from)
    );
}

#[test]
fn lines_are_those_of_the_module_named() {
    let src = "//! doc\nuse crate::{\n    a::B,\n    c::D,\n};\n";
    let module = strings(&["x"]);
    let lines: Vec<u32> = scan(src, Root::Library(&module))
        .imports
        .iter()
        .map(|import| import.line)
        .collect();
    assert_eq!(lines, [3, 4]);
}

#[test]
fn comments_and_literals_are_not_code() {
    let src = r####"
        // use crate::a::b;
        /// [`crate::b::c`]
        /* crate::c /* nested */ crate::d::e */
        const S: &str = "crate::e::f \" crate::f";
        const R: &str = r#"crate::g " crate::h"#;
        const B: &[u8] = br##"crate::i"##;
        const C: char = '"'; const Q: char = '\''; const U: char = '\u{1F600}';
        fn life<'a>(x: &'a str) -> &'a str { b'"'; crate::real::One }
        let r#type = crate::raw::Two;
        "####;
    assert_eq!(
        imports_in(&["x"], src),
        ["real::One", "raw::Two"].map(String::from)
    );
}

#[test]
fn cfg_test_code_is_skipped() {
    let src = "
        use crate::kept::A;
        #[cfg(test)]
        mod tests { use crate::gone::B; mod inner { use crate::gone::C; } }
        #[cfg(test)]
        #[expect(dead_code)]
        pub(crate) fn helper() -> crate::gone::D { crate::gone::e() }
        #[cfg(all(test, unix))]
        use crate::gone::F;
        #[cfg(any(test, unix))]
        use crate::kept::G;
        #[cfg(not(test))]
        use crate::kept::H;
        #[cfg(test)]
        mod testing;
        struct S {
            #[cfg(test)]
            field: crate::gone::I,
            other: crate::kept::J,
        }
        fn after() { crate::kept::k(); }
        ";
    let module = strings(&["x"]);
    let scan = scan(src, Root::Library(&module));
    let imports: Vec<String> = scan.imports.iter().map(|i| i.path.join("::")).collect();
    assert_eq!(
        imports,
        ["kept::A", "kept::G", "kept::H", "kept::J", "kept::k"]
    );
    assert_eq!(
        scan.test_modules,
        [strings(&["x", "tests"]), strings(&["x", "testing"])]
    );
    let whole = self::scan(
        "#![cfg(test)]\nuse crate::gone::A;\n",
        Root::Library(&module),
    );
    assert!(whole.test_only && whole.imports.is_empty());
}

#[test]
fn super_paths_resolve_to_the_module_they_reach() {
    // In src/a/b.rs (module a::b): `super` is `a`, `super::super` the crate root.
    let src = "use super::c::D;\nuse super::super::e::F;\nuse super::{g, h};\nuse self::i::J;\n\
               fn f() { super::super::k::l(); }\n\
               mod tests { use super::super::m::N; use super::*; }";
    assert_eq!(
        imports_in(&["a", "b"], src),
        [
            "a::c", "e::F", "a::g", "a::h", "a::b", "k::l", "a::m", "a::b"
        ]
        .map(String::from)
    );
    // In src/a.rs (module a): `super` is already the root; in its `mod tests`, it is `a`.
    assert_eq!(
        imports_in(&["a"], "use super::z::Y;\nmod tests { use super::{q, r}; }"),
        ["z::Y", "a::q", "a::r"].map(String::from)
    );
}

#[test]
fn main_imports_the_library_by_name() {
    let scan = scan(
        "use skillgate::cli::{Cli, Command};\nuse crate::own::X;\nfn f() { skillgate::commands::check::run(); self::g(); }",
        Root::Binary,
    );
    let imports: Vec<String> = scan.imports.iter().map(|i| i.path.join("::")).collect();
    assert_eq!(imports, ["cli::Cli", "cli::Command", "commands::check"]);
}

#[test]
fn the_crate_root_reexports_are_read() {
    let scan = scan(
        "pub mod error;\npub use error::Error;\npub use gate::{GateRun, Tier as T};\n",
        Root::Library(&[]),
    );
    assert_eq!(
        scan.reexports,
        [("Error", "error"), ("GateRun", "gate"), ("T", "gate")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
}

/// A file of a made-up tree, scanned.
fn source(file: &str, text: &str) -> Source {
    let module = module_of(Path::new(
        file.strip_prefix("src/").expect("a file under src/"),
    ));
    let root = if module == ["main"] {
        Root::Binary
    } else {
        Root::Library(&module)
    };
    let scan = scan(text, root);
    Source {
        file: file.to_owned(),
        module,
        scan,
    }
}

#[test]
fn a_made_up_tree_gets_every_problem_once_per_line() {
    let tree = [
        source("src/lib.rs", "pub mod gate;\npub use error::Error;\n"),
        source(
            "src/gate.rs",
            "use crate::config::X;\nuse crate::cli::FailOn;\nfn f() -> crate::Error {}\n",
        ),
        source(
            "src/config.rs",
            "use crate::{gate::GateRun, skill::Skill};\n",
        ),
        source("src/newthing.rs", "use crate::gate::GateRun;\n"),
        source("src/suite/mod.rs", "#[cfg(test)]\nmod testing;\n"),
        source("src/suite/testing.rs", "use crate::runner::Runner;\n"),
        source(
            "src/commands/check.rs",
            "use super::publish::distrust;\nuse crate::cli::Args;\n",
        ),
        source("src/commands/publish.rs", "use crate::pipeline::deliver;\n"),
    ];
    assert_eq!(
        check(&tree),
        [
            "R1: import cycle config → gate → config: config → gate at src/config.rs:1, \
             gate → config at src/gate.rs:1; hint: cut config → gate (against the layer \
             table)",
            "src/commands/check.rs:1: R4: commands/check imports commands/publish \
             (`commands::publish`); hint: a command never calls another: move the shared part \
             into pipeline/",
            "src/config.rs:1: R7: config (domain) imports gate (pure layer) (`gate::GateRun`); \
             hint: the vocabulary depends on nothing above it: move the type down, or the code \
             up",
            "src/gate.rs:2: R2, R3: gate (pure layer) imports cli (entry) (`cli::FailOn`); hint: move \
             the type the command line shares into the domain (config or gate)",
            "src/gate.rs:3: R2: gate (pure layer) imports error (pipeline level) (`error`); hint: \
             return this module's own error type; the pipeline wraps it in Error",
            "src/newthing: unknown top-level module `newthing`: add it to LAYERS in \
             tests/layering.rs, in the layer it belongs to",
        ]
    );
}

fn broken(from: &str, from_file: Option<&str>, to: &[&str]) -> Vec<&'static str> {
    let command_files: BTreeSet<String> = ["check", "publish"].map(String::from).into();
    check_import(from, from_file, &strings(to), &command_files)
        .map(|broken| broken.rules)
        .unwrap_or_default()
}

#[test]
fn the_rules_name_what_they_forbid() {
    // R2: pure and domain code never imports an edge, pipeline, commands, cli or error.
    assert_eq!(
        broken("config", None, &["audit", "AuditConfig"]),
        ["R2", "R7"]
    );
    assert_eq!(broken("analysis", Some("risk"), &["error"]), ["R2"]);
    // R3: cli stops at commands, commands at main, pipeline at commands.
    assert_eq!(broken("gate", None, &["cli", "FailOn"]), ["R2", "R3"]);
    assert_eq!(broken("pipeline", None, &["cli"]), ["R3"]);
    assert_eq!(broken("pipeline", None, &["commands"]), ["R3"]);
    assert!(broken("commands", Some("check"), &["pipeline", "run"]).is_empty());
    assert!(broken("main", None, &["commands", "check"]).is_empty());
    assert!(broken("main", None, &["cli"]).is_empty());
    // R4: no command imports another; the folder's mod.rs is not a command.
    assert_eq!(
        broken("commands", Some("check"), &["commands", "publish"]),
        ["R4"]
    );
    assert!(broken("commands", Some("check"), &["commands", "Outcome"]).is_empty());
    assert!(broken("commands", Some("check"), &["commands", "check"]).is_empty());
    // R5: edges never import pipeline, commands, cli or error.
    assert_eq!(broken("audit", None, &["error", "Error"]), ["R5"]);
    assert_eq!(broken("runner", None, &["pipeline", "run"]), ["R3", "R5"]);
    assert!(broken("audit", None, &["git"]).is_empty());
    // R7: the domain imports only the domain.
    assert_eq!(broken("skill", None, &["gate", "GateRun"]), ["R7"]);
    assert!(broken("config", None, &["skill", "Tier"]).is_empty());
    assert!(broken("gate", None, &["policy", "Decision"]).is_empty());
    // R6: rendering never reaches the filesystem.
    assert_eq!(broken("render", Some("lint"), &["lint", "Finding"]), ["R6"]);
    assert!(broken("render", None, &["gate"]).is_empty());
    // Downwards is fine.
    assert!(broken("pipeline", None, &["store"]).is_empty());
    assert!(broken("policy", None, &["skill", "Tier"]).is_empty());
}

#[test]
fn cycles_are_found_with_their_modules() {
    let edges: BTreeSet<(String, String)> =
        [("c", "a"), ("a", "b"), ("b", "c"), ("b", "d"), ("d", "d")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .into();
    let sideways = |_: &str, _: &str| Direction::Sideways;
    assert_eq!(cycles(&edges, sideways), [strings(&["a", "b", "c", "a"])]);
    // Two cycles through one upward edge: the shorter is enough to show it.
    let edges: BTreeSet<(String, String)> =
        [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "a")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .into();
    let up_from_a = |from: &str, _: &str| {
        if from == "a" {
            Direction::Up
        } else {
            Direction::Down
        }
    };
    assert_eq!(cycles(&edges, up_from_a), [strings(&["a", "b", "c", "a"])]);
    assert_eq!(cycles(&edges, sideways).len(), 2);
    let acyclic: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("a", "c")]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .into();
    assert!(cycles(&acyclic, sideways).is_empty());
}

#[test]
fn the_real_tree_is_seen() {
    let sources = this_tree();
    let edges: BTreeSet<(String, String)> = sources
        .iter()
        .filter(|s| !s.module.is_empty())
        .flat_map(|s| {
            s.scan
                .imports
                .iter()
                .map(|i| (s.module[0].clone(), i.path[0].clone()))
        })
        .filter(|(from, to)| from != to)
        .collect();
    assert!(edges.len() > 60, "only {} module edges seen", edges.len());
    for (from, to) in [
        ("policy", "skill"),
        ("main", "commands"),
        ("render", "gate"),
    ] {
        assert!(
            edges.contains(&(from.to_owned(), to.to_owned())),
            "{from} → {to} not seen"
        );
    }
    let imports: usize = sources.iter().map(|s| s.scan.imports.len()).sum();
    assert!(imports > 400, "only {imports} imports seen");
    // The test code of the tree is known as such.
    assert!(sources.iter().any(|s| !s.scan.test_modules.is_empty()));
}
