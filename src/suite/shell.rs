//! Commands as a shell takes them: words quoted for showing, and a script's first command
//! read back into words.

use std::borrow::Cow;

use super::resolve::REPORT_DIR;

/// `program args…` as a person would type it in a shell where `SKILLGATE_REPORT_DIR` is set.
pub(super) fn shown(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(shell_word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word for a shell: quoted when it needs it, [`REPORT_DIR`] as the variable, and an
/// assignment's value quoted apart so that it stays an assignment.
pub(super) fn shell_word(word: &str) -> String {
    if let Some((name, value)) = word.split_once('=')
        && is_env_name(name)
    {
        return format!("{name}={}", shell_word(value));
    }
    if word.is_empty() {
        return "''".to_owned();
    }
    word.split(REPORT_DIR)
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join("\"$SKILLGATE_REPORT_DIR\"")
}

fn shell_quote(piece: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,@%+".contains(c);
    if piece.chars().all(plain) {
        Cow::Borrowed(piece)
    } else {
        Cow::Owned(format!("'{}'", piece.replace('\'', r"'\''")))
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| is_env_name(name))
}

/// The words of a script's first command (up to `&&`, `||`, `;`, `|` or `&`), unquoted; `None`
/// when that command needs a shell: expansions, redirections, subshells, an open quote.
pub(super) fn first_command(script: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = script.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            '&' | '|' | ';' | '\n' => break,
            '$' | '`' | '<' | '>' | '(' | ')' => return None,
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// The assignments before a script's program, and the words from the program on, past the
/// launchers that only find it: `cross-env`, `npx`, `yarn`, `pnpm exec`.
pub(super) fn strip_launchers(words: &[String]) -> (Vec<String>, &[String]) {
    let mut env = Vec::new();
    let mut rest = words;
    while let Some((first, after)) = rest.split_first() {
        if is_assignment(first) {
            env.push(first.clone());
            rest = after;
        } else if first == "cross-env" {
            rest = after;
        } else if first == "npx" {
            rest = after;
            // npx's own flags; `--package` names what to install, not what to run.
            while let Some((flag, after)) = rest.split_first()
                && flag.starts_with('-')
            {
                rest = if matches!(flag.as_str(), "-p" | "--package") {
                    after.get(1..).unwrap_or_default()
                } else {
                    after
                };
            }
        } else if first == "yarn" || first == "pnpm" {
            rest = match after.first().map(String::as_str) {
                Some("run" | "exec") => &after[1..],
                _ => after,
            };
        } else {
            break;
        }
    }
    (env, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_command_words() {
        let words = |s: &str| first_command(s).map(|w| w.join("|"));
        assert_eq!(words("jest --ci"), Some("jest|--ci".into()));
        assert_eq!(
            words("  mocha 'a b' \"c d\" e\\ f  "),
            Some("mocha|a b|c d|e f".into())
        );
        assert_eq!(words("jest&&eslint ."), Some("jest".into()));
        assert_eq!(words("jest || true"), Some("jest".into()));
        assert_eq!(words("jest; echo"), Some("jest".into()));
        assert_eq!(words("jest | tee log"), Some("jest".into()));
        assert_eq!(words("jest # a comment"), Some("jest".into()));
        assert_eq!(words("mocha a#b"), Some("mocha|a#b".into()));
        assert_eq!(words("jest $ARGS"), None);
        assert_eq!(words("jest \"$ARGS\""), None);
        assert_eq!(words("jest > out.txt"), None);
        assert_eq!(words("(jest)"), None);
        assert_eq!(words("jest 'open"), None);
        assert_eq!(words("jest '$literal'"), Some("jest|$literal".into()));
    }

    #[test]
    fn launchers_and_assignments_are_stripped() {
        let strip = |s: &str| {
            let words = first_command(s).expect("words");
            let (env, rest) = strip_launchers(&words);
            (env.join(" "), rest.join(" "))
        };
        assert_eq!(strip("npx jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("npx -y --package jest jest -i"),
            (String::new(), "jest -i".into())
        );
        assert_eq!(strip("npx -p=jest jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("A=1 cross-env B=2 npx mocha"),
            ("A=1 B=2".into(), "mocha".into())
        );
        assert_eq!(strip("yarn jest"), (String::new(), "jest".into()));
        assert_eq!(
            strip("pnpm exec vitest run"),
            (String::new(), "vitest run".into())
        );
        assert_eq!(strip("yarn test:unit"), (String::new(), "test:unit".into()));
    }

    #[test]
    fn commands_are_shown_as_a_shell_would_take_them() {
        assert_eq!(shell_word("plain-word_1.js"), "plain-word_1.js");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("{report_dir}"), "\"$SKILLGATE_REPORT_DIR\"");
        assert_eq!(shell_word("NODE_OPTIONS=--a --b"), "NODE_OPTIONS='--a --b'");
        assert_eq!(
            shell_word("--x={report_dir}/a b"),
            "--x=\"$SKILLGATE_REPORT_DIR\"'/a b'"
        );
    }
}
