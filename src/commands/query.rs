//! `skillgate query`: the seed's named queries, or any read-only statement, on the trail.
//!
//! Exit codes: 0 the rows were printed (none is no error); 2 an unknown name, a statement
//! refused (it would write, or is more than one), SQL that does not prepare, a parameter missing,
//! unknown or not found, a statement past the time or size limit, or no database; 1 the database
//! cannot be read.

use super::Outcome;
use crate::cli::{QueryArgs, QueryFormat};
use crate::error::Error;
use crate::exit_codes;
use crate::pipeline::query::{self, QueryRequest, What};

pub fn run(args: &QueryArgs) -> Result<Outcome, Error> {
    let ok = |stdout| Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: exit_codes::OK,
    };
    if args.list {
        return Ok(ok(query::list()));
    }
    let what = match (&args.name, &args.sql) {
        (Some(name), None) => What::Named(name.clone()),
        (None, Some(sql)) => What::Sql(sql.clone()),
        _ => {
            return Err(Error::usage(
                "name one query, or give --sql, or --list",
                Some("`skillgate query --list` names the seed's queries"),
            ));
        }
    };
    let rows = query::run(&QueryRequest {
        repo: args.repo.clone(),
        db: args.db.clone(),
        what,
        params: args.params.clone(),
        limits: Default::default(),
    })?;
    Ok(ok(match args.format {
        QueryFormat::Table => query::table(&rows),
        QueryFormat::Json => query::json(&rows),
        QueryFormat::Csv => query::csv(&rows),
    }))
}
