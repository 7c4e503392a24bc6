//! Running suites like a careful CI system: bounded parallelism, process groups ended on
//! timeout, capped output captured to files, an allowlisted environment with a fresh `HOME` and
//! `TMPDIR`, and attempt directories no other suite can find.

mod capture;
mod env;
mod group;
mod interrupt;
mod observer;
mod run;
mod workspace;

pub use env::scrubbed_env;
pub use interrupt::interrupted;
pub use observer::{Progress, Silent, TICK};
pub use run::{Finished, Job, KILL_GRACE, RunnerError, Settings, run_all};
pub use workspace::Workspace;
