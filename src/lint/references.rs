//! Files a `SKILL.md` body refers to must exist inside the skill: an agent that follows a link
//! to a file the skill does not ship is left guessing.
//!
//! What counts as a reference, read with a CommonMark parser so that code samples never do:
//! - the destination of a Markdown link or image (`[run](scripts/run.sh)`,
//!   `![flow](assets/flow.png)`) and of a link reference definition (`[run]: scripts/run.sh`),
//!   unless it is a URL (`https:`, `mailto:`, any `scheme:`), `//host`, an anchor (`#usage`),
//!   an absolute or home path (`/etc/x`, `~/x`), `www.…`, or a template (`{{x}}`, `${X}`, `<x>`);
//!   its `#fragment` and `?query` are dropped and `%20` decoded;
//! - in inline code (`` `python3 scripts/run.py --json` ``), each word that starts with `scripts/`,
//!   `references/` or `assets/` (the spec's directories; `skilo` checks the same three), unless
//!   it holds a wildcard or placeholder (`scripts/*.sh`, `scripts/<name>.py`, `assets/…`).
//!   Other words in inline code are not paths we can tell from prose about the user's project.
//!
//! Fenced and indented code blocks and raw HTML are never read.

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag};

use crate::skill::Finding;

/// Past this many, the rest of a body's broken references are counted, not listed.
pub const MAX_FINDINGS: usize = 50;

/// What ends a word of inline code besides whitespace: `open('assets/x.png')`,
/// `--config=references/a.toml`.
const WORD_BREAKS: &[char] = &['(', ')', '\'', '"', '=', ',', ';'];

/// The spec's directories: a word in inline code starting with one of them names a file.
const SKILL_DIRS: &[&str] = &["scripts/", "references/", "assets/"];

/// How a reference was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A link, image or link reference definition.
    Link,
    /// A word in inline code.
    Code,
}

/// A relative path the body refers to, where it is written (1-based, in the body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// As written, for messages.
    pub written: String,
    /// The path, relative to the skill directory: no fragment, query or percent-escapes.
    pub path: String,
    pub kind: Kind,
    pub line: usize,
    pub column: usize,
}

/// The references of a Markdown body, in the order they are written.
pub fn references(body: &str) -> Vec<Reference> {
    let lines = LineIndex::new(body);
    let mut found = Vec::new();
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let parser = Parser::new_ext(body, options);
    for (_, def) in parser.reference_definitions().iter() {
        if let Some(path) = link_path(&def.dest) {
            let at = find_after(body, def.span.clone(), "]:", &def.dest);
            found.push(lines.reference(&def.dest, path, Kind::Link, at));
        }
    }
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                title,
                ..
            })
            | Event::Start(Tag::Image {
                link_type: LinkType::Inline,
                dest_url,
                title,
                ..
            }) => {
                if let Some(path) = link_path(&dest_url) {
                    let at = destination(body, range, &dest_url, &title);
                    found.push(lines.reference(&dest_url, path, Kind::Link, at));
                }
            }
            Event::Code(code) => {
                let span = &body[range.clone()];
                let mut from = 0;
                let words = code
                    .split(|c: char| c.is_whitespace() || WORD_BREAKS.contains(&c))
                    .filter(|w| !w.is_empty());
                for word in words {
                    let offset = span[from..].find(word).map(|i| from + i);
                    if let Some(i) = offset {
                        from = i + word.len();
                    }
                    if let Some((lead, written, path)) = code_path(word) {
                        let at = range.start + offset.map_or(0, |i| i + lead);
                        found.push(lines.reference(written, path, Kind::Code, at));
                    }
                }
            }
            _ => {}
        }
    }
    found.sort_by_key(|r| (r.line, r.column));
    found
}

