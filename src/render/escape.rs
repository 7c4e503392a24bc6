//! Text from skills and tests is untrusted: escape it before it goes into Markdown, so it cannot
//! ping people, open HTML, or break out of a table.

/// Escape `text` for a Markdown table cell or paragraph: one line, no markup of its own.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            // A zero-width joiner after `@` keeps `@user` readable without pinging anyone.
            '@' => out.push_str("@\u{200d}"),
            '\r' | '\n' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::markdown_text;

    #[test]
    fn hostile_text_is_inert() {
        assert_eq!(markdown_text("a | b"), "a \\| b");
        assert_eq!(markdown_text("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(markdown_text("cc @octocat"), "cc @\u{200d}octocat");
        assert_eq!(markdown_text("```\nrm -rf"), "\\`\\`\\` rm -rf");
        assert_eq!(markdown_text("[x](javascript:1)"), "\\[x\\](javascript:1)");
    }
}
