//! The typed settings the code reads. [`Config`] keeps every value with its
//! origin for `dra doctor`; [`Settings`] is resolved from it once, and the
//! rest of dra reads only this. Defaults live in one place, the settings
//! table ([`super::SETTINGS`]); the few that depend on the model tier come
//! from the tier.

use std::path::PathBuf;
use std::time::Duration;

use chrono::NaiveDate;

use super::settings as keys;
use super::{Config, ModelTier, Secret, Value, tiers};

/// Hard ceilings of one run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Limits {
    pub max_tool_calls: u64,
    pub max_total_tokens: u64,
    pub max_usd: f64,
    #[serde(serialize_with = "secs")]
    pub deadline: Duration,
    /// Orchestrator steps (loops, not tool calls).
    pub max_steps: u64,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Default for Limits {
    /// The table's defaults, with the default tier's dollar cap.
    fn default() -> Self {
        Limits {
            max_tool_calls: table_uint(keys::MAX_TOOL_CALLS),
            max_total_tokens: table_uint(keys::MAX_TOTAL_TOKENS),
            max_usd: tiers::default_tier().default_max_usd,
            deadline: table_seconds(keys::DEADLINE),
            max_steps: table_uint(keys::RECURSION_LIMIT),
        }
    }
}

/// The model client's settings (the endpoint and tier live on [`Settings`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    pub request_timeout: Duration,
    pub max_retries: u32,
    pub streaming: bool,
    pub streaming_denylist: Vec<String>,
    pub tool_protocol: ToolProtocol,
}

/// How tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolProtocol {
    /// The API's `tools` field.
    Native,
    /// The JSON envelope protocol, in plain text.
    Envelope,
    /// Native until the endpoint rejects `tools`, then the envelope.
    Auto,
}

impl ToolProtocol {
    /// The protocol a `DRA_TOOL_PROTOCOL` value names (the table admits
    /// only these three).
    pub fn from_name(name: &str) -> Option<ToolProtocol> {
        match name.trim().to_ascii_lowercase().as_str() {
            "native" => Some(ToolProtocol::Native),
            "envelope" => Some(ToolProtocol::Envelope),
            "auto" => Some(ToolProtocol::Auto),
            _ => None,
        }
    }
}

/// What web search backends read: the values of [`keys::SEARCH_KEYS`]
/// that are set (which backend they turn on is `web::search::BACKENDS`).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchSettings {
    values: std::collections::BTreeMap<&'static str, Value>,
    /// Results per `web_search` call.
    pub max_results: usize,
}

impl SearchSettings {
    /// Whether a backend's setting is set (defaults count).
    pub fn is_set(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        match self.values.get(key) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn secret(&self, key: &str) -> Option<&Secret> {
        match self.values.get(key) {
            Some(Value::Secret(s)) => Some(s),
            _ => None,
        }
    }
}

/// The page fetcher.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchSettings {
    pub allowlist: Vec<String>,
    pub max_bytes: u64,
    pub timeout: Duration,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            allowlist: Vec::new(),
            max_bytes: table_uint(keys::FETCH_MAX_BYTES),
            timeout: table_seconds(keys::FETCH_TIMEOUT),
        }
    }
}

/// Caps on reading a local corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSettings {
    pub max_file_bytes: u64,
    pub max_document_bytes: u64,
    pub max_total_bytes: u64,
    /// The sentence-transformers folder dense search embeds with (`DRA_EMBED_MODEL`).
    pub embed_model: Option<std::path::PathBuf>,
    /// The corpus runs read when given neither `--corpus` nor `--web` (`DRA_CORPUS`).
    pub default: Option<std::path::PathBuf>,
    /// The type of corpus files (`file://` documents) that declare none
    /// (`DRA_CORPUS_SOURCE_TYPE`, `--source-type`).
    pub source_type: Option<crate::document::SourceType>,
}

/// `dra mcp-serve`'s settings.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The research tool's description (`DRA_AGENT_DESCRIPTION`).
    pub agent_description: String,
    /// The bearer token HTTP clients must send.
    pub token: Option<Secret>,
}

/// Drop-in custom tools (`DRA_CUSTOM_TOOLS_DIR`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomToolsSettings {
    /// The folder of tools; `None` when the default `./custom_tools` is
    /// absent (then there are none, silently).
    pub dir: Option<PathBuf>,
    /// Whether the user named the folder (a missing one is then reported).
    pub explicit: bool,
    /// `DRA_CUSTOM_TOOL_TIMEOUT` per call.
    pub timeout: Duration,
}

