//! The skill's complexity: every function of every script measured, the highest one is the
//! skill's. Files are parsed one at a time within [`PARSE_TIME_LIMIT`]; what cannot be
//! measured is noted.
//!
//! Top-level code counts as one more function per file, [`GLOBAL`], as `lizard -Eoutside`
//! reports it: a script without functions is still code with branches, and leaving it out would
//! let a skill hide its logic at the top level.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tree_sitter::Parser;

use super::bash::Bash;
use super::javascript::JavaScript;
use super::language::Language;
use super::python::Python;
use super::walker::{self, Rules};
use crate::analysis::Sources;

/// The most complex functions kept in [`Complexity::functions`].
pub const MAX_FUNCTIONS: usize = 50;

/// A file that does not parse within this is noted and not measured. Measuring the largest file
/// [`Sources`] keeps (1 MiB: 100,000 lines of bash, a minified bundle) takes 1–2 s in a release
/// build here, 3–4 s in a debug one.
pub const PARSE_TIME_LIMIT: Duration = Duration::from_secs(10);

/// The name of a file's top-level code (lizard's own).
pub const GLOBAL: &str = "*global*";

/// McCabe cyclomatic complexity of a skill's code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Complexity {
    /// The highest complexity of any function (or any file's top-level code); 0 without code.
    pub max: u32,
    /// The sum over every function measured.
    pub total: u32,
    /// How many functions were measured, top-level code included.
    pub function_count: u32,
    /// The [`MAX_FUNCTIONS`] most complex, most complex first.
    pub functions: Vec<FunctionComplexity>,
    /// `path: why` for each code file not measured, or measured only in part (syntax errors).
    /// Files [`Sources`] left out are in its own notes, not repeated here.
    pub skipped: Vec<String>,
}

/// One function's complexity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionComplexity {
    /// Relative to the skill.
    pub file: String,
    /// As lizard names it: `main`, `outer.inner`, `get size`, `module.exports.handler`,
    /// `(anonymous)`, or [`GLOBAL`] for the file's top-level code.
    pub name: String,
    /// 1-based: where the name (Python, bash) or the parameters (JavaScript) are.
    pub line: u32,
    pub complexity: u32,
}

/// Measure every bash, Python, JavaScript and TypeScript file of the skill.
pub fn measure(sources: &Sources) -> Complexity {
    measure_within(sources, PARSE_TIME_LIMIT)
}

pub(super) fn measure_within(sources: &Sources, limit: Duration) -> Complexity {
    let mut complexity = Complexity::default();
    let mut parser = Parser::new();
    for source in &sources.files {
        let Some(language) = Language::detect(source) else {
            continue;
        };
        let file = match walker::measure_file(&mut parser, rules(language), &source.text, limit) {
            Ok(file) => file,
            Err(why) => {
                complexity.skipped.push(format!("{}: {why}", source.path));
                continue;
            }
        };
        if let Some(line) = file.first_error_line {
            complexity.skipped.push(format!(
                "{}: {} syntax error at line {line}: measured what parsed",
                source.path,
                language.name()
            ));
        }
        for function in file.functions {
            complexity.max = complexity.max.max(function.complexity);
            complexity.total = complexity.total.saturating_add(function.complexity);
            complexity.function_count = complexity.function_count.saturating_add(1);
            complexity.functions.push(FunctionComplexity {
                file: source.path.clone(),
                name: function.name,
                line: function.line,
                complexity: function.complexity,
            });
        }
        // Bounded memory whatever the number of functions: keep the most complex as we go.
        if complexity.functions.len() > 4 * MAX_FUNCTIONS {
            keep_most_complex(&mut complexity.functions);
        }
    }
    keep_most_complex(&mut complexity.functions);
    complexity
}

pub(super) fn rules(language: Language) -> &'static dyn Rules {
    match language {
        Language::Bash => &Bash,
        Language::Python => &Python,
        Language::JavaScript => &JavaScript::JAVASCRIPT,
        Language::TypeScript => &JavaScript::TYPESCRIPT,
        Language::Tsx => &JavaScript::TSX,
    }
}

