//! The environment a suite gets: the gate's own, less the runner's credentials, the Action's
//! inputs, the job's command files and anything named like a secret, unless config allows a
//! name.

use std::ffi::OsString;

/// Names that never reach a suite: the runner's credentials, the Action's inputs, and anything
/// named like a secret.
fn is_secret_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &["ACTIONS_", "INPUT_"];
    const PARTS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "PRIVATE_KEY",
        "API_KEY",
        "ACCESS_KEY",
        "AUTH_KEY",
    ];
    let upper = name.to_ascii_uppercase();
    PREFIXES.iter().any(|p| upper.starts_with(p))
        || PARTS.iter().any(|p| upper.contains(p))
        || upper.ends_with("_KEY")
}

/// The files through which a step changes the job (`GITHUB_ENV` sets variables for later
/// steps, `GITHUB_PATH` their `PATH`): a suite writing to them could plant `LD_PRELOAD` or
/// `NODE_OPTIONS` in a step that holds the token.
const JOB_FILES: &[&str] = &[
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
];

/// A value that carries a password in a URL (`postgres://user:pass@host/db`).
fn has_url_credentials(value: &str) -> bool {
    value.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(':'))
    })
}

/// The environment a suite gets: ours, less secrets (by name, by a credential-bearing URL
/// value, and `extra_secrets`), unless a name is in `allow`.
pub fn scrubbed_env(
    env: impl IntoIterator<Item = (OsString, OsString)>,
    extra_secrets: &[String],
    allow: &[String],
) -> Vec<(OsString, OsString)> {
    env.into_iter()
        .filter(|(name, value)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            if allow.iter().any(|a| a == name) {
                return true;
            }
            let secret_value = value.to_str().is_none_or(has_url_credentials);
            !(is_secret_name(name)
                || JOB_FILES.contains(&name)
                || secret_value
                || extra_secrets.iter().any(|s| s == name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn scrubbing_removes_tokens_and_inputs_unless_allowed() {
        let env = os(&[
            ("PATH", "/bin"),
            ("GITHUB_TOKEN", "ghs_x"),
            ("GH_TOKEN", "x"),
            ("TOKEN", "x"),
            ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://x"),
            ("ACTIONS_RUNTIME_TOKEN", "t"),
            ("INPUT_GITHUB-TOKEN", "t"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_ACCESS_KEY_ID", "AKIA"),
            ("OPENAI_API_KEY", "sk"),
            ("SIGNING_KEY", "k"),
            ("DB_PASSWORD", "p"),
            ("DATABASE_URL", "postgres://app:hunter2@db:5432/app"),
            ("PUBLIC_URL", "https://example.com/a@b"),
            ("NPM_TOKEN", "n"),
            (
                "GITHUB_ENV",
                "/home/runner/work/_temp/_runner_file_commands/set_env_1",
            ),
            (
                "GITHUB_PATH",
                "/home/runner/work/_temp/_runner_file_commands/add_path_1",
            ),
            ("GITHUB_OUTPUT", "/o"),
            ("GITHUB_STATE", "/s"),
            ("GITHUB_STEP_SUMMARY", "/sum"),
            ("GITHUB_WORKSPACE", "/home/runner/work/r/r"),
            ("MY_CUSTOM", "c"),
            ("HOME", "/root"),
        ]);
        let kept = scrubbed_env(env, &["MY_CUSTOM".to_owned()], &["NPM_TOKEN".to_owned()]);
        let names: Vec<_> = kept
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            vec![
                "PATH",
                "PUBLIC_URL",
                "NPM_TOKEN",
                "GITHUB_WORKSPACE",
                "HOME"
            ]
        );
    }
}
