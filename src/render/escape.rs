//! Text from skills and tests is untrusted: escape it before it goes into Markdown, so it cannot
//! ping people, link anything, reorder what a reviewer reads, open HTML, or break out of a table.
//!
//! GitHub links text after rendering it: URLs (`https://…`, `www.…`), emails, `@user`, issue
//! references (`#12`, `owner/repo#12`, `GH-12`) and commit SHAs. A backslash does not stop it
//! (`\#12` renders as `#12`, then links). A zero-width joiner inside the pattern does, and a
//! person reads the same text: `@‍user`, `#‍12`, `GH-‍12`, `https:‍//…`, `www‍.…`, a SHA cut
//! every six characters. The joiner is invisible in the comment; it is copied with the text, so
//! it goes only where GitHub would link: names like `gpt-4-helper`, `utf-8` or `1234567` stay
//! as written.

/// Zero-width joiner: breaks GitHub's autolink and reference patterns, shows nothing.
const JOINER: char = '\u{200d}';

/// Escape `text` for a Markdown table cell or paragraph: one line, no markup of its own, no
/// links, mentions or references, no bidirectional controls.
pub fn markdown_text(text: &str) -> String {
    let chars: Vec<char> = text
        .chars()
        .filter(|&c| !crate::untrusted::inert::is_bidi(c))
        .filter_map(|c| match c {
            '\r' | '\n' | '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let hex_breaks = hex_breaks(&chars);
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        if hex_breaks[i] || breaks_a_link(&chars, i) {
            out.push(JOINER);
        }
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether a joiner goes before `chars[i]` to break a mention or a link starting there.
fn breaks_a_link(chars: &[char], i: usize) -> bool {
    let Some(i_1) = i.checked_sub(1) else {
        return false;
    };
    let (before, c) = (chars[i_1], chars[i]);
    let next = chars.get(i + 1).copied();
    // `@user`, `@org/team`, `owner/repo@sha`, and the domain of an email.
    before == '@'
        // `#12`, `owner/repo#12`.
        || (before == '#' && c.is_ascii_digit())
        // `GH-12` (any case). A repository's own autolink prefixes (`JIRA-12`) are settings of
        // that repository, unknown here: breaking every `letter-digit` would put joiners into
        // ordinary names (`gpt-4-helper`, `utf-8`) that a reader copies and `--skill` rejects.
        || (before == '-' && c.is_ascii_digit() && after_gh(chars, i_1))
        // `https://…`, `ftp://…`, any scheme.
        || (before == ':' && c == '/' && next == Some('/'))
        // `www.example.com`.
        || (c == '.'
            && i >= 3
            && chars[i - 3..i]
                .iter()
                .all(|w| w.eq_ignore_ascii_case(&'w')))
}

/// Whether the `-` at `chars[dash]` ends a word `GH`, any case: `GH-12`, not `sigh-12`.
fn after_gh(chars: &[char], dash: usize) -> bool {
    dash >= 2
        && chars[dash - 2].eq_ignore_ascii_case(&'g')
        && chars[dash - 1].eq_ignore_ascii_case(&'h')
        && (dash == 2 || !chars[dash - 3].is_ascii_alphanumeric())
}

/// Whether a word may be a commit SHA GitHub links: 7 to 40 hex digits with a digit and a
/// letter among them, or a full 40. GitHub links a SHA only when it names a commit, and a
/// number (`1234567`) or a word (`deadbeef`) rarely does; breaking those would change every
/// long number a test prints.
fn may_be_a_sha(word: &[char]) -> bool {
    word.len() >= 7
        && word.iter().all(char::is_ascii_hexdigit)
        && (word.len() == 40
            || (word.iter().any(char::is_ascii_digit)
                && word.iter().any(char::is_ascii_alphabetic)))
}

/// For each character, whether a joiner goes before it to cut a word that may be a commit SHA
/// (see [`may_be_a_sha`]) into pieces of 6.
fn hex_breaks(chars: &[char]) -> Vec<bool> {
    let mut breaks = vec![false; chars.len()];
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut start = 0;
    while start < chars.len() {
        let end = chars[start..]
            .iter()
            .position(|&c| !is_word(c))
            .map_or(chars.len(), |n| start + n);
        let word = &chars[start..end];
        if may_be_a_sha(word) {
            for at in (start + 6..end).step_by(6) {
                breaks[at] = true;
            }
        }
        start = end + 1;
    }
    breaks
}

#[cfg(test)]
mod tests {
    use super::markdown_text;

    /// GitHub's autolink and reference patterns, as a reviewer would check them on the text a
    /// comment shows (escapes undone).
    fn links(markdown: &str) -> Vec<String> {
        let shown = markdown.replace('\\', "");
        let words: Vec<&str> = shown
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .collect();
        let mut found = Vec::new();
        for word in words {
            let hexes = word
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| {
                    w.len() >= 7
                        && w.chars().all(|c| c.is_ascii_hexdigit())
                        && (w.len() == 40
                            || (w.contains(|c: char| c.is_ascii_digit())
                                && w.contains(|c: char| c.is_ascii_alphabetic())))
                });
            let digits_after = |pat: &str| {
                word.match_indices(pat).any(|(at, _)| {
                    word[at + pat.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_digit())
                })
            };
            let mention = word.match_indices('@').any(|(at, _)| {
                word[at + 1..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
            });
            if word.contains("://")
                || word.to_ascii_lowercase().contains("www.")
                || mention
                || digits_after("#")
                || digits_after("GH-")
                || digits_after("gh-")
                || digits_after("Gh-")
                || digits_after("gH-")
                || hexes
            {
                found.push(word.to_owned());
            }
        }
        found
    }

    #[test]
    fn hostile_text_is_inert() {
        assert_eq!(markdown_text("a | b"), "a \\| b");
        assert_eq!(markdown_text("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(markdown_text("cc @octocat"), "cc @\u{200d}octocat");
        assert_eq!(markdown_text("```\nrm -rf"), "\\`\\`\\` rm -rf");
        assert_eq!(markdown_text("[x](javascript:1)"), "\\[x\\](javascript:1)");
    }

    #[test]
    fn links_and_references_are_broken_but_read_the_same() {
        let z = '\u{200d}';
        assert_eq!(
            markdown_text("see https://evil.example/x"),
            format!("see https:{z}//evil.example/x")
        );
        assert_eq!(
            markdown_text("WWW.evil.example"),
            format!("WWW{z}.evil.example")
        );
        assert_eq!(markdown_text("fixes GH-12"), format!("fixes GH-{z}12"));
        assert_eq!(markdown_text("fixes #12"), format!("fixes \\#{z}12"));
        assert_eq!(
            markdown_text("octo/repo#12 and octo/repo@1a2b3c4"),
            format!("octo/repo\\#{z}12 and octo/repo@{z}1a2b3c{z}4")
        );
        assert_eq!(
            markdown_text("me@evil.example"),
            format!("me@{z}evil.example")
        );
        assert_eq!(
            markdown_text("commit 0123456789abcdef0123"),
            format!("commit 012345{z}6789ab{z}cdef01{z}23")
        );
        // What is not a link is left alone: short hex, words, hyphenated names, headings.
        for plain in ["csv-summary", "cafe12 beef", "deadline", "v1-beta", "a-b-c"] {
            assert_eq!(markdown_text(plain), plain);
        }
        let shown = markdown_text("x https://a.example www.b.example @c #1 GH-2 a/b#3 cafe1234");
        assert_eq!(links(&shown), Vec::<String>::new(), "{shown}");
        // The check itself finds what it is meant to.
        assert_eq!(links("https://a.example #1 cafe1234 @x").len(), 4);
        // Once the joiners are taken out, the text reads as it was written.
        assert_eq!(
            shown.replace([z, '\\'], ""),
            "x https://a.example www.b.example @c #1 GH-2 a/b#3 cafe1234"
        );
    }

    #[test]
    fn ordinary_names_and_numbers_are_left_as_written() {
        for plain in [
            "gpt-4-helper",
            "utf-8",
            "node-20",
            "python-3.12",
            "sigh-12",
            "x86-64",
            "1234567",
            "build 20240101123",
            "deadbeefcafe",
            "cafe12",
        ] {
            assert_eq!(markdown_text(plain), plain);
        }
    }

    #[test]
    fn gh_references_are_broken_in_any_case_and_after_punctuation() {
        let z = '\u{200d}';
        assert_eq!(markdown_text("gh-7"), format!("gh-{z}7"));
        assert_eq!(markdown_text("Gh-7 gH-8"), format!("Gh-{z}7 gH-{z}8"));
        assert_eq!(markdown_text("(GH-12)"), format!("(GH-{z}12)"));
        assert_eq!(markdown_text("GH-x"), "GH-x");
    }

    #[test]
    fn mentions_after_a_package_name_are_broken_too() {
        // `vite@latest` reads like a mention of `latest`; a joiner there is harmless.
        let z = '\u{200d}';
        assert_eq!(markdown_text("vite@latest"), format!("vite@{z}latest"));
        assert_eq!(
            markdown_text("lodash@4.17.21"),
            format!("lodash@{z}4.17.21")
        );
    }

    #[test]
    fn words_that_may_be_a_sha_are_cut() {
        let z = '\u{200d}';
        // A digit and a letter: a short SHA.
        assert_eq!(markdown_text("1a2b3c4"), format!("1a2b3c{z}4"));
        assert_eq!(markdown_text("abcdef1"), format!("abcdef{z}1"));
        // Forty hex digits is a full SHA, whatever they are.
        let full = "1".repeat(40);
        let cut = markdown_text(&full);
        assert_eq!(cut.matches(z).count(), 6, "{cut}");
        assert_eq!(cut.replace(z, ""), full);
        assert_eq!(links(&cut), Vec::<String>::new());
        // Not hex, or too short: left alone.
        assert_eq!(markdown_text("abcdefg1234"), "abcdefg1234");
        assert_eq!(markdown_text("1a2b3c"), "1a2b3c");
    }

    #[test]
    fn bidirectional_controls_are_removed() {
        assert_eq!(
            markdown_text("invoice\u{202e}fdp.exe \u{2066}a\u{2069}\u{200e}\u{200f}\u{61c}"),
            "invoicefdp.exe a"
        );
    }
}
