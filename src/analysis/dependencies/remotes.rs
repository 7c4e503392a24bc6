//! Where `git` and `gh` go.
//!
//! `git` reaches a dependency only when the command names the address: `git clone
//! https://github.com/acme/kit`, `git remote add up git@gitlab.com:acme/kit.git`, `git push
//! https://x-access-token:${TOKEN}@github.com/acme/kit HEAD`, `git submodule add
//! https://vendor.io/lib.git`. The subcommands that talk to a remote the repository already has,
//! by name or by default (`git fetch origin`, `git pull`, `git push -u origin feature/x`, `git
//! remote update`, `git ls-remote origin`, `git submodule update --remote`), reach the user's own
//! remote: where the user's commits already go, nothing the skill adds. Local commands (`git
//! commit`, `git log`) reach nothing, and so do local paths (`git clone ../kit`, `file://`). An
//! address from a variable (`git clone "$REPO_URL"`) is somewhere not named: the tool counts.
//!
//! `gh` is the GitHub CLI: whatever repository it acts on, it calls GitHub's API with the user's
//! token (`gh pr create`, `gh release create`), so a skill that runs it depends on GitHub, a
//! service: it counts as `github`, not as a tool reaching somewhere not named. Only its local
//! subcommands (`gh --version`, `gh help`, `gh completion`, `gh config`, `gh alias`) reach
//! nothing.

use super::context::Context;
use super::hosts::{Target, classify, is_host_name};
use super::urls::{is_template_label, urls};
use crate::analysis::line_commands;
use crate::analysis::line_commands::Command;

/// `git`'s options before the subcommand that take the next word as their value.
const GLOBAL_VALUES: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

/// Options of the subcommands read here that take the next word as their value.
const VALUES: &[&str] = &[
    "-b",
    "--branch",
    "-o",
    "--origin",
    "--upload-pack",
    "--receive-pack",
    "--exec",
    "--repo",
    "--depth",
    "--deepen",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "-c",
    "--config",
    "--template",
    "-j",
    "--jobs",
    "--filter",
    "--shallow-since",
    "--shallow-exclude",
    "--server-option",
    "--bundle-uri",
    "--push-option",
    "--refmap",
    "--negotiation-tip",
    "-s",
    "--strategy",
    "-X",
    "--strategy-option",
    "-t",
    "--track",
    "-m",
    "--master",
    "--name",
];

/// Where a `git` command goes: `None` when it names no remote address (a local command, or the
/// repository's own remote by name or by default), else the targets of the addresses it names.
pub(super) fn git(command: &Command<'_>, ctx: Context) -> Option<Vec<Target>> {
    let mut words = command
        .args
        .iter()
        .map(|a| line_commands::unquote(a.trim_end_matches(';')));
    let subcommand = loop {
        let word = words.next()?;
        if GLOBAL_VALUES.contains(&word) {
            words.next();
        } else if !word.starts_with('-') {
            break word;
        }
    };
    let mut operands = Vec::new();
    let mut words = words.peekable();
    while let Some(word) = words.next() {
        if word.starts_with('-') {
            let takes_value = VALUES.contains(&word) || (subcommand == "clone" && word == "-u");
            if takes_value {
                words.next();
            }
            continue;
        }
        // `2>/dev/null`, `>out.txt`: the shell's, not git's.
        if word.contains(['>', '<']) {
            continue;
        }
        operands.push(word);
    }
    let repository = match (subcommand, operands.as_slice()) {
        ("clone" | "fetch" | "pull" | "push" | "ls-remote", [repository, ..]) => *repository,
        ("remote", ["add", _, url, ..] | ["set-url", _, url, ..]) => *url,
        ("submodule", ["add", repository, ..]) => *repository,
        _ => return None,
    };
    let targets = address(repository, ctx)?;
    (!targets.is_empty()).then_some(targets)
}

