//! Shell as tree-sitter's bash grammar reads it: every simple command of a script (those inside
//! `$(…)` and `<(…)` too) with its program and words as written, what each word is when no
//! expansion decides it, and the commands whose output it reads through a pipe. The signals
//! that look for code hidden from a reader (`s""h`, `$c$r`, `base64 -d | sh`) read this.

use std::collections::HashMap;

use tree_sitter::Node;

use super::syntax::{self, Unit, text};

/// What a word is, as far as it can be told without running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Fixed text written plainly: `curl`, `-s`, `"bash"`, `/usr/bin/env`.
    Plain,
    /// Fixed text split by quotes or escapes: `s""h`, `'b'ash`, `b\ash`, `$'\x62'ash`.
    Split,
    /// One parameter expansion: `$X`, `"${X}"`, `${X:-y}` (its name).
    Variable(String),
    /// `"$@"`, `$*`: the script's own arguments, passed on.
    Arguments,
    /// Expansions with or without text and no `/`: `$c$r`, `c${u}rl` (the names).
    Assembled(Vec<String>),
    /// Expansions with a `/`: a path under a variable directory (`"$DIR/run.sh"`).
    Path,
    /// Holds a command or process substitution: `$(…)`, `"$(…)"`, `<(…)`.
    Substitution,
}

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub raw: String,
    /// The text the shell sees, when no expansion decides it.
    pub value: Option<String>,
    pub shape: Shape,
    /// With expansions written `${NAME}` whatever their operator, `${NAME:?}` when guarded and
    /// `${NAME:-}` when a default with fixed text stands in for an empty value, substitutions
    /// `$(…)`: `"$HOME"/*` → `${HOME}/*`, `"${OUT:-out}"/` → `${OUT:-}/`.
    pub template: String,
    /// A process substitution `<(…)`.
    pub process: bool,
    /// The variables it expands.
    pub variables: Vec<String>,
    /// Byte range in the unit.
    pub start: usize,
    pub end: usize,
}

impl Word {
    /// The value, else the raw text.
    pub fn text(&self) -> &str {
        self.value.as_deref().unwrap_or(&self.raw)
    }

    /// Whether `name` is the only variable it expands, with no other text around it.
    fn variables_only(&self, name: &str) -> bool {
        self.variables.iter().all(|v| v == name)
            && !self.template.is_empty()
            && self.template.starts_with("${")
            && self.template.ends_with('}')
            && !self.template[2..].contains("${")
    }
}

/// What a command reads on its standard input, when a redirect of its own says.
#[derive(Debug, Clone)]
pub enum Input {
    /// `< file`.
    File(Word),
    /// `<<EOF … EOF`: the body as a word (its substitutions are commands of the script), and
    /// the 1-based line of the file it starts on.
    Here { body: Word, first_line: u32 },
    /// `<<< word`.
    HereString(Word),
}

/// One simple command.
#[derive(Debug, Clone)]
pub struct Cmd {
    /// 1-based, in the file.
    pub line: u32,
    /// The program, after wrappers (`sudo`, `env`, `exec`, `nohup`, `timeout`, …).
    pub name: Word,
    pub args: Vec<Word>,
    /// The wrappers before the program, with their options: `xargs -I{}` of `xargs -I{} sh -c`.
    pub wrappers: Vec<Word>,
    /// Its standard input, from a redirect (`sh < notes.txt`, `python3 - <<EOF`).
    pub input: Option<Input>,
    /// The commands of the earlier stages of its pipeline: it reads their output.
    pub upstream: Vec<usize>,
    pub start: usize,
    pub end: usize,
}

impl Cmd {
    /// The program's base name when fixed: `/usr/bin/curl` → `curl`.
    pub fn program(&self) -> Option<&str> {
        self.name
            .value
            .as_deref()
            .map(|v| v.rsplit('/').next().unwrap_or(v))
    }
}

/// The commands of one unit of shell, and the variables it sets.
#[derive(Debug, Default)]
pub struct Script {
    pub commands: Vec<Cmd>,
    /// The defaults `${X:-v}`/`${X:=v}` give each variable, when all are fixed text.
    defaults: HashMap<String, Option<Vec<String>>>,
    /// Each variable assigned, with its value when every assignment sets the same fixed text.
    pub assigned: HashMap<String, Option<String>>,
    /// Assigned from a command substitution (`dir=$(mktemp -d)`).
    pub substituted: Vec<String>,
    /// Variables some test or `${X:?}` checks: an empty value is caught.
    pub checked: Vec<String>,
    /// Every value each variable can hold, when all are fixed text: its assignments (an array's
    /// first element), `for` lists of fixed words and the defaults of `${X:-v}`/`${X:=v}` (what
    /// the environment sets instead is the user's own choice). `None` when one is not fixed.
    pub values: HashMap<String, Option<Vec<String>>>,
    /// Variables every assignment of which holds fixed text besides `/` (`"$ROOT/build"`,
    /// `"${1:-./out}"`), or that a `for` over fixed words sets: never empty, never `/`.
    pub non_empty: HashMap<String, bool>,
    /// The [`Word::template`] of every value each variable is given (an array's first
    /// element, each word of a `for` list): `ANIMATE_JS="${SCRIPT_DIR}/animate.js"` →
    /// `${SCRIPT_DIR}/animate.js`.
    pub templates: HashMap<String, Vec<String>>,
}

