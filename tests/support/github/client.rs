//! A minimal blocking HTTP/1.1 client for poking the fake directly (one request per
//! connection), so a test controls every header, including the ones a real client always sends.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::Value;

use super::FakeGitHub;

#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    /// Lowercase names; repeated headers joined with `, `.
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "answer is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// Sends one request to `base_url` (`http://127.0.0.1:PORT`) exactly as given.
pub fn send(
    base_url: &str,
    method: &str,
    path_and_query: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> HttpResponse {
    let host = base_url
        .strip_prefix("http://")
        .expect("an http:// base URL");
    let mut stream = TcpStream::connect(host).expect("connect to the fake GitHub");
    let mut request =
        format!("{method} {path_and_query} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = body.unwrap_or_default();
    if !body.is_empty() || matches!(method, "POST" | "PATCH" | "PUT") {
        request.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    parse(&raw)
}

fn parse(raw: &[u8]) -> HttpResponse {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer with a header block");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim().to_string();
            headers
                .entry(name.trim().to_ascii_lowercase())
                .and_modify(|v| {
                    v.push_str(", ");
                    v.push_str(&value);
                })
                .or_insert(value);
        }
    }
    let mut body = raw[split + 4..].to_vec();
    if headers
        .get("transfer-encoding")
        .is_some_and(|t| t.contains("chunked"))
    {
        body = dechunk(&body);
    }
    HttpResponse {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
    out
}

/// A request as a well-behaved client sends it: the fake's token, a user agent, JSON.
pub fn request(
    fake: &FakeGitHub,
    method: &str,
    path_and_query: &str,
    body: Option<&Value>,
) -> HttpResponse {
    let auth = format!("Bearer {}", fake.token());
    let mut headers = vec![
        ("authorization", auth.as_str()),
        ("user-agent", "skillgate-tests"),
        ("accept", "application/vnd.github+json"),
    ];
    let bytes = body.map(|b| serde_json::to_vec(b).expect("serialize the body"));
    if bytes.is_some() {
        headers.push(("content-type", "application/json"));
    }
    send(
        &fake.url(),
        method,
        path_and_query,
        &headers,
        bytes.as_deref(),
    )
}
