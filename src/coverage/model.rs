//! Measured line coverage, whatever format it was read from.

use serde::{Deserialize, Serialize};

/// The format a coverage report was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverageFormat {
    Lcov,
    /// Cobertura XML (coverage.py `xml`, istanbul `cobertura`, gcovr, …).
    Cobertura,
    /// istanbul/nyc/jest `coverage-summary.json`.
    Istanbul,
    /// coverage.py `json`.
    CoveragePy,
    /// Go's `-coverprofile`.
    GoCover,
    /// JaCoCo XML.
    Jacoco,
}

impl CoverageFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lcov => "lcov",
            Self::Cobertura => "cobertura",
            Self::Istanbul => "istanbul",
            Self::CoveragePy => "coverage-py",
            Self::GoCover => "go-cover",
            Self::Jacoco => "jacoco",
        }
    }
}

/// Lines covered out of lines that could be, across every file of one report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub format: CoverageFormat,
    pub lines_covered: u64,
    pub lines_total: u64,
}

impl Coverage {
    /// Covered lines over total lines, 0.0–1.0; `None` when there are no lines at all (no
    /// measurement is not 100%).
    pub fn ratio(&self) -> Option<f64> {
        (self.lines_total > 0).then(|| self.lines_covered as f64 / self.lines_total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_is_none_without_lines() {
        let mut coverage = Coverage {
            format: CoverageFormat::Lcov,
            lines_covered: 0,
            lines_total: 0,
        };
        assert_eq!(coverage.ratio(), None);
        coverage.lines_covered = 3;
        coverage.lines_total = 4;
        assert_eq!(coverage.ratio(), Some(0.75));
    }

    #[test]
    fn serializes_the_format_in_lowercase() {
        let coverage = Coverage {
            format: CoverageFormat::Lcov,
            lines_covered: 1,
            lines_total: 2,
        };
        let json = serde_json::to_value(&coverage).expect("serialize");
        assert_eq!(
            json,
            serde_json::json!({"format": "lcov", "lines_covered": 1, "lines_total": 2})
        );
        assert_eq!(CoverageFormat::Lcov.as_str(), "lcov");
        let back: Coverage = serde_json::from_value(json).expect("deserialize");
        assert_eq!(back, coverage);
    }
}
