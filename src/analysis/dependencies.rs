//! External dependencies of a skill: the network endpoints and tools its code reaches, the package
//! manifests it ships, and the `dependencies` it declares. Each integration point counts once.
//!
//! The rules, over the code lines of [`super::scan`] (scripts, configuration, `SKILL.md` fenced
//! blocks; never prose):
//! - **endpoints**: hosts of URLs (`https://`, `wss://`, `ssh://`, `postgres://`, …) and of
//!   `ssh`/`scp`/`rsync`/`nc`/`telnet` arguments (`deploy@h.io`, `h.io:/srv`). Not endpoints:
//!   loopback and unspecified addresses (`localhost`, `127.0.0.0/8`, `::1`, `0.0.0.0`), the
//!   names reserved by RFC 2606/6761 (`example.com`/`.net`/`.org` and their subdomains, `*.example`,
//!   `*.test`, `*.invalid`, `*.localhost`), the documentation addresses of RFC 5737/3849
//!   (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`), single-label
//!   names (a Compose service, `http://db:5432`), hosts wholly built from variables
//!   (`https://${HOST}`; `https://{bucket}.s3.amazonaws.com` keeps `s3.amazonaws.com`), XML
//!   namespace and schema identifiers (`www.w3.org`, `schemas.openxmlformats.org`, `xmlns="…"`,
//!   `"$schema"`), and anything in a manifest or lock file. One entry per host, sorted, each at
//!   its first occurrence.
//! - **tools**: network programs run by the code (`curl`, `wget`, `ssh`, `scp`, `sftp`, `nc`,
//!   `telnet`, `ftp`, `socat`, `gh`, `git clone|fetch|pull|push`, remote `rsync`,
//!   `Invoke-WebRequest`, …, also through `subprocess`/`execSync`/`exec.Command`) and HTTP, socket
//!   and cloud-API client libraries imported by Python, JavaScript/TypeScript, Go, Ruby and Rust
//!   (`requests`, `httpx`, `urllib.request`, `axios`, `fetch(`, `net/http`, `boto3`, `stripe`, …).
//!   Generic socket and server modules (Python and Ruby `socket`, Node `http`/`net`/`dgram`, Go
//!   `net`) are not counted: they serve locally as often as they reach out, and an address they
//!   reach is still an endpoint. One entry per name.
//! - **manifests**: `package.json`, `requirements*.txt`/`.in`, `pyproject.toml`, `Pipfile`,
//!   `setup.py`, `go.mod`, `Cargo.toml`, `Gemfile`, `composer.json` that declare runtime packages.
//!   Development and test packages (`devDependencies`, `requirements-dev.txt`, manifests under a
//!   `test`/`tests` directory) are the suite's tooling, not the skill's dependencies; lock files
//!   follow their manifest and do not count again. The commands a `package.json` runs (its
//!   `scripts`, `postinstall` included) are read as shell for endpoints and tools.
//! - **declared**: the frontmatter's `dependencies` (a list, a comma-separated string or a
//!   mapping of names), at the top level or in `metadata`.
//!
//! [`Dependencies::count`] is the number of integration points: distinct endpoint hosts, plus
//! manifests, plus declared names not already among the hosts, tools and packages, plus one when
//! tools or libraries reach the network and the code names no endpoint (`curl "$URL"`). Tools are
//! how endpoints are reached, not endpoints of their own: `curl https://api.stripe.com` is one
//! dependency, not two.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::Sources;
use super::scan::{self, CodeLine, Evidence, Lang, base_name, code_lines, for_each_command};
use crate::skill::SkillMeta;

/// What a skill reaches outside itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependencies {
    /// One per host, sorted by host, at its first occurrence.
    pub endpoints: Vec<Evidence>,
    /// Network programs and client libraries, one per name, sorted by name.
    pub tools: Vec<Evidence>,
    /// Package manifests that declare runtime packages, in file order.
    pub manifests: Vec<Manifest>,
    /// The frontmatter's `dependencies`, de-duplicated, in the order written.
    pub declared: Vec<String>,
}

/// A package manifest and the runtime packages it declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub file: String,
    /// Where its runtime packages start.
    pub line: u32,
    /// Empty when the manifest could not be read (it still counts).
    pub packages: Vec<String>,
}

/// How many names a reason shows before `and N more`.
const SHOWN: usize = 5;

impl Dependencies {
    /// The number of integration points (see the module documentation): the length of
    /// [`Dependencies::counted`].
    pub fn count(&self) -> usize {
        self.counted().len()
    }

    /// What counts, one entry each: every host, every manifest, every declared name not found
    /// otherwise, and the tools together when they reach no named host and nothing else
    /// accounts for them (`curl, wget (endpoint not named)`).
    pub fn counted(&self) -> Vec<String> {
        let mut counted: Vec<String> = self.endpoints.iter().map(|e| e.what.clone()).collect();
        counted.extend(self.manifests.iter().map(|m| {
            if m.packages.is_empty() {
                format!("{} (packages not read)", m.file)
            } else {
                format!("{} ({})", m.file, scan::list(&m.packages, 3))
            }
        }));
        counted.extend(self.declared_not_found());
        let unaccounted = self.unaccounted_tools();
        if self.endpoints.is_empty() && !unaccounted.is_empty() {
            let names: Vec<String> = unaccounted.iter().map(|t| t.what.clone()).collect();
            counted.push(format!(
                "{} (endpoint not named)",
                scan::list(&names, SHOWN)
            ));
        }
        counted
    }

