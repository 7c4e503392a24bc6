//! The GitHub Action: `action/install.sh` and `action/run.sh` under a simulated runner (a temp
//! directory for `RUNNER_TEMP` and the job's files, a local directory standing in for a release),
//! and `action.yml` itself.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};
use yaml_rust2::{Yaml, YamlLoader};

use common::copy_tree;

const VERSION: &str = "v1.2.3";
const LINUX_X64: &str = "x86_64-unknown-linux-musl";

/// The runners the action supports, and the release target each must get.
const TARGETS: [(&str, &str, &str); 5] = [
    ("Linux", "X64", "x86_64-unknown-linux-musl"),
    ("Linux", "ARM64", "aarch64-unknown-linux-musl"),
    ("macOS", "X64", "x86_64-apple-darwin"),
    ("macOS", "ARM64", "aarch64-apple-darwin"),
    ("Windows", "X64", "x86_64-pc-windows-msvc"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_skillgate"))
}

fn sha256_hex(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn archive_name(target: &str) -> String {
    let ext = if target.contains("windows") {
        "zip"
    } else {
        "tar.gz"
    };
    format!("skillgate-{VERSION}-{target}.{ext}")
}

/// A release as release.yml makes it: one archive per target holding a copy of the built binary
/// (`skillgate.exe` for Windows) and a `TARGET` marker naming its target, and `SHA256SUMS`.
/// Made once, shared by the tests (which never write to it).
fn release() -> &'static Path {
    static RELEASE: OnceLock<PathBuf> = OnceLock::new();
    RELEASE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("action-release");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        // Stripped (when binutils' strip is there), for archives that are quick to make and read.
        let built = dir.join("skillgate-built");
        let stripped = Command::new("strip")
            .arg("-o")
            .arg(&built)
            .arg(binary())
            .status()
            .is_ok_and(|s| s.success());
        if !stripped {
            std::fs::copy(binary(), &built).expect("copy");
        }
        let mut sums = String::new();
        std::thread::scope(|scope| {
            for (_, _, target) in TARGETS {
                let (dir, built) = (&dir, &built);
                scope.spawn(move || {
                    let stage = dir.join(format!("stage-{target}"));
                    std::fs::create_dir_all(&stage).expect("mkdir");
                    let exe = if target.contains("windows") {
                        "skillgate.exe"
                    } else {
                        "skillgate"
                    };
                    std::fs::copy(built, stage.join(exe)).expect("copy");
                    std::fs::write(stage.join("TARGET"), target).expect("marker");
                    let archive = dir.join(archive_name(target));
                    let script = if target.contains("windows") {
                        "python3 -c 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], \"w\", zipfile.ZIP_DEFLATED, compresslevel=1) as z:\n    [z.write(f) for f in sys.argv[2:]]' \"$0\" skillgate.exe TARGET"
                    } else {
                        "tar -cf - skillgate TARGET | gzip -1 > \"$0\""
                    };
                    let status = Command::new("bash")
                        .args(["-euc", script])
                        .arg(&archive)
                        .current_dir(&stage)
                        .status()
                        .expect("bash");
                    assert!(status.success(), "archive for {target}");
                    std::fs::remove_dir_all(&stage).expect("rm");
                });
            }
        });
        std::fs::remove_file(&built).expect("rm");
        for (_, _, target) in TARGETS {
            let name = archive_name(target);
            sums.push_str(&format!("{}  {name}\n", sha256_hex(&dir.join(&name))));
        }
        std::fs::write(dir.join("SHA256SUMS"), sums).expect("sums");
        dir
    })
}

fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// A simulated runner: `RUNNER_TEMP`, the job's files, and a `bin/` first on `PATH` for the
/// stand-ins (a `cargo` that records its arguments, a `skillgate` that records its own).
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["temp", "bin", "work"] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        }
        for file in ["output", "summary", "path"] {
            std::fs::write(dir.path().join(file), "").expect("touch");
        }
        // `cargo install --root DIR` stand-in: records its arguments, installs the built binary.
        let cargo = dir.path().join("bin/cargo");
        std::fs::write(
            &cargo,
            "#!/usr/bin/env bash\nprintf '%s\\n' \"$PWD\" \"$@\" > \"$RUNNER_TEMP/../cargo-args\"\n\
             root=''; while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\n\
             mkdir -p \"$root/bin\" && cp \"$SKILLGATE_BUILT\" \"$root/bin/skillgate\"\n",
        )
        .expect("cargo");
        make_executable(&cargo);
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    /// bash running one of the action's scripts, with only the runner's environment.
    fn script(&self, name: &str, os: &str, arch: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg(root().join("action").join(name))
            .current_dir(self.path("work"))
            .env_clear()
            // The test's own environment, but nothing of a runner or a token it may run in.
            .envs(std::env::vars().filter(|(name, _)| {
                ![
                    "GITHUB_",
                    "RUNNER_",
                    "INPUT_",
                    "SKILLGATE_",
                    "ACTIONS_",
                    "GH_",
                ]
                .iter()
                .any(|prefix| name.starts_with(prefix))
            }))
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    self.path("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("RUNNER_OS", os)
            .env("RUNNER_ARCH", arch)
            .env("RUNNER_TEMP", self.path("temp"))
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary"))
            .env("GITHUB_PATH", self.path("path"))
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_ACTION_REPOSITORY", "skillgate/skillgate")
            .env("SKILLGATE_BUILT", binary());
        cmd
    }

    fn install(&self, os: &str, arch: &str, release: &Path) -> Output {
        self.script("install.sh", os, arch)
            .env("INPUT_VERSION", VERSION)
            .env("SKILLGATE_RELEASE_URL", file_url(release))
            .output()
            .expect("install.sh")
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `GITHUB_OUTPUT` file's values, both forms (`name=value`, `name<<DELIMITER`).
fn outputs(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let mut value = Vec::new();
            for line in lines.by_ref() {
                if line == delimiter {
                    break;
                }
                value.push(line);
            }
            found.push((name.to_owned(), value.join("\n")));
        } else if let Some((name, value)) = line.split_once('=') {
            found.push((name.to_owned(), value.to_owned()));
        }
    }
    found
}

