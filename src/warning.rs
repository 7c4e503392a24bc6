//! A warning for the log: what it is about, and the message printed after `warning: `.

use std::fmt;

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// The config a run applies is not the one in the checkout.
    Config,
    /// Which skills are gated, and how the changes were found.
    Scope,
    /// What reading a suite's results turned up.
    Results,
    /// Publishing to GitHub: what was posted, what was not, and why.
    Publish,
    /// The audit trail: what was committed, and how large it grows.
    Audit,
    /// Reviews and the approvals recorded for them.
    Review,
}

/// One line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub kind: WarningKind,
    pub message: String,
}

impl Warning {
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// Each message of `messages`, of one kind.
    pub fn all(
        kind: WarningKind,
        messages: impl IntoIterator<Item = String>,
    ) -> impl Iterator<Item = Self> {
        messages
            .into_iter()
            .map(move |message| Self::new(kind, message))
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_prints_its_message_alone() {
        let warning = Warning::new(
            WarningKind::Scope,
            "the working tree has uncommitted changes",
        );
        assert_eq!(
            warning.to_string(),
            "the working tree has uncommitted changes"
        );
        assert_eq!(warning.kind, WarningKind::Scope);
    }
}
