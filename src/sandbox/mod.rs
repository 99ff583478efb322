//! Sandboxed code execution: the [`Sandbox`] port and its two backends,
//! bubblewrap on this machine ([`bwrap`]) and the llm-sandbox HTTP sidecar
//! ([`sidecar`]). Code never runs outside one: when neither is available
//! there is no sandbox, and [`select`] says why and how to get one.

pub mod bwrap;
pub mod sidecar;
pub mod subtree;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::config::ExecSettings;

/// Languages `execute` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    Shell,
}

impl Language {
    /// Reads a model's language name; `None` for languages we do not run.
    pub fn parse(name: &str) -> Option<Language> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "python" | "python3" | "py" => Some(Language::Python),
            "shell" | "sh" | "bash" => Some(Language::Shell),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Shell => "shell",
        }
    }
}

/// The limits of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub timeout: Duration,
    /// Address space (RLIMIT_AS).
    pub memory_bytes: u64,
    /// Processes and threads the code may add (RLIMIT_NPROC above what the
    /// sandbox user already runs).
    pub processes: u64,
    /// Largest file the code may write (RLIMIT_FSIZE).
    pub file_bytes: u64,
    /// Bytes kept of stdout and of stderr each; past it the code is killed.
    pub output_bytes: usize,
    /// Most the workspace may hold; code growing it past that is killed.
    pub workspace_bytes: u64,
}

impl Limits {
    pub fn from_settings(s: &ExecSettings) -> Limits {
        Limits {
            timeout: s.timeout,
            memory_bytes: s.memory_mb.saturating_mul(1024 * 1024),
            workspace_bytes: s.workspace_mb.saturating_mul(1024 * 1024),
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(30),
            memory_bytes: 1024 * 1024 * 1024,
            processes: 64,
            file_bytes: 256 * 1024 * 1024,
            output_bytes: 1024 * 1024,
            workspace_bytes: 512 * 1024 * 1024,
        }
    }
}

/// Why a run was stopped before it ended by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// The wall-time limit passed.
    Timeout,
    /// stdout or stderr passed the output cap.
    OutputCap,
    /// The workspace grew past `DRA_EXEC_WORKSPACE_MB`.
    WorkspaceQuota,
}

/// What one run of code gave back (recorded as it is, so a resumed run
/// does not run the code again).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExecOutcome {
    /// The exit code; `None` when killed by a signal.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub stopped: Option<Stopped>,
    /// Whether stdout or stderr was cut at the cap.
    pub truncated: bool,
    pub duration: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{0} code is not supported by this sandbox")]
    Unsupported(&'static str),
    #[error("cannot start the sandbox: {0}")]
    Start(String),
    #[error(
        "the sandbox sidecar refused the token (401): LLM_SANDBOX_TOKEN must match the sidecar's"
    )]
    Unauthorized,
    #[error("the sandbox sidecar failed: {0}")]
    Sidecar(String),
    #[error("the sandbox sidecar did not answer within {0:?}")]
    TimedOut(Duration),
}

/// A place where code runs isolated from the host.
#[async_trait]
pub trait Sandbox: Send + Sync {
    /// One line: the backend and its isolation, for doctor and events.
    fn describe(&self) -> String;
    async fn run(
        &self,
        code: &str,
        language: Language,
        limits: &Limits,
    ) -> Result<ExecOutcome, SandboxError>;
    /// Ends what the run holds (the sidecar's session). Idempotent.
    async fn close(&self) {}
}

/// A dra-owned host folder the code sees read-only at `inside` (the run's
/// offloaded results at `/workspace/data`): the code can read it but not
/// replace it, so nothing it plants there steers dra's own writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlyMount {
    pub host: std::path::PathBuf,
    pub inside: String,
}

/// No sandbox: why, and what to do to get one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub why: String,
    pub fix: String,
}

