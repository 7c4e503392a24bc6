//! Text that leaves the gate for a log or a terminal, made inert: no line of it can start a
//! GitHub Actions workflow command, and nothing in it can end a line or move the cursor.
//!
//! The runner reads a step's stdout and stderr line by line, ending a line at `\n`, `\r` or
//! `\r\n` (.NET's `ReadLine`). It runs a line as a command when, after leading whitespace, it
//! starts with `::` (`::set-output …`, `::add-mask::…`), or when it holds `##[` anywhere (the
//! legacy `##[set-output …]`, `##[add-mask]…`). It matches both with .NET's culture-sensitive
//! `StartsWith` and `IndexOf`, which skip characters the collation ignores (zero-width joiners
//! and spaces, soft hyphens, variation selectors…): `:\u{200d}:` is `::` to the runner. So the
//! breaks here are plain spaces, which no collation ignores, and any non-ASCII character between
//! the command's punctuation is counted as possibly ignored:
//!
//! - `::` at a line's start (after whitespace) becomes `: :`;
//! - `##[` anywhere becomes `# #[`;
//! - control characters other than `\n` and `\t` (ESC, CR, the rest of C0, DEL, C1) and
//!   bidirectional controls become `�`.
//!
//! A JSON document gets JSON escapes instead (`#` as `\u0023`, a control as `\u0085`): the bytes
//! change only where they must, and the values it holds do not.

/// Bidirectional controls: they reorder what a person sees (`exe.txt` shown for `txt.exe`).
pub fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}

/// Stdout of a command, made inert: a JSON document keeps its values (see [`json`]), anything
/// else is text (see [`text`]).
pub fn stdout(output: &str) -> String {
    // Valid JSON is the test, not a guess: in a valid document `#` and the characters escaped
    // can only sit inside strings, where an escape keeps the value.
    if serde_json::from_str::<serde::de::IgnoredAny>(output).is_ok() {
        json(output)
    } else {
        text(output)
    }
}

