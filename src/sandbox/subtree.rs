//! The processes one spawn started, however they detach. A custom tool or
//! an MCP stdio server that double-forks, or calls `setsid`, leaves its
//! process group: killing the group misses it and it outlives the call, or
//! dra. So each spawn carries a random mark in its environment
//! (`DRA_SUBTREE`, inherited by everything it starts), and when the call or
//! the server ends every process of this user still carrying the mark is
//! killed, wherever it was reparented. dra is also made a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`), so such orphans are reparented to dra rather
//! than escaping to init, and reaped. A process that wipes its own
//! environment before it detaches is not found: this is hygiene for the
//! user's own tools and servers, not a sandbox (code the model writes runs
//! in [`super::bwrap`], in a pid namespace).

use std::sync::Once;

/// The environment variable holding the mark.
pub const VAR: &str = "DRA_SUBTREE";

/// Passes over `/proc` when killing: a process may fork while the first
/// pass kills its parent.
const PASSES: usize = 4;

/// One spawn's mark; dropping it kills whatever still carries it.
#[derive(Debug)]
pub struct Subtree {
    mark: String,
}

impl Default for Subtree {
    fn default() -> Self {
        Subtree::new()
    }
}

impl Subtree {
    pub fn new() -> Subtree {
        become_subreaper();
        let mut bytes = [0u8; 12];
        if getrandom::fill(&mut bytes).is_err() {
            let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0);
            bytes[..8].copy_from_slice(&nanos.to_le_bytes());
            bytes[8..].copy_from_slice(&std::process::id().to_le_bytes());
        }
        Subtree {
            mark: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// The variable to add to the spawn's environment.
    pub fn env(&self) -> (&'static str, &str) {
        (VAR, &self.mark)
    }

    /// Kills every process carrying the mark (not this one); returns how
    /// many were signalled.
    pub fn kill(&self) -> usize {
        let needle = format!("{VAR}={}", self.mark);
        let me = std::process::id();
        let mut killed = 0;
        for _ in 0..PASSES {
            let found = marked(&needle, me);
            if found.is_empty() {
                break;
            }
            for pid in &found {
                // SAFETY: kill only sends a signal; a gone pid gives ESRCH.
                unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
            }
            killed += found.len();
            reap(&found);
        }
        killed
    }
}

impl Drop for Subtree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Makes this process the reaper of its orphaned descendants (once).
fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with an integer option and argument.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    });
}

/// Live processes (not `me`, not zombies) whose environment holds `needle`.
fn marked(needle: &str, me: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut rereads = REREADS;
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            let Some(env) = environ(pid, &mut rereads) else {
                return false;
            };
            env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()) && !is_zombie(pid)
        })
        .collect()
}

/// Second reads (2 ms apart) of environments that read empty, per pass over
/// `/proc`: a process in the middle of `execve` shows none until its new
/// image is set up, and one started with `env -i` always shows none.
const REREADS: usize = 25;

/// The environment of `pid`, `None` when it cannot be read. A user process
/// whose environment reads empty is read again while `rereads` lasts: it
/// may be between its fork and its exec, and skipping it would let it
/// escape. Kernel threads, which have none, are not read again.
fn environ(pid: u32, rereads: &mut usize) -> Option<Vec<u8>> {
    loop {
        let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        if !env.is_empty() || *rereads == 0 || is_kernel_thread(pid) || is_zombie(pid) {
            return Some(env);
        }
        *rereads -= 1;
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The kernel's own threads (flag `PF_KTHREAD` in `/proc/<pid>/stat`).
fn is_kernel_thread(pid: u32) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // After the name: state, ppid, pgrp, session, tty, tpgid, flags.
            let after = s.rsplit_once(')')?.1.to_string();
            after.split_whitespace().nth(6)?.parse::<u64>().ok()
        })
        .is_some_and(|flags| flags & PF_KTHREAD != 0)
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let after = s.rsplit_once(')')?.1.to_string();
            after.split_whitespace().next().map(|st| st == "Z")
        })
        .unwrap_or(true)
}

/// Reaps those of `pids` that are (now) this process's children, without
/// waiting: a killed orphan reparented here would otherwise stay a zombie.
/// Only these pids are waited for, never "any child" (tokio waits for its own).
fn reap(pids: &[u32]) {
    for _ in 0..20 {
        let mut left = false;
        for &pid in pids {
            let mut status = 0;
            // SAFETY: waitpid on one pid with WNOHANG; ECHILD when not ours.
            let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
            if r == 0 {
                left = true;
            }
        }
        if !left {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detached_grandchild_is_killed_by_its_mark() {
        let tree = Subtree::new();
        let (k, v) = tree.env();
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        // setsid + a subshell in the background: out of the group and the session.
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "setsid sh -c 'sleep 300 & echo $! > {}' </dev/null >/dev/null 2>&1",
                pidfile.display()
            ))
            .env(k, v)
            .status()
            .unwrap();
        assert!(status.success());
        let mut pid = String::new();
        for _ in 0..200 {
            pid = std::fs::read_to_string(&pidfile).unwrap_or_default();
            if !pid.trim().is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let pid: u32 = pid.trim().parse().unwrap();
        assert!(!is_zombie(pid), "the sleep is not running");
        let killed = tree.kill();
        assert!(
            killed >= 1,
            "the mark was not found: /proc/{pid}/environ reads {:?}, stat {:?}",
            std::fs::read(format!("/proc/{pid}/environ"))
                .map(|e| String::from_utf8_lossy(&e).len()),
            std::fs::read_to_string(format!("/proc/{pid}/stat")),
        );
        assert!(is_zombie(pid), "the detached sleep {pid} survived");
        // Nothing else carries the mark.
        assert_eq!(tree.kill(), 0);
    }
}
