//! The bubblewrap backend: each call runs `python3` or `sh` in fresh
//! namespaces (user, pid, mount, ipc, uts, cgroup, and network unless
//! `LLM_SANDBOX_NETWORK` allows it), with only the system's read-only
//! folders (`/usr`, the `/lib*` and `/bin` links, a few files of `/etc`), a
//! private `/tmp`, and the run's workspace read-write at `/workspace`. There
//! is no home folder, no dra config, no runs folder and no inherited
//! environment. Limits: wall time (the sandbox is killed), address space,
//! processes, file size, CPU time, and output (the sandbox is killed past
//! the cap).
//!
//! Run as root, dra starts bwrap as the unprivileged user `nobody` (65534):
//! the kernel does not apply RLIMIT_NPROC to root, even inside a user
//! namespace, so a fork bomb would only stop at the timeout. The workspace
//! is handed over as an open descriptor (`--bind-fd`), given to `nobody` so
//! the code can write there, and re-attached where `nobody` can reach it
//! (a run dir under a 0700 `/root` is not): see [`make_reachable`].
//!
//! The code reaches the sandbox on stdin, copied by bwrap into a read-only
//! file (`--file 0`); it is never part of a command line.

use std::ffi::CString;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use super::{
    ExecOutcome, Language, Limits, ReadOnlyMount, Sandbox, SandboxError, Stopped, Unavailable,
    text_of,
};
use crate::store::beneath::{Beneath, BeneathError};

/// The user dra drops to when it runs as root.
pub const NOBODY: u32 = 65534;

/// Size of the sandbox's private `/tmp` (a tmpfs lives in memory).
pub const TMP_BYTES: u64 = 256 * 1024 * 1024;

/// Where the code file lands inside the sandbox.
const CODE_PATH: &str = "/tmp/.dra-code";

/// System folders that may be symbolic links into `/usr` (merged /usr).
const SYSTEM_DIRS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// Files of `/etc` programs need; nothing with users, hosts or secrets.
const ETC_FILES: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/mime.types",
    "/etc/ssl/certs",
    "/etc/ca-certificates",
];

/// Extra files with the network on: name resolution.
const NET_FILES: &[&str] = &[
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
];

pub struct Bwrap {
    bin: PathBuf,
    workspace: PathBuf,
    /// A dra-owned folder the code sees read-only (offloaded results).
    read_only: Option<ReadOnlyMount>,
    network: bool,
    /// `(uid, gid)` to run bwrap as, when dra runs as root.
    drop_to: Option<(u32, u32)>,
    /// Whether `python3` is found inside (set by the probe; assumed before).
    python: std::sync::atomic::AtomicBool,
}

impl Bwrap {
    /// Finds `bwrap` on `PATH`.
    pub fn locate(workspace: &Path, network: bool) -> Result<Bwrap, Unavailable> {
        let bin = find_on_path("bwrap").ok_or_else(|| Unavailable {
            why: "bubblewrap (bwrap) is not installed, and LLM_SANDBOX_URL is not set".into(),
            fix: "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`), or set LLM_SANDBOX_URL to an llm-sandbox sidecar".into(),
        })?;
        Ok(Bwrap::with_binary(bin, workspace, network))
    }

    pub fn with_binary(bin: PathBuf, workspace: &Path, network: bool) -> Bwrap {
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        Bwrap {
            bin,
            workspace: workspace.to_path_buf(),
            read_only: None,
            network,
            drop_to: root.then_some((NOBODY, NOBODY)),
            python: std::sync::atomic::AtomicBool::new(true),
        }
    }

    /// Shows `mount.host` read-only at `mount.inside` in every call.
    pub fn with_read_only(mut self, mount: ReadOnlyMount) -> Bwrap {
        self.read_only = Some(mount);
        self
    }

