//! Which parts of a shell line are text shown to a person: the arguments of a message command
//! (`echo`, `printf`, `Write-Host`, …) whose output goes to the terminal, whatever else runs on
//! the line. `command -v brew >/dev/null || { echo "Install Homebrew: https://brew.sh" >&2; exit
//! 1; }` shows `https://brew.sh`; it calls nothing.
//!
//! A message is no message when its text flows into something that runs or is kept:
//! - its output is piped (`echo https://x.io/i.sh | sh`, `{ echo https://x.io; } | xargs curl`);
//! - it is inside a command or process substitution (`curl "$(echo https://x.io)"`,
//!   `` curl `echo https://x.io` ``, `curl -K <(echo 'url = https://x.io')`);
//! - its output is written to a file (`echo https://x.io > /tmp/url`);
//! - it is the string another program runs (`bash -c "echo https://x.io"`: the program is `bash`).
//!
//! Quotes are followed: a `;`, `|` or `(` inside a string separates nothing, and a `$(…)` or a
//! backtick inside double quotes runs.

use std::ops::Range;

/// Shell programs that show text or a page to a person.
pub(super) const MESSAGE_PROGRAMS: &[&str] = &[
    "echo",
    "printf",
    "Write-Host",
    "Write-Output",
    "Write-Error",
    "Write-Warning",
    "open",
    "xdg-open",
    "say",
    "notify-send",
    "read",
];

/// Words before a program that are not it.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "time", "fi", "done", "esac",
];

/// One simple command: the byte ranges of the line that are its own (a substitution inside it
/// belongs to another), how deep in substitutions it runs, and whether its output is piped.
#[derive(Debug, Default)]
struct Segment {
    pieces: Vec<Range<usize>>,
    depth: usize,
    piped: bool,
}

/// How a frame of the parse was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opened {
    Line,
    /// `$(`, `<(`, `>(`: closed by the `)` that matches.
    Paren,
    Backtick,
}

/// The line at one level of substitution.
#[derive(Debug)]
struct Frame {
    opened: Opened,
    quote: Option<u8>,
    /// The segment being read, and where its current piece starts.
    segment: usize,
    piece: usize,
    /// Plain `(` and `{` groups open in this frame, each with its first segment.
    groups: Vec<usize>,
    /// The segments of the group that just closed: piped when a `|` follows.
    closed: Option<Range<usize>>,
}

/// Parser state: every segment, and the frames open.
struct Parse<'a> {
    text: &'a str,
    segments: Vec<Segment>,
    frames: Vec<Frame>,
}

impl Parse<'_> {
    fn frame(&mut self) -> &mut Frame {
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn new_segment(&mut self, depth: usize) -> usize {
        self.segments.push(Segment {
            depth,
            ..Segment::default()
        });
        self.segments.len() - 1
    }

    /// Close the current piece at `end`.
    fn cut(&mut self, end: usize) {
        let frame = self.frame();
        let (segment, start) = (frame.segment, frame.piece);
        if start < end {
            self.segments[segment].pieces.push(start..end);
        }
    }

    /// End the current command at `at`; the next starts at `next`.
    fn separate(&mut self, at: usize, next: usize) {
        self.cut(at);
        let depth = self.frames.len() - 1;
        let segment = self.new_segment(depth);
        let frame = self.frame();
        frame.segment = segment;
        frame.piece = next;
    }

    /// A pipe at `at`: the command before it, or the group that just closed, is piped.
    fn pipe(&mut self, at: usize) {
        let current = self.frame().segment;
        let before = self.text[self.frame().piece.min(at)..at].trim().is_empty()
            && self.segments[current]
                .pieces
                .iter()
                .all(|r| self.text[r.clone()].trim().is_empty());
        match self.frame().closed.take() {
            Some(group) if before => {
                for segment in &mut self.segments[group] {
                    segment.piped = true;
                }
            }
            _ => self.segments[current].piped = true,
        }
        self.separate(at, at + 1);
    }

    fn open(&mut self, opened: Opened, at: usize, body: usize) {
        self.cut(at);
        let depth = self.frames.len();
        let segment = self.new_segment(depth);
        self.frames.push(Frame {
            opened,
            quote: None,
            segment,
            piece: body,
            groups: Vec::new(),
            closed: None,
        });
    }

    fn close(&mut self, at: usize) {
        self.cut(at);
        self.frames.pop();
        self.frame().piece = at + 1;
    }
}

