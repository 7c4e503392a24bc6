//! `skillgate publish --results FILE…`: deliver finished runs read from results documents
//! (matrix shards, or a fork's read-only job), decided again from the head's own files.

use super::{Outcome, publish_mode, rendered};
use crate::cli::PublishArgs;
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::publish::{PublishRequest, publish};

pub fn run(args: &PublishArgs) -> Result<Outcome, Error> {
    let published = publish(&PublishRequest {
        results: args.results.clone(),
        repo: args.repo.clone(),
        config: args.config.clone(),
        db: args.db.clone(),
        publish: publish_mode(args.github.publish),
        token: args.github.token.clone(),
    })?;
    // No run: nothing was recorded, and the warnings say why.
    let (stdout, exit_code) = match &published.run {
        Some(run) => (rendered(run, args.format), run.exit_code(args.fail_on)),
        None => (String::new(), exit_codes::OK),
    };
    Ok(Outcome {
        stdout,
        warnings: published.warnings,
        exit_code,
    })
}
