//! Security-sensitive content: code that writes system files.
//!
//! **system files**: any write under `/etc` (redirection, `tee`, `cp`/`mv`/`install`/`ln` to
//! it, `sed -i`, `open("/etc/…", "w")`, `Path("/etc/…").write_text(…)`).

use super::text_flags::other;
use crate::analysis::invoked;

/// `/etc` or a path under it, once normalised (`//etc/x`, `/./etc/x`, `/tmp/../etc/x`).
pub(super) fn is_etc(path: &str) -> bool {
    let path = invoked::normalize(path);
    path == "/etc" || path.starts_with("/etc/")
}

/// `path` as a command in `cwd` names it: `hosts` in `/etc` is `/etc/hosts`.
pub(super) fn in_cwd(path: &str, cwd: Option<&str>) -> String {
    match cwd {
        Some(dir) if !path.starts_with(['/', '~', '$', '-']) => {
            invoked::normalize(&format!("{dir}/{path}"))
        }
        _ => path.to_owned(),
    }
}

/// A write under `/etc` in the text: a shell redirection (`> /etc/x`) unless `skip_redirects`
/// (the line's shell was parsed and [`invoked`] read them, or it is not shell), or a file
/// opened for writing in Python (`open("/etc/x", "w")`, `Path("/etc/x").write_text(…)`) or
/// Node (`writeFileSync("/etc/x"`).
pub(super) fn etc_write(text: &str, compact: &str, skip_redirects: bool) -> Option<String> {
    let path_at = |at: usize| {
        let rest = &text[at..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ';' | ','))
            .unwrap_or(rest.len());
        rest[..end].to_owned()
    };
    if !skip_redirects && other(compact, ">/etc/") {
        let at = text.match_indices('>').find_map(|(at, _)| {
            let rest = &text[at + 1..];
            let path = rest.trim_start();
            path.starts_with("/etc/")
                .then(|| at + 1 + (rest.len() - path.len()))
        })?;
        return Some(path_at(at));
    }
    let opened = compact.contains("open(\"/etc/") || compact.contains("open('/etc/");
    let for_writing = ["\"w", "'w", "\"a", "'a", "\"x", "'x"]
        .iter()
        .any(|m| compact.contains(&format!(",{}", &m[..])));
    let node = [
        "writefilesync(",
        "writefile(",
        "appendfilesync(",
        "appendfile(",
    ]
    .iter()
    .any(|call| {
        compact.contains(&format!("{call}\"/etc/")) || compact.contains(&format!("{call}'/etc/"))
    });
    let path_written = (compact.contains("path(\"/etc/") || compact.contains("path('/etc/"))
        && (compact.contains(".write_text(") || compact.contains(".write_bytes("));
    if (opened && for_writing) || node || path_written {
        let at = text.find("/etc/")?;
        return Some(path_at(at));
    }
    None
}

/// Calls that write the file named by one of their arguments (0-based), in Python and Node:
/// `shutil.copy("hosts", "/etc/hosts")`, `fs.copyFileSync("hosts", "/etc/hosts")`,
/// `fs.writeFileSync("/etc/hosts", …)`.
const WRITING_CALLS: &[(&str, usize)] = &[
    ("shutil.copy(", 1),
    ("shutil.copy2(", 1),
    ("shutil.copyfile(", 1),
    ("shutil.copytree(", 1),
    ("shutil.move(", 1),
    ("os.rename(", 1),
    ("os.replace(", 1),
    ("os.symlink(", 1),
    ("os.link(", 1),
    ("copyFileSync(", 1),
    ("copyFile(", 1),
    ("cpSync(", 1),
    ("renameSync(", 1),
    ("symlinkSync(", 1),
    ("linkSync(", 1),
    ("writeFileSync(", 0),
    ("writeFile(", 0),
    ("appendFileSync(", 0),
    ("appendFile(", 0),
    ("createWriteStream(", 0),
];

/// The files under `/etc` the calls of [`WRITING_CALLS`] in `text` (a code line, or a call
/// split over lines read whole) write, normalised.
pub(super) fn etc_written_by_calls(text: &str) -> Vec<String> {
    if !text.contains("/etc") {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (call, index) in WRITING_CALLS {
        if !text.contains(call) {
            continue;
        }
        for args in invoked::call_arguments(text, call) {
            if let Some(Some(target)) = args.get(*index)
                && is_etc(target)
            {
                let target = invoked::normalize(target);
                if !found.contains(&target) {
                    found.push(target);
                }
            }
        }
    }
    found
}
