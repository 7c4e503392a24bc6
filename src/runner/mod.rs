//! Running suites like a careful CI system: bounded parallelism, process groups ended on
//! timeout, capped output captured to files, and a scrubbed environment.

mod capture;
mod env;
mod group;
mod interrupt;
mod run;

pub use env::scrubbed_env;
pub use interrupt::interrupted;
pub use run::{Finished, Job, KILL_GRACE, RunnerError, Settings, run_all};
