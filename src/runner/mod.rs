//! Running suites like a careful CI system: bounded parallelism, process groups ended on
//! timeout, capped output captured to files, an allowlisted environment with a fresh `HOME` and
//! `TMPDIR`, and attempt directories no other suite can find.

mod capture;
mod env;
mod group;
mod interrupt;
mod run;
mod workspace;

pub use env::scrubbed_env;
pub use interrupt::interrupted;
pub use run::{Finished, Job, KILL_GRACE, RunnerError, Settings, run_all, suites_started};
pub use workspace::Workspace;

#[cfg(test)]
pub(crate) use run::mark_suites_started;
