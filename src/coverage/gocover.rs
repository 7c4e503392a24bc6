//! Go coverprofiles (`go test -coverprofile`), read line by line: blocks merge by position, and
//! a source line counts as covered when any block spanning it ran.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use super::detect::{MAX_LINE_NUMBER, WHAT, check_counts, read_head, shown};
use super::model::{Coverage, CoverageFormat};
use crate::results::ReadError;
use crate::results::detect::strip_bom;
use crate::results::lines::text_lines;

const MODES: [&str; 3] = ["set", "count", "atomic"];

/// Read a Go coverprofile. `Ok(None)` when the file does not start with a `mode:` line.
///
/// Go's own figure (`go tool cover -func`, `go test -cover`) is statement coverage; the gate
/// measures lines in every format, so a line is counted once for each file, however many blocks
/// span it, and is covered when any of them ran. A block covers its lines from start to end,
/// closing braces included: the profile says nothing finer about which lines hold code.
pub(crate) fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
    if !sniff(&read_head(path)?) {
        return Ok(None);
    }
    let Some(profile) = read_profile(path)? else {
        return Ok(None);
    };
    let (covered, total) = profile.line_coverage();
    check_counts(covered, total)
        .map_err(|e| ReadError::malformed(WHAT, path, profile.last_line, e))?;
    Ok(Some(Coverage {
        format: CoverageFormat::GoCover,
        lines_covered: covered,
        lines_total: total,
    }))
}

/// The first non-blank line is `mode: set`, `mode: count` or `mode: atomic`.
pub(crate) fn sniff(head: &[u8]) -> bool {
    strip_bom(head)
        .split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .find(|line| !line.is_empty())
        .and_then(|line| line.strip_prefix(b"mode:"))
        .is_some_and(|mode| MODES.iter().any(|m| mode.trim_ascii() == m.as_bytes()))
}

/// `startLine.startCol,endLine.endCol`: where a block is, the key blocks merge by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Span {
    start_line: u32,
    start_col: u32,
    end_line: u32,
    end_col: u32,
}

#[derive(Debug, Clone, Copy)]
struct Block {
    statements: u32,
    hit: bool,
}

struct Profile {
    /// Per source file: its blocks, merged by span.
    files: HashMap<String, HashMap<Span, Block>>,
    /// The number of the last line read, for errors found at the end.
    last_line: u64,
}

fn read_profile(path: &Path) -> Result<Option<Profile>, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::io(WHAT, path, e))?;
    let mut lines = text_lines(file).map_err(|e| ReadError::io(WHAT, path, e))?;
    let mut profile = Profile {
        files: HashMap::new(),
        last_line: 0,
    };
    let mut seen_mode = false;
    let mut number = 0u64;
    while let Some(line) = lines
        .next_line()
        .map_err(|e| ReadError::io(WHAT, path, e))?
    {
        number += 1;
        profile.last_line = number;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let malformed = |message: String| ReadError::malformed(WHAT, path, number, message);
        // Profiles of several packages are often concatenated whole, each with its mode line.
        if let Some(mode) = line.strip_prefix("mode:") {
            let mode = mode.trim();
            if !MODES.contains(&mode) {
                return Err(malformed(format!(
                    "unknown coverage mode {:?}: expected set, count or atomic",
                    shown(mode)
                )));
            }
            seen_mode = true;
            continue;
        }
        if !seen_mode {
            return Ok(None);
        }
        let (name, span, block) = parse_block(line).map_err(|e| {
            malformed(format!(
                "invalid block {:?}: {e}: expected \
                 file:startLine.startCol,endLine.endCol numStmts count",
                shown(line)
            ))
        })?;
        let blocks = match profile.files.get_mut(name) {
            Some(blocks) => blocks,
            None => profile.files.entry(name.to_owned()).or_default(),
        };
        match blocks.get_mut(&span) {
            // The same block from another run (merged profiles): ran if it ran in either.
            Some(known) => {
                if known.statements != block.statements {
                    return Err(malformed(format!(
                        "block {:?} has {} statements, but {} in an earlier line for the \
                         same position (help: the merged profiles come from different \
                         versions of the code)",
                        shown(line),
                        block.statements,
                        known.statements
                    )));
                }
                known.hit |= block.hit;
            }
            None => {
                blocks.insert(span, block);
            }
        }
    }
    Ok(seen_mode.then_some(profile))
}

