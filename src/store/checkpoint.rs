//! What `dra resume` reads back from a run directory, and the lock that
//! keeps two processes off one run.
//!
//! events.jsonl and records.jsonl are appended a line at a time by the one
//! writer task; a `kill -9` can leave the last line torn. Reading them back
//! stops at the first line that is not whole JSON: everything before it is
//! the last good checkpoint, the rest is cut off (with a warning) so that
//! the resumed run appends after a good line.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The good lines of a JSONL file, and what was cut off.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    pub lines: Vec<Value>,
    /// Bytes of the file up to the end of the last good line.
    pub good_len: u64,
    /// Set when a torn or corrupt tail was found (a warning for the user).
    pub warning: Option<String>,
}

/// Splits JSONL text into its good lines: every newline-terminated line
/// that parses as JSON, up to the first one that does not (or a last line
/// with no newline, which a crash can leave half written).
pub fn recover_jsonl(name: &str, bytes: &[u8]) -> Recovered {
    let mut out = Recovered::default();
    let mut pos = 0usize;
    let mut line_no = 0usize;
    while pos < bytes.len() {
        line_no += 1;
        let Some(nl) = bytes[pos..].iter().position(|&b| b == b'\n') else {
            out.warning = Some(format!(
                "{name}: line {line_no} is torn (no line end; the run was stopped while writing it); resuming from line {}",
                line_no - 1
            ));
            return out;
        };
        let line = &bytes[pos..pos + nl];
        let blank = line.iter().all(u8::is_ascii_whitespace);
        if !blank {
            match serde_json::from_slice::<Value>(line) {
                Ok(v) => out.lines.push(v),
                Err(_) => {
                    let rest = bytes[pos..].iter().filter(|&&b| b == b'\n').count();
                    out.warning = Some(format!(
                        "{name}: line {line_no} is not valid JSON; it and the {} line(s) after it are dropped, resuming from line {}",
                        rest.saturating_sub(1),
                        line_no - 1
                    ));
                    return out;
                }
            }
        }
        pos += nl + 1;
        out.good_len = pos as u64;
    }
    out
}

/// Reads a JSONL file without changing it: its good lines, and what was
/// wrong with a torn or corrupt tail. A missing file is empty.
pub fn read_file(path: &Path) -> std::io::Result<Recovered> {
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut f) => {
            f.read_to_end(&mut bytes)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recovered::default()),
        Err(e) => return Err(e),
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(recover_jsonl(&name, &bytes))
}

/// Reads a JSONL file and cuts a torn or corrupt tail off it, so appends
/// continue after the last good line. A missing file is empty.
pub fn recover_file(path: &Path) -> std::io::Result<Recovered> {
    let rec = read_file(path)?;
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    if rec.good_len < len {
        let f = OpenOptions::new().write(true).open(path)?;
        f.set_len(rec.good_len)?;
        f.sync_all()?;
    }
    Ok(rec)
}

/// Why a run directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("the run {dir} is in use by another dra process{}", holder.as_deref().map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Busy {
        dir: PathBuf,
        holder: Option<String>,
    },
    #[error("cannot lock the run {dir}: {message}")]
    Io { dir: PathBuf, message: String },
}

/// An exclusive lock on a run directory (`<run>/lock`), held by the process
/// that runs or resumes it and released when dropped (or when the process
/// dies, however it dies).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    pub const FILE: &'static str = "lock";

    pub fn acquire(dir: &Path) -> Result<RunLock, LockError> {
        let io = |e: std::io::Error| LockError::Io {
            dir: dir.to_path_buf(),
            message: e.to_string(),
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(Self::FILE))
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim().to_string();
                return Err(LockError::Busy {
                    dir: dir.to_path_buf(),
                    holder: (!holder.is_empty()).then_some(holder),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(RunLock { _file: file })
    }
}

/// Why `RUN` named no single run.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error("no run matches {spec:?} in {dir}{}", recent_list(recent))]
    NoMatch {
        spec: String,
        dir: PathBuf,
        recent: Vec<String>,
    },
    #[error("{spec:?} matches {} runs: {}; give more of the id", matches.len(), matches.join(", "))]
    Ambiguous { spec: String, matches: Vec<String> },
    #[error("no runs in {0}")]
    NoRuns(PathBuf),
}

