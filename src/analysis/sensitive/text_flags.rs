//! The flags of the text of a code line: the pattern tables of each concern, compiled once and
//! searched for on the compact line.

use std::sync::LazyLock;

use super::Concern;
use super::auth::AUTH_WORDS;
use super::credentials::CREDENTIAL_STORES;
use super::crypto::NODE_CRYPTO_CALLS;
use super::privilege::chmod_call;
use super::remote_code::REMOTE_CODE;
use super::security_libraries::{
    GO_SECURITY, JS_SECURITY, PYTHON_SECURITY, RUBY_SECURITY, RUST_SECURITY,
};
use super::system_files::{etc_write, etc_written_by_calls};
use super::tls::TLS_OFF;
use super::{library_injection, native_code};
use crate::analysis::code_lines::{CodeLine, Lang};
use crate::analysis::imports;
use crate::analysis::patterns::Needles;

/// The pattern tables, compiled once.
struct Compiled {
    remote_first: Needles,
    remote_then: Needles,
    stores: Needles,
    tls_off: Needles,
    auth_words: Needles,
    node_crypto: Needles,
    other: Needles,
}

/// Indexes into [`Compiled::other`].
const OTHER: &[&str] = &[
    "/oauth/",
    "/oauth2/",
    "os.setuid(",
    "os.setgid(",
    "pbkdf2_hmac(",
    "hashlib.scrypt(",
    ">/etc/",
    "/etc/",
    "env",
];

static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    remote_first: Needles::new(REMOTE_CODE.iter().map(|(first, _, _)| *first)),
    remote_then: Needles::new(REMOTE_CODE.iter().map(|(_, then, _)| *then)),
    stores: Needles::new(CREDENTIAL_STORES.iter().map(|(p, _)| *p)),
    tls_off: Needles::new(TLS_OFF.iter().map(|(p, _)| *p)),
    auth_words: Needles::new(AUTH_WORDS.iter().map(|(p, _)| *p)),
    node_crypto: Needles::new(NODE_CRYPTO_CALLS.iter().copied()),
    other: Needles::new(OTHER.iter().copied()),
});

pub(super) fn other(compact: &str, pattern: &str) -> bool {
    OTHER
        .iter()
        .position(|p| *p == pattern)
        .is_some_and(|i| COMPILED.other.find(i, compact).is_some())
}

/// The flags of the text of a code line; `parsed` when its shell was read by [`invoked`], which
/// found its redirections.
pub(super) fn text_flags(
    line: &CodeLine<'_>,
    compact: &str,
    call: &str,
    parsed: bool,
    flag: &mut impl FnMut(Concern, String),
) {
    let compiled = &*COMPILED;
    for (i, (_, then, what)) in REMOTE_CODE.iter().enumerate() {
        if let Some(at) = compiled.remote_first.find(i, compact)
            && (then.is_empty() || compiled.remote_then.find(i, &compact[at..]).is_some())
        {
            flag(Concern::RemoteCode, (*what).to_owned());
        }
    }
    for (i, (_, what)) in CREDENTIAL_STORES.iter().enumerate() {
        if compiled.stores.find(i, compact).is_some() {
            flag(Concern::Credentials, (*what).to_owned());
        }
    }
    if other(compact, "/etc/")
        && let Some(target) = etc_write(line.text, compact, parsed || line.lang != Lang::Shell)
    {
        flag(Concern::SystemFiles, format!("writes {target}"));
    }
    if !matches!(line.lang, Lang::Shell | Lang::Config | Lang::Sql) {
        for target in etc_written_by_calls(call) {
            flag(Concern::SystemFiles, format!("writes {target}"));
        }
    }
    if !parsed && let Some(name) = library_injection::set_in_text(line.text, line.lang) {
        flag(Concern::LibraryInjection, format!("sets {name}"));
    }
    for (i, (pattern, what)) in TLS_OFF.iter().enumerate() {
        let Some(at) = compiled.tls_off.find(i, compact) else {
            continue;
        };
        // A whole word on the left: `should_verify=false` is some other flag.
        let starts_word = compact[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
            || pattern.starts_with(|c: char| !c.is_ascii_alphanumeric());
        if starts_word {
            flag(Concern::TlsVerificationOff, (*what).to_owned());
        }
    }
    if line.lang == Lang::Config {
        return;
    }
    for (i, (_, word)) in AUTH_WORDS.iter().enumerate() {
        if compiled.auth_words.find_word(i, compact).is_some() {
            flag(Concern::Auth, (*word).to_owned());
        }
    }
    if other(compact, "/oauth/") || other(compact, "/oauth2/") {
        flag(Concern::Auth, "OAuth endpoint".to_owned());
    }
    if other(compact, "os.setuid(") || other(compact, "os.setgid(") {
        flag(Concern::Privilege, "os.setuid".to_owned());
    }
    if other(compact, "pbkdf2_hmac(") {
        flag(Concern::Auth, "pbkdf2_hmac password hashing".to_owned());
    }
    if other(compact, "hashlib.scrypt(") {
        flag(Concern::Auth, "scrypt password hashing".to_owned());
    }
    if let Some(what) = chmod_call(compact) {
        flag(Concern::Privilege, what);
    }
    for what in native_code::loads(line, compact) {
        flag(Concern::NativeCode, what);
    }
    if line.lang == Lang::JavaScript {
        for (i, call) in NODE_CRYPTO_CALLS.iter().enumerate() {
            if compiled.node_crypto.find(i, line.text).is_some() {
                flag(Concern::Crypto, call.trim_end_matches('(').to_owned());
            }
        }
    }
    let table = match line.lang {
        Lang::Python => PYTHON_SECURITY,
        Lang::JavaScript => JS_SECURITY,
        Lang::Go => GO_SECURITY,
        Lang::Ruby => RUBY_SECURITY,
        Lang::Rust => RUST_SECURITY,
        _ => return,
    };
    let names: Vec<&'static str> = table.iter().map(|(name, _)| *name).collect();
    for module in imports::imports(line) {
        if let Some(library) = imports::library_of(&module, &names)
            && let Some((_, concern)) = table
                .iter()
                .find(|(name, _)| name.trim_end_matches('/') == library)
        {
            flag(*concern, format!("{library} library"));
        }
    }
}