impl Default for CustomToolsSettings {
    /// No folder: no custom tools.
    fn default() -> Self {
        CustomToolsSettings {
            dir: None,
            explicit: false,
            timeout: table_seconds(keys::CUSTOM_TOOL_TIMEOUT),
        }
    }
}

/// Large tool results (MCP and custom tools): over either bound a result
/// is offloaded to a file with a stub for the model, or cut when
/// offloading is off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadSettings {
    pub max_chars: usize,
    pub max_rows: usize,
    /// `DRA_OFFLOAD_RESULTS`: false turns the bounds into truncation caps.
    pub enabled: bool,
    /// `DRA_OFFLOAD_DIR`, as the sandbox sees the run's workspace.
    pub dir: String,
}

impl Default for OffloadSettings {
    fn default() -> Self {
        OffloadSettings {
            max_chars: table_usize(keys::MAX_RESULT_CHARS),
            max_rows: table_usize(keys::MAX_RESULT_ROWS),
            enabled: true,
            dir: table_text(keys::OFFLOAD_DIR),
        }
    }
}

/// Everything dra reads from configuration, typed.
#[derive(Debug, Clone)]
pub struct Settings {
    pub api_key: Option<Secret>,
    pub base_url: String,
    pub allowed_base_urls: Vec<String>,
    pub tier: &'static ModelTier,
    pub model: ModelSettings,
    pub search: SearchSettings,
    pub fetch: FetchSettings,
    pub corpus: CorpusSettings,
    pub limits: Limits,
    pub max_parallel: usize,
    /// How often run files are fsynced (group commit).
    pub sync: crate::store::GroupCommit,
    pub offline: bool,
    pub require_tool_call: bool,
    pub memory: bool,
    /// Ask clarifying questions when the request is ambiguous.
    pub clarify: bool,
    pub runs_dir: PathBuf,
    /// The inline domain prompt, unless a file named at a higher layer
    /// (`--domain-prompt @FILE` over `DRA_DOMAIN_PROMPT` in the environment)
    /// overrides it; at the same layer the inline text wins.
    pub domain_prompt: Option<String>,
    pub domain_prompt_file: Option<PathBuf>,
    /// The skills folder (`DRA_SKILLS_DIR`), and whether the user named it
    /// (a missing named folder is reported; the default may be absent).
    pub skills_dir: PathBuf,
    pub skills_dir_explicit: bool,
    /// The date the run takes as today.
    pub today: NaiveDate,
    /// MCP servers and the limits on calling them.
    pub mcp: super::mcp::McpSettings,
    /// Code execution: the sandbox and the limits of one call.
    pub exec: super::ExecSettings,
    /// `dra mcp-serve`: what it tells callers, and the token it requires.
    pub serve: ServeSettings,
    pub custom_tools: CustomToolsSettings,
    pub offload: OffloadSettings,
    /// Settings of features that do not exist yet which the user set.
    pub not_used_yet: Vec<&'static str>,
}

