//! The flags of one command where a shell runs it ([`crate::analysis::invoked`]): each
//! program is checked against the concern it raises.

use super::Concern;
use super::crypto::{GPG_KEY_OPTIONS, OPENSSL_KEY_COMMANDS};
use super::native_code;
use super::privilege::risky_mode;
use super::system_files::{in_cwd, is_etc};

/// The flags of one command: `name` its program, `args` its words without quotes, `cwd` the
/// directory it runs in when known.
pub(super) fn command_flags(
    name: &str,
    args: &[&str],
    cwd: Option<&str>,
    flag: &mut impl FnMut(Concern, String),
) {
    let options = || args.iter().filter(|a| a.starts_with('-'));
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    match name {
        "sudo" | "doas" | "pkexec" => flag(Concern::Privilege, name.to_owned()),
        "su" => flag(Concern::Privilege, "su".to_owned()),
        "setcap" | "visudo" | "useradd" | "usermod" | "groupadd" | "passwd" | "chpasswd"
        | "iptables" | "ip6tables" | "nft" | "ufw" => {
            flag(Concern::Privilege, name.to_owned());
        }
        "sysctl" if options().any(|o| *o == "-w") => {
            flag(Concern::Privilege, "sysctl -w".to_owned());
        }
        "chmod" => {
            if let Some(mode) = operands().next()
                && let Some(what) = risky_mode(mode)
            {
                flag(Concern::Privilege, format!("{what} chmod {mode}"));
            }
        }
        "chown"
            if operands()
                .next()
                .is_some_and(|owner| owner.starts_with("root") || owner.starts_with("0:")) =>
        {
            flag(Concern::Privilege, "chown root".to_owned());
        }
        "docker" | "podman" => {
            for arg in args {
                let what = if *arg == "--privileged" {
                    "--privileged"
                } else if arg.starts_with("--cap-add") {
                    "--cap-add"
                } else if arg.contains("docker.sock") {
                    "-v docker.sock"
                } else {
                    continue;
                };
                flag(Concern::Privilege, format!("{} {what}", name));
            }
            if operands().next() == Some(&"login") {
                flag(Concern::Credentials, format!("{} login", name));
            }
        }
        "curl" => {
            let insecure = args.iter().any(|a| {
                *a == "--insecure"
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && a[1..].bytes().all(|b| b.is_ascii_alphabetic())
                        && a.contains('k'))
            });
            if insecure {
                flag(Concern::TlsVerificationOff, "curl -k".to_owned());
            }
        }
        "wget" if args.contains(&"--no-check-certificate") => {
            flag(
                Concern::TlsVerificationOff,
                "wget --no-check-certificate".to_owned(),
            );
        }
        "ssh-keygen" | "age-keygen" | "keytool" | "certbot" | "cfssl" => {
            flag(Concern::Crypto, name.to_owned());
        }
        "age" if options().any(|o| matches!(*o, "-e" | "-d" | "--encrypt" | "--decrypt")) => {
            flag(Concern::Crypto, "age".to_owned());
        }
        "openssl" => {
            if let Some(sub) = operands().next()
                && OPENSSL_KEY_COMMANDS.contains(sub)
            {
                flag(Concern::Crypto, format!("openssl {sub}"));
            } else if operands().next() == Some(&"dgst")
                && options().any(|o| matches!(*o, "-sign" | "-verify" | "-hmac"))
            {
                flag(Concern::Crypto, "openssl dgst -sign".to_owned());
            }
        }
        "gpg" | "gpg2" => {
            if let Some(option) = options().find(|o| GPG_KEY_OPTIONS.contains(o)) {
                flag(Concern::Crypto, format!("gpg {option}"));
            }
        }
        "ssh-add" => flag(Concern::Credentials, "ssh-add".to_owned()),
        "gh" | "npm" | "az" | "gcloud" | "aws" | "helm" | "pnpm" | "yarn" => {
            let words: Vec<&&str> = operands().take(2).collect();
            let login = match (name, words.as_slice()) {
                ("gh", [first, second, ..]) if **first == "auth" && **second == "login" => true,
                ("npm" | "pnpm" | "yarn", [first, ..]) => matches!(**first, "login" | "adduser"),
                ("az", [first, ..]) => **first == "login",
                ("gcloud", [first, ..]) => **first == "auth",
                ("aws", [first, ..]) => **first == "configure",
                ("helm", [first, second, ..]) => **first == "registry" && **second == "login",
                _ => false,
            };
            if login {
                let what: Vec<&str> = std::iter::once(name)
                    .chain(words.iter().map(|w| **w))
                    .collect();
                flag(Concern::Credentials, what.join(" "));
            }
        }
        "git" => {
            let config = operands().next() == Some(&"config");
            if config && operands().any(|a| a.starts_with("credential")) {
                flag(Concern::Credentials, "git config credential".to_owned());
            }
        }
        "read" if options().any(|o| !o.starts_with("--") && o.contains('s')) => {
            flag(Concern::Auth, "password prompt read -s".to_owned());
        }
        "htpasswd" | "kinit" => flag(Concern::Auth, name.to_owned()),
        _ => {}
    }
    if let Some(what) = native_code::command(name, args) {
        flag(Concern::NativeCode, what);
    }
    // `install -m 4755 x /usr/local/bin/x` sets the mode as `chmod` does.
    if name == "install"
        && let Some(mode) = option_value(args, "-m", "--mode")
        && let Some(what) = risky_mode(mode)
    {
        flag(Concern::Privilege, format!("{what} install -m {mode}"));
    }
    // Writes under /etc by the commands that write files.
    let in_place = |letter: char| {
        options().any(|o| !o.starts_with("--") && o.contains(letter))
            || args.contains(&"--in-place")
    };
    let targets: Vec<&str> = match name {
        "tee" | "truncate" | "touch" | "mkdir" | "rm" => operands().copied().collect(),
        "sed" if options().any(|o| o.starts_with("-i") || *o == "--in-place") => {
            operands().copied().collect()
        }
        // `perl -pi -e '…' /etc/hosts`: the files it edits in place (not `-e`'s program).
        "perl" | "ruby" if in_place('i') => args
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                // The word after `-e`, `-pe`, `-E`: a program, not a file.
                let program = i.checked_sub(1).map(|b| args[b]).is_some_and(|before| {
                    before.starts_with('-')
                        && !before.starts_with("--")
                        && before.ends_with(['e', 'E'])
                });
                !a.starts_with('-') && !program
            })
            .map(|(_, a)| *a)
            .collect(),
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            // `cp -t /etc ./hosts`: the directory is the target (rsync's `-t` keeps times).
            match option_value(args, "-t", "--target-directory").filter(|_| name != "rsync") {
                Some(dir) => vec![dir],
                None => operands().next_back().copied().into_iter().collect(),
            }
        }
        "dd" => args.iter().filter_map(|a| a.strip_prefix("of=")).collect(),
        _ => Vec::new(),
    };
    for target in targets {
        let target = in_cwd(target, cwd);
        if is_etc(&target) {
            flag(Concern::SystemFiles, format!("writes {target}"));
        }
    }
}

/// The value of option `short` (`-t DIR`, `-tDIR`) or `long` (`--long=DIR`, `--long DIR`).
fn option_value<'a>(args: &[&'a str], short: &str, long: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, a)| {
        if *a == short || *a == long {
            return args.get(i + 1).copied();
        }
        a.strip_prefix(long)
            .and_then(|v| v.strip_prefix('='))
            .or_else(|| {
                a.strip_prefix(short)
                    .filter(|v| !v.is_empty() && !a.starts_with("--"))
            })
    })
}