    /// Runs a trivial command in a sandbox to make sure one can be made
    /// here (bwrap present is not enough: user namespaces may be off).
    pub async fn probe(&self) -> Result<(), Unavailable> {
        let limits = Limits {
            timeout: Duration::from_secs(10),
            ..Limits::default()
        };
        let fail = |why: String| {
            Unavailable {
            why: format!("bubblewrap ({}) cannot create a sandbox here: {why}", self.bin.display()),
            fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, run it with a seccomp/AppArmor profile that permits them), or set LLM_SANDBOX_URL to an llm-sandbox sidecar".into(),
        }
        };
        // In a throwaway workspace: the run's stays untouched until used.
        let scratch = tempfile::tempdir().map_err(|e| fail(format!("no temp dir: {e}")))?;
        let trial = Bwrap {
            bin: self.bin.clone(),
            workspace: scratch.path().join("workspace"),
            read_only: None,
            network: self.network,
            drop_to: self.drop_to,
            python: std::sync::atomic::AtomicBool::new(true),
        };
        match trial
            .run(
                "test -w /workspace && test ! -e /root && echo sandbox-ok\ncommand -v python3 >/dev/null && echo python3\nexit 0",
                Language::Shell,
                &limits,
            )
            .await
        {
            Ok(o) if o.exit_code == Some(0) && o.stdout.starts_with("sandbox-ok\n") => {
                let python = o.stdout.lines().any(|l| l == "python3");
                self.python
                    .store(python, std::sync::atomic::Ordering::Relaxed);
                Ok(())
            }
            Ok(o) => Err(fail(format!(
                "exit {:?}: {}",
                o.exit_code,
                o.stderr.trim().chars().take(300).collect::<String>()
            ))),
            Err(e) => Err(fail(e.to_string())),
        }
    }

    /// The uid the code runs as, outside the sandbox.
    fn outside_uid(&self) -> u32 {
        match self.drop_to {
            Some((uid, _)) => uid,
            // SAFETY: getuid has no preconditions and cannot fail.
            None => unsafe { libc::getuid() },
        }
    }

    /// Creates the workspace and, when dra drops to `nobody`, gives it to
    /// `nobody` so the code can write there; opens it and the read-only
    /// folder (whose mount point in the workspace is made a real folder
    /// again if the code replaced it with a link or a file).
    fn prepare(&self) -> Result<Opened, SandboxError> {
        let start_err = |what: String, e: io::Error| SandboxError::Start(format!("{what}: {e}"));
        let ws = self.workspace.display().to_string();
        std::fs::create_dir_all(&self.workspace)
            .map_err(|e| start_err(format!("workspace {ws}"), e))?;
        if let Some((uid, gid)) = self.drop_to {
            let meta = std::fs::symlink_metadata(&self.workspace)
                .map_err(|e| start_err(format!("workspace {ws}"), e))?;
            if meta.uid() != uid {
                std::os::unix::fs::lchown(&self.workspace, Some(uid), Some(gid))
                    .map_err(|e| start_err(format!("workspace {ws}"), e))?;
            }
        }
        let beneath_err = |e: BeneathError| SandboxError::Start(e.to_string());
        let workspace = Beneath::open(&self.workspace).map_err(beneath_err)?;
        let read_only = match &self.read_only {
            None => None,
            Some(m) => {
                std::fs::create_dir_all(&m.host)
                    .map_err(|e| start_err(format!("folder {}", m.host.display()), e))?;
                let host = Beneath::open(&m.host).map_err(beneath_err)?;
                if let Ok(rel) = Path::new(&m.inside).strip_prefix("/workspace") {
                    workspace.ensure_real_dirs(rel).map_err(beneath_err)?;
                }
                Some((host, m.inside.clone()))
            }
        };
        Ok(Opened {
            workspace,
            read_only,
        })
    }

    /// bwrap's arguments; `workspace_fd` is the open workspace folder,
    /// `read_only` the open read-only folder and where the code sees it.
    pub fn args(
        &self,
        language: Language,
        workspace_fd: i32,
        read_only: Option<(i32, &str)>,
    ) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        let mut push = |items: &[&str]| a.extend(items.iter().map(|s| s.to_string()));
        // No user namespaces inside: the code cannot build its own
        // sandbox to reach kernel surface only namespace owners get.
        push(&["--unshare-all", "--unshare-user", "--disable-userns"]);
        if self.network {
            push(&["--share-net"]);
        }
        push(&[
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--hostname",
            "sandbox",
            "--ro-bind",
            "/usr",
            "/usr",
        ]);
        for dir in SYSTEM_DIRS {
            let path = Path::new(dir);
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(path) {
                        push(&["--symlink", &target.to_string_lossy(), dir]);
                    }
                }
                Ok(m) if m.is_dir() => push(&["--ro-bind", dir, dir]),
                _ => {}
            }
        }
        let etc = ETC_FILES
            .iter()
            .chain(if self.network { NET_FILES } else { &[] });
        for f in etc {
            push(&["--ro-bind-try", f, f]);
        }
        let fd = workspace_fd.to_string();
        let tmp_size = TMP_BYTES.to_string();
        push(&[
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            &tmp_size,
            "--tmpfs",
            "/tmp",
            "--perms",
            "0444",
            "--file",
            "0",
            CODE_PATH,
            "--bind-fd",
            &fd,
            "/workspace",
        ]);
        if let Some((ro_fd, inside)) = read_only {
            push(&["--ro-bind-fd", &ro_fd.to_string(), inside]);
        }
        push(&[
            // The root bwrap built (holding /etc, the mount points) is
            // read-only too: /workspace and the private /tmp are all that
            // can be written.
            "--remount-ro",
            "/",
            "--chdir",
            "/workspace",
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/local/bin:/usr/bin:/bin",
            "--setenv",
            "HOME",
            "/workspace",
            "--setenv",
            "LANG",
            "C.UTF-8",
            "--setenv",
            "TMPDIR",
            "/tmp",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
            "--setenv",
            "PYTHONUNBUFFERED",
            "1",
            "--",
        ]);
        match language {
            Language::Python => push(&["python3", CODE_PATH]),
            Language::Shell => push(&["sh", CODE_PATH]),
        }
        a
    }

    pub fn describe_isolation(&self) -> String {
        format!(
            "bubblewrap ({}, {}): user, pid, mount, ipc, uts and cgroup namespaces; network {}; read-only /usr, no home, workspace read-write at /workspace; runs as {}",
            self.bin.display(),
            if self.python.load(std::sync::atomic::Ordering::Relaxed) {
                "python and shell"
            } else {
                "shell only: no python3 under /usr"
            },
            if self.network {
                "shared (LLM_SANDBOX_NETWORK=true)"
            } else {
                "off"
            },
            match self.drop_to {
                Some((uid, _)) => format!("uid {uid} (dra runs as root)"),
                None => "the invoking user".into(),
            }
        )
    }
}

