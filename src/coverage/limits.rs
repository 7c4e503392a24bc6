//! What every coverage reader holds a report to: counts no codebase exceeds, bounded nesting
//! and JSON size, and how a report cut short or out of bounds is described.

use std::io::{self, Read, Seek};

use crate::input::InputError;
use crate::input::json::bounded_json;
use crate::results::truncate_utf8;

/// More lines than any codebase has: a count above it is a broken or hostile file, and keeping
/// every count below it lets callers add counts of many reports without overflow.
pub(crate) const MAX_LINES: u64 = 1_000_000_000_000;

/// The highest line number a source file is believed to have. Go blocks span line ranges, so
/// one absurd number would otherwise count billions of lines.
pub(crate) const MAX_LINE_NUMBER: u64 = 10_000_000;

/// JSON reports larger than this are refused: the readers stream, but a path or key is held
/// whole, and no real summary comes near this size.
pub(crate) const MAX_JSON_BYTES: u64 = 256 * 1024 * 1024;

/// Deeper XML nesting is refused: real reports nest a few levels, hostile ones to exhaust memory.
pub(crate) const MAX_XML_DEPTH: usize = 256;

/// `covered` of `total` lines, both as a report states them: refused when covered exceeds total
/// or either is beyond [`MAX_LINES`].
pub(crate) fn check_counts(covered: u64, total: u64) -> Result<(), String> {
    if total > MAX_LINES {
        return Err(format!(
            "{total} lines is more than any codebase has (the limit is {MAX_LINES})"
        ));
    }
    if covered > total {
        return Err(format!(
            "{covered} covered lines is more than the {total} lines in total"
        ));
    }
    Ok(())
}

/// A value from the file as an error quotes it: cut, so that a runaway attribute or line does
/// not become the message.
pub(crate) fn shown(value: &str) -> String {
    truncate_utf8(value, 80)
}

/// A count that is only asked whether it is zero: digits, optionally with a fraction (some
/// writers print `3.0`), of any length. `None` when it is not such a number.
pub(crate) fn nonzero_count(text: &str) -> Option<bool> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    Some(text.bytes().any(|b| b.is_ascii_digit() && b != b'0'))
}

/// The message for a file that ends inside an element.
pub(crate) fn unexpected_eof(open: &str) -> String {
    format!(
        "unexpected end of XML inside <{open}> (help: the coverage tool may have been stopped \
         before it finished writing the report)"
    )
}

/// Deserialize a whole JSON report from the start of `input`, streaming: what `T` does not keep
/// is skipped as it is read. Refused above [`MAX_JSON_BYTES`].
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    input: &mut (impl Read + Seek),
) -> Result<T, InputError> {
    let input = bounded_json(
        input,
        "JSON coverage report",
        MAX_JSON_BYTES,
        "help: point skillgate at the summary report, e.g. coverage-summary.json",
    )?;
    let mut de = serde_json::Deserializer::from_reader(input);
    let value = T::deserialize(&mut de).map_err(|e| json_error(&e))?;
    de.end().map_err(|e| json_error(&e))?;
    Ok(value)
}

/// A serde_json error as an input error naming the line (and, in the message, the column).
fn json_error(error: &serde_json::Error) -> InputError {
    if error.is_io() {
        return InputError::Io(io::Error::other(error.to_string()));
    }
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    let message = if error.is_eof() {
        format!(
            "unexpected end of JSON: {message} (help: the coverage tool may have been stopped \
             before it finished writing the report)"
        )
    } else {
        format!("column {}: {message}", error.column())
    };
    InputError::malformed(error.line().max(1) as u64, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_checked() {
        assert_eq!(check_counts(3, 4), Ok(()));
        assert!(check_counts(5, 4).is_err());
        assert!(check_counts(0, MAX_LINES + 1).is_err());
        assert_eq!(shown("12"), "12");
        assert_eq!(shown(&"9".repeat(1000)).len(), 80);
        assert_eq!(nonzero_count("0"), Some(false));
        assert_eq!(nonzero_count("000.0"), Some(false));
        assert_eq!(nonzero_count("3.0"), Some(true));
        assert_eq!(nonzero_count("123456789012345678901234567890"), Some(true));
        assert_eq!(nonzero_count("-1"), None);
        assert_eq!(nonzero_count("1e3"), None);
        assert_eq!(nonzero_count(""), None);
        assert_eq!(nonzero_count(".5"), None);
    }
}
