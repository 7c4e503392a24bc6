//! `skillgate query`: the seed's named queries, or any read-only statement, on the trail.

use super::Outcome;
use crate::cli::QueryArgs;
use crate::error::Error;

pub fn run(args: &QueryArgs) -> Result<Outcome, Error> {
    let _ = args;
    todo!("query")
}
