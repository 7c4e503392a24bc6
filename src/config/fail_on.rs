//! `--fail-on`: which decisions make a run fail, that is, exit with a code other than 0.

/// The decisions that fail the run (see `GateRun::exit_code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    /// A skill escalated, for a human, or in need of correction.
    Review,
    /// A skill in need of correction.
    Correction,
    /// None: the exit code is 0 whatever was decided.
    Never,
}
