//! PEM private key blocks (`-----BEGIN RSA PRIVATE KEY-----` and kin, OpenSSH, PGP), with key
//! material after the marker. Public keys and certificates are public; a marker followed by `…`
//! or `<your key>` is documentation.

use memchr::memmem;

use super::findings::Hit;

const BEGIN: &str = "-----BEGIN ";
const DASHES: &[u8] = b"-----";
/// The longest label read between the markers' dashes.
const MAX_LABEL: usize = 64;
/// A 4096-bit RSA key is about 3.2 KiB of base64: the body is read no further than this.
const MAX_BODY: usize = 16 * 1024;
/// Fewer base64 characters than this before the block ends is an elided example, not a key
/// (the shortest real key, Ed25519 in PKCS#8, has 64).
const MIN_MATERIAL: usize = 64;

/// Every private key block in `text`: the finding is at the marker, the secret is the body.
pub fn find(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    for marker in memmem::find_iter(bytes, BEGIN.as_bytes()) {
        if let Some((start, end)) = private_key_body(bytes, marker) {
            hits.push(Hit {
                at: marker,
                ..Hit::new("private-key", start, end)
            });
        }
    }
}

/// The body's extent, from its first base64 character to its last, when the marker at `marker`
/// opens a private key and key material follows.
fn private_key_body(bytes: &[u8], marker: usize) -> Option<(usize, usize)> {
    let label_start = marker + BEGIN.len();
    let window = &bytes[label_start..bytes.len().min(label_start + MAX_LABEL)];
    let label_len = memmem::find(window, DASHES)?;
    let label = &window[..label_len];
    if !(label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK")) {
        return None;
    }
    let body_start = label_start + label_len + DASHES.len();
    let limit = bytes.len().min(body_start + MAX_BODY);
    let (mut first, mut last, mut material) = (None, body_start, 0usize);
    let mut i = body_start;
    while i < limit {
        let b = bytes[i];
        if b == b'-' && bytes[i..limit].starts_with(DASHES) {
            break;
        }
        match b {
            // A JSON or YAML string holds the block with escaped line breaks.
            b'\\' if matches!(bytes.get(i + 1), Some(b'n' | b'r')) => i += 1,
            _ if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=') => {
                material += 1;
                first.get_or_insert(i);
                last = i + 1;
            }
            // Line breaks, indentation, and the headers of a legacy encrypted key
            // (`Proc-Type: 4,ENCRYPTED`).
            _ if b.is_ascii_whitespace() || matches!(b, b':' | b',' | b'-') => {}
            // `...`, `…`, `<your key>`, a closing quote: the body ends here.
            _ => break,
        }
        i += 1;
    }
    let first = first?;
    (material >= MIN_MATERIAL).then_some((first, last))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{BASE64, fake, pem_block};
    use super::*;

    fn found(text: &str) -> Vec<(usize, &str)> {
        let mut hits = Vec::new();
        find(text, &mut hits);
        hits.iter().map(|h| (h.at, &text[h.start..h.end])).collect()
    }

    #[test]
    fn private_key_blocks_of_every_kind() {
        for label in [
            "RSA PRIVATE KEY",
            "EC PRIVATE KEY",
            "PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        ] {
            let body = format!("{}\n{}", fake(BASE64, 64, 1), fake(BASE64, 40, 2));
            let text = format!("key = '''\n{}'''\n", pem_block(label, &body));
            assert_eq!(found(&text), [(10, body.as_str())], "{label}");
        }
    }

    #[test]
    fn escaped_in_a_json_string() {
        let body = format!("{}\\n{}", fake(BASE64, 64, 3), fake(BASE64, 20, 4));
        let text = format!(
            "{{\"key\": \"{}\"}}",
            pem_block("PRIVATE KEY", &body).replace('\n', "\\n")
        );
        assert_eq!(found(&text), [(9, body.as_str())]);
    }

    #[test]
    fn legacy_encrypted_headers_are_part_of_the_body() {
        let body = format!(
            "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n{}",
            fake(b"0123456789ABCDEF", 32, 5),
            fake(BASE64, 64, 6)
        );
        let text = pem_block("RSA PRIVATE KEY", &body);
        assert_eq!(found(&text), [(0, body.as_str())]);
    }

    #[test]
    fn public_keys_certificates_and_elided_bodies_are_not_private_keys() {
        let material = fake(BASE64, 64, 7);
        for text in [
            pem_block("PUBLIC KEY", &material),
            pem_block("RSA PUBLIC KEY", &material),
            pem_block("CERTIFICATE", &material),
            pem_block("PGP PUBLIC KEY BLOCK", &material),
            pem_block("RSA PRIVATE KEY", "..."),
            pem_block("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA...\n..."),
            pem_block("PRIVATE KEY", "<your private key here>"),
            pem_block("PRIVATE KEY", "…"),
            pem_block("PRIVATE KEY", ""),
            "-----BEGIN PRIVATE KEY".to_owned(),
            format!("-----BEGIN {}", "A".repeat(100)),
        ] {
            assert_eq!(found(&text), [], "in {text:?}");
        }
    }
}