fn output(text: &str, name: &str) -> Option<String> {
    outputs(text)
        .into_iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

#[test]
fn each_runner_gets_the_archive_of_its_target_verified_and_on_the_path() {
    let release = release();
    std::thread::scope(|scope| {
        for (os, arch, target) in TARGETS {
            scope.spawn(move || {
                let runner = Runner::new();
                let out = runner.install(os, arch, release);
                let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
                assert!(out.status.success(), "{os} {arch}: {stdout}{stderr}");
                let dir = runner
                    .path("temp")
                    .join("skillgate")
                    .join(VERSION)
                    .join(target);
                assert_eq!(
                    std::fs::read_to_string(dir.join("TARGET")).expect("marker"),
                    target,
                    "{os} {arch}"
                );
                let exe = if os == "Windows" {
                    "skillgate.exe"
                } else {
                    "skillgate"
                };
                assert!(dir.join(exe).is_file(), "{os} {arch}: {exe}");
                assert_eq!(runner.read("path"), format!("{}\n", dir.display()));
                assert_eq!(
                    output(&runner.read("output"), "from").as_deref(),
                    Some("release")
                );
                let sum = sha256_hex(&release.join(archive_name(target)));
                assert!(
                    stdout.contains(&format!("verified {}: sha256 {sum}", archive_name(target))),
                    "{stdout}"
                );
                assert!(
                    stdout.ends_with(&format!("skillgate {}\n", env!("CARGO_PKG_VERSION"))),
                    "--version printed last: {stdout}"
                );
                assert!(!runner.path("cargo-args").exists(), "no build from source");
            });
        }
    });
}

#[test]
fn an_unsupported_runner_is_refused() {
    for (os, arch) in [
        ("Windows", "ARM64"),
        ("Linux", "X86"),
        ("Linux", "ARM"),
        ("FreeBSD", "X64"),
    ] {
        let runner = Runner::new();
        let out = runner.install(os, arch, release());
        assert_eq!(out.status.code(), Some(1), "{os} {arch}");
        assert_eq!(
            text(&out.stderr),
            format!(
                "skillgate install: no skillgate release for {os} on {arch} (supported: Linux X64/ARM64, macOS X64/ARM64, Windows X64)\n"
            )
        );
        assert_eq!(runner.read("path"), "");
    }
}

/// A copy of the release's Linux X64 archive and `SHA256SUMS`, for tampering.
fn release_copy(into: &Path) {
    std::fs::create_dir_all(into).expect("mkdir");
    for name in [archive_name(LINUX_X64), "SHA256SUMS".to_owned()] {
        std::fs::copy(release().join(&name), into.join(&name)).expect("copy");
    }
}

#[test]
fn a_tampered_archive_is_refused_and_nothing_is_installed() {
    let runner = Runner::new();
    let fake = runner.path("release");
    release_copy(&fake);
    let archive = fake.join(archive_name(LINUX_X64));
    let expected = sha256_hex(&archive);
    let mut bytes = std::fs::read(&archive).expect("read");
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&archive, &bytes).expect("write");
    let got = sha256_hex(&archive);

    let out = runner.install("Linux", "X64", &fake);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "skillgate install: checksum mismatch for {}: expected {expected}, got {got}\n",
            archive_name(LINUX_X64)
        )
    );
    assert_eq!(runner.read("path"), "");
    assert!(!runner.path("temp/skillgate").exists(), "nothing installed");
    assert!(!runner.path("cargo-args").exists(), "no build from source");
    // Nor is a download left behind.
    assert_eq!(
        std::fs::read_dir(runner.path("temp")).expect("ls").count(),
        0
    );
}

#[test]
fn an_archive_missing_from_the_checksums_is_refused() {
    let runner = Runner::new();
    let fake = runner.path("release");
    release_copy(&fake);
    std::fs::write(
        fake.join("SHA256SUMS"),
        format!("{}  skillgate-{VERSION}-other.tar.gz\n", "0".repeat(64)),
    )
    .expect("sums");
    let out = runner.install("Linux", "X64", &fake);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "skillgate install: checksum mismatch for {}: expected no line in SHA256SUMS, got {}\n",
            archive_name(LINUX_X64),
            sha256_hex(&fake.join(archive_name(LINUX_X64)))
        )
    );
    assert!(!runner.path("temp/skillgate").exists(), "nothing installed");
}

#[test]
fn a_cached_archive_is_verified_again_and_reused_without_download() {
    let runner = Runner::new();
    let first = runner.install("Linux", "X64", release());
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(
        output(&runner.read("output"), "from").as_deref(),
        Some("release")
    );
    let cached = runner
        .path("temp/skillgate-cache")
        .join(VERSION)
        .join(LINUX_X64)
        .join(archive_name(LINUX_X64));
    assert!(
        cached.is_file(),
        "the verified archive is kept for actions/cache"
    );
    std::fs::write(runner.path("path"), "").expect("reset");
    std::fs::write(runner.path("output"), "").expect("reset");
    std::fs::remove_dir_all(runner.path("temp/skillgate")).expect("a new job: no install yet");

    // The release still has its SHA256SUMS but no archive: only the cache can serve it.
    let fake = runner.path("release");
    release_copy(&fake);
    std::fs::remove_file(fake.join(archive_name(LINUX_X64))).expect("rm");
    let out = runner.install("Linux", "X64", &fake);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(
        stdout,
        format!(
            "using the cached {archive}\nverified {archive}: sha256 {sum}\ninstalled skillgate {VERSION} ({LINUX_X64})\nskillgate {}\n",
            env!("CARGO_PKG_VERSION"),
            archive = archive_name(LINUX_X64),
            sum = sha256_hex(&cached),
        )
    );
    assert_eq!(
        output(&runner.read("output"), "from").as_deref(),
        Some("cache")
    );
    let dir = runner.path("temp/skillgate").join(VERSION).join(LINUX_X64);
    assert_eq!(runner.read("path"), format!("{}\n", dir.display()));
    assert!(!runner.path("cargo-args").exists(), "no build from source");
}

