//! The environment a suite gets: an allowlist, not the gate's own environment less a blocklist.
//! A name nobody listed (a vendor's `SENTRY_DSN`, `DB_PASS`, `SSH_AUTH_SOCK`, the runner's
//! `RUNNER_TEMP`) never reaches a suite; `runner.env-allow` lets more through by name.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// Names a suite gets when the gate has them: the locale and terminal, identity that is not a
/// credential (the commits a suite's own tests make need an author), and the documented GitHub Actions variables that only describe the run.
/// Absent on purpose: `GITHUB_TOKEN` and every `ACTIONS_*` (credentials), `RUNNER_TEMP` and
/// `RUNNER_WORKSPACE` (they lead to the job's command files), the command files themselves
/// (`GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`: writing
/// them changes later steps), `GITHUB_EVENT_PATH` (public data, but the file sits in the
/// runner's temp directory beside those command files), `RUNNER_TOOL_CACHE` (writable by the
/// job; the `setup-*` actions' tools are on `PATH` already) and `HOME`/`TMPDIR`, which every
/// suite gets fresh.
const BASE: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "CI",
    "USER",
    "LOGNAME",
    "SHELL",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GITHUB_ACTIONS",
    "GITHUB_ACTOR",
    "GITHUB_ACTOR_ID",
    "GITHUB_API_URL",
    "GITHUB_BASE_REF",
    "GITHUB_EVENT_NAME",
    "GITHUB_GRAPHQL_URL",
    "GITHUB_HEAD_REF",
    "GITHUB_JOB",
    "GITHUB_REF",
    "GITHUB_REF_NAME",
    "GITHUB_REF_PROTECTED",
    "GITHUB_REF_TYPE",
    "GITHUB_REPOSITORY",
    "GITHUB_REPOSITORY_ID",
    "GITHUB_REPOSITORY_OWNER",
    "GITHUB_REPOSITORY_OWNER_ID",
    "GITHUB_RETENTION_DAYS",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_NUMBER",
    "GITHUB_SERVER_URL",
    "GITHUB_SHA",
    "GITHUB_TRIGGERING_ACTOR",
    "GITHUB_WORKFLOW",
    "GITHUB_WORKFLOW_REF",
    "GITHUB_WORKFLOW_SHA",
    "GITHUB_WORKSPACE",
    "RUNNER_ARCH",
    "RUNNER_DEBUG",
    "RUNNER_ENVIRONMENT",
    "RUNNER_NAME",
    "RUNNER_OS",
];

/// Where toolchains, their caches and their certificates are, and how they reach the network:
/// locations and settings the `setup-*` actions and images set, which a suite needs to find its
/// tools once `HOME` is fresh, and which hold no credential themselves. A value that is a URL
/// with a user in it (`https://TOKEN@proxy`) never passes. Left out: `MAVEN_OPTS` and the like,
/// whose JVM properties often carry a proxy's or a repository's password
/// (`runner.env-allow` passes it).
const TOOLCHAINS: &[&str] = &[
    "CARGO_HOME",
    "CARGO_TARGET_DIR",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOROOT",
    "GOPATH",
    "GOMODCACHE",
    "GOCACHE",
    "GOPROXY",
    "GOPRIVATE",
    "GONOSUMDB",
    "GONOPROXY",
    "GOFLAGS",
    "GOTOOLCHAIN",
    "GRADLE_USER_HOME",
    "JAVA_HOME",
    "NODE_PATH",
    "NVM_DIR",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PYTHONPATH",
    "PYTHONUSERBASE",
    "PIP_CACHE_DIR",
    "npm_config_cache",
    "PLAYWRIGHT_BROWSERS_PATH",
    "PUPPETEER_CACHE_DIR",
    "CYPRESS_CACHE_FOLDER",
    "pythonLocation",
    "Python_ROOT_DIR",
    "Python2_ROOT_DIR",
    "Python3_ROOT_DIR",
    "PKG_CONFIG_PATH",
    "LD_LIBRARY_PATH",
    "DOTNET_ROOT",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
];

