//! What the criteria on a skill's content share: none found passes, any found demands a tier,
//! with the evidence listed.

use super::criterion::{Assessment, Demand};
use super::dependencies::list;

/// `found` judged: none passes, any demands `demand`.
pub(super) fn judge(found: &[String], demand: Demand, what: &str) -> Assessment {
    if found.is_empty() {
        Assessment::new(false, false, Demand::Auto, format!("no {what}"))
    } else {
        Assessment::new(false, true, demand, format!("{what}: {}", list(found)))
    }
}
