//! Security-sensitive content: code that touches credential stores.
//!
//! **credentials**: credential stores read or written: `~/.ssh`, `authorized_keys`, SSH private
//! keys (`id_rsa`, `id_ed25519`, …), `~/.aws/credentials`, `.netrc`, `.pypirc`,
//! `.docker/config.json`, `.kube/config`, `.gnupg`, `.git-credentials`, `/etc/shadow`,
//! `/etc/sudoers`; logins that store a credential (`docker login`,
//! `gh auth login`, `npm login`, `aws configure`, `gcloud auth`, `az login`, `ssh-add`,
//! `git config credential.*`, the `keyring`/`keytar` libraries).

use super::text_flags::other;

/// Credential stores: any reference (compact, lowercase) is credential handling.
pub(super) const CREDENTIAL_STORES: &[(&str, &str)] = &[
    ("~/.ssh", "~/.ssh"),
    ("$home/.ssh", "~/.ssh"),
    ("${home}/.ssh", "~/.ssh"),
    ("\".ssh\"", "~/.ssh"),
    ("'.ssh'", "~/.ssh"),
    ("authorized_keys", "authorized_keys"),
    ("id_rsa", "SSH private key (id_rsa)"),
    ("id_ed25519", "SSH private key (id_ed25519)"),
    ("id_ecdsa", "SSH private key (id_ecdsa)"),
    ("id_dsa", "SSH private key (id_dsa)"),
    (".aws/credentials", "~/.aws/credentials"),
    (".netrc", ".netrc"),
    (".pypirc", ".pypirc"),
    (".docker/config.json", "~/.docker/config.json"),
    (".kube/config", "~/.kube/config"),
    (".gnupg", "~/.gnupg"),
    (".git-credentials", ".git-credentials"),
    ("/etc/shadow", "/etc/shadow"),
    ("/etc/gshadow", "/etc/gshadow"),
    ("/etc/sudoers", "/etc/sudoers"),
];

/// Credential-like names a line reads from the environment or CI secrets: `$GITHUB_TOKEN`,
/// `${API_KEY}`, `os.environ["X_SECRET"]`, `os.getenv("DB_PASSWORD")`, `process.env.NPM_TOKEN`,
/// `ENV["X_TOKEN"]`, `${{ secrets.DEPLOY_KEY }}`.
pub(super) fn credential_names_in(text: &str, compact: &str) -> Vec<String> {
    let mut names = Vec::new();
    if memchr::memchr(b'$', text.as_bytes()).is_none() && !other(compact, "env") {
        return names;
    }
    let accessors = [
        "${{secrets.",
        "${{ secrets.",
        "$",
        "environ[",
        "environ.get(",
        "getenv(",
        "Getenv(",
        "process.env.",
        "process.env[",
        "ENV[",
        "ENV.fetch(",
        "env.",
    ];
    for accessor in accessors {
        let mut from = 0;
        while let Some(at) = text[from..].find(accessor) {
            let start = from + at + accessor.len();
            from = start;
            let rest = text[start..].trim_start_matches(['{', '"', '\'', ' ']);
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..end];
            if is_credential_name(name) && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// An environment-style name (`UPPER_SNAKE`) with a part that names a credential: `TOKEN`,
/// `SECRET`, `PASSWORD`, `CREDENTIALS`, `AUTH`, `PAT`, or `KEY` after `API`, `ACCESS`, `PRIVATE`,
/// `SIGNING`, `DEPLOY`, `SSH`. `AUTHOR`, `HOME`, `PWD` are not.
fn is_credential_name(name: &str) -> bool {
    if name.len() < 3
        || !name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    {
        return false;
    }
    let parts: Vec<&str> = name.split('_').collect();
    parts.iter().enumerate().any(|(i, part)| {
        matches!(
            *part,
            "TOKEN"
                | "TOKENS"
                | "SECRET"
                | "SECRETS"
                | "PASSWORD"
                | "PASSWD"
                | "APIKEY"
                | "CREDENTIAL"
                | "CREDENTIALS"
                | "CREDS"
                | "AUTH"
                | "PAT"
        ) || (*part == "KEY"
            && i > 0
            && matches!(
                parts[i - 1],
                "API" | "ACCESS" | "PRIVATE" | "SIGNING" | "DEPLOY" | "SSH"
            ))
    })
}
