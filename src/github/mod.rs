//! Everything that talks to GitHub: the event a job runs for, the REST client, and publishing a
//! gate run (check run, sticky comment, reviewers, job summary and outputs), and a scheduled
//! report's tracking issue and review reminders.

pub mod client;
pub mod event;
pub mod outputs;
pub mod publish;
pub mod remind;
pub mod reviews;
pub mod session;
pub mod tracking;

pub use client::{ApiError, Client, Retry, Token};
pub use event::{Event, PullRequest, Repo};
pub use remind::{Reminders, Wait, open_heads, remind, waits_of};
pub use session::{GithubError, Session};
pub use tracking::{REPORT_LABEL, Tracked, upsert_issue};
