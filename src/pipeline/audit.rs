//! The audit trail checked, read-only (`verify`): its schema, its category templates, its hash
//! chain; and its branch's history squashed (`compact`).

use std::path::PathBuf;

use crate::error::Error;
use crate::store::{ChainReport, SchemaProblem, Store, TemplateProblem};

/// What `audit verify` is asked to check.
#[derive(Debug)]
pub struct VerifyRequest {
    /// `--repo`: where the config names the database.
    pub repo: PathBuf,
    /// `--db`: the database itself.
    pub db: Option<PathBuf>,
}

/// The schema of `verify --format json`.
pub const SCHEMA: &str = "skillgate.audit-verify/1";

/// Everything `verify` found, the schema first: a planted trigger explains the rows after it.
#[derive(Debug)]
pub struct Verified {
    /// The database checked.
    pub db: PathBuf,
    pub schema: Vec<SchemaProblem>,
    pub templates: Vec<TemplateProblem>,
    pub chain: ChainReport,
}

impl Verified {
    pub fn is_intact(&self) -> bool {
        self.schema.is_empty() && self.templates.is_empty() && self.chain.is_intact()
    }

    pub fn messages(&self) -> Vec<String> {
        self.schema
            .iter()
            .map(ToString::to_string)
            .chain(self.templates.iter().map(ToString::to_string))
            .chain(self.chain.breaks.iter().map(ToString::to_string))
            .collect()
    }

    /// What `verify` prints: the first problem, the others, the totals.
    pub fn text(&self) -> String {
        let findings = self;
        let report = &findings.chain;
        let rows = match report.rows {
            1 => "1 row".to_owned(),
            n => format!("{n} rows"),
        };
        let head = match report.head_id {
            Some(id) => format!("head {} (row {id})", report.head),
            None => format!("head {} (empty)", report.head),
        };
        let messages = findings.messages();
        let Some((first, rest)) = messages.split_first() else {
            return format!("audit trail intact: {rows} checked, {head}\n");
        };
        let mut out = format!("audit trail broken: {first}\n");
        for other in rest {
            out.push_str(&format!("also: {other}\n"));
        }
        let problems = match messages.len() {
            1 => "1 problem".to_owned(),
            n => format!("{n} problems"),
        };
        out.push_str(&format!("{problems} in {rows} checked, {head}\n"));
        out
    }

    /// `verify --format json`: the same, with each problem's fields (schema [`SCHEMA`]).
    pub fn json(&self) -> String {
        let findings = self;
        let db = self.db.display().to_string();
        let report = &findings.chain;
        let with_message = |value: serde_json::Value, message: String| {
            let mut value = value;
            value["message"] = message.into();
            value
        };
        let breaks: Vec<serde_json::Value> = report
            .breaks
            .iter()
            .map(|b| with_message(serde_json::to_value(b).unwrap_or_default(), b.to_string()))
            .collect();
        let schema: Vec<serde_json::Value> = findings
            .schema
            .iter()
            .map(|p| with_message(serde_json::to_value(p).unwrap_or_default(), p.to_string()))
            .collect();
        let templates: Vec<serde_json::Value> = findings
        .templates
        .iter()
        .map(|p| serde_json::json!({ "template": p.name, "problem": p.message, "message": p.to_string() }))
        .collect();
        let doc = serde_json::json!({
            "schema": SCHEMA,
            "db": db,
            "intact": findings.is_intact(),
            "rows": report.rows,
            "head": report.head,
            "head_id": report.head_id,
            "breaks": breaks,
            "schema_problems": schema,
            "template_problems": templates,
        });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Check the trail `request` names.
pub fn verify(request: &VerifyRequest) -> Result<Verified, Error> {
    let path = match &request.db {
        Some(db) => db.clone(),
        None => {
            let config = crate::config::Config::load(&request.repo, None)?;
            request.repo.join(&config.audit.db)
        }
    };
    if !path.is_file() {
        return Err(Error::usage(
            format!("no audit database at {}", path.display()),
            Some("pass --db FILE, or --repo DIR of a repository where `skillgate check` ran"),
        ));
    }
    let store = Store::open_read_only(&path)?;
    let schema = store.schema_problems()?;
    let chain = store.verify_chain()?;
    // Templates are read only from skillgate's own table: in a foreign schema they may be a
    // view or missing, and the schema problem is already the finding.
    let templates = if schema.is_empty() {
        store.template_problems()?
    } else {
        Vec::new()
    };
    Ok(Verified {
        db: path,
        schema,
        templates,
        chain,
    })
}

/// What `audit compact` is asked to do.
#[derive(Debug)]
pub struct CompactRequest {
    pub repo: PathBuf,
    pub config: Option<PathBuf>,
    /// `--remote`: the remote the branch is pushed to.
    pub remote: String,
    /// `--tag`: where the history before is kept.
    pub tag: Option<String>,
}

/// Squash the audit branch's history into one commit.
pub fn compact(request: &CompactRequest) -> Result<crate::audit::Compaction, Error> {
    let remote = &request.remote;
    let remote_ok = !remote.is_empty()
        && !remote.starts_with('-')
        && !remote.chars().any(|c| c.is_whitespace() || c.is_control());
    if !remote_ok {
        return Err(Error::usage(
            format!("--remote {remote:?} is not a remote name"),
            Some("name a remote of the checkout, as `git remote` lists them"),
        ));
    }
    if let Some(tag) = &request.tag
        && !crate::git::is_valid_tag_name(tag)
    {
        return Err(Error::usage(
            format!("--tag {tag:?} is not a valid tag name"),
            Some("see `git check-ref-format`: no spaces, `..`, `~`, `^`, `:` or trailing `.lock`"),
        ));
    }
    let config = crate::config::Config::load(&request.repo, request.config.as_deref())?;
    Ok(crate::audit::compact(
        &config.audit,
        &request.repo,
        remote,
        request.tag.as_deref(),
    )?)
}
