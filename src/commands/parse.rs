//! `skillgate parse`: read reports the way `check` does and print what was read, in the seed's
//! test-results schema.

use super::Outcome;
use crate::cli::ParseArgs;
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::parse::{ParseRequest, parse};

pub fn run(args: &ParseArgs) -> Result<Outcome, Error> {
    let parsed = parse(&ParseRequest {
        files: args.files.clone(),
        format: args.format.forced(),
        coverage: args.coverage.clone(),
    })?;
    let mut stdout = serde_json::to_string_pretty(&parsed).unwrap_or_default();
    stdout.push('\n');
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: exit_codes::OK,
    })
}
