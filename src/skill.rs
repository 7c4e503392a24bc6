//! A skill: its `SKILL.md` frontmatter read into typed fields, its lint findings, its content hash.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::frontmatter::{self, ErrorKind, Key, Node, Value};

pub mod lint_report;

/// A `SKILL.md` larger than this is refused: frontmatter plus instructions never need it.
pub const MAX_SKILL_FILE_BYTES: u64 = 1 << 20;

/// Who is asked to review a skill the gate did not approve (from `[routing]`), without
/// duplicates, in config order: what `approval_history.escalated_to` records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewers {
    pub users: Vec<String>,
    /// Team slugs (the part after `org/`), as the API takes them.
    pub teams: Vec<String>,
}

impl Reviewers {
    pub fn is_empty(&self) -> bool {
        self.users.is_empty() && self.teams.is_empty()
    }
}

/// The tiers, in the order a skill climbs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Auto,
    Escalate,
    Human,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Escalate => "escalate",
            Self::Human => "human",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "escalate" | "escalated" => Some(Self::Escalate),
            "human" => Some(Self::Human),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// A problem found in a skill's files, at a file and (when known) a line. Its message is a
/// `String` as lint makes it, `gate::Redacted` in the results document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding<Text = String> {
    /// A short stable id, like `frontmatter-invalid` or `name-mismatch`.
    pub rule: String,
    pub severity: Severity,
    /// Repository-relative path, `/`-separated.
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based, in characters; only with a line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    pub message: Text,
}

impl Finding {
    pub fn error(rule: &str, file: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            rule: rule.to_owned(),
            severity: Severity::Error,
            file: file.to_owned(),
            line,
            column: None,
            message: message.into(),
        }
    }

    /// The same finding at a column of its line.
    pub fn at_column(self, column: usize) -> Self {
        Self {
            column: Some(column),
            ..self
        }
    }

    pub fn warning(
        rule: &str,
        file: &str,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(rule, file, line, message)
        }
    }
}

impl<Text> Finding<Text> {
    /// `file:line:column` (or as much of it as is known) for messages.
    pub fn location(&self) -> String {
        match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{}:{line}:{column}", self.file),
            (Some(line), None) => format!("{}:{line}", self.file),
            _ => self.file.clone(),
        }
    }
}

/// The fields of a `SKILL.md` the gate reads. Spec fields first, then the gate's own fields,
/// which may stand at the top level or inside `metadata`, spelled with `-` or `_`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillMeta {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub allowed_tools: Vec<String>,
    pub metadata: BTreeMap<String, String>,

    pub version: Option<String>,
    pub category: Option<String>,
    pub team: Option<String>,
    pub owner: Option<String>,
    pub tags: Vec<String>,
    pub status: Option<String>,
    pub test_suite: Option<String>,
    pub test_framework: Option<String>,
    pub test_report: Option<String>,
    pub coverage_report: Option<String>,
    pub required_test_pass_rate: Option<f64>,
    /// Declared coverage: counts for thresholds, never satisfies auto by itself.
    pub test_coverage: Option<f64>,
    /// Declared risk floor: may raise the measured risk, never lower it.
    pub risk_score: Option<f64>,
    /// Declared minimum tier.
    pub approval_level: Option<Tier>,
    pub generated_by: Option<String>,
    pub phase4_pattern_id: Option<i64>,

    /// Fields the gate does not know, kept as they were.
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// The top-level fields of the Agent Skills spec: all a strict lint allows.
pub const SPEC_FIELDS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "metadata",
];

/// The gate's own fields, read at the top level or inside `metadata`.
pub const GATE_FIELDS: &[&str] = &[
    "version",
    "category",
    "team",
    "owner",
    "tags",
    "status",
    "test-suite",
    "test-framework",
    "test-report",
    "coverage-report",
    "required-test-pass-rate",
    "test-coverage",
    "risk-score",
    "approval-level",
    "generated-by",
    "phase4-pattern-id",
];

/// A `SKILL.md` read: its fields, the findings of the frontmatter rules, and the line where
/// its Markdown body starts (`None` when the frontmatter could not be read).
#[derive(Debug, Clone, Default)]
pub struct SkillMd {
    pub meta: SkillMeta,
    pub findings: Vec<Finding>,
    pub body_line: Option<usize>,
}

