//! Support shared by integration tests: a fake GitHub API on loopback.

#![allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses a different part of this module and its re-exports"
)]

pub mod github;
pub mod tools;
