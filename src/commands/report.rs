//! `skillgate report`: the audit trail's analytics for the week, in the format asked for.

use super::Outcome;
use crate::cli::ReportArgs;
use crate::error::Error;

pub fn run(args: &ReportArgs) -> Result<Outcome, Error> {
    let _ = args;
    todo!("report")
}
