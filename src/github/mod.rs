//! Everything that talks to GitHub: the event a job runs for, the REST client, and publishing a
//! gate run (check run, sticky comment, reviewers, job summary and outputs).

pub mod client;
pub mod event;
pub mod outputs;
pub mod publish;
pub mod reviews;
pub mod session;

pub use client::{ApiError, Client, Retry, Token};
pub use event::{Event, PullRequest, Repo};
pub use session::{GithubError, Session};
