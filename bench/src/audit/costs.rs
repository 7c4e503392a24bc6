//! The cost of each run of a segmented trail (`runs.csv` in the bench's directory) and what it
//! comes to at run 100, 1,000 and 10,000.

use std::io::Write;
use std::path::Path;

/// What one run cost.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunCost {
    /// 1-based.
    pub run: u64,
    /// Wall time: connect (read the branch) + record + commit (push), in ms.
    pub ms: f64,
    /// Bytes of the files read from the branch (`Trail::traffic().fetched`).
    pub fetched: u64,
    /// Bytes of the files committed (`Trail::traffic().uploaded`).
    pub uploaded: u64,
    /// Segments the registry records after the run (the open one included).
    pub segments: u64,
    /// Segment files the run read (the newest, and sealed ones whose newest row is within the
    /// last hour).
    pub read: u64,
    /// The largest file the run committed.
    pub largest: u64,
}

pub const HEADER: &str = "run,ms,fetched,uploaded,segments,read,largest";

impl RunCost {
    pub fn csv(&self) -> String {
        format!(
            "{},{:.1},{},{},{},{},{}",
            self.run, self.ms, self.fetched, self.uploaded, self.segments, self.read, self.largest
        )
    }
}

/// Appends each run's line to `DIR/runs.csv` as it comes, so a run cut short keeps its costs.
pub struct Csv(std::io::BufWriter<std::fs::File>);

impl Csv {
    pub fn create(dir: &Path) -> Result<Self, String> {
        let path = dir.join("runs.csv");
        let file = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut csv = Self(std::io::BufWriter::new(file));
        writeln!(csv.0, "{HEADER}").map_err(|e| e.to_string())?;
        Ok(csv)
    }

    pub fn push(&mut self, cost: &RunCost) -> Result<(), String> {
        writeln!(self.0, "{}", cost.csv()).map_err(|e| e.to_string())?;
        if cost.run.is_multiple_of(100) {
            self.0.flush().map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<(), String> {
        self.0.flush().map_err(|e| e.to_string())
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// The costs of runs `range` (1-based, inclusive), each figure on its own.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub from: u64,
    pub until: u64,
    pub ms: f64,
    pub fetched: f64,
    pub uploaded: f64,
}

impl Summary {
    fn of(costs: &[RunCost], from: u64, until: u64, pick: fn(Vec<f64>) -> f64) -> Option<Self> {
        let runs: Vec<&RunCost> = costs
            .iter()
            .filter(|c| (from..=until).contains(&c.run))
            .collect();
        if runs.is_empty() {
            return None;
        }
        let figure = |f: fn(&RunCost) -> f64| pick(runs.iter().map(|c| f(c)).collect());
        Some(Self {
            from,
            until,
            ms: figure(|c| c.ms),
            fetched: figure(|c| c.fetched as f64),
            uploaded: figure(|c| c.uploaded as f64),
        })
    }
}

/// Run `n`'s cost: the median over runs n−49..n, and the mean over the last full segment cycle
/// that ended by run `n` (the runs from one seal to the next: a run's cost follows how full
/// the newest segment is, so a cycle's mean is the cost of a run on average).
pub fn at(costs: &[RunCost], n: u64) -> Option<(Summary, Option<Summary>)> {
    if (costs.len() as u64) < n {
        return None;
    }
    let median50 = Summary::of(costs, n.saturating_sub(49).max(1), n, median)?;
    Some((median50, last_cycle(costs, n)))
}

/// The runs of the last segment cycle that ended by run `n`, averaged: a cycle starts with the
/// run after a seal and ends with the run that seals the next segment.
fn last_cycle(costs: &[RunCost], n: u64) -> Option<Summary> {
    // Runs that sealed a segment: the count of segments went up.
    let seals: Vec<u64> = costs
        .windows(2)
        .filter(|w| w[1].segments > w[0].segments && w[1].run <= n)
        .map(|w| w[1].run)
        .collect();
    let (&last, rest) = seals.split_last()?;
    let first = rest.last().map_or(1, |before| before + 1);
    Summary::of(costs, first, last, |v| mean(&v))
}