/// `name:sl.sc,el.ec stmts count`. The name may hold colons and spaces (a Windows drive, a
/// directory outside GOPATH), so the line is taken apart from the right.
fn parse_block(line: &str) -> Result<(&str, Span, Block), String> {
    let mut fields = line.rsplitn(3, ' ');
    let count = fields.next().unwrap_or_default();
    let statements = fields.next().ok_or("no statement count")?;
    let location = fields.next().ok_or("no position")?.trim_end();
    let (name, span) = location.rsplit_once(':').ok_or("no position")?;
    let (start, end) = span.split_once(',').ok_or("no end position")?;
    let position = |text: &str| -> Result<(u32, u32), String> {
        let (line, col) = text.split_once('.').ok_or("no column")?;
        let line: u32 = line
            .parse()
            .map_err(|_| format!("line {:?}", shown(line)))?;
        if line == 0 || u64::from(line) > MAX_LINE_NUMBER {
            return Err(format!("line {line} is outside 1–{MAX_LINE_NUMBER}"));
        }
        let col = col
            .parse()
            .map_err(|_| format!("column {:?}", shown(col)))?;
        Ok((line, col))
    };
    let (start_line, start_col) = position(start)?;
    let (end_line, end_col) = position(end)?;
    if (end_line, end_col) < (start_line, start_col) {
        return Err("the block ends before it starts".to_owned());
    }
    let statements = statements
        .parse()
        .map_err(|_| format!("statement count {:?}", shown(statements)))?;
    // Counts of atomic profiles grow without bound; only zero or not matters.
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("count {:?}", shown(count)));
    }
    let hit = count.bytes().any(|b| b != b'0');
    let span = Span {
        start_line,
        start_col,
        end_line,
        end_col,
    };
    Ok((name, span, Block { statements, hit }))
}

impl Profile {
    /// (covered, total) distinct source lines spanned by blocks, over every file.
    fn line_coverage(&self) -> (u64, u64) {
        let mut covered = 0u64;
        let mut total = 0u64;
        for blocks in self.files.values() {
            let mut all: Vec<(u32, u32)> = blocks
                .keys()
                .map(|span| (span.start_line, span.end_line))
                .collect();
            let mut ran: Vec<(u32, u32)> = blocks
                .iter()
                .filter(|(_, block)| block.hit)
                .map(|(span, _)| (span.start_line, span.end_line))
                .collect();
            total = total.saturating_add(union_len(&mut all));
            covered = covered.saturating_add(union_len(&mut ran));
        }
        (covered, total)
    }

    /// (covered, total) statements: Go's own figure, the total of `go tool cover -func`.
    #[cfg(test)]
    fn statement_coverage(&self) -> (u64, u64) {
        let blocks = self.files.values().flat_map(HashMap::values);
        blocks.fold((0, 0), |(covered, total), block| {
            let statements = u64::from(block.statements);
            let covered = if block.hit {
                covered + statements
            } else {
                covered
            };
            (covered, total + statements)
        })
    }
}

