//! `parse`: reports read the way `check` reads them, in the seed's test-results schema.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use crate::coverage::{self, Coverage, CoverageUnit};
use crate::error::Error;
use crate::gate::TestResults;
use crate::results::{self, ReportFormat, TestRun};

/// What `parse` is asked to read.
#[derive(Debug)]
pub struct ParseRequest {
    /// Test reports, read as one run.
    pub files: Vec<PathBuf>,
    /// The format to read them as; `None` detects it.
    pub format: Option<ReportFormat>,
    /// Coverage reports, read as one.
    pub coverage: Vec<PathBuf>,
}

/// What `parse` read, in the seed's test-results schema.
#[derive(Debug, Serialize)]
pub struct Parsed {
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<TestResults>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<CoverageFigures>,
    /// The `report-disagrees` finding `check` would make: a closing summary in the files
    /// claimed more failures or tests than the itemised reading, or summaries disagreed.
    #[serde(skip_serializing_if = "Option::is_none")]
    report_disagrees: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CoverageFigures {
    ratio: Option<f64>,
    format: &'static str,
    /// `lines`, or `statements` (Go); the counts are under the keys of their unit.
    unit: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines_covered: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines_total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    statements_covered: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    statements_total: Option<u64>,
}

/// Read the reports and coverage files `request` names, as `check` reads them.
pub fn parse(request: &ParseRequest) -> Result<Parsed, Error> {
    let mut run: Option<TestRun> = None;
    for file in &request.files {
        let found = read_report(file, request.format)?;
        match &mut run {
            Some(run) => run.merge(found),
            None => run = Some(found),
        }
    }
    let report_disagrees = run.as_mut().and_then(|run| {
        let read_from = format!(
            "{} ({})",
            request
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            run.format.as_str()
        );
        results::floor::apply(run, &read_from, false).map(|d| d.to_string())
    });
    let mut coverage: Option<Coverage> = None;
    for file in &request.coverage {
        let found = coverage::read_coverage_file(file)
            .map_err(Error::Read)?
            .ok_or_else(|| {
                Error::usage(
                    format!("{} is not a coverage report skillgate can read", file.display()),
                    Some("coverage is read from lcov, Cobertura XML, istanbul JSON, coverage.py JSON, Go coverprofiles and JaCoCo XML"),
                )
            })?;
        match &mut coverage {
            Some(so_far) => so_far.merge(found).map_err(|mixed| {
                Error::usage(
                    format!(
                        "{} counts {} where the reports before it count {}: they do not add up",
                        file.display(),
                        mixed.other.unit.as_str(),
                        mixed.kept.unit.as_str()
                    ),
                    Some("pass reports of one unit to --coverage"),
                )
            })?,
            None => coverage = Some(found),
        }
    }
    let timestamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let ratio = coverage.as_ref().and_then(Coverage::ratio);
    let parsed = Parsed {
        tests: run.map(|run| TestResults::from_run(&run, 0, &timestamp, ratio, None)),
        coverage: coverage.map(|c| CoverageFigures {
            ratio: c.ratio(),
            format: c.format.as_str(),
            unit: c.unit.as_str(),
            lines_covered: (c.unit == CoverageUnit::Lines).then_some(c.covered),
            lines_total: (c.unit == CoverageUnit::Lines).then_some(c.total),
            statements_covered: (c.unit == CoverageUnit::Statements).then_some(c.covered),
            statements_total: (c.unit == CoverageUnit::Statements).then_some(c.total),
        }),
        report_disagrees,
    };
    Ok(parsed)
}

fn read_report(file: &Path, format: Option<ReportFormat>) -> Result<TestRun, Error> {
    if !file.is_file() {
        return Err(Error::usage(
            format!("{} is not a file", file.display()),
            None,
        ));
    }
    let read = match format {
        Some(format) => results::read_report_as(file, format),
        None => results::read_report_file(file),
    };
    read.map_err(Error::Read)?.ok_or_else(|| {
        let how = match format {
            Some(format) => format!("as {}", format.as_str()),
            None => "in any format skillgate knows".to_owned(),
        };
        Error::usage(
            format!("no test results found in {} {how}", file.display()),
            Some("pass --format to read it as one format; see the README's list of formats"),
        )
    })
}