/// Check every reference of `body` (which starts at line `body_line` of `file`) against the
/// skill directory `skill_dir`.
pub fn check(body: &str, body_line: usize, file: &str, skill_dir: &Path) -> Vec<Finding> {
    let mut findings: Vec<Finding> = references(body)
        .into_iter()
        .filter_map(|r| {
            let line = Some(body_line + r.line - 1);
            let Some(inside) = normalize(&r.path) else {
                return Some(
                    Finding::warning(
                        "reference-outside-skill",
                        file,
                        line,
                        format!(
                            "`{}` points outside the skill: a skill is installed as its own \
                             directory, and the file will not be there",
                            r.written
                        ),
                    )
                    .at_column(r.column),
                );
            };
            // `metadata` follows symlinks: a link to nothing is as missing as no file.
            let exists = inside.is_empty() || std::fs::metadata(skill_dir.join(&inside)).is_ok();
            (!exists).then(|| {
                let what = if r.written == inside {
                    format!("`{inside}` is")
                } else {
                    format!("`{}` names `{inside}`, which is", r.written)
                };
                Finding::error(
                    "reference-missing",
                    file,
                    line,
                    format!("{what} not in the skill: add it, or fix the reference"),
                )
                .at_column(r.column)
            })
        })
        .collect();
    if findings.len() > MAX_FINDINGS {
        let more = findings.len() - MAX_FINDINGS;
        findings.truncate(MAX_FINDINGS);
        findings.push(Finding::error(
            "reference-missing",
            file,
            None,
            format!("and {more} more references that are not in the skill (or outside it)"),
        ));
    }
    findings
}

/// A link destination as a path relative to the skill, or `None` when it is not one.
fn link_path(dest: &str) -> Option<String> {
    let dest = dest.trim();
    let scheme = dest
        .split_once(':')
        .is_some_and(|(scheme, _)| is_scheme(scheme));
    if dest.is_empty()
        || dest.starts_with(['#', '/', '\\', '~'])
        || scheme
        || dest.starts_with("www.")
        || dest.contains(['{', '}', '$', '<', '>', '*'])
    {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or_default();
    let path = percent_decode(path);
    (!path.is_empty()).then_some(path)
}

/// `https`, `mailto`, `vscode`, `C` (a Windows drive): letters, then letters, digits, `+-.`.
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A word of inline code as a path in one of the spec's directories: how many bytes of brackets
/// come before it, the word without them (or a closing `.`), and the path. `None` when it is
/// not one.
fn code_path(word: &str) -> Option<(usize, &str, String)> {
    let trimmed = word.trim_start_matches('[');
    let lead = word.len() - trimmed.len();
    let written = trimmed.trim_end_matches([']', '.', ':']);
    let word = written.strip_prefix("./").unwrap_or(written);
    if !SKILL_DIRS.iter().any(|dir| word.starts_with(dir)) {
        return None;
    }
    if word.contains([
        '*', '?', '[', ']', '{', '}', '<', '>', '$', '|', '&', '\\', '…', '%',
    ]) || word.contains("...")
    {
        return None;
    }
    // `scripts/run.py:42` and `scripts/run.py#L42` name the file.
    let path = word.split('#').next().unwrap_or(word);
    let path = match path.split_once(':') {
        Some((file, rest))
            if rest
                .split(':')
                .all(|n| n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            file
        }
        Some(_) => return None,
        None => path,
    };
    Some((lead, written, path.to_owned()))
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs out of the skill. `""` is the skill itself.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// `%20` → ` `; anything not a valid escape of UTF-8 is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// Where an inline link's destination starts: after the last `](` of the link followed by it.
/// Only the link's tail is searched (where destination and title stand), so that images nested
/// a hundred thousand deep cost no more than one.
fn destination(body: &str, range: Range<usize>, dest: &str, title: &str) -> usize {
    let window = 3 * (dest.len() + title.len()) + 64;
    let mut from = range.end.saturating_sub(window).max(range.start);
    while !body.is_char_boundary(from) {
        from += 1;
    }
    let span = &body[from..range.end];
    span.rmatch_indices("](")
        .find_map(|(i, _)| {
            let after = &span[i + 2..];
            let skipped = after.len() - after.trim_start_matches([' ', '\t', '\n', '<']).len();
            after[skipped..]
                .starts_with(dest)
                .then_some(from + i + 2 + skipped)
        })
        .unwrap_or(range.start)
}

/// Where `needle` first stands after `marker` in `body[range]`; the range's start if nowhere.
fn find_after(body: &str, range: Range<usize>, marker: &str, needle: &str) -> usize {
    let span = &body[range.clone()];
    let from = span.find(marker).map_or(0, |i| i + marker.len());
    span[from..]
        .find(needle)
        .map_or(range.start, |i| range.start + from + i)
}

/// Byte offsets to 1-based lines and columns (in characters), each in constant time: a
/// megabyte on one line with a reference every few bytes costs one pass, in any order.
struct LineIndex<'a> {
    bytes: &'a [u8],
    starts: Vec<usize>,
    /// Characters before each 64-byte block.
    blocks: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    const BLOCK: usize = 64;

    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
            .collect();
        let mut blocks = Vec::with_capacity(bytes.len() / Self::BLOCK + 1);
        let mut chars = 0;
        for block in bytes.chunks(Self::BLOCK) {
            blocks.push(chars);
            chars += block.iter().filter(|&&b| !is_continuation(b)).count();
        }
        blocks.push(chars);
        Self {
            bytes,
            starts,
            blocks,
        }
    }

    /// Characters in the text before `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len());
        let block = offset / Self::BLOCK;
        self.blocks[block]
            + self.bytes[block * Self::BLOCK..offset]
                .iter()
                .filter(|&&b| !is_continuation(b))
                .count()
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line.saturating_sub(1)];
        (
            line,
            self.chars_before(offset) - self.chars_before(start) + 1,
        )
    }

    fn reference(&self, written: &str, path: String, kind: Kind, offset: usize) -> Reference {
        let (line, column) = self.position(offset);
        Reference {
            written: written.to_owned(),
            path,
            kind,
            line,
            column,
        }
    }
}

