//! Security-sensitive code (privilege, remote code, credentials, crypto, auth, TLS checks off,
//! writes under `/etc`, native code, library injection, hidden or destructive code) goes to a
//! maintainer.

use super::Policy;
use super::content::judge;
use super::criterion::{Assessment, Criterion, Demand};
use crate::signals::Signals;

pub struct SecuritySensitive;

impl Criterion for SecuritySensitive {
    fn key(&self) -> &'static str {
        "security_sensitive"
    }

    fn evaluate(&self, signals: &Signals, _policy: &Policy) -> Option<Assessment> {
        let found = &signals.analysis.as_ref()?.security_sensitive;
        Some(judge(found, Demand::Human, "security-sensitive code"))
    }
}
