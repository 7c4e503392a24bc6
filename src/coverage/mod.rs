//! Coverage reports: line coverage (0.0–1.0) read from the formats test tools write.

mod lcov;
mod model;

pub use lcov::read_coverage_file;
pub use model::{Coverage, CoverageFormat};
