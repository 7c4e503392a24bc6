//! A suite's stdout and stderr as one: which stream's run wins, how runs of one format in both
//! streams combine, and which closing summaries count as the floor.

use super::floor;
use super::line_reader::{self, Merge};
use super::model::{Claim, ReportFormat, TestRun};

/// A suite's stdout and stderr read by `read` (each through every format; stdout first) and
/// combined as [`merge_output`] does: the one loop the gate and the fuzz targets share.
pub fn read_streams<E>(
    mut read: impl FnMut(&'static str) -> Result<Option<TestRun>, E>,
) -> Result<Option<TestRun>, E> {
    let mut found: Vec<(TestRun, &str)> = Vec::new();
    for origin in ["stdout", "stderr"] {
        if let Some(run) = read(origin)? {
            found.push((run, origin));
        }
    }
    Ok(merge_output(found))
}

/// The runs read from a suite's stdout and stderr (stdout first), each with the stream it was
/// read from, as one. The most specific format found in either stream wins; when both streams
/// hold it, their runs are merged (a plain closing line or a harness's totals are a whole, so
/// the later one wins instead, unless only the earlier printed its totals).
/// `None` when neither holds results.
///
/// The run carries every framework's closing summary from both streams (the floor of its
/// counts), but a harness's tally only from a stream it was read from: a tally on the other
/// stream is as likely what the code under test printed.
pub fn merge_output(found: Vec<(TestRun, &str)>) -> Option<TestRun> {
    let best = found.iter().map(|(r, _)| output_rank(r.format)).min()?;
    let mut claims: Vec<Claim> = Vec::new();
    let mut run: Option<TestRun> = None;
    let mut counted: Vec<&str> = Vec::new();
    for (mut later, origin) in found {
        let own_summary = later.claims.iter().any(|c| c.format == later.format);
        claims.append(&mut later.claims);
        if output_rank(later.format) != best {
            continue;
        }
        match &mut run {
            Some(first) => match line_reader::merge_rule(first.format) {
                Merge::Add => first.merge(later),
                Merge::OneRun => first.merge_halves(later),
                // Totals a stream printed win over markers the other printed.
                Merge::LaterWins if !own_summary && first_has_summary(&claims, first, &counted) => {
                    continue;
                }
                Merge::LaterWins => {
                    counted.clear();
                    run = Some(later);
                }
            },
            None => run = Some(later),
        }
        counted.push(origin);
    }
    claims.retain(|c| !floor::is_tally(c.format) || counted.contains(&c.origin.as_str()));
    run.map(|run| TestRun { claims, ..run })
}

/// Whether the run read so far printed its own format's summary in a stream it was read from.
fn first_has_summary(claims: &[Claim], first: &TestRun, counted: &[&str]) -> bool {
    claims
        .iter()
        .any(|c| c.format == first.format && counted.contains(&c.origin.as_str()))
}

/// The closing summaries of a suite's streams as the floor of results read from report files:
/// a harness's tally counts only when no framework printed a summary, since beside one it is as
/// likely what the code under test printed.
pub(crate) fn summaries_first(mut claims: Vec<Claim>) -> Vec<Claim> {
    if claims.iter().any(|c| !floor::is_tally(c.format)) {
        claims.retain(|c| !floor::is_tally(c.format));
    }
    claims
}

/// Documents first (they are whole reports), then the line formats in their order.
fn output_rank(format: ReportFormat) -> usize {
    match format {
        ReportFormat::Jest | ReportFormat::Mocha => 0,
        other => 1 + line_reader::rank(other),
    }
}
