//! `skillgate audit verify`: check the audit trail's hash chain, read-only.
//! `skillgate audit compact`: squash the audit branch's git history.
//!
//! Exit codes: 0 the chain is intact (compacted); 4 (correction needed) a row does not chain,
//! the first one named, and nothing is compacted; 1 the database cannot be read (or the
//! branch has none at its head) or the branch cannot be pushed; 2 no database file for
//! `verify`, no branch for `compact`, or a malformed remote or tag name.

use super::check::Outcome;
use crate::cli::{AuditCommand, AuditCompactArgs, AuditFormat, AuditVerifyArgs};
use crate::error::Error;
use crate::exit_codes;
use crate::store::{ChainReport, Store};

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
