//! The HTTP/1 server: its own thread, its own single-threaded tokio runtime, on 127.0.0.1.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;

use super::dispatch::{self, Shared};
use super::record::Violation;
use super::reply::{Reply, ReplyBody};

pub struct Server {
    pub shutdown: Option<oneshot::Sender<()>>,
    pub thread: Option<JoinHandle<()>>,
}

/// Serves `listener` until the returned `Server`'s shutdown sender fires or is dropped.
pub fn spawn(shared: Arc<Shared>, listener: std::net::TcpListener) -> Server {
    let (tx, mut rx) = oneshot::channel::<()>();
    listener
        .set_nonblocking(true)
        .expect("nonblocking listener");
    let thread = std::thread::Builder::new()
        .name("fake-github".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("tokio runtime for the fake GitHub");
            runtime.block_on(async move {
                let listener =
                    tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                loop {
                    tokio::select! {
                        _ = &mut rx => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let shared = Arc::clone(&shared);
                            tokio::spawn(async move {
                                let service = service_fn(move |req| handle(Arc::clone(&shared), req));
                                // A client hanging up mid-request is not the fake's concern.
                                let _ = http1::Builder::new()
                                    .serve_connection(TokioIo::new(stream), service)
                                    .await;
                            });
                        }
                    }
                }
            });
            // Dropping the runtime cancels the connections still open.
        })
        .expect("spawn the fake GitHub thread");
    Server {
        shutdown: Some(tx),
        thread: Some(thread),
    }
}

async fn handle(
    shared: Arc<Shared>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_string())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let method = parts.method.as_str();
    let path = parts.uri.path();
    let answer = catch_unwind(AssertUnwindSafe(|| {
        dispatch::respond(
            &shared,
            dispatch::Incoming {
                method,
                path,
                query: parts.uri.query(),
                headers,
                body: &bytes,
            },
        )
    }));
    let answer = match answer {
        Ok(answer) => answer,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            shared.state().violations.push(Violation {
                operation_id: None,
                method: method.to_string(),
                path: path.to_string(),
                pointer: "fake".into(),
                message: format!("the fake GitHub panicked: {message}"),
            });
            dispatch::Answer {
                reply: Reply::error(500, "fake GitHub panicked", "https://docs.github.com/rest"),
                delay: None,
            }
        }
    };
    if let Some(delay) = answer.delay {
        tokio::time::sleep(delay).await;
    }
    Ok(to_response(answer.reply, &shared))
}

fn to_response(reply: Reply, shared: &Shared) -> Response<Full<Bytes>> {
    let request_number = shared.state().requests.len();
    let mut builder = Response::builder().status(reply.status);
    let (content_type, bytes) = match reply.body {
        ReplyBody::Json(v) => (
            Some("application/json; charset=utf-8".to_string()),
            serde_json::to_vec(&v).expect("serialize a JSON answer"),
        ),
        ReplyBody::Raw {
            content_type,
            bytes,
        } => (Some(content_type), bytes),
        ReplyBody::Empty => (None, Vec::new()),
    };
    let has = |name: &str| {
        reply
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    // A scripted rate limit brings its own x-ratelimit-* set; do not mix ours in.
    let custom_rate = reply
        .headers
        .iter()
        .any(|(n, _)| n.to_ascii_lowercase().starts_with("x-ratelimit-"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let mut defaults: Vec<(&str, String)> = vec![
        ("x-github-request-id", format!("FAKE:{request_number:08X}")),
        ("x-github-media-type", "github.v3; format=json".into()),
        ("x-ratelimit-limit", "5000".into()),
        ("x-ratelimit-remaining", "4999".into()),
        ("x-ratelimit-reset", (now + 3600).to_string()),
        ("x-ratelimit-used", "1".into()),
        ("x-ratelimit-resource", "core".into()),
    ];
    if let Some(ct) = content_type {
        defaults.push(("content-type", ct));
    }
    for (name, value) in defaults {
        let overridden = custom_rate && name.starts_with("x-ratelimit-");
        if !has(name) && !overridden {
            builder = builder.header(name, value);
        }
    }
    for (name, value) in &reply.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(Full::new(Bytes::from(bytes)))
        .expect("a valid response")
}
