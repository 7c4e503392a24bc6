//! What the JSON readers share: the keys in a document's first bytes (to tell formats apart
//! without parsing), and a document opened for streaming, refused above a size.

use std::io::{self, BufReader, Read, Seek, SeekFrom};

use super::encoding::{Utf8Reader, strip_bom};

/// Object keys in the head of a JSON document, each with its depth (1 for the keys of the
/// top-level object; arrays count as a level too), in document order. `None` unless the head starts with an object. A head
/// cut in the middle of the document yields the keys before the cut.
pub(crate) fn json_keys(head: &[u8]) -> Option<Vec<(usize, String)>> {
    const MAX_KEYS: usize = 512;
    const MAX_DEPTH: usize = 64;
    let head = strip_bom(head).trim_ascii_start();
    if head.first() != Some(&b'{') {
        return None;
    }
    let mut keys = Vec::new();
    // true for an object, false for an array.
    let mut stack: Vec<bool> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while let Some(&b) = head.get(i) {
        i += 1;
        match b {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    break;
                }
                stack.push(b == b'{');
                expect_key = b == b'{';
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                if stack.is_empty() {
                    break;
                }
            }
            b',' => expect_key = stack.last() == Some(&true),
            b':' => expect_key = false,
            b'"' => {
                let start = i;
                let mut escaped = false;
                let Some(len) = head.get(start..).and_then(|rest| {
                    rest.iter().position(|&c| {
                        let end = c == b'"' && !escaped;
                        escaped = c == b'\\' && !escaped;
                        end
                    })
                }) else {
                    break;
                };
                if expect_key {
                    let key = head.get(start..start + len).unwrap_or_default();
                    keys.push((stack.len(), String::from_utf8_lossy(key).into_owned()));
                    if keys.len() >= MAX_KEYS {
                        break;
                    }
                }
                expect_key = false;
                i = start + len + 1;
            }
            _ => {}
        }
    }
    Some(keys)
}

/// A JSON document of `what` opened for streaming from its start, refused above `max` bytes
/// with `help` after the sizes. What lies past `max` is never read, should the input grow.
pub(crate) fn bounded_json<'a, R: Read + Seek>(
    input: &'a mut R,
    what: &str,
    max: u64,
    help: &str,
) -> io::Result<BufReader<Utf8Reader<io::Take<&'a mut R>>>> {
    let size = input.seek(SeekFrom::End(0))?;
    if size > max {
        return Err(io::Error::other(format!(
            "the file is {} MiB, more than the {} MiB a {what} may be ({help})",
            size / (1024 * 1024),
            max / (1024 * 1024)
        )));
    }
    input.rewind()?;
    Ok(BufReader::new(Utf8Reader::new(input.take(max))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keys_come_with_their_depth() {
        let keys = json_keys(br#" {"a": {"b": [1, {"c": "x\"y"}], "d": "e"}, "f": tru"#)
            .expect("an object");
        let keys: Vec<(usize, &str)> = keys.iter().map(|(d, k)| (*d, k.as_str())).collect();
        assert_eq!(keys, [(1, "a"), (2, "b"), (4, "c"), (2, "d"), (1, "f")]);
        assert_eq!(json_keys(b"[{\"a\": 1}]"), None);
        assert_eq!(json_keys(b"mode: set"), None);
        // A head cut inside a string keeps the keys before it.
        let keys = json_keys(br#"{"meta": {"vers"#).expect("an object");
        assert_eq!(keys, [(1, "meta".to_owned())]);
    }
}
