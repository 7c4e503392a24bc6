//! What a pull request controls, handled with care. Its files are read as regular files only,
//! inside the repository, capped in size: a symlink to `/dev/zero`, a FIFO or a file outside the
//! checkout is refused, not read. Its text is made inert before it reaches a log or a terminal
//! ([`inert`], [`printable`]).

use std::io::Read;
use std::path::Path;

pub mod inert;

/// Read `path` if it is a regular file (or a symlink to one) inside `repo`, at most `max` bytes.
/// `repo` must be canonical. The error is a lowercase reason, ready for a finding.
pub fn read_file(repo: &Path, path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let real = path
        .canonicalize()
        .map_err(|err| format!("cannot read it: {err}"))?;
    if !real.starts_with(repo) {
        return Err(format!(
            "it resolves outside the repository (to {}); refused",
            real.display()
        ));
    }
    let meta = std::fs::metadata(&real).map_err(|err| format!("cannot read it: {err}"))?;
    if !meta.is_file() {
        return Err("it is not a regular file; refused".to_owned());
    }
    if meta.len() > max {
        return Err(format!(
            "it is {} bytes, over the {max} byte limit",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&real)
        .and_then(|file| file.take(max + 1).read_to_end(&mut bytes))
        .map_err(|err| format!("cannot read it: {err}"))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "it grew past the {max} byte limit while being read"
        ));
    }
    Ok(bytes)
}

/// Text from a skill made safe for a terminal or a log, on one line: control characters (a
/// newline would start a workflow command, an escape a terminal sequence) and bidirectional
/// controls shown as `?`, cut to `max` characters, and what could still start a workflow command
/// (`::` first, `##[` anywhere) broken with a space (see [`inert`]).
pub fn printable(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .map(|c| {
            if c.is_control() || inert::is_bidi(c) {
                '?'
            } else {
                c
            }
        })
        .take(max)
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    inert::text(&out)
}

#[cfg(test)]
mod tests {
    use super::{printable, read_file};

    #[test]
    fn printable_text_is_one_inert_line() {
        assert_eq!(
            printable("x\n::warning::pwned \u{202e}gnp.exe \u{200f}", 100),
            "x?::warning::pwned ?gnp.exe ?"
        );
        assert_eq!(
            printable("::set-output name=tier::auto", 100),
            ": :set-output name=tier::auto"
        );
        assert_eq!(printable("a ##[error]boom", 100), "a # #[error]boom");
        assert_eq!(printable("abcdef", 3), "abc…");
    }

    #[test]
    fn refuses_devices_fifos_and_escapes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().canonicalize().expect("canon");
        std::fs::write(repo.join("ok.txt"), "hello").expect("write");
        assert_eq!(
            read_file(&repo, &repo.join("ok.txt"), 100),
            Ok(b"hello".to_vec())
        );
        let err = read_file(&repo, &repo.join("ok.txt"), 3).expect_err("too big");
        assert!(err.contains("over the 3 byte limit"), "{err}");

        std::os::unix::fs::symlink("/dev/zero", repo.join("zero")).expect("symlink");
        let err = read_file(&repo, &repo.join("zero"), 100).expect_err("device");
        assert!(err.contains("outside the repository"), "{err}");

        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret"), "s").expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret"), repo.join("link"))
            .expect("symlink");
        let err = read_file(&repo, &repo.join("link"), 100).expect_err("escape");
        assert!(err.contains("outside the repository"), "{err}");

        let fifo = repo.join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let err = read_file(&repo, &fifo, 100).expect_err("fifo");
        assert!(err.contains("not a regular file"), "{err}");
    }
}
