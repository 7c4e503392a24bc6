//! Terminal text as a person would read it: ANSI escape sequences removed, and of a line
//! rewritten in place with `\r` (progress counters) only the last rewrite.

use std::borrow::Cow;

/// What a terminal would show of one captured line: colour codes removed, and of text rewritten
/// in place with `\r` (progress counters) only the last rewrite.
pub(crate) fn terminal_text(line: &str) -> Cow<'_, str> {
    // One scan for the common case of a plain line.
    if memchr::memchr3(0x1b, 0x9b, b'\r', line.as_bytes()).is_none() {
        return Cow::Borrowed(line);
    }
    match strip_ansi(line) {
        Cow::Borrowed(s) => Cow::Borrowed(after_last_cr(s)),
        Cow::Owned(s) => {
            let visible = after_last_cr(&s);
            if visible.len() == s.len() {
                Cow::Owned(s)
            } else {
                Cow::Owned(visible.to_owned())
            }
        }
    }
}

fn after_last_cr(s: &str) -> &str {
    match memchr::memrchr(b'\r', s.as_bytes()) {
        Some(i) => s.get(i + 1..).unwrap_or_default(),
        None => s,
    }
}

/// Remove ANSI escape sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks), the
/// other string sequences (DCS, SOS, PM, APC), charset selections and two-character escapes.
/// Borrows when there is nothing to remove.
pub fn strip_ansi(s: &str) -> Cow<'_, str> {
    const ESC: char = '\u{1b}';
    const CSI_8BIT: char = '\u{9b}';
    // A byte scan, not a char search: this runs on every line of every report. 0x9B also
    // appears inside other characters' encodings; those only take the careful path below.
    if memchr::memchr2(0x1b, 0x9b, s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string_sequence(&mut chars);
                }
                Some('(' | ')' | '*' | '+' | '-' | '.' | '/' | '#' | '%') => {
                    chars.next();
                    chars.next();
                }
                Some('0'..='~') => {
                    chars.next();
                }
                // A lone ESC (cut off, or before text) shows nothing either.
                _ => {}
            },
            CSI_8BIT => skip_csi(&mut chars),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // Parameter and intermediate bytes, then one final byte; anything else ends a broken
    // sequence without eating the text after it.
    while let Some(&c) = chars.peek() {
        match c {
            ' '..='?' => {
                chars.next();
            }
            '@'..='~' => {
                chars.next();
                return;
            }
            _ => return,
        }
    }
}

fn skip_string_sequence(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    // Ends at BEL, ST (ESC \ or the 8-bit 0x9C), or any other ESC (a new sequence: unterminated
    // OSC are common in the wild and should not swallow the rest of the line).
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_colour_cursor_and_hyperlink_sequences() {
        assert_eq!(strip_ansi("plain"), Cow::Borrowed("plain"));
        assert_eq!(strip_ansi("\u{1b}[32m3 passed\u{1b}[0m"), "3 passed");
        assert_eq!(strip_ansi("\u{1b}[1;31;48;5;200mred\u{1b}[K"), "red");
        assert_eq!(
            strip_ansi("\u{1b}]8;;https://x.test\u{7}link\u{1b}]8;;\u{1b}\\ after"),
            "link after"
        );
        assert_eq!(strip_ansi("\u{1b}(Bx\u{1b}=y\u{1b}"), "xy");
        assert_eq!(strip_ansi("\u{9b}2Jcleared"), "cleared");
        // A cut-off CSI must not eat the text after it.
        assert_eq!(strip_ansi("\u{1b}[12ü ok"), "ü ok");
    }

    #[test]
    fn terminal_text_keeps_the_last_carriage_return_rewrite() {
        assert_eq!(
            terminal_text("progress 5/6\r\u{1b}[32m✓\u{1b}[0m done"),
            "✓ done"
        );
        assert_eq!(terminal_text("no rewrite"), "no rewrite");
    }
}