/// A UTF-8 byte that continues a character.
fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(path, kind, line, column)` of every reference.
    fn refs(body: &str) -> Vec<(String, Kind, usize, usize)> {
        references(body)
            .into_iter()
            .map(|r| (r.path, r.kind, r.line, r.column))
            .collect()
    }

    fn r(path: &str, kind: Kind, line: usize, column: usize) -> (String, Kind, usize, usize) {
        (path.to_owned(), kind, line, column)
    }

    #[test]
    fn links_images_and_definitions_are_references() {
        let body = "# Title\n\nSee [the guide](references/guide.md#setup) and\n![flow](assets/flow%20chart.png \"Flow\").\n\n[run]: ./scripts/run.sh\n\nUse [run] or [the runner][run].\n";
        assert_eq!(
            refs(body),
            vec![
                r("references/guide.md", Kind::Link, 3, 17),
                r("assets/flow chart.png", Kind::Link, 4, 9),
                r("./scripts/run.sh", Kind::Link, 6, 8),
            ],
            "a reference link is checked once, at its definition"
        );
    }

    #[test]
    fn urls_anchors_absolute_paths_and_templates_are_not() {
        let body = "[a](https://example.com/x.md) [b](#usage) [c](/etc/passwd) [d](~/x)\n\
                    [e](mailto:me@example.com) [f](//cdn.example.com/x.js) [g](www.example.com)\n\
                    [h]({{base}}/x.md) [i](${DIR}/x) [j](C:/x) <https://example.com> [k](?q=1)\n";
        assert_eq!(refs(body), Vec::new());
    }

    #[test]
    fn code_samples_are_not_references() {
        let body = "```bash\nbash scripts/missing.sh\n[x](missing.md)\n```\n\n    [y](missing.md)\n\n<a href=\"missing.md\">x</a>\n\n~~~\n`scripts/in-fence.sh`\n~~~\n";
        assert_eq!(refs(body), Vec::new());
    }

    #[test]
    fn inline_code_words_in_the_spec_directories_are_references() {
        let body = "Run `python3 scripts/report.py --json data.csv` or `./scripts/run.sh`,\nread `references/api.md:12`; not `src/app.py`, `scripts/*.sh`, `scripts/<name>.py`,\n`assets/…` or `tests/run.py`. `open('assets/logo.png')`\n";
        assert_eq!(
            refs(body),
            vec![
                r("scripts/report.py", Kind::Code, 1, 14),
                r("scripts/run.sh", Kind::Code, 1, 53),
                r("references/api.md", Kind::Code, 2, 7),
                r("assets/logo.png", Kind::Code, 3, 38),
            ]
        );
        assert_eq!(references(body)[3].written, "assets/logo.png");
    }

    #[test]
    fn columns_count_characters_and_handle_repeats() {
        let body = "Ünïcödé [scripts/a.sh](scripts/a.sh)\n`scripts/b.sh scripts/b.sh`\n";
        assert_eq!(
            refs(body),
            vec![
                r("scripts/a.sh", Kind::Link, 1, 24),
                r("scripts/b.sh", Kind::Code, 2, 2),
                r("scripts/b.sh", Kind::Code, 2, 15),
            ]
        );
    }

    #[test]
    fn paths_are_normalized_and_may_not_climb_out() {
        assert_eq!(
            normalize("./scripts/../assets/x.png"),
            Some("assets/x.png".into())
        );
        assert_eq!(normalize("scripts/"), Some("scripts".into()));
        assert_eq!(normalize("."), Some(String::new()));
        assert_eq!(normalize("../other/SKILL.md"), None);
        assert_eq!(normalize("a/../../x"), None);
        assert_eq!(percent_decode("a%20b%zz%"), "a b%zz%");
        assert_eq!(percent_decode("%ff"), "%ff", "not UTF-8: kept as written");
    }

    #[test]
    fn missing_and_outside_references_are_findings_at_their_place() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("scripts")).expect("mkdir");
        std::fs::write(dir.path().join("scripts/run.sh"), "#!/bin/sh\n").expect("write");
        std::fs::write(dir.path().join("guide.md"), "# guide\n").expect("write");
        std::os::unix::fs::symlink("nowhere", dir.path().join("dangling.md")).expect("link");
        let body = "[guide](guide.md) [run](scripts/run.sh) [dir](scripts/) [here](.)\n\
                    [gone](references/gone.md) `scripts/gone.py` [up](../shared/x.md)\n\
                    [dangling](dangling.md)\n";
        let findings = check(body, 6, "s/pdf/SKILL.md", dir.path());
        let got: Vec<_> = findings
            .iter()
            .map(|f| (f.rule.as_str(), f.severity, f.line, f.column))
            .collect();
        use crate::skill::Severity::{Error, Warning};
        assert_eq!(
            got,
            vec![
                ("reference-missing", Error, Some(7), Some(8)),
                ("reference-missing", Error, Some(7), Some(29)),
                ("reference-outside-skill", Warning, Some(7), Some(51)),
                ("reference-missing", Error, Some(8), Some(12)),
            ]
        );
        assert_eq!(
            findings[0].message,
            "`references/gone.md` is not in the skill: add it, or fix the reference"
        );
        assert_eq!(
            findings[3].message, "`dangling.md` is not in the skill: add it, or fix the reference",
            "a symlink to nothing is missing"
        );
        assert!(findings.iter().all(|f| f.file == "s/pdf/SKILL.md"));
    }

    #[test]
    fn a_flood_of_broken_references_is_counted_past_fifty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let body = "[x](gone.md)\n".repeat(10_000);
        let findings = check(&body, 1, "SKILL.md", dir.path());
        assert_eq!(findings.len(), MAX_FINDINGS + 1);
        assert_eq!(
            findings[MAX_FINDINGS].message,
            "and 9950 more references that are not in the skill (or outside it)"
        );
    }

    #[test]
    fn pathological_markdown_stays_fast() {
        let started = std::time::Instant::now();
        for body in [
            "[".repeat(200_000),
            "[a](".repeat(100_000),
            "`".repeat(200_000),
            "*a ".repeat(100_000),
            "> ".repeat(100_000),
            "- ".repeat(100_000),
            "![".repeat(100_000) + &"](x)".repeat(100_000),
            "[x]: y\n".repeat(100_000),
        ] {
            let _ = references(&body);
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "took {:?}",
            started.elapsed()
        );
    }
}
