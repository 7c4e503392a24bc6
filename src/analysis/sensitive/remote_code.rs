//! Security-sensitive content: code that runs code it downloads.
//!
//! **remote code**: downloaded code run as it arrives: `curl … | sh` (or `bash`, `python`,
//! `sudo bash`, `iex`; an interpreter given its own script or `-c`/`-m` reads data, not code),
//! `bash <(curl …)`, `eval "$(curl …)"`, `sh -c "$(wget …)"`, `exec(requests.get(…))`,
//! `exec(urlopen(…))`, `eval(… fetch(…))`, `iex (iwr …)`.

use crate::analysis::line_commands;
use crate::analysis::line_commands::Command;

/// Programs that run the code they read on standard input (those of [`super::dynamic`] too,
/// which leaves a download piped into them to this signal).
pub(super) const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "mksh",
    "fish",
    "lua",
    "deno",
    "bun",
    "python",
    "python2",
    "python3",
    "node",
    "perl",
    "ruby",
    "php",
    "pwsh",
    "powershell",
    "iex",
    "Invoke-Expression",
];

/// Downloaders (those of [`super::dynamic`] too).
pub(super) const FETCHERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "nc",
    "ncat",
    "iwr",
    "irm",
    "Invoke-WebRequest",
    "Invoke-RestMethod",
];

/// `curl … | sh`: a fetcher's output piped, maybe through `sudo`, into an interpreter that reads
/// its program from standard input.
pub(super) fn piped_to_interpreter(commands: &[Command<'_>]) -> Option<String> {
    let mut fetcher: Option<&str> = None;
    let mut chain = false;
    let mut after_wrapper = false;
    for command in commands {
        let name = command.name;
        if command.piped {
            chain = fetcher.is_some();
        } else if !after_wrapper {
            chain = false;
        }
        if chain && INTERPRETERS.contains(&name) && reads_program_from_stdin(&command.args) {
            return Some(format!("{} | {name}", fetcher.unwrap_or("download")));
        }
        if FETCHERS.contains(&name) {
            fetcher = Some(name);
        }
        after_wrapper = line_commands::is_wrapper(name);
    }
    None
}

/// An interpreter given no script (only options like `-s`, `-x`, `-`) runs its input; one given
/// a script, `-c` or `-m` reads its input as data (`| python3 -m json.tool`).
pub(super) fn reads_program_from_stdin(args: &[&str]) -> bool {
    for arg in args {
        let arg = arg.trim_matches(['"', '\'']);
        if arg == "--" {
            return true;
        }
        if arg == "-" {
            continue;
        }
        if !arg.starts_with('-') {
            return false;
        }
        if matches!(arg, "-c" | "-m" | "-e" | "-lc" | "-ec" | "--command") {
            return false;
        }
    }
    true
}

/// Patterns on the compact line (lowercase, no whitespace) that run downloaded code.
pub(super) const REMOTE_CODE: &[(&str, &str, &str)] = &[
    // (first, then, what): both on the line, `then` after `first`.
    ("<(curl", "", "shell runs <(curl …)"),
    ("<(wget", "", "shell runs <(wget …)"),
    ("eval\"$(curl", "", "eval \"$(curl …)\""),
    ("eval$(curl", "", "eval $(curl …)"),
    ("eval`curl", "", "eval `curl …`"),
    ("eval\"$(wget", "", "eval \"$(wget …)\""),
    ("eval$(wget", "", "eval $(wget …)"),
    ("-c\"$(curl", "", "sh -c \"$(curl …)\""),
    ("-c\"$(wget", "", "sh -c \"$(wget …)\""),
    ("exec(requests.get(", "", "exec(requests.get(…))"),
    ("exec(httpx.get(", "", "exec(httpx.get(…))"),
    ("exec(urlopen(", "", "exec(urlopen(…))"),
    ("exec(urllib.request.urlopen(", "", "exec(urlopen(…))"),
    ("eval(requests.get(", "", "eval(requests.get(…))"),
    ("eval(", "fetch(", "eval(… fetch(…))"),
    ("new function(", "fetch(", "new Function(… fetch(…))"),
    ("iex(", "iwr", "iex (iwr …)"),
    ("iex(", "invoke-webrequest", "iex (Invoke-WebRequest …)"),
    ("iex(", "downloadstring(", "iex (DownloadString(…))"),
    (
        "invoke-expression(",
        "downloadstring(",
        "Invoke-Expression (DownloadString(…))",
    ),
    (
        "invoke-expression(",
        "invoke-webrequest",
        "Invoke-Expression (Invoke-WebRequest …)",
    ),
];
