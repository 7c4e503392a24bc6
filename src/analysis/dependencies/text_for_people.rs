//! What in code is text for a person, not a call: its URLs are for reading.
//!
//! - Python docstrings and the bodies of triple-quoted strings that span lines (a template);
//! - messages: in shell, the words of `echo`, `printf`, `read`, `Write-Host`, `open`, …
//!   whatever else runs on the line (`command -v brew >/dev/null || { echo "Install it:
//!   https://brew.sh" >&2; exit 1; }`), unless their output is piped, substituted or written
//!   to a file (see [`super::messages`]); in other languages, lines that print, log, raise or
//!   open a browser (`print(`, `console.log(`, `logger.`, `raise`, `webbrowser.open`, …) and
//!   call no HTTP client, and text after `help=`, `description=`, `epilog=`;
//! - links: URLs in HTML and CSS markup (`href=`, `src=`, `content=`, `url(`, `@import`),
//!   Markdown links (`](…)`), metadata keys (`homepage`, `repository`, `documentation`,
//!   `license`, `author`, `icon`, …).

use super::urls::CONTEXT;
use crate::analysis::code_lines::{CodeLine, Lang};

/// Python triple-quoted strings: a docstring, or the body of a string that spans lines (an
/// HTML template, a usage text), is text, not calls.
#[derive(Debug, Default)]
pub(super) struct PythonStrings {
    open: Option<&'static str>,
    last: u32,
}

impl PythonStrings {
    pub(super) fn reset(&mut self) {
        self.open = None;
        self.last = 0;
    }

    /// The code of `line` outside triple-quoted strings; `None` when none is left.
    pub(super) fn code<'a>(&mut self, line: &CodeLine<'a>) -> Option<&'a str> {
        if line.number <= self.last {
            // The file is read again as another language: start over.
            self.open = None;
        }
        self.last = line.number;
        let mut text = line.text;
        if let Some(delimiter) = self.open {
            let end = text.find(delimiter)?;
            self.open = None;
            text = &text[end + delimiter.len()..];
        }
        // A string statement (a docstring): `"""Sync pages."""`, `r'''…`.
        let trimmed = text.trim_start();
        let body = trimmed.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
        if trimmed.len() - body.len() <= 2 {
            for delimiter in ["\"\"\"", "'''"] {
                if let Some(rest) = body.strip_prefix(delimiter) {
                    if !rest.contains(delimiter) {
                        self.open = Some(delimiter);
                    }
                    return None;
                }
            }
        }
        // `HTML = """<link href=…`: the code is what comes before the string.
        for delimiter in ["\"\"\"", "'''"] {
            if text.matches(delimiter).count() % 2 == 1
                && let Some(at) = text.rfind(delimiter)
            {
                self.open = Some(delimiter);
                return Some(&text[..at]);
            }
        }
        Some(text)
    }
}

/// Calls that show text or a page to a person, lowercase, as a line starts.
const MESSAGE_CALLS: &[&str] = &[
    "print(",
    "print ",
    "pprint(",
    "console.log(",
    "console.error(",
    "console.warn(",
    "console.info(",
    "console.debug(",
    "console.print(",
    "rich.print(",
    "logger.",
    "logging.",
    "log.",
    "fmt.print",
    "fmt.fprint",
    "fmt.errorf(",
    "errors.new(",
    "puts ",
    "puts(",
    "warn ",
    "raise ",
    "throw ",
    "click.echo(",
    "click.secho(",
    "typer.echo(",
    "sys.exit(",
    "sys.stderr.write(",
    "sys.stdout.write(",
    "process.stdout.write(",
    "process.stderr.write(",
    "warnings.warn(",
    "webbrowser.open",
    "st.markdown(",
    "st.write(",
    "st.info(",
    "alert(",
    "println!(",
    "eprintln!(",
    "panic!(",
];

/// Calls that make a request: a line holding one is no message, whatever it prints.
const REQUEST_CALLS: &[&str] = &[
    ".get(",
    ".post(",
    ".put(",
    ".patch(",
    ".delete(",
    ".head(",
    ".request(",
    "fetch(",
    "urlopen(",
    "axios",
];