impl Settings {
    pub fn from_config(c: &Config) -> Settings {
        let tier = c.tier();
        let uint = |k: &str| c.uint(k).unwrap_or_else(|| table_uint(k));
        let seconds = |k: &str| c.seconds(k).unwrap_or_else(|| table_seconds(k));
        Settings {
            api_key: c.api_key().cloned(),
            base_url: c
                .text(keys::OPENAI_BASE_URL)
                .map(str::to_string)
                .unwrap_or_else(|| table_text(keys::OPENAI_BASE_URL)),
            allowed_base_urls: c.list(keys::ALLOWED_BASE_URLS),
            tier,
            model: ModelSettings {
                request_timeout: seconds(keys::REQUEST_TIMEOUT),
                max_retries: u32::try_from(uint(keys::MAX_RETRIES)).unwrap_or(u32::MAX),
                streaming: c.bool(keys::STREAMING),
                streaming_denylist: c.list(keys::STREAMING_DENYLIST),
                tool_protocol: ToolProtocol::from_name(
                    c.text(keys::TOOL_PROTOCOL)
                        .unwrap_or(&table_text(keys::TOOL_PROTOCOL)),
                )
                .unwrap_or(ToolProtocol::Auto),
            },
            search: SearchSettings {
                values: keys::SEARCH_KEYS
                    .iter()
                    .filter_map(|k| Some((*k, c.get(k)?.value.clone())))
                    .collect(),
                max_results: usize::try_from(uint(keys::SEARCH_MAX_RESULTS)).unwrap_or(usize::MAX),
            },
            fetch: FetchSettings {
                allowlist: c.list(keys::FETCH_ALLOWLIST),
                max_bytes: uint(keys::FETCH_MAX_BYTES),
                timeout: seconds(keys::FETCH_TIMEOUT),
            },
            corpus: CorpusSettings {
                max_file_bytes: uint(keys::CORPUS_MAX_BYTES),
                max_document_bytes: uint(keys::CORPUS_MAX_DOCUMENT_BYTES),
                max_total_bytes: uint(keys::CORPUS_MAX_TOTAL_BYTES),
                embed_model: c.path(keys::EMBED_MODEL),
                default: c.path(keys::CORPUS),
                source_type: c
                    .text(keys::CORPUS_SOURCE_TYPE)
                    .and_then(crate::document::SourceType::parse),
            },
            limits: Limits {
                max_tool_calls: uint(keys::MAX_TOOL_CALLS),
                max_total_tokens: uint(keys::MAX_TOTAL_TOKENS),
                max_usd: c.float(keys::MAX_USD).unwrap_or(tier.default_max_usd),
                deadline: seconds(keys::DEADLINE),
                max_steps: uint(keys::RECURSION_LIMIT),
            },
            max_parallel: usize::try_from(uint(keys::MAX_PARALLEL)).unwrap_or(usize::MAX),
            sync: crate::store::GroupCommit {
                every: std::time::Duration::from_millis(uint(keys::SYNC_MS)),
                lines: usize::try_from(uint(keys::SYNC_LINES)).unwrap_or(usize::MAX),
            },
            offline: c.bool(keys::OFFLINE),
            require_tool_call: c.bool(keys::REQUIRE_TOOL_CALL),
            memory: c.bool(keys::MEMORY),
            clarify: c.bool(keys::CLARIFY),
            runs_dir: c.runs_dir(),
            domain_prompt: c
                .text(keys::DOMAIN_PROMPT)
                .map(str::to_string)
                .filter(|_| !file_outranks_inline(c)),
            domain_prompt_file: c.path(keys::DOMAIN_PROMPT_FILE),
            skills_dir: c
                .path(keys::SKILLS_DIR)
                .unwrap_or_else(|| PathBuf::from(table_text(keys::SKILLS_DIR))),
            skills_dir_explicit: c
                .get(keys::SKILLS_DIR)
                .is_some_and(|e| e.origin != super::Origin::Default),
            today: c
                .text(keys::TODAY)
                .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
                .unwrap_or_else(|| chrono::Utc::now().date_naive()),
            mcp: super::mcp::McpSettings {
                servers: c.mcp_servers.clone(),
                max_concurrency: usize::try_from(uint(keys::MCP_MAX_CONCURRENCY))
                    .unwrap_or(usize::MAX)
                    .max(1),
                rate_limit_max_wait: seconds(keys::MCP_RATE_LIMIT_MAX_WAIT),
                startup_timeout: super::mcp::STARTUP_TIMEOUT,
                replay_only: Vec::new(),
            },
            exec: super::ExecSettings::from_config(c),
            serve: ServeSettings {
                agent_description: c
                    .text(keys::AGENT_DESCRIPTION)
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .unwrap_or(keys::DEFAULT_AGENT_DESCRIPTION)
                    .to_string(),
                token: c.secret(keys::MCP_SERVE_TOKEN).cloned(),
            },
            custom_tools: {
                let explicit = c
                    .get(keys::CUSTOM_TOOLS_DIR)
                    .is_some_and(|e| e.origin != super::Origin::Default);
                let dir = c.path(keys::CUSTOM_TOOLS_DIR);
                CustomToolsSettings {
                    // The default applies only where the folder exists.
                    dir: dir.filter(|d| explicit || d.is_dir()),
                    explicit,
                    timeout: seconds(keys::CUSTOM_TOOL_TIMEOUT),
                }
            },
            offload: OffloadSettings {
                max_chars: usize::try_from(uint(keys::MAX_RESULT_CHARS)).unwrap_or(usize::MAX),
                max_rows: usize::try_from(uint(keys::MAX_RESULT_ROWS)).unwrap_or(usize::MAX),
                enabled: c.bool(keys::OFFLOAD_RESULTS),
                dir: c
                    .text(keys::OFFLOAD_DIR)
                    .map(str::to_string)
                    .unwrap_or_else(|| table_text(keys::OFFLOAD_DIR)),
            },
            not_used_yet: keys::NOT_USED_YET
                .iter()
                .copied()
                .filter(|k| c.get(k).is_some_and(|e| e.origin != super::Origin::Default))
                .collect(),
        }
    }