    /// In a reviewer's words: `2 external endpoints: api.stripe.com, hooks.slack.com; tools: curl`.
    /// `None` when there is nothing.
    pub fn reason(&self) -> Option<String> {
        if self.count() == 0 && self.tools.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.endpoints.is_empty() {
            let hosts: Vec<String> = self.endpoints.iter().map(|e| e.what.clone()).collect();
            parts.push(format!(
                "{}: {}",
                scan::count_of(hosts.len(), "external endpoint", "external endpoints"),
                scan::list(&hosts, SHOWN)
            ));
        }
        if !self.tools.is_empty() {
            let names: Vec<String> = self.tools.iter().map(|e| e.what.clone()).collect();
            let unnamed = if self.endpoints.is_empty() && !self.unaccounted_tools().is_empty() {
                " (endpoint not named)"
            } else {
                ""
            };
            parts.push(format!("tools: {}{unnamed}", scan::list(&names, SHOWN)));
        }
        if !self.manifests.is_empty() {
            let manifests: Vec<String> = self
                .manifests
                .iter()
                .map(|m| {
                    if m.packages.is_empty() {
                        format!("{} (packages not read)", m.file)
                    } else {
                        format!("{} ({})", m.file, scan::list(&m.packages, 3))
                    }
                })
                .collect();
            parts.push(format!("manifests: {}", scan::list(&manifests, SHOWN)));
        }
        let declared = self.declared_not_found();
        if !declared.is_empty() {
            parts.push(format!("declared: {}", scan::list(&declared, SHOWN)));
        }
        Some(parts.join("; "))
    }

    /// Every name already counted (hosts, packages), normalised. Not the tools: a declared tool
    /// is what accounts for it (see [`Dependencies::unaccounted_tools`]), so it counts as declared.
    fn known_names(&self) -> HashSet<String> {
        self.endpoints
            .iter()
            .map(|e| normalise(&e.what))
            .chain(
                self.manifests
                    .iter()
                    .flat_map(|m| m.packages.iter().map(|p| normalise(p))),
            )
            .collect()
    }

    fn declared_not_found(&self) -> Vec<String> {
        let known = self.known_names();
        self.declared
            .iter()
            .filter(|d| !known.contains(&normalise(d)))
            .cloned()
            .collect()
    }

    /// Tools that no manifest package or declared dependency accounts for.
    fn unaccounted_tools(&self) -> Vec<&Evidence> {
        let accounted: HashSet<String> = self
            .manifests
            .iter()
            .flat_map(|m| m.packages.iter())
            .chain(&self.declared)
            .map(|p| normalise(p))
            .collect();
        self.tools
            .iter()
            .filter(|t| !accounted.contains(&normalise(&t.what)))
            .collect()
    }
}

/// Package names compare without case, and `-`, `_`, `.` alike (PEP 503).
fn normalise(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace(['_', '.'], "-")
}

/// Measure a skill's external dependencies.
pub fn analyze(sources: &Sources, meta: &SkillMeta) -> Dependencies {
    let mut endpoints: Vec<Evidence> = Vec::new();
    let mut hosts_seen = HashSet::new();
    let mut tools: Vec<Evidence> = Vec::new();
    let mut tools_seen = HashSet::new();
    let mut manifests = Vec::new();
    for source in &sources.files {
        // A manifest's packages count as the manifest; its own text names registries, not
        // endpoints. What it runs (a `package.json` script) is code like any other.
        let is_manifest = match manifest(&source.path, &source.text) {
            Some(manifest) => {
                manifests.extend(manifest);
                true
            }
            None => false,
        };
        if is_lock_file(&source.path) {
            continue;
        }
        for line in code_lines(source).filter(|l| !is_manifest || l.lang == Lang::Shell) {
            let mut add_host = |host: String| {
                if !hosts_seen.contains(&host) {
                    hosts_seen.insert(host.clone());
                    endpoints.push(Evidence::new(host, &source.path, line.number));
                }
            };
            for host in url_hosts(line.text) {
                add_host(host);
            }
            let mut add_tool = |name: &str| {
                if !tools_seen.contains(name) && tools_seen.insert(name.to_owned()) {
                    tools.push(Evidence::new(name, &source.path, line.number));
                }
            };
            for_each_command(&line, |command| {
                if let Some(tool) = network_tool(command) {
                    add_tool(tool);
                    for host in command_hosts(command) {
                        add_host(host);
                    }
                }
            });
            for library in libraries(&line) {
                add_tool(library);
            }
        }
    }
    endpoints.sort_by(|a, b| a.what.cmp(&b.what));
    tools.sort_by(|a, b| a.what.cmp(&b.what));
    manifests.sort_by(|a, b| a.file.cmp(&b.file));
    Dependencies {
        endpoints,
        tools,
        manifests,
        declared: declared(meta),
    }
}

/// The frontmatter's `dependencies`, top level first, then `metadata`.
fn declared(meta: &SkillMeta) -> Vec<String> {
    let mut names = Vec::new();
    match meta.extra.get("dependencies") {
        Some(serde_json::Value::Array(items)) => {
            for item in items {
                match item {
                    serde_json::Value::String(s) => names.push(s.clone()),
                    serde_json::Value::Number(n) => names.push(n.to_string()),
                    serde_json::Value::Object(map) => names.extend(map.keys().cloned()),
                    _ => {}
                }
            }
        }
        Some(serde_json::Value::Object(map)) => names.extend(map.keys().cloned()),
        Some(serde_json::Value::String(s)) => names.extend(split_list(s)),
        _ => {}
    }
    if let Some(s) = meta.metadata.get("dependencies") {
        names.extend(split_list(s));
    }
    let mut seen = HashSet::new();
    names
        .into_iter()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty() && seen.insert(normalise(n)))
        .collect()
}

