//! `skillgate audit verify`: check the audit trail's hash chain, read-only.
//!
//! Exit codes: 0 the chain is intact; 4 (correction needed) a row does not chain, the first one
//! named; 1 the database cannot be read; 2 no database where one was looked for.

use super::check::Outcome;
use crate::cli::{AuditCommand, AuditFormat, AuditVerifyArgs};
use crate::error::Error;
use crate::exit_codes;
use crate::store::{ChainReport, Store};

pub const SCHEMA: &str = "skillgate.audit-verify/1";

pub fn run(command: &AuditCommand) -> Result<Outcome, Error> {
    match command {
        AuditCommand::Verify(args) => verify(args),
    }
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
    let report = store.verify_chain()?;
    let stdout = match args.format {
        AuditFormat::Text => text(&report),
        AuditFormat::Json => json(&report, &path.display().to_string()),
    };
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: if report.is_intact() {
            exit_codes::OK
        } else {
            exit_codes::CORRECTION_NEEDED
        },
    })
}

fn text(report: &ChainReport) -> String {
    let rows = match report.rows {
        1 => "1 row".to_owned(),
        n => format!("{n} rows"),
    };
    let head = match report.head_id {
        Some(id) => format!("head {} (row {id})", report.head),
        None => format!("head {} (empty)", report.head),
    };
    let Some((first, rest)) = report.breaks.split_first() else {
        return format!("audit trail intact: {rows} checked, {head}\n");
    };
    let mut out = format!("audit trail broken: {first}\n");
    for other in rest {
        out.push_str(&format!("also: {other}\n"));
    }
    let problems = match report.breaks.len() {
        1 => "1 problem".to_owned(),
        n => format!("{n} problems"),
    };
    out.push_str(&format!("{problems} in {rows} checked, {head}\n"));
    out
}

fn json(report: &ChainReport, db: &str) -> String {
    let breaks: Vec<serde_json::Value> = report
        .breaks
        .iter()
        .map(|b| {
            let mut value = serde_json::to_value(b).unwrap_or_default();
            value["message"] = b.to_string().into();
            value
        })
        .collect();
    let doc = serde_json::json!({
        "schema": SCHEMA,
        "db": db,
        "intact": report.is_intact(),
        "rows": report.rows,
        "head": report.head,
        "head_id": report.head_id,
        "breaks": breaks,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