/// Whether a line of code that is not shell shows text to a person and calls nothing: its URLs
/// are for reading. A shell line is judged command by command ([`messages`]).
pub(super) fn is_message(line: &CodeLine<'_>) -> bool {
    match line.lang {
        Lang::Shell | Lang::Config | Lang::Sql => false,
        _ => {
            let lower = line.text.trim_start().to_ascii_lowercase();
            MESSAGE_CALLS.iter().any(|call| lower.starts_with(call))
                && !REQUEST_CALLS.iter().any(|call| lower.contains(call))
        }
    }
}

/// HTML and CSS attributes whose URL a browser loads or links to.
const MARKUP_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "srcset",
    "action",
    "formaction",
    "poster",
    "cite",
    "background",
    "xlink:href",
    "content",
    "longdesc",
    "itemtype",
];

/// Keys whose URL describes the project (where to read, who made it), not what it calls. Compared
/// without case, `-` as `_`, and without a `url`/`link`/`uri` suffix (`homepageUrl`, `docs_url`).
const METADATA_KEYS: &[&str] = &[
    "homepage",
    "home",
    "repository",
    "repo",
    "bugs",
    "issues",
    "issue_tracker",
    "documentation",
    "docs",
    "doc",
    "changelog",
    "license",
    "licence",
    "author",
    "authors",
    "website",
    "funding",
    "icon",
    "logo",
    "image",
    "avatar",
    "thumbnail",
    "screenshot",
    "support",
    "privacy",
    "privacy_policy",
    "terms",
    "tos",
    "help",
    "learn_more",
    "more_info",
    "reference",
    "see_also",
];

/// Keyword arguments whose text is for a person (`argparse`'s `help=`).
const TEXT_ARGUMENTS: &[&str] = &["help=", "description=", "epilog=", "usage="];

