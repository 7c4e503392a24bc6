//! Which command tests a skill: the declared `test-suite`, a conventional `test.sh`, or a
//! framework found in the skill's files. First match wins. A detected framework is run with the
//! flags that make it write its report, and its coverage where it measures any, into
//! [`REPORT_DIR`].

mod bats;
mod bun;
mod host;
mod node;
mod python;
mod python_source;
mod resolve;
mod script;
mod shell;
#[cfg(test)]
mod testing;

pub use resolve::{
    CONVENTIONAL, REPORT_DIR, Resolution, Suite, SuiteSource, Unavailability, Unrun, find_in_path,
    resolve,
};
