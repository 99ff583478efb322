//! Writes that nothing below a root can redirect. A run's folders hold
//! names a sandbox (or a tool) may have changed: a symbolic link planted
//! where dra expects a folder would otherwise make dra itself, unsandboxed,
//! write wherever the link points. Every path here is opened relative to a
//! root descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! where the kernel has it (Linux 5.6+), else one component at a time with
//! `O_NOFOLLOW | O_DIRECTORY`; a link in any component is refused, never
//! followed, and folders are created one `mkdirat` at a time.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

/// Why a path below a root could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BeneathError {
    #[error(
        "refused to write {path}: a symbolic link, a non-folder or a path leaving {root} is in the way; a file the sandbox or a tool can change may not redirect dra's writes"
    )]
    Link { root: PathBuf, path: PathBuf },
    #[error("{path} is not a plain relative path (no `..`, no leading `/`)")]
    NotRelative { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl BeneathError {
    /// Whether the refusal is a security one (a link or an escape), as
    /// opposed to an ordinary I/O failure.
    pub fn is_link(&self) -> bool {
        matches!(self, BeneathError::Link { .. })
    }
}

/// How paths below the root are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// `openat2` when the kernel has it, else [`Resolve::Walk`].
    Auto,
    /// One component at a time with `O_NOFOLLOW` (kernels before 5.6, or
    /// where seccomp refuses `openat2`).
    Walk,
}

/// 0 unknown, 1 openat2 works, 2 it does not.
static OPENAT2: AtomicU8 = AtomicU8::new(0);

/// A folder opened once, below which paths are resolved without links.
#[derive(Debug)]
pub struct Beneath {
    root: OwnedFd,
    path: PathBuf,
    resolve: Resolve,
}

impl Beneath {
    /// Opens `path` (trusted: it comes from the user's configuration) as
    /// the root. Its last component must not be a link either.
    pub fn open(path: &Path) -> Result<Beneath, BeneathError> {
        Beneath::open_with(path, Resolve::Auto)
    }

