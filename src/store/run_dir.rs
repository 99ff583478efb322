use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::write_atomic;

/// A short random id: 8 hex characters.
pub fn new_run_id() -> String {
    let mut bytes = [0u8; 4];
    // A failing OS RNG is near impossible; fall back to the clock rather than fail a run.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = chrono::Utc::now().timestamp_subsec_nanos();
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// [`RunDir::page_text_path`] for a run directory given by path.
pub fn page_text_file(run_dir: &Path, url: &str) -> PathBuf {
    run_dir.join("pages").join(page_text_name(url))
}

/// The file name a page's text is kept under: `<first 16 hex of SHA-256(url)>.txt`.
pub fn page_text_name(url: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = format!("{:x}", Sha256::digest(url.as_bytes()));
    format!("{}.txt", &digest[..16])
}

/// The first line of events.jsonl.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunHeader {
    /// Always `run_header`, so a reader can tell it from an event.
    #[serde(rename = "type")]
    pub kind: String,
    pub protocol_version: u32,
    pub dra_version: String,
    pub run_id: String,
    pub question: String,
    pub created: String,
    /// Effective settings, secrets shown only as `set`.
    pub settings: serde_json::Value,
}

/// One run's directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    pub run_id: String,
}

impl RunDir {
    /// Creates `<runs_dir>/<UTC timestamp>-<id>/`.
    pub fn create(runs_dir: &Path, run_id: &str) -> std::io::Result<RunDir> {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let path = runs_dir.join(format!("{stamp}-{run_id}"));
        std::fs::create_dir_all(&path)?;
        // Writable by its owner only, whatever the umask: `dra resume`
        // refuses run dirs others may write.
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)?.permissions().mode();
            if mode & 0o022 != 0 {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & !0o022))?;
            }
        }
        Ok(RunDir {
            path,
            run_id: run_id.to_string(),
        })
    }

    /// An existing run directory (`dra resume`).
    pub fn open(path: &Path, run_id: &str) -> RunDir {
        RunDir {
            path: path.to_path_buf(),
            run_id: run_id.to_string(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn events_path(&self) -> PathBuf {
        self.path.join("events.jsonl")
    }

    pub fn records_path(&self) -> PathBuf {
        self.path.join("records.jsonl")
    }

    pub fn report_path(&self) -> PathBuf {
        self.path.join("report.md")
    }

    pub fn sources_path(&self) -> PathBuf {
        self.path.join("sources.json")
    }

    pub fn evidence_path(&self) -> PathBuf {
        self.path.join("evidence.json")
    }

    /// Where the cleaned text of an accepted page is kept:
    /// `pages/<first 16 hex of SHA-256(url)>.txt`.
    pub fn page_text_path(&self, url: &str) -> PathBuf {
        page_text_file(&self.path, url)
    }

    /// Stores a page's text (atomically), for audits, evaluation and resume.
    pub fn write_page_text(&self, url: &str, text: &str) -> std::io::Result<()> {
        let path = self.page_text_path(url);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        write_atomic(&path, text.as_bytes())
    }

    /// The run's private workspace: mounted read-write at `/workspace` in
    /// the sandbox. Everything in it is the code's, untrusted: dra never
    /// writes through it (offloads go to `offload/`, shown read-only
    /// inside it). Not created until something needs it.
    pub fn workspace_dir(&self) -> PathBuf {
        self.path.join("workspace")
    }

    pub fn write_json<T: Serialize>(&self, path: &Path, value: &T) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        write_atomic(path, &bytes)
    }

    pub fn write_text(&self, path: &Path, text: &str) -> std::io::Result<()> {
        write_atomic(path, text.as_bytes())
    }
}
