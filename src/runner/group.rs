//! Process groups: each suite runs in its own, so that ending it ends everything it started.

use std::time::{Duration, Instant};

pub(super) fn signal_group(pgid: Option<i32>, signal: i32) {
    if let Some(pgid) = pgid.filter(|p| *p > 0) {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-pgid, signal);
        }
    }
}

pub(super) fn group_alive(pgid: Option<i32>) -> bool {
    match pgid.filter(|p| *p > 0) {
        // SAFETY: signal 0 only checks that the group exists.
        Some(pgid) => unsafe { libc::kill(-pgid, 0) == 0 },
        None => false,
    }
}

/// TERM the suite's leftover processes, then KILL what remains after a short grace.
pub(super) async fn end_group(pgid: Option<i32>) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_millis(500);
    while group_alive(pgid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_group(pgid, libc::SIGKILL);
}
