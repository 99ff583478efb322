//! The typed settings of code execution (`execute`): which sandbox, and the
//! limits of one call. Resolved once from the settings table.

use std::time::Duration;

use super::settings as keys;
use super::{Config, Secret};

#[derive(Debug, Clone, PartialEq)]
pub struct ExecSettings {
    /// `DRA_EXECUTE`: offer `execute` at all (when a sandbox is available).
    pub enabled: bool,
    /// `LLM_SANDBOX_URL`: the llm-sandbox sidecar; wins over bubblewrap.
    pub sidecar_url: Option<String>,
    pub sidecar_token: Option<Secret>,
    /// `LLM_SANDBOX_NETWORK`: outbound network inside the sandbox.
    pub network: bool,
    pub session_timeout: Duration,
    /// `DRA_EXEC_TIMEOUT`: wall time of one call.
    pub timeout: Duration,
    /// `DRA_EXEC_MEMORY_MB`: address space of one call.
    pub memory_mb: u64,
    /// `DRA_EXEC_WORKSPACE_MB`: most the workspace may hold.
    pub workspace_mb: u64,
}

impl ExecSettings {
    /// No code execution (library callers and tests that want none).
    pub fn off() -> Self {
        ExecSettings {
            enabled: false,
            sidecar_url: None,
            sidecar_token: None,
            network: false,
            session_timeout: Duration::from_secs(900),
            timeout: Duration::from_secs(30),
            memory_mb: 1024,
            workspace_mb: 512,
        }
    }

    pub fn from_config(c: &Config) -> Self {
        let table_secs = |k: &str| match super::table_default(k) {
            Some(super::Value::Seconds(d)) => d,
            _ => Duration::ZERO,
        };
        let table_uint = |k: &str| match super::table_default(k) {
            Some(super::Value::Uint(n)) => n,
            _ => 0,
        };
        ExecSettings {
            enabled: c.bool(keys::EXECUTE),
            sidecar_url: c.text(keys::SANDBOX_URL).map(str::to_string),
            sidecar_token: c.secret(keys::SANDBOX_TOKEN).cloned(),
            network: c.bool(keys::SANDBOX_NETWORK),
            session_timeout: c
                .seconds(keys::SANDBOX_SESSION_TIMEOUT)
                .unwrap_or_else(|| table_secs(keys::SANDBOX_SESSION_TIMEOUT)),
            timeout: c
                .seconds(keys::EXEC_TIMEOUT)
                .unwrap_or_else(|| table_secs(keys::EXEC_TIMEOUT)),
            memory_mb: c
                .uint(keys::EXEC_MEMORY_MB)
                .unwrap_or_else(|| table_uint(keys::EXEC_MEMORY_MB)),
            workspace_mb: c
                .uint(keys::EXEC_WORKSPACE_MB)
                .unwrap_or_else(|| table_uint(keys::EXEC_WORKSPACE_MB)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layers;

    fn exec(env: &[(&str, &str)]) -> ExecSettings {
        let layers = Layers {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Layers::default()
        };
        ExecSettings::from_config(&Config::resolve(&layers).unwrap())
    }

    #[test]
    fn defaults_and_overrides() {
        let d = exec(&[]);
        assert!(d.enabled);
        assert!(!d.network);
        assert_eq!(d.timeout, Duration::from_secs(30));
        assert_eq!(d.memory_mb, 1024);
        assert_eq!(d.session_timeout, Duration::from_secs(900));
        assert!(d.sidecar_url.is_none());
        let s = exec(&[
            ("DRA_EXECUTE", "false"),
            ("DRA_EXEC_TIMEOUT", "5"),
            ("DRA_EXEC_MEMORY_MB", "256"),
            ("LLM_SANDBOX_URL", "http://127.0.0.1:9"),
            ("LLM_SANDBOX_TOKEN", "tok"),
            ("LLM_SANDBOX_NETWORK", "true"),
        ]);
        assert!(!s.enabled && s.network);
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert_eq!(s.memory_mb, 256);
        assert_eq!(s.sidecar_token.as_ref().map(|t| t.expose()), Some("tok"));
        assert!(
            s.sidecar_url
                .is_some_and(|u| u.starts_with("http://127.0.0.1:9"))
        );
    }
}
