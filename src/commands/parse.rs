//! `skillgate parse`: read reports the way `check` does and print what was read, in the seed's
//! test-results schema.

use std::path::Path;
use std::time::SystemTime;

use serde::Serialize;

use super::check::Outcome;
use crate::cli::ParseArgs;
use crate::coverage::{self, Coverage, CoverageUnit};
use crate::error::Error;
use crate::exit_codes;
use crate::gate::TestResults;
use crate::results::{self, TestRun};

/// What `parse` prints.
#[derive(Debug, Serialize)]
struct Parsed {
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
struct CoverageFigures {
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

pub fn run(args: &ParseArgs) -> Result<Outcome, Error> {
    let mut run: Option<TestRun> = None;
    for file in &args.files {
        let found = read_report(file, args)?;
        match &mut run {
            Some(run) => run.merge(found),
            None => run = Some(found),
        }
    }
    let report_disagrees = run.as_mut().and_then(|run| {
        let read_from = format!(
            "{} ({})",
            args.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            run.format.as_str()
        );
        results::floor::apply(run, &read_from, false).map(|d| d.to_string())
    });
    let mut coverage: Option<Coverage> = None;
    for file in &args.coverage {
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
    let mut stdout = serde_json::to_string_pretty(&parsed).unwrap_or_default();
    stdout.push('\n');
    Ok(Outcome {
        stdout,
        warnings: Vec::new(),
        exit_code: exit_codes::OK,
    })
}

fn read_report(file: &Path, args: &ParseArgs) -> Result<TestRun, Error> {
    if !file.is_file() {
        return Err(Error::usage(
            format!("{} is not a file", file.display()),
            None,
        ));
    }
    let read = match args.format.forced() {
        Some(format) => results::read_report_as(file, format),
        None => results::read_report_file(file),
    };
    read.map_err(Error::Read)?.ok_or_else(|| {
        let how = match args.format.forced() {
            Some(format) => format!("as {}", format.as_str()),
            None => "in any format skillgate knows".to_owned(),
        };
        Error::usage(
            format!("no test results found in {} {how}", file.display()),
            Some("pass --format to read it as one format; see the README's list of formats"),
        )
    })
}
