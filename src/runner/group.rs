//! Process groups: each suite runs in its own, so that ending it ends everything it started.
//! On Linux the gate is also a child subreaper: a process that leaves its group (`setsid`, a
//! daemon) is re-parented to the gate instead of init, and is ended when the run ends.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The main processes of the suites running now, in this process: never taken for orphans.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// A suite's main process started (`true`) or was waited for (`false`).
pub(super) fn running(pid: i32, now: bool) {
    let mut pids = RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if now {
        pids.push(pid);
    } else {
        pids.retain(|p| *p != pid);
    }
}

/// How long leftovers get between TERM and KILL.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

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
        Some(pgid) => {
            reap_group(pgid);
            // SAFETY: signal 0 only checks that the group exists.
            unsafe { libc::kill(-pgid, 0) == 0 }
        }
        None => false,
    }
}

/// Collect the exit status of the group's members that were re-parented to the gate and
/// died, so that zombies do not count as alive. Only that group: other suites' processes,
/// and the suite's main process (tokio waits for it), are left alone.
fn reap_group(pgid: i32) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status into the int it is given; WNOHANG never blocks.
        let reaped = unsafe { libc::waitpid(-pgid, &raw mut status, libc::WNOHANG) };
        if reaped <= 0 {
            return;
        }
    }
}

/// TERM the suite's leftover processes, then KILL what remains after a short grace.
pub(super) async fn end_group(pgid: Option<i32>) {
    if !group_alive(pgid) {
        return;
    }
    signal_group(pgid, libc::SIGTERM);
    let deadline = Instant::now() + LEFTOVER_GRACE;
    while group_alive(pgid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_group(pgid, libc::SIGKILL);
    group_alive(pgid);
}

/// Make the gate the reaper of its descendants' orphans (Linux; elsewhere a no-op).
pub(super) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag; no memory is involved.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// End every process re-parented to the gate: each of them escaped a suite that is over.
/// Children in the gate's own process group (a `git` it runs) and the main processes of
/// suites still running are not orphans. Returns how many were ended.
pub(super) async fn end_orphans() -> usize {
    let mut ended = 0;
    // Ending a daemon can orphan its own children to us: a few rounds.
    for _ in 0..3 {
        let orphans = orphans();
        if orphans.is_empty() {
            break;
        }
        ended += orphans.len();
        end_processes(&orphans).await;
    }
    ended
}

/// End the orphans that hold one of `pipes` open (`pipe:[inode]`, see [`fd_target`]): a
/// daemon a suite started without redirecting its output keeps that suite's capture open.
pub(super) async fn end_pipe_holders(pipes: &[String]) -> usize {
    let holders: Vec<(i32, i32)> = orphans()
        .into_iter()
        .filter(|(pid, _)| holds(*pid, pipes))
        .collect();
    end_processes(&holders).await;
    holders.len()
}

/// What one of the gate's file descriptors is open on (`pipe:[4242]`), from `/proc`.
pub(super) fn fd_target(fd: i32) -> Option<String> {
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    target.to_str().map(str::to_owned)
}

fn holds(pid: i32, targets: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| targets.iter().any(|t| target.as_os_str() == t.as_str()))
}

/// TERM each process and its group, KILL what is left after the grace, and reap them.
async fn end_processes(processes: &[(i32, i32)]) {
    if processes.is_empty() {
        return;
    }
    // SAFETY: getpgrp has no arguments and cannot fail.
    let own_group = unsafe { libc::getpgrp() };
    let signal_all = |signal: i32| {
        for (pid, pgid) in processes {
            if *pgid > 1 && *pgid != own_group {
                signal_group(Some(*pgid), signal);
            }
            // SAFETY: kill(2) on one pid; no memory is involved.
            unsafe { libc::kill(*pid, signal) };
        }
    };
    signal_all(libc::SIGTERM);
    let deadline = Instant::now() + LEFTOVER_GRACE;
    while Instant::now() < deadline && processes.iter().any(|(pid, _)| !reaped(*pid)) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_all(libc::SIGKILL);
    for (pid, _) in processes {
        wait_for(*pid);
    }
}

/// Whether a child has exited (and is now reaped).
fn reaped(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on one pid with WNOHANG; the status goes into a local int.
    let got = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
    got == pid || got < 0
}

fn wait_for(pid: i32) {
    let mut status = 0;
    // SAFETY: as above, blocking: the process was just sent SIGKILL.
    unsafe { libc::waitpid(pid, &raw mut status, 0) };
}

/// The gate's children that are orphans of suites, with their process groups, from `/proc`.
fn orphans() -> Vec<(i32, i32)> {
    // SAFETY: getpid and getpgrp have no arguments and cannot fail.
    let (me, own_group) = unsafe { (libc::getpid(), libc::getpgrp()) };
    let live = RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (ppid, pgid) = parent_and_group(&stat)?;
            (ppid == me && pgid != own_group && !live.contains(&pid)).then_some((pid, pgid))
        })
        .collect()
}

/// `ppid` and `pgrp` from a `/proc/PID/stat` line: `pid (comm) state ppid pgrp …`, where
/// `comm` may hold spaces and parentheses.
fn parent_and_group(stat: &str) -> Option<(i32, i32)> {
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
    let _state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some((ppid, pgid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_awkward_names() {
        assert_eq!(
            parent_and_group("42 (sleep) S 7 42 42 0 -1 4194560"),
            Some((7, 42))
        );
        assert_eq!(parent_and_group("43 (a) b (c)) R 1 9 9 0"), Some((1, 9)));
        assert_eq!(parent_and_group("garbage"), None);
    }
}
