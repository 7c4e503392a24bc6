//! Process groups: each suite runs as the leader of its own session and process group, so that
//! ending the group ends everything it started, and no process of a suite can join the gate's
//! own group. On Linux the gate is also a child subreaper: a process that leaves its group
//! (`setsid`, a daemon) is re-parented to the gate instead of init, and is ended when the run
//! ends. Orphans are killed outright (no TERM and grace: a process could answer TERM by forking)
//! and always before they are reaped, so a pid or group id signalled is never a recycled one.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long leftovers of a suite's own group get between TERM and KILL.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// The longest the gate spends ending orphans, however many a suite keeps spawning.
const ORPHAN_DEADLINE: Duration = Duration::from_secs(3);

/// The main processes of the suites running now, in this process: never taken for orphans.
/// Held while a suite is spawned, so that a suite just started is never taken for one either.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The list of running suites, locked: hold it while spawning a suite, and add its pid before
/// letting go.
pub(super) fn running() -> MutexGuard<'static, Vec<i32>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The suite whose main process is `pid` was waited for.
pub(super) fn stopped_running(pid: i32) {
    running().retain(|p| *p != pid);
}

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

/// Make the gate the reaper of its descendants' orphans (Linux; elsewhere a no-op), and keep
/// suites out of its own `/proc` entries: a suite runs as the same user, and could otherwise
/// read the gate's environment (`/proc/<gate>/environ`, with the tokens scrubbed from its own)
/// or write to its stdout and stderr through `/proc/<gate>/fd`.
pub(super) fn guard_the_gate() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with these options takes integer flags; no memory is involved.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
}

/// End every process re-parented to the gate: each of them escaped a suite that is over.
/// Children in the gate's own process group (a `git` it runs: suites cannot join that group,
/// they run in sessions of their own) and the main processes of suites still running are not
/// orphans. Returns how many were ended.
pub(super) async fn end_orphans() -> usize {
    let deadline = Instant::now() + ORPHAN_DEADLINE;
    let mut ended = 0;
    // Killing a daemon can orphan its own children to us: rounds until none is left.
    while Instant::now() < deadline {
        let orphans = orphans();
        if orphans.is_empty() {
            break;
        }
        ended += orphans.len();
        kill_and_reap(&orphans, deadline).await;
    }
    ended
}

/// End every process that holds one of `pipes` open (`pipe:[inode]`, see [`fd_target`]): once a
/// suite's group is gone, only what escaped it (a daemon started without redirecting its
/// output) can still hold its output pipes, and they keep its capture from ending.
pub(super) async fn end_pipe_holders(pipes: &[String]) -> usize {
    // SAFETY: getpid has no arguments and cannot fail.
    let me = unsafe { libc::getpid() };
    // The gate holds the read ends, which name the same pipes.
    let holders: Vec<(i32, i32)> = processes()
        .into_iter()
        .filter(|p| p.pid != me && holds(p.pid, pipes))
        .map(|p| (p.pid, p.pgid))
        .collect();
    kill_and_reap(&holders, Instant::now() + ORPHAN_DEADLINE).await;
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

/// KILL each process and its group, then reap the ones that are the gate's children. Nothing
/// is reaped before everything is signalled: an unreaped child's pid, and the group it is in,
/// cannot be handed to a new process.
async fn kill_and_reap(targets: &[(i32, i32)], deadline: Instant) {
    if targets.is_empty() {
        return;
    }
    // SAFETY: getpid and getpgrp have no arguments and cannot fail.
    let (me, own_group) = unsafe { (libc::getpid(), libc::getpgrp()) };
    for (pid, pgid) in targets {
        if *pgid > 1 && *pgid != own_group {
            signal_group(Some(*pgid), libc::SIGKILL);
        }
        if *pid != me {
            // SAFETY: kill(2) on one pid; no memory is involved.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
    }
    let mut left: Vec<i32> = targets.iter().map(|(pid, _)| *pid).collect();
    while !left.is_empty() && Instant::now() < deadline {
        left.retain(|pid| !reaped(*pid));
        if !left.is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Whether a process has exited: reaped now if it is the gate's child, gone from `/proc` if
/// not (someone else reaps it).
fn reaped(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on one pid with WNOHANG; the status goes into a local int.
    let got = unsafe { libc::waitpid(pid, &raw mut status, libc::WNOHANG) };
    got == pid || (got < 0 && state(pid).is_none_or(|s| s == 'Z'))
}

fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.get(stat.rfind(')')? + 1..)?
        .trim_start()
        .chars()
        .next()
}

/// The gate's children that are orphans of suites, with their process groups.
fn orphans() -> Vec<(i32, i32)> {
    // SAFETY: getpid and getpgrp have no arguments and cannot fail.
    let (me, own_group) = unsafe { (libc::getpid(), libc::getpgrp()) };
    // Held while listing: a suite being spawned now is registered before it can be seen.
    let live = running();
    processes()
        .into_iter()
        // A running suite's main process, or a process in its group (whose own parent in the
        // suite has exited), is that suite's: it ends with it.
        .filter(|p| p.ppid == me && p.pgid != own_group && !live.contains(&p.pid))
        .filter(|p| !live.contains(&p.pgid))
        .map(|p| (p.pid, p.pgid))
        .collect()
}

struct Process {
    pid: i32,
    ppid: i32,
    pgid: i32,
}

/// Every process on the machine, from `/proc`.
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (ppid, pgid) = parent_and_group(&stat)?;
            Some(Process { pid, ppid, pgid })
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
