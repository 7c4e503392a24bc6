//! Security-sensitive content: libraries a skill injects into other programs.
//!
//! **library injection**: `LD_PRELOAD`, `LD_AUDIT`, `DYLD_INSERT_LIBRARIES` set (shell
//! `X=… cmd`, `export X=…`, `env X=…`, Dockerfile `ENV`, YAML/JSON/`.env` keys,
//! `os.environ["X"] = …`, `env={"X": …}`, `dict(X=…)`, `process.env.X = …`,
//! `os.Setenv("X", …)`, `"X=…"` env entries): each names code loaded into every program
//! started. The search paths `LD_LIBRARY_PATH` and `DYLD_LIBRARY_PATH` only when they put a
//! directory of the skill's own (a relative path, `$(dirname "$0")/lib`, `$PWD`,
//! `__file__`/`__dirname`) or one anyone can write (`/tmp`, `/var/tmp`, `/dev/shm`) in the
//! search: a library there named like a system one (`libc.so.6`, `libssl.so`) is loaded into
//! every program instead, which is injection; a system or toolchain directory
//! (`/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}`, `"$(brew --prefix)/lib"`) is setup.
//! Reading one (`$LD_PRELOAD`, `os.environ.get("LD_PRELOAD")`) or clearing it is not.

use crate::analysis::code_lines::Lang;

/// Variables that make the dynamic loader load other code into every program started.
const INJECTION_VARIABLES: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
];

/// The variables that name the libraries to load: setting one is always injection.
const PRELOADS: &[&str] = &["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"];

/// Whether `name` is one of [`INJECTION_VARIABLES`].
fn is_injection_variable(name: &str) -> bool {
    INJECTION_VARIABLES.contains(&name)
}

/// Whether setting `name` to `value` (as written; `None` when not told) injects libraries:
/// one of [`PRELOADS`], or a search path holding a directory of the skill or a temporary one
/// (see the module docs). `lang` is the language the value is written in: in shell, the
/// value's variables are followed by what the script gives them, written after it in `⟨…⟩`.
pub(super) fn injects(name: &str, value: Option<&str>, lang: Lang) -> bool {
    if PRELOADS.contains(&name) {
        return true;
    }
    is_injection_variable(name) && value.is_some_and(|v| local_search_path(v, lang))
}

/// Directories anyone can write.
const TEMPORARY: &[&str] = &["/tmp", "/var/tmp", "/dev/shm", "/private/tmp"];

/// Text in a value (or what its variables hold) that names the skill's own directory or a
/// temporary one.
const LOCAL_MARKERS: &[&str] = &[
    "dirname",
    "BASH_SOURCE",
    "$0",
    "${0",
    "pwd",
    "PWD",
    "mktemp",
    "TMPDIR",
    "__file__",
    "__dirname",
    "import.meta",
    "getcwd",
    "cwd()",
    "tempfile",
    "mkdtemp",
    "tmpdir",
    "CLAUDE_PLUGIN_ROOT",
    "SKILL_DIR",
];

/// Whether a library search path's value (see [`injects`]) puts a directory of the skill or a
/// temporary one in the search.
fn local_search_path(value: &str, lang: Lang) -> bool {
    let (own, followed) = value.split_once(" ⟨").unwrap_or((value, ""));
    let marked = |text: &str| {
        LOCAL_MARKERS.iter().any(|m| text.contains(m))
            || TEMPORARY
                .iter()
                .any(|t| text.contains(&format!("{t}/")) || text.ends_with(t))
    };
    if !matches!(lang, Lang::Shell | Lang::Config) {
        // Code: what follows the name on the line.
        return marked(own) || own.contains("\"./") || own.contains("'./");
    }
    entries(own).into_iter().any(|entry| {
        let entry = entry.trim().trim_matches(['"', '\'']);
        if entry.is_empty() {
            return false;
        }
        if entry.starts_with('/') {
            let path = super::invoked::normalize(entry);
            return TEMPORARY
                .iter()
                .any(|t| path == *t || path.starts_with(&format!("{t}/")));
        }
        if entry.starts_with('~') {
            return false;
        }
        if entry.starts_with('$') {
            // Its own earlier value (`${LD_LIBRARY_PATH:-}`) adds nothing.
            if entry.contains("LIBRARY_PATH") {
                return false;
            }
            return marked(entry) || marked(followed);
        }
        // `./lib`, `lib`, `.`: relative to wherever the program runs, the skill's files.
        true
    })
}

