//! The runs in a runs directory, read from each run's own files
//! (events.jsonl: the header, the last terminal status and the usage
//! ledger). A run whose files cannot be read is listed as `unknown`, never
//! a failure. `dra runs` and `dra mcp-serve`'s `runs` tool list through here.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::Value;

/// What one run directory says about its run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunInfo {
    pub id: String,
    /// RFC 3339 UTC, from the run header (else the directory name).
    pub started: Option<String>,
    pub question: Option<String>,
    /// `done`, `error`, `incomplete` (no terminal status: running, or
    /// killed) or `unknown` (events.jsonl missing, unreadable or torn
    /// before its header).
    pub state: String,
    pub reason: Option<String>,
    pub sources: Option<u64>,
    pub cost_usd: Option<f64>,
    pub report: Option<PathBuf>,
    pub dir: PathBuf,
}

/// `<UTC stamp>-<8 hex>`: only such directories are runs (and prunable).
pub fn run_dir_name(name: &str) -> Option<(NaiveDateTime, &str)> {
    let (stamp, id) = name.split_once('-')?;
    let at = NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ").ok()?;
    (id.len() == 8 && id.chars().all(|c| c.is_ascii_hexdigit())).then_some((at, id))
}

/// Reads one run directory; never fails.
pub fn read_run(dir: &Path) -> RunInfo {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let from_name = run_dir_name(&name);
    let mut info = RunInfo {
        id: from_name
            .map(|(_, id)| id.to_string())
            .unwrap_or_else(|| name.clone()),
        started: from_name.map(|(at, _)| {
            at.and_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        }),
        question: None,
        state: "unknown".into(),
        reason: None,
        sources: None,
        cost_usd: None,
        report: Some(dir.join("report.md")).filter(|p| p.is_file()),
        dir: dir.to_path_buf(),
    };
    let Ok(file) = std::fs::File::open(dir.join("events.jsonl")) else {
        return info;
    };
    let mut lines = std::io::BufReader::new(file).split(b'\n');
    // Line 1: the header. Without it the run is unknown.
    let header = lines
        .next()
        .and_then(Result::ok)
        .and_then(|l| serde_json::from_slice::<Value>(&l).ok())
        .filter(|h| h["type"] == "run_header");
    let Some(header) = header else {
        return info;
    };
    if let Some(id) = header["run_id"].as_str() {
        info.id = id.to_string();
    }
    if let Some(q) = header["question"].as_str() {
        info.question = Some(q.to_string());
    }
    if let Some(c) = header["created"].as_str() {
        info.started = Some(c.to_string());
    }
    info.state = "incomplete".into();
    for line in lines {
        // A line that cannot be read or parsed (torn by a crash) is skipped.
        let Ok(line) = line else { break };
        let Ok(ev) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        match ev["type"].as_str() {
            Some("status") => {
                let state = ev["state"].as_str().unwrap_or("");
                if matches!(state, "done" | "error") {
                    info.state = state.to_string();
                    info.reason = ev["reason"].as_str().map(String::from);
                }
            }
            Some("usage") => {
                info.sources = ev["sources"].as_u64();
                info.cost_usd = ev["cost_usd"].as_f64();
            }
            _ => {}
        }
    }
    info
}

/// Every run under `runs_dir`, newest first.
pub fn list_runs(runs_dir: &Path) -> std::io::Result<Vec<RunInfo>> {
    let entries = match std::fs::read_dir(runs_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| run_dir_name(&e.file_name().to_string_lossy()).is_some())
        .map(|e| e.path())
        .collect();
    // The directory name starts with the UTC start time.
    dirs.sort();
    dirs.reverse();
    Ok(dirs.iter().map(|d| read_run(d)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stamped_directories_are_runs() {
        assert!(run_dir_name("20261129T175858Z-fcdd5022").is_some());
        assert!(run_dir_name("20261129T175858Z-fcdd502").is_none());
        assert!(run_dir_name("my-notes").is_none());
        assert!(run_dir_name("memory").is_none());
    }

    proptest::proptest! {
        #[test]
        fn any_name_is_a_run_dir_or_not_without_panicking(s in "\\PC{0,24}|[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6,10}") {
            if let Some((_, id)) = run_dir_name(&s) {
                proptest::prop_assert_eq!(id.len(), 8);
            }
        }
    }
}