/// Most complex first; ties by path, then line, so the order never depends on the sort.
fn keep_most_complex(functions: &mut Vec<FunctionComplexity>) {
    functions.sort_by(|a, b| {
        b.complexity
            .cmp(&a.complexity)
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.line.cmp(&b.line))
            .then_with(|| a.name.cmp(&b.name))
    });
    functions.truncate(MAX_FUNCTIONS);
}

#[cfg(test)]
pub(super) mod tests {
    use std::time::Instant;

    use super::*;
    use crate::analysis::Source;

    /// `(name, line, complexity)` of every function of one file that parses without error,
    /// top-level code first, in the order they start.
    pub(crate) fn measured(path: &str, text: &str) -> Vec<(String, u32, u32)> {
        let source = Source::new(path, text);
        let language = Language::detect(&source).expect("a code file");
        let file =
            walker::measure_file(&mut Parser::new(), rules(language), text, PARSE_TIME_LIMIT)
                .expect("parsed");
        assert_eq!(file.first_error_line, None, "{path}: a syntax error");
        file.functions
            .into_iter()
            .map(|f| (f.name, f.line, f.complexity))
            .collect()
    }

    pub(crate) fn rows(expected: &[(&str, u32, u32)]) -> Vec<(String, u32, u32)> {
        expected
            .iter()
            .map(|(name, line, complexity)| ((*name).to_owned(), *line, *complexity))
            .collect()
    }

    #[test]
    fn the_skill_is_as_complex_as_its_most_complex_function() {
        let sources = Sources::from_texts(&[
            ("SKILL.md", "---\nname: x\n---\nif and or while\n"),
            ("scripts/a.py", "def f(a):\n    if a:\n        pass\n"),
            (
                "scripts/b.sh",
                "#!/bin/sh\n[ -f x ] && echo x\ng() {\n  if a; then b; elif c; then d; fi\n}\n",
            ),
        ]);
        let complexity = measure(&sources);
        assert_eq!(complexity.max, 3);
        // a.py: *global* 1 + f 2; b.sh: *global* 2 + g 3.
        assert_eq!(complexity.total, 8);
        assert_eq!(complexity.function_count, 4);
        let functions: Vec<(&str, &str, u32, u32)> = complexity
            .functions
            .iter()
            .map(|f| (f.file.as_str(), f.name.as_str(), f.line, f.complexity))
            .collect();
        assert_eq!(
            functions,
            [
                ("scripts/b.sh", "g", 3, 3),
                ("scripts/a.py", "f", 1, 2),
                ("scripts/b.sh", "*global*", 1, 2),
                ("scripts/a.py", "*global*", 1, 1),
            ]
        );
        assert!(complexity.skipped.is_empty(), "{:?}", complexity.skipped);
    }

    #[test]
    fn no_code_no_complexity() {
        let complexity = measure(&Sources::from_texts(&[("README.md", "# hi\n")]));
        assert_eq!(complexity, Complexity::default());
        let empty = measure(&Sources::from_texts(&[("run.py", "")]));
        assert_eq!((empty.max, empty.total, empty.function_count), (1, 1, 1));
        assert!(empty.skipped.is_empty());
    }

    #[test]
    fn only_the_most_complex_functions_are_listed() {
        let mut script = String::new();
        for i in 0..300 {
            script.push_str(&format!("f{i}() {{\n"));
            for _ in 0..(i % 7) {
                script.push_str("  [ -n \"$x\" ] && y\n");
            }
            script.push_str("}\n");
        }
        let complexity = measure(&Sources::from_texts(&[("many.sh", script.as_str())]));
        assert_eq!(complexity.function_count, 301);
        assert_eq!(complexity.functions.len(), MAX_FUNCTIONS);
        assert_eq!(complexity.max, 7);
        // The 42 functions f6, f13, … f293 of complexity 7, then the first 8 of 6, in file order.
        let sevens = complexity
            .functions
            .iter()
            .take_while(|f| f.complexity == 7);
        assert_eq!(sevens.count(), 42);
        assert_eq!(complexity.functions[0].name, "f6");
        assert_eq!(complexity.functions[1].name, "f13");
        assert_eq!(complexity.functions[42].name, "f5");
        assert_eq!(complexity.functions[49].name, "f54");
        assert!(complexity.functions[42..].iter().all(|f| f.complexity == 6));
        let total: u32 = (0..300).map(|i| 1 + i % 7).sum::<u32>() + 1;
        assert_eq!(complexity.total, total);
    }

