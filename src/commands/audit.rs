//! `skillgate audit verify`: check the audit trail, read-only: its schema is skillgate's own at
//! its `user_version`, every category template reads, and the hash chain holds.
//! `skillgate audit compact`: squash the audit branch's git history.
//!
//! Exit codes: 0 the trail is intact (compacted); 4 (correction needed) a row does not chain,
//! an object in the schema is not skillgate's, or a template cannot be read, the first one
//! named, and nothing is compacted; 1 the database cannot be read (or the
//! branch has none at its head) or the branch cannot be pushed; 2 no database file for
//! `verify`, no branch for `compact`, or a malformed remote or tag name.

use super::Outcome;
use crate::cli::{AuditCommand, AuditCompactArgs, AuditFormat, AuditVerifyArgs};
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::audit::{self, CompactRequest, Verified, VerifyRequest};

pub const SCHEMA: &str = "skillgate.audit-verify/1";

pub fn run(command: &AuditCommand) -> Result<Outcome, Error> {
    match command {
        AuditCommand::Verify(args) => verify(args),
        AuditCommand::Compact(args) => compact(args),
    }
}

fn compact(args: &AuditCompactArgs) -> Result<Outcome, Error> {
    let done = audit::compact(&CompactRequest {
        repo: args.repo.clone(),
        config: args.config.clone(),
        remote: args.remote.clone(),
        tag: args.tag.clone(),
    })?;
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
    let findings = audit::verify(&VerifyRequest {
        repo: args.repo.clone(),
        db: args.db.clone(),
    })?;
    let stdout = match args.format {
        AuditFormat::Text => text(&findings),
        AuditFormat::Json => json(&findings, &findings.db.display().to_string()),
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

fn text(findings: &Verified) -> String {
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

fn json(findings: &Verified, db: &str) -> String {
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
