//! One file per subcommand.

pub mod check;