/// `a, b c` → `a`, `b`, `c`: the way `SkillMeta` reads lists written as one string.
fn split_list(s: &str) -> Vec<String> {
    s.split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Endpoints

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

/// The external hosts of the URLs on a line.
pub fn url_hosts(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut hosts = Vec::new();
    let mut from = 0;
    while let Some(found) = SCHEME_END.find(&bytes[from..]) {
        let at = from + found;
        from = at + 3;
        // Scheme characters are ASCII: the byte after the last other character starts it.
        let start = text.as_bytes()[..at]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
            .map_or(0, |i| i + 1);
        let scheme = text[start..at].to_ascii_lowercase();
        let known = scheme
            .split('+')
            .any(|part| SCHEMES.contains(&part) || part == "mongodb");
        if !known || is_namespace_attribute(&text[..start]) {
            continue;
        }
        if let Some(host) = authority_host(&text[at + 3..])
            && is_external(&host)
        {
            hosts.push(host);
        }
    }
    hosts
}

/// Whether the URL is the value of an `xmlns` attribute or a `$schema` key.
fn is_namespace_attribute(before: &str) -> bool {
    let before = before.trim_end_matches(['"', '\'', '=', ':', ' ']);
    let last = before
        .rsplit(|c: char| c.is_whitespace() || c == '<' || c == '"' || c == '\'' || c == '{')
        .next()
        .unwrap_or("");
    last == "xmlns" || last.starts_with("xmlns:") || last == "$schema"
}

/// The host of an authority (`user:pw@Host.io:443/path…` → `host.io`), lowercase; `None` when it
/// is no host at all or wholly built from a variable (`${HOST}`). A host with a template part
/// keeps its literal domain: `{bucket}.s3.amazonaws.com` → `s3.amazonaws.com`,
/// `<tenant>.atlassian.net` → `atlassian.net`.
fn authority_host(rest: &str) -> Option<String> {
    // `<` opens a placeholder at the start of a label (`<tenant>.atlassian.net`); elsewhere it
    // ends the address (`<url>https://x.io</url>`), as does a `>` that closes nothing.
    let mut angle = false;
    let mut previous = None;
    let mut end = rest.len();
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
            end = at;
            break;
        }
        previous = Some(c);
    }
    let authority = &rest[..end];
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
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
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    is_host_name(&host).then_some(host)
}

/// An IPv4 address, or a name of two or more labels ending in an alphabetic top-level label.
fn is_host_name(host: &str) -> bool {
    if is_ipv4(host) {
        return true;
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 {
        return false;
    }
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let tld = labels[labels.len() - 1];
    labels.iter().all(label_ok)
        && tld.len() >= 2
        && (tld.bytes().all(|b| b.is_ascii_alphabetic()) || tld.starts_with("xn--"))
}

fn is_ipv4(host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.parse::<u8>().is_ok())
}

/// Not loopback, unspecified, reserved for documentation or testing, or a namespace identifier.
fn is_external(host: &str) -> bool {
    let under = |domain: &str| {
        host == domain
            || host
                .strip_suffix(domain)
                .is_some_and(|rest| rest.ends_with('.'))
    };
    let documentation = host.starts_with("192.0.2.")
        || host.starts_with("198.51.100.")
        || host.starts_with("203.0.113.")
        || host.starts_with("2001:db8:");
    let loopback = host == "localhost"
        || host == "::1"
        || host == "::"
        || host == "0.0.0.0"
        || (is_ipv4(host) && host.starts_with("127."))
        || host.ends_with(".localhost");
    let reserved = ["example.com", "example.net", "example.org"]
        .iter()
        .any(|d| under(d))
        || [".example", ".test", ".invalid"]
            .iter()
            .any(|tld| host.ends_with(tld));
    let ipv6 = host.contains(':');
    !(loopback || reserved || documentation || NAMESPACE_HOSTS.iter().any(|d| under(d)))
        && (ipv6 || is_host_name(host))
}

/// Hosts named as arguments of `ssh`, `scp`, `rsync`, `nc`, `git clone`, …: `user@host`,
/// `host:path`, or the first operand of the programs that take a host there.
fn command_hosts(command: &scan::Command<'_>) -> Vec<String> {
    let takes_host_first = matches!(
        command.name,
        "ssh" | "ssh-keyscan" | "mosh" | "nc" | "ncat" | "netcat" | "telnet" | "ftp" | "sftp"
    );
    let mut hosts = Vec::new();
    let mut skip_next = false;
    let mut first_operand = true;
    for arg in &command.args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let arg = scan::unquote(arg.trim_end_matches(['"', '\'']));
        if arg.starts_with('-') {
            skip_next = option_has_value(command.name, arg);
            continue;
        }
        if arg.contains("://") {
            first_operand = false;
            continue;
        }
        let candidate = match arg.rsplit_once('@') {
            Some((_, rest)) => Some(rest.split([':', '/']).next().unwrap_or(rest)),
            None if arg.contains(':') && command.name != "git" => arg.split(':').next(),
            None if takes_host_first && first_operand => Some(arg),
            None => None,
        };
        first_operand = false;
        if let Some(host) = candidate {
            let host = host.trim_end_matches('.').to_ascii_lowercase();
            if is_host_name(&host) && is_external(&host) {
                hosts.push(host);
            }
        }
    }
    hosts
}

fn option_has_value(program: &str, option: &str) -> bool {
    match program {
        "ssh" | "scp" | "sftp" | "mosh" => matches!(
            option,
            "-p" | "-P"
                | "-i"
                | "-o"
                | "-l"
                | "-J"
                | "-F"
                | "-L"
                | "-R"
                | "-D"
                | "-b"
                | "-c"
                | "-E"
                | "-e"
                | "-m"
                | "-O"
                | "-Q"
                | "-S"
                | "-W"
                | "-w"
        ),
        "nc" | "ncat" | "netcat" => {
            matches!(option, "-w" | "-p" | "-s" | "-i" | "-q" | "-x" | "-X")
        }
        "telnet" => matches!(option, "-l" | "-e" | "-b"),
        "rsync" => matches!(option, "-e" | "--rsh"),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Tools and libraries

/// Programs that reach the network whatever their arguments.
const NETWORK_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "ssh",
    "ssh-keyscan",
    "scp",
    "sftp",
    "mosh",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "ftp",
    "socat",
    "aria2c",
    "gh",
    "Invoke-WebRequest",
    "Invoke-RestMethod",
    "iwr",
    "irm",
];

/// The tool name when `command` reaches the network.
fn network_tool<'a>(command: &scan::Command<'a>) -> Option<&'a str> {
    if NETWORK_PROGRAMS.contains(&command.name) {
        return Some(command.name);
    }
    match command.name {
        "git" => command
            .args
            .iter()
            .find(|a| !a.starts_with('-'))
            .filter(|sub| matches!(**sub, "clone" | "fetch" | "pull" | "push" | "ls-remote"))
            .map(|_| command.name),
        "rsync" => command
            .args
            .iter()
            .any(|a| {
                !a.starts_with('-')
                    && (a.contains("::") || a.contains("://") || a.contains('@') || {
                        a.split_once(':')
                            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
                    })
            })
            .then_some(command.name),
        _ => None,
    }
}