    /// The table's defaults alone: no flags, environment, `.env` or
    /// config file (a starting point for tests and embedders).
    pub fn defaults() -> Settings {
        let config = Config::resolve(&super::Layers::default()).unwrap_or_else(|_| Config {
            entries: Default::default(),
            warnings: Vec::new(),
            file: None,
            mcp_servers: Vec::new(),
        });
        Settings::from_config(&config)
    }

    /// Online means a key is set and offline mode is not forced.
    pub fn online(&self) -> bool {
        self.api_key.is_some() && !self.offline
    }

    /// The memory directory, unless memory is off.
    pub fn memory_dir(&self) -> Option<PathBuf> {
        self.memory
            .then(|| super::default_data_dir().map(|d| d.join("memory")))
            .flatten()
    }
}

/// Layers from strongest (flags) to weakest (defaults).
fn rank(o: &super::Origin) -> u8 {
    match o {
        super::Origin::Flag => 0,
        super::Origin::Env => 1,
        super::Origin::DotEnv(_) => 2,
        super::Origin::File(_) => 3,
        super::Origin::Default => 4,
    }
}

/// Whether `DRA_DOMAIN_PROMPT_FILE` comes from a stronger layer than
/// `DRA_DOMAIN_PROMPT` (so `--domain-prompt @FILE` beats the environment's
/// inline text).
fn file_outranks_inline(c: &Config) -> bool {
    match (c.get(keys::DOMAIN_PROMPT_FILE), c.get(keys::DOMAIN_PROMPT)) {
        (Some(file), Some(inline)) => rank(&file.origin) < rank(&inline.origin),
        _ => false,
    }
}

/// The parsed default of a setting, from the table. `None` for settings
/// without a default.
pub fn table_default(key: &str) -> Option<Value> {
    let spec = keys::spec(key)?;
    let raw = spec.default?;
    super::parse(spec, raw, &super::Origin::Default)
        .ok()
        .flatten()
}

// A table default that fails to parse is a programming error caught by the
// `every_default_parses` test; these fall back to zero values only so that
// library code has no panics.
fn table_uint(key: &str) -> u64 {
    match table_default(key) {
        Some(Value::Uint(n)) => n,
        _ => 0,
    }
}

fn table_usize(key: &str) -> usize {
    usize::try_from(table_uint(key)).unwrap_or(usize::MAX)
}

fn table_seconds(key: &str) -> Duration {
    match table_default(key) {
        Some(Value::Seconds(d)) => d,
        _ => Duration::ZERO,
    }
}