/// Families of names: the locale's categories, the gate's own variables, and the runner
/// images' `JAVA_HOME_17_X64` and the like.
const PREFIXES: &[&str] = &["LC_", "SKILLGATE_", "JAVA_HOME_"];

/// Toolchains and caches that live under the gate's `HOME` unless a variable says where: with
/// a fresh `HOME`, rustup's `cargo` and pyenv's `python3` shims find no toolchain, `pip install
/// --user` packages, Go's modules and build cache, the browsers Playwright, Puppeteer and
/// Cypress downloaded and npm's cache are not found unless told. A suite reads nothing here
/// that it could not read by absolute path (it runs as the gate's user); this only keeps honest
/// suites working. npm gets its cache only, never `~/.npmrc` (where its tokens are).
const HOME_TOOLCHAINS: &[(&str, &str)] = &[
    ("CARGO_HOME", ".cargo"),
    ("RUSTUP_HOME", ".rustup"),
    ("PYENV_ROOT", ".pyenv"),
    ("PYTHONUSERBASE", ".local"),
    ("PIP_CACHE_DIR", ".cache/pip"),
    ("GOPATH", "go"),
    ("GOCACHE", ".cache/go-build"),
    ("PLAYWRIGHT_BROWSERS_PATH", ".cache/ms-playwright"),
    ("PUPPETEER_CACHE_DIR", ".cache/puppeteer"),
    ("CYPRESS_CACHE_FOLDER", ".cache/Cypress"),
    ("npm_config_cache", ".npm"),
];

/// Names that look like credentials even among the allowed families (`SKILLGATE_TOKEN`).
fn is_secret_name(name: &str) -> bool {
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
    PARTS.iter().any(|p| upper.contains(p)) || upper.ends_with("_KEY")
}

/// A value with a URL that names a user (`postgres://user:pass@host/db`): any userinfo counts,
/// since a token often stands alone there (`https://TOKEN@proxy`, `https://key@sentry`).
fn has_url_credentials(value: &str) -> bool {
    value.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.contains('@')
    })
}

/// Whether the allowlist holds `name` (before `secret-env` and the value checks).
fn listed(name: &str) -> bool {
    BASE.contains(&name)
        || TOOLCHAINS.contains(&name)
        || PREFIXES
            .iter()
            .any(|p| name.starts_with(p) && !is_secret_name(name))
}

/// The environment a suite gets from the gate's `env`: the names listed above, less
/// `extra_secrets` (`runner.secret-env`) and values that are URLs with a password, plus every
/// name in `allow` (`runner.env-allow`), which wins over both. `HOME`, `TMPDIR`, `TMP` and
/// `TEMP` are never taken from `env`: the runner gives each suite attempt fresh ones.
pub fn scrubbed_env(
    env: impl IntoIterator<Item = (OsString, OsString)>,
    extra_secrets: &[String],
    allow: &[String],
) -> Vec<(OsString, OsString)> {
    let env: Vec<(OsString, OsString)> = env.into_iter().collect();
    let mut kept: Vec<(OsString, OsString)> = env
        .iter()
        .filter(|(name, value)| {
            let Some(name) = name.to_str() else {
                return false;
            };
            if FRESH.contains(&name) {
                return false;
            }
            if allow.iter().any(|a| a == name) {
                return true;
            }
            let secret_value = value.to_str().is_none_or(has_url_credentials);
            listed(name) && !secret_value && !extra_secrets.iter().any(|s| s == name)
        })
        .cloned()
        .collect();
    let home = env
        .iter()
        .find(|(name, _)| name == "HOME")
        .map(|(_, value)| Path::new(value));
    let unset = |kept: &[(OsString, OsString)], name: &str| {
        !kept.iter().any(|(k, _)| k == OsStr::new(name)) && !extra_secrets.iter().any(|s| s == name)
    };
    for (name, dir) in HOME_TOOLCHAINS {
        if let Some(path) = home.map(|h| h.join(dir)).filter(|p| p.is_dir())
            && unset(&kept, name)
        {
            kept.push(((*name).into(), path.into_os_string()));
        }
    }
    // Go keeps modules in the first `GOPATH` entry's `pkg/mod`, however `GOPATH` was found.
    let modules = kept
        .iter()
        .find(|(k, _)| k == "GOPATH")
        .and_then(|(_, gopath)| std::env::split_paths(gopath).next())
        .map(|first| first.join("pkg/mod"))
        .filter(|p| p.is_absolute() && p.is_dir());
    if let Some(modules) = modules
        && unset(&kept, "GOMODCACHE")
    {
        kept.push(("GOMODCACHE".into(), modules.into_os_string()));
    }
    kept
}