impl Script {
    /// The commands inside `word` (its substitutions).
    pub fn inside<'s>(&'s self, word: &'s Word) -> impl Iterator<Item = &'s Cmd> {
        self.commands
            .iter()
            .filter(move |c| c.start >= word.start && c.end <= word.end)
    }

    /// What `word` resolves to when every variable in it is set to fixed text here, its own
    /// text kept around them: `c${u}rl` with `u=ur` → `curl`.
    pub fn resolve(&self, word: &Word) -> Option<String> {
        let mut out = String::new();
        for piece in template_pieces(&word.template) {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Variable(name) => out.push_str(&self.assigned.get(name).cloned().flatten()?),
                Piece::Substitution => return None,
            }
        }
        Some(out)
    }

    /// The values `name` can hold, when every one is fixed text written here (see
    /// [`Script::values`]); `$0` is the script itself.
    pub fn values_of(&self, name: &str) -> Option<Vec<String>> {
        if name == "0" {
            return Some(vec!["$0 (the script itself)".to_owned()]);
        }
        let mut all = self.values.get(name).cloned().unwrap_or(Some(Vec::new()))?;
        if let Some(Some(defaults)) = self.defaults.get(name) {
            all.extend(defaults.iter().cloned());
        }
        all.dedup();
        (!all.is_empty()).then_some(all)
    }

    fn add_value(&mut self, name: &str, value: Option<String>) {
        let entry = self
            .values
            .entry(name.to_owned())
            .or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), value) {
            (Some(values), Some(value)) => {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
            _ => *entry = None,
        }
    }

    /// Whether every value given `name` here is a path (`"${ROOT}/scripts/x.sh"`): a command
    /// named by it runs a path, as `"$ROOT/scripts/x.sh"` written out does.
    pub fn holds_paths(&self, name: &str) -> bool {
        self.given(name)
            .is_some_and(|all| all.iter().all(|t| t.contains('/')))
    }

    /// The templates of the values given `name`, but an empty one (`binary=""` before the
    /// options are read); `None` when it is given none other.
    fn given(&self, name: &str) -> Option<Vec<&str>> {
        let all: Vec<&str> = self
            .templates
            .get(name)?
            .iter()
            .map(String::as_str)
            .filter(|t| !t.is_empty())
            .collect();
        (!all.is_empty()).then_some(all)
    }

    /// Whether every value given `name` here is one of the script's (or function's)
    /// arguments (`target="$1"`, `binary=$2`): what it runs is its caller's choice, as with
    /// `"$@"`. `$1` itself is one.
    pub fn holds_arguments(&self, name: &str) -> bool {
        let positional = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        positional(name)
            || self.given(name).is_some_and(|all| {
                all.iter().all(|t| {
                    matches!(template_pieces(t).as_slice(), [Piece::Variable(v)] if positional(v))
                })
            })
    }

    /// Take what `other` knows of the variables this script does not set: a Markdown file's
    /// fences are one set of instructions, and `PY=…` in one block names what `$PY` runs in
    /// the next.
    pub fn inherit(&mut self, other: &Script) {
        for (name, value) in &other.values {
            if !self.values.contains_key(name) && !self.defaults.contains_key(name) {
                self.values.insert(name.clone(), value.clone());
                if let Some(defaults) = other.defaults.get(name) {
                    self.defaults.insert(name.clone(), defaults.clone());
                }
            }
        }
        for (name, templates) in &other.templates {
            self.templates
                .entry(name.clone())
                .or_insert_with(|| templates.clone());
        }
        for (name, value) in &other.assigned {
            self.assigned
                .entry(name.clone())
                .or_insert_with(|| value.clone());
        }
        for (name, non_empty) in &other.non_empty {
            self.non_empty.entry(name.clone()).or_insert(*non_empty);
        }
    }

    /// Add what `other` knows to what this script knows, as [`Script::inherit`] reads it.
    pub fn merge(&mut self, other: &Script) {
        for (name, value) in &other.values {
            match value {
                Some(values) => {
                    for v in values {
                        self.add_value(name, Some(v.clone()));
                    }
                }
                None => self.add_value(name, None),
            }
        }
        for (name, defaults) in &other.defaults {
            let entry = self
                .defaults
                .entry(name.clone())
                .or_insert_with(|| Some(Vec::new()));
            match (entry.as_mut(), defaults) {
                (Some(all), Some(more)) => all.extend(more.iter().cloned()),
                _ => *entry = None,
            }
        }
        for (name, templates) in &other.templates {
            for t in templates {
                self.add_template(name, t);
            }
        }
        for (name, value) in &other.assigned {
            self.assigned
                .entry(name.clone())
                .and_modify(|old| {
                    if old != value {
                        *old = None;
                    }
                })
                .or_insert_with(|| value.clone());
        }
        for (name, non_empty) in &other.non_empty {
            self.add_non_empty(name, *non_empty);
        }
    }

    fn add_template(&mut self, name: &str, template: &str) {
        self.templates
            .entry(name.to_owned())
            .or_default()
            .push(template.to_owned());
    }

    fn add_non_empty(&mut self, name: &str, non_empty: bool) {
        let entry = self.non_empty.entry(name.to_owned()).or_insert(true);
        *entry &= non_empty;
    }
}

