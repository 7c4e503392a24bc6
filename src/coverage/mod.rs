//! Coverage reports: line coverage (0.0–1.0) read from the formats test tools write.

mod cobertura;
mod coveragepy;
mod detect;
pub(crate) mod files;
mod gocover;
mod istanbul;
mod jacoco;
mod lcov;
mod limits;
mod model;

pub use detect::{parse_coverage, parse_coverage_as};
pub use files::{read_coverage_as, read_coverage_file};
pub use model::{Coverage, CoverageFormat, CoverageUnit, MixedUnits};