#[test]
fn a_cache_entry_that_does_not_match_the_release_is_refused_and_dropped() {
    let runner = Runner::new();
    let first = runner.install("Linux", "X64", release());
    assert!(first.status.success(), "{}", text(&first.stderr));
    std::fs::remove_dir_all(runner.path("temp/skillgate")).expect("a new job: no install yet");
    // What a job that could write the cache put there: another binary under the same key.
    let cached = runner
        .path("temp/skillgate-cache")
        .join(VERSION)
        .join(LINUX_X64)
        .join(archive_name(LINUX_X64));
    let expected = sha256_hex(&cached);
    let mut bytes = std::fs::read(&cached).expect("read");
    bytes.extend_from_slice(b"planted");
    std::fs::write(&cached, &bytes).expect("write");
    let got = sha256_hex(&cached);

    let out = runner.install("Linux", "X64", release());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "skillgate install: checksum mismatch for {}: expected {expected}, got {got}\n",
            archive_name(LINUX_X64)
        )
    );
    assert!(!runner.path("temp/skillgate").exists(), "nothing installed");
    assert!(
        !cached.exists(),
        "the bad entry is dropped: a re-run downloads"
    );
}

#[test]
fn a_version_asked_for_without_its_asset_is_an_error_not_another_build() {
    let runner = Runner::new();
    let out = runner.install("Linux", "X64", &runner.path("no-release"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    // After curl's own line about the missing file.
    assert!(
        stderr.ends_with(&format!(
            "\nskillgate install: skillgate {VERSION} has no release asset for {LINUX_X64} (check the version input)\n"
        )),
        "{stderr}"
    );
    assert!(!runner.path("cargo-args").exists(), "no build from source");
    assert_eq!(runner.read("path"), "");
}

#[test]
fn without_a_release_it_builds_from_the_actions_source() {
    // No version and no tag (`uses: ./`), then the action's own tag whose release has no such
    // asset.
    for tag in ["", VERSION] {
        let runner = Runner::new();
        let out = runner
            .script("install.sh", "Linux", "X64")
            .env("INPUT_VERSION", "")
            .env("SKILLGATE_ACTION_REF", tag)
            .env(
                "SKILLGATE_RELEASE_URL",
                file_url(&runner.path("no-release")),
            )
            .output()
            .expect("install.sh");
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        assert!(
            stdout.contains("building from the action's source with cargo install"),
            "{stdout}"
        );
        let dir = runner.path("temp/skillgate/source").join(LINUX_X64);
        assert_eq!(
            runner.read("cargo-args"),
            format!(
                "{root}\ninstall\n--locked\n--path\n{root}\n--root\n{}\n",
                dir.display(),
                root = root().display()
            )
        );
        assert_eq!(
            runner.read("path"),
            format!("{}\n", dir.join("bin").display())
        );
        assert_eq!(
            output(&runner.read("output"), "from").as_deref(),
            Some("source")
        );
        assert!(stdout.ends_with(&format!("skillgate {}\n", env!("CARGO_PKG_VERSION"))));
    }
}

#[test]
fn a_version_that_is_not_a_tag_is_refused() {
    for (input, action_ref) in [
        ("v1/../../../home", ""),
        ("v1..2", ""),
        ("main", ""),
        ("", "v1.2.3/../x"),
        ("v1.2.3\nv2", ""),
    ] {
        let runner = Runner::new();
        let out = runner
            .script("install.sh", "Linux", "X64")
            .env("INPUT_VERSION", input)
            .env("SKILLGATE_ACTION_REF", action_ref)
            .env(
                "SKILLGATE_RELEASE_URL",
                file_url(&runner.path("no-release")),
            )
            .output()
            .expect("install.sh");
        assert_eq!(out.status.code(), Some(1), "{input:?} {action_ref:?}");
        let version = if input.is_empty() { action_ref } else { input };
        assert_eq!(
            text(&out.stderr),
            format!("skillgate install: version '{version}' is not a release tag (v1.2.3)\n")
        );
        assert_eq!(runner.read("path"), "");
        assert!(!runner.path("temp/skillgate").exists());
    }
}

#[test]
fn the_version_is_the_input_else_the_actions_tag() {
    let cargo_tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let major = cargo_tag.split('.').next().expect("major").to_owned();
    for (input, action_ref, want) in [
        ("v2.0.0", "v1.2.3", "v2.0.0"),
        ("2.0.0", "", "v2.0.0"),
        ("", "v1.2.3", "v1.2.3"),
        // A moving major tag: the release the action's own Cargo.toml names.
        ("", major.as_str(), cargo_tag.as_str()),
        ("", "v9", ""),
        ("", "main", ""),
        ("", "0123456789abcdef0123456789abcdef01234567", ""),
        ("", "", ""),
    ] {
        let runner = Runner::new();
        let out = runner
            .script("install.sh", "macOS", "ARM64")
            .arg("resolve")
            .env("INPUT_VERSION", input)
            .env("SKILLGATE_ACTION_REF", action_ref)
            .output()
            .expect("install.sh");
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(
            runner.read("output"),
            format!("version={want}\ntarget=aarch64-apple-darwin\n"),
            "version {input:?}, ref {action_ref:?}"
        );
    }
}

/// A `skillgate` stand-in that writes each argument it got, then its token variables, to files.
fn recording_binary(runner: &Runner) {
    let path = runner.path("bin/skillgate");
    std::fs::write(
        &path,
        "#!/usr/bin/env bash\n\
         for a in \"$@\"; do printf '%s\\n--end-of-argument--\\n' \"$a\"; done > \"$RUNNER_TEMP/../argv\"\n\
         printf 'GITHUB_TOKEN=%s\\nGH_TOKEN=%s\\nINPUT_TOKEN=%s\\n' \"${GITHUB_TOKEN-unset}\" \"${GH_TOKEN-unset}\" \"${INPUT_TOKEN-unset}\" > \"$RUNNER_TEMP/../token-env\"\n\
         exit 3\n",
    )
    .expect("stand-in");
    make_executable(&path);
}

fn argv(runner: &Runner) -> Vec<String> {
    let text = runner.read("argv");
    let mut args: Vec<String> = text
        .split("\n--end-of-argument--\n")
        .map(str::to_owned)
        .collect();
    assert_eq!(args.pop().as_deref(), Some(""), "{text:?}");
    args
}

fn run_action(runner: &Runner, inputs: &[(&str, &str)]) -> Output {
    let mut cmd = runner.script("run.sh", "Linux", "X64");
    for (name, value) in inputs {
        cmd.env(
            format!("INPUT_{}", name.to_uppercase().replace('-', "_")),
            value,
        );
    }
    cmd.output().expect("run.sh")
}

#[test]
fn inputs_reach_the_binary_as_literal_arguments() {
    let runner = Runner::new();
    recording_binary(&runner);
    let work = runner.path("work");
    let args = "--skill \"$(touch ran-dollar)\" `touch ran-backtick` 'it''s' \"say \\\"hi\\\"\" \
                a;touch ran-semicolon b|touch ran-pipe 'two words' x\\ y \"line one\nline two\" \
                tail\nnext $HOME ~ * '' #c\n";
    let out = run_action(
        &runner,
        &[
            ("command", "check"),
            (
                "config",
                "$(touch ran-config)\n`touch ran-config2`; rm -rf /",
            ),
            ("base", "origin/main"),
            ("fail-on", "never"),
            ("results", "out dir/results.json"),
            ("args", args),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "the binary's exit code: {}",
        text(&out.stderr)
    );
    assert_eq!(
        argv(&runner),
        [
            "check",
            "--config",
            "$(touch ran-config)\n`touch ran-config2`; rm -rf /",
            "--base",
            "origin/main",
            "--fail-on",
            "never",
            "--out",
            "out dir/results.json",
            "--skill",
            "$(touch ran-dollar)",
            "`touch",
            "ran-backtick`",
            "its",
            "say \"hi\"",
            "a;touch",
            "ran-semicolon",
            "b|touch",
            "ran-pipe",
            "two words",
            "x y",
            "line one\nline two",
            "tail\nnext",
            "$HOME",
            "~",
            "*",
            "",
            "#c",
        ]
    );
    let ran: Vec<_> = std::fs::read_dir(&work)
        .expect("ls")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(ran.is_empty(), "nothing was executed: {ran:?}");
}

#[test]
fn a_malformed_args_input_is_refused() {
    for (args, message) in [
        ("--skill 'open", "args: unterminated ' quote"),
        ("--skill \"open", "args: unterminated \" quote"),
        (
            "--skill a\\",
            "args: a backslash ends the input (quote it: '\\')",
        ),
        (
            "--token ghs_x",
            "args: pass the token in the token input, never on the command line",
        ),
        (
            "--token=ghs_x",
            "args: pass the token in the token input, never on the command line",
        ),
    ] {
        let runner = Runner::new();
        recording_binary(&runner);
        let out = run_action(&runner, &[("args", args)]);
        assert_eq!(out.status.code(), Some(2), "{args}");
        assert_eq!(text(&out.stderr), format!("skillgate action: {message}\n"));
        assert!(!runner.path("argv").exists(), "not run: {args}");
    }
}

#[test]
fn the_token_reaches_the_binary_only_as_github_token() {
    let token = "ghs_0123456789abcdefghijklmnopqrstuvwxyzAB";
    for (inputs, github_token) in [
        (vec![("command", "check")], token),
        (vec![("command", "publish"), ("results", "r.json")], token),
        (vec![("command", "review")], token),
        (vec![("command", "report")], token),
        // Nothing is written to GitHub: no token at all.
        (vec![("command", "check"), ("publish", "none")], "unset"),
        (
            vec![("command", "check"), ("args", "--publish none")],
            "unset",
        ),
        (
            vec![("command", "check"), ("args", "--all --publish=none")],
            "unset",
        ),
        (vec![("command", "check"), ("args", "--skill none")], token),
        (vec![("command", "audit-compact")], "unset"),
    ] {
        let runner = Runner::new();
        recording_binary(&runner);
        let mut all = inputs.clone();
        all.push(("token", token));
        let out = run_action(&runner, &all);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{inputs:?}: {}",
            text(&out.stderr)
        );
        assert!(!runner.read("argv").contains(token), "{inputs:?}");
        assert!(!text(&out.stdout).contains(token) && !text(&out.stderr).contains(token));
        assert_eq!(
            runner.read("token-env"),
            format!("GITHUB_TOKEN={github_token}\nGH_TOKEN=unset\nINPUT_TOKEN=unset\n"),
            "{inputs:?}"
        );
    }
}

#[test]
fn each_command_gets_the_flags_it_has() {
    for (inputs, want) in [
        (
            vec![("command", "audit-compact"), ("config", "c.toml")],
            vec!["audit", "compact", "--config", "c.toml"],
        ),
        (
            vec![
                ("command", "publish"),
                ("publish", "github"),
                ("fail-on", "correction"),
                ("results", "shards/a.json\r\n  shards/b c.json \r\n\n"),
            ],
            vec![
                "publish",
                "--publish",
                "github",
                "--fail-on",
                "correction",
                "--results",
                "shards/a.json",
                "shards/b c.json",
            ],
        ),
        (
            vec![
                ("command", "review"),
                ("config", "c.toml"),
                ("publish", "auto"),
            ],
            vec!["review", "--config", "c.toml", "--publish", "auto"],
        ),
        (
            vec![("command", "check"), ("head", "HEAD"), ("args", "--all")],
            vec!["check", "--head", "HEAD", "--all"],
        ),
        // The default command.
        (vec![], vec!["check"]),
        (
            vec![("command", "report"), ("args", "--since 7d")],
            vec!["report", "--since", "7d"],
        ),
    ] {
        let runner = Runner::new();
        recording_binary(&runner);
        let out = run_action(&runner, &inputs);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{inputs:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(argv(&runner), want, "{inputs:?}");
    }
    for (inputs, message) in [
        (
            vec![("command", "audit-compact"), ("base", "main")],
            "input 'base' does not apply to command 'audit-compact'",
        ),
        (
            vec![("command", "review"), ("fail-on", "never")],
            "input 'fail-on' does not apply to command 'review'",
        ),
        (
            vec![("command", "review"), ("results", "r.json")],
            "input 'results' does not apply to command 'review'",
        ),
        (
            vec![("command", "audit compact")],
            "unknown command 'audit compact' (check, publish, review, report or audit-compact)",
        ),
    ] {
        let runner = Runner::new();
        recording_binary(&runner);
        let out = run_action(&runner, &inputs);
        assert_eq!(out.status.code(), Some(2), "{inputs:?}");
        assert_eq!(text(&out.stderr), format!("skillgate action: {message}\n"));
        assert!(!runner.path("argv").exists());
    }
}

#[test]
fn a_real_check_of_the_examples_writes_tier_decision_and_results() {
    let runner = Runner::new();
    let examples = runner.path("work/examples");
    copy_tree(&root().join("examples"), &examples);
    let bin = runner.path("bin/skillgate");
    std::os::unix::fs::symlink(binary(), &bin).expect("symlink");
    let out = runner
        .script("run.sh", "Linux", "X64")
        .current_dir(&examples)
        .env("INPUT_COMMAND", "check")
        .env("INPUT_TOKEN", "ghs_0123456789abcdefghijklmnopqrstuvwxyzAB")
        .env("INPUT_PUBLISH", "none")
        .env("INPUT_FAIL_ON", "never")
        .env("INPUT_ARGS", "--all")
        .output()
        .expect("run.sh");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("running: skillgate check --publish none --fail-on never --all\n"),
        "{stdout}"
    );
    let written = runner.read("output");
    let names: Vec<String> = outputs(&written).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["tier", "decision", "results"]);
    assert_eq!(output(&written, "tier").as_deref(), Some("human"));
    assert_eq!(output(&written, "decision").as_deref(), Some("escalated"));
    let results: serde_json::Value =
        serde_json::from_str(&output(&written, "results").expect("results")).expect("json");
    assert_eq!(results["schema"], "skillgate.results/1");
    let tiers: Vec<(&str, &str)> = results["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().expect("name"),
                s["decision"]["tier"].as_str().expect("tier"),
            )
        })
        .collect();
    assert_eq!(
        tiers,
        [
            ("commit-message-style", "human"),
            ("csv-summary", "escalate"),
            ("semver-bump", "human"),
            ("slugify-title", "auto"),
            ("todo-scan", "escalate"),
        ]
    );
    assert!(runner.read("summary").contains("slugify-title"));
}

