//! Walking a corpus folder so that the walk always ends: symbolic links are
//! followed, but every directory is entered once (by device and inode), the
//! depth is bounded, and dra's own output (the runs folder, and any folder
//! holding a run's files) is never read back as evidence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Deeper folders than this are not read.
pub const MAX_DEPTH: usize = 32;

/// The files of a folder, sorted by path, and what was skipped on the way.
#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
    /// Paths that were skipped because they could not be walked (one warning
    /// each, also in `warnings`).
    pub unreadable: usize,
}

/// The files a dra run writes; a folder holding `events.jsonl` and one of
/// the others is a run folder.
const RUN_FILES: &[&str] = &[
    "report.md",
    "records.jsonl",
    "sources.json",
    "evidence.json",
];

/// Whether `dir` holds the files of a dra run.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join("events.jsonl").is_file() && RUN_FILES.iter().any(|f| dir.join(f).is_file())
}

#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

#[cfg(unix)]
fn dir_id(path: &Path) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_id(path: &Path) -> Option<DirId> {
    std::fs::canonicalize(path).ok()
}

/// Walks `root`, skipping hidden entries, the folders in `skip` (dra's runs
/// folder) and run folders. Never fails: what cannot be walked is a warning.
pub fn walk(root: &Path, skip: &[PathBuf]) -> Walked {
    let skip_ids: HashSet<DirId> = skip.iter().filter_map(|p| dir_id(p)).collect();
    let mut seen: HashSet<DirId> = HashSet::new();
    let mut run_dirs: Vec<PathBuf> = Vec::new();
    let mut out = Walked::default();
    let mut it = WalkDir::new(root)
        .follow_links(true)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter();
    while let Some(next) = it.next() {
        let entry = match next {
            Ok(entry) => entry,
            Err(e) => {
                out.unreadable += 1;
                out.warnings.push(walk_error(&e));
                continue;
            }
        };
        let hidden = entry.depth() > 0 && entry.file_name().to_string_lossy().starts_with('.');
        if !entry.file_type().is_dir() {
            if !hidden {
                out.files.push(entry.into_path());
            }
            continue;
        }
        if hidden {
            it.skip_current_dir();
            continue;
        }
        let path = entry.path();
        if let Some(id) = dir_id(path) {
            if skip_ids.contains(&id) {
                out.warnings.push(format!(
                    "skipped {}: dra's runs folder (its reports are not evidence)",
                    path.display()
                ));
                it.skip_current_dir();
                continue;
            }
            if !seen.insert(id) {
                out.warnings.push(format!(
                    "skipped {}: the same folder as one already read (a link)",
                    path.display()
                ));
                it.skip_current_dir();
                continue;
            }
        }
        if is_run_dir(path) {
            run_dirs.push(path.to_path_buf());
            it.skip_current_dir();
        }
    }
    if !run_dirs.is_empty() {
        let shown: Vec<String> = run_dirs
            .iter()
            .take(3)
            .map(|p| p.display().to_string())
            .collect();
        let more = run_dirs.len().saturating_sub(shown.len());
        out.warnings.push(format!(
            "skipped {} dra run folder{} (a run's report is not evidence): {}{}",
            run_dirs.len(),
            if run_dirs.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    out.files.sort();
    out
}

fn walk_error(e: &walkdir::Error) -> String {
    let path = e
        .path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "a path".into());
    if let Some(ancestor) = e.loop_ancestor() {
        return format!(
            "skipped {path}: a symbolic link loop back to {}",
            ancestor.display()
        );
    }
    match e.io_error() {
        Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
            format!("skipped {path}: a broken symbolic link")
        }
        Some(io) => format!("skipped {path}: {}", super::loaded::io_reason(io)),
        None => format!("skipped {path}: cannot be read"),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_symlink_loop_ends_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.md"), "# A\nText.").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/b.md"), "# B\nText.").unwrap();
        symlink(".", root.join("dot")).unwrap();
        symlink("..", root.join("sub/up")).unwrap();
        symlink("sub", root.join("again")).unwrap();
        symlink("missing.md", root.join("broken.md")).unwrap();
        let w = walk(root, &[]);
        let names: Vec<String> = w
            .files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert!(names.contains(&"a.md".to_string()), "{names:?}");
        assert!(
            names.iter().filter(|n| n.ends_with("b.md")).count() == 1,
            "{names:?}"
        );
        let all = w.warnings.join("\n");
        assert!(all.contains("loop"), "{all}");
        assert!(
            all.contains("broken.md") && all.contains("broken symbolic link"),
            "{all}"
        );
    }

    #[test]
    fn run_folders_and_the_runs_folder_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.md"), "# A\nText.").unwrap();
        let run = root.join("old/run-1");
        std::fs::create_dir_all(run.join("pages")).unwrap();
        std::fs::write(run.join("events.jsonl"), "{}").unwrap();
        std::fs::write(run.join("report.md"), "# Report").unwrap();
        std::fs::write(run.join("pages/x.txt"), "page").unwrap();
        let runs = root.join("runs");
        std::fs::create_dir_all(runs.join("partial")).unwrap();
        std::fs::write(runs.join("partial/notes.md"), "# N").unwrap();
        let w = walk(root, std::slice::from_ref(&runs));
        assert_eq!(w.files, vec![root.join("a.md")]);
        let all = w.warnings.join("\n");
        assert!(
            all.contains("runs folder") && all.contains("run folder"),
            "{all}"
        );
    }
}
