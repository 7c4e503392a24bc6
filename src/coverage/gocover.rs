//! Go coverprofiles (`go test -coverprofile`), read line by line: blocks merge by position, and
//! coverage is statements, as Go itself reports it.

use std::collections::HashMap;
use std::io::{Read, Seek};

use super::limits::{MAX_LINE_NUMBER, check_counts, shown};
use super::model::{Coverage, CoverageFormat, CoverageUnit};
use crate::input::InputError;
use crate::input::encoding::strip_bom;
use crate::input::head::read_head;
use crate::input::lines::text_lines;

const MODES: [&str; 3] = ["set", "count", "atomic"];

/// Read a Go coverprofile. `Ok(None)` when the input does not start with a `mode:` line.
///
/// Go's own figure (`go tool cover -func`'s `total:`, `go test -cover`) is statement coverage,
/// and so is the gate's: each block's statements count once (blocks at the same position in
/// merged profiles are one block, covered when any of them ran), covered when the block ran.
/// The unit is `statements`; the profile cannot tell which source lines hold code.
pub(crate) fn read(mut input: impl Read + Seek) -> Result<Option<Coverage>, InputError> {
    if !sniff(&read_head(&mut input)?) {
        return Ok(None);
    }
    let Some(profile) = read_profile(input)? else {
        return Ok(None);
    };
    let (covered, total) = profile.statement_coverage();
    check_counts(covered, total).map_err(|e| InputError::malformed(profile.last_line, e))?;
    Ok(Some(Coverage {
        format: CoverageFormat::GoCover,
        unit: CoverageUnit::Statements,
        covered,
        total,
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

fn read_profile(input: impl Read) -> Result<Option<Profile>, InputError> {
    let mut lines = text_lines(input)?;
    let mut profile = Profile {
        files: HashMap::new(),
        last_line: 0,
    };
    let mut seen_mode = false;
    let mut number = 0u64;
    while let Some(line) = lines.next_line()? {
        number += 1;
        profile.last_line = number;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let malformed = |message: String| InputError::malformed(number, message);
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
    /// (covered, total) statements: Go's own figure, the total of `go tool cover -func`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::files::Sample;
    use crate::input::ReadError;
    use crate::results::testkit::fixture;
    use std::path::Path;

    fn read_file(path: &Path) -> Result<Option<Coverage>, ReadError> {
        crate::coverage::read_coverage_as(path, CoverageFormat::GoCover)
    }

    fn profile(rel: &str) -> Profile {
        read_profile(std::fs::File::open(fixture(&format!("gocover/{rel}"))).expect("open"))
            .expect("read")
            .expect("a coverprofile")
    }

    const SAMPLE: Sample = Sample {
        file: "c.out",
        reader: read_file,
    };

    /// Go's `-func` total, "66.7%" and the like, from what the gate read.
    fn percent(coverage: &Coverage) -> String {
        format!("{:.1}%", coverage.ratio().expect("statements") * 100.0)
    }

    #[test]
    fn statements_match_go_tool_cover() {
        // set.func.txt, atomic.func.txt, merged.func.txt: "total: (statements) 66.7%" = 10/15.
        for rel in ["set.out", "atomic.out", "merged.out"] {
            let profile = profile(rel);
            assert_eq!(profile.statement_coverage(), (10, 15), "{rel}");
            let coverage = read_file(&fixture(&format!("gocover/{rel}")))
                .expect("read")
                .expect("a coverprofile");
            assert_eq!(coverage.format, CoverageFormat::GoCover);
            assert_eq!(coverage.unit, CoverageUnit::Statements);
            assert_eq!((coverage.covered, coverage.total), (10, 15));
            assert_eq!(
                percent(&coverage),
                go_total(&format!("{}.func.txt", &rel[..rel.len() - 4]))
            );
        }
        // first.func.txt: 13.3% (2/15); second.func.txt: 53.3% (8/15).
        for (rel, statements) in [("first", (2, 15)), ("second", (8, 15))] {
            assert_eq!(
                profile(&format!("{rel}.out")).statement_coverage(),
                statements
            );
            let coverage = read_file(&fixture(&format!("gocover/{rel}.out")))
                .expect("read")
                .expect("a coverprofile");
            assert_eq!(percent(&coverage), go_total(&format!("{rel}.func.txt")));
        }
    }

    /// The percentage on the `total:` line `go tool cover -func` printed for a fixture.
    fn go_total(rel: &str) -> String {
        let text = std::fs::read_to_string(fixture(&format!("gocover/{rel}"))).expect("func");
        let total = text
            .lines()
            .find(|l| l.starts_with("total:"))
            .expect("a total line");
        total
            .split_whitespace()
            .last()
            .expect("a percentage")
            .to_owned()
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
        // a.go: 2 + 1 + 1 + 1 statements, of which the merged block's 2 (it ran in the second
        // profile) and the last 1; b.go: 1, not run.
        assert_eq!(SAMPLE.totals(text), (3, 6));
    }

    #[test]
    fn a_block_counts_its_statements_however_many_lines_it_spans() {
        assert_eq!(
            SAMPLE.totals("mode: set\nx.go:1.1,10000000.1 3 1\nx.go:5.1,5.9 2 0\n"),
            (3, 5)
        );
    }

    #[test]
    fn other_files_are_not_profiles() {
        assert_eq!(SAMPLE.read("").expect("read"), None);
        assert_eq!(
            SAMPLE.read("mode: set").expect("read"),
            Some(Coverage {
                format: CoverageFormat::GoCover,
                unit: CoverageUnit::Statements,
                covered: 0,
                total: 0,
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
