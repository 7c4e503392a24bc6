//! `skillgate report`: the audit trail's analytics for the week, in the format asked for.
//!
//! Exit codes: 0 the report was made; 1 the trail cannot be read (or GitHub refused a write);
//! 2 a usage error (a window that does not read, no database, `csv` without `--out`).

use super::Outcome;
use crate::cli::{ReportArgs, ReportFormat};
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::report::{Format, ReportRequest, report};

pub fn run(args: &ReportArgs) -> Result<Outcome, Error> {
    let done = report(&ReportRequest {
        repo: args.repo.clone(),
        config: args.config.clone(),
        db: args.db.clone(),
        since: args.since.clone(),
        until: args.until.clone(),
        format: match args.format {
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Html => Format::Html,
            ReportFormat::Json => Format::Json,
            ReportFormat::Csv => Format::Csv,
        },
        out: args.out.clone(),
        sections: args.sections.clone(),
        issue: args.issue.clone(),
        remind_after: args.remind_after.clone(),
        token: args.token.clone(),
    })?;
    let mut stdout = done.stdout;
    for path in &done.written {
        stdout.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(Outcome {
        stdout,
        warnings: done.warnings,
        exit_code: exit_codes::OK,
    })
}
