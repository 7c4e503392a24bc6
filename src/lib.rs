//! skillgate: a test-driven gate for agent skills.
//!
//! The pipeline reads top to bottom: discover skills and changes, run their suites, read the
//! results, decide a tier, record the decision, render it. `main.rs` only maps commands to exit
//! codes; everything here returns values and never prints.
#![warn(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

pub mod analysis;
pub mod audit;
pub mod changes;
pub mod cli;
pub mod commands;
pub mod config;
pub mod coverage;
pub mod discover;
pub mod documented;
pub mod error;
pub mod exit_codes;
pub mod frontmatter;
pub mod gate;
pub mod git;
pub mod github;
pub mod glob;
pub mod input;
pub mod lint;
pub mod pipeline;
pub mod policy;
pub mod progress;
pub mod random;
pub mod render;
pub mod report;
pub mod results;
pub mod routing;
pub mod runner;
pub mod signals;
pub mod skill;
pub mod store;
pub mod suite;
pub mod untrusted;
pub mod warning;

pub use error::Error;
