//! The URLs on a line of code and the hosts they name (`https://`, `wss://`, `ssh://`,
//! `postgres://`, …), but XML namespaces and schemas (`xmlns`, `"$schema"`, `www.w3.org`) and a
//! URL that is a shell parameter's default (`${URL:-http://localhost}`: the variable is the
//! address). A template label keeps the literal domain after it
//! (`https://{bucket}.s3.amazonaws.com` → `s3.amazonaws.com`); an authority that is a template
//! (`<host>`, `{host}`, `${HOST}`, `%s`, `YOUR_HOST`, `'https://' + host`) leads somewhere not
//! named, so the tool counts.

use super::context::Context;
use super::hosts::{Target, classify, is_host_name, is_placeholder_label};

/// How many bytes before a URL are read for its context.
pub(super) const CONTEXT: usize = 256;

/// URL schemes whose authority is a network host.
const SCHEMES: &[&str] = &[
    "http",
    "https",
    "ws",
    "wss",
    "ftp",
    "ftps",
    "sftp",
    "ssh",
    "git",
    "rsync",
    "telnet",
    "ldap",
    "ldaps",
    "smtp",
    "smtps",
    "imap",
    "imaps",
    "amqp",
    "amqps",
    "mqtt",
    "mqtts",
    "redis",
    "rediss",
    "mongodb",
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "tcp",
    "udp",
    "grpc",
    "grpcs",
    "nats",
];

/// Hosts that name XML namespaces and schemas: identifiers, not places a script goes.
const NAMESPACE_HOSTS: &[&str] = &[
    "w3.org",
    "json-schema.org",
    "schemas.openxmlformats.org",
    "schemas.microsoft.com",
    "schemas.xmlsoap.org",
    "schemas.android.com",
    "purl.org",
    "ns.adobe.com",
    "xmlns.com",
];

static SCHEME_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("://"));

/// A URL on a line: where its scheme starts, and where it leads.
#[derive(Debug)]
pub(super) struct Url {
    pub(super) start: usize,
    pub(super) target: Target,
}

/// The URLs on a line, but XML namespace and schema identifiers.
pub(super) fn urls(text: &str, ctx: Context) -> Vec<Url> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = SCHEME_END.find(&bytes[from..]) {
        let at = from + at;
        from = at + 3;
        // Scheme characters are ASCII: the byte after the last other character starts it.
        let start = bytes[..at]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
            .map_or(0, |i| i + 1);
        let scheme = text[start..at].to_ascii_lowercase();
        let known = scheme.split('+').any(|part| SCHEMES.contains(&part));
        if !known || is_namespace_attribute(&text[..start]) {
            continue;
        }
        let authority = authority(&text[at + 3..]);
        let target = match authority_host(authority) {
            Some(host) if is_namespace(&host) => continue,
            // `${SYNC_URL:-http://localhost:8000}`: a default, the address is the variable's.
            _ if in_parameter_default(&text[..start]) => Target::Unknown,
            Some(host) => classify(&host, ctx),
            None => unnamed(authority, ctx),
        };
        found.push(Url { start, target });
    }
    found
}

/// Whether a URL after `before` is the default of a shell parameter expansion still open
/// (`${URL:-`, `${URL-`, `${URL:=`).
fn in_parameter_default(before: &str) -> bool {
    // An expansion is a word: the bytes before the URL are bounded, so a minified line of many
    // URLs costs linear time.
    let mut from = before.len().saturating_sub(CONTEXT);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let before = &before[from..];
    before.rfind("${").is_some_and(|open| {
        let inside = &before[open..];
        !inside.contains('}') && inside.contains(['-', '=', '+', '?'])
    })
}

/// The external hosts of the URLs on a line of code that runs, wherever they are on it.
pub fn url_hosts(text: &str) -> Vec<String> {
    urls(text, Context::Code)
        .into_iter()
        .filter_map(|u| match u.target {
            Target::External(host) => Some(host),
            _ => None,
        })
        .collect()
}

fn is_namespace_attribute(before: &str) -> bool {
    let before = before.trim_end_matches(['"', '\'', '=', ' ', ':']);
    let last = before
        .rsplit(|c: char| c.is_whitespace() || c == '<' || c == '"' || c == '\'' || c == '{')
        .next()
        .unwrap_or("");
    last == "xmlns" || last.starts_with("xmlns:") || last == "$schema"
}

pub(super) fn is_namespace(host: &str) -> bool {
    NAMESPACE_HOSTS.iter().any(|d| is_under(host, d))
}

