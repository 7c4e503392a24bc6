//! `skillgate lint [PATH]…`: the skill lint alone, on the repository's skills or on the paths
//! given; nothing is run and nothing is recorded.

use super::Outcome;
use crate::cli::{LintArgs, LintFormat};
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::lint::{LintRequest, lint};
use crate::render;
use crate::skill::Severity;

pub fn run(args: &LintArgs) -> Result<Outcome, Error> {
    let report = lint(&LintRequest {
        repo: args.repo.clone(),
        config: args.config.clone(),
        paths: args.paths.clone(),
    })?;
    let stdout = match args.format {
        LintFormat::Text => render::lint_text(&report),
        LintFormat::Json => render::lint_json(&report),
    };
    let errors = report
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: if errors {
            exit_codes::CORRECTION_NEEDED
        } else {
            exit_codes::OK
        },
    })
}