/// Read and lint a `SKILL.md`. `file` is its repository-relative path (for findings) and
/// `dir_name` the name of the directory holding it (the spec wants `name` to equal it).
/// What changed for a skill's users between `before` and `after`: its `name` (what agents load
/// it by), or its major version (semver: a major bump announces a breaking change, and so does
/// a minor bump below 1.0).
pub fn breaking_changes(before: &SkillMeta, after: &SkillMeta) -> Vec<String> {
    let mut found = Vec::new();
    if let (Some(old), Some(new)) = (&before.name, &after.name)
        && old != new
    {
        found.push(format!("`name` changed from {old} to {new}"));
    }
    if let (Some(old), Some(new)) = (&before.version, &after.version)
        && let (Some(was), Some(is)) = (compatible(old), compatible(new))
        && is > was
    {
        found.push(format!("major version {old} → {new}"));
    }
    found
}

/// The part of a version that promises compatibility: the major number, or below 1.0 the minor
/// (`1.4.0` → (1, 0), `0.3.2` → (0, 3), `v2` → (2, 0)).
fn compatible(version: &str) -> Option<(u64, u64)> {
    let version = version.trim();
    let version = version.strip_prefix(['v', 'V']).unwrap_or(version);
    let mut numbers = version.split(['-', '+']).next()?.split('.');
    let major: u64 = numbers.next()?.parse().ok()?;
    if major > 0 {
        return Some((major, 0));
    }
    let minor = numbers.next().map_or(Some(0), |m| m.parse().ok())?;
    Some((0, minor))
}

pub fn read_meta(text: &str, file: &str, dir_name: &str) -> (SkillMeta, Vec<Finding>) {
    let md = read_skill_md(text, file, dir_name, false);
    (md.meta, md.findings)
}

/// [`read_meta`], and with `strict` a top-level field outside the spec's six is an error.
pub fn read_skill_md(text: &str, file: &str, dir_name: &str, strict: bool) -> SkillMd {
    let mut findings = Vec::new();
    let doc = match frontmatter::parse(text) {
        Ok(doc) => doc,
        Err(err) => {
            let rule = match err.kind {
                ErrorKind::Missing => "frontmatter-missing",
                ErrorKind::Unclosed => "frontmatter-unclosed",
                ErrorKind::Invalid => "frontmatter-invalid",
            };
            findings.push(
                Finding::error(rule, file, Some(err.line), err.message).at_column(err.column),
            );
            return SkillMd {
                findings,
                ..SkillMd::default()
            };
        }
    };
    let mut reader = FieldReader {
        file,
        findings: &mut findings,
    };
    let mut meta = SkillMeta::default();
    let mut metadata_node = None;
    let mut gate: BTreeMap<&'static str, &Node> = BTreeMap::new();
    for (key, node) in &doc.fields {
        let canonical = key.replace('_', "-");
        match canonical.as_str() {
            "name" => meta.name = reader.string(key, node),
            "description" => meta.description = reader.string(key, node),
            "license" => meta.license = reader.string(key, node),
            "compatibility" => meta.compatibility = reader.string(key, node),
            "allowed-tools" => meta.allowed_tools = reader.string_list(key, node),
            "metadata" => metadata_node = Some(node),
            _ => match GATE_FIELDS.iter().find(|f| **f == canonical) {
                Some(field) => {
                    gate.insert(field, node);
                }
                None => {
                    meta.extra.insert(key.text.clone(), node.value.to_json());
                }
            },
        }
    }
    // Gate fields inside `metadata` count when the top level does not set them.
    if let Some(node) = metadata_node {
        match &node.value {
            Value::Map(entries) => {
                for (key, value) in entries {
                    let canonical = key.replace('_', "-");
                    if let Some(field) = GATE_FIELDS.iter().find(|f| **f == canonical) {
                        gate.entry(field).or_insert(value);
                    }
                    meta.metadata.insert(
                        key.text.clone(),
                        scalar_text(&value.value).unwrap_or_default(),
                    );
                }
            }
            Value::Null => {}
            other => reader.findings.push(
                Finding::error(
                    "field-type",
                    file,
                    Some(node.line),
                    format!(
                        "`metadata` must be a mapping of keys to text, found {}",
                        other.kind()
                    ),
                )
                .at_column(node.column),
            ),
        }
    }
    for (field, node) in gate {
        match field {
            "version" => meta.version = reader.text(field, node),
            "category" => meta.category = reader.text(field, node),
            "team" => meta.team = reader.text(field, node),
            "owner" => meta.owner = reader.text(field, node),
            "tags" => meta.tags = reader.string_list(field, node),
            "status" => meta.status = reader.text(field, node),
            "test-suite" => meta.test_suite = reader.text(field, node),
            "test-framework" => meta.test_framework = reader.text(field, node),
            "test-report" => meta.test_report = reader.text(field, node),
            "coverage-report" => meta.coverage_report = reader.text(field, node),
            "required-test-pass-rate" => {
                meta.required_test_pass_rate = reader.fraction(field, node)
            }
            "test-coverage" => meta.test_coverage = reader.fraction(field, node),
            "risk-score" => meta.risk_score = reader.fraction(field, node),
            "approval-level" => meta.approval_level = reader.tier(field, node),
            "generated-by" => meta.generated_by = reader.text(field, node),
            "phase4-pattern-id" => meta.phase4_pattern_id = reader.integer(field, node),
            _ => {}
        }
    }
    lint_spec(&meta, &doc.fields, file, dir_name, &mut findings);
    if strict {
        lint_strict(&doc.fields, file, &mut findings);
    }
    SkillMd {
        meta,
        findings,
        body_line: Some(doc.body_line),
    }
}

