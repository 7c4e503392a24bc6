//! The process exit codes: a public contract, documented in the README and DESIGN.md.

/// The gate passed, or there was nothing to gate.
pub const OK: u8 = 0;
/// An internal or I/O error: the gate could not reach a verdict.
pub const ERROR: u8 = 1;
/// A usage or configuration error: fix the command line or `.skillgate.toml`.
pub const USAGE: u8 = 2;
/// At least one skill waits for a review (tier escalate or human).
pub const REVIEW_REQUIRED: u8 = 3;
/// At least one skill needs correction (invalid `SKILL.md`, hardcoded secret).
pub const CORRECTION_NEEDED: u8 = 4;
