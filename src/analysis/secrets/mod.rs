//! Hardcoded secrets in a skill's files: provider tokens, private keys, JWTs, passwords in URLs
//! and secrets assigned to a name that says so. A finding carries only the redacted value, never
//! the secret. Placeholders are no finding; a value without a provider's format that its place
//! calls an example (a test fixture, `# example`, a Markdown label) is a warning.
//!
//! Every rule reads a bounded window around an anchor (a provider prefix, a PEM marker, a key
//! name), so a scan is linear in the text: a minified bundle or a 100,000-line script costs no
//! more than its size.

mod assignment;
mod entropy;
mod example;
mod findings;
mod jwt;
mod pem;
mod placeholder;
#[cfg(test)]
pub(crate) mod testing;
mod tokens;
mod url;

pub use example::Example;
pub use findings::{Level, RULES, SecretFinding, redact, redact_text, scan};