// action.yml itself.

fn action() -> (String, Yaml) {
    let source = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let doc = YamlLoader::load_from_str(&source)
        .expect("action.yml is YAML")
        .remove(0);
    (source, doc)
}

fn keys(yaml: &Yaml) -> Vec<&str> {
    yaml.as_hash()
        .expect("a mapping")
        .keys()
        .map(|k| k.as_str().expect("a string key"))
        .collect()
}

#[test]
fn action_yml_has_the_contracts_inputs_each_documented() {
    let (_, doc) = action();
    assert_eq!(
        keys(&doc["inputs"]),
        [
            "command",
            "token",
            "config",
            "base",
            "head",
            "publish",
            "fail-on",
            "results",
            "args",
            "version",
            "working-directory",
        ]
    );
    for name in keys(&doc["inputs"]) {
        let description = doc["inputs"][name]["description"].as_str().unwrap_or("");
        assert!(
            description.len() > 20,
            "input {name} is documented: {description:?}"
        );
    }
    assert_eq!(doc["inputs"]["command"]["default"].as_str(), Some("check"));
    assert_eq!(
        doc["inputs"]["token"]["default"].as_str(),
        Some("${{ github.token }}")
    );
    assert_eq!(keys(&doc["outputs"]), ["tier", "decision", "results"]);
    for name in ["tier", "decision", "results"] {
        assert_eq!(
            doc["outputs"][name]["value"].as_str(),
            Some(format!("${{{{ steps.run.outputs.{name} }}}}").as_str())
        );
        assert!(doc["outputs"][name]["description"].as_str().is_some());
    }
    assert_eq!(doc["runs"]["using"].as_str(), Some("composite"));
}

