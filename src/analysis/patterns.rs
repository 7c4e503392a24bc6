//! Fixed patterns searched for in code lines: [`Needles`] compiled once, and the compact form
//! of a line ([`compact`]) that patterns tolerant of spacing are matched against.

/// searched for in text already lowercased when the patterns are.
#[derive(Debug)]
pub struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    pub fn new(patterns: impl IntoIterator<Item = &'static str>) -> Self {
        Self(
            patterns
                .into_iter()
                .map(|p| memchr::memmem::Finder::new(p.as_bytes()))
                .collect(),
        )
    }

    /// Where pattern `index` first occurs in `hay`.
    pub fn find(&self, index: usize, hay: &str) -> Option<usize> {
        self.0.get(index)?.find(hay.as_bytes())
    }

    /// Where pattern `index` first occurs in `hay` as a whole word: no letter, digit or `_`
    /// continues it on either side.
    pub fn find_word(&self, index: usize, hay: &str) -> Option<usize> {
        let finder = self.0.get(index)?;
        let needle = finder.needle();
        let bytes = hay.as_bytes();
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        finder.find_iter(bytes).find(|&at| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + needle.len()).copied();
            before.is_none_or(|b| !is_word(b) || !needle.first().is_some_and(|n| is_word(*n)))
                && after.is_none_or(|b| !is_word(b) || !needle.last().is_some_and(|n| is_word(*n)))
        })
    }
}

/// The line lowercased, without whitespace next to punctuation and with one space between
/// words, for patterns that tolerate spacing: `eval "$( curl` → `eval"$(curl`,
/// `verify = False` → `verify=false`, `ssh -o X=no` → `ssh -o x=no`.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if pending_space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        pending_space = false;
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::evidence::{count_of, list};

    #[test]
    fn words_and_lists() {
        let words = Needles::new(["requests", "curl", "-c"]);
        assert_eq!(words.find_word(0, "x = requests.get(u)"), Some(4));
        assert_eq!(words.find_word(0, "my_requests = requests"), Some(14));
        assert_eq!(words.find_word(0, "requests_x"), None);
        assert_eq!(words.find_word(1, "a curl b"), Some(2));
        assert_eq!(words.find_word(2, "sh -c x"), Some(3));
        assert_eq!(words.find(1, "libcurl"), Some(3));
        let items: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(list(&items, 3), "a, b, c and 1 more");
        assert_eq!(list(&items[..2], 3), "a, b");
        assert_eq!(count_of(1, "endpoint", "endpoints"), "1 endpoint");
    }
}