/// The longest `description` the spec allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest `compatibility` the spec allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// The Agent Skills spec's rules for `name`, `description` and `compatibility`.
fn lint_spec(
    meta: &SkillMeta,
    fields: &[(Key, Node)],
    file: &str,
    dir_name: &str,
    findings: &mut Vec<Finding>,
) {
    let node_of = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, n)| n);
    // A finding about a field's value, where the value starts.
    let at = |rule: &str, node: &Node, message: String| {
        Finding::error(rule, file, Some(node.line), message).at_column(node.column)
    };
    match (&meta.name, node_of("name")) {
        (_, None) => findings.push(Finding::error(
            "name-missing",
            file,
            Some(1),
            "frontmatter has no `name`",
        )),
        (None, Some(node)) if node.value == Value::Null => {
            findings.push(at("name-missing", node, "`name` has no value".to_owned()))
        }
        // Not text: a `field-type` finding says so already.
        (None, Some(_)) => {}
        (Some(name), Some(node)) => {
            if let Some(problem) = name_problem(name) {
                findings.push(at("name-invalid", node, problem));
            } else if !dir_name.is_empty() && name != dir_name {
                // An empty `dir_name` is the repository itself (a root of `.`): its directory
                // is the checkout's, named by whoever cloned it.
                findings.push(at(
                    "name-mismatch",
                    node,
                    format!("`name: {name}` does not match its directory `{dir_name}`"),
                ));
            }
        }
    }
    match (&meta.description, node_of("description")) {
        (_, None) => findings.push(Finding::error(
            "description-missing",
            file,
            Some(1),
            "frontmatter has no `description`",
        )),
        (None, Some(node)) if node.value == Value::Null => findings.push(at(
            "description-missing",
            node,
            "`description` has no value".to_owned(),
        )),
        (None, Some(_)) => {}
        (Some(d), Some(node)) => {
            let chars = d.chars().count();
            if d.trim().is_empty() || chars > MAX_DESCRIPTION_CHARS {
                findings.push(at(
                    "description-length",
                    node,
                    format!(
                        "`description` must be 1 to {MAX_DESCRIPTION_CHARS} characters, it has {}",
                        if d.trim().is_empty() { 0 } else { chars }
                    ),
                ));
            }
        }
    }
    if let (Some(c), Some(node)) = (&meta.compatibility, node_of("compatibility")) {
        let chars = c.chars().count();
        if chars > MAX_COMPATIBILITY_CHARS {
            findings.push(at(
                "compatibility-length",
                node,
                format!(
                    "`compatibility` must be at most {MAX_COMPATIBILITY_CHARS} characters, it has {chars}"
                ),
            ));
        }
    }
    for (key, _) in fields {
        let canonical = key.replace('_', "-");
        let known =
            SPEC_FIELDS.contains(&canonical.as_str()) || GATE_FIELDS.contains(&canonical.as_str());
        if !known && key.chars().any(|c| c.is_control()) {
            findings.push(
                Finding::warning(
                    "field-name",
                    file,
                    Some(key.line),
                    "a frontmatter key holds control characters",
                )
                .at_column(key.column),
            );
        }
    }
}

