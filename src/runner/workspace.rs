//! Where suite attempts keep their files: one directory per attempt with a random name, under a
//! parent that nobody may list, so that a suite cannot find another skill's report directory
//! and write its evidence for it.
//!
//! Residual risks, stated plainly: a suite runs as the gate's user, so it can `chmod` the
//! parent back and list it; the gate notices (the parent's mode or change time moved, see
//! [`Workspace::intact`]) but only after the batch. And suites that run at the same time can
//! read each other's `/proc/<pid>/environ` and `cmdline`, which name their report directories:
//! `runner.jobs = 1` closes that.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::run::RunnerError;

/// Owner may enter and create, nobody may list.
const SEALED: u32 = 0o300;

/// Random bytes in an attempt's directory name: 96 bits, far past guessing, in 20 base32
/// characters. Short on purpose: the suite's `TMPDIR` is made inside, and a Unix socket's path
/// (Python's `multiprocessing`, test databases) must fit in 107 bytes.
const NAME_BYTES: usize = 12;

/// The parent of every attempt's directory; one letter, for the same reason.
const SEALED_NAME: &str = "a";

/// The directory of a run's suite attempts. Dropping it removes everything, whatever modes a
/// suite left behind.
#[derive(Debug)]
pub struct Workspace {
    /// Removed last (fields drop after [`Drop::drop`]).
    root: tempfile::TempDir,
    /// The parent of every attempt's directory, listable by nobody.
    sealed: PathBuf,
    /// The parent's mode and change time as the gate last left it.
    stamp: Mutex<Option<Stamp>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    mode: u32,
    ctime: i64,
    ctime_nsec: i64,
    nlink: u64,
}

impl Stamp {
    fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::symlink_metadata(path)?;
        Ok(Self {
            mode: meta.mode() & 0o7777,
            ctime: meta.ctime(),
            ctime_nsec: meta.ctime_nsec(),
            nlink: meta.nlink(),
        })
    }
}

impl Workspace {
    /// A fresh workspace in the system's temporary directory (0700).
    pub fn new() -> Result<Self, RunnerError> {
        Self::new_in(&std::env::temp_dir())
    }