/// Python modules (and their submodules) that reach the network.
const PYTHON_LIBRARIES: &[&str] = &[
    "requests",
    "httpx",
    "aiohttp",
    "urllib3",
    "urllib.request",
    "http.client",
    "xmlrpc.client",
    "pycurl",
    "ftplib",
    "smtplib",
    "telnetlib",
    "paramiko",
    "asyncssh",
    "fabric",
    "websocket",
    "websockets",
    "grpc",
    "boto3",
    "botocore",
    "google.cloud",
    "googleapiclient",
    "azure",
    "stripe",
    "openai",
    "anthropic",
    "slack_sdk",
    "slack_bolt",
    "twilio",
    "sendgrid",
    "github",
    "gitlab",
    "jira",
];

/// JavaScript/TypeScript modules that reach the network; a trailing `/` matches a scope.
const JS_LIBRARIES: &[&str] = &[
    "axios",
    "node-fetch",
    "cross-fetch",
    "got",
    "superagent",
    "undici",
    "ky",
    "request",
    "needle",
    "ws",
    "socket.io-client",
    "https",
    "http2",
    "tls",
    "ssh2",
    "basic-ftp",
    "nodemailer",
    "aws-sdk",
    "@aws-sdk/",
    "@google-cloud/",
    "googleapis",
    "stripe",
    "openai",
    "@anthropic-ai/sdk",
    "@slack/",
    "octokit",
    "@octokit/",
    "twilio",
    "@sendgrid/",
];

/// Go packages that reach the network; a trailing `/` matches a module's packages.
const GO_LIBRARIES: &[&str] = &[
    "net/http",
    "net/smtp",
    "net/rpc",
    "golang.org/x/crypto/ssh",
    "google.golang.org/grpc",
    "github.com/aws/aws-sdk-go/",
    "github.com/aws/aws-sdk-go-v2/",
    "cloud.google.com/go/",
    "github.com/stripe/stripe-go/",
    "github.com/google/go-github/",
    "github.com/slack-go/slack",
];

const RUBY_LIBRARIES: &[&str] = &[
    "net/http",
    "net/https",
    "net/ssh",
    "net/ftp",
    "open-uri",
    "faraday",
    "httparty",
    "rest-client",
    "excon",
    "aws-sdk",
    "stripe",
];

const RUST_LIBRARIES: &[&str] = &["reqwest", "ureq", "hyper", "surf", "isahc", "tungstenite"];

