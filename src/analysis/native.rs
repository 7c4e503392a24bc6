//! Native code a skill builds or loads, and libraries it injects into other programs: the
//! rules behind the `native code` and `library injection` concerns of [`super::sensitive`].
//!
//! - **native code**: a C compiler that builds something (`gcc`, `cc`, `clang`, `g++`, `c++`,
//!   `clang++`, `tcc`, versioned or cross-prefixed: `gcc-12`, `x86_64-linux-gnu-gcc`; not
//!   `gcc --version`); kernel modules loaded (`insmod`, `modprobe`); libraries loaded in code:
//!   Python `ctypes.CDLL(…)`/`cdll.LoadLibrary(…)`/`WinDLL(…)`, `cffi`, `dlopen(…)`, Node
//!   `process.dlopen(…)`, a `require` or `import` of a `.node` file, `ffi-napi`/`koffi`/
//!   `ffi-rs`/`bindings`, Go `import "C"` and `plugin.Open(…)`, Ruby `fiddle`/`ffi`, Rust
//!   `libloading`.
//! - **library injection**: `LD_PRELOAD`, `LD_AUDIT`, `DYLD_INSERT_LIBRARIES` set (shell
//!   `X=… cmd`, `export X=…`, `env X=…`, Dockerfile `ENV`, YAML/JSON/`.env` keys,
//!   `os.environ["X"] = …`, `env={"X": …}`, `dict(X=…)`, `process.env.X = …`,
//!   `os.Setenv("X", …)`, `"X=…"` env entries): each names code loaded into every program
//!   started. The search paths `LD_LIBRARY_PATH` and `DYLD_LIBRARY_PATH` only when they put a
//!   directory of the skill's own (a relative path, `$(dirname "$0")/lib`, `$PWD`,
//!   `__file__`/`__dirname`) or one anyone can write (`/tmp`, `/var/tmp`, `/dev/shm`) in the
//!   search: a library there named like a system one (`libc.so.6`, `libssl.so`) is loaded into
//!   every program instead, which is injection; a system or toolchain directory
//!   (`/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}`, `"$(brew --prefix)/lib"`) is setup.
//!   Reading one (`$LD_PRELOAD`, `os.environ.get("LD_PRELOAD")`) or clearing it is not.

use super::code_lines::{CodeLine, Lang};
use super::patterns::Needles;
use super::{imports, paths};

/// Variables that make the dynamic loader load other code into every program started.
pub const INJECTION_VARIABLES: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
];

/// The variables that name the libraries to load: setting one is always injection.
const PRELOADS: &[&str] = &["LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES"];

/// Whether `name` is one of [`INJECTION_VARIABLES`].
pub fn is_injection_variable(name: &str) -> bool {
    INJECTION_VARIABLES.contains(&name)
}

