//! Coverage reports: line coverage (0.0–1.0) read from the formats test tools write.

mod cobertura;
mod coveragepy;
mod detect;
mod gocover;
mod istanbul;
mod jacoco;
mod lcov;
mod model;

pub use detect::{read_coverage_as, read_coverage_file};
pub use model::{Coverage, CoverageFormat, CoverageUnit, MixedUnits};