/// The byte ranges of `text` (one shell line) that are the words of a message shown to a person.
pub(super) fn message_spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut parse = Parse {
        text,
        segments: Vec::new(),
        frames: Vec::new(),
    };
    let first = parse.new_segment(0);
    parse.frames.push(Frame {
        opened: Opened::Line,
        quote: None,
        segment: first,
        piece: 0,
        groups: Vec::new(),
        closed: None,
    });
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        let previous = i.checked_sub(1).map(|p| bytes[p]);
        let frame = parse.frame();
        match frame.quote {
            Some(b'\'') => {
                if b == b'\'' {
                    frame.quote = None;
                }
                i += 1;
                continue;
            }
            Some(_) => {
                match b {
                    b'\\' => i += 1,
                    b'"' => frame.quote = None,
                    b'$' if next == Some(b'(') => {
                        parse.open(Opened::Paren, i, i + 2);
                        i += 1;
                    }
                    b'`' => parse.open(Opened::Backtick, i, i + 1),
                    _ => {}
                }
                i += 1;
                continue;
            }
            None => {}
        }
        let word_start = previous.is_none_or(|p| p.is_ascii_whitespace() || b";&|(".contains(&p));
        match b {
            b'\\' => i += 1,
            b'\'' | b'"' => frame.quote = Some(b),
            b'$' | b'<' | b'>' if next == Some(b'(') => {
                parse.open(Opened::Paren, i, i + 2);
                i += 1;
            }
            b'$' if next == Some(b'{') => {
                // `${URL:-https://x.io}`: one word, whatever it holds.
                i = parameter_end(bytes, i + 2);
                continue;
            }
            b'`' if frame.opened == Opened::Backtick => parse.close(i),
            b'`' => parse.open(Opened::Backtick, i, i + 1),
            b')' if frame.opened == Opened::Paren && frame.groups.is_empty() => parse.close(i),
            b')' | b'}' if b == b')' || word_start => {
                let start = frame.groups.pop();
                parse.separate(i, i + 1);
                let end = parse.frame().segment;
                parse.frame().closed = start.map(|s| s..end);
                i += 1;
                continue;
            }
            b'(' | b'{'
                if b == b'(' || (word_start && next.is_none_or(|n| n.is_ascii_whitespace())) =>
            {
                parse.separate(i, i + 1);
                let segment = parse.frame().segment;
                parse.frame().groups.push(segment);
            }
            b'|' if next == Some(b'|') => {
                parse.separate(i, i + 2);
                i += 1;
            }
            b'|' => parse.pipe(i),
            b'&' if matches!(previous, Some(b'>' | b'<')) || next == Some(b'>') => {}
            b'&' if next == Some(b'&') => {
                parse.separate(i, i + 2);
                i += 1;
            }
            b'&' | b';' | b'\n' => parse.separate(i, i + 1),
            _ => {}
        }
        i += 1;
    }
    while parse.frames.len() > 1 {
        // An unclosed substitution: what it holds runs.
        parse.close(bytes.len());
    }
    parse.cut(bytes.len());
    parse
        .segments
        .iter()
        .filter(|s| s.depth == 0 && !s.piped && is_message_command(text, &s.pieces))
        .flat_map(|s| s.pieces.iter().cloned())
        .collect()
}

/// Where a `${…}` that opens before `from` ends (after its `}`).
fn parameter_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 1usize;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// Whether the words of `pieces` are a message command whose output goes to the terminal.
fn is_message_command(text: &str, pieces: &[Range<usize>]) -> bool {
    let words: Vec<&str> = pieces
        .iter()
        .flat_map(|r| words(&text[r.clone()]))
        .collect();
    let mut program = None;
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if let Some(target) = redirection(word) {
            let target = if target.is_empty() {
                i += 1;
                words.get(i).copied().unwrap_or("")
            } else {
                target
            };
            if !writes_to_terminal(word, target) {
                return false;
            }
        } else if program.is_none() {
            let is_assignment = word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
            if !is_assignment && !KEYWORDS.contains(&word) {
                program = Some(word.trim_matches(['"', '\'']));
            }
        }
        i += 1;
    }
    // `printf -v url 'https://%s' "$host"` stores the text in a variable.
    let stores = program == Some("printf") && words.iter().any(|w| w.starts_with("-v"));
    !stores
        && program.is_some_and(|p| MESSAGE_PROGRAMS.contains(&crate::analysis::paths::base_name(p)))
}

/// The words of a piece of a command, quotes kept: `echo "a > b" >&2` → `echo`, `"a > b"`,
/// `>&2`.
fn words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match quote {
            Some(q) if c == q => quote = None,
            Some('"') if c == '\\' => escaped = true,
            Some(_) => {}
            None if c.is_whitespace() => {
                if let Some(from) = start.take() {
                    words.push(&text[from..at]);
                }
                continue;
            }
            None if c == '\\' => escaped = true,
            None if c == '"' || c == '\'' => quote = Some(c),
            None => {}
        }
        start.get_or_insert(at);
    }
    if let Some(from) = start {
        words.push(&text[from..]);
    }
    words
}

/// The target of a redirection word (`>`, `>>file`, `2>&1`, `&>log`): what follows the operator,
/// empty when the next word is it. `None` when the word is no output redirection.
fn redirection(word: &str) -> Option<&str> {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('&').unwrap_or(rest);
    let rest = rest.strip_prefix('>')?;
    let rest = rest.strip_prefix('>').unwrap_or(rest);
    Some(rest.strip_prefix('|').unwrap_or(rest))
}

