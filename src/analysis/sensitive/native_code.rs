//! Security-sensitive content: native code a skill builds or loads.
//!
//! **native code**: a C compiler that builds something (`gcc`, `cc`, `clang`, `g++`, `c++`,
//! `clang++`, `tcc`, versioned or cross-prefixed: `gcc-12`, `x86_64-linux-gnu-gcc`; not
//! `gcc --version`); kernel modules loaded (`insmod`, `modprobe`); libraries loaded in code:
//! Python `ctypes.CDLL(…)`/`cdll.LoadLibrary(…)`/`WinDLL(…)`, `cffi`, `dlopen(…)`, Node
//! `process.dlopen(…)`, a `require` or `import` of a `.node` file, `ffi-napi`/`koffi`/
//! `ffi-rs`/`bindings`, Go `import "C"` and `plugin.Open(…)`, Ruby `fiddle`/`ffi`, Rust
//! `libloading`.

use crate::analysis::code_lines::{CodeLine, Lang};
use crate::analysis::patterns::Needles;
use crate::analysis::{imports, paths};

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
pub(super) fn command(name: &str, args: &[&str]) -> Option<String> {
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
pub(super) fn loads(line: &CodeLine<'_>, compact: &str) -> Vec<String> {
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