    /// A fresh workspace in `base` (0700): `<base>/skillgate-XXXXXX`.
    pub(crate) fn new_in(base: &Path) -> Result<Self, RunnerError> {
        let root = tempfile::Builder::new()
            .prefix("skillgate-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(base)
            .map_err(|source| RunnerError::Prepare {
                path: base.to_path_buf(),
                source,
            })?;
        let sealed = root.path().join(SEALED_NAME);
        let prepare = |source| RunnerError::Prepare {
            path: sealed.clone(),
            source,
        };
        std::fs::create_dir(&sealed).map_err(prepare)?;
        std::fs::set_permissions(&sealed, std::fs::Permissions::from_mode(SEALED))
            .map_err(prepare)?;
        let stamp = Stamp::of(&sealed).map_err(prepare)?;
        Ok(Self {
            root,
            sealed,
            stamp: Mutex::new(Some(stamp)),
        })
    }

    /// The workspace's top directory.
    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// A new, empty directory for one suite attempt (0700), with its empty `reports/`: its name
    /// is 96 random bits, under the parent nobody may list. The suite's logs go in it, and the
    /// runner makes its fresh `HOME` and `TMPDIR` beside `reports/`.
    pub fn place(&self) -> Result<PathBuf, RunnerError> {
        let name = random_name(NAME_BYTES).ok_or_else(|| RunnerError::Prepare {
            path: PathBuf::from("/dev/urandom"),
            source: std::io::Error::other("no source of randomness for a directory name"),
        })?;
        let place = self.sealed.join(name);
        let prepare = |source| RunnerError::Prepare {
            path: place.clone(),
            source,
        };
        std::fs::create_dir(&place).map_err(prepare)?;
        std::fs::set_permissions(&place, std::fs::Permissions::from_mode(0o700))
            .map_err(prepare)?;
        std::fs::create_dir(place.join("reports")).map_err(prepare)?;
        // The gate's own change to the parent is not a suite's.
        let stamp = Stamp::of(&self.sealed).map_err(|source| RunnerError::Prepare {
            path: self.sealed.clone(),
            source,
        })?;
        if let Ok(mut last) = self.stamp.lock() {
            *last = Some(stamp);
        }
        Ok(place)
    }

    /// Whether the sealed parent is as the gate left it after its last [`Workspace::place`]:
    /// listing it takes a `chmod`, and creating or renaming anything in it changes it too, both
    /// of which move its change time, which no one can set back. Call it after every batch of
    /// suites: an error means a suite went looking for other attempts' directories, and no
    /// attempt's reports can be trusted.
    pub fn intact(&self) -> Result<(), RunnerError> {
        let now = Stamp::of(&self.sealed).ok();
        let last = self.stamp.lock().ok().and_then(|s| *s);
        match (now, last) {
            (Some(now), Some(last)) if now == last => Ok(()),
            _ => Err(RunnerError::Tampered {
                path: self.sealed.clone(),
            }),
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        // The gate lists the parent only to remove it.
        remove_tree(&self.sealed);
    }
}

/// `bytes` random bytes in lowercase base32 (RFC 4648, no padding): 5 bits a character where
/// hex carries 4. `None` without a source of randomness.
fn random_name(bytes: usize) -> Option<String> {
    use std::io::Read;
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .ok()?;
    Some(base32(&buf))
}

fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &byte in bytes {
        acc = (acc << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((acc >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((acc << (5 - bits)) & 31) as usize]));
    }
    out
}

/// Remove `path` and everything under it, first giving the owner back every directory a suite
/// may have closed (`chmod 000`). Best effort: what cannot go stays in the temporary directory.
pub(super) fn remove_tree(path: &Path) {
    reopen(path);
    let _ = std::fs::remove_dir_all(path);
}

fn reopen(dir: &Path) {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.filter_map(Result::ok) {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                reopen(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).expect("stat").mode() & 0o7777
    }

    #[test]
    fn places_are_random_private_and_under_a_parent_nobody_lists() {
        let workspace = Workspace::new().expect("workspace");
        let a = workspace.place().expect("place");
        let b = workspace.place().expect("place");
        assert_ne!(a, b);
        assert_eq!(a.parent(), b.parent());
        let parent = a.parent().expect("parent");
        assert!(parent.starts_with(workspace.path()));
        let name = a.file_name().and_then(|n| n.to_str()).expect("name");
        assert_eq!(name.len(), 20);
        assert!(
            name.bytes()
                .all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c)),
            "{name}"
        );
        assert_eq!(mode(parent), SEALED);
        assert_eq!(mode(workspace.path()), 0o700);
        assert_eq!(mode(&a), 0o700);
        assert!(a.join("reports").is_dir());
        // Root reads any directory: the mode binds everyone else.
        // SAFETY: geteuid has no arguments and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            let listed = std::fs::read_dir(parent).map(|_| ());
            assert_eq!(
                listed.map_err(|e| e.kind()),
                Err(std::io::ErrorKind::PermissionDenied)
            );
        }
        workspace.intact().expect("untouched");
    }

    #[test]
    fn a_chmod_to_list_the_parent_is_noticed_even_when_undone() {
        let workspace = Workspace::new().expect("workspace");
        let place = workspace.place().expect("place");
        let parent = place.parent().expect("parent").to_path_buf();
        std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let names: Vec<_> = std::fs::read_dir(&parent)
            .expect("listable now")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        assert_eq!(names, vec![place.clone()]);
        std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(SEALED)).expect("chmod");
        let err = workspace.intact().expect_err("tampered");
        assert!(
            err.to_string().contains(&parent.display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn a_directory_made_beside_the_places_is_noticed() {
        let workspace = Workspace::new().expect("workspace");
        let place = workspace.place().expect("place");
        let parent = place.parent().expect("parent");
        std::fs::create_dir(parent.join("0001")).expect("mkdir");
        assert!(workspace.intact().is_err());
    }

    #[test]
    fn dropping_removes_everything_a_suite_closed() {
        let workspace = Workspace::new().expect("workspace");
        let place = workspace.place().expect("place");
        let closed = place.join("reports/closed");
        std::fs::create_dir_all(closed.join("deeper")).expect("mkdir");
        std::fs::write(closed.join("deeper/f"), "x").expect("write");
        std::fs::set_permissions(
            closed.join("deeper"),
            std::fs::Permissions::from_mode(0o000),
        )
        .expect("chmod");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o000)).expect("chmod");
        let root = workspace.path().to_path_buf();
        drop(workspace);
        assert!(!root.exists());
    }

    #[test]
    fn base32_follows_rfc_4648() {
        // RFC 4648, section 10, without padding and in lowercase.
        assert_eq!(base32(b""), "");
        assert_eq!(base32(b"f"), "my");
        assert_eq!(base32(b"fo"), "mzxq");
        assert_eq!(base32(b"foo"), "mzxw6");
        assert_eq!(base32(b"foob"), "mzxw6yq");
        assert_eq!(base32(b"fooba"), "mzxw6ytb");
        assert_eq!(base32(b"foobar"), "mzxw6ytboi");
        assert_eq!(base32(&[0xff; 12]).len(), 20);
    }
}
