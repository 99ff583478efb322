//! Room kept for a run's last words. A run whose disk fills (a sandbox
//! writing in a loop, another program) must still write its terminal
//! status and its salvaged report: each run dir holds a preallocated
//! `.disk-reserve` file, given back to the file system the first time a
//! write of the run fails for want of space, and removed when the run's
//! writer ends.

use std::io;
use std::path::Path;

/// The reserve's name in the run dir.
pub const FILE: &str = ".disk-reserve";

/// Enough for the terminal events, report.md, sources.json and
/// evidence.json of a large run.
pub const BYTES: u64 = 8 * 1024 * 1024;

/// Preallocates the reserve in `run_dir` (best effort: a file system that
/// cannot allocate ahead gets none, and a run then fails as before).
pub fn make(run_dir: &Path) {
    use std::os::fd::AsRawFd;
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(run_dir.join(FILE))
    else {
        return;
    };
    // SAFETY: posix_fallocate on a descriptor we own; failure is harmless.
    let r = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, BYTES as libc::off_t) };
    if r != 0 {
        drop(file);
        let _ = std::fs::remove_file(run_dir.join(FILE));
    }
}

/// Gives the reserve back; whether there was one.
pub fn release(run_dir: &Path) -> bool {
    let released = std::fs::remove_file(run_dir.join(FILE)).is_ok();
    if released {
        tracing::warn!(
            "the disk of {} is full: the run's reserve was released so it can still end and write its report",
            run_dir.display()
        );
    }
    released
}

/// Whether a write failed for want of space (or of quota).
pub fn is_full(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
}

/// Writes all of `bytes`; when the disk is full, releases the reserve of
/// `run_dir` once and goes on from where the write stopped.
pub fn write_all(file: &mut std::fs::File, bytes: &[u8], run_dir: &Path) -> io::Result<()> {
    use std::io::Write;
    let mut done = 0;
    let mut released = false;
    while done < bytes.len() {
        match file.write(&bytes[done..]) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if is_full(&e) && !released => {
                released = true;
                if !release(run_dir) {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_takes_room_and_gives_it_back_once() {
        let dir = tempfile::tempdir().unwrap();
        make(dir.path());
        let meta = std::fs::metadata(dir.path().join(FILE)).unwrap();
        assert_eq!(meta.len(), BYTES);
        assert!(release(dir.path()));
        assert!(!release(dir.path()));
        assert!(is_full(&io::Error::from_raw_os_error(libc::ENOSPC)));
        assert!(!is_full(&io::Error::from_raw_os_error(libc::EACCES)));
    }
}