/// The `:`-separated entries of a search path, `:` inside `${…}`, `$(…)` or quotes kept.
fn entries(value: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (at, c) in value.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'') => quote = Some(c),
            (None, '{' | '(') => depth += 1,
            (None, '}' | ')') => depth = depth.saturating_sub(1),
            (None, ':') if depth == 0 => {
                found.push(&value[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    found.push(&value[start..]);
    found
}

/// The injection variable a line that is not read as shell sets (see the module docs).
pub(super) fn set_in_text(text: &str, lang: Lang) -> Option<&'static str> {
    INJECTION_VARIABLES.iter().copied().find(|name| {
        sets(text, name, lang) && {
            let after = text.find(name).map_or("", |at| &text[at + name.len()..]);
            let value = after
                .trim_start_matches(['"', '\'', ']', ' ', ':', '=', ','])
                .trim_end();
            injects(name, Some(value), lang)
        }
    })
}

fn sets(text: &str, name: &str, lang: Lang) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let program = !matches!(lang, Lang::Shell | Lang::Config);
    text.match_indices(name).any(|(at, _)| {
        let before = &text[..at];
        let after = &text[at + name.len()..];
        if before.ends_with(word) || after.starts_with(word) {
            return false;
        }
        // `$LD_PRELOAD`, `${LD_PRELOAD}` read it.
        if before.ends_with('$') || before.ends_with("${") {
            return false;
        }
        match literal_start(text, at) {
            Some(start) => {
                // Inside a string only the whole literal names it: `"LD_PRELOAD=…"` (an env
                // entry), `["LD_PRELOAD"] =`, `"LD_PRELOAD":`, `putenv("LD_PRELOAD", …)`.
                if start != at {
                    return false;
                }
                // `"LD_PRELOAD=" + shim` is an entry of an environment the line builds
                // (`cmd.Env = append(os.Environ(), …)`); `re.compile(r"LD_PRELOAD=|…")` is not.
                if after.starts_with('=') {
                    return text.replace(name, "").to_ascii_lowercase().contains("env");
                }
                let Some(rest) = after.strip_prefix(['"', '\'', '`']) else {
                    return false;
                };
                let rest = rest.trim_start().trim_start_matches(']').trim_start();
                let call = before[..before.len() - 1].trim_end();
                (rest.starts_with('=') && !rest.starts_with("=="))
                    || rest.starts_with(':')
                    || (rest.starts_with(',')
                        && ["putenv(", "setenv(", "Setenv(", "setdefault("]
                            .iter()
                            .any(|c| call.ends_with(c)))
            }
            None => {
                let lead = before.trim();
                let rest = after.trim_start();
                let assign = rest.starts_with('=') && !rest.starts_with("==");
                let key = rest.starts_with(':') && !rest.starts_with("::");
                let in_call = lead.ends_with(['(', ',', '{']);
                let starts = lead.is_empty()
                    || lead == "-"
                    || lead.ends_with("export")
                    || lead.ends_with("ENV")
                    || lead.ends_with("$env:")
                    || lead.ends_with("$Env:");
                if program {
                    (assign && (in_call || before.ends_with("env.")))
                        || (key && (in_call || lead.is_empty()))
                } else {
                    (assign || key) && (starts || in_call)
                }
            }
        }
    })
}