/// Variables the runner sets per attempt, to directories made for it.
const FRESH: &[&str] = &["HOME", "TMPDIR", "TMP", "TEMP"];

/// What a suite's tools would otherwise write beside the code under test, sent into `scratch`
/// (the attempt's fresh `TMPDIR`, removed with it), over `env` (the suite's environment):
/// a check must not dirty the checkout it gates, or the next check gates its leftovers.
///
/// - Python writes no bytecode (`__pycache__/`, pytest's rewritten test modules included).
/// - coverage.py (and pytest-cov, which runs it) keeps its data file (`.coverage`) in
///   `scratch`: the variable wins over a `.coveragerc`'s `data_file`.
/// - pytest keeps its cache (`.pytest_cache/`) in `scratch`: `-o cache_dir=…` goes after any
///   `PYTEST_ADDOPTS` the suite already has, and still lets `--lf` work within the run.
/// - cargo builds into `scratch` unless `CARGO_TARGET_DIR` says where (the `Cargo.lock` it
///   writes beside a crate that had none is removed after the suite, see the runner).
/// - hypothesis keeps its example database (`.hypothesis/`) in `scratch`. Within one attempt
///   it still replays what it found; under `CI` (passed on when the gate has it) hypothesis 6
///   draws the same examples on every attempt, with or without a database.
///
/// Nothing is needed for the rest: jest keeps its cache under `TMPDIR`, go under `GOCACHE` (the
/// gate's, or the fresh `HOME`), node:test, mocha, bun and bats write nothing of their own, and
/// every detected framework writes its report and coverage into the report directory.
pub(super) fn no_trace(scratch: &Path, env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let has = |name: &str| env.iter().any(|(k, _)| k == name);
    let mut set: Vec<(OsString, OsString)> = vec![
        ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
        ("COVERAGE_FILE".into(), scratch.join(".coverage").into()),
        (
            "HYPOTHESIS_STORAGE_DIRECTORY".into(),
            scratch.join("hypothesis").into(),
        ),
    ];
    let cache_dir = scratch.join("pytest-cache");
    let mut addopts = env
        .iter()
        .find(|(k, _)| k == "PYTEST_ADDOPTS")
        .map(|(_, v)| {
            let mut v = v.clone();
            v.push(" ");
            v
        })
        .unwrap_or_default();
    // pytest splits the variable as a shell would: the path is one word whatever it holds.
    addopts.push(format!(
        "-o {}",
        shell_quoted(&format!("cache_dir={}", cache_dir.to_string_lossy()))
    ));
    set.push(("PYTEST_ADDOPTS".into(), addopts));
    if !has("CARGO_TARGET_DIR") {
        set.push((
            "CARGO_TARGET_DIR".into(),
            scratch.join("cargo-target").into(),
        ));
    }
    set
}

