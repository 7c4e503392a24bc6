//! `skillgate check`: discover → run → read → decide → record → render, on a local checkout.

use std::sync::Arc;

use super::{Outcome, publish_mode, rendered};
use crate::cli::CheckArgs;
use crate::error::Error;
use crate::pipeline::check::{CheckRequest, check};
use crate::pipeline::scope::Selection;
use crate::runner::Progress;

/// `progress` hears of each suite as it starts and ends.
pub fn run(args: &CheckArgs, progress: &Arc<dyn Progress>) -> Result<Outcome, Error> {
    let request = CheckRequest {
        repo: args.repo.clone(),
        selection: Selection {
            all: args.all,
            base: args.base.clone(),
            head: args.head.clone(),
            skills: args.skills.clone(),
        },
        config: args.config.clone(),
        db: args.db.clone(),
        out: args.out.clone(),
        publish: publish_mode(args.github.publish),
        token: args.github.token.clone(),
        jobs: args.jobs,
    };
    let checked = check(&request, progress)?;
    Ok(Outcome {
        stdout: rendered(&checked.run, args.format),
        warnings: checked.warnings,
        exit_code: checked.run.exit_code(args.fail_on),
    })
}
