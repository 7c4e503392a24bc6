//! The gate's pipeline, one file a stage: [`scope`] (which skills), [`prepare`] (each skill
//! read), [`run`] (their suites), [`assess`] (signals and the decision), [`trail`] and
//! [`deliver`] (recorded, then published). [`check`] runs them in order on a checkout;
//! [`publish`], [`recompute`], [`review`], [`lint`], [`parse`] and [`audit`] are the other
//! operations. Each takes a request of its own and returns values: nothing here prints.

pub mod assess;
pub mod attempt;
pub mod audit;
pub mod check;
pub mod deliver;
pub mod evidence;
pub mod lint;
pub mod parse;
pub mod prepare;
pub mod publish;
pub mod query;
pub mod recompute;
pub mod report;
pub mod review;
pub mod run;
pub mod scope;
pub mod trail;
pub mod trust;
