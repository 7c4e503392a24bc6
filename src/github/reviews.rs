//! The reviews GitHub holds for a pull request: what confirms an approval the audit trail
//! records. A row in the database is only the gate's memory; GitHub's list is the fact.

use std::collections::BTreeMap;

use serde_json::Value;

use super::client::{ApiError, Client};
use super::event::Repo;

/// Reviews read of one pull request. Past this the list cannot be trusted to hold each
/// reviewer's latest word, so it is refused rather than read in part.
pub const MAX_REVIEWS: usize = 3_000;

/// What a review said, as `pulls/list-reviews` spells it (`APPROVED`, `DISMISSED`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewState {
    Approved,
    ChangesRequested,
    Commented,
    Dismissed,
    /// Started, not submitted: only its author's token sees it, and it decides nothing.
    Pending,
    /// A state this build does not know: never an approval.
    Other,
}

impl ReviewState {
    pub fn parse(text: &str) -> Self {
        match text.to_ascii_uppercase().as_str() {
            "APPROVED" => Self::Approved,
            "CHANGES_REQUESTED" => Self::ChangesRequested,
            "COMMENTED" => Self::Commented,
            "DISMISSED" => Self::Dismissed,
            "PENDING" => Self::Pending,
            _ => Self::Other,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Approved => "an approval",
            Self::ChangesRequested => "a change request",
            Self::Commented => "a comment",
            Self::Dismissed => "dismissed",
            Self::Pending => "not submitted",
            Self::Other => "of an unknown state",
        }
    }
}

/// One entry of `pulls/list-reviews`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullReview {
    pub id: u64,
    pub login: String,
    pub state: ReviewState,
    /// The head the review was given on.
    pub commit_id: Option<String>,
}

impl PullReview {
    /// `None` for an entry without an id or a user (a deleted account shows as `user: null`):
    /// nobody's approval can be confirmed by it.
    pub fn from_json(value: &Value) -> Option<Self> {
        Some(Self {
            id: value.get("id")?.as_u64()?,
            login: value.pointer("/user/login")?.as_str()?.to_owned(),
            state: ReviewState::parse(value.get("state")?.as_str()?),
            commit_id: value
                .get("commit_id")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }
}

/// Why a recorded approval is not confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconfirmed {
    /// The reviewer has no approval, change request or dismissal on the pull request.
    NoReview,
    /// Their latest word is not an approval.
    Latest(ReviewState),
    /// Their latest word approves another commit.
    OtherCommit(Option<String>),
}

impl std::fmt::Display for Unconfirmed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoReview => f.write_str("they have not reviewed the pull request"),
            Self::Latest(state) => write!(f, "their latest review is {}", state.describe()),
            Self::OtherCommit(Some(sha)) => write!(
                f,
                "their latest approval is of {}",
                sha.get(..12).unwrap_or(sha)
            ),
            Self::OtherCommit(None) => f.write_str("their latest approval names no commit"),
        }
    }
}

/// Each reviewer's latest word on a pull request, as GitHub counts it: comments do not change
/// it, a dismissal withdraws it.
#[derive(Debug, Clone, Default)]
pub struct Reviews {
    /// By login, lowercased (logins are case-insensitive).
    latest: BTreeMap<String, PullReview>,
}

impl Reviews {
    pub fn new(reviews: impl IntoIterator<Item = PullReview>) -> Self {
        let mut all: Vec<PullReview> = reviews
            .into_iter()
            .filter(|r| !matches!(r.state, ReviewState::Commented | ReviewState::Pending))
            .collect();
        // GitHub lists reviews oldest first; ids grow with time, so order by them rather than
        // depend on the order of the pages.
        all.sort_by_key(|r| r.id);
        let mut latest = BTreeMap::new();
        for review in all {
            latest.insert(review.login.to_ascii_lowercase(), review);
        }
        Self { latest }
    }

    /// Whether `login`'s latest word on the pull request approves `head`.
    pub fn confirm(&self, login: &str, head: &str) -> Result<(), Unconfirmed> {
        let review = self
            .latest
            .get(&login.to_ascii_lowercase())
            .ok_or(Unconfirmed::NoReview)?;
        if review.state != ReviewState::Approved {
            return Err(Unconfirmed::Latest(review.state));
        }
        if review.commit_id.as_deref() != Some(head) {
            return Err(Unconfirmed::OtherCommit(review.commit_id.clone()));
        }
        Ok(())
    }
}

