//! The one door to GitHub's REST API: octocrab underneath, our own retry rules on top.
//!
//! octocrab's retry layer re-sends any method (POST included) and ignores `retry-after`, so it is
//! not compiled in (feature `retry` off). Here GET, PATCH, PUT and DELETE are retried with jittered backoff on 5xx, on connection
//! failures and on rate limits (honouring `retry-after` and `x-ratelimit-reset`). A POST is sent
//! once: callers make creation idempotent by looking up first ([`ApiError::maybe_applied`] says
//! whether a failed POST may have reached GitHub).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::BodyExt;
use octocrab::Octocrab;
use serde_json::Value;

/// One request, answer included, never takes longer (a server trickling bytes included).
const REQUEST_DEADLINE: Duration = Duration::from_secs(120);
/// The media type of every request but the raw file read: GitHub's JSON.
const JSON_MEDIA_TYPE: &str = "application/vnd.github+json";
/// No answer the gate reads is bigger (the raw audit database is at most GitHub's 100 MB).
const MAX_BODY: usize = 128 * 1024 * 1024;

/// A GitHub token. Never printed: `Debug` and `Display` show `***`.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// `None` for an empty or blank value.
    pub fn new(value: impl Into<String>) -> Option<Self> {
        let value = value.into();
        let trimmed = value.trim();
        (!trimmed.is_empty()).then(|| Self(trimmed.to_owned()))
    }

    /// Only for the `Authorization` header and for redacting text.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How hard to try. The defaults suit a CI job: a few retries, none longer than a minute.