/// Where the string literal holding byte `at` starts (just after its quote), if one does.
fn literal_start(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open: Option<(u8, usize)> = None;
    let mut i = 0;
    while i < at {
        let b = bytes[i];
        match open {
            Some((q, _)) if b == q => open = None,
            Some(_) if b == b'\\' => i += 1,
            None if matches!(b, b'"' | b'\'' | b'`') => open = Some((b, i + 1)),
            _ => {}
        }
        i += 1;
    }
    open.map(|(_, start)| start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injection_variables_set_but_not_read_or_mentioned() {
        let set: &[(&str, Lang)] = &[
            ("os.environ[\"LD_PRELOAD\"] = path", Lang::Python),
            ("env = {**os.environ, 'LD_PRELOAD': shim}", Lang::Python),
            (
                "subprocess.run(cmd, env=dict(os.environ, LD_PRELOAD=shim))",
                Lang::Python,
            ),
            ("os.putenv('DYLD_INSERT_LIBRARIES', lib)", Lang::Python),
            (
                "process.env.LD_LIBRARY_PATH = path.join(__dirname, 'lib');",
                Lang::JavaScript,
            ),
            ("LD_LIBRARY_PATH: ./vendor/lib", Lang::Config),
            (
                "os.environ['DYLD_LIBRARY_PATH'] = '/tmp/libs'",
                Lang::Python,
            ),
            (
                "spawn(bin, [], { env: { LD_PRELOAD: shim } })",
                Lang::JavaScript,
            ),
            (
                "cmd.Env = append(os.Environ(), \"LD_PRELOAD=\"+shim)",
                Lang::Go,
            ),
            ("os.Setenv(\"LD_AUDIT\", lib)", Lang::Go),
            ("ENV['LD_PRELOAD'] = shim", Lang::Ruby),
            ("      LD_PRELOAD: /opt/shim.so", Lang::Config),
            ("  - LD_PRELOAD=/opt/shim.so", Lang::Config),
            ("\"LD_PRELOAD\": \"/opt/shim.so\"", Lang::Config),
            ("$env:LD_PRELOAD = \"x\"", Lang::Shell),
        ];
        for (text, lang) in set {
            assert!(set_in_text(text, *lang).is_some(), "{text}");
        }
        let not_set: &[(&str, Lang)] = &[
            ("if os.environ.get(\"LD_PRELOAD\"):", Lang::Python),
            ("preload = os.environ[\"LD_PRELOAD\"]", Lang::Python),
            ("if \"LD_PRELOAD\" in os.environ:", Lang::Python),
            ("os.environ.pop(\"LD_PRELOAD\", None)", Lang::Python),
            ("del os.environ['LD_PRELOAD']", Lang::Python),
            (
                "print(\"Set LD_PRELOAD=/x.so to trace calls\")",
                Lang::Python,
            ),
            ("print(\"LD_PRELOAD=/x.so traces calls\")", Lang::Python),
            (
                "INJECTED = re.compile(r\"LD_PRELOAD=|DYLD_INSERT_LIBRARIES\")",
                Lang::Python,
            ),
            ("    Set LD_PRELOAD=/x.so to trace calls.", Lang::Python),
            ("LD_PRELOAD = 'shim.so'  # a name", Lang::Python),
            (
                "if (process.env.LD_PRELOAD === undefined) {}",
                Lang::JavaScript,
            ),
            (
                "log(`LD_PRELOAD: ${process.env.LD_PRELOAD}`)",
                Lang::JavaScript,
            ),
            ("description: set LD_PRELOAD: never", Lang::Config),
            // A system or toolchain directory in a search path is setup, not injection.
            (
                "os.environ[\"LD_LIBRARY_PATH\"] = \"/usr/local/cuda/lib64\"",
                Lang::Python,
            ),
            ("process.env.LD_LIBRARY_PATH = cudaLib;", Lang::JavaScript),
            ("      LD_LIBRARY_PATH: /opt/conda/lib", Lang::Config),
            ("MY_LD_PRELOAD_X=1", Lang::Config),
        ];
        for (text, lang) in not_set {
            assert_eq!(set_in_text(text, *lang), None, "{text}");
        }
    }
}