/// Whether a URL after `before` on its line is one the code may call: not a markup or Markdown
/// link, a metadata value, or text for a person.
pub(super) fn counts_in_context(before: &str) -> bool {
    // The few words before the URL decide; a minified line of many URLs costs linear time.
    let mut from = before.len().saturating_sub(CONTEXT);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let lower = before[from..].to_ascii_lowercase();
    if TEXT_ARGUMENTS.iter().any(|a| lower.contains(a)) {
        return false;
    }
    let b = lower.trim_end_matches(['"', '\'', '`', '{', ' ', '\t', '\\']);
    if b.ends_with("url(") || b.ends_with("@import") || b.ends_with("](") || b.ends_with("]:") {
        return false;
    }
    let key = |rest: &str| -> String {
        let rest = rest.trim_end_matches(['"', '\'', ' ', '\t', '\\']);
        let start = rest
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '$')))
            .map_or(0, |(at, c)| at + c.len_utf8());
        rest[start..].replace('-', "_")
    };
    let (name, attribute) = match (b.strip_suffix('='), b.strip_suffix(':')) {
        (Some(rest), _) => (key(rest), true),
        (None, Some(rest)) => (key(rest), false),
        (None, None) => return true,
    };
    if attribute && MARKUP_ATTRIBUTES.contains(&name.as_str()) {
        return false;
    }
    let base = ["_url", "url", "_link", "link", "_uri", "uri"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    !METADATA_KEYS.contains(&base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dependencies::test_inputs::*;

    #[test]
    fn a_message_among_other_commands_is_a_message() {
        let deps = analyze_texts(&[(
            "scripts/check.sh",
            "#!/bin/bash\ncommand -v brew >/dev/null || { echo \"Install Homebrew first: see https://brew.sh\" >&2; exit 1; }\ncommand -v jq >/dev/null 2>&1 || echo \"jq: https://jqlang.github.io/jq/ (or brew install jq)\"\n[ -n \"$TOKEN\" ] || { printf '%s\\n' 'Create one at https://tokens.vendor.io' >&2; exit 2; }\n",
        )]);
        assert_eq!(deps.count(), 0, "{:?}", deps.counted());
        // A message that flows into what runs is no message.
        let deps = analyze_texts(&[(
            "scripts/get.sh",
            "echo https://get.vendor.io/i.sh | sh\ncurl -fsSLo x \"$(echo https://dl.vendor.io/x)\"\nbash -c \"echo https://run.vendor.io\"\necho https://cfg.vendor.io > /tmp/u; curl -K /tmp/u\n",
        )]);
        assert_eq!(
            deps.endpoints,
            vec![
                ev("cfg.vendor.io", "scripts/get.sh", 4),
                ev("dl.vendor.io", "scripts/get.sh", 2),
                ev("get.vendor.io", "scripts/get.sh", 1),
                ev("run.vendor.io", "scripts/get.sh", 3),
            ]
        );
    }

    #[test]
    fn docstrings_templates_messages_and_links_are_not_calls() {
        let deps = analyze_texts(&[
            (
                "scripts/report.py",
                "def render(data):\n    '''Render the report.\n\n    Fonts come from https://fonts.googleapis.com.\n    '''\n    html = \"\"\"<html><head>\n<link href=\"https://fonts.googleapis.com/css2?family=Inter\" rel=\"stylesheet\">\n<script src=\"https://cdn.jsdelivr.net/npm/chart.js\"></script>\n</head>\"\"\"\n    print(f\"Open https://dashboard.vendor.io to see {data}\")\n    style = '@import url(\"https://fonts.googleapis.com/css\");'\n    parser.add_argument('--base', help='API base, e.g. https://api.vendor.io')\n    md = '[docs](https://docs.vendor.io)'\n    a = '<a href=\"https://github.com/o/r\">source</a>'\n    return html\n",
            ),
            (
                "assets/Widget.jsx",
                "export const W = () => <a href={\"https://github.com/o/r\"}>repo</a>;\nconsole.log('see https://docs.vendor.io');\n",
            ),
            (
                "config/plugin.json",
                "{\n  \"homepage\": \"https://github.com/o/r\",\n  \"repository\": \"https://github.com/o/r\",\n  \"docs_url\": \"https://docs.vendor.io\",\n  \"icon\": \"https://cdn.vendor.io/i.png\"\n}\n",
            ),
            (
                "assets/template.html",
                "<link href=\"https://fonts.googleapis.com/css\">\n",
            ),
        ]);
        assert_eq!(deps.endpoints, vec![], "{:?}", deps.counted());
        assert_eq!(deps.count(), 0);
        // The same kinds of file reach out when they call.
        let deps = analyze_texts(&[
            (
                "scripts/report.py",
                "'''Report.'''\nimport requests\nprint(requests.get('https://api.vendor.io/v1').json())\n",
            ),
            (
                "config/mcp.json",
                "{\"url\": \"https://mcp.vendor.io/mcp\"}\n",
            ),
        ]);
        assert_eq!(
            deps.counted(),
            [
                "api.vendor.io (scripts/report.py:3)",
                "mcp.vendor.io (config/mcp.json:1)",
            ]
        );
    }

    #[test]
    fn code_after_a_string_that_spans_lines_is_read_again() {
        let deps = analyze_texts(&[(
            "scripts/page.py",
            "PAGE = \"\"\"<html>\nhttps://cdn.vendor.io/x.js\n</html>\"\"\"\nAPI = 'https://api.vendor.io'\ndef f():\n    r'''https://doc.vendor.io'''\n    return 'https://hooks.vendor.io'\n",
        )]);
        assert_eq!(
            deps.counted(),
            [
                "api.vendor.io (scripts/page.py:4)",
                "hooks.vendor.io (scripts/page.py:7)",
            ]
        );
        // Markup and metadata are read the same on any text.
        assert!(!counts_in_context("é «<a href=\""));
        assert!(!counts_in_context("  \"documentationUrl\": \""));
        assert!(counts_in_context("é = requests.get(\""));
        assert!(counts_in_context("\"url\": \""));
    }
}