/// `word` in single quotes, as `shlex.split` reads it back.
fn shell_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
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

    fn names(kept: &[(OsString, OsString)]) -> Vec<String> {
        kept.iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_variables_issue_14_saw_leak_are_not_passed() {
        let env = os(&[
            ("PATH", "/usr/bin:/bin"),
            ("GH_PAT", "p"),
            (
                "SLACK_WEBHOOK_URL",
                "https://hooks.slack.com/services/T0/B0/x",
            ),
            ("SENTRY_DSN", "https://key@o0.ingest.sentry.io/1"),
            ("DB_PASS", "hunter2"),
            ("NPM_AUTH", "n"),
            ("GPG_PASSPHRASE", "g"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1"),
            ("DOCKER_AUTH_CONFIG", "{\"auths\":{}}"),
            ("RUNNER_TEMP", "/home/runner/work/_temp"),
            ("RUNNER_TOOL_CACHE", "/opt/hostedtoolcache"),
            ("RUNNER_WORKSPACE", "/home/runner/work/r"),
            ("GITHUB_TOKEN", "t"),
            ("ACTIONS_RUNTIME_TOKEN", "t"),
            ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://x"),
            ("ACTIONS_CACHE_URL", "https://x"),
            ("INPUT_GITHUB-TOKEN", "t"),
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
            (
                "GITHUB_EVENT_PATH",
                "/home/runner/work/_temp/_github_workflow/event.json",
            ),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("MY_CUSTOM", "c"),
        ]);
        assert_eq!(names(&scrubbed_env(env, &[], &[])), vec!["PATH"]);
    }

    #[test]
    fn run_metadata_locale_and_toolchains_pass() {
        let env = os(&[
            ("PATH", "/bin"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("TERM", "xterm"),
            ("CI", "true"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REPOSITORY", "octo/repo"),
            ("GITHUB_SHA", "abc"),
            ("GITHUB_REF", "refs/pull/1/merge"),
            ("GITHUB_WORKSPACE", "/home/runner/work/r/r"),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
            ("SKILLGATE_LEVEL", "1"),
            ("JAVA_HOME", "/usr/lib/jvm/17"),
            ("JAVA_HOME_17_X64", "/usr/lib/jvm/17"),
            ("GOPATH", "/home/runner/go"),
            ("VIRTUAL_ENV", "/venv"),
            ("CARGO_HOME", "/c"),
            ("RUSTUP_HOME", "/r"),
            ("HTTPS_PROXY", "http://proxy:3128"),
        ]);
        let expected: Vec<String> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names(&scrubbed_env(env, &[], &[])), expected);
    }

    #[test]
    fn home_and_temp_directories_never_come_from_the_gate() {
        let env = os(&[
            ("HOME", "/home/runner"),
            ("TMPDIR", "/tmp"),
            ("TMP", "/tmp"),
            ("TEMP", "/tmp"),
        ]);
        // Even when config names them: each attempt gets its own.
        let allow = ["HOME".to_owned(), "TMPDIR".to_owned()];
        assert!(scrubbed_env(env, &[], &allow).is_empty());
    }

    #[test]
    fn secrets_inside_allowed_families_and_urls_with_passwords_are_refused() {
        let env = os(&[
            ("SKILLGATE_TOKEN", "t"),
            ("SKILLGATE_API_KEY", "k"),
            ("LC_SECRET", "s"),
            ("HTTPS_PROXY", "http://user:pass@proxy:3128"),
            ("GOPATH", "/go"),
        ]);
        let kept = scrubbed_env(env, &["GOPATH".to_owned()], &[]);
        assert!(kept.is_empty(), "{:?}", names(&kept));
    }

    #[test]
    fn env_allow_adds_names_and_wins_over_secret_env() {
        let env = os(&[
            ("PATH", "/bin"),
            ("NPM_TOKEN", "n"),
            ("DATABASE_URL", "postgres://app:pw@db/app"),
            ("JAVA_HOME", "/jvm"),
            ("VENDOR_HOME", "/v"),
        ]);
        let kept = scrubbed_env(
            env,
            &["JAVA_HOME".to_owned(), "NPM_TOKEN".to_owned()],
            &[
                "NPM_TOKEN".to_owned(),
                "DATABASE_URL".to_owned(),
                "VENDOR_HOME".to_owned(),
            ],
        );
        assert_eq!(
            names(&kept),
            vec!["PATH", "NPM_TOKEN", "DATABASE_URL", "VENDOR_HOME"]
        );
    }

    #[test]
    fn rust_toolchains_under_the_gates_home_stay_reachable() {
        let home = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(home.path().join(".cargo")).expect("mkdir");
        std::fs::create_dir(home.path().join(".rustup")).expect("mkdir");
        let home_str = home.path().to_str().expect("utf8");
        let kept = scrubbed_env(os(&[("HOME", home_str)]), &[], &[]);
        assert_eq!(
            kept,
            vec![
                (
                    "CARGO_HOME".into(),
                    home.path().join(".cargo").into_os_string()
                ),
                (
                    "RUSTUP_HOME".into(),
                    home.path().join(".rustup").into_os_string()
                ),
            ]
        );
        // A variable that says where wins; `secret-env` can refuse the default.
        let kept = scrubbed_env(
            os(&[("HOME", home_str), ("CARGO_HOME", "/opt/cargo")]),
            &["RUSTUP_HOME".to_owned()],
            &[],
        );
        assert_eq!(kept, os(&[("CARGO_HOME", "/opt/cargo")]));
    }

    #[test]
    fn caches_and_coverage_data_go_to_the_scratch_directory() {
        let scratch = Path::new("/tmp/w/t abc");
        let set = no_trace(scratch, &os(&[("PATH", "/bin")]));
        assert_eq!(
            set,
            os(&[
                ("PYTHONDONTWRITEBYTECODE", "1"),
                ("COVERAGE_FILE", "/tmp/w/t abc/.coverage"),
                ("HYPOTHESIS_STORAGE_DIRECTORY", "/tmp/w/t abc/hypothesis"),
                ("PYTEST_ADDOPTS", "-o 'cache_dir=/tmp/w/t abc/pytest-cache'"),
                ("CARGO_TARGET_DIR", "/tmp/w/t abc/cargo-target"),
            ])
        );
        // The suite's own options stay, and its own target directory too.
        let set = no_trace(
            Path::new("/s"),
            &os(&[("PYTEST_ADDOPTS", "-x -q"), ("CARGO_TARGET_DIR", "/t")]),
        );
        assert_eq!(
            set,
            os(&[
                ("PYTHONDONTWRITEBYTECODE", "1"),
                ("COVERAGE_FILE", "/s/.coverage"),
                ("HYPOTHESIS_STORAGE_DIRECTORY", "/s/hypothesis"),
                ("PYTEST_ADDOPTS", "-x -q -o 'cache_dir=/s/pytest-cache'"),
            ])
        );
        assert_eq!(shell_quoted("it's"), r"'it'\''s'");
    }

    fn token() -> String {
        crate::analysis::secrets::testing::fixture_value("ghp", 14).expect("a fixture token")
    }

    #[test]
    fn any_user_in_a_url_is_a_credential() {
        let token = token();
        assert!(has_url_credentials(&format!("https://{token}@proxy:3128")));
        assert!(has_url_credentials(&format!("http://user:{token}@proxy")));
        assert!(has_url_credentials(&format!(
            "https://proxy.golang.org,https://{token}@athens.example/go,direct"
        )));
        assert!(!has_url_credentials("http://proxy:3128"));
        assert!(!has_url_credentials("https://proxy.golang.org,direct"));
        assert!(!has_url_credentials("https://host/path@v1.2"));
        // A token alone in a proxy's URL is refused like a password.
        let env = os(&[
            ("PATH", "/bin"),
            ("HTTPS_PROXY", &format!("https://{token}@proxy:3128")),
            ("GOPROXY", &format!("https://{token}@athens.example")),
        ]);
        assert_eq!(names(&scrubbed_env(env, &[], &[])), vec!["PATH"]);
    }

    #[test]
    fn go_python_and_git_settings_pass_and_maven_opts_does_not() {
        let env = os(&[
            ("GOPROXY", "https://proxy.golang.org,direct"),
            ("GOPRIVATE", "github.com/octo/*"),
            ("GONOSUMDB", "github.com/octo/*"),
            ("GONOPROXY", "github.com/octo/*"),
            ("GOFLAGS", "-mod=mod"),
            ("GOTOOLCHAIN", "local"),
            ("PYENV_VERSION", "3.12.1"),
            ("CARGO_TARGET_DIR", "/tmp/target"),
            ("GRADLE_USER_HOME", "/opt/gradle"),
            ("GIT_AUTHOR_NAME", "Octo Cat"),
            ("GIT_AUTHOR_EMAIL", "octo@example.com"),
            ("GIT_COMMITTER_NAME", "Octo Cat"),
            ("GIT_COMMITTER_EMAIL", "octo@example.com"),
            ("ALL_PROXY", "socks5://proxy:1080"),
            ("MAVEN_OPTS", "-Dhttps.proxyPassword=x"),
        ]);
        let mut expected: Vec<String> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        expected.pop();
        assert_eq!(names(&scrubbed_env(env, &[], &[])), expected);
    }

    #[test]
    fn caches_and_user_installs_under_the_gates_home_stay_reachable() {
        let home = tempfile::tempdir().expect("tempdir");
        for dir in [
            ".local",
            ".cache/pip",
            "go/pkg/mod",
            ".cache/go-build",
            ".cache/ms-playwright",
            ".cache/puppeteer",
            ".cache/Cypress",
            ".npm",
        ] {
            std::fs::create_dir_all(home.path().join(dir)).expect("mkdir");
        }
        std::fs::write(home.path().join(".npmrc"), "//registry/:_authToken=x\n").expect("write");
        let home_str = home.path().to_str().expect("utf8");
        let at = |dir: &str| home.path().join(dir).into_os_string();
        let kept = scrubbed_env(os(&[("HOME", home_str)]), &[], &[]);
        let expected: Vec<(OsString, OsString)> = vec![
            ("PYTHONUSERBASE".into(), at(".local")),
            ("PIP_CACHE_DIR".into(), at(".cache/pip")),
            ("GOPATH".into(), at("go")),
            ("GOCACHE".into(), at(".cache/go-build")),
            (
                "PLAYWRIGHT_BROWSERS_PATH".into(),
                at(".cache/ms-playwright"),
            ),
            ("PUPPETEER_CACHE_DIR".into(), at(".cache/puppeteer")),
            ("CYPRESS_CACHE_FOLDER".into(), at(".cache/Cypress")),
            ("npm_config_cache".into(), at(".npm")),
            ("GOMODCACHE".into(), at("go/pkg/mod")),
        ];
        assert_eq!(kept, expected);
        // The gate's own settings win, and Go's modules follow the `GOPATH` it names.
        let gopath = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(gopath.path().join("pkg/mod")).expect("mkdir");
        let gopath_str = gopath.path().to_str().expect("utf8");
        let kept = scrubbed_env(
            os(&[
                ("HOME", home_str),
                ("GOPATH", &format!("{gopath_str}:/elsewhere")),
                ("npm_config_cache", "/opt/npm-cache"),
            ]),
            &["PYTHONUSERBASE".to_owned()],
            &[],
        );
        let find = |name: &str| kept.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        assert_eq!(
            find("GOMODCACHE"),
            Some(gopath.path().join("pkg/mod").into_os_string())
        );
        assert_eq!(find("npm_config_cache"), Some("/opt/npm-cache".into()));
        assert_eq!(find("PYTHONUSERBASE"), None);
        assert_eq!(find("GOCACHE"), Some(at(".cache/go-build")));
        // Nothing points at `~/.npmrc`.
        assert!(
            kept.iter()
                .all(|(_, v)| !v.to_string_lossy().contains(".npmrc"))
        );
    }
}
