use std::io::Write;
use std::path::Path;

/// Writes a file so that readers see the old content or the new, never half:
/// a temp file in the same directory, fsynced, then renamed over the target.
/// When the disk is full, the run's reserve (in this folder or the one
/// above: see [`super::reserve`]) is given back and the write tried again.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match write_once(path, bytes) {
        Err(e) if super::reserve::is_full(&e) => {
            let dir = path.parent().unwrap_or_else(|| Path::new("."));
            let released =
                super::reserve::release(dir) || dir.parent().is_some_and(super::reserve::release);
            if released {
                write_once(path, bytes)
            } else {
                Err(e)
            }
        }
        other => other,
    }
}

fn write_once(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    // Temp files are created 0600; run artifacts are ordinary files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        super::write_atomic(&p, b"one").unwrap();
        super::write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
