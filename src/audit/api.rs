//! The audit branch through GitHub's Git Data API: read the trail's files at the branch's head,
//! commit new versions on top (blobs → tree → commit → update-ref without force).

use base64::Engine;
use serde_json::{Value, json};

use crate::github::{ApiError, Client, Repo};

/// The branch.
#[derive(Debug, Clone, Copy)]
pub struct Branch<'a> {
    pub repo: &'a Repo,
    pub name: &'a str,
}

/// A file of a commit: its path in the tree (`/`-separated) and its new bytes, or `None` to
/// remove it.
pub type Change = (String, Option<Vec<u8>>);

/// What a commit attempt came to.
#[derive(Debug)]
pub enum Landed {
    /// The branch now points at this commit.
    Commit(String),
    /// Someone else moved the branch (or created it) first: read again and retry.
    Moved,
}

impl Branch<'_> {
    fn repo_path(self) -> String {
        format!("/repos/{}/{}", self.repo.owner, self.repo.name)
    }

    /// The branch's head commit, or `None` when the branch does not exist yet.
    pub async fn head(self, client: &Client) -> Result<Option<String>, ApiError> {
        let path = format!("{}/git/ref/heads/{}", self.repo_path(), self.name);
        match client.get(&path).await {
            Ok(value) => Ok(value
                .pointer("/object/sha")
                .and_then(Value::as_str)
                .map(str::to_owned)),
            Err(err) if err.status() == Some(404) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The file at `path` of `commit`, raw (any size the contents API serves); `None` when the
    /// commit has no such file. The request carries this one media type and no other (see
    /// [`Client::get_raw`]); the trail still refuses bytes that are not a SQLite database.
    pub async fn read(
        self,
        client: &Client,
        commit: &str,
        path: &str,
    ) -> Result<Option<Vec<u8>>, ApiError> {
        let path = format!("{}/contents/{path}?ref={commit}", self.repo_path());
        client.get_raw(&path, "application/vnd.github.raw").await
    }

    /// Commit `changes` on top of `parent` (`None`: the first, orphan commit, and the branch is
    /// created): one blob per file written, one tree entry per file, `sha: null` for a file
    /// removed. Never forced: a branch that moved answers [`Landed::Moved`].
    pub async fn commit(
        self,
        client: &Client,
        parent: Option<&str>,
        changes: &[Change],
        message: &str,
    ) -> Result<Landed, ApiError> {
        let repo = self.repo_path();
        let mut entries = Vec::new();
        for (path, bytes) in changes {
            let sha = match bytes {
                Some(bytes) => Value::from(
                    create(
                        client,
                        &format!("{repo}/git/blobs"),
                        &json!({
                            "content": base64::engine::general_purpose::STANDARD.encode(bytes),
                            "encoding": "base64",
                        }),
                    )
                    .await?,
                ),
                // A file removed: only on top of a parent, which has it.
                None if parent.is_some() => Value::Null,
                None => continue,
            };
            entries.push(json!({ "path": path, "mode": "100644", "type": "blob", "sha": sha }));
        }
        let entry = Value::Array(entries);
        let tree_body = match parent {
            Some(parent) => {
                let commit = client.get(&format!("{repo}/git/commits/{parent}")).await?;
                let base_tree = commit
                    .pointer("/tree/sha")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ApiError::Decode {
                        method: "GET",
                        path: format!("{repo}/git/commits/{parent}"),
                        message: "the commit has no tree".to_owned(),
                    })?;
                json!({ "base_tree": base_tree, "tree": entry })
            }
            None => json!({ "tree": entry }),
        };
        let tree = create(client, &format!("{repo}/git/trees"), &tree_body).await?;
        let parents: Vec<&str> = parent.into_iter().collect();
        let commit = create(
            client,
            &format!("{repo}/git/commits"),
            &json!({ "message": message, "tree": tree, "parents": parents }),
        )
        .await?;
        let moved = match parent {
            Some(_) => {
                client
                    .patch(
                        &format!("{repo}/git/refs/heads/{}", self.name),
                        &json!({ "sha": commit, "force": false }),
                    )
                    .await
            }
            None => {
                client
                    .post(
                        &format!("{repo}/git/refs"),
                        &json!({ "ref": format!("refs/heads/{}", self.name), "sha": commit }),
                    )
                    .await
            }
        };
        match moved {
            Ok(_) => Ok(Landed::Commit(commit)),
            // Not a fast-forward, or the branch was created meanwhile.
            Err(err) if err.status() == Some(422) => Ok(Landed::Moved),
            Err(err) => Err(err),
        }
    }
}

/// Blobs, trees and commits are named by their content: creating one twice makes the same
/// object, so unlike other POSTs these may be sent again when an answer is lost.
async fn create(client: &Client, path: &str, body: &Value) -> Result<String, ApiError> {
    let mut tries = 0;
    loop {
        tries += 1;
        match client.post(path, body).await {
            Ok(value) => {
                return value
                    .get("sha")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| ApiError::Decode {
                        method: "POST",
                        path: path.to_owned(),
                        message: "no `sha` in the answer".to_owned(),
                    });
            }
            Err(err) if err.maybe_applied() && tries < 4 => {
                tokio::time::sleep(std::time::Duration::from_millis(300 * tries)).await;
            }
            Err(err) => return Err(err),
        }
    }
}
