//! Which reader a coverage report needs, judged by content (never by file name).

use std::io::{Read, Seek};

use super::model::{Coverage, CoverageFormat};
use super::{cobertura, coveragepy, gocover, istanbul, jacoco, lcov};
use crate::input::InputError;
use crate::input::encoding::strip_bom;
use crate::input::head::read_head;

/// Read a coverage report, detecting its format by content. `Ok(None)` when the input is not a
/// coverage report (a JUnit report, a log, a binary); `Err` when it is one but is broken.
pub fn parse_coverage<R: Read + Seek>(mut input: R) -> Result<Option<Coverage>, InputError> {
    let head = read_head(&mut input)?;
    let head = strip_bom(&head);
    // Reports are text; images, archives and databases nearly always hold NUL bytes.
    if head.contains(&0) {
        return Ok(None);
    }
    // The sniffs are exclusive (an XML root name, JSON keys, a first text line), so the first
    // that matches decides; lcov comes last because its reader is the most forgiving.
    type Sniff = fn(&[u8]) -> bool;
    let readers: [(Sniff, CoverageFormat); 6] = [
        (cobertura::sniff, CoverageFormat::Cobertura),
        (jacoco::sniff, CoverageFormat::Jacoco),
        (coveragepy::sniff, CoverageFormat::CoveragePy),
        (istanbul::sniff, CoverageFormat::Istanbul),
        (gocover::sniff, CoverageFormat::GoCover),
        (lcov::sniff, CoverageFormat::Lcov),
    ];
    match readers.iter().find(|(sniff, _)| sniff(head)) {
        Some(&(_, format)) => parse_coverage_as(input, format),
        None => Ok(None),
    }
}

/// Read a coverage report as `format`, whatever it looks like. `Ok(None)` when the input does
/// not hold that format.
pub fn parse_coverage_as<R: Read + Seek>(
    input: R,
    format: CoverageFormat,
) -> Result<Option<Coverage>, InputError> {
    match format {
        CoverageFormat::Lcov => lcov::read(input),
        CoverageFormat::Cobertura => cobertura::read(input),
        CoverageFormat::Istanbul => istanbul::read(input),
        CoverageFormat::CoveragePy => coveragepy::read(input),
        CoverageFormat::GoCover => gocover::read(input),
        CoverageFormat::Jacoco => jacoco::read(input),
    }
}
