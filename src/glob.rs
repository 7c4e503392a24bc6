//! A small glob matcher for `/`-separated relative paths: `*` and `?` within a segment, `**` for
//! any number of segments. Enough for skill roots, ignores and report globs.

/// Whether `path` matches `pattern` as a whole.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let path: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    match_segments(&pattern, &path)
}

/// Whether a pattern holds any wildcard at all.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

fn match_segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| match_segments(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((segment, path_rest)) => {
                match_segment(first.as_bytes(), segment.as_bytes())
                    && match_segments(rest, path_rest)
            }
            None => false,
        },
    }
}

/// `*` and `?` within one segment, iterative with one backtrack point.
fn match_segment(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn literal_star_and_double_star() {
        assert!(matches(".claude/skills", ".claude/skills"));
        assert!(!matches(".claude/skills", "a/.claude/skills"));
        assert!(matches("**/.claude/skills", ".claude/skills"));
        assert!(matches("**/.claude/skills", "packages/web/.claude/skills"));
        assert!(!matches(
            "**/.claude/skills",
            "packages/web/.claude/skills/x"
        ));
        assert!(matches("reports/*.xml", "reports/junit.xml"));
        assert!(!matches("reports/*.xml", "reports/sub/junit.xml"));
        assert!(matches("reports/**/*.xml", "reports/sub/deeper/junit.xml"));
        assert!(matches("coverage/lcov.info", "./coverage/lcov.info"));
        assert!(matches("test-?.log", "test-1.log"));
        assert!(!matches("test-?.log", "test-12.log"));
        assert!(matches("*a*b*c", "xxaxxbxxc"));
        assert!(!matches("*a*b*c", "xxaxxbxx"));
    }
}