/// `[lint] strict = true`: only the spec's six fields may stand at the top level, spelled as
/// the spec spells them, as the reference validator (`skills-ref validate`) requires.
fn lint_strict(fields: &[(Key, Node)], file: &str, findings: &mut Vec<Finding>) {
    for (key, _) in fields {
        if SPEC_FIELDS.contains(&key.text.as_str()) {
            continue;
        }
        let canonical = key.replace('_', "-");
        let help = if SPEC_FIELDS.contains(&canonical.as_str()) {
            format!("the spec spells it `{canonical}`")
        } else if GATE_FIELDS.contains(&canonical.as_str()) {
            format!("move it under `metadata:` (skillgate reads `{canonical}` there too)")
        } else {
            "move it under `metadata:` or remove it".to_owned()
        };
        findings.push(
            Finding::error(
                "field-unknown",
                file,
                Some(key.line),
                format!(
                    "`{}` is not an Agent Skills field, and `[lint] strict` allows only \
                     {}: {help}",
                    key.text,
                    SPEC_FIELDS.join(", ")
                ),
            )
            .at_column(key.column),
        );
    }
}

/// Why `name` breaks the spec: 1–64 characters of `a-z0-9-`, no leading, trailing or double `-`.
pub fn name_problem(name: &str) -> Option<String> {
    let len = name.chars().count();
    if len == 0 || len > 64 {
        return Some(format!("`name` must be 1 to 64 characters, it has {len}"));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!(
            "`name: {name}` may only hold a-z, 0-9 and `-`, not {bad:?}"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some(format!(
            "`name: {name}` may not start or end with `-` or hold `--`"
        ));
    }
    None
}

/// Typed reads of frontmatter values; a wrong type becomes a finding at the value's line.
struct FieldReader<'a> {
    file: &'a str,
    findings: &'a mut Vec<Finding>,
}

impl FieldReader<'_> {
    fn wrong(&mut self, key: &str, node: &Node, expected: &str) {
        self.findings.push(
            Finding::error(
                "field-type",
                self.file,
                Some(node.line),
                format!("`{key}` must be {expected}, found {}", node.value.kind()),
            )
            .at_column(node.column),
        );
    }

    /// A spec string field: must be text.
    fn string(&mut self, key: &str, node: &Node) -> Option<String> {
        match &node.value {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            _ => {
                self.wrong(key, node, "text");
                None
            }
        }
    }

    /// A gate field: text, or a number or boolean read as text (`version: 1.2`).
    fn text(&mut self, key: &str, node: &Node) -> Option<String> {
        match scalar_text(&node.value) {
            Some(text) => Some(text),
            None if node.value == Value::Null => None,
            None => {
                self.wrong(key, node, "text");
                None
            }
        }
    }

    /// A list of strings, also accepted as one comma- or space-separated string.
    fn string_list(&mut self, key: &str, node: &Node) -> Vec<String> {
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|item| {
                    let text = scalar_text(&item.value);
                    if text.is_none() {
                        self.wrong(key, item, "a list of text");
                    }
                    text
                })
                .collect(),
            Value::String(s) => split_list(s),
            Value::Null => Vec::new(),
            _ => {
                self.wrong(key, node, "a list of text");
                Vec::new()
            }
        }
    }

    /// A fraction 0.0–1.0. `95%` and a whole number like `95` are percentages; `1.5` is an error.
    fn fraction(&mut self, key: &str, node: &Node) -> Option<f64> {
        let percent_or = |n: f64| {
            if n > 1.0 && n.fract() == 0.0 {
                n / 100.0
            } else {
                n
            }
        };
        let value = match &node.value {
            Value::Int(i) => Some(percent_or(*i as f64)),
            Value::Float(f) => Some(*f),
            Value::String(s) => match s.trim().strip_suffix('%') {
                Some(pct) => pct.trim().parse::<f64>().ok().map(|p| p / 100.0),
                None => s.trim().parse::<f64>().ok().map(percent_or),
            },
            Value::Null => return None,
            _ => None,
        };
        match value {
            Some(v) if (0.0..=1.0).contains(&v) => Some(v),
            _ => {
                self.wrong(
                    key,
                    node,
                    "a fraction between 0.0 and 1.0 (or a percentage)",
                );
                None
            }
        }
    }

    fn integer(&mut self, key: &str, node: &Node) -> Option<i64> {
        let value = match &node.value {
            Value::Int(i) => Some(*i),
            Value::String(s) => s.trim().parse().ok(),
            Value::Null => return None,
            _ => None,
        };
        if value.is_none() {
            self.wrong(key, node, "a whole number");
        }
        value
    }

    fn tier(&mut self, key: &str, node: &Node) -> Option<Tier> {
        let tier = scalar_text(&node.value).and_then(|t| Tier::parse(&t));
        if tier.is_none() && node.value != Value::Null {
            self.wrong(key, node, "one of `auto`, `escalate`, `human`");
        }
        tier
    }
}