/// The run's sandbox: the sidecar when `LLM_SANDBOX_URL` is set (it is
/// reached lazily, on the first call), else bubblewrap if it can create a
/// sandbox here (a trivial command is run to make sure), else none.
/// `workspace` is the host folder mounted read-write at `/workspace`,
/// `read_only` a folder bubblewrap shows read-only inside it.
pub async fn select(
    settings: &ExecSettings,
    workspace: &Path,
    read_only: Option<ReadOnlyMount>,
) -> Result<Arc<dyn Sandbox>, Unavailable> {
    if !settings.enabled {
        return Err(Unavailable {
            why: "code execution is turned off (DRA_EXECUTE=false)".into(),
            fix: "set DRA_EXECUTE=true".into(),
        });
    }
    if let Some(url) = &settings.sidecar_url {
        return sidecar::Sidecar::new(url, settings.sidecar_token.clone(), settings)
            .map(|s| Arc::new(s) as Arc<dyn Sandbox>)
            .map_err(|e| Unavailable {
                why: e.to_string(),
                fix: "check LLM_SANDBOX_URL".into(),
            });
    }
    let mut sandbox = bwrap::Bwrap::locate(workspace, settings.network)?;
    if let Some(m) = read_only {
        sandbox = sandbox.with_read_only(m);
    }
    sandbox.probe().await?;
    Ok(Arc::new(sandbox))
}

/// What `dra doctor` says about code execution: whether it is possible,
/// with which isolation, or why not and how to get it. `ok` is false only
/// when a configured sidecar does not answer (or refuses the token).
pub async fn check(settings: &ExecSettings) -> (bool, String, Option<String>) {
    let limits = Limits::from_settings(settings);
    let limits_text = format!(
        "limits per call: {} s, {} MiB, {} processes, {} bytes of output",
        limits.timeout.as_secs(),
        limits.memory_bytes / (1024 * 1024),
        limits.processes,
        limits.output_bytes
    );
    if !settings.enabled {
        return (
            true,
            "no execute tool: DRA_EXECUTE=false".into(),
            Some("set DRA_EXECUTE=true to let models run code in a sandbox".into()),
        );
    }
    if let Some(url) = &settings.sidecar_url {
        let probed = match sidecar::Sidecar::new(url, settings.sidecar_token.clone(), settings) {
            Ok(s) => s.probe().await.map(|_| s.describe()),
            Err(e) => Err(e),
        };
        return match probed {
            Ok(d) => (true, format!("execute runs in the {d}; {limits_text}"), None),
            Err(e) => (
                false,
                format!("LLM_SANDBOX_URL is set but the sidecar does not answer GET /health: {e}"),
                Some("start the llm-sandbox sidecar, check LLM_SANDBOX_URL, and make LLM_SANDBOX_TOKEN match the sidecar's".into()),
            ),
        };
    }
    let scratch = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            return (
                false,
                format!("no temp dir for the sandbox probe: {e}"),
                None,
            );
        }
    };
    let located = bwrap::Bwrap::locate(&scratch.path().join("workspace"), settings.network);
    let outcome = match located {
        Ok(b) => b.probe().await.map(|_| b.describe_isolation()),
        Err(u) => Err(u),
    };
    match outcome {
        Ok(d) => (true, format!("execute runs in {d}; {limits_text}"), None),
        Err(u) => (true, format!("no execute tool: {}", u.why), Some(u.fix)),
    }
}

/// Keeps the first `cap` bytes of `bytes` as text (a cut UTF-8 sequence at
/// the end is dropped, invalid bytes become U+FFFD).
pub fn text_of(bytes: &[u8], cap: usize) -> String {
    let kept = &bytes[..bytes.len().min(cap)];
    match std::str::from_utf8(kept) {
        Ok(s) => s.to_string(),
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&kept[..e.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(kept).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn languages_parse_with_aliases() {
        assert_eq!(Language::parse("Python3"), Some(Language::Python));
        assert_eq!(Language::parse(""), Some(Language::Python));
        assert_eq!(Language::parse(" bash "), Some(Language::Shell));
        assert_eq!(Language::parse("javascript"), None);
    }

    #[test]
    fn text_of_drops_a_cut_character_only_at_the_end() {
        assert_eq!(text_of("héllo".as_bytes(), 2), "h");
        assert_eq!(text_of("héllo".as_bytes(), 3), "hé");
        assert_eq!(text_of(b"a\xffb", 10), "a\u{fffd}b");
    }

    proptest! {
        #[test]
        fn text_of_is_a_prefix_within_the_cap(s in "\\PC{0,40}", cap in 0usize..60) {
            let t = text_of(s.as_bytes(), cap);
            prop_assert!(t.len() <= cap);
            prop_assert!(s.starts_with(&t));
        }

        #[test]
        fn language_parse_never_panics(s in ".{0,20}") {
            let _ = Language::parse(&s);
        }
    }
}
