//! node:test's closing totals (`tests`, `pass`, `fail`, `cancelled`, `skipped`, `todo`), as its
//! TAP reporter prints them (`# tests 9`), its spec reporter (`ℹ tests 9`) and its JUnit one
//! (`<!-- tests 9 -->`): summed over the runs in one text, and read in this crate's counting
//! rules. Each reader finds the key and the number in its own lines, and decides what other
//! keys are.

use super::model::{Claim, Outcome, ReportFormat};

/// node's totals, summed over every run in the text.
#[derive(Default)]
pub(crate) struct NodeTotals {
    seen_tests: bool,
    seen_pass: bool,
    seen_fail: bool,
    pub(crate) pass: u64,
    pub(crate) fail: u64,
    pub(crate) cancelled: u64,
    pub(crate) skipped: u64,
    pub(crate) todo: u64,
}

impl NodeTotals {
    /// Add `n` to the total named `key`; false when `key` is none of `tests`, `pass`, `fail`,
    /// `cancelled`, `skipped`, `todo` (the caller decides what other keys are). `tests` is only
    /// noted: node counts parents among its tests, and the other totals say what each test did.
    pub(crate) fn add(&mut self, key: &str, n: u64) -> bool {
        let add = |total: &mut u64| *total = total.saturating_add(n);
        match key {
            "tests" => self.seen_tests = true,
            "pass" => {
                self.seen_pass = true;
                add(&mut self.pass);
            }
            "fail" => {
                self.seen_fail = true;
                add(&mut self.fail);
            }
            "cancelled" => add(&mut self.cancelled),
            "skipped" => add(&mut self.skipped),
            "todo" => add(&mut self.todo),
            _ => return false,
        }
        true
    }

    /// `tests`, `pass` and `fail` were read: node's closing summary, not a stray line.
    pub(crate) fn complete(&self) -> bool {
        self.seen_tests && self.seen_pass && self.seen_fail
    }

    /// Passed, failed and skipped in this crate's rules: `cancelled` is failed, `todo` skipped.
    pub(crate) fn counts(&self) -> (u64, u64, u64) {
        (
            self.pass,
            self.fail.saturating_add(self.cancelled),
            self.skipped.saturating_add(self.todo),
        )
    }

    /// The totals in this crate's rules ([`NodeTotals::counts`]), less the parents node
    /// counted as tests and the reader did not.
    pub(crate) fn claim(&self, format: ReportFormat, parents: &Parents) -> Claim {
        let (passed, failed, skipped) = self.counts();
        Claim::new(
            format,
            passed.saturating_sub(parents.passed),
            failed.saturating_sub(parents.failed),
            skipped.saturating_sub(parents.skipped),
        )
    }
}

/// Tests with subtests that were not counted (parents), by outcome: node counts them.
#[derive(Default, Clone, Copy)]
pub(crate) struct Parents {
    pub(crate) passed: u64,
    pub(crate) failed: u64,
    pub(crate) skipped: u64,
}

impl Parents {
    pub(crate) fn add(&mut self, outcome: Outcome) {
        let n = match outcome {
            Outcome::Passed => &mut self.passed,
            Outcome::Failed => &mut self.failed,
            Outcome::Skipped => &mut self.skipped,
        };
        *n = n.saturating_add(1);
    }
}