/// A piece of a [`Word::template`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'t> {
    Text(&'t str),
    /// `${NAME}`, `${NAME:?}`, `${NAME:-}`: the name.
    Variable(&'t str),
    /// `$(…)`, `<(…)`.
    Substitution,
}

/// The pieces of a template, in order.
pub fn template_pieces(template: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    loop {
        let expansion = rest.find("${");
        let substitution = ["$(…)", "<(…)"].iter().filter_map(|s| rest.find(s)).min();
        let at = match (expansion, substitution) {
            (Some(e), Some(s)) => e.min(s),
            (Some(at), None) | (None, Some(at)) => at,
            (None, None) => break,
        };
        if at > 0 {
            pieces.push(Piece::Text(&rest[..at]));
        }
        if Some(at) == substitution {
            pieces.push(Piece::Substitution);
            rest = &rest[at + "$(…)".len()..];
            continue;
        }
        let Some(end) = rest[at..].find('}').map(|e| at + e) else {
            pieces.push(Piece::Text(&rest[at..]));
            rest = "";
            break;
        };
        let inner = &rest[at + 2..end];
        let name = inner.split(':').next().unwrap_or(inner);
        pieces.push(Piece::Variable(name));
        rest = &rest[end + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    pieces
}

/// Fixed text besides `/` in a template, or a default with some: the word is never empty and
/// never `/`.
fn has_fixed_text(template: &str) -> bool {
    let mut rest = template;
    let mut fixed = String::new();
    while let Some(at) = rest.find(['$', '<']) {
        fixed.push_str(&rest[..at]);
        let after = &rest[at..];
        let end = if after.starts_with("${") {
            let end = after.find('}').map_or(after.len(), |e| e + 1);
            // `${X:-out}`: a default with fixed text stands in for an empty X.
            if after[..end].ends_with(":-}") {
                fixed.push('x');
            }
            end
        } else if after.starts_with("$(…)") || after.starts_with("<(…)") {
            "$(…)".len()
        } else {
            1
        };
        rest = &after[end..];
    }
    fixed.push_str(rest);
    fixed.chars().any(|c| c != '/' && !c.is_whitespace())
}

/// Wrappers that run the command after them, and their options that take a value.
fn wrapper_takes_value(wrapper: &str, option: &str) -> Option<bool> {
    let takes = match wrapper {
        "sudo" | "doas" => matches!(
            option,
            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-r" | "-t" | "-U"
        ),
        "timeout" => matches!(option, "-s" | "-k" | "--signal" | "--kill-after"),
        "nice" => matches!(option, "-n" | "--adjustment"),
        "ionice" => matches!(option, "-c" | "-n" | "--class" | "--classdata"),
        "chrt" | "taskset" => false,
        "stdbuf" => matches!(option, "-i" | "-o" | "-e"),
        "env" => matches!(option, "-u" | "-C" | "-S"),
        "xargs" => matches!(
            option,
            "-I" | "-n" | "-P" | "-L" | "-d" | "-s" | "-E" | "-a"
        ),
        "exec" => option == "-a",
        "nohup" | "time" | "command" | "builtin" | "setsid" => false,
        _ => return None,
    };
    Some(takes)
}

/// Read the shell of `unit`.
pub fn read(parser: &mut tree_sitter::Parser, unit: &Unit<'_>) -> Script {
    let mut script = Script::default();
    let Some(tree) = syntax::parse(parser, syntax::Grammar::Bash, unit.text) else {
        return script;
    };
    let src = unit.text;
    // (stage ranges) of every pipeline, to find who reads whose output.
    let mut pipelines: Vec<Vec<(usize, usize)>> = Vec::new();
    for node in syntax::nodes(tree.root_node()) {
        match node.kind() {
            "command" => {
                if let Some(mut cmd) = command(node, src, unit) {
                    cmd.input = input(node, src, unit);
                    script.commands.push(cmd);
                }
            }
            "pipeline" => {
                let mut cursor = node.walk();
                let mut stages: Vec<(usize, usize)> = node
                    .named_children(&mut cursor)
                    .map(|n| (n.start_byte(), n.end_byte()))
                    .collect();
                // `cat <<'X' | bash`: the grammar puts `| bash` inside the heredoc's redirect;
                // the command the heredoc is on is the pipe's first stage.
                if let Some(redirect) = node.parent()
                    && redirect.kind() == "heredoc_redirect"
                    && let Some(statement) = redirect.parent()
                    && let Some(body) = statement.child_by_field_name("body")
                {
                    stages.insert(0, (body.start_byte(), body.end_byte()));
                }
                pipelines.push(stages);
            }
            "variable_assignment" => {
                if let (Some(name), Some(value)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("value"),
                ) {
                    let name = text(name, src).to_owned();
                    let append = text(node, src)
                        .get(name.len()..)
                        .is_some_and(|t| t.starts_with("+="));
                    assignment_values(&mut script, &name, value, append, src);
                    let word = word(value, src);
                    if word.shape == Shape::Substitution {
                        script.substituted.push(name.clone());
                    }
                    let value = word.value.filter(|v| !v.is_empty());
                    script
                        .assigned
                        .entry(name)
                        .and_modify(|old| {
                            if *old != value {
                                *old = None;
                            }
                        })
                        .or_insert(value);
                }
            }
            "test_command" => {
                // `[ -n "$X" ]`, `[[ -z $X ]]`: the script looks at X before it trusts it.
                let body = text(node, src);
                if body.contains("-n") || body.contains("-z") {
                    for inner in syntax::nodes(node) {
                        if let Some(name) = variable_name(inner, src) {
                            script.checked.push(name);
                        }
                    }
                }
            }
            "expansion" => {
                let body = text(node, src);
                if body.contains('?')
                    && let Some(name) = variable_name(node, src)
                {
                    script.checked.push(name);
                }
                if let Some(name) = variable_name(node, src)
                    && let Some((op, default)) = operator(body)
                    && matches!(op, ":-" | ":=" | "-" | "=")
                {
                    let fixed = fixed_text(default);
                    let entry = script
                        .defaults
                        .entry(name)
                        .or_insert_with(|| Some(Vec::new()));
                    match (entry.as_mut(), fixed) {
                        (Some(all), Some(value)) => all.push(value),
                        _ => *entry = None,
                    }
                }
            }
            "for_statement" => {
                // `for d in build dist .cache`: d holds each word, and nothing else.
                if let Some(variable) = node.child_by_field_name("variable") {
                    let name = text(variable, src).to_owned();
                    let mut cursor = node.walk();
                    let words: Vec<Word> = node
                        .children_by_field_name("value", &mut cursor)
                        .map(|v| word(v, src))
                        .collect();
                    let glob = |w: &Word| w.text().contains(['*', '?', '[']);
                    if words.is_empty() || words.iter().any(|w| w.value.is_none() || glob(w)) {
                        script.add_value(&name, None);
                        script.add_non_empty(&name, false);
                    }
                    for w in &words {
                        script.add_template(&name, &w.template);
                        script.add_value(&name, w.value.clone().filter(|_| !glob(w)));
                        script.add_non_empty(&name, has_fixed_text(&w.template));
                    }
                }
            }
            _ => {}
        }
    }
    for stages in pipelines {
        let mut before: Vec<usize> = Vec::new();
        for (start, end) in stages {
            let inside: Vec<usize> = (0..script.commands.len())
                .filter(|&i| script.commands[i].start >= start && script.commands[i].end <= end)
                .collect();
            for &i in &inside {
                // The innermost pipeline decides (commands in a nested one keep theirs).
                if script.commands[i].upstream.is_empty() {
                    script.commands[i].upstream = before.clone();
                }
            }
            before.extend(inside);
        }
    }
    script
}

/// The variable an expansion names (`$X`, `${X:-y}`, `${X[@]}`).
fn variable_name(node: Node<'_>, src: &str) -> Option<String> {
    if !matches!(node.kind(), "simple_expansion" | "expansion") {
        return None;
    }
    let mut cursor = node.walk();
    let name = node
        .named_children(&mut cursor)
        .find_map(|n| match n.kind() {
            "variable_name" | "special_variable_name" => Some(n),
            "subscript" => n.child_by_field_name("name"),
            _ => None,
        })?;
    Some(text(name, src).to_owned())
}

/// The operator of `${X<op>word}` and its word: `${X:-out}` → `(":-", "out")`.
fn operator(body: &str) -> Option<(&str, &str)> {
    let inner = body.strip_prefix("${")?.strip_suffix('}')?;
    let name_end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let rest = &inner[name_end..];
    [":-", ":=", ":?", ":+", "-", "=", "?", "+"]
        .into_iter()
        .find_map(|op| rest.strip_prefix(op).map(|word| (op, word)))
}

/// The text of a default written without expansions: `out`, `"./out"`, `'x'`.
fn fixed_text(word: &str) -> Option<String> {
    if word.contains(['$', '`', '\\']) {
        return None;
    }
    let unquoted = word.trim_matches(|c| c == '"' || c == '\'');
    Some(unquoted.to_owned())
}

/// The values one assignment gives `name` (see [`Script::values`]).
fn assignment_values(script: &mut Script, name: &str, value: Node<'_>, append: bool, src: &str) {
    if value.kind() == "array" {
        let mut cursor = value.walk();
        let items: Vec<Word> = value
            .named_children(&mut cursor)
            .map(|n| word(n, src))
            .collect();
        // `cmd+=(--flag)` keeps the program `cmd=(python3 -m x)` set.
        if append
            && script
                .values
                .get(name)
                .is_some_and(|v| v.as_ref().is_some_and(|v| !v.contains(&String::new())))
        {
            return;
        }
        let first = match items.first() {
            Some(first) => first.value.clone(),
            None => Some(String::new()),
        };
        script.add_template(name, items.first().map_or("", |w| w.template.as_str()));
        script.add_value(name, first);
        script.add_non_empty(name, items.iter().any(|w| has_fixed_text(&w.template)));
        return;
    }
    let w = word(value, src);
    script.add_template(name, &w.template);
    // `PY=$(command -v python3 || echo python)`: the programs it looks up or prints.
    if w.template == "$(…)"
        && let Some(found) = lookups(value, src)
    {
        for program in found {
            script.add_value(name, Some(program));
        }
        script.add_non_empty(name, true);
        return;
    }
    // `JAVA="${BURP_JAVA:-$default_java}"`: the other variable's values, unless the
    // environment says (the user's own choice).
    if let Some(other) = default_variable(value, src) {
        match script.values_of(&other) {
            Some(values) => {
                for v in values {
                    script.add_value(name, Some(v));
                }
            }
            None => script.add_value(name, None),
        }
        script.add_non_empty(name, script.non_empty.get(&other).copied().unwrap_or(false));
        return;
    }
    // `PYTHON="${PYTHON:-python3}"`: the default is the value, unless the environment says.
    let own_default = value.kind() == "string" || value.kind() == "expansion";
    let self_default = own_default
        && syntax::nodes(value)
            .any(|n| n.kind() == "expansion" && variable_name(n, src).as_deref() == Some(name))
        && w.variables_only(name);
    if !self_default {
        script.add_value(name, w.value.clone());
    }
    script.add_non_empty(name, has_fixed_text(&w.template));
}

/// The programs a substitution looks up or prints, when that is all it does:
/// `$(command -v python3)`, `$(which jq)`, `$(type -P node)`,
/// `$(command -v python3 >/dev/null && echo python3 || echo python)`. `None` when a command in it
/// does something else or names no fixed program.
fn lookups(value: Node<'_>, src: &str) -> Option<Vec<String>> {
    let mut found: Vec<String> = Vec::new();
    let mut any = false;
    for node in syntax::nodes(value) {
        if node.kind() != "command" {
            continue;
        }
        let name = node.child_by_field_name("name")?;
        let program = word(name.named_child(0).unwrap_or(name), src).value?;
        let mut cursor = node.walk();
        let args: Vec<Word> = node
            .children_by_field_name("argument", &mut cursor)
            .map(|a| word(a, src))
            .collect();
        let texts: Vec<&str> = args
            .iter()
            .map(|a| a.value.as_deref().unwrap_or("$"))
            .collect();
        let operand = match (program.as_str(), texts.as_slice()) {
            ("command", ["-v" | "-V", p]) | ("which", [p]) | ("type", ["-P" | "-p", p]) => p,
            ("echo", [p]) | ("printf", [p]) | ("printf", ["%s", p]) | ("printf", ["%s\n", p]) => p,
            _ => return None,
        };
        let base = operand.rsplit('/').next().unwrap_or(operand);
        let plain = !base.is_empty()
            && base
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
        if !plain {
            return None;
        }
        any = true;
        if !found.iter().any(|f| f == operand) {
            found.push((*operand).to_owned());
        }
    }
    any.then_some(found)
}

/// The variable a value falls back on, when it is only that: `"${A:-$B}"`, `${A-${B}}` → `B`.
fn default_variable(value: Node<'_>, src: &str) -> Option<String> {
    let expansion = match value.kind() {
        "expansion" => value,
        "string" => {
            let mut cursor = value.walk();
            let children: Vec<Node<'_>> = value.named_children(&mut cursor).collect();
            match children.as_slice() {
                [only] if only.kind() == "expansion" => *only,
                _ => return None,
            }
        }
        _ => return None,
    };
    let (op, default) = operator(text(expansion, src))?;
    if !matches!(op, ":-" | "-" | ":=" | "=") {
        return None;
    }
    let name = default.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| name.to_owned())
}

/// The command's standard input, from a redirect on it (`sh < x`, `<<EOF`, `<<< "$x"`).
fn input(node: Node<'_>, src: &str, unit: &Unit<'_>) -> Option<Input> {
    let mut redirects: Vec<Node<'_>> = Vec::new();
    let mut cursor = node.walk();
    redirects.extend(node.children_by_field_name("redirect", &mut cursor));
    if let Some(parent) = node.parent()
        && parent.kind() == "redirected_statement"
        && parent
            .child_by_field_name("body")
            .is_some_and(|b| b.id() == node.id())
    {
        let mut cursor = parent.walk();
        redirects.extend(parent.children_by_field_name("redirect", &mut cursor));
    }
    redirects
        .into_iter()
        .find_map(|redirect| match redirect.kind() {
            "herestring_redirect" => redirect
                .named_child(0)
                .map(|w| Input::HereString(word(w, src))),
            "heredoc_redirect" => {
                let mut cursor = redirect.walk();
                let body = redirect
                    .named_children(&mut cursor)
                    .find(|n| n.kind() == "heredoc_body")?;
                let mut inner = body.walk();
                let substituted = body
                    .named_children(&mut inner)
                    .any(|n| n.kind() == "command_substitution");
                Some(Input::Here {
                    body: Word {
                        raw: text(body, src).to_owned(),
                        value: (!substituted).then(|| text(body, src).to_owned()),
                        shape: if substituted {
                            Shape::Substitution
                        } else {
                            Shape::Plain
                        },
                        template: String::new(),
                        process: false,
                        start: body.start_byte(),
                        end: body.end_byte(),
                        variables: Vec::new(),
                    },
                    first_line: syntax::line_of(body, unit),
                })
            }
            "file_redirect" => {
                let descriptor = redirect
                    .child_by_field_name("descriptor")
                    .map(|d| text(d, src));
                let destination = redirect.child_by_field_name("destination")?;
                let operator = text(redirect, src)
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start();
                let reads = operator.starts_with('<')
                    && !operator.starts_with("<&")
                    && !operator.starts_with("<>")
                    && descriptor.is_none_or(|d| d == "0");
                reads.then(|| Input::File(word(destination, src)))
            }
            _ => None,
        })
}

fn command(node: Node<'_>, src: &str, unit: &Unit<'_>) -> Option<Cmd> {
    let name_node = node.child_by_field_name("name")?;
    let mut words = vec![word(name_node.named_child(0).unwrap_or(name_node), src)];
    let mut cursor = node.walk();
    for argument in node.children_by_field_name("argument", &mut cursor) {
        words.push(word(argument, src));
    }
    // Past the wrappers to the command they run.
    let mut at = 0;
    let mut wrappers = 0;
    // Wrappers whose first operand is theirs, whatever its shape: `timeout "$T"`'s duration,
    // `chrt 10`'s priority, `taskset 0x3`'s mask. Read as the command, `"$T"` would hide what
    // runs after it.
    let operand = |program: &str| matches!(program, "timeout" | "chrt" | "taskset");
    while wrappers < 8
        && let Some(program) = words[at].value.as_deref()
    {
        let program = program.rsplit('/').next().unwrap_or(program);
        let Some(_) = wrapper_takes_value(program, "") else {
            break;
        };
        // `command -v x` asks where x is; it does not run it.
        if program == "command"
            && words
                .get(at + 1)
                .is_some_and(|w| matches!(w.text(), "-v" | "-V"))
        {
            break;
        }
        let mut next = at + 1;
        let mut operands = usize::from(operand(program));
        while let Some(w) = words.get(next) {
            let t = w.text();
            if t.starts_with('-') && t.len() > 1 {
                next += if wrapper_takes_value(program, t) == Some(true) {
                    2
                } else {
                    1
                };
            } else if program == "env" && t.contains('=') {
                next += 1;
            } else if operands > 0 {
                operands -= 1;
                next += 1;
            } else {
                break;
            }
        }
        if next >= words.len() {
            break;
        }
        at = next;
        wrappers += 1;
    }
    let mut rest = words.split_off(at);
    let name = rest.remove(0);
    Some(Cmd {
        line: syntax::line_of(node, unit),
        name,
        args: rest,
        wrappers: words,
        input: None,
        upstream: Vec::new(),
        start: node.start_byte(),
        end: node.end_byte(),
    })
}

/// A word as the shell reads it.
pub fn word(node: Node<'_>, src: &str) -> Word {
    let raw = text(node, src).to_owned();
    let mut parts = Parts::default();
    parts.add(node, src, true);
    parts.split |= parts.quotes_split_letters();
    // `"$(dirname "$0")/run.sh"` is a path; `"$(…)"` and `<(…)` are what a command prints.
    let path = parts.template.contains('/') && !parts.process;
    let shape = if parts.substitution && !path {
        Shape::Substitution
    } else if parts.substitution {
        Shape::Path
    } else if parts.arguments {
        Shape::Arguments
    } else if !parts.variables.is_empty() {
        let literal = parts.value.trim();
        if parts.variables.len() == 1 && literal.is_empty() {
            Shape::Variable(parts.variables[0].clone())
        } else if parts.template.contains('/') {
            Shape::Path
        } else {
            Shape::Assembled(parts.variables.clone())
        }
    } else if parts.split {
        Shape::Split
    } else {
        Shape::Plain
    };
    let fixed = parts.variables.is_empty() && !parts.substitution && !parts.arguments;
    Word {
        raw,
        value: (fixed && !parts.unknown).then_some(parts.value),
        shape,
        template: parts.template,
        process: parts.process,
        variables: parts.variables,
        start: node.start_byte(),
        end: node.end_byte(),
    }
}

/// What the pieces of a word add up to.
#[derive(Default)]
struct Parts {
    value: String,
    template: String,
    variables: Vec<String>,
    substitution: bool,
    process: bool,
    arguments: bool,
    /// Quotes or escapes inside the word.
    split: bool,
    /// A piece whose text cannot be told (`$'…'` with escapes, arithmetic).
    unknown: bool,
    /// Where in `value` a quote opens or closes inside the word.
    boundaries: Vec<usize>,
}

impl Parts {
    /// A quote opens or closes here, inside a word.
    fn quote_boundary(&mut self, whole: bool) {
        if !whole {
            self.boundaries.push(self.value.len());
        }
    }

    /// Quotes split letters (`s""h`, `'b'ash`, `"cu"rl`): a quote between two letters or digits.
    /// `"$DIR"/run.sh` and `--name="x"` put theirs beside other characters.
    fn quotes_split_letters(&self) -> bool {
        let bytes = self.value.as_bytes();
        self.boundaries.iter().any(|&at| {
            at > 0
                && bytes.get(at - 1).is_some_and(u8::is_ascii_alphanumeric)
                && bytes.get(at).is_some_and(u8::is_ascii_alphanumeric)
        })
    }

    fn add(&mut self, node: Node<'_>, src: &str, whole: bool) {
        let raw = text(node, src);
        match node.kind() {
            "word" | "number" | "string_content" => {
                let raw = if node.kind() == "string_content" {
                    raw
                } else {
                    raw.trim()
                };
                let unescaped = unescape(raw);
                // `\rm` bypasses an alias: an escape first is a known idiom. One inside before a
                // letter or digit (`b\ash`) splits the word; `Google\ Chrome` escapes a space.
                let body = raw.trim_start_matches(|c: char| c == '\\' || c.is_whitespace());
                if body
                    .split('\\')
                    .skip(1)
                    .any(|after| after.starts_with(|c: char| c.is_ascii_alphanumeric()))
                {
                    self.split = true;
                }
                self.value.push_str(&unescaped);
                self.template.push_str(&unescaped);
            }
            "raw_string" => {
                let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
                self.quote_boundary(whole);
                self.value.push_str(inner);
                self.quote_boundary(whole);
                self.template.push_str(inner);
            }
            "ansi_c_string" => {
                let inner = raw.get(2..raw.len().saturating_sub(1)).unwrap_or_default();
                self.split = true;
                if inner.contains('\\') {
                    self.unknown = true;
                }
                self.value.push_str(inner);
                self.template.push_str(inner);
            }
            "string" | "translated_string" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                self.quote_boundary(whole);
                for child in children {
                    self.add(child, src, false);
                }
                self.quote_boundary(whole);
            }
            "concatenation" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.add(child, src, false);
                }
            }
            "simple_expansion" | "expansion" => {
                let name = variable_name(node, src).unwrap_or_default();
                if matches!(name.as_str(), "@" | "*") {
                    self.arguments = true;
                } else {
                    let op = operator(raw);
                    let mark = match op {
                        Some((":?" | "?", _)) => ":?",
                        Some((":-" | ":=", default)) if has_fixed_text(default) => ":-",
                        _ => "",
                    };
                    self.template.push_str(&format!("${{{name}{mark}}}"));
                    self.variables.push(name);
                }
            }
            "command_substitution" => {
                self.substitution = true;
                self.template.push_str("$(…)");
            }
            "process_substitution" => {
                self.substitution = true;
                self.process = true;
                self.template.push_str("<(…)");
            }
            _ => {
                self.unknown = true;
                self.template.push_str(raw);
            }
        }
    }
}

