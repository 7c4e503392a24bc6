//! What the runner tells whoever watches a run (a display, or nobody): each suite as it starts
//! and ends, and a tick while suites run.

use std::time::Duration;

use super::run::{Finished, Job};

/// How often the runner ticks while suites run (and a live display redraws).
pub const TICK: Duration = Duration::from_millis(100);

/// Told as suites start and end. Called from the runner's tasks: implementations lock.
pub trait Progress: Send + Sync {
    /// A batch of `total` suites is about to run (the first run, then each round of retries).
    fn begin(&self, total: usize) {
        let _ = total;
    }
    fn started(&self, index: usize, job: &Job);
    fn finished(&self, index: usize, job: &Job, finished: &Finished, timeout: Duration);
    /// Every [`TICK`] while suites run.
    fn tick(&self) {}
    /// The run is over: leave the terminal as it was.
    fn done(&self) {}
}

/// For runs nobody watches (tests, `parse`).
pub struct Silent;

impl Progress for Silent {
    fn started(&self, _: usize, _: &Job) {}
    fn finished(&self, _: usize, _: &Job, _: &Finished, _: Duration) {}
}