/// The arguments of a `git` command that a call in another language spawns from a list, each
/// that is no plain string literal written `$` (a value not named here):
/// `subprocess.run(["git", "clone", url, "kit"])` → `clone`, `$`, `kit`; `execFileSync("git",
/// ["fetch", remote])` → `fetch`, `$`. `None` when the line
/// holds no such list (`os.system("git pull")`: its words are all written).
pub(super) fn spawned_git_args(text: &str) -> Option<Vec<String>> {
    let at = ["\"git\"", "'git'"]
        .iter()
        .filter_map(|git| text.find(git))
        .min()?;
    let rest = &text[at + 5..];
    let mut args = Vec::new();
    let push = |item: &str, args: &mut Vec<String>| {
        // `execFileSync('git', ['fetch', remote])`: the list's words are git's.
        let item = item.trim().trim_start_matches('[').trim_start();
        if item.is_empty() {
            return;
        }
        let literal = ['"', '\''].into_iter().find_map(|q| {
            item.strip_prefix(q)?
                .strip_suffix(q)
                .filter(|inner| !inner.contains(q))
        });
        args.push(literal.map_or_else(|| "$".to_owned(), str::to_owned));
    };
    let mut depth = 0usize;
    let mut quote = None;
    let mut escaped = false;
    let mut start = 0;
    for (i, c) in rest.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '(' | '{') => depth += 1,
            (None, ')' | ']' | '}') if depth == 0 => {
                push(&rest[start..i], &mut args);
                return Some(args);
            }
            (None, ')' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                push(&rest[start..i], &mut args);
                start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// Where a repository argument leads: `None` for a remote's name or a local path.
fn address(repository: &str, ctx: Context) -> Option<Vec<Target>> {
    if repository.contains("://") {
        // `file:///srv/kit.git` has no network scheme: nothing.
        let targets: Vec<Target> = urls(repository, ctx)
            .into_iter()
            .map(|u| u.target)
            .collect();
        return (!targets.is_empty()).then_some(targets);
    }
    // `$REPO_URL`, `{url}` (an f-string), `<repo-url>`: an address not named here.
    if repository.contains(['$', '`', '{', '<']) {
        return Some(vec![Target::Unknown]);
    }
    // scp-like syntax: `[user@]host:path`, no `/` before the `:`.
    let (host, _) = repository.split_once(':')?;
    if host.contains('/') {
        return None;
    }
    let host = host.rsplit('@').next().unwrap_or(host);
    if is_template_label(host) {
        return Some(vec![Target::Unknown]);
    }
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    Some(vec![if host == "localhost" {
        Target::NotExternal
    } else if is_host_name(&host) {
        classify(&host, ctx)
    } else {
        // An ssh alias (`github-work:acme/kit.git`): a host, not named here.
        Target::Unknown
    }])
}

/// `gh` subcommands that reach no server.
const GH_LOCAL: &[&str] = &["version", "help", "completion", "config", "alias"];

/// Whether a `gh` command calls GitHub.
pub(super) fn gh_calls(command: &Command<'_>) -> bool {
    command
        .args
        .iter()
        .map(|a| line_commands::unquote(a))
        .find(|a| !a.starts_with('-'))
        .is_some_and(|sub| !GH_LOCAL.contains(&sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(line: &str, ctx: Context) -> Option<Vec<Target>> {
        let commands = line_commands::shell_commands(line);
        let command = commands.iter().find(|c| c.name == "git").expect("git");
        git(command, ctx)
    }

    fn external(host: &str) -> Option<Vec<Target>> {
        Some(vec![Target::External(host.to_owned())])
    }

    #[test]
    fn the_repositorys_own_remote_is_no_address() {
        for line in [
            "git fetch origin",
            "git pull",
            "git pull --rebase origin main",
            "git push -u origin feature/x",
            "git push origin HEAD:refs/heads/release",
            "git push --force-with-lease origin \"$BRANCH\"",
            "git -C \"$REPO\" push origin main",
            "git remote update",
            "git remote -v",
            "git ls-remote origin",
            "git ls-remote --tags origin 2>/dev/null",
            "git submodule update --init --remote",
            "git fetch --depth 1 origin main",
            "git commit -m 'Release, see https://docs.vendor.io'",
            "git clone ../kit",
            "git clone /srv/git/kit.git",
            "git clone file:///srv/git/kit.git",
            "git submodule add ../lib.git lib",
            "git log --oneline origin/main..HEAD",
        ] {
            assert_eq!(targets(line, Context::Code), None, "{line}");
        }
    }

    #[test]
    fn a_named_address_is_where_git_goes() {
        let code = Context::Code;
        assert_eq!(
            targets("git clone https://github.com/acme/kit", code),
            external("github.com")
        );
        assert_eq!(
            targets(
                "git clone --depth 1 -b v2 git@gitlab.com:acme/kit.git /tmp/kit",
                code
            ),
            external("gitlab.com")
        );
        assert_eq!(
            targets(
                "git remote add upstream https://git.vendor.io/kit.git",
                code
            ),
            external("git.vendor.io")
        );
        assert_eq!(
            targets(
                "git remote set-url origin ssh://git@git.vendor.io:2222/kit.git",
                code
            ),
            external("git.vendor.io")
        );
        assert_eq!(
            targets(
                "git push https://x-access-token:$TOKEN@github.com/acme/kit.git HEAD:main",
                code
            ),
            external("github.com")
        );
        assert_eq!(
            targets(
                "git submodule add https://vendor.io/lib.git vendor/lib",
                code
            ),
            external("vendor.io")
        );
        assert_eq!(
            targets("git fetch deploy@build.vendor.io:kit.git", code),
            external("build.vendor.io")
        );
        assert_eq!(
            targets("git clone \"$REPO_URL\" work", code),
            Some(vec![Target::Unknown])
        );
        assert_eq!(
            targets("git clone github-work:acme/kit.git", code),
            Some(vec![Target::Unknown])
        );
        assert_eq!(
            targets("git clone http://localhost:3000/kit.git", code),
            Some(vec![Target::NotExternal])
        );
    }

    #[test]
    fn a_spawned_git_names_what_it_is_given() {
        let args = |line: &str| spawned_git_args(line);
        let owned = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            args("subprocess.run([\"git\", \"clone\", url, \"kit\"], check=True)"),
            Some(owned(&["clone", "$", "kit"]))
        );
        assert_eq!(
            args("subprocess.run(['git', 'push', 'origin', f'v{version}'])"),
            Some(owned(&["push", "origin", "$"]))
        );
        assert_eq!(
            args("execFileSync('git', ['fetch', remote, '--tags'])"),
            Some(owned(&["fetch", "$", "--tags"]))
        );
        assert_eq!(args("os.system(\"git pull\")"), None);
        let git_of = |args: &[String]| {
            git(
                &Command {
                    name: "git",
                    args: args.iter().map(String::as_str).collect(),
                    piped: false,
                },
                Context::Code,
            )
        };
        let clone = args("subprocess.run([\"git\", \"clone\", url, \"kit\"])").expect("list");
        assert_eq!(git_of(&clone), Some(vec![Target::Unknown]));
        let push = args("subprocess.run(['git', 'push', 'origin', branch])").expect("list");
        assert_eq!(git_of(&push), None);
    }

    #[test]
    fn gh_calls_github_but_for_its_local_subcommands() {
        let gh = |line: &str| {
            let commands = line_commands::shell_commands(line);
            gh_calls(commands.iter().find(|c| c.name == "gh").expect("gh"))
        };
        assert!(gh("gh pr create --fill"));
        assert!(gh("gh release create v1.2.0 --notes-file NOTES.md"));
        assert!(gh("gh -R acme/kit issue list"));
        assert!(!gh("gh --version"));
        assert!(!gh("gh help pr"));
        assert!(!gh("gh completion -s zsh"));
        assert!(!gh("gh config set editor vim"));
    }
}
