//! The committed fixtures measured against the expectation committed beside them: lizard's own
//! numbers (`tests/fixtures/complexity/generate.sh` wrote `lizard.csv`) within ±1 per function,
//! over the same set of functions; bash, which lizard cannot read, against `bash.csv`, counted
//! by hand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::functions::GLOBAL;
use super::functions::tests::measured;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/complexity")
}

/// One CSV line into fields; lizard quotes names and turns their own quotes into `'`.
fn fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            _ => fields.last_mut().expect("a field").push(c),
        }
    }
    fields
}

/// `(file, name, line, complexity)` of each function in lizard's CSV.
fn lizard_rows() -> Vec<(String, String, u32, u32)> {
    let csv = std::fs::read_to_string(fixtures().join("lizard.csv")).expect("lizard.csv");
    csv.lines()
        .map(|line| {
            let f = fields(line);
            assert_eq!(f.len(), 11, "{line}");
            let number = |i: usize| f[i].parse::<u32>().expect("a number");
            (f[6].clone(), f[7].clone(), number(9), number(1))
        })
        .collect()
}

/// What identifies a function in both: its line and the last part of its name (lizard names
/// a function nested two deep in Python `a.a.b.c`, skillgate `a.b.c`). lizard puts
/// top-level code at line 0, skillgate at line 1.
fn key(name: &str, line: u32) -> (u32, String) {
    let short = name.rsplit('.').next().unwrap_or(name).to_owned();
    (if name == GLOBAL { 1 } else { line }, short)
}

/// Every function where skillgate and lizard differ (by one), `(file, name, line, skillgate,
/// lizard)`, and why. Each is a construct lizard's tokenizer reads differently (`javascript.rs`).
const KNOWN_DIFFERENCES: &[(&str, &str, u32, u32, u32)] = &[
    // `main().catch(…)`: lizard counts the promise method `catch` as a catch clause.
    ("javascript/fetch_issues.mjs", GLOBAL, 1, 2, 3),
    // `${issue.assignee ? … : ''}`: a template literal's fields are opaque to lizard.
    ("javascript/fetch_issues.mjs", "(anonymous)", 81, 2, 1),
    // `exitCode = (…) =>⏎ cond ? 1 : 0`: lizard ends the arrow at the line break and gives
    // its `?` to the top level.
    ("typescript/pipeline.ts", GLOBAL, 1, 2, 3),
    // `${parts.join(', ') || 'nothing ran'}`: a template literal's field again.
    ("typescript/pipeline.ts", "summarize", 109, 3, 2),
    ("typescript/pipeline.ts", "exitCode", 117, 2, 1),
];

/// `((line, short name), complexity)` of a file's functions, sorted.
type Keyed = Vec<((u32, String), u32)>;

#[test]
fn within_one_of_lizard_on_every_fixture() {
    let mut expected: BTreeMap<String, Keyed> = BTreeMap::new();
    for (file, name, line, complexity) in lizard_rows() {
        expected
            .entry(file)
            .or_default()
            .push((key(&name, line), complexity));
    }
    assert!(expected.len() >= 8, "{:?}", expected.keys());
    let mut differences = Vec::new();
    for (file, mut theirs) in expected {
        let text = std::fs::read_to_string(fixtures().join(&file)).expect("fixture");
        let mut ours: Keyed = measured(&file, &text)
            .iter()
            .map(|(name, line, complexity)| (key(name, *line), *complexity))
            .collect();
        ours.sort();
        theirs.sort();
        let our_keys: Vec<_> = ours.iter().map(|(k, _)| k).collect();
        let their_keys: Vec<_> = theirs.iter().map(|(k, _)| k).collect();
        assert_eq!(our_keys, their_keys, "{file}: the functions differ");
        for (((line, name), our), (_, their)) in ours.iter().zip(&theirs) {
            assert!(
                our.abs_diff(*their) <= 1,
                "{file}: {name} at line {line}: skillgate {our}, lizard {their}"
            );
            if our != their {
                differences.push((file.clone(), name.clone(), *line, *our, *their));
            }
        }
    }
    let known: Vec<(String, String, u32, u32, u32)> = KNOWN_DIFFERENCES
        .iter()
        .map(|(f, n, l, o, t)| ((*f).to_owned(), (*n).to_owned(), *l, *o, *t))
        .collect();
    assert_eq!(differences, known, "(file, name, line, skillgate, lizard)");
}

#[test]
fn bash_as_counted_by_hand() {
    let csv = std::fs::read_to_string(fixtures().join("bash.csv")).expect("bash.csv");
    let mut expected: BTreeMap<String, Vec<(String, u32, u32)>> = BTreeMap::new();
    for line in csv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f = fields(line);
        let number = |i: usize| f[i].parse::<u32>().expect("a number");
        expected
            .entry(f[0].clone())
            .or_default()
            .push((f[1].clone(), number(2), number(3)));
    }
    assert!(expected.len() >= 2);
    for (file, functions) in expected {
        let text = std::fs::read_to_string(fixtures().join(&file)).expect("fixture");
        assert_eq!(measured(&file, &text), functions, "{file}");
    }
}

#[test]
fn csv_fields_keep_quoted_commas() {
    assert_eq!(
        fields(r#"4,2,8,1,1,"f@9-9@a.js","a.js","f","f ( a , b )",9,9"#),
        [
            "4",
            "2",
            "8",
            "1",
            "1",
            "f@9-9@a.js",
            "a.js",
            "f",
            "f ( a , b )",
            "9",
            "9"
        ]
    );
}