    pub fn open_with(path: &Path, resolve: Resolve) -> Result<Beneath, BeneathError> {
        let c = cstring(path.as_os_str()).map_err(|source| BeneathError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid NUL-terminated path; the descriptor is owned below.
        let fd = unsafe { libc::open(c.as_ptr(), flags) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(classify(path, path, e));
        }
        Ok(Beneath {
            // SAFETY: `fd` was just opened and is owned by nothing else.
            root: unsafe { OwnedFd::from_raw_fd(fd) },
            path: path.to_path_buf(),
            resolve,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn as_raw_fd(&self) -> i32 {
        self.root.as_raw_fd()
    }

    /// Opens the folder `rel`, creating each missing component (0755).
    /// An empty `rel` is the root itself.
    pub fn create_dirs(&self, rel: &Path) -> Result<OwnedFd, BeneathError> {
        let parts = components(rel)?;
        let mut cur = self.dup_root(rel)?;
        for part in parts {
            let name = cstring(part).map_err(|e| self.io(rel, e))?;
            self.mkdir_in(&cur, &name, rel)?;
            cur = self.open_in(&cur, Path::new(part), dir_flags(), 0, rel)?;
        }
        Ok(cur)
    }

    /// Opens the existing folder `rel` (no link in any component).
    pub fn open_dir(&self, rel: &Path) -> Result<OwnedFd, BeneathError> {
        components(rel)?;
        if rel.as_os_str().is_empty() {
            return self.dup_root(rel);
        }
        self.open_in(&self.root, rel, dir_flags(), 0, rel)
    }

    /// Writes `bytes` to `rel` so that readers see the old content or the
    /// new: a fresh file beside it (created exclusively, never through a
    /// link), fsynced, then renamed over the name (a rename replaces a
    /// link, it never follows one). Missing folders are created.
    pub fn write_atomic(&self, rel: &Path, bytes: &[u8]) -> Result<(), BeneathError> {
        let (dir, name) = split_file(rel)?;
        let dir_fd = self.create_dirs(dir)?;
        let tmp_name = format!(".{}.tmp-{}", name.to_string_lossy(), random_suffix());
        let tmp = cstring(OsStr::new(&tmp_name)).map_err(|e| self.io(rel, e))?;
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a directory descriptor we own and a NUL-terminated name.
        let fd = unsafe { libc::openat(dir_fd.as_raw_fd(), tmp.as_ptr(), flags, 0o644) };
        if fd < 0 {
            return Err(classify(&self.path, rel, io::Error::last_os_error()));
        }
        // SAFETY: just opened, owned by nothing else.
        let mut file = unsafe { File::from_raw_fd(fd) };
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        let target = cstring(name).map_err(|e| self.io(rel, e))?;
        let renamed = written.and_then(|()| {
            // SAFETY: both names are relative to the same owned descriptor.
            let r = unsafe {
                libc::renameat(
                    dir_fd.as_raw_fd(),
                    tmp.as_ptr(),
                    dir_fd.as_raw_fd(),
                    target.as_ptr(),
                )
            };
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
        if let Err(e) = renamed {
            // SAFETY: removes the temp name we created, relative to our descriptor.
            unsafe { libc::unlinkat(dir_fd.as_raw_fd(), tmp.as_ptr(), 0) };
            return Err(self.io(rel, e));
        }
        Ok(())
    }

    /// Makes `rel` a real folder: each component that is a link or not a
    /// folder is removed (a link is unlinked, never followed) and made a
    /// folder. For mount points dra owns inside a folder the sandbox writes.
    pub fn ensure_real_dirs(&self, rel: &Path) -> Result<OwnedFd, BeneathError> {
        let parts = components(rel)?;
        let mut cur = self.dup_root(rel)?;
        for part in parts {
            let name = cstring(part).map_err(|e| self.io(rel, e))?;
            let kind = entry_kind(&cur, &name);
            if kind.is_some_and(|k| k != libc::S_IFDIR) {
                // SAFETY: unlinks a name relative to our descriptor; a link is removed itself.
                if unsafe { libc::unlinkat(cur.as_raw_fd(), name.as_ptr(), 0) } != 0 {
                    return Err(self.io(rel, io::Error::last_os_error()));
                }
            }
            self.mkdir_in(&cur, &name, rel)?;
            cur = self.open_in(&cur, Path::new(part), dir_flags(), 0, rel)?;
        }
        Ok(cur)
    }

    /// Creates the folder `name` in `dir` unless something has that name.
    fn mkdir_in(&self, dir: &OwnedFd, name: &CString, rel: &Path) -> Result<(), BeneathError> {
        // SAFETY: a directory descriptor we own and a NUL-terminated name.
        if unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o755) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EEXIST) {
            Ok(())
        } else {
            Err(self.io(rel, e))
        }
    }

    fn dup_root(&self, rel: &Path) -> Result<OwnedFd, BeneathError> {
        self.root.try_clone().map_err(|e| self.io(rel, e))
    }

    fn io(&self, rel: &Path, source: io::Error) -> BeneathError {
        BeneathError::Io {
            path: self.path.join(rel),
            source,
        }
    }

    /// Opens `rel` below `dir` with `flags`, following no link.
    fn open_in(
        &self,
        dir: &OwnedFd,
        rel: &Path,
        flags: i32,
        mode: u32,
        shown: &Path,
    ) -> Result<OwnedFd, BeneathError> {
        if self.resolve == Resolve::Auto && OPENAT2.load(Ordering::Relaxed) != 2 {
            match openat2(dir, rel, flags, mode) {
                Ok(fd) => {
                    OPENAT2.store(1, Ordering::Relaxed);
                    return Ok(fd);
                }
                Err(e) if unsupported(&e) => OPENAT2.store(2, Ordering::Relaxed),
                Err(e) => return Err(classify(&self.path, shown, e)),
            }
        }
        walk(dir, rel, flags, mode).map_err(|e| classify(&self.path, shown, e))
    }
}

fn dir_flags() -> i32 {
    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC
}

/// The file type of `name` in `dir` (not following a link), if it exists.
fn entry_kind(dir: &OwnedFd, name: &CString) -> Option<libc::mode_t> {
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, NUL-terminated name, pointer to a local stat.
    let r = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    (r == 0).then_some(st.st_mode & libc::S_IFMT)
}

/// The normal components of a relative path; anything else is refused.
fn components(rel: &Path) -> Result<Vec<&OsStr>, BeneathError> {
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(p) => Ok(p),
            _ => Err(BeneathError::NotRelative {
                path: rel.to_path_buf(),
            }),
        })
        .collect()
}

/// A file path's folder and name.
fn split_file(rel: &Path) -> Result<(&Path, &OsStr), BeneathError> {
    let parts = components(rel)?;
    match (rel.parent(), parts.last()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(BeneathError::NotRelative {
            path: rel.to_path_buf(),
        }),
    }
}

fn cstring(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// A link met (`ELOOP`, or `ENOTDIR` where a link to a file stood for a
/// folder under `O_NOFOLLOW`) or an escape (`EXDEV`) is a refusal.
fn classify(root: &Path, rel: &Path, e: io::Error) -> BeneathError {
    match e.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::EXDEV) | Some(libc::ENOTDIR) => BeneathError::Link {
            root: root.to_path_buf(),
            path: root.join(rel),
        },
        _ => BeneathError::Io {
            path: root.join(rel),
            source: e,
        },
    }
}

/// Errors that mean "no openat2 here" rather than "this path is bad".
fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOSYS) | Some(libc::EPERM) | Some(libc::E2BIG) | Some(libc::EINVAL)
    )
}

fn openat2(dir: &OwnedFd, rel: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let c = cstring(rel.as_os_str())?;
    // SAFETY: an all-zero open_how is valid (its fields are plain integers).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.mode = u64::from(mode);
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: openat2 with a valid descriptor, path and open_how of the size given.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            c.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: just opened, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// The fallback: every folder on the way with `O_NOFOLLOW | O_DIRECTORY`,
/// the last component with `O_NOFOLLOW`.
fn walk(dir: &OwnedFd, rel: &Path, flags: i32, mode: u32) -> io::Result<OwnedFd> {
    let parts: Vec<&OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p),
            _ => None,
        })
        .collect();
    let mut cur = dir.try_clone()?;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let f = if last {
            flags | libc::O_NOFOLLOW
        } else {
            dir_flags() | libc::O_NOFOLLOW
        };
        let name = cstring(part)?;
        // SAFETY: a directory descriptor we own and a NUL-terminated name.
        let fd = unsafe { libc::openat(cur.as_raw_fd(), name.as_ptr(), f, mode) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: just opened, owned by nothing else.
        cur = unsafe { OwnedFd::from_raw_fd(fd) };
    }
    Ok(cur)
}

fn random_suffix() -> String {
    let mut bytes = [0u8; 6];
    if getrandom::fill(&mut bytes).is_err() {
        bytes[..4].copy_from_slice(&std::process::id().to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