/// The network libraries a code line imports (or, for `fetch(`, calls).
fn libraries(line: &CodeLine<'_>) -> Vec<&'static str> {
    let table = match line.lang {
        Lang::Python => PYTHON_LIBRARIES,
        Lang::JavaScript => JS_LIBRARIES,
        Lang::Go => GO_LIBRARIES,
        Lang::Ruby => RUBY_LIBRARIES,
        Lang::Rust => RUST_LIBRARIES,
        _ => return Vec::new(),
    };
    let mut found: Vec<&'static str> = scan::imports(line)
        .iter()
        .filter_map(|module| scan::library_of(module, table))
        .collect();
    if line.lang == Lang::JavaScript {
        for call in ["fetch(", "WebSocket(", "XMLHttpRequest"] {
            if scan::calls(line.text, call) {
                found.push(call.trim_end_matches('('));
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// Manifests

/// Lock files: they follow a manifest and do not count again.
const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "pipfile.lock",
    "uv.lock",
    "pdm.lock",
    "go.sum",
    "cargo.lock",
    "gemfile.lock",
    "composer.lock",
];

fn is_lock_file(path: &str) -> bool {
    LOCK_FILES.contains(&base_name(path).to_ascii_lowercase().as_str())
}

/// Whether the path lies under a test directory: its manifests are the suite's tooling.
fn under_tests(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|dir| matches!(dir, "test" | "tests" | "__tests__" | "spec" | "testdata"))
}

/// `None` when `path` is no manifest; `Some(None)` for a manifest without runtime packages (or a
/// test one); `Some(Some(m))` for one that declares runtime packages.
fn manifest(path: &str, text: &str) -> Option<Option<Manifest>> {
    let name = base_name(path).to_ascii_lowercase();
    let read: fn(&str) -> Read = match name.as_str() {
        "package.json" => package_json,
        "pyproject.toml" => pyproject,
        "pipfile" => pipfile,
        "setup.py" => setup_py,
        "go.mod" => go_mod,
        "cargo.toml" => cargo_toml,
        "gemfile" => gemfile,
        "composer.json" => composer_json,
        _ if is_requirements(&name) => requirements,
        _ => return None,
    };
    if under_tests(path) || is_dev_requirements(&name) {
        return Some(None);
    }
    let read = read(text);
    if read.packages.is_empty() && !read.unreadable {
        return Some(None);
    }
    let line = read.line.unwrap_or(1);
    Some(Some(Manifest {
        file: path.to_owned(),
        line,
        packages: read.packages,
    }))
}

fn is_requirements(name: &str) -> bool {
    name.contains("requirements") && (name.ends_with(".txt") || name.ends_with(".in"))
}

fn is_dev_requirements(name: &str) -> bool {
    is_requirements(name)
        && ["dev", "test", "lint", "doc", "ci"]
            .iter()
            .any(|w| name.split(['-', '_', '.']).any(|part| part == *w))
}

/// What a manifest reader found: its runtime packages, the line where they start, and whether
/// the file could not be read.
#[derive(Debug, Default)]
struct Read {
    packages: Vec<String>,
    line: Option<u32>,
    unreadable: bool,
}

impl Read {
    fn unreadable() -> Self {
        Self {
            unreadable: true,
            ..Self::default()
        }
    }
}

/// The 1-based number of the first line that holds `marker` (a quoted JSON key) or, trimmed,
/// starts with it.
fn line_of(text: &str, marker: &str) -> Option<u32> {
    let quoted = marker.starts_with('"');
    text.lines()
        .position(|l| {
            if quoted {
                l.contains(marker)
            } else {
                l.trim_start().starts_with(marker)
            }
        })
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn json_keys(value: Option<&serde_json::Value>) -> Vec<String> {
    value
        .and_then(serde_json::Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn package_json(text: &str) -> Read {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Read::unreadable();
    };
    let mut packages = Vec::new();
    let mut line = None;
    for (key, quoted) in [
        ("dependencies", "\"dependencies\""),
        ("peerDependencies", "\"peerDependencies\""),
        ("optionalDependencies", "\"optionalDependencies\""),
    ] {
        let keys = json_keys(json.get(key));
        if !keys.is_empty() && line.is_none() {
            line = line_of(text, quoted);
        }
        packages.extend(keys);
    }
    Read {
        packages,
        line,
        unreadable: false,
    }
}

fn composer_json(text: &str) -> Read {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Read::unreadable();
    };
    let packages: Vec<String> = json_keys(json.get("require"))
        .into_iter()
        .filter(|p| p != "php" && !p.starts_with("ext-") && !p.starts_with("lib-"))
        .collect();
    Read {
        packages,
        line: line_of(text, "\"require\""),
        unreadable: false,
    }
}

/// The name of a PEP 508 requirement: `requests[socks]>=2; python_version>"3"` → `requests`.
fn pep508_name(spec: &str) -> Option<String> {
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(spec.len());
    (end > 0).then(|| spec[..end].to_owned())
}

fn requirements(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut line_number = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.split(" #").next().unwrap_or(line).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let spec = match line
            .strip_prefix("-e ")
            .or_else(|| line.strip_prefix("--editable "))
        {
            Some(target) => target.trim(),
            // `-r other.txt`, `--index-url …`: options, not packages.
            None if line.starts_with('-') => continue,
            None => line,
        };
        let name = match spec.split_once("#egg=") {
            Some((_, egg)) => pep508_name(egg),
            None if spec.contains("://") || spec.starts_with('.') || spec.starts_with('/') => {
                Some(spec.to_owned())
            }
            None => pep508_name(spec),
        };
        if let Some(name) = name {
            line_number = line_number.or(u32::try_from(i + 1).ok());
            packages.push(name);
        }
    }
    Read {
        packages,
        line: line_number,
        unreadable: false,
    }
}

fn toml_table(text: &str) -> Option<toml::Table> {
    text.parse::<toml::Table>().ok()
}

fn table_keys(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

fn pyproject(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    let project: Vec<String> = doc
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(toml::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(toml::Value::as_str)
                .filter_map(pep508_name)
                .collect()
        })
        .unwrap_or_default();
    if !project.is_empty() {
        return Read {
            packages: project,
            line: line_of(text, "dependencies"),
            unreadable: false,
        };
    }
    let poetry: Vec<String> = table_keys(
        doc.get("tool")
            .and_then(|t| t.get("poetry"))
            .and_then(|p| p.get("dependencies")),
    )
    .into_iter()
    .filter(|p| p != "python")
    .collect();
    Read {
        packages: poetry,
        line: line_of(text, "[tool.poetry.dependencies]"),
        unreadable: false,
    }
}

fn pipfile(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    Read {
        packages: table_keys(doc.get("packages")),
        line: line_of(text, "[packages]"),
        unreadable: false,
    }
}

fn cargo_toml(text: &str) -> Read {
    let Some(doc) = toml_table(text) else {
        return Read::unreadable();
    };
    let mut packages = table_keys(doc.get("dependencies"));
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            packages.extend(table_keys(target.get("dependencies")));
        }
    }
    Read {
        packages,
        line: line_of(text, "[dependencies]"),
        unreadable: false,
    }
}

fn setup_py(text: &str) -> Read {
    let Some(at) = text.find("install_requires") else {
        return Read::default();
    };
    let line = line_of(text, "install_requires");
    // `install_requires=[…]` or `"install_requires": […]`.
    let value = text[at + "install_requires".len()..]
        .trim_start_matches(['"', '\''])
        .trim_start()
        .strip_prefix(['=', ':'])
        .map(str::trim_start);
    let list = value
        .and_then(|v| v.strip_prefix('['))
        .and_then(|v| v.find(']').map(|close| &v[..close]));
    let Some(list) = list else {
        // `install_requires=read_requirements()`: packages we cannot see, still a manifest.
        return Read {
            line,
            ..Read::unreadable()
        };
    };
    let packages = list
        .split(',')
        .filter_map(|part| pep508_name(part.trim().trim_matches(['"', '\''])))
        .collect();
    Read {
        packages,
        line,
        unreadable: false,
    }
}

fn go_mod(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let indirect = line.contains("// indirect");
        let line = line.split("//").next().unwrap_or(line).trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if !indirect && let Some(module) = line.split_whitespace().next() {
                packages.push(module.to_owned());
            }
        } else if line.starts_with("require (") || line == "require(" {
            in_block = true;
        } else if let Some(rest) = line.strip_prefix("require ")
            && !indirect
            && let Some(module) = rest.split_whitespace().next()
        {
            packages.push(module.to_owned());
        }
    }
    Read {
        packages,
        line: line_of(text, "require"),
        unreadable: false,
    }
}