/// How many lines the inclusive ranges cover together. Works on ranges, not on one entry per
/// line, so a block spanning millions of lines costs no memory.
fn union_len(ranges: &mut [(u32, u32)]) -> u64 {
    ranges.sort_unstable();
    let mut len = 0u64;
    let mut current: Option<(u32, u32)> = None;
    for &(start, end) in ranges.iter() {
        current = match current {
            Some((from, to)) if start <= to.saturating_add(1) => Some((from, to.max(end))),
            Some((from, to)) => {
                len += u64::from(to - from) + 1;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((from, to)) = current {
        len += u64::from(to - from) + 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::detect::Sample;
    use crate::results::detect::fixture;

    fn profile(rel: &str) -> Profile {
        read_profile(&fixture(&format!("gocover/{rel}")))
            .expect("read")
            .expect("a coverprofile")
    }

    const SAMPLE: Sample = Sample {
        file: "c.out",
        reader: read_file,
    };

    /// Go's `-func` total, "66.7%" and the like, as a ratio of statements.
    fn percent(statements: (u64, u64)) -> String {
        format!("{:.1}%", statements.0 as f64 * 100.0 / statements.1 as f64)
    }

    #[test]
    fn statements_match_go_tool_cover_and_lines_are_counted_apart() {
        // set.func.txt, atomic.func.txt, merged.func.txt: "total: (statements) 66.7%" = 10/15.
        // Lines: the blocks span 19 lines of textutil.go (7–11, 15–20, 22, 26–29, 32–34); 12
        // of them lie in blocks that ran (7, 8, 11, 15–20, 22, 32, 33).
        for rel in ["set.out", "atomic.out", "merged.out"] {
            let profile = profile(rel);
            assert_eq!(profile.statement_coverage(), (10, 15), "{rel}");
            assert_eq!(percent(profile.statement_coverage()), "66.7%", "{rel}");
            assert_eq!(profile.line_coverage(), (12, 19), "{rel}");
            let coverage = read_file(&fixture(&format!("gocover/{rel}")))
                .expect("read")
                .expect("a coverprofile");
            assert_eq!(coverage.format, CoverageFormat::GoCover);
            assert_eq!((coverage.lines_covered, coverage.lines_total), (12, 19));
        }
        // first.func.txt: 13.3% (2/15); second.func.txt: 53.3% (8/15).
        let first = profile("first.out");
        assert_eq!(percent(first.statement_coverage()), "13.3%");
        assert_eq!(first.line_coverage(), (3, 19));
        let second = profile("second.out");
        assert_eq!(percent(second.statement_coverage()), "53.3%");
        assert_eq!(second.line_coverage(), (9, 19));
    }

    #[test]
    fn blocks_merge_by_position_and_lines_by_file() {
        let text = "mode: count\n\
            a.go:1.1,3.2 2 0\n\
            a.go:3.2,5.1 1 0\n\
            a.go:10.1,10.20 1 0\n\
            a.go:10.20,10.30 1 5\n\
            mode: count\n\
            a.go:1.1,3.2 2 1\n\
            C:\\src\\dir with space\\b.go:1.1,2.1 1 0\n";
        // a.go: lines 1–5 and 10, of which 1–3 (merged block ran) and 10; b.go: lines 1–2.
        assert_eq!(SAMPLE.totals(text), (4, 8));
    }

    #[test]
    fn huge_spans_cost_no_memory() {
        assert_eq!(
            SAMPLE.totals("mode: set\nx.go:1.1,10000000.1 1 1\n"),
            (10_000_000, 10_000_000)
        );
        assert_eq!(union_len(&mut [(1, 3), (2, 2), (5, 6), (4, 4), (9, 9)]), 7);
        assert_eq!(union_len(&mut []), 0);
    }

    #[test]
    fn other_files_are_not_profiles() {
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(
            SAMPLE.read("mode: set").expect("read"),
            Some(Coverage {
                format: CoverageFormat::GoCover,
                lines_covered: 0,
                lines_total: 0,
            })
        );
        assert_eq!(
            SAMPLE.read("x.go:1.1,2.1 1 1\nmode: set\n").expect("read"),
            None
        );
        assert_eq!(SAMPLE.read("model: set\n").expect("read"), None);
        assert_eq!(SAMPLE.read("\u{0}mode: set").expect("read"), None);
        assert_eq!(
            read_file(&fixture("gocover/set.func.txt")).expect("read"),
            None
        );
        assert_eq!(read_file(&fixture("lcov/node.info")).expect("read"), None);
    }

    #[test]
    fn broken_profiles_name_the_line() {
        let expected = "expected file:startLine.startCol,endLine.endCol numStmts count";
        for (text, message) in [
            (
                "mode: set\na.go:1.1,2.1 1\n",
                "invalid block \"a.go:1.1,2.1 1\": no position",
            ),
            (
                "mode: set\na.go:1.1,2.1 1 -1\n",
                "invalid block \"a.go:1.1,2.1 1 -1\": count \"-1\"",
            ),
            (
                "mode: set\na.go:1.1,2.1 x 1\n",
                "invalid block \"a.go:1.1,2.1 x 1\": statement count \"x\"",
            ),
            (
                "mode: set\na.go:3.1,2.1 1 1\n",
                "invalid block \"a.go:3.1,2.1 1 1\": the block ends before it starts",
            ),
            (
                "mode: set\na.go:0.1,2.1 1 1\n",
                "invalid block \"a.go:0.1,2.1 1 1\": line 0 is outside 1–10000000",
            ),
            (
                "mode: set\na.go:1.1,99999999.1 1 1\n",
                "invalid block \"a.go:1.1,99999999.1 1 1\": line 99999999 is outside 1–10000000",
            ),
            (
                "mode: set\na.go:1.1,4294967296.1 1 1\n",
                "invalid block \"a.go:1.1,4294967296.1 1 1\": line \"4294967296\"",
            ),
            (
                "mode: set\na.go 1 1\n",
                "invalid block \"a.go 1 1\": no position",
            ),
            (
                "mode: set\na.go:1.1,2 1 1\n",
                "invalid block \"a.go:1.1,2 1 1\": no column",
            ),
        ] {
            assert_eq!(
                SAMPLE.error(text),
                format!("line 2: {message}: {expected}"),
                "{text}"
            );
        }
        assert_eq!(
            SAMPLE.error("mode: set\n\nmode: fast\n"),
            "line 3: unknown coverage mode \"fast\": expected set, count or atomic"
        );
        let message = SAMPLE.error("mode: set\na.go:1.1,2.1 1 1\na.go:1.1,2.1 2 1\n");
        assert!(
            message.starts_with("line 3: block \"a.go:1.1,2.1 2 1\" has 2 statements, but 1"),
            "{message}"
        );
        // Cut in the middle of a block line.
        let full = std::fs::read_to_string(fixture("gocover/set.out")).expect("fixture");
        let cut: String = full.chars().take(150).collect();
        assert_eq!(
            SAMPLE.error(&cut),
            format!("line 4: invalid block \"example.c\": no statement count: {expected}")
        );
    }
}
