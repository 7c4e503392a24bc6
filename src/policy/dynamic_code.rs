//! Dynamic code (`eval`, `bash -c "$(…)"`, a variable command name, `exec` of a non-literal):
//! what it runs is only known when it runs, so no analysis vouches for it and a reviewer reads
//! it. Hidden code (`base64 -d | sh`) is security-sensitive, judged there.

use super::Policy;
use super::content::judge;
use super::criterion::{Assessment, Category, Criterion, Demand};
use crate::signals::Signals;

pub struct DynamicCode;

impl Criterion for DynamicCode {
    fn key(&self) -> &'static str {
        "dynamic_code"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        // Judged only when found: a skill without any keeps the criteria it had.
        let found = &signals.analysis.as_ref()?.dynamic_code;
        if found.is_empty() {
            return None;
        }
        Some(judge(
            found,
            Demand::Escalate(Category::Unanalysed),
            "dynamic code (known only when it runs)",
        ))
    }
}