fn recent_list(recent: &[String]) -> String {
    if recent.is_empty() {
        String::new()
    } else {
        format!(" (most recent: {})", recent.join(", "))
    }
}

/// The run directories under `runs_dir` (those holding events.jsonl),
/// oldest first: their names start with a UTC timestamp.
pub fn list_runs(runs_dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(runs_dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("events.jsonl").is_file())
                .collect()
        })
        .unwrap_or_default();
    // Oldest first: by the second in the directory's name, then (two runs
    // started in the same second) by when each one's log was created.
    let born = |p: &PathBuf| {
        std::fs::metadata(p.join("events.jsonl"))
            .and_then(|m| m.created().or_else(|_| m.modified()))
            .ok()
    };
    let stamp = |p: &PathBuf| {
        p.file_name()
            .map(|n| {
                n.to_string_lossy()
                    .split('-')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default()
    };
    dirs.sort_by_cached_key(|p| (stamp(p), born(p), p.clone()));
    dirs
}

/// Finds a run by path, directory name, run id or unique id prefix, or
/// (with `None`) the most recent run.
pub fn find_run(runs_dir: &Path, spec: Option<&str>) -> Result<PathBuf, FindError> {
    let runs = list_runs(runs_dir);
    let Some(spec) = spec.map(str::trim) else {
        return runs
            .last()
            .cloned()
            .ok_or_else(|| FindError::NoRuns(runs_dir.to_path_buf()));
    };
    let as_path = Path::new(spec);
    if as_path.join("events.jsonl").is_file() {
        return Ok(as_path.to_path_buf());
    }
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let matches: Vec<&PathBuf> = runs
        .iter()
        .filter(|p| {
            let n = name(p);
            let id = n.rsplit('-').next().unwrap_or("");
            !spec.is_empty() && (n == spec || n.starts_with(spec) || id.starts_with(spec))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(FindError::NoMatch {
            spec: spec.to_string(),
            dir: runs_dir.to_path_buf(),
            recent: runs.iter().rev().take(5).map(name).collect(),
        }),
        many => Err(FindError::Ambiguous {
            spec: spec.to_string(),
            matches: many.iter().map(|p| name(p)).collect(),
        }),
    }
}

/// Answers from a file: a JSON list of strings, or one answer per line (an
/// empty line is an empty answer, "no preference"; trailing empty lines
/// are dropped).
pub fn parse_answers(text: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.starts_with('[') {
        return serde_json::from_str::<Vec<String>>(trimmed)
            .map_err(|e| format!("not a JSON list of strings: {e}"));
    }
    let mut answers: Vec<String> = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    while answers.last().is_some_and(String::is_empty) {
        answers.pop();
    }
    if answers.is_empty() {
        return Err("no answers in it".into());
    }
    Ok(answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn torn_and_corrupt_tails_are_cut_with_a_warning() {
        let r = recover_jsonl("e", b"{\"a\":1}\n{\"b\":2}\n{\"c\":");
        assert_eq!(r.lines.len(), 2);
        assert_eq!(r.good_len, 16);
        assert!(r.warning.unwrap().contains("line 3 is torn"));
        let r = recover_jsonl("e", b"{\"a\":1}\nnot json\n{\"b\":2}\n");
        assert_eq!(r.lines.len(), 1);
        assert_eq!(r.good_len, 8);
        assert!(r.warning.unwrap().contains("line 2 is not valid JSON"));
        let r = recover_jsonl("e", b"{\"a\":1}\n\n{\"b\":2}\n");
        assert_eq!((r.lines.len(), r.good_len, r.warning), (2, 17, None));
    }

    #[test]
    fn recover_file_truncates_to_the_last_good_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("records.jsonl");
        std::fs::write(&p, b"{\"a\":1}\n{\"a\":2}\n{\"a\"").unwrap();
        let r = recover_file(&p).unwrap();
        assert_eq!(r.lines.len(), 2);
        assert_eq!(std::fs::read(&p).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        assert!(
            recover_file(&dir.path().join("none"))
                .unwrap()
                .lines
                .is_empty()
        );
    }

    #[test]
    fn a_second_lock_on_a_run_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let held = RunLock::acquire(dir.path()).unwrap();
        let e = RunLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(e.contains("in use by another dra process"), "{e}");
        assert!(e.contains(&std::process::id().to_string()), "{e}");
        drop(held);
        assert!(RunLock::acquire(dir.path()).is_ok());
    }

    #[test]
    fn runs_are_found_by_id_prefix_name_path_or_last() {
        let dir = tempfile::tempdir().unwrap();
        for n in [
            "20261201T100000Z-abcd1234",
            "20261201T110000Z-abef5678",
            "notarun",
        ] {
            std::fs::create_dir_all(dir.path().join(n)).unwrap();
            if n != "notarun" {
                std::fs::write(dir.path().join(n).join("events.jsonl"), "").unwrap();
            }
        }
        let runs = dir.path();
        assert!(
            find_run(runs, Some("abcd"))
                .unwrap()
                .ends_with("20261201T100000Z-abcd1234")
        );
        assert!(
            find_run(runs, None)
                .unwrap()
                .ends_with("20261201T110000Z-abef5678")
        );
        let e = find_run(runs, Some("ab")).unwrap_err().to_string();
        assert!(
            e.contains("matches 2 runs") && e.contains("abcd1234") && e.contains("abef5678"),
            "{e}"
        );
        let e = find_run(runs, Some("zz")).unwrap_err().to_string();
        assert!(
            e.contains("no run matches") && e.contains("abef5678"),
            "{e}"
        );
        let p = runs.join("20261201T100000Z-abcd1234");
        assert_eq!(find_run(runs, Some(p.to_str().unwrap())).unwrap(), p);
        assert!(find_run(&runs.join("none"), None).is_err());
    }

    #[test]
    fn answers_come_as_json_or_lines() {
        assert_eq!(parse_answers("[\"a\", \"\"]").unwrap(), vec!["a", ""]);
        assert_eq!(
            parse_answers("India\n\nlast year\n\n").unwrap(),
            vec!["India", "", "last year"]
        );
        assert!(parse_answers("[1]").is_err());
        assert!(parse_answers("\n\n").is_err());
    }

    proptest! {
        #[test]
        fn answers_round_trip_through_both_forms(
            answers in proptest::collection::vec("[^\\n\\r\\[\u{feff}]{0,12}", 1..5)
        ) {
            let answers: Vec<String> = answers.iter().map(|a| a.trim().to_string()).collect();
            prop_assume!(!answers.iter().all(String::is_empty));
            let json = serde_json::to_string(&answers).unwrap();
            prop_assert_eq!(parse_answers(&json).unwrap(), answers.clone());
            let mut expected = answers.clone();
            while expected.last().is_some_and(String::is_empty) { expected.pop(); }
            let lines = answers.join("\n");
            // A first answer starting with '[' would read as JSON; the strategy excludes it.
            prop_assert_eq!(parse_answers(&lines).unwrap(), expected);
        }

        #[test]
        fn any_prefix_of_good_lines_recovers_to_a_line_boundary(
            values in proptest::collection::vec(any::<i64>(), 0..8),
            cut in any::<proptest::sample::Index>(),
        ) {
            let text: String = values.iter().map(|v| format!("{{\"v\":{v}}}\n")).collect();
            let bytes = text.as_bytes();
            let cut = if bytes.is_empty() { 0 } else { cut.index(bytes.len() + 1) };
            let r = recover_jsonl("x", &bytes[..cut]);
            // Never more lines than were whole, always ending on a line end.
            let whole = bytes[..cut].iter().filter(|&&b| b == b'\n').count();
            prop_assert_eq!(r.lines.len(), whole);
            prop_assert!(r.good_len as usize <= cut);
            prop_assert!(r.good_len == 0 || bytes[r.good_len as usize - 1] == b'\n');
            prop_assert_eq!(r.warning.is_some(), r.good_len as usize != cut);
            for (line, v) in r.lines.iter().zip(&values) {
                prop_assert_eq!(line["v"].as_i64(), Some(*v));
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let r = recover_jsonl("x", &bytes);
            prop_assert!(r.good_len as usize <= bytes.len());
        }
    }
}
