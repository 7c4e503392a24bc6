//! `skillgate audit verify`: check the audit trail, read-only: its schema is skillgate's own at
//! its `user_version`, every category template reads, and the hash chain holds.
//! `skillgate audit compact`: squash the audit branch's git history.
//!
//! Exit codes: 0 the trail is intact (compacted); 4 (correction needed) a row does not chain,
//! an object in the schema is not skillgate's, or a template cannot be read, the first one
//! named, and nothing is compacted; 1 the database cannot be read (or the
//! branch has none at its head) or the branch cannot be pushed; 2 no database file for
//! `verify`, no branch for `compact`, or a malformed remote or tag name.

use super::check::Outcome;
use crate::cli::{AuditCommand, AuditCompactArgs, AuditFormat, AuditVerifyArgs};
use crate::error::Error;
use crate::exit_codes;
use crate::store::{ChainReport, SchemaProblem, Store, TemplateProblem};

pub const SCHEMA: &str = "skillgate.audit-verify/1";

pub fn run(command: &AuditCommand) -> Result<Outcome, Error> {
    match command {
        AuditCommand::Verify(args) => verify(args),
        AuditCommand::Compact(args) => compact(args),
    }
}

fn compact(args: &AuditCompactArgs) -> Result<Outcome, Error> {
    let remote_ok = !args.remote.is_empty()
        && !args.remote.starts_with('-')
        && !args
            .remote
            .chars()
            .any(|c| c.is_whitespace() || c.is_control());
    if !remote_ok {
        return Err(Error::usage(
            format!("--remote {:?} is not a remote name", args.remote),
            Some("name a remote of the checkout, as `git remote` lists them"),
        ));
    }
    if let Some(tag) = &args.tag {
        let valid = std::process::Command::new("git")
            .args(["check-ref-format", &format!("refs/tags/{tag}")])
            .status()
            .is_ok_and(|s| s.success());
        if !valid {
            return Err(Error::usage(
                format!("--tag {tag:?} is not a valid tag name"),
                Some(
                    "see `git check-ref-format`: no spaces, `..`, `~`, `^`, `:` or trailing `.lock`",
                ),
            ));
        }
    }
    let config = crate::config::Config::load(&args.repo, args.config.as_deref())?;
    let done = crate::audit::compact(&config.audit, &args.repo, &args.remote, args.tag.as_deref())?;
    let squashed = done.squashed.map_or_else(
        || "its history (not counted: the checkout is shallow)".to_owned(),
        |n| format!("{n} commits"),
    );
    let stdout = match &done.commit {
        Some(commit) => format!(
            "compacted {}: {squashed} → 1 ({commit}), {} rows, chain intact\nthe history before is at tag {} ({})\n",
            done.branch, done.rows, done.tag, done.old_head
        ),
        None => format!(
            "{} is one commit already ({}): nothing to compact\n",
            done.branch, done.old_head
        ),
    };
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: exit_codes::OK,
    })
}

fn verify(args: &AuditVerifyArgs) -> Result<Outcome, Error> {
    let path = match &args.db {
        Some(db) => db.clone(),
        None => {
            let config = crate::config::Config::load(&args.repo, None)?;
            args.repo.join(&config.audit.db)
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
    let report = store.verify_chain()?;
    // Templates are read only from skillgate's own table: in a foreign schema they may be a
    // view or missing, and the schema problem is already the finding.
    let templates = if schema.is_empty() {
        store.template_problems()?
    } else {
        Vec::new()
    };
    let findings = Findings {
        schema: &schema,
        templates: &templates,
        chain: &report,
    };
    let stdout = match args.format {
        AuditFormat::Text => text(&findings),
        AuditFormat::Json => json(&findings, &path.display().to_string()),
    };
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: if findings.is_intact() {
            exit_codes::OK
        } else {
            exit_codes::CORRECTION_NEEDED
        },
    })
}

/// Everything `verify` found, the schema first: a planted trigger explains the rows after it.
struct Findings<'a> {
    schema: &'a [SchemaProblem],
    templates: &'a [TemplateProblem],
    chain: &'a ChainReport,
}

impl Findings<'_> {
    fn is_intact(&self) -> bool {
        self.schema.is_empty() && self.templates.is_empty() && self.chain.is_intact()
    }

    fn messages(&self) -> Vec<String> {
        self.schema
            .iter()
            .map(ToString::to_string)
            .chain(self.templates.iter().map(ToString::to_string))
            .chain(self.chain.breaks.iter().map(ToString::to_string))
            .collect()
    }
}

fn text(findings: &Findings<'_>) -> String {
    let report = findings.chain;
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

fn json(findings: &Findings<'_>, db: &str) -> String {
    let report = findings.chain;
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
