//! The three tiers as pure code: each criterion in its own file, a registry, and `decide`.

mod analysis_complete;
mod approval_level;
mod breaking_change;
mod category_change;
mod category_level;
mod complexity;
mod content;
mod coverage;
mod criterion;
mod database_write;
mod decide;
mod dependencies;
mod dynamic_code;
mod infrastructure;
mod lint;
mod pass_rate;
mod registry;
mod retries;
mod risk;
mod secrets;
mod security_sensitive;
mod skill_root;
pub mod stricter;
mod submodules;
mod suite_exit;
pub mod template;
mod test_results;
mod test_suite;
mod tests_not_run;

pub use criterion::{Assessment, Category, Check, Criterion, Demand};
pub use decide::{Decision, Verdict, decide};
pub use registry::CRITERIA;

/// The thresholds `decide` applies: `[policy]` of the config.
pub type Policy = crate::config::PolicyConfig;
