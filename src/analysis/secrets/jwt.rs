//! Signed JSON Web Tokens: three base64url parts whose header decodes to a JSON object with an
//! `alg`. An unsigned token (empty signature) is no credential; neither is jwt.io's example.

use memchr::memmem;

use super::findings::Hit;
use super::placeholder::is_placeholder;

/// `{"` in base64url: every JSON header starts with it.
const ANCHOR: &str = "eyJ";
const MAX_HEADER: usize = 2048;
const MAX_PAYLOAD: usize = 16 * 1024;
const MAX_SIGNATURE: usize = 2048;
/// The shortest signature worth the name: HS256 is 43 characters, ES256 86, RS256 342.
const MIN_SIGNATURE: usize = 16;

fn base64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Every signed JWT in `text`.
pub fn find(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    for start in memmem::find_iter(bytes, ANCHOR.as_bytes()) {
        // Only at the start of a run: inside a longer base64 string or a JWT's later part it is
        // not a header, and the runs read from here never overlap.
        if start > 0 && (base64url(bytes[start - 1]) || bytes[start - 1] == b'.') {
            continue;
        }
        if let Some(end) = match_jwt(bytes, start) {
            hits.push(Hit::new("jwt", start, end));
        }
    }
}

/// A JWT whose signature is empty (`alg: none`): no credential, whatever name it is given.
pub fn is_unsigned(value: &str) -> bool {
    value.starts_with(ANCHOR)
        && value.ends_with('.')
        && value.matches('.').count() == 2
        && value.bytes().all(|b| base64url(b) || b == b'.')
}

fn match_jwt(bytes: &[u8], start: usize) -> Option<usize> {
    let header_end = part(bytes, start, MAX_HEADER)?;
    let payload_start = dot(bytes, header_end)?;
    let payload_end = part(bytes, payload_start, MAX_PAYLOAD)?;
    let signature_start = dot(bytes, payload_end)?;
    let end = part(bytes, signature_start, MAX_SIGNATURE)?;
    if payload_end - payload_start < 2 || end - signature_start < MIN_SIGNATURE {
        return None;
    }
    let signature = std::str::from_utf8(&bytes[signature_start..end]).ok()?;
    if is_placeholder(signature) {
        return None;
    }
    let header = decode(&bytes[start..header_end])?;
    let json: serde_json::Value = serde_json::from_slice(&header).ok()?;
    json.get("alg")?.as_str()?;
    Some(end)
}

/// The end of the base64url run at `start`, when it is no longer than `max`.
fn part(bytes: &[u8], start: usize, max: usize) -> Option<usize> {
    let limit = bytes.len().min(start + max + 1);
    let len = bytes[start..limit]
        .iter()
        .take_while(|&&b| base64url(b))
        .count();
    (len <= max).then_some(start + len)
}

fn dot(bytes: &[u8], at: usize) -> Option<usize> {
    (bytes.get(at) == Some(&b'.')).then_some(at + 1)
}

/// Unpadded base64url → bytes; `None` for a length no encoder writes.
fn decode(text: &[u8]) -> Option<Vec<u8>> {
    fn value(b: u8) -> u32 {
        u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' => 62,
            _ => 63,
        })
    }
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | value(b) << (18 - 6 * i));
        let [_, b0, b1, b2] = n.to_be_bytes();
        out.extend_from_slice(&[b0, b1, b2][..chunk.len() - 1]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{BASE64URL, b64url, fake, jwt};
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut hits = Vec::new();
        find(text, &mut hits);
        hits.iter().map(|h| &text[h.start..h.end]).collect()
    }

    #[test]
    fn decodes_unpadded_base64url() {
        assert_eq!(
            decode(b"eyJhbGciOiJIUzI1NiJ9").as_deref(),
            Some(&b"{\"alg\":\"HS256\"}"[..])
        );
        assert_eq!(decode(b"YQ").as_deref(), Some(&b"a"[..]));
        assert_eq!(decode(b"YWI").as_deref(), Some(&b"ab"[..]));
        assert_eq!(decode(b"_-8").as_deref(), Some(&[0xff, 0xef][..]));
        assert_eq!(decode(b"YWJjZ"), None);
    }

    #[test]
    fn signed_tokens_are_found_whole() {
        for (header, sig_len) in [
            (r#"{"alg":"HS256","typ":"JWT"}"#, 43),
            (r#"{"typ":"JWT","alg":"RS256","kid":"k1"}"#, 342),
        ] {
            let token = jwt(
                header,
                r#"{"sub":"skillgate-fixture","iat":1700000000}"#,
                sig_len,
                1,
            );
            for text in [
                token.clone(),
                format!("Authorization: Bearer {token}\n"),
                format!("{{\"id_token\":\"{token}\"}}"),
            ] {
                assert_eq!(found(&text), [token.as_str()], "in {text:?}");
            }
        }
    }

    #[test]
    fn what_is_not_a_signed_jwt() {
        let payload = b64url(br#"{"sub":"x"}"#);
        let sig = fake(BASE64URL, 43, 2);
        let no_alg = b64url(br#"{"typ":"JWT"}"#);
        let not_json = b64url(br#"{"alg":"HS256""#);
        for text in [
            // Unsigned.
            format!("eyJhbGciOiJub25lIn0.{payload}."),
            format!("eyJhbGciOiJub25lIn0.{payload}"),
            format!("{no_alg}.{payload}.{sig}"),
            format!("{not_json}.{payload}.{sig}"),
            // Inside a longer base64 string.
            format!("Q{}", jwt(r#"{"alg":"HS256"}"#, "{}", 43, 3)),
            // jwt.io's example.
            concat!(
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.",
                "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.",
                "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            )
            .to_owned(),
            format!("eyJ{}", "a".repeat(MAX_HEADER + 10)),
        ] {
            assert_eq!(found(&text), Vec::<&str>::new(), "in {text:?}");
        }
    }
}