/// A list written as one string, split at commas and spaces outside parentheses (the spec's
/// space-separated `allowed-tools`: `Bash(git status:*) Read` is two tools, not three).
fn split_list(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' | '\t' if depth == 0 => {
                let item = current.trim();
                if !item.is_empty() {
                    items.push(item.to_owned());
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    let item = current.trim();
    if !item.is_empty() {
        items.push(item.to_owned());
    }
    items
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Seq(_) | Value::Map(_) => None,
    }
}

/// sha256 over a skill's files: for each file in sorted relative-path order, the path, a NUL,
/// the length (8 bytes, little-endian) and the bytes. Symlinks contribute their target text,
/// so a link to a file outside the repository is never read.
pub fn content_hash(root: &Path, files: &[String]) -> std::io::Result<String> {
    let mut sorted: Vec<&String> = files.iter().collect();
    sorted.sort();
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    for rel in sorted {
        let path = root.join(rel);
        hasher.update(rel.as_bytes());
        hasher.update([0u8]);
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path)?;
            let bytes = target.as_os_str().as_encoded_bytes();
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        hasher.update(meta.len().to_le_bytes());
        let mut file = std::fs::File::open(&path)?;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// Lowercase hex of some bytes.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod breaking_tests {
    use super::*;

    fn meta(name: &str, version: &str) -> SkillMeta {
        SkillMeta {
            name: Some(name.to_owned()),
            version: Some(version.to_owned()),
            ..SkillMeta::default()
        }
    }

    #[test]
    fn a_new_name_or_a_major_version_breaks_users() {
        assert!(breaking_changes(&meta("a", "1.2.0"), &meta("a", "1.3.0")).is_empty());
        assert!(breaking_changes(&meta("a", "2.0.0"), &meta("a", "1.9.0")).is_empty());
        assert_eq!(
            breaking_changes(&meta("a", "1.2.0"), &meta("b", "v2.0.0-rc.1")),
            [
                "`name` changed from a to b",
                "major version 1.2.0 → v2.0.0-rc.1"
            ]
        );
        assert!(breaking_changes(&meta("a", "one"), &meta("a", "2.0")).is_empty());
        // Below 1.0 a minor bump is the breaking one.
        assert_eq!(
            breaking_changes(&meta("a", "0.3.2"), &meta("a", "0.4.0")),
            ["major version 0.3.2 → 0.4.0"]
        );
        assert!(breaking_changes(&meta("a", "0.3.2"), &meta("a", "0.3.9")).is_empty());
        assert_eq!(
            breaking_changes(&meta("a", "0.9.1"), &meta("a", "1.0.0")).len(),
            1
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (SkillMeta, Vec<Finding>) {
        read_meta(text, ".claude/skills/pdf/SKILL.md", "pdf")
    }

    fn rules(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn allowed_tools_keep_their_parenthesised_restrictions() {
        let (meta, _) = read(
            "---\nname: pdf\ndescription: Read PDFs.\nallowed-tools: Bash(git status:*) Read  Bash(npm run test:*),Grep\n---\nbody\n",
        );
        assert_eq!(
            meta.allowed_tools,
            vec!["Bash(git status:*)", "Read", "Bash(npm run test:*)", "Grep"]
        );
        assert_eq!(split_list("a, b c"), vec!["a", "b", "c"]);
        // An unbalanced parenthesis keeps the rest together rather than inventing tools.
        assert_eq!(
            split_list("Bash(git status Read"),
            vec!["Bash(git status Read"]
        );
        assert_eq!(split_list("x) y"), vec!["x)", "y"]);
    }

    #[test]
    fn spec_and_gate_fields_at_top_level_or_in_metadata() {
        let (meta, findings) = read(
            "---\nname: pdf\ndescription: Read PDFs.\nallowed-tools: Read, Bash\nversion: 2.0.0\ntest_suite: tests/run.sh\nmetadata:\n  category: documents\n  required_test_pass_rate: \"0.9\"\n  test-coverage: 88%\n  approval-level: escalate\n  version: 9.9.9\nargument-hint: \"[file]\"\n---\nbody\n",
        );
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(meta.name.as_deref(), Some("pdf"));
        assert_eq!(meta.allowed_tools, vec!["Read", "Bash"]);
        assert_eq!(
            meta.version.as_deref(),
            Some("2.0.0"),
            "top level wins over metadata"
        );
        assert_eq!(meta.test_suite.as_deref(), Some("tests/run.sh"));
        assert_eq!(meta.category.as_deref(), Some("documents"));
        assert_eq!(meta.required_test_pass_rate, Some(0.9));
        assert_eq!(meta.test_coverage, Some(0.88));
        assert_eq!(meta.approval_level, Some(Tier::Escalate));
        assert_eq!(
            meta.metadata.get("category").map(String::as_str),
            Some("documents")
        );
        assert_eq!(
            meta.extra.get("argument-hint"),
            Some(&serde_json::json!("[file]"))
        );
    }

    #[test]
    fn broken_frontmatter_is_one_error_finding_with_a_line() {
        let (_, findings) = read("no frontmatter here\n");
        assert_eq!(rules(&findings), vec!["frontmatter-missing"]);
        assert_eq!(findings[0].line, Some(1));
        let (_, findings) = read("---\nname: pdf\n");
        assert_eq!(rules(&findings), vec!["frontmatter-unclosed"]);
        let (_, findings) = read("---\nname: pdf\ndescription: : :\n  - x\n---\n");
        assert_eq!(rules(&findings), vec!["frontmatter-invalid"]);
        assert_eq!(findings[0].severity, Severity::Error);
    }

    #[test]
    fn spec_rules_for_name_and_description() {
        let (_, findings) = read("---\nname: Other_Name\ndescription: x\n---\n");
        assert_eq!(rules(&findings), vec!["name-invalid"]);
        assert_eq!(findings[0].line, Some(2));
        let (_, findings) = read("---\nname: other\ndescription: x\n---\n");
        assert_eq!(rules(&findings), vec!["name-mismatch"]);
        let (_, findings) = read("---\ndescription: x\n---\n");
        assert_eq!(rules(&findings), vec!["name-missing"]);
        let long = "d".repeat(1025);
        let (_, findings) = read(&format!("---\nname: pdf\ndescription: {long}\n---\n"));
        assert_eq!(rules(&findings), vec!["description-length"]);
        assert!(name_problem("a--b").is_some());
        assert!(name_problem("-ab").is_some());
        assert_eq!(name_problem("ab-1"), None);
    }

    #[test]
    fn wrong_types_are_findings_at_the_value_line() {
        let (meta, findings) = read(
            "---\nname: pdf\ndescription: x\nrisk-score: high\napproval-level: sometimes\nmetadata:\n  test-coverage: 1.5\n---\n",
        );
        assert_eq!(
            rules(&findings),
            vec!["field-type", "field-type", "field-type"]
        );
        let places: Vec<_> = findings.iter().map(|f| (f.line, f.column)).collect();
        assert_eq!(
            places,
            vec![
                (Some(5), Some(17)),
                (Some(4), Some(13)),
                (Some(7), Some(18))
            ],
            "at each value"
        );
        assert_eq!(meta.risk_score, None);
    }

    #[test]
    fn control_characters_in_a_key_are_a_warning_at_the_key() {
        let (_, findings) = read("---\nname: pdf\ndescription: x\n\"a\\x1bb\": 1\n---\n");
        assert_eq!(rules(&findings), vec!["field-name"]);
        assert_eq!(findings[0].severity, Severity::Warning);
        assert_eq!((findings[0].line, findings[0].column), (Some(4), Some(1)));
        let (_, findings) = read("---\nname: pdf\ndescription: x\nab: 1\n---\n");
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn location_says_as_much_as_is_known() {
        let f = Finding::error("r", "a/SKILL.md", None, "m");
        assert_eq!(f.location(), "a/SKILL.md");
        let f = Finding::error("r", "a/SKILL.md", Some(3), "m");
        assert_eq!(f.location(), "a/SKILL.md:3");
        assert_eq!(f.at_column(9).location(), "a/SKILL.md:3:9");
    }

    #[test]
    fn content_hash_depends_on_paths_and_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a"), "one").expect("write");
        std::fs::write(dir.path().join("b"), "two").expect("write");
        let files = vec!["b".to_owned(), "a".to_owned()];
        let h1 = content_hash(dir.path(), &files).expect("hash");
        let h2 = content_hash(dir.path(), &["a".to_owned(), "b".to_owned()]).expect("hash");
        assert_eq!(h1, h2, "order of the input does not matter");
        assert_eq!(h1.len(), 64);
        std::fs::write(dir.path().join("b"), "twO").expect("write");
        assert_ne!(h1, content_hash(dir.path(), &files).expect("hash"));
    }
}
