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

/// What a format counts: lines, or (Go) statements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoverageUnit {
    #[default]
    Lines,
    /// Go's coverprofile: statements, as `go tool cover -func` and `go test -cover` count them.
    Statements,
}

impl CoverageUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lines => "lines",
            Self::Statements => "statements",
        }
    }
}

/// Covered out of coverable, in the format's own unit, across every file of one report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub format: CoverageFormat,
    #[serde(default)]
    pub unit: CoverageUnit,
    pub covered: u64,
    pub total: u64,
}

impl Coverage {
    /// Covered over total, 0.0–1.0; `None` when there is nothing to cover at all (no
    /// measurement is not 100%).
    pub fn ratio(&self) -> Option<f64> {
        (self.total > 0).then(|| self.covered as f64 / self.total as f64)
    }

    /// Add another report's counts (one suite writing several). Counts of another unit do not
    /// add up with these: `Err` hands both back, unchanged.
    pub fn merge(&mut self, other: Coverage) -> Result<(), Box<MixedUnits>> {
        if other.unit != self.unit {
            return Err(Box::new(MixedUnits {
                kept: self.clone(),
                other,
            }));
        }
        self.covered = self.covered.saturating_add(other.covered);
        self.total = self.total.saturating_add(other.total);
        Ok(())
    }
}

/// Two coverage reports in different units (lines, statements), which cannot be added.
#[derive(Debug, Clone, PartialEq)]
pub struct MixedUnits {
    /// What was counted so far.
    pub kept: Coverage,
    /// The report that counts in another unit.
    pub other: Coverage,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_is_none_without_lines() {
        let mut coverage = Coverage {
            format: CoverageFormat::Lcov,
            unit: CoverageUnit::Lines,
            covered: 0,
            total: 0,
        };
        assert_eq!(coverage.ratio(), None);
        coverage.covered = 3;
        coverage.total = 4;
        assert_eq!(coverage.ratio(), Some(0.75));
    }

    #[test]
    fn serializes_the_format_in_lowercase() {
        let coverage = Coverage {
            format: CoverageFormat::Lcov,
            unit: CoverageUnit::Lines,
            covered: 1,
            total: 2,
        };
        let json = serde_json::to_value(&coverage).expect("serialize");
        assert_eq!(
            json,
            serde_json::json!({"format": "lcov", "unit": "lines", "covered": 1, "total": 2})
        );
        assert_eq!(CoverageFormat::Lcov.as_str(), "lcov");
        let back: Coverage = serde_json::from_value(json).expect("deserialize");
        assert_eq!(back, coverage);
    }
}
