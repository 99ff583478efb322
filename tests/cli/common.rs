use std::path::{Path, PathBuf};

use assert_cmd::Command;
use dra::protocol::Event;
use tempfile::TempDir;

pub const PADMAPAY_QUESTION: &str = "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment.";

/// A test's own home: its own HOME, config, data and cache dirs, working dir and
/// runs dir (not a code sandbox: that is `dra::sandbox::Sandbox`).
pub struct TestHome {
    pub dir: TempDir,
}

impl TestHome {
    pub fn new() -> Self {
        TestHome {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn runs(&self) -> PathBuf {
        self.dir.path().join("runs")
    }

    pub fn dra(&self) -> Command {
        let mut c = Command::from_std(self.std_dra());
        c.timeout(std::time::Duration::from_secs(60));
        c
    }

    /// `dra` as a plain process (to spawn, kill or talk to), isolated the
    /// same way: its own HOME, config and data dirs, none of the caller's
    /// keys, base URL, DRA_ settings or log filter.
    pub fn std_dra(&self) -> std::process::Command {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_dra"));
        self.isolate(&mut c);
        c
    }

    /// Gives a command this home's environment (see [`Self::std_dra`]).
    pub fn isolate(&self, c: &mut std::process::Command) {
        let home = self.dir.path();
        c.current_dir(home)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("NO_COLOR", "1");
        for (k, _) in std::env::vars() {
            if k.starts_with("DRA_")
                || k.ends_with("_API_KEY")
                || k == "OPENAI_BASE_URL"
                || k == "RUST_LOG"
            {
                c.env_remove(k);
            }
        }
    }

    /// Runs `dra -q ask --no-memory --corpus CORPUS QUESTION` offline;
    /// returns the exit code and the run's report.md.
    pub fn ask_offline(&self, corpus: &Path, question: &str) -> (i32, String) {
        let out = self
            .dra()
            .arg("--runs-dir")
            .arg(self.runs())
            .args(["-q", "ask", "--no-memory", "--corpus"])
            .arg(corpus)
            .arg(question)
            .output()
            .unwrap();
        let report = std::fs::read_to_string(self.run_dir().join("report.md")).unwrap();
        (out.status.code().unwrap_or(-1), report)
    }

    /// The only run directory under the runs dir.
    pub fn run_dir(&self) -> PathBuf {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.runs())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "expected one run dir, found {dirs:?}");
        dirs.pop().unwrap()
    }
}

/// A report's `## TITLE` section, up to the next one (empty when absent).
pub fn section<'a>(md: &'a str, title: &str) -> &'a str {
    let head = format!("## {title}\n");
    let Some(at) = md.find(&head) else { return "" };
    let rest = &md[at + head.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Parses JSONL into events, failing on any line that is not one.
pub fn parse_events(text: &str) -> Vec<Event> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<Event>(l).unwrap_or_else(|e| panic!("not an event ({e}): {l}"))
        })
        .collect()
}

/// Every file under a directory (of a run: including pages/).
pub fn run_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(run_files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Serves `app` on a loopback port on `rt`; returns its OpenAI-style base
/// URL ("http://127.0.0.1:PORT/v1").
pub fn serve_on_loopback(rt: &tokio::runtime::Runtime, app: axum::Router) -> String {
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!(
        "http://127.0.0.1:{}/v1",
        listener.local_addr().unwrap().port()
    );
    rt.spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}
