//! `skillgate review`, on a `pull_request_review` event: an eligible reviewer's approval (or
//! change request) is recorded for the skills waiting at the pull request's head; once every
//! one has the approvals its tier needs, the check run passes.

use super::{Outcome, publish_mode};
use crate::cli::ReviewArgs;
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::review::{ReviewRequest, review};

pub fn run(args: &ReviewArgs) -> Result<Outcome, Error> {
    let reviewed = review(&ReviewRequest {
        repo: args.repo.clone(),
        config: args.config.clone(),
        db: args.db.clone(),
        publish: publish_mode(args.github.publish),
        token: args.github.token.clone(),
    })?;
    Ok(Outcome {
        stdout: reviewed.report,
        warnings: reviewed.warnings,
        exit_code: exit_codes::OK,
    })
}
