//! The readers take paths (they stream files), so each input is written to a file first: in
//! /dev/shm when it exists, so the fuzzer is not bound by the disk.

use std::path::PathBuf;

pub fn file_with(data: &[u8]) -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("skillgate-fuzz-{}", std::process::id()));
    std::fs::write(&path, data).expect("write the fuzz input");
    path
}
