//! One file per subcommand.

pub mod audit;
pub mod check;
pub mod lint;
pub mod parse;
pub mod publish;
pub mod recompute;
pub mod review;
