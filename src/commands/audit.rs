//! `skillgate audit verify`: check the audit trail, read-only: its schema is skillgate's own at
//! its `user_version`, every category template reads, and the hash chain holds.
//! `skillgate audit export`: write the trail, segmented or not, as one ordinary database.
//! `skillgate audit compact`: squash the audit branch's git history.
//!
//! Exit codes: 0 the trail is intact (compacted); 4 (correction needed) a row does not chain,
//! an object in the schema is not skillgate's, or a template cannot be read, the first one
//! named, and nothing is compacted; 1 the database cannot be read (or the
//! branch has none at its head) or the branch cannot be pushed, or a segment cannot be exported
//! (missing, replaced); 2 no database file for `verify` or `export`, an `--out` that exists, no
//! branch for `compact`, or a malformed remote or tag name.

use super::Outcome;
use crate::cli::{AuditCommand, AuditCompactArgs, AuditExportArgs, AuditFormat, AuditVerifyArgs};
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::audit::{self, CompactRequest, ExportRequest, VerifyRequest};

pub fn run(command: &AuditCommand) -> Result<Outcome, Error> {
    match command {
        AuditCommand::Verify(args) => verify(args),
        AuditCommand::Export(args) => export(args),
        AuditCommand::Compact(args) => compact(args),
    }
}

fn export(args: &AuditExportArgs) -> Result<Outcome, Error> {
    let done = audit::export(&ExportRequest {
        repo: args.repo.clone(),
        db: args.db.clone(),
        out: args.out.clone(),
    })?;
    let rows = match done.rows {
        1 => "1 row".to_owned(),
        n => format!("{n} rows"),
    };
    let from = match done.segments {
        0 => "a single file".to_owned(),
        1 => "1 segment".to_owned(),
        n => format!("{n} segments"),
    };
    Ok(Outcome {
        stdout: format!(
            "exported {rows} from {from} to {} ({} bytes)\n",
            done.path.display(),
            done.bytes
        ),
        warnings: Vec::new(),
        exit_code: exit_codes::OK,
    })
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
        AuditFormat::Text => findings.text(),
        AuditFormat::Json => findings.json(),
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
