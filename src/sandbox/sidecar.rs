//! The llm-sandbox HTTP sidecar (`LLM_SANDBOX_URL`, `LLM_SANDBOX_TOKEN`):
//! one session per run, created lazily on the first call, reused (so
//! `/workspace` persists between calls), and deleted when the run ends.
//!
//! The seeds do not pin the sidecar's HTTP API, so dra speaks this small
//! one (documented in the README):
//! - `POST {url}/sessions` `{language, timeout, network}` → `{id}`
//! - `POST {url}/sessions/{id}/execute` `{code, language, timeout}` →
//!   `{stdout, stderr, exit_code}`
//! - `DELETE {url}/sessions/{id}`
//!
//! every request with `Authorization: Bearer <LLM_SANDBOX_TOKEN>` when set;
//! a 401 means the tokens differ.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Mutex;

use super::{ExecOutcome, Language, Limits, Sandbox, SandboxError, Stopped, text_of};
use crate::config::{ExecSettings, Secret};

pub struct Sidecar {
    base: String,
    token: Option<Secret>,
    network: bool,
    session_timeout: Duration,
    client: reqwest::Client,
    session: Mutex<Option<String>>,
}

#[derive(Deserialize)]
struct Created {
    #[serde(alias = "session_id")]
    id: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Executed {
    stdout: String,
    stderr: String,
    #[serde(alias = "returncode")]
    exit_code: Option<i32>,
    timed_out: bool,
}

impl Sidecar {
    pub fn new(
        url: &str,
        token: Option<Secret>,
        settings: &ExecSettings,
    ) -> Result<Sidecar, SandboxError> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| SandboxError::Sidecar(e.to_string()))?;
        Ok(Sidecar {
            base: url.trim_end_matches('/').to_string(),
            token,
            network: settings.network,
            session_timeout: settings.session_timeout,
            client,
            session: Mutex::new(None),
        })
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let rb = self.client.request(method, format!("{}{path}", self.base));
        match &self.token {
            Some(t) => rb.bearer_auth(t.expose()),
            None => rb,
        }
    }

    async fn send(
        &self,
        rb: reqwest::RequestBuilder,
        timeout: Duration,
    ) -> Result<reqwest::Response, SandboxError> {
        let resp = rb.timeout(timeout).send().await.map_err(|e| {
            if e.is_timeout() {
                SandboxError::TimedOut(timeout)
            } else {
                SandboxError::Sidecar(format!("{}: {e}", self.base))
            }
        })?;
        match resp.status() {
            s if s == reqwest::StatusCode::UNAUTHORIZED => Err(SandboxError::Unauthorized),
            s if s.is_success() => Ok(resp),
            s => {
                let body = resp.text().await.unwrap_or_default();
                Err(SandboxError::Sidecar(format!(
                    "HTTP {s}: {}",
                    body.chars().take(300).collect::<String>()
                )))
            }
        }
    }

    /// Whether the sidecar answers `GET /health` with this token.
    pub async fn probe(&self) -> Result<(), SandboxError> {
        let rb = self.request(reqwest::Method::GET, "/health");
        self.send(rb, Duration::from_secs(5)).await.map(|_| ())
    }

    /// The run's session, created on first use.
    async fn session(&self, language: Language) -> Result<String, SandboxError> {
        let mut guard = self.session.lock().await;
        if let Some(id) = guard.as_ref() {
            return Ok(id.clone());
        }
        let rb = self
            .request(reqwest::Method::POST, "/sessions")
            .json(&json!({
                "language": language.as_str(),
                "timeout": self.session_timeout.as_secs(),
                "network": self.network,
            }));
        let created: Created = self
            .send(rb, Duration::from_secs(120))
            .await?
            .json()
            .await
            .map_err(|e| SandboxError::Sidecar(format!("bad session answer: {e}")))?;
        if created.id.is_empty()
            || !created
                .id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(SandboxError::Sidecar(
                "the session id is not a plain id".into(),
            ));
        }
        *guard = Some(created.id.clone());
        Ok(created.id)
    }
}

#[async_trait]
impl Sandbox for Sidecar {
    fn describe(&self) -> String {
        format!(
            "llm-sandbox sidecar at {} (isolation is the sidecar's; network {} requested)",
            self.base,
            if self.network { "on" } else { "off" }
        )
    }

    async fn run(
        &self,
        code: &str,
        language: Language,
        limits: &Limits,
    ) -> Result<ExecOutcome, SandboxError> {
        let started = Instant::now();
        let id = self.session(language).await?;
        let rb = self
            .request(reqwest::Method::POST, &format!("/sessions/{id}/execute"))
            .json(&json!({
                "code": code,
                "language": language.as_str(),
                "timeout": limits.timeout.as_secs(),
            }));
        // The sidecar enforces the timeout; allow it a margin to answer.
        let resp = match self
            .send(rb, limits.timeout + Duration::from_secs(10))
            .await
        {
            Err(SandboxError::TimedOut(_)) => {
                return Ok(ExecOutcome {
                    exit_code: None,
                    signal: None,
                    stdout: String::new(),
                    stderr: String::new(),
                    stopped: Some(Stopped::Timeout),
                    truncated: false,
                    duration: started.elapsed(),
                });
            }
            other => other?,
        };
        let body = resp
            .bytes()
            .await
            .map_err(|e| SandboxError::Sidecar(e.to_string()))?;
        let got: Executed = serde_json::from_slice(&body)
            .map_err(|e| SandboxError::Sidecar(format!("bad execute answer: {e}")))?;
        let cap = limits.output_bytes;
        let truncated = got.stdout.len() > cap || got.stderr.len() > cap;
        Ok(ExecOutcome {
            exit_code: got.exit_code,
            signal: None,
            stdout: text_of(got.stdout.as_bytes(), cap),
            stderr: text_of(got.stderr.as_bytes(), cap),
            stopped: if got.timed_out {
                Some(Stopped::Timeout)
            } else {
                None
            },
            truncated,
            duration: started.elapsed(),
        })
    }

    async fn close(&self) {
        let id = self.session.lock().await.take();
        if let Some(id) = id {
            let rb = self.request(reqwest::Method::DELETE, &format!("/sessions/{id}"));
            if let Err(e) = self.send(rb, Duration::from_secs(10)).await {
                tracing::warn!("could not delete sandbox session {id}: {e}");
            }
        }
    }
}