fn gemfile(text: &str) -> Read {
    let mut packages = Vec::new();
    let mut dev_group = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(groups) = line.strip_prefix("group ") {
            dev_group = groups
                .trim_end_matches(" do")
                .split(',')
                .all(|g| matches!(g.trim().trim_start_matches(':'), "development" | "test"));
            continue;
        }
        if line == "end" {
            dev_group = false;
            continue;
        }
        if dev_group {
            continue;
        }
        if let Some(rest) = line.strip_prefix("gem ")
            && let Some(q @ ('"' | '\'')) = rest.trim_start().chars().next()
        {
            let rest = &rest.trim_start()[1..];
            if let Some(end) = rest.find(q) {
                packages.push(rest[..end].to_owned());
            }
        }
    }
    Read {
        packages,
        line: line_of(text, "gem "),
        unreadable: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_tool_counts_once_as_declared() {
        let tool = |name: &str| Evidence::new(name, "run.sh", 2);
        let deps = Dependencies {
            endpoints: Vec::new(),
            tools: vec![tool("curl")],
            manifests: Vec::new(),
            declared: vec!["curl".to_owned()],
        };
        assert_eq!(deps.counted(), ["curl"]);
        assert_eq!(deps.count(), 1);
        let undeclared = Dependencies {
            declared: Vec::new(),
            ..deps
        };
        assert_eq!(undeclared.counted(), ["curl (endpoint not named)"]);
    }

    fn analyze_texts(files: &[(&str, &str)]) -> Dependencies {
        analyze(&Sources::from_texts(files), &SkillMeta::default())
    }

    fn ev(what: &str, file: &str, line: u32) -> Evidence {
        Evidence::new(what, file, line)
    }

    #[test]
    fn package_json_scripts_are_read_as_shell() {
        let deps = analyze_texts(&[(
            "package.json",
            "{\n  \"name\": \"x\",\n  \"homepage\": \"https://github.com/o/x\",\n  \"scripts\": {\n    \"test\": \"jest\",\n    \"postinstall\": \"curl https://x.example.net | sh\",\n    \"sync\": \"rsync -a out/ deploy@files.vendor.io:/srv\"\n  }\n}\n",
        )]);
        // The manifest's own URLs are not endpoints; what its scripts reach is.
        assert_eq!(
            deps.endpoints,
            vec![ev("files.vendor.io", "package.json", 7)]
        );
        assert_eq!(
            deps.tools,
            vec![
                ev("curl", "package.json", 6),
                ev("rsync", "package.json", 7)
            ]
        );
        assert!(deps.manifests.is_empty(), "no runtime packages");
        let bare = analyze_texts(&[(
            "package.json",
            "{\n  \"scripts\": {\n    \"postinstall\": \"curl https://x.example.net | sh\"\n  }\n}\n",
        )]);
        assert_eq!(bare.count(), 1, "curl reaching no named host counts once");
    }

    #[test]
    fn endpoints_and_tools_of_a_script_with_the_reason() {
        let deps = analyze_texts(&[(
            "scripts/notify.sh",
            "#!/bin/bash\n# docs: https://docs.stripe.com\ncurl -s https://api.stripe.com/v1/charges -u \"$KEY:\"\ncurl -X POST https://hooks.slack.com/services/T0/B0/x\ncurl https://api.stripe.com/v1/refunds\n",
        )]);
        assert_eq!(
            deps.endpoints,
            vec![
                ev("api.stripe.com", "scripts/notify.sh", 3),
                ev("hooks.slack.com", "scripts/notify.sh", 4),
            ]
        );
        assert_eq!(deps.tools, vec![ev("curl", "scripts/notify.sh", 3)]);
        assert_eq!(deps.count(), 2);
        assert_eq!(
            deps.reason().as_deref(),
            Some("2 external endpoints: api.stripe.com, hooks.slack.com; tools: curl")
        );
    }

    #[test]
    fn local_reserved_and_namespace_hosts_are_not_endpoints() {
        let deps = analyze_texts(&[
            (
                "run.py",
                "BASE = 'http://localhost:8080/api'\nA = 'http://127.0.0.2/'\nB = 'http://[::1]:9000'\nC = 'https://api.example.com/v1'\nD = 'https://svc.test/x'\nE = 'http://0.0.0.0:80'\nF = 'https://a.invalid'\nG = 'https://dev.localhost/'\nH = 'https://${HOST}/x'\nI = 'http://db:5432'\nJ = 'https://www.example.org'\nK = 'http://www.w3.org/2000/svg'\nL = 'https://{host}/v1'\nM = 'https://%s/v1' % h\n",
            ),
            (
                "gen.js",
                "const x = '<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">';\n",
            ),
            ("schema.json", "{\"$schema\": \"http://other.io/schema\"}\n"),
            ("README.md", "Visit https://api.stripe.com for keys.\n"),
            (
                "references/api.md",
                "```bash\ncurl https://api.stripe.com\n```\n",
            ),
            ("notes.txt", "https://api.stripe.com\n"),
        ]);
        assert_eq!(deps.endpoints, vec![]);
        assert_eq!(deps.tools, vec![]);
        assert_eq!(deps.count(), 0);
        assert_eq!(deps.reason(), None);
    }

    #[test]
    fn skill_md_fenced_commands_count_its_prose_does_not() {
        let deps = analyze_texts(&[(
            "SKILL.md",
            "---\nname: x\ndescription: https://front.io\n---\nGet a token at https://github.com/settings/tokens.\n\n```bash\ngh api repos/o/r\nwget -qO- https://raw.githubusercontent.com/o/r/main/x.sh\n```\n",
        )]);
        assert_eq!(
            deps.endpoints,
            vec![ev("raw.githubusercontent.com", "SKILL.md", 9)]
        );
        assert_eq!(
            deps.tools,
            vec![ev("gh", "SKILL.md", 8), ev("wget", "SKILL.md", 9)]
        );
    }

    #[test]
    fn hosts_of_ssh_scp_rsync_and_nc() {
        let deps = analyze_texts(&[(
            "deploy.sh",
            "ssh -i key -p 2222 deploy@prod.acme.io 'sudo systemctl restart app'\nscp build.tgz ops@10.0.0.5:/srv\nrsync -av dist/ backup.acme.io:/data\nnc -w 3 mail.acme.io 25\nrsync -av dist/ out/\ngit clone git@github.com:acme/tools.git\nssh localhost true\n",
        )]);
        let hosts: Vec<(&str, u32)> = deps
            .endpoints
            .iter()
            .map(|e| (e.what.as_str(), e.line))
            .collect();
        assert_eq!(
            hosts,
            vec![
                ("10.0.0.5", 2),
                ("backup.acme.io", 3),
                ("github.com", 6),
                ("mail.acme.io", 4),
                ("prod.acme.io", 1),
            ]
        );
        let tools: Vec<&str> = deps.tools.iter().map(|e| e.what.as_str()).collect();
        assert_eq!(tools, vec!["git", "nc", "rsync", "scp", "ssh"]);
    }

    #[test]
    fn client_libraries_in_each_language() {
        let deps = analyze_texts(&[
            (
                "a.py",
                "import os, requests\nfrom urllib import request as r\nfrom urllib.parse import urlparse\nimport boto3.session\nsubprocess.run([\"curl\", \"-s\", url])\nprint(\"curl failed\")\n",
            ),
            (
                "b.ts",
                "import axios from 'axios';\nconst https = require(\"node:https\");\nimport { S3 } from \"@aws-sdk/client-s3\";\nconst r = await fetch(url);\nthis.fetch(x);\nimport path from 'path';\n",
            ),
            ("c.go", "import (\n\t\"fmt\"\n\t\"net/http\"\n)\n"),
            ("d.rb", "require 'net/http'\nrequire 'json'\n"),
            ("e.rs", "use reqwest::Client;\n"),
        ]);
        let tools: Vec<(&str, &str, u32)> = deps
            .tools
            .iter()
            .map(|e| (e.what.as_str(), e.file.as_str(), e.line))
            .collect();
        assert_eq!(
            tools,
            vec![
                ("@aws-sdk", "b.ts", 3),
                ("axios", "b.ts", 1),
                ("boto3", "a.py", 4),
                ("curl", "a.py", 5),
                ("fetch", "b.ts", 4),
                ("https", "b.ts", 2),
                ("net/http", "c.go", 3),
                ("requests", "a.py", 1),
                ("reqwest", "e.rs", 1),
                ("urllib.request", "a.py", 2),
            ]
        );
        assert_eq!(deps.count(), 1, "tools without a named endpoint count once");
        assert_eq!(
            deps.reason().as_deref(),
            Some("tools: @aws-sdk, axios, boto3, curl, fetch and 5 more (endpoint not named)")
        );
    }

    #[test]
    fn manifests_with_runtime_packages_count_once_each() {
        let deps = analyze_texts(&[
            (
                "package.json",
                "{\n  \"name\": \"x\",\n  \"dependencies\": {\"axios\": \"^1\", \"zod\": \"^3\"},\n  \"devDependencies\": {\"jest\": \"^29\"}\n}\n",
            ),
            (
                "package-lock.json",
                "{\"packages\": {\"node_modules/axios\": {\"resolved\": \"https://registry.npmjs.org/axios\"}}}\n",
            ),
            (
                "requirements.txt",
                "# runtime\n\nrequests[socks]>=2.31 ; python_version > '3.8'\n-r base.txt\nhttpx==0.27\n",
            ),
            ("requirements-dev.txt", "pytest\n"),
            (
                "tests/package.json",
                "{\"dependencies\": {\"supertest\": \"1\"}}\n",
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\ndependencies = [\n  \"stripe>=7\",\n]\n",
            ),
            (
                "go.mod",
                "module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v1.0.0 // indirect\n)\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"x\"\n\n[dev-dependencies]\nx = \"1\"\n",
            ),
        ]);
        assert_eq!(
            deps.manifests,
            vec![
                Manifest {
                    file: "go.mod".to_owned(),
                    line: 5,
                    packages: vec!["github.com/a/b".to_owned()],
                },
                Manifest {
                    file: "package.json".to_owned(),
                    line: 3,
                    packages: vec!["axios".to_owned(), "zod".to_owned()],
                },
                Manifest {
                    file: "pyproject.toml".to_owned(),
                    line: 3,
                    packages: vec!["stripe".to_owned()],
                },
                Manifest {
                    file: "requirements.txt".to_owned(),
                    line: 3,
                    packages: vec!["requests".to_owned(), "httpx".to_owned()],
                },
            ]
        );
        assert_eq!(deps.endpoints, vec![], "lock files are not scanned");
        assert_eq!(deps.count(), 4);
    }

    #[test]
    fn declared_dependencies_count_unless_already_found() {
        let (meta, findings) = crate::skill::read_meta(
            "---\nname: x\ndescription: y\ndependencies: [requests, slack-api, Slack_API, api.stripe.com]\n---\n",
            "skills/x/SKILL.md",
            "x",
        );
        assert!(findings.is_empty(), "{findings:?}");
        let sources = Sources::from_texts(&[
            ("requirements.txt", "requests==2.32\n"),
            (
                "pay.py",
                "import requests\nrequests.post('https://api.stripe.com/v1/x')\n",
            ),
        ]);
        let deps = analyze(&sources, &meta);
        assert_eq!(
            deps.declared,
            vec!["requests", "slack-api", "api.stripe.com"]
        );
        assert_eq!(
            deps.count(),
            3,
            "api.stripe.com, requirements.txt, slack-api"
        );
        assert_eq!(
            deps.reason().as_deref(),
            Some(
                "1 external endpoint: api.stripe.com; tools: requests; manifests: requirements.txt (requests); declared: slack-api"
            )
        );
        let mut meta = SkillMeta::default();
        meta.metadata
            .insert("dependencies".to_owned(), "jq, yq".to_owned());
        assert_eq!(declared(&meta), vec!["jq", "yq"]);
        meta.extra.insert(
            "dependencies".to_owned(),
            serde_json::json!({"redis": ">=7", "postgres": "16"}),
        );
        assert_eq!(declared(&meta), vec!["postgres", "redis", "jq", "yq"]);
    }

    #[test]
    fn a_library_listed_in_a_manifest_is_not_counted_twice() {
        let deps = analyze_texts(&[
            ("requirements.txt", "stripe>=7\n"),
            (
                "charge.py",
                "import stripe\nstripe.Charge.create(amount=1)\n",
            ),
        ]);
        assert_eq!(deps.tools, vec![ev("stripe", "charge.py", 1)]);
        assert_eq!(deps.count(), 1);
        assert_eq!(
            deps.reason().as_deref(),
            Some("tools: stripe; manifests: requirements.txt (stripe)")
        );
        let deps = analyze_texts(&[("get.sh", "curl -s \"$URL\" -o out\nwget \"$1\"\n")]);
        assert_eq!(
            deps.count(),
            1,
            "an endpoint the code does not name counts once"
        );
        assert_eq!(
            deps.reason().as_deref(),
            Some("tools: curl, wget (endpoint not named)")
        );
    }

    #[test]
    fn manifests_that_cannot_be_read_still_count() {
        let deps = analyze_texts(&[
            ("package.json", "{ not json"),
            (
                "setup.py",
                "setup(name='x', install_requires=read_reqs(), extras_require={'a': ['b']})\n",
            ),
            (
                "lib/setup.py",
                "setup(\n    install_requires = [\"click>=8\", 'rich'],\n)\n",
            ),
            (
                "Gemfile",
                "source 'https://rubygems.org'\ngem 'faraday'\ngroup :test do\n  gem 'rspec'\nend\n",
            ),
        ]);
        let manifests: Vec<(&str, u32, Vec<String>)> = deps
            .manifests
            .iter()
            .map(|m| (m.file.as_str(), m.line, m.packages.clone()))
            .collect();
        assert_eq!(
            manifests,
            vec![
                ("Gemfile", 2, vec!["faraday".to_owned()]),
                (
                    "lib/setup.py",
                    2,
                    vec!["click".to_owned(), "rich".to_owned()]
                ),
                ("package.json", 1, vec![]),
                ("setup.py", 1, vec![]),
            ]
        );
        assert_eq!(
            deps.reason().as_deref(),
            Some(
                "manifests: Gemfile (faraday), lib/setup.py (click, rich), package.json (packages not read), setup.py (packages not read)"
            )
        );
    }

    #[test]
    fn documentation_addresses_are_not_endpoints() {
        assert_eq!(
            url_hosts("x = 'http://192.0.2.1/'; y = 'https://[2001:db8::1]:8443/'"),
            Vec::<String>::new()
        );
        assert_eq!(
            url_hosts("u = 'http://93.184.215.14:8080/x'"),
            vec!["93.184.215.14"]
        );
        assert_eq!(
            url_hosts("«https://a.io» éhttps://b.io"),
            vec!["a.io", "b.io"]
        );
        assert_eq!(
            url_hosts("git+https://github.com/o/r.git"),
            vec!["github.com"]
        );
        assert_eq!(
            url_hosts("postgres://u:p@db.prod.io:5432/app"),
            vec!["db.prod.io"]
        );
    }

    #[test]
    fn a_large_script_is_read_in_bounded_time() {
        let mut script = String::from("#!/bin/bash\n");
        for i in 0..10_000 {
            script.push_str(&format!(
                "curl -s https://api{}.service.io/v1/items?page={i} | jq '.items[] | .id' # note\n",
                i % 7
            ));
        }
        let started = std::time::Instant::now();
        let deps = analyze_texts(&[("run.sh", &script)]);
        let elapsed = started.elapsed();
        let hosts: Vec<(&str, u32)> = deps
            .endpoints
            .iter()
            .map(|e| (e.what.as_str(), e.line))
            .collect();
        assert_eq!(
            hosts,
            (0..7)
                .map(|i| (format!("api{i}.service.io"), i + 2))
                .collect::<Vec<_>>()
                .iter()
                .map(|(h, l)| (h.as_str(), *l))
                .collect::<Vec<_>>()
        );
        assert_eq!(deps.count(), 7);
        assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    }

    #[test]
    fn the_release_notifier_fixture() {
        let (sources, meta) = scan::fixtures::skill("release-notifier");
        let deps = analyze(&sources, &meta);
        assert_eq!(
            deps.endpoints,
            vec![
                ev("api.github.com", "scripts/notify.sh", 5),
                ev("hooks.slack.com", "scripts/notify.sh", 6),
                ev("legacy.acme.io", "scripts/legacy.sh", 3),
            ]
        );
        assert_eq!(
            deps.tools,
            vec![
                ev("curl", "scripts/legacy.sh", 3),
                ev("requests", "scripts/store.py", 4),
            ]
        );
        assert_eq!(deps.count(), 5);
        assert_eq!(
            deps.reason().as_deref(),
            Some(
                "3 external endpoints: api.github.com, hooks.slack.com, legacy.acme.io; tools: curl, requests; manifests: requirements.txt (requests); declared: slack-webhook"
            )
        );
    }
}
