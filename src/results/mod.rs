// TEMPORARY STUB (replaced by the parsers' real mod.rs)
mod model;
pub use model::*;
#[derive(Debug, thiserror::Error)]
#[error("x")]
pub struct ReadError;
pub fn read_report_file(_p: &std::path::Path) -> Result<Option<TestRun>, ReadError> { Ok(None) }
pub fn read_output(_a: &std::path::Path, _b: &std::path::Path) -> Result<Option<TestRun>, ReadError> { Ok(None) }
pub fn from_exit_code(code: Option<i32>, _d: Option<&str>) -> TestRun { let mut r = TestRun::new(ReportFormat::ExitCode); if code == Some(0) { r.passed = 1 } else { r.failed = 1 }; r }