fn table_text(key: &str) -> String {
    match table_default(key) {
        Some(Value::Text(s)) => s,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Kind, Layers, SETTINGS};

    #[test]
    fn every_default_parses() {
        for spec in SETTINGS {
            if spec.default.is_some() {
                assert!(table_default(spec.key).is_some(), "{}", spec.key);
            }
        }
        for key in keys::NOT_USED_YET {
            assert!(keys::spec(key).is_some(), "{key}");
        }
        assert!(matches!(
            keys::spec(keys::TODAY).map(|s| s.kind),
            Some(Kind::Date)
        ));
    }

    fn settings(env: &[(&str, &str)]) -> Settings {
        let layers = Layers {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Layers::default()
        };
        Settings::from_config(&Config::resolve(&layers).unwrap())
    }

    #[test]
    fn defaults_come_from_the_table_and_the_tier() {
        let s = settings(&[]);
        assert_eq!(s.limits, Limits::default());
        assert_eq!(s.limits.max_tool_calls, 200);
        assert_eq!(s.search.max_results, 5);
        assert_eq!(s.fetch, FetchSettings::default());
        assert_eq!(s.limits.max_usd, tiers::default_tier().default_max_usd);
        let high = settings(&[("DRA_MODEL_TIER", "high")]);
        assert!(high.limits.max_usd > s.limits.max_usd);
        let capped = settings(&[("DRA_MODEL_TIER", "high"), ("DRA_MAX_USD", "0.2")]);
        assert_eq!(capped.limits.max_usd, 0.2);
    }

    #[test]
    fn custom_tools_and_offload_settings_are_typed() {
        let s = settings(&[]);
        assert_eq!(s.offload, OffloadSettings::default());
        assert_eq!((s.offload.max_chars, s.offload.max_rows), (60_000, 1000));
        assert!(s.offload.enabled);
        assert_eq!(s.offload.dir, "/workspace/data");
        assert_eq!(s.custom_tools.timeout, Duration::from_secs(60));
        assert!(!s.custom_tools.explicit);
        let set = settings(&[
            ("DRA_CUSTOM_TOOLS_DIR", "/nonexistent/tools"),
            ("DRA_CUSTOM_TOOL_TIMEOUT", "5s"),
            ("DRA_OFFLOAD_RESULTS", "false"),
            ("DRA_MAX_RESULT_ROWS", "7"),
        ]);
        // Named by the user: kept even when missing, so it can be reported.
        assert_eq!(
            set.custom_tools.dir.as_deref(),
            Some(std::path::Path::new("/nonexistent/tools"))
        );
        assert!(set.custom_tools.explicit);
        assert_eq!(set.custom_tools.timeout, Duration::from_secs(5));
        assert!(!set.offload.enabled);
        assert_eq!(set.offload.max_rows, 7);
        assert!(set.not_used_yet.is_empty());
    }

    #[test]
    fn today_can_be_pinned_and_unused_settings_are_named() {
        let s = settings(&[("DRA_TODAY", "2026-03-04")]);
        assert_eq!(s.today, NaiveDate::from_ymd_opt(2026, 3, 4).unwrap());
        // Any key still waiting for its feature is named when set.
        if let Some(spec) = keys::NOT_USED_YET.first().and_then(|k| keys::spec(k)) {
            let s = settings(&[(spec.key, spec.default.unwrap_or("x"))]);
            assert_eq!(s.not_used_yet, vec![spec.key]);
        }
        assert!(settings(&[]).not_used_yet.is_empty());
    }

    #[test]
    fn a_domain_prompt_file_flag_beats_inline_text_from_a_weaker_layer() {
        let with = |flags: &[(&'static str, &str)], env: &[(&str, &str)]| {
            let layers = Layers {
                flags: flags.iter().map(|(k, v)| (*k, v.to_string())).collect(),
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..Layers::default()
            };
            Settings::from_config(&Config::resolve(&layers).unwrap())
        };
        // Same layer: inline wins.
        let s = with(
            &[],
            &[
                ("DRA_DOMAIN_PROMPT", "inline"),
                ("DRA_DOMAIN_PROMPT_FILE", "f.md"),
            ],
        );
        assert_eq!(s.domain_prompt.as_deref(), Some("inline"));
        // `--domain-prompt @f.md` over the environment's inline text: the file.
        let s = with(
            &[(keys::DOMAIN_PROMPT_FILE, "f.md")],
            &[("DRA_DOMAIN_PROMPT", "inline")],
        );
        assert_eq!(s.domain_prompt, None);
        assert_eq!(s.domain_prompt_file, Some(PathBuf::from("f.md")));
        // `--domain-prompt TEXT` over a file in the environment: the text.
        let s = with(
            &[(keys::DOMAIN_PROMPT, "flag")],
            &[("DRA_DOMAIN_PROMPT_FILE", "f.md")],
        );
        assert_eq!(s.domain_prompt.as_deref(), Some("flag"));
        // The skills folder: the default is not explicit, a named one is.
        assert!(!with(&[], &[]).skills_dir_explicit);
        let s = with(&[], &[("DRA_SKILLS_DIR", "/x/skills")]);
        assert!(s.skills_dir_explicit && s.not_used_yet.is_empty());
        assert_eq!(s.skills_dir, PathBuf::from("/x/skills"));
    }

    #[test]
    fn mcp_settings_come_from_the_env_with_the_bearer() {
        let s = settings(&[
            ("DRA_MCP_URL", "http://0.0.0.0:8000"),
            ("DRA_MCP_LABEL", "wiki"),
            ("DRA_MCP_BEARER", "tok"),
            ("DRA_MCP_MAX_CONCURRENCY", "3"),
        ]);
        assert_eq!(s.mcp.max_concurrency, 3);
        assert_eq!(s.mcp.servers.len(), 1);
        assert_eq!(s.mcp.servers[0].label, "wiki");
        assert_eq!(s.mcp.servers[0].target(), "http://127.0.0.1:8000/mcp");
        assert!(s.not_used_yet.is_empty());
        let bad = Layers {
            env: [(
                "DRA_MCP_SERVERS".to_string(),
                r#"[{"label":"m","url":"http://169.254.169.254/"}]"#.to_string(),
            )]
            .into(),
            ..Layers::default()
        };
        let e = Config::resolve(&bad).unwrap_err().to_string();
        assert!(e.contains("DRA_MCP_SERVERS") && e.contains("#1 (m)"), "{e}");
        let flags = Layers {
            mcp: vec!["a=http://127.0.0.1:1".into()],
            env: [("DRA_MCP_URL".to_string(), "http://127.0.0.1:2".to_string())].into(),
            ..Layers::default()
        };
        let s = Settings::from_config(&Config::resolve(&flags).unwrap());
        assert_eq!(s.mcp.servers.len(), 1);
        assert_eq!(s.mcp.servers[0].label, "a");
    }
}