    #[test]
    fn syntax_errors_are_noted_and_what_parsed_is_measured() {
        let sources = Sources::from_texts(&[(
            "broken.py",
            "def ok(a):\n    if a:\n        pass\n\ndef broken(:\n    while True\n",
        )]);
        let complexity = measure(&sources);
        assert_eq!(
            complexity.skipped,
            ["broken.py: python syntax error at line 5: measured what parsed"]
        );
        assert!(
            complexity
                .functions
                .iter()
                .any(|f| f.name == "ok" && f.complexity == 2),
            "{:?}",
            complexity.functions
        );
    }

    #[test]
    fn a_parse_past_the_time_limit_is_noted_not_measured() {
        let big = "x = 1 if y else 2\n".repeat(20_000);
        // An empty file parses before the parser first asks whether to go on.
        let sources = Sources::from_texts(&[("slow.py", big.as_str()), ("empty.sh", "")]);
        let complexity = measure_within(&sources, Duration::ZERO);
        assert_eq!(
            complexity.skipped,
            ["slow.py: not parsed within 0 s: not measured"]
        );
        assert_eq!(complexity.function_count, 1);
        assert_eq!(complexity.functions[0].file, "empty.sh");
        // The parser is usable again after a cancelled parse.
        let again = measure(&sources);
        assert_eq!(again.max, 20_001);
    }

    #[test]
    fn hostile_files_cost_bounded_time() {
        let deep_js = format!("x = {}1{};\n", "(".repeat(50_000), ")".repeat(50_000));
        let deep_if = format!(
            "function f(a) {{{}{}}}\n",
            "if (a) {".repeat(5_000),
            "}".repeat(5_000)
        );
        let unbalanced = "{[(".repeat(30_000);
        let mut lines = String::new();
        for i in 0..10_000 {
            lines.push_str(&format!("if [ \"$1\" = {i} ] && true; then echo {i}; fi\n"));
        }
        let garbage: String = (0..200_000u32)
            .map(|i| char::from_u32(i % 0x2FF + 1).unwrap_or('\u{fffd}'))
            .collect();
        let invalid_utf8 =
            String::from_utf8_lossy(b"def f(\xff\xfe):\n    if \xc3\x28:\n        pass\n")
                .into_owned();
        let sources = Sources::from_texts(&[
            ("deep.js", deep_js.as_str()),
            ("deep-if.js", deep_if.as_str()),
            ("unbalanced.ts", unbalanced.as_str()),
            ("long.sh", lines.as_str()),
            ("garbage.py", garbage.as_str()),
            ("latin1.py", invalid_utf8.as_str()),
            ("empty.js", ""),
        ]);
        let started = Instant::now();
        let complexity = measure(&sources);
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
        let of = |file: &str, name: &str| {
            complexity
                .functions
                .iter()
                .find(|f| f.file == file && f.name == name)
                .map(|f| f.complexity)
        };
        assert_eq!(of("deep-if.js", "f"), Some(5_001));
        assert_eq!(of("long.sh", "*global*"), Some(20_001));
        assert_eq!(complexity.max, 20_001);
        for noted in ["unbalanced.ts", "garbage.py", "latin1.py"] {
            assert!(
                complexity.skipped.iter().any(|s| s.starts_with(noted)),
                "{noted} not noted: {:?}",
                complexity.skipped
            );
        }
        assert!(!complexity.skipped.iter().any(|s| s.starts_with("deep")));
    }
}
