//! `Redacted`: text from a skill or its tests with every secret in it redacted, the only form in
//! which such text enters the results document.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Deserializer, Serialize};

use crate::analysis::secrets::redact_text;

/// Text with the secrets in it redacted (`ghp_…`). Made only by redacting: [`Redacted::new`],
/// and reading a document, which is the word of the job that ran a pull request's code.
/// Written as the plain string it holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Redacted(String);

impl Redacted {
    /// `text` with every secret in it redacted.
    pub fn new(text: &str) -> Self {
        Self(redact_text(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl<'de> Deserialize<'de> for Redacted {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(Self::new(&text))
    }
}

impl Deref for Redacted {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Redacted {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Redacted> for String {
    fn from(text: Redacted) -> Self {
        text.0
    }
}

impl PartialEq<str> for Redacted {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Redacted {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::secrets::testing::fixture_value;

    fn token() -> String {
        fixture_value("ghp", 16).expect("a fixture token")
    }

    #[test]
    fn made_only_redacted() {
        let token = token();
        let text = Redacted::new(&format!("sent {token} to the API"));
        assert!(!text.contains(&token), "{text}");
        assert!(text.starts_with("sent ghp_"), "{text}");
        assert_eq!(Redacted::new("no secret here"), "no secret here");
    }

    #[test]
    fn read_redacted_written_as_it_is() {
        let token = token();
        let json = serde_json::to_string(&format!("boom: {token}")).expect("json");
        let text: Redacted = serde_json::from_str(&json).expect("a string");
        assert!(!text.contains(&token), "{text}");
        let written = serde_json::to_string(&text).expect("json");
        assert_eq!(written, serde_json::to_string(text.as_str()).expect("json"));
        // Redacting again changes nothing: a document reads back as it was written.
        let again: Redacted = serde_json::from_str(&written).expect("a string");
        assert_eq!(again, text);
    }
}
