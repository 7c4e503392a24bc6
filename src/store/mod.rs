//! The SQLite audit trail: open and migrate, write one gate run in one transaction, chain rows.

mod analytics;
mod baseline;
mod chain;
mod error;
mod export;
mod history;
mod key;
pub mod named;
mod open;
pub mod query;
mod reviews;
mod schema;
mod segments;
mod skills;
mod templates;
mod trail;
mod verify;
mod views;

pub use analytics::{ReportQuery, epoch};
pub use baseline::Baseline;
pub use chain::{GENESIS, row_hash};
pub use error::StoreError;
pub use export::{Exported, export};
pub use history::{RecordStats, sqlite_timestamp};
pub use open::{LATEST_VERSION, MIGRATIONS, Store, check_integrity};
pub use reviews::{Correction, Pending, Review, ReviewDecision};
pub use schema::SchemaProblem;
pub use segments::{
    DEFAULT_SEGMENT_SIZE, MAX_SEGMENT_SIZE, MIN_SEGMENT_SIZE, SEGMENT_MIGRATIONS, Segment, Split,
    file_name as segment_file_name, sha256,
};
pub use templates::TemplateProblem;
pub use trail::{SegmentProblem, SegmentStatus, TrailReport, stray_files, trail_dir};
pub use verify::{BreakKind, ChainBreak, ChainReport};

/// The five example skills' run (`tests/fixtures/render/gate-run.json`) as run `n`: a run
/// whose rows the store's tests record.
#[cfg(test)]
pub(crate) fn example_run(n: usize) -> crate::gate::GateRun {
    let mut run: crate::gate::GateRun =
        serde_json::from_str(include_str!("../../tests/fixtures/render/gate-run.json"))
            .expect("fixture");
    run.run.run_id = Some(format!("run-{n}"));
    run
}
pub use views::{Assembly, TrailView};