/// Every review of a pull request (every page).
pub async fn list(client: &Client, repo: &Repo, number: u64) -> Result<Reviews, ApiError> {
    let path = format!(
        "/repos/{}/{}/pulls/{number}/reviews?per_page=100",
        repo.owner, repo.name
    );
    let (items, more) = client.get_all(&path, MAX_REVIEWS).await?;
    if more {
        return Err(ApiError::Decode {
            method: "GET",
            path,
            message: format!(
                "more than {MAX_REVIEWS} reviews: each reviewer's latest cannot be known"
            ),
        });
    }
    Ok(Reviews::new(items.iter().filter_map(PullReview::from_json)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    const OLD: &str = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";

    fn review(id: u64, login: &str, state: &str, commit: &str) -> PullReview {
        PullReview::from_json(&json!({
            "id": id,
            "user": {"login": login},
            "state": state,
            "commit_id": commit,
        }))
        .expect("review")
    }

    #[test]
    fn an_entry_of_the_list_reads_as_github_documents_it() {
        let example = json!({
            "id": 80,
            "user": {"login": "octocat", "id": 1},
            "body": "Here is the body for the review.",
            "state": "APPROVED",
            "submitted_at": "2019-11-17T17:43:43Z",
            "commit_id": "ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091",
            "author_association": "COLLABORATOR"
        });
        assert_eq!(
            PullReview::from_json(&example),
            Some(PullReview {
                id: 80,
                login: "octocat".to_owned(),
                state: ReviewState::Approved,
                commit_id: Some("ecdd80bb57125d7ba9641ffaa4d7d2c19d3f3091".to_owned()),
            })
        );
        let ghost = json!({"id": 81, "user": null, "state": "APPROVED", "commit_id": HEAD});
        assert_eq!(PullReview::from_json(&ghost), None);
    }

    #[test]
    fn only_the_latest_approval_of_the_head_confirms() {
        let reviews = Reviews::new([
            review(1, "alice", "APPROVED", HEAD),
            review(2, "bob", "APPROVED", OLD),
            review(3, "carol", "APPROVED", HEAD),
            review(4, "carol", "CHANGES_REQUESTED", HEAD),
            review(5, "dave", "DISMISSED", HEAD),
            review(6, "erin", "CHANGES_REQUESTED", OLD),
            review(8, "erin", "APPROVED", HEAD),
            // A comment after an approval leaves the approval standing, as on GitHub.
            review(9, "alice", "COMMENTED", HEAD),
            review(10, "frank", "PENDING", HEAD),
        ]);
        assert_eq!(reviews.confirm("alice", HEAD), Ok(()));
        assert_eq!(reviews.confirm("ALICE", HEAD), Ok(()), "logins ignore case");
        assert_eq!(
            reviews.confirm("bob", HEAD),
            Err(Unconfirmed::OtherCommit(Some(OLD.to_owned())))
        );
        assert_eq!(
            reviews.confirm("carol", HEAD),
            Err(Unconfirmed::Latest(ReviewState::ChangesRequested))
        );
        assert_eq!(
            reviews.confirm("dave", HEAD),
            Err(Unconfirmed::Latest(ReviewState::Dismissed))
        );
        assert_eq!(reviews.confirm("erin", HEAD), Ok(()));
        assert_eq!(reviews.confirm("frank", HEAD), Err(Unconfirmed::NoReview));
        assert_eq!(
            reviews.confirm("maintainer1", HEAD),
            Err(Unconfirmed::NoReview)
        );
    }

    #[test]
    fn the_latest_is_by_id_whatever_the_order_of_the_pages() {
        let reviews = Reviews::new([
            review(7, "alice", "DISMISSED", HEAD),
            review(3, "alice", "APPROVED", HEAD),
        ]);
        assert_eq!(
            reviews.confirm("alice", HEAD),
            Err(Unconfirmed::Latest(ReviewState::Dismissed))
        );
    }

    #[test]
    fn reasons_read_in_a_sentence() {
        assert_eq!(
            Unconfirmed::OtherCommit(Some(OLD.to_owned())).to_string(),
            "their latest approval is of f95f852bd8fc"
        );
        assert_eq!(
            Unconfirmed::Latest(ReviewState::Dismissed).to_string(),
            "their latest review is dismissed"
        );
        assert_eq!(
            Unconfirmed::NoReview.to_string(),
            "they have not reviewed the pull request"
        );
    }
}