#[async_trait]
impl Sandbox for Bwrap {
    fn describe(&self) -> String {
        self.describe_isolation()
    }

    async fn run(
        &self,
        code: &str,
        language: Language,
        limits: &Limits,
    ) -> Result<ExecOutcome, SandboxError> {
        if language == Language::Python && !self.python.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(SandboxError::Unsupported("python"));
        }
        let start_err = |what: &str, e: io::Error| SandboxError::Start(format!("{what}: {e}"));
        let opened = self.prepare()?;
        let fd = opened.workspace.as_raw_fd();
        let ro = opened
            .read_only
            .as_ref()
            .map(|(dir, inside)| (dir.as_raw_fd(), inside.as_str()));
        let keep = [fd, ro.map_or(-1, |(f, _)| f)];
        let reach = self.drop_to.map(|_| Reachable::new(keep));
        let rlimits = RLimits {
            address_space: limits.memory_bytes,
            processes: limits
                .processes
                .saturating_add(tasks_of_user(self.outside_uid())),
            file_size: limits.file_bytes,
            cpu_seconds: limits.timeout.as_secs().saturating_add(1),
        };
        let drop_to = self.drop_to;
        let mut cmd = tokio::process::Command::new(&self.bin);
        cmd.args(self.args(language, fd, ro))
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        // SAFETY: the closure runs in the forked child before exec and only
        // makes async-signal-safe system calls (setrlimit, unshare, mount,
        // open, dup2, fcntl, setgroups, setgid, setuid) on values prepared
        // before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || child_setup(keep, &rlimits, reach.as_ref(), drop_to));
        }
        let quota = Quota::of(&self.workspace, limits.workspace_bytes);
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| start_err(&format!("{}", self.bin.display()), e))?;
        drop(opened);
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SandboxError::Start("no pipes to the sandbox".into()));
        };
        let code = code.as_bytes().to_vec();
        let writer = tokio::spawn(async move {
            let _ = stdin.write_all(&code).await;
            let _ = stdin.shutdown().await;
        });
        let (over_tx, mut over_rx) = mpsc::channel::<()>(2);
        let out = tokio::spawn(read_capped(stdout, limits.output_bytes, over_tx.clone()));
        let err = tokio::spawn(read_capped(stderr, limits.output_bytes, over_tx));
        let (status, stopped) = wait_within(&mut child, limits, &mut over_rx, &quota).await;
        let status = status.map_err(|e| start_err("waiting for the sandbox", e))?;
        // Growth in the last moments before the end counts too.
        let stopped = stopped.or_else(|| {
            (workspace_usage(&self.workspace) > quota.limit).then_some(Stopped::WorkspaceQuota)
        });
        writer.abort();
        let grace = Duration::from_secs(2);
        let (stdout, out_cut) = match tokio::time::timeout(grace, out).await {
            Ok(Ok(r)) => r,
            _ => (Vec::new(), false),
        };
        let (stderr, err_cut) = match tokio::time::timeout(grace, err).await {
            Ok(Ok(r)) => r,
            _ => (Vec::new(), false),
        };
        use std::os::unix::process::ExitStatusExt;
        Ok(ExecOutcome {
            exit_code: status.code(),
            signal: status.signal(),
            stdout: text_of(&stdout, limits.output_bytes),
            stderr: text_of(&stderr, limits.output_bytes),
            stopped,
            truncated: out_cut || err_cut,
            duration: started.elapsed(),
        })
    }
}