#[test]
fn action_yml_passes_inputs_to_scripts_only_through_the_environment() {
    let (source, doc) = action();
    let steps = doc["runs"]["steps"].as_vec().expect("steps");
    let mut scripts = Vec::new();
    for step in steps {
        if let Some(run) = step["run"].as_str() {
            assert!(!run.contains("${{"), "no expression inside run: {run}");
            assert_eq!(step["shell"].as_str(), Some("bash"));
            scripts.push(run);
        }
    }
    assert_eq!(
        scripts,
        [
            "bash \"$GITHUB_ACTION_PATH/action/install.sh\" resolve",
            "bash \"$GITHUB_ACTION_PATH/action/install.sh\"",
            "bash \"$GITHUB_ACTION_PATH/action/run.sh\"",
        ]
    );
    // The run step gets every input but `version` (install's) and `working-directory` (the
    // step's own), each as INPUT_<NAME>, as it is.
    let run = steps
        .iter()
        .find(|s| s["id"].as_str() == Some("run"))
        .expect("the run step");
    let mut want: Vec<String> = keys(&doc["inputs"])
        .into_iter()
        .filter(|n| !["version", "working-directory"].contains(n))
        .map(str::to_owned)
        .collect();
    want.sort();
    let mut got = Vec::new();
    for (key, value) in run["env"].as_hash().expect("env") {
        let key = key.as_str().expect("key");
        let name = key
            .strip_prefix("INPUT_")
            .expect("INPUT_*")
            .to_lowercase()
            .replace('_', "-");
        assert_eq!(
            value.as_str(),
            Some(format!("${{{{ inputs.{name} }}}}").as_str()),
            "{key}"
        );
        got.push(name);
    }
    got.sort();
    assert_eq!(got, want);
    assert_eq!(
        run["working-directory"].as_str(),
        Some("${{ inputs.working-directory }}")
    );
    // Third-party actions are pinned by full commit SHA, with the version in a comment.
    let mut pinned = 0;
    for line in source.lines() {
        if let Some(uses) = line.trim().strip_prefix("uses: ") {
            let (action, comment) = uses.split_once(" # v").expect("a # vX.Y.Z comment");
            let sha = action.rsplit_once('@').expect("@").1;
            assert!(
                sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "{uses}"
            );
            assert!(comment.split('.').count() == 3, "{uses}");
            pinned += 1;
        }
    }
    assert_eq!(pinned, 2);
}