/// A bare word without its backslashes: `b\ash` → `bash`.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // A backslash before a newline continues the line: both go.
            if let Some(next) = chars.next().filter(|n| *n != '\n') {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::syntax::Grammar;

    fn script(text: &str) -> Script {
        read(
            &mut tree_sitter::Parser::new(),
            &Unit {
                grammar: Grammar::Bash,
                text,
                first_line: 1,
            },
        )
    }

    #[test]
    fn names_are_read_past_quotes_escapes_and_wrappers() {
        let s = script(
            "c=cu; r=rl; $c$r -s x | s\"\"h\n'b'ash x; b\\ash y; \\rm z\nsudo -u me env A=1 nohup \"$PY\" x\nexec \"$@\"\ncommand -v jq\n",
        );
        let names: Vec<(u32, Option<&str>, Shape)> = s
            .commands
            .iter()
            .map(|c| (c.line, c.name.value.as_deref(), c.name.shape.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                (1, None, Shape::Assembled(vec!["c".into(), "r".into()])),
                (1, Some("sh"), Shape::Split),
                (2, Some("bash"), Shape::Split),
                (2, Some("bash"), Shape::Split),
                (2, Some("rm"), Shape::Plain),
                (3, None, Shape::Variable("PY".into())),
                (4, None, Shape::Arguments),
                (5, Some("command"), Shape::Plain),
            ]
        );
        assert_eq!(s.commands[1].upstream, vec![0]);
        assert_eq!(s.resolve(&s.commands[0].name).as_deref(), Some("curl"));
        let s = script("u=ur; V=3.10\nc${u}l x\npython${V} -m venv .venv\n");
        let resolved: Vec<Option<String>> = s.commands.iter().map(|c| s.resolve(&c.name)).collect();
        assert_eq!(
            resolved,
            vec![Some("curl".to_owned()), Some("python3.10".to_owned())]
        );
    }

    #[test]
    fn words_keep_their_expansions_in_a_template() {
        let s = script("rm -rf \"$HOME\"/* \"${D:?}/\" ~ \"$(pwd)/\"\n");
        let args: Vec<(&str, &str)> = s.commands[0]
            .args
            .iter()
            .map(|w| (w.raw.as_str(), w.template.as_str()))
            .collect();
        assert_eq!(
            args,
            vec![
                ("-rf", "-rf"),
                ("\"$HOME\"/*", "${HOME}/*"),
                ("\"${D:?}/\"", "${D:?}/"),
                ("~", "~"),
                ("\"$(pwd)/\"", "$(…)/"),
            ]
        );
        assert_eq!(s.checked, vec!["D".to_owned()]);
    }

    #[test]
    fn commands_in_substitutions_are_read_and_pipes_followed() {
        let s = script("bash -c \"$(echo aGk= | base64 -d | gunzip)\"\n");
        let names: Vec<&str> = s.commands.iter().filter_map(Cmd::program).collect();
        assert_eq!(names, vec!["bash", "echo", "base64", "gunzip"]);
        assert_eq!(s.commands[3].upstream, vec![1, 2]);
        let inside: Vec<&str> = s
            .inside(&s.commands[0].args[1])
            .filter_map(Cmd::program)
            .collect();
        assert_eq!(inside, vec!["echo", "base64", "gunzip"]);
    }
}