/// How much the workspace may hold during one call: the quota, or what it
/// already held when the call began if that is more (so code can still
/// delete files once over it, but not add).
struct Quota {
    workspace: PathBuf,
    limit: u64,
}

impl Quota {
    fn of(workspace: &Path, quota: u64) -> Quota {
        Quota {
            workspace: workspace.to_path_buf(),
            limit: quota.max(workspace_usage(workspace)),
        }
    }

    /// Returns once the workspace holds more than the limit.
    async fn passed(&self) {
        loop {
            tokio::time::sleep(QUOTA_POLL).await;
            let ws = self.workspace.clone();
            let used = tokio::task::spawn_blocking(move || workspace_usage(&ws))
                .await
                .unwrap_or(0);
            if used > self.limit {
                return;
            }
        }
    }
}

/// How often the workspace's size is checked during a call.
const QUOTA_POLL: Duration = Duration::from_millis(50);

/// Entries walked at most; a workspace with more counts as over any quota
/// (millions of small files fill a disk's inodes just as well).
const USAGE_ENTRIES: usize = 200_000;

/// Bytes the workspace takes on disk (allocated blocks: a sparse file
/// counts what it really uses), never following links.
pub fn workspace_usage(root: &Path) -> u64 {
    let mut total = 0u64;
    for (n, entry) in walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if n >= USAGE_ENTRIES {
            return u64::MAX;
        }
        if let Ok(m) = entry.metadata() {
            total = total.saturating_add(m.blocks().saturating_mul(512));
        }
    }
    total
}

/// Waits for the sandbox to end by itself, or stops it at the deadline,
/// the output cap or the workspace quota (whichever comes first).
async fn wait_within(
    child: &mut tokio::process::Child,
    limits: &Limits,
    over_rx: &mut mpsc::Receiver<()>,
    quota: &Quota,
) -> (io::Result<std::process::ExitStatus>, Option<Stopped>) {
    let deadline = tokio::time::sleep(limits.timeout);
    tokio::pin!(deadline);
    let passed = quota.passed();
    tokio::pin!(passed);
    let mut stopped = tokio::select! {
        _ = &mut deadline => Some(Stopped::Timeout),
        over = over_rx.recv() => over.map(|_| Stopped::OutputCap),
        () = &mut passed => Some(Stopped::WorkspaceQuota),
    };
    if stopped.is_none() {
        // Both pipes closed; the process may still be running.
        tokio::select! {
            s = child.wait() => return (s, None),
            _ = &mut deadline => stopped = Some(Stopped::Timeout),
            () = &mut passed => stopped = Some(Stopped::WorkspaceQuota),
        }
    }
    let _ = child.start_kill();
    (child.wait().await, stopped)
}