/// Whether a redirection keeps the standard output on the terminal (or drops it): `>&2`,
/// `>/dev/stderr`, `2>/dev/null` (another stream), `>/dev/null`.
fn writes_to_terminal(word: &str, target: &str) -> bool {
    let fd = word.bytes().take_while(u8::is_ascii_digit).count();
    let stream = &word[..fd];
    if !(stream.is_empty() || stream == "1") {
        // `2>errors.log`: a message writes to its standard output.
        return true;
    }
    let target = target.trim_matches(['"', '\'']);
    matches!(
        target,
        "&1" | "&2" | "/dev/stderr" | "/dev/stdout" | "/dev/tty" | "/dev/null"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message text of a line: its spans joined by `|`.
    fn shown(text: &str) -> String {
        message_spans(text)
            .into_iter()
            .map(|r| text[r].trim())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn a_message_beside_other_commands_is_a_message() {
        assert_eq!(
            shown(
                "command -v brew >/dev/null || { echo \"Install Homebrew first: see https://brew.sh\" >&2; exit 1; }"
            ),
            "echo \"Install Homebrew first: see https://brew.sh\" >&2"
        );
        assert_eq!(
            shown(
                "command -v jq >/dev/null 2>&1 || echo \"jq missing; see https://jqlang.github.io/jq/ (or brew install jq)\""
            ),
            "echo \"jq missing; see https://jqlang.github.io/jq/ (or brew install jq)\""
        );
        assert_eq!(
            shown("curl -s https://api.vendor.io && printf '%s\\n' 'done: https://dash.vendor.io'"),
            "printf '%s\\n' 'done: https://dash.vendor.io'"
        );
        assert_eq!(
            shown("echo \"$(date): see ${DOCS:-https://docs.io}\""),
            "echo \"|: see ${DOCS:-https://docs.io}\""
        );
        assert_eq!(
            shown("if ! command -v gh; then echo 'https://cli.github.com'; fi"),
            "then echo 'https://cli.github.com'"
        );
        assert_eq!(
            shown("echo https://x.io 2>/dev/null"),
            "echo https://x.io 2>/dev/null"
        );
    }

    #[test]
    fn a_message_that_flows_into_a_command_is_none() {
        for line in [
            "echo https://x.io/i.sh | sh",
            "printf '%s' https://x.io | xargs curl",
            "{ echo https://x.io; echo y; } | sh",
            "( echo https://x.io ) | bash",
            "curl \"$(echo https://x.io)\"",
            "curl `echo https://x.io`",
            "curl -K <(echo 'url = https://x.io')",
            "URL=$(printf https://x.io); curl \"$URL\"",
            "echo https://x.io > /tmp/url; curl -K /tmp/url",
            "echo https://x.io >> ~/.curlrc",
            "bash -c \"echo https://x.io\"",
            "curl \"https://x.io/$(echo a)\"",
            "curl $(echo \"https://x.io\"",
        ] {
            let spans = message_spans(line);
            assert!(
                !spans.iter().any(|r| line[r.clone()].contains("x.io")),
                "{line}: {:?}",
                spans.iter().map(|r| &line[r.clone()]).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn words_in_quotes_are_no_redirection_and_printf_v_stores() {
        let line = "echo \"see > https://x.io\" >&2";
        assert_eq!(shown(line), line);
        assert_eq!(
            shown("printf -v url 'https://%s' \"$host\"; curl \"$url\""),
            ""
        );
        assert_eq!(shown("echo https://x.io &>log.txt"), "");
    }

    /// Random mixes of the characters that drive the parse, and a deep nesting: no panic, every
    /// span inside the line, bounded time.
    #[test]
    fn hostile_lines_never_panic() {
        const PIECES: &[&str] = &[
            "echo ",
            "$(",
            "<(",
            ")",
            "`",
            "\"",
            "'",
            "\\",
            "${",
            "}",
            "{ ",
            " }",
            "|",
            "||",
            "&",
            "&&",
            ";",
            ">",
            ">&2",
            " ",
            "https://x.io",
            "é",
            "printf ",
            "(",
        ];
        let mut state: u64 = 0x5eed;
        for _ in 0..5000 {
            let mut line = String::new();
            for _ in 0..(state >> 59) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                line.push_str(PIECES[(state >> 33) as usize % PIECES.len()]);
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            for span in message_spans(&line) {
                assert!(
                    span.end <= line.len() && line.get(span).is_some(),
                    "{line:?}"
                );
            }
        }
        let deep = format!("echo {}https://x.io", "$( \"`{ ".repeat(50_000));
        let start = std::time::Instant::now();
        let spans = message_spans(&deep);
        assert!(!spans.iter().any(|r| deep[r.clone()].contains("x.io")));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn separators_inside_strings_separate_nothing() {
        let line = "echo \"run: curl https://x.io | sh; (then) { it }\"";
        assert_eq!(shown(line), line);
        assert_eq!(shown("echo 'a | b' | sh"), "");
    }
}