/// Whether `host` is `domain` or one of its subdomains.
pub(super) fn is_under(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The authority of a URL (`user:pw@Host.io:443` of `user:pw@Host.io:443/path…`).
pub(super) fn authority(rest: &str) -> &str {
    // `<` opens a placeholder at the start of a label (`<tenant>.atlassian.net`); elsewhere it
    // ends the address (`<url>https://x.io</url>`), as does a `>` that closes nothing.
    let mut angle = false;
    let mut previous = None;
    for (at, c) in rest.char_indices() {
        let stop = match c {
            '<' if matches!(previous, None | Some('.' | '@')) => {
                angle = true;
                false
            }
            '>' if angle => {
                angle = false;
                false
            }
            '<' | '>' => true,
            c => {
                c.is_whitespace()
                    // `»`, `”`, `’`: Unicode punctuation around an address in text.
                    || (!c.is_ascii() && !c.is_alphanumeric())
                    || matches!(
                        c,
                        '/' | '?'
                            | '#'
                            | '\\'
                            | '"'
                            | '\''
                            | '`'
                            | '('
                            | ')'
                            | '|'
                            | ','
                            | ';'
                            | '^'
                    )
            }
        };
        if stop {
            return &rest[..at];
        }
        previous = Some(c);
    }
    rest
}

/// The host of an authority (`user:pw@Host.io:443` → `host.io`), lowercase; `None` when it is
/// no host name at all or wholly built from a variable (`${HOST}`). A host with a template part
/// keeps its literal domain: `{bucket}.s3.amazonaws.com` → `s3.amazonaws.com`,
/// `<tenant>.atlassian.net` → `atlassian.net`.
fn authority_host(authority: &str) -> Option<String> {
    let host_port = host_port(authority);
    if let Some(inner) = host_port.strip_prefix('[') {
        let close = inner.find(']')?;
        return Some(inner[..close].to_ascii_lowercase());
    }
    // After the last template part: `${…}`, `{…}`, `<…>`, `%s`, `*`.
    let literal = match host_port.rfind(['$', '{', '}', '<', '>', '%', '*']) {
        Some(at) => {
            let after = &host_port[at + 1..];
            let after = if host_port[at..].starts_with('%') {
                after.get(1..).unwrap_or("")
            } else {
                after
            };
            after.strip_prefix('.')?
        }
        None => host_port,
    };
    let host = match literal.split_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return None,
        None => literal,
    };
    // `YOUR_STORE.myshopify.com`: a label written as a variable name is a template too.
    let host = match host.rsplit_once('.').and_then(|_| {
        let labels: Vec<&str> = host.split('.').collect();
        labels
            .iter()
            .rposition(|l| is_template_label(l))
            .map(|at| labels[at + 1..].join("."))
    }) {
        Some(rest) => rest,
        None if is_template_label(host) => return None,
        None => host.to_owned(),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    is_host_name(&host).then_some(host)
}

/// A label that is a variable's name, not a host's: `YOUR_HOST`, `Api_Domain`, `HOSTNAME`.
pub(super) fn is_template_label(label: &str) -> bool {
    let upper = label.bytes().any(|b| b.is_ascii_uppercase());
    let lower = label.to_ascii_lowercase();
    upper
        && (label.contains('_')
            || (!label.bytes().any(|b| b.is_ascii_lowercase())
                && (is_placeholder_label(&lower) || lower.starts_with("my"))))
}

fn host_port(authority: &str) -> &str {
    authority.rsplit('@').next().unwrap_or(authority)
}

/// Where an authority without a host name leads: somewhere not named when it is a template or
/// empty (`${HOST}`, `{host}`, `%s`, `<host>`, `YOUR_HOST`, `'https://' + host`), nowhere
/// external when it is one plain lowercase label (a Compose service, `db:5432`, `localhost`).
fn unnamed(authority: &str, ctx: Context) -> Target {
    let host = host_port(authority);
    let name = host.split(':').next().unwrap_or(host);
    let lowercase_label = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    let placeholder =
        name.contains("example") || (ctx == Context::Example && is_placeholder_label(name));
    if lowercase_label && !placeholder {
        Target::NotExternal
    } else {
        Target::Unknown
    }
}

#[cfg(test)]
mod tests {

    use crate::analysis::dependencies::test_inputs::*;

    #[test]
    fn a_local_default_of_a_shell_parameter_is_not_the_address() {
        let deps = analyze_texts(&[(
            "scripts/sync.sh",
            "env | curl -s --data-binary @- \"${SYNC_URL:-http://localhost:8000/sync}\"\n",
        )]);
        assert_eq!(
            deps.counted(),
            ["endpoint not named: curl (scripts/sync.sh:1)"]
        );
    }

    #[test]
    fn a_minified_line_of_many_urls_costs_linear_time() {
        let line = "x(\"https://cdn.vendor.io/a\");".repeat(40_000);
        let started = std::time::Instant::now();
        let deps = analyze_texts(&[("bundle.min.js", &line)]);
        assert_eq!(
            deps.endpoints,
            vec![ev("cdn.vendor.io", "bundle.min.js", 1)]
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