/// Text for a terminal or a log, line by line: see the module's documentation. Idempotent, and
/// a no-op on text with nothing to neutralise.
pub fn text(text: &str) -> String {
    let chars: Vec<char> = text
        .chars()
        .map(|c| {
            if (c.is_control() && c != '\n' && c != '\t') || is_bidi(c) {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect();
    let mut out = String::with_capacity(text.len());
    // Still in the part of the line the runner skips before looking for `::`.
    let mut leading = true;
    for (i, &c) in chars.iter().enumerate() {
        out.push(c);
        if c == '\n' {
            leading = true;
            continue;
        }
        let rest = &chars[i + 1..];
        // `::` first on a line, `##[` anywhere: a space after the first character.
        if (leading && c == ':' && next_is(rest, ':')) || (c == '#' && opens_legacy_command(rest)) {
            out.push(' ');
        }
        // The runner trims whitespace before looking for `::`, and its match skips what it
        // ignores.
        if c.is_ascii() && !c.is_ascii_whitespace() {
            leading = false;
        }
    }
    out
}

/// A JSON document for a terminal or a log: `#` of a `##[` as `\u0023`, DEL, C1 controls and
/// bidirectional controls as `\uXXXX`. Valid JSON stays valid and holds the same values; a
/// document with none of these is returned byte for byte. No line of a valid document starts
/// with `::` (each value is inside quotes), so there is nothing else to do.
pub fn json(document: &str) -> String {
    // Plain ASCII without `#` or DEL holds nothing to escape: most documents, and the large ones.
    if !document.bytes().any(|b| b == b'#' || b >= 0x7f) {
        return document.to_owned();
    }
    let chars: Vec<char> = document.chars().collect();
    let mut out = String::with_capacity(document.len());
    for (i, &c) in chars.iter().enumerate() {
        let escape = (c == '#' && opens_legacy_command(&chars[i + 1..]))
            || (c.is_control() && !c.is_ascii())
            || c == '\u{7f}'
            || is_bidi(c);
        if escape {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `rest`, skipping characters the runner may ignore, starts with `want`.
fn next_is(rest: &[char], want: char) -> bool {
    rest.iter().copied().find(|c| c.is_ascii()) == Some(want)
}

/// Whether `rest` follows a `#` to make `##[`, skipping characters the runner may ignore.
fn opens_legacy_command(rest: &[char]) -> bool {
    let mut visible = rest.iter().copied().filter(char::is_ascii);
    visible.next() == Some('#') && visible.next() == Some('[')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the runner would take as a command: the `::` form after leading whitespace, the
    /// legacy form anywhere; characters its collation may ignore (any non-ASCII) skipped.
    fn runs_a_command(line: &str) -> bool {
        let visible: String = line.chars().filter(char::is_ascii).collect();
        visible.trim_start().starts_with("::") || visible.contains("##[")
    }

    fn runner_lines(text: &str) -> Vec<&str> {
        text.split(['\n', '\r']).collect()
    }

    #[test]
    fn workflow_commands_at_a_line_start_are_broken_with_a_space() {
        assert_eq!(
            text("::set-output name=tier::auto"),
            ": :set-output name=tier::auto"
        );
        assert_eq!(text("  ::add-mask::x"), "  : :add-mask::x");
        assert_eq!(text("\t::warning::x"), "\t: :warning::x");
        assert_eq!(text("ok\n::warning::x\n"), "ok\n: :warning::x\n");
        // Only at a line's start: `a::b` is a Rust path, not a command.
        assert_eq!(text("crate::render::text"), "crate::render::text");
        assert_eq!(text(":x:"), ":x:");
    }

    #[test]
    fn legacy_commands_are_broken_anywhere() {
        assert_eq!(text("##[error]boom"), "# #[error]boom");
        assert_eq!(text("name: ##[add-mask]x"), "name: # #[add-mask]x");
        assert_eq!(text("###[x]"), "## #[x]");
        assert_eq!(text("# heading [x]"), "# heading [x]");
        assert_eq!(text("##x["), "##x[");
    }

    #[test]
    fn characters_the_runner_ignores_do_not_hide_a_command() {
        // Zero-width joiner, zero-width space, soft hyphen, BOM: all ignored by ICU collation.
        assert_eq!(text(":\u{200d}:x::y"), ": \u{200d}:x::y");
        assert_eq!(text("\u{feff}::x::y"), "\u{feff}: :x::y");
        assert_eq!(text("\u{200b} ::x::y"), "\u{200b} : :x::y");
        assert_eq!(text("#\u{ad}#[error]x"), "# \u{ad}#[error]x");
        assert_eq!(text("#\u{200d}#\u{200d}[x]"), "# \u{200d}#\u{200d}[x]");
        // Non-breaking and ideographic spaces are trimmed by the runner like any whitespace.
        assert_eq!(text("\u{a0}\u{3000}::x::y"), "\u{a0}\u{3000}: :x::y");
    }

    #[test]
    fn control_and_bidi_characters_are_shown_as_replacement_characters() {
        // A bare CR ends a line for the runner; ESC starts a terminal sequence.
        assert_eq!(text("a\r::warning::x"), "a\u{fffd}::warning::x");
        assert_eq!(
            text("\u{1b}[2J\u{7f}\u{85}\u{9b}"),
            "\u{fffd}[2J\u{fffd}\u{fffd}\u{fffd}"
        );
        assert_eq!(
            text("\u{202e}gnp.exe \u{2066}x\u{2069} \u{200f}\u{61c}"),
            "\u{fffd}gnp.exe \u{fffd}x\u{fffd} \u{fffd}\u{fffd}"
        );
        assert_eq!(text("tab\tand\nnewline\n"), "tab\tand\nnewline\n");
    }

    #[test]
    fn text_is_inert_and_neutralising_twice_changes_nothing() {
        let hostile = "::set-output name=tier::auto\n  ::add-mask::x\r##[error]boom\n\
                       a\u{200d}\n:\u{200d}:x\n #\u{feff}#[x]\u{202e}\n\u{85}::y";
        let once = text(hostile);
        for line in runner_lines(&once) {
            assert!(!runs_a_command(line), "{line:?} in {once:?}");
        }
        assert_eq!(text(&once), once);
        let plain = "skillgate: 1 skill gated\n\nSKILL  TIER\nalpha  auto  — ✓ …\n";
        assert_eq!(text(plain), plain);
    }

    #[test]
    fn json_keeps_its_values_and_escapes_only_what_it_must() {
        let value = serde_json::json!({
            "name": "##[error]boom \u{202e}x \u{85}\u{7f} ::set-output name=a::b",
            "plain": "# a [b] c::d",
            "nested": ["#\u{200d}#[add-mask]x", "line\n::warning::x"]
        });
        let document = serde_json::to_string_pretty(&value).expect("json");
        let inert = json(&document);
        let again: serde_json::Value = serde_json::from_str(&inert).expect("still JSON");
        assert_eq!(again, value);
        for line in runner_lines(&inert) {
            assert!(!runs_a_command(line), "{line:?} in {inert}");
            assert!(
                !line.chars().any(|c| c.is_control() || is_bidi(c)),
                "{line:?}"
            );
        }
        assert!(
            inert.contains(r#""\u0023#[error]boom \u202ex \u0085\u007f ::set"#),
            "{inert}"
        );
        let plain = serde_json::to_string_pretty(&serde_json::json!({"a": "# x", "b": [1, 2]}))
            .expect("json");
        assert_eq!(json(&plain), plain);
    }

    #[test]
    fn stdout_tells_a_json_document_from_text() {
        let document = "{\n  \"name\": \"##[error]x\"\n}\n";
        assert_eq!(stdout(document), "{\n  \"name\": \"\\u0023#[error]x\"\n}\n");
        assert_eq!(stdout("##[error]x\n"), "# #[error]x\n");
        // Broken JSON is text: the escape that keeps a value would only be noise there.
        assert_eq!(stdout("{\"a\": \"##[x]\""), "{\"a\": \"# #[x]\"");
    }
}
