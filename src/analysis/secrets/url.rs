//! Passwords in URLs: `postgres://app:<password>@db.internal/app`, `https://bot:<token>@host`.
//! Only the password is the secret; a user name alone, a reference (`$DB_PASSWORD`) or a
//! placeholder (`user:pass@`, `<password>`) is none.

use memchr::memmem;

use super::entropy;
use super::findings::Hit;
use super::placeholder;

const ANCHOR: &str = "://";
/// The longest user information read after the scheme: `user:password`.
const MAX_USERINFO: usize = 256;
/// Shorter passwords are not told apart from words here.
const MIN_PASSWORD: usize = 8;

/// Characters of a URL's user information (RFC 3986 `userinfo`, percent-encoding included).
fn userinfo_char(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'%'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
        )
}

/// Every password in a URL's user information in `text`.
pub fn find(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    for anchor in memmem::find_iter(bytes, ANCHOR.as_bytes()) {
        let start = anchor + ANCHOR.len();
        let limit = bytes.len().min(start + MAX_USERINFO + 1);
        let len = bytes[start..limit]
            .iter()
            .take_while(|&&b| userinfo_char(b))
            .count();
        let at = start + len;
        if bytes.get(at) != Some(&b'@') || len > MAX_USERINFO {
            continue;
        }
        let Some(colon) = memchr::memchr(b':', &bytes[start..at]) else {
            continue;
        };
        let (password_start, password_end) = (start + colon + 1, at);
        let Some(password) = text.get(password_start..password_end) else {
            continue;
        };
        if is_password(password) {
            hits.push(Hit {
                generic: true,
                ..Hit::new("url-password", password_start, password_end)
            });
        }
    }
}

/// Random enough for a password, and no reference (`$DB_PASSWORD`, a `%7B`-encoded template),
/// placeholder or word. A password may open with `$`: only `$` and a name is a reference.
fn is_password(value: &str) -> bool {
    value.len() >= MIN_PASSWORD
        && !value.contains("%7B")
        && !placeholder::is_placeholder(value)
        && !placeholder::looks_like_name(value)
        && entropy::random_enough(value)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ALNUM, fake};
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut hits = Vec::new();
        find(text, &mut hits);
        hits.iter().map(|h| &text[h.start..h.end]).collect()
    }

    #[test]
    fn the_password_of_a_url_is_found() {
        let password = fake(ALNUM, 16, 1);
        for text in [
            format!("DATABASE_URL=postgres://app:{password}@db.internal:5432/app"),
            format!("git clone https://bot:{password}@git.acme.dev/app.git"),
            format!("redis = \"redis://:{password}@cache:6379/0\""),
            format!("amqp://guest:{password}@rabbit/"),
        ] {
            assert_eq!(found(&text), [password.as_str()], "in {text:?}");
        }
    }

    #[test]
    fn references_placeholders_and_plain_urls_are_not_passwords() {
        for text in [
            "postgres://app:${DB_PASSWORD}@db/app",
            "postgres://app:$DB_PASSWORD@db/app",
            "postgres://user:password@localhost/db",
            "postgres://user:pass@localhost/db",
            "mysql://root:changeme@db/app",
            "https://user:<password>@host/",
            "https://example.org/a:b@c",
            "https://git.acme.dev/app.git",
            "mongodb://admin:12345678@db/",
            "https://user@host/",
            "postgres://app:your_password_here@db/app",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "in {text:?}");
        }
    }
}