/// Reads up to `cap` bytes; past it, stops reading and says so on `over`.
async fn read_capped<R: AsyncRead + Unpin>(
    mut r: R,
    cap: usize,
    over: mpsc::Sender<()>,
) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return (buf, false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.len() > cap {
                    buf.truncate(cap);
                    let _ = over.try_send(());
                    return (buf, true);
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
struct RLimits {
    address_space: u64,
    processes: u64,
    file_size: u64,
    cpu_seconds: u64,
}

/// The open workspace and read-only folder of one call.
struct Opened {
    workspace: Beneath,
    read_only: Option<(Beneath, String)>,
}

/// Paths prepared before the fork for [`make_reachable`]: the descriptors
/// to re-open through mounts `nobody` can reach.
struct Reachable {
    fds: [i32; 2],
    targets: [CString; 2],
    tmp: CString,
    tmpfs: CString,
    options: CString,
}

impl Reachable {
    fn new(fds: [i32; 2]) -> Reachable {
        let c = |s: &str| CString::new(s).unwrap_or_default();
        Reachable {
            fds,
            targets: [c("/tmp/w"), c("/tmp/r")],
            tmp: c("/tmp"),
            tmpfs: c("tmpfs"),
            options: c("size=16k,mode=0755"),
        }
    }
}

/// `open_tree` flags and `move_mount` flags (linux/mount.h; not in libc).
const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;

/// Run as root, the folders are handed to bwrap as descriptors, but bwrap
/// (running as `nobody`) reads each one's path back and must be able to
/// reach it: a run dir below a 0700 home is not ("Can't find source path
/// /proc/self/fd/N: Permission denied"). So each folder is cloned as a
/// detached mount (`open_tree`, while still in dra's mount namespace),
/// then, in a mount namespace of this child alone, a small tmpfs goes over
/// `/tmp` (bwrap gives the code its own `/tmp` anyway), the clones are
/// attached there (`move_mount`) and re-opened on the same descriptor
/// numbers. Best effort: where mounts are not allowed the descriptors stay
/// as they are (and bwrap says why it cannot use them).
fn make_reachable(r: &Reachable) {
    let mut trees = [-1i32; 2];
    for (tree, &fd) in trees.iter_mut().zip(&r.fds) {
        if fd >= 0 {
            // SAFETY: open_tree on a descriptor this process owns, empty path.
            *tree = unsafe {
                libc::syscall(
                    libc::SYS_open_tree,
                    fd,
                    c"".as_ptr(),
                    OPEN_TREE_CLONE
                        | libc::O_CLOEXEC as libc::c_uint
                        | libc::AT_EMPTY_PATH as libc::c_uint,
                )
            } as i32;
        }
    }
    if trees.iter().all(|&t| t < 0) || !private_tmp(r) {
        return;
    }
    for ((&fd, &tree), target) in r.fds.iter().zip(&trees).zip(&r.targets) {
        // SAFETY: plain system calls on descriptors this child owns and
        // NUL-terminated strings prepared before the fork.
        unsafe {
            if tree < 0 || libc::mkdir(target.as_ptr(), 0o755) != 0 {
                continue;
            }
            let moved = libc::syscall(
                libc::SYS_move_mount,
                tree,
                c"".as_ptr(),
                libc::AT_FDCWD,
                target.as_ptr(),
                MOVE_MOUNT_F_EMPTY_PATH,
            );
            libc::close(tree);
            if moved != 0 {
                continue;
            }
            let again = libc::open(
                target.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if again >= 0 {
                libc::dup2(again, fd);
                libc::close(again);
            }
        }
    }
}

/// A mount namespace of this child alone with a small tmpfs over `/tmp`.
fn private_tmp(r: &Reachable) -> bool {
    let none = std::ptr::null();
    // SAFETY: unshare and mount with NUL-terminated strings prepared
    // before the fork, in the single-threaded child.
    unsafe {
        libc::unshare(libc::CLONE_NEWNS) == 0
            && libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                none.cast(),
            ) == 0
            && libc::mount(
                r.tmpfs.as_ptr(),
                r.tmp.as_ptr(),
                r.tmpfs.as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                r.options.as_ptr().cast(),
            ) == 0
    }
}

/// In the forked child, before exec: limits, the folders' descriptors kept
/// open across exec (reachable by `nobody` when dra drops to it), and the
/// drop to an unprivileged user.
fn child_setup(
    keep: [i32; 2],
    l: &RLimits,
    reach: Option<&Reachable>,
    drop_to: Option<(u32, u32)>,
) -> io::Result<()> {
    let limits = [
        (libc::RLIMIT_AS, l.address_space),
        (libc::RLIMIT_NPROC, l.processes),
        (libc::RLIMIT_FSIZE, l.file_size),
        (libc::RLIMIT_CPU, l.cpu_seconds),
        (libc::RLIMIT_CORE, 0),
    ];
    for (resource, value) in limits {
        let lim = libc::rlimit {
            rlim_cur: value as libc::rlim_t,
            rlim_max: value as libc::rlim_t,
        };
        // SAFETY: a valid pointer to a local rlimit.
        if unsafe { libc::setrlimit(resource, &lim) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    if let Some(r) = reach {
        make_reachable(r);
    }
    // Descriptors dra itself inherited without close-on-exec (a parent's
    // pipes, files) must not reach the code: all but stdio and the
    // folders are closed.
    close_other_descriptors(keep);
    for fd in keep.into_iter().filter(|&fd| fd >= 0) {
        // SAFETY: plain fcntl on a descriptor this process owns.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    if let Some((uid, gid)) = drop_to {
        // SAFETY: setgroups with an empty list, then setgid/setuid: plain
        // system calls; failing any of them aborts the spawn.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Closes every descriptor from 3 up but those in `keep` (close_range, or
/// one by one on kernels before 5.9). Async-signal-safe: system calls only.
fn close_other_descriptors(keep: [i32; 2]) {
    let mut kept = keep;
    kept.sort_unstable();
    let mut lo = 3;
    for k in kept.into_iter().filter(|&k| k >= 3) {
        close_range(lo, k - 1);
        lo = k + 1;
    }
    close_range(lo, i32::MAX);
}

fn close_range(lo: i32, hi: i32) {
    if lo > hi {
        return;
    }
    // SAFETY: close_range takes two descriptor numbers and flags; it only
    // closes descriptors of this (forked) process.
    let done = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            lo as libc::c_uint,
            hi as libc::c_uint,
            0u32,
        )
    } == 0;
    if !done {
        for fd in lo..hi.min(65_536) {
            // SAFETY: closing a descriptor number, open or not.
            unsafe { libc::close(fd) };
        }
    }
}

/// Tasks (processes and threads) `uid` runs now: RLIMIT_NPROC counts them
/// all, so the sandbox's allowance is added on top.
fn tasks_of_user(uid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0u64;
    for entry in dir.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if entry.metadata().is_ok_and(|m| m.uid() == uid) {
            n += std::fs::read_dir(entry.path().join("task"))
                .map(|t| t.count() as u64)
                .unwrap_or(1);
        }
    }
    n
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_isolate_and_never_carry_the_code() {
        let b = Bwrap::with_binary("/usr/bin/bwrap".into(), Path::new("/x/ws"), false);
        let a = b.args(Language::Python, 7, Some((8, "/workspace/data")));
        let has = |w: &[&str]| a.windows(w.len()).any(|x| x == w);
        assert!(has(&["--unshare-all"]));
        assert!(!a.iter().any(|x| x == "--share-net"));
        assert!(has(&["--bind-fd", "7", "/workspace"]));
        assert!(has(&["--ro-bind-fd", "8", "/workspace/data"]));
        assert!(has(&["--chdir", "/workspace"]));
        assert!(has(&["--remount-ro", "/"]));
        assert!(has(&["--disable-userns"]));
        assert!(has(&["--size", &TMP_BYTES.to_string(), "--tmpfs", "/tmp"]));
        assert!(has(&["--clearenv"]));
        assert!(has(&["--die-with-parent"]));
        assert!(has(&["--file", "0", CODE_PATH]));
        assert!(a.ends_with(&["python3".to_string(), CODE_PATH.to_string()]));
        // Nothing of the host's home, the workspace path or the whole root.
        assert!(
            !a.iter()
                .any(|x| x.starts_with("/root") || x.starts_with("/home"))
        );
        assert!(!a.iter().any(|x| x == "/x/ws"));
        assert!(!has(&["--ro-bind", "/", "/"]));
        let net = Bwrap::with_binary("/usr/bin/bwrap".into(), Path::new("/x"), true);
        let a = net.args(Language::Shell, 3, None);
        assert!(!a.iter().any(|x| x == "--ro-bind-fd"));
        assert!(a.iter().any(|x| x == "--share-net"));
        assert!(a.ends_with(&["sh".to_string(), CODE_PATH.to_string()]));
    }

    #[test]
    fn tasks_of_this_user_include_this_process() {
        // SAFETY: getuid cannot fail.
        let me = unsafe { libc::getuid() };
        assert!(tasks_of_user(me) >= 1);
    }

    #[tokio::test]
    async fn capped_reads_stop_at_the_cap_and_say_so() {
        let (tx, mut rx) = mpsc::channel(2);
        let data = [b'x'; 100];
        let (buf, cut) = read_capped(&data[..], 10, tx.clone()).await;
        assert_eq!((buf.len(), cut), (10, true));
        assert!(rx.try_recv().is_ok());
        let (buf, cut) = read_capped(&data[..], 100, tx).await;
        assert_eq!((buf.len(), cut), (100, false));
    }
}
