//! The plain closing line any language can print: `N passed, N failed[, N skipped]`, optionally
//! after one word with a colon. Only the whole line counts; words elsewhere are never counted.

use super::line_reader::LineReader;
use super::model::{Claim, ReportFormat, TestRun};

/// The last closing line of a stream wins: a runner may print partial tallies before it.
#[derive(Default)]
pub(crate) struct SummaryReader {
    last: Option<TestRun>,
    /// Something was printed after the last closing line.
    said_after: bool,
}

impl LineReader for SummaryReader {
    fn feed(&mut self, line: &str) {
        if let Some(run) = parse_line(line) {
            self.last = Some(run);
            self.said_after = false;
        } else if self.last.is_some() && !self.said_after && line.chars().any(char::is_alphanumeric)
        {
            self.said_after = true;
        }
    }

    /// The line is the summary only when it closes the stream (nothing but blank lines and
    /// rules after it): one in the middle may be what a test of a command-line tool printed.
    fn claim(&self) -> Option<Claim> {
        if self.said_after {
            return None;
        }
        self.last
            .as_ref()
            .map(|run| Claim::new(ReportFormat::Summary, run.passed, run.failed, run.skipped))
    }

    fn finish(self: Box<Self>) -> Option<TestRun> {
        self.last
    }
}

/// Read one (ANSI-stripped) line: the counts when it is exactly a closing line, else `None`.
///
/// Accepted: `3 passed, 1 failed`, `Results: 3 passed, 1 failed, 2 skipped`, with whitespace
/// around the line. Refused: other orders, other words (`tests passed`), a prefix of more
/// than one word, text after the counts.
pub(crate) fn parse_line(line: &str) -> Option<TestRun> {
    // Every line of every stream comes here: most are turned away by their last bytes (a
    // line ending in anything but a visible ASCII character may end in white space that
    // `trim` removes, such as a vertical tab or Unicode's, and takes the long way).
    let tail = line.as_bytes().trim_ascii_end();
    match tail.last() {
        None => return None,
        Some(&last)
            if last.is_ascii_graphic()
                && !(tail.ends_with(b"failed") || tail.ends_with(b"skipped")) =>
        {
            return None;
        }
        Some(_) => {}
    }
    let line = line.trim();
    let counts = strip_label(line).unwrap_or(line);
    let (passed, rest) = count(counts, "passed")?;
    let rest = rest.strip_prefix(", ")?;
    let (failed, rest) = count(rest, "failed")?;
    let skipped = if rest.is_empty() {
        0
    } else {
        let (skipped, rest) = count(rest.strip_prefix(", ")?, "skipped")?;
        if !rest.is_empty() {
            return None;
        }
        skipped
    };
    let mut run = TestRun::new(ReportFormat::Summary);
    run.passed = passed;
    run.failed = failed;
    run.skipped = skipped;
    Some(run)
}

/// `Word: rest` → `rest`. The word is letters, digits, `_` or `-`.
fn strip_label(line: &str) -> Option<&str> {
    let (word, rest) = line.split_once(':')?;
    let is_word = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    is_word.then(|| rest.trim_start())
}

/// `<digits> <word>` at the start of `s`; the number and what follows it.
fn count<'a>(s: &'a str, word: &str) -> Option<(u64, &'a str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let number = s.get(..digits)?.parse().ok()?;
    let rest = s.get(digits..)?.strip_prefix(' ')?.strip_prefix(word)?;
    Some((number, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(line: &str) -> Option<(u64, u64, u64)> {
        parse_line(line).map(|run| {
            assert_eq!(run.framework, "summary");
            assert_eq!(run.format, ReportFormat::Summary);
            assert!(run.failures.is_empty());
            (run.passed, run.failed, run.skipped)
        })
    }

    #[test]
    fn accepts_the_closing_line_forms() {
        assert_eq!(counts("3 passed, 1 failed"), Some((3, 1, 0)));
        assert_eq!(
            counts("  12 passed, 0 failed, 4 skipped \t"),
            Some((12, 0, 4))
        );
        assert_eq!(counts("Results: 3 passed, 1 failed"), Some((3, 1, 0)));
        assert_eq!(counts("summary:3 passed, 1 failed"), Some((3, 1, 0)));
        assert_eq!(counts("Tests: 0 passed, 0 failed"), Some((0, 0, 0)));
        assert_eq!(counts("Résultats: 1 passed, 2 failed"), Some((1, 2, 0)));
        assert_eq!(counts("1 passed, 1 failed\u{b}"), Some((1, 1, 0)));
        assert_eq!(counts("1 passed, 1 failed\u{a0}\r"), Some((1, 1, 0)));
    }

    #[test]
    fn only_a_line_that_closes_the_stream_is_a_summary() {
        use crate::results::testkit::read_with;
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
        let (claim, _) = read_with(
            ReportFormat::Summary,
            &lines("ok 1\n3 passed, 1 failed\n\n===\n"),
        );
        assert_eq!(claim.map(|c| (c.passed, c.failed)), Some((3, 1)));
        // A tally a test printed, with the suite's own output after it.
        let (claim, run) = read_with(
            ReportFormat::Summary,
            &lines("ok 1\nResults: 2 passed, 1 failed\nok 2\n"),
        );
        assert_eq!(claim, None);
        assert!(run.is_some(), "still read when nothing else is");
    }

    #[test]
    fn claims_hold_on_any_interleaving() {
        let text = std::fs::read_to_string(crate::results::testkit::fixture("summary/stdout.txt"))
            .expect("fixture");
        crate::results::testkit::assert_claims_hold(ReportFormat::Summary, &text, 500);
    }

    #[test]
    fn refuses_everything_else() {
        for line in [
            "",
            "3 passed",
            "1 failed, 3 passed",
            "3 tests passed, 1 failed",
            "Test results: 3 passed, 1 failed",
            "3 passed, 1 failed.",
            "3 passed, 1 failed, 2 skipped, 1 errors",
            "3 passed,1 failed",
            "3  passed, 1 failed",
            "-3 passed, 1 failed",
            "x passed, 1 failed",
            ": 3 passed, 1 failed",
            "3 passed, 1 failed in 0.2s",
            "99999999999999999999999 passed, 1 failed",
            "==== 3 passed, 1 failed ====",
        ] {
            assert_eq!(counts(line), None, "{line:?}");
        }
    }
}