#[derive(Debug, Clone)]
pub struct Retry {
    /// Attempts after the first.
    pub retries: u32,
    /// First backoff; doubles on each retry, with ±50 % jitter.
    pub base: Duration,
    /// No single wait is longer; a rate limit that resets later fails the call.
    pub max_wait: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Self {
            retries: 4,
            base: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// GitHub answered with an error status.
    #[error("GitHub answered {method} {path} with {status}: {message}")]
    Status {
        method: &'static str,
        path: String,
        status: u16,
        message: String,
    },
    /// No answer: connection refused, reset, timed out.
    #[error("{method} {path} failed: {message}")]
    Transport {
        method: &'static str,
        path: String,
        message: String,
    },
    /// Rate limited for longer than a job should wait.
    #[error("{method} {path}: rate limited by GitHub for {}s more; giving up", wait.as_secs())]
    RateLimited {
        method: &'static str,
        path: String,
        wait: Duration,
    },
    #[error("{method} {path}: the answer is not the JSON expected: {message}")]
    Decode {
        method: &'static str,
        path: String,
        message: String,
    },
    /// Not sent: GitHub would refuse it (a body over its limit, …).
    #[error("{method} {path} was not sent: {message}")]
    Refused {
        method: &'static str,
        path: String,
        message: String,
    },
    #[error("could not set up the GitHub client for {url}: {message}")]
    Setup { url: String, message: String },
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether a failed POST may still have been carried out by GitHub: no answer, or a 5xx.
    pub fn maybe_applied(&self) -> bool {
        match self {
            Self::Transport { .. } => true,
            Self::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

/// One answer: status, the headers that steer retries and paging, the body.
#[derive(Debug)]
struct Answer {
    status: u16,
    retry_after: Option<String>,
    rate_remaining: Option<String>,
    rate_reset: Option<String>,
    link: Option<String>,
    body: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
    Patch,
    Put,
    Delete,
}

impl Method {
    fn http(self) -> http::Method {
        match self {
            Self::Get => http::Method::GET,
            Self::Post => http::Method::POST,
            Self::Patch => http::Method::PATCH,
            Self::Put => http::Method::PUT,
            Self::Delete => http::Method::DELETE,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Patch => "PATCH",
            Self::Put => "PUT",
            Self::Delete => "DELETE",
        }
    }
}

/// Authenticated access to one GitHub API (github.com, an Enterprise server, or a fake).
pub struct Client {
    octo: Octocrab,
    /// `https://api.github.com` or `https://ghe.example.com/api/v3`, no trailing slash.
    base: String,
    token: Token,
    retry: Retry,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Must be called inside a tokio runtime (octocrab's connector needs one).
    pub fn new(api_url: &str, token: Token, retry: Retry) -> Result<Self, ApiError> {
        let base = api_url.trim_end_matches('/').to_owned();
        let setup = |message: String| ApiError::Setup {
            url: base.clone(),
            message,
        };
        let octo = Octocrab::builder()
            .base_uri(base.as_str())
            .map_err(|err| setup(err.to_string()))?
            .personal_token(token.expose().to_owned())
            .set_connect_timeout(Some(Duration::from_secs(10)))
            .set_read_timeout(Some(Duration::from_secs(30)))
            .set_write_timeout(Some(Duration::from_secs(30)))
            .add_header(
                http::header::USER_AGENT,
                concat!("skillgate/", env!("CARGO_PKG_VERSION")).to_owned(),
            )
            .build()
            .map_err(|err| setup(err.to_string()))?;
        Ok(Self {
            octo,
            base,
            token,
            retry,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub async fn get(&self, path: &str) -> Result<Value, ApiError> {
        let answer = self.retried(Method::Get, path, None, None).await?;
        decode(Method::Get, path, &answer)
    }

    /// Every item of a paged list, following `Link: rel="next"`, up to `max_items` items.
    /// `path` should ask for `per_page=100`. Returns the items and whether more were left.
    pub async fn get_all(
        &self,
        path: &str,
        max_items: usize,
    ) -> Result<(Vec<Value>, bool), ApiError> {
        let mut items = Vec::new();
        let mut next = Some(path.to_owned());
        // A server that keeps answering `next` (with empty pages, or pages of one) must not
        // keep the job forever.
        let mut pages_left = max_items / 30 + 2;
        while let Some(page) = next.take() {
            if pages_left == 0 {
                return Ok((items, true));
            }
            pages_left -= 1;
            let answer = self.retried(Method::Get, &page, None, None).await?;
            let Value::Array(page_items) = decode(Method::Get, &page, &answer)? else {
                return Err(ApiError::Decode {
                    method: "GET",
                    path: page,
                    message: "expected a list".to_owned(),
                });
            };
            let empty = page_items.is_empty();
            items.extend(page_items);
            let link = answer
                .link
                .as_deref()
                .and_then(next_link)
                .filter(|_| !empty);
            if items.len() >= max_items {
                let more = items.len() > max_items || link.is_some();
                items.truncate(max_items);
                return Ok((items, more));
            }
            next = link.map(|url| self.relative(&url)).transpose()?;
        }
        Ok((items, false))
    }

    /// Raw bytes (for `application/vnd.github.raw` file contents); `None` on 404. `accept` is
    /// the request's only `Accept` header.
    pub async fn get_raw(&self, path: &str, accept: &str) -> Result<Option<Vec<u8>>, ApiError> {
        match self.retried(Method::Get, path, None, Some(accept)).await {
            Ok(answer) => Ok(Some(answer.body)),
            Err(err) if err.status() == Some(404) => Ok(None),
            Err(err) => Err(err),
        }
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        let answer = self.retried(Method::Patch, path, Some(body), None).await?;
        decode(Method::Patch, path, &answer)
    }

    pub async fn put(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        let answer = self.retried(Method::Put, path, Some(body), None).await?;
        decode(Method::Put, path, &answer)
    }

    /// A 404 counts as done: what was to be deleted is gone.
    pub async fn delete(&self, path: &str) -> Result<(), ApiError> {
        match self.retried(Method::Delete, path, None, None).await {
            Ok(_) => Ok(()),
            Err(err) if err.status() == Some(404) => Ok(()),
            Err(err) => Err(err),
        }
    }

    /// Never sent again after a 5xx or a lost answer (see [`ApiError::maybe_applied`]); only a
    /// rate limit, which GitHub answers without acting, is waited out and retried.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        let mut attempt = 0;
        loop {
            let answer = self.once(Method::Post, path, Some(body), None).await?;
            let rate_limited = matches!(answer.status, 403 | 429);
            match wait_for(&answer, attempt, &self.retry, now_epoch()) {
                Wait::For(wait) if rate_limited && attempt < self.retry.retries => {
                    attempt += 1;
                    tokio::time::sleep(wait).await;
                }
                Wait::TooLong(wait) => {
                    return Err(ApiError::RateLimited {
                        method: "POST",
                        path: path.to_owned(),
                        wait,
                    });
                }
                _ => {
                    let answer = check_status(Method::Post, path, answer)?;
                    return decode(Method::Post, path, &answer);
                }
            }
        }
    }

    async fn retried(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        accept: Option<&str>,
    ) -> Result<Answer, ApiError> {
        let mut attempt = 0;
        loop {
            let result = self.once(method, path, body, accept).await;
            let wait = match &result {
                Ok(answer) => match wait_for(answer, attempt, &self.retry, now_epoch()) {
                    Wait::No => return check_status(method, path, result?),
                    Wait::For(wait) => wait,
                    Wait::TooLong(wait) => {
                        return Err(ApiError::RateLimited {
                            method: method.as_str(),
                            path: path.to_owned(),
                            wait,
                        });
                    }
                },
                Err(_) => backoff(attempt, &self.retry),
            };
            if attempt >= self.retry.retries {
                return check_status(method, path, result?);
            }
            attempt += 1;
            tokio::time::sleep(wait).await;
        }
    }

    async fn once(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        accept: Option<&str>,
    ) -> Result<Answer, ApiError> {
        let transport = |message: String| ApiError::Transport {
            method: method.as_str(),
            path: path.to_owned(),
            message: self.scrub(&message),
        };
        // Exactly one `Accept` per request, set here: a default header on the builder would be
        // appended to a request's own (octocrab extends, never replaces), and which of two
        // GitHub honours is undocumented; a JSON answer to the raw read was written as the
        // audit database.
        let builder = http::Request::builder()
            .method(method.http())
            .uri(path)
            .header(http::header::ACCEPT, accept.unwrap_or(JSON_MEDIA_TYPE));
        let body = match method {
            Method::Get | Method::Delete => None,
            Method::Post | Method::Patch | Method::Put => body,
        };
        let request = async {
            let request = self.octo.build_request(builder, body)?;
            self.octo.execute(request).await
        };
        let response = tokio::time::timeout(REQUEST_DEADLINE, request)
            .await
            .map_err(|_| transport(format!("no answer within {}s", REQUEST_DEADLINE.as_secs())))?
            .map_err(|err| transport(error_chain(&err)))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let status = response.status().as_u16();
        let retry_after = header("retry-after");
        let rate_remaining = header("x-ratelimit-remaining");
        let rate_reset = header("x-ratelimit-reset");
        let link = header("link");
        let limited = http_body_util::Limited::new(response.into_body(), MAX_BODY);
        let body = tokio::time::timeout(REQUEST_DEADLINE, limited.collect())
            .await
            .map_err(|_| {
                transport(format!(
                    "the answer took over {}s",
                    REQUEST_DEADLINE.as_secs()
                ))
            })?
            .map_err(|err| transport(format!("reading the answer: {err}")))?
            .to_bytes()
            .to_vec();
        Ok(Answer {
            status,
            retry_after,
            rate_remaining,
            rate_reset,
            link,
            body,
        })
    }

    /// A `Link` URL as a path below the base; a link elsewhere is refused, since the token
    /// would go with it.
    fn relative(&self, url: &str) -> Result<String, ApiError> {
        url.strip_prefix(&self.base)
            .filter(|rest| rest.starts_with('/'))
            .map(str::to_owned)
            .ok_or_else(|| ApiError::Decode {
                method: "GET",
                path: url.to_owned(),
                message: format!("the next page is not below {}", self.base),
            })
    }

    /// Error text never carries the token, whatever a library put in it.
    fn scrub(&self, text: &str) -> String {
        text.replace(self.token.expose(), "***")
    }
}

/// An error and its sources, on one line: octocrab's own message is often just "Service error".
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = inner.source();
    }
    text
}

fn now_epoch() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[derive(Debug, PartialEq)]
enum Wait {
    No,
    For(Duration),
    TooLong(Duration),
}

/// Whether (and how long) to wait before asking again, from an answer. Pure, for tests.
fn wait_for(answer: &Answer, attempt: u32, retry: &Retry, now: u64) -> Wait {
    let rate_limited = match answer.status {
        429 => true,
        // A 403 is a rate limit only when GitHub says so; otherwise it is a permission answer.
        403 => {
            answer.retry_after.is_some()
                || answer.rate_remaining.as_deref() == Some("0")
                || String::from_utf8_lossy(&answer.body)
                    .to_ascii_lowercase()
                    .contains("rate limit")
        }
        _ => false,
    };
    if rate_limited {
        let told = answer
            .retry_after
            .as_deref()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .map(Duration::from_secs)
            .or_else(|| {
                if answer.rate_remaining.as_deref() != Some("0") {
                    return None;
                }
                let reset = answer.rate_reset.as_deref()?.trim().parse::<u64>().ok()?;
                Some(Duration::from_secs(reset.saturating_sub(now) + 1))
            });
        return match told {
            Some(wait) if wait > retry.max_wait => Wait::TooLong(wait),
            Some(wait) => Wait::For(wait),
            None => Wait::For(backoff(attempt, retry).max(Duration::from_secs(1))),
        };
    }
    if matches!(answer.status, 500 | 502 | 503 | 504) {
        return Wait::For(backoff(attempt, retry));
    }
    Wait::No
}

/// `base × 2^attempt`, ±50 %, capped.
fn backoff(attempt: u32, retry: &Retry) -> Duration {
    let exp = retry.base.saturating_mul(1u32 << attempt.min(16));
    let jittered = exp.mul_f64(0.5 + crate::random::unit());
    jittered.min(retry.max_wait)
}

fn check_status(method: Method, path: &str, answer: Answer) -> Result<Answer, ApiError> {
    if (200..300).contains(&answer.status) {
        return Ok(answer);
    }
    Err(ApiError::Status {
        method: method.as_str(),
        path: path.to_owned(),
        status: answer.status,
        message: error_message(&answer.body),
    })
}

/// GitHub's `message` (and the first `errors` entry), or the start of the body.
fn error_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let message = value.get("message").and_then(Value::as_str).unwrap_or("");
        let detail = value
            .get("errors")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .map(|e| match e {
                Value::String(s) => s.clone(),
                other => other
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| other.to_string(), str::to_owned),
            });
        if !message.is_empty() {
            let text = match detail {
                Some(detail) => format!("{message} ({detail})"),
                None => message.to_owned(),
            };
            return crate::untrusted::printable(&text, 300);
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        "no message".to_owned()
    } else {
        crate::untrusted::printable(text, 200)
    }
}

fn decode(method: Method, path: &str, answer: &Answer) -> Result<Value, ApiError> {
    if answer.body.is_empty() || answer.status == 204 {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&answer.body).map_err(|err| ApiError::Decode {
        method: method.as_str(),
        path: path.to_owned(),
        message: err.to_string(),
    })
}

/// The `rel="next"` URL of a `Link` header.
fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"");
        is_next.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> Answer {
        Answer {
            status,
            retry_after: None,
            rate_remaining: None,
            rate_reset: None,
            link: None,
            body: Vec::new(),
        }
    }

    #[test]
    fn a_token_never_prints() {
        let token = Token::new("ghp_abcdefghijklmnopqrstuvwxyz0123456789").expect("token");
        assert_eq!(format!("{token:?}"), "***");
        assert_eq!(format!("{token}"), "***");
        assert!(Token::new("  ").is_none());
    }

    #[test]
    fn server_errors_back_off_and_client_errors_do_not() {
        let retry = Retry::default();
        for status in [500, 502, 503, 504] {
            let Wait::For(wait) = wait_for(&answer(status), 0, &retry, 0) else {
                panic!("{status} should be retried");
            };
            assert!(wait >= Duration::from_millis(250) && wait <= Duration::from_millis(750));
        }
        for status in [200, 201, 204, 400, 401, 404, 409, 422] {
            assert_eq!(
                wait_for(&answer(status), 0, &retry, 0),
                Wait::No,
                "{status}"
            );
        }
        // A plain 403 is a permission answer, not a rate limit.
        assert_eq!(wait_for(&answer(403), 0, &retry, 0), Wait::No);
    }

    #[test]
    fn rate_limits_honour_what_github_says() {
        let retry = Retry::default();
        let mut secondary = answer(403);
        secondary.retry_after = Some("1".to_owned());
        assert_eq!(
            wait_for(&secondary, 0, &retry, 0),
            Wait::For(Duration::from_secs(1))
        );
        let mut primary = answer(429);
        primary.rate_remaining = Some("0".to_owned());
        primary.rate_reset = Some("1010".to_owned());
        assert_eq!(
            wait_for(&primary, 0, &retry, 1000),
            Wait::For(Duration::from_secs(11))
        );
        primary.rate_reset = Some("5000".to_owned());
        assert_eq!(
            wait_for(&primary, 0, &retry, 1000),
            Wait::TooLong(Duration::from_secs(4001))
        );
        let mut worded = answer(403);
        worded.body = br#"{"message":"You have exceeded a secondary rate limit"}"#.to_vec();
        assert!(
            matches!(wait_for(&worded, 0, &retry, 0), Wait::For(w) if w >= Duration::from_secs(1))
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let retry = Retry::default();
        for attempt in 0..4 {
            let centre = retry.base * (1 << attempt);
            let wait = backoff(attempt, &retry);
            assert!(
                wait >= centre / 2 && wait <= centre * 3 / 2,
                "{attempt}: {wait:?}"
            );
        }
        assert!(backoff(30, &retry) <= retry.max_wait);
    }

    #[test]
    fn next_links_are_found() {
        let link = r#"<https://api.github.com/repos/o/r/issues/1/comments?page=2>; rel="next", <https://api.github.com/repos/o/r/issues/1/comments?page=5>; rel="last""#;
        assert_eq!(
            next_link(link).as_deref(),
            Some("https://api.github.com/repos/o/r/issues/1/comments?page=2")
        );
        assert_eq!(next_link(r#"<https://x/?page=1>; rel="prev""#), None);
    }

    #[test]
    fn error_messages_read_githubs_body() {
        assert_eq!(
            error_message(
                br#"{"message":"Validation Failed","errors":[{"message":"team not found"}]}"#
            ),
            "Validation Failed (team not found)"
        );
        assert_eq!(error_message(b""), "no message");
        assert_eq!(
            error_message(b"<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
    }
}
