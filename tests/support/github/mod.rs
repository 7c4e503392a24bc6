//! A fake GitHub REST API on 127.0.0.1 for integration tests: it routes every operation of
//! `openapi-subset.strict.json`, validates each request (headers, query, body) and records a
//! violation for anything GitHub's contract does not allow, keeps enough state (comments, check
//! runs, pull requests, issues, reviewers, git data) for re-runs to behave like GitHub, and answers with
//! GitHub's documented examples otherwise. Faults (5xx, rate limits, delays) can be scripted.
//!
//! ```ignore
//! let fake = FakeGitHub::start();
//! fake.set_pull(7, HEAD, BASE, "octocat", "o/r", "o/r");
//! // run the binary with GITHUB_API_URL=fake.url(), GITHUB_TOKEN=fake.token()
//! fake.assert_no_violations();
//! ```

mod checks;
pub mod client;
mod comments;
mod dispatch;
mod fake;
mod git;
mod issues;
mod pulls;
mod record;
mod reply;
pub mod schema;
mod server;
mod spec;
mod state;
pub mod util;

pub use fake::{DEFAULT_TOKEN, FakeGitHub};
pub use record::{RecordedRequest, Violation};
pub use state::{CheckRun, Comment, GitCommit, Issue, PullFile, ReviewerRequest};

/// The limits the fake enforces beyond the schema.
pub mod limits {
    pub use super::checks::{MAX_ANNOTATION_TITLE, MAX_OUTPUT_BYTES};
    pub use super::comments::MAX_COMMENT_CHARS;
    pub use super::issues::{MAX_ISSUE_BODY_CHARS, MAX_ISSUE_TITLE_CHARS};
    pub use super::pulls::MAX_LISTED_FILES;
}