/// Whether setting `name` to `value` (as written; `None` when not told) injects libraries:
/// one of [`PRELOADS`], or a search path holding a directory of the skill or a temporary one
/// (see the module docs). `lang` is the language the value is written in: in shell, the
/// value's variables are followed by what the script gives them, written after it in `⟨…⟩`.
pub fn injects(name: &str, value: Option<&str>, lang: Lang) -> bool {
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

const COMPILERS: &[&str] = &["gcc", "cc", "clang", "g++", "c++", "clang++", "tcc", "icc"];

/// Options that ask a compiler about itself or only check: it builds nothing.
const QUERIES: &[&str] = &[
    "--version",
    "-v",
    "--help",
    "-dumpversion",
    "-dumpmachine",
    "-dumpspecs",
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
];

const SOURCES: &[&str] = &[
    ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".s", ".S", ".o", ".m", ".a",
];

/// What a command does with native code: `gcc -o shim.so` (a build and its output),
/// `modprobe (kernel module)`; `None` for anything else.
pub fn command(name: &str, args: &[&str]) -> Option<String> {
    if matches!(name, "insmod" | "modprobe") {
        return Some(format!("{name} (kernel module)"));
    }
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    let last = stem.rsplit('-').next().unwrap_or(stem);
    if !(COMPILERS.contains(&stem) || COMPILERS.contains(&last)) {
        return None;
    }
    if args.is_empty()
        || args
            .iter()
            .any(|a| QUERIES.contains(a) || a.starts_with("-print"))
    {
        return None;
    }
    let output = args.iter().enumerate().find_map(|(i, a)| match *a {
        "-o" => args.get(i + 1).copied(),
        _ => a.strip_prefix("-o").filter(|o| !o.is_empty()),
    });
    let source = args
        .iter()
        .find(|a| !a.starts_with('-') && SOURCES.iter().any(|s| a.ends_with(s)));
    let shared = args.contains(&"-shared");
    match (output, source) {
        (Some(output), _) => Some(format!("{name} -o {output}")),
        (None, _) if shared => Some(format!("{name} -shared")),
        (None, Some(source)) => Some(format!("{name} {source}")),
        (None, None) => None,
    }
}

/// Calls that load a native library (on the compact line: lowercase, no spaces), each with
/// what a reviewer is shown; the first that matches names the line.
const LOADS: &[(&str, &str)] = &[
    ("process.dlopen(", "process.dlopen"),
    ("ffi.dlopen(", "cffi dlopen"),
    ("ffi.compile(", "cffi compile"),
    ("dlopen(", "dlopen"),
    ("cdll(", "ctypes.CDLL"),
    ("pydll(", "ctypes.PyDLL"),
    ("windll(", "ctypes.WinDLL"),
    ("oledll(", "ctypes.OleDLL"),
    ("cdll.", "ctypes.cdll"),
    ("windll.", "ctypes.windll"),
    ("loadlibrary(", "LoadLibrary"),
    ("plugin.open(", "plugin.Open"),
];

static LOAD_NEEDLES: std::sync::LazyLock<Needles> =
    std::sync::LazyLock::new(|| Needles::new(LOADS.iter().map(|(p, _)| *p)));

const PYTHON_NATIVE: &[&str] = &["cffi"];
const JS_NATIVE: &[&str] = &[
    "ffi-napi",
    "@napi-ffi/ffi-napi",
    "node-ffi",
    "koffi",
    "ffi-rs",
    "bindings",
];
const RUBY_NATIVE: &[&str] = &["fiddle", "ffi"];
const RUST_NATIVE: &[&str] = &["libloading"];

/// The native code a code line in a programming language loads: a call or a library.
pub fn loads(line: &CodeLine<'_>, compact: &str) -> Vec<String> {
    let mut found = Vec::new();
    if matches!(line.lang, Lang::Shell | Lang::Config | Lang::Sql) {
        return found;
    }
    if let Some((_, what)) = LOADS
        .iter()
        .enumerate()
        .find(|(i, _)| LOAD_NEEDLES.find_word(*i, compact).is_some())
        .map(|(_, load)| *load)
    {
        found.push(what.to_owned());
    }
    let table: &[&'static str] = match line.lang {
        Lang::Python => PYTHON_NATIVE,
        Lang::JavaScript => JS_NATIVE,
        Lang::Ruby => RUBY_NATIVE,
        Lang::Rust => RUST_NATIVE,
        _ => &[],
    };
    for module in imports::imports(line) {
        if line.lang == Lang::JavaScript && module.ends_with(".node") {
            found.push(format!("loads {}", paths::base_name(&module)));
        } else if line.lang == Lang::Go && module == "C" {
            found.push("cgo (import \"C\")".to_owned());
        } else if let Some(library) = imports::library_of(&module, table) {
            found.push(format!("{library} library"));
        }
    }
    found.dedup();
    found
}

/// The injection variable a line that is not read as shell sets (see the module docs).
pub fn set_in_text(text: &str, lang: Lang) -> Option<&'static str> {
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
    fn compilers_that_build_and_those_asked_a_question() {
        let cases: &[(&str, &[&str], Option<&str>)] = &[
            (
                "gcc",
                &["-shared", "-fPIC", "-o", "shim.so", "shim.c", "-ldl"],
                Some("gcc -o shim.so"),
            ),
            ("cc", &["-oprobe", "probe.c"], Some("cc -o probe")),
            ("clang-17", &["-shared", "x.o"], Some("clang-17 -shared")),
            (
                "x86_64-linux-gnu-gcc",
                &["main.c"],
                Some("x86_64-linux-gnu-gcc main.c"),
            ),
            ("g++", &["-O2", "tool.cpp"], Some("g++ tool.cpp")),
            ("gcc", &["--version"], None),
            ("cc", &["-print-file-name=libc.so"], None),
            ("gcc", &[], None),
            ("modprobe", &["vfio"], Some("modprobe (kernel module)")),
            ("make", &["-o", "x"], None),
            ("ccache", &["-s"], None),
        ];
        for (name, args, expected) in cases {
            assert_eq!(command(name, args).as_deref(), *expected, "{name} {args:?}");
        }
    }

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

    #[test]
    fn native_libraries_loaded_in_code() {
        let got = |path: &str, text: &str| -> Vec<String> {
            let source = crate::analysis::Source::new(path, text);
            crate::analysis::code_lines::code_lines(&source)
                .flat_map(|l| loads(&l, &crate::analysis::patterns::compact(l.text)))
                .collect()
        };
        assert_eq!(
            got(
                "a.py",
                "import ctypes\nlib = ctypes.CDLL('./shim.so')\nlibc = ctypes.cdll.LoadLibrary(None)\nfrom cffi import FFI\nprint('ctypes.CDLL is used elsewhere')\n"
            ),
            vec!["ctypes.CDLL", "ctypes.cdll", "cffi library"]
        );
        assert_eq!(
            got(
                "a.js",
                "const addon = require('./build/Release/addon.node');\nprocess.dlopen(module, p);\nconst koffi = require('koffi');\nconst fs = require('fs');\n"
            ),
            vec!["loads addon.node", "process.dlopen", "koffi library"]
        );
        assert_eq!(
            got("a.go", "import \"C\"\np, _ := plugin.Open(\"x.so\")\n"),
            vec!["cgo (import \"C\")", "plugin.Open"]
        );
    }
}
