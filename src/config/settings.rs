//! The configuration table: every setting dra reads, its environment name,
//! type, default and meaning. Where a common name exists (`OPENAI_API_KEY`,
//! `TAVILY_API_KEY`, `LLM_SANDBOX_URL`) dra reads it; its own are `DRA_*`.

/// How a raw string is parsed and validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Secret,
    /// An http(s) URL.
    Url,
    Bool,
    /// A whole number, at least the given minimum.
    Uint {
        min: u64,
    },
    /// A non-negative decimal number.
    Float,
    /// Seconds: `90`, `90s`, `5m`, `1h`.
    Seconds,
    /// Comma-separated items.
    List,
    /// A JSON list of `{label, url}` objects.
    McpServers,
    /// A model tier name (unknown names warn and fall back).
    Tier,
    Path,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// A calendar day, `YYYY-MM-DD`.
    Date,
}

#[derive(Debug, Clone, Copy)]
pub struct SettingSpec {
    /// The environment name, also accepted as-is in the config file.
    pub key: &'static str,
    /// Other environment names read when `key` is unset.
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub default: Option<&'static str>,
    pub doc: &'static str,
}

impl SettingSpec {
    /// The key in config.toml: lowercase, without the `DRA_` prefix.
    pub fn file_key(&self) -> String {
        let lower = self.key.to_ascii_lowercase();
        lower.strip_prefix("dra_").unwrap_or(&lower).to_string()
    }

    pub fn is_secret(&self) -> bool {
        self.kind == Kind::Secret
    }
}

const fn s(
    key: &'static str,
    kind: Kind,
    default: Option<&'static str>,
    doc: &'static str,
) -> SettingSpec {
    SettingSpec {
        key,
        aliases: &[],
        kind,
        default,
        doc,
    }
}

pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
pub const ALLOWED_BASE_URLS: &str = "DRA_ALLOWED_BASE_URLS";
pub const TAVILY_API_KEY: &str = "TAVILY_API_KEY";
pub const TAVILY_BASE_URL: &str = "TAVILY_BASE_URL";
pub const SEARXNG_URL: &str = "SEARXNG_URL";
pub const BRAVE_API_KEY: &str = "BRAVE_API_KEY";
/// The settings web search backends read (`web::search::BACKENDS` says
/// which turn each one on); [`super::SearchSettings`] carries their values.
pub const SEARCH_KEYS: &[&str] = &[TAVILY_API_KEY, TAVILY_BASE_URL, SEARXNG_URL, BRAVE_API_KEY];
pub const MODEL_TIER: &str = "DRA_MODEL_TIER";
pub const REQUEST_TIMEOUT: &str = "DRA_REQUEST_TIMEOUT";
pub const MAX_RETRIES: &str = "DRA_MAX_RETRIES";
pub const SKILLS_DIR: &str = "DRA_SKILLS_DIR";
pub const CUSTOM_TOOLS_DIR: &str = "DRA_CUSTOM_TOOLS_DIR";
pub const CUSTOM_TOOL_TIMEOUT: &str = "DRA_CUSTOM_TOOL_TIMEOUT";
pub const MAX_RESULT_CHARS: &str = "DRA_MAX_RESULT_CHARS";
pub const MAX_RESULT_ROWS: &str = "DRA_MAX_RESULT_ROWS";
pub const OFFLOAD_RESULTS: &str = "DRA_OFFLOAD_RESULTS";
pub const OFFLOAD_DIR: &str = "DRA_OFFLOAD_DIR";
pub const DOMAIN_PROMPT: &str = "DRA_DOMAIN_PROMPT";
pub const DOMAIN_PROMPT_FILE: &str = "DRA_DOMAIN_PROMPT_FILE";
pub const STREAMING: &str = "DRA_STREAMING";
pub const STREAMING_DENYLIST: &str = "DRA_STREAMING_DENYLIST";
pub const RECURSION_LIMIT: &str = "DRA_RECURSION_LIMIT";
pub const MAX_TOOL_CALLS: &str = "DRA_MAX_TOOL_CALLS";
pub const MAX_TOTAL_TOKENS: &str = "DRA_MAX_TOTAL_TOKENS";
pub const MAX_USD: &str = "DRA_MAX_USD";
pub const DEADLINE: &str = "DRA_DEADLINE";
pub const MAX_PARALLEL: &str = "DRA_MAX_PARALLEL";
pub const SYNC_MS: &str = "DRA_SYNC_MS";
pub const SYNC_LINES: &str = "DRA_SYNC_LINES";
pub const RUNS_DIR: &str = "DRA_RUNS_DIR";
pub const OFFLINE: &str = "DRA_OFFLINE";
pub const TOOL_PROTOCOL: &str = "DRA_TOOL_PROTOCOL";
pub const FETCH_ALLOWLIST: &str = "DRA_FETCH_ALLOWLIST";
pub const FETCH_MAX_BYTES: &str = "DRA_FETCH_MAX_BYTES";
pub const FETCH_TIMEOUT: &str = "DRA_FETCH_TIMEOUT";
pub const MCP_URL: &str = "DRA_MCP_URL";
pub const MCP_LABEL: &str = "DRA_MCP_LABEL";
pub const MCP_SERVERS: &str = "DRA_MCP_SERVERS";
pub const MCP_BEARER: &str = "DRA_MCP_BEARER";
pub const MCP_MAX_CONCURRENCY: &str = "DRA_MCP_MAX_CONCURRENCY";
pub const MCP_RATE_LIMIT_MAX_WAIT: &str = "DRA_MCP_RATE_LIMIT_MAX_WAIT";
pub const AGENT_DESCRIPTION: &str = "DRA_AGENT_DESCRIPTION";
pub const MCP_SERVE_TOKEN: &str = "DRA_MCP_SERVE_TOKEN";
pub const SEARCH_MAX_RESULTS: &str = "DRA_SEARCH_MAX_RESULTS";
pub const REQUIRE_TOOL_CALL: &str = "DRA_REQUIRE_TOOL_CALL";
pub const MEMORY: &str = "DRA_MEMORY";
pub const CLARIFY: &str = "DRA_CLARIFY";
pub const TODAY: &str = "DRA_TODAY";
pub const CORPUS_MAX_BYTES: &str = "DRA_CORPUS_MAX_BYTES";
pub const CORPUS_MAX_DOCUMENT_BYTES: &str = "DRA_CORPUS_MAX_DOCUMENT_BYTES";
pub const CORPUS_MAX_TOTAL_BYTES: &str = "DRA_CORPUS_MAX_TOTAL_BYTES";
pub const EMBED_MODEL: &str = "DRA_EMBED_MODEL";
pub const CORPUS: &str = "DRA_CORPUS";
pub const CORPUS_SOURCE_TYPE: &str = "DRA_CORPUS_SOURCE_TYPE";

pub const SANDBOX_URL: &str = "LLM_SANDBOX_URL";
pub const SANDBOX_TOKEN: &str = "LLM_SANDBOX_TOKEN";
pub const SANDBOX_NETWORK: &str = "LLM_SANDBOX_NETWORK";
pub const SANDBOX_SESSION_TIMEOUT: &str = "LLM_SANDBOX_SESSION_TIMEOUT";
pub const EXECUTE: &str = "DRA_EXECUTE";
pub const EXEC_TIMEOUT: &str = "DRA_EXEC_TIMEOUT";
pub const EXEC_MEMORY_MB: &str = "DRA_EXEC_MEMORY_MB";
pub const EXEC_WORKSPACE_MB: &str = "DRA_EXEC_WORKSPACE_MB";

/// Every setting dra reads, in the order `dra doctor` prints them.
pub const SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        key: OPENAI_API_KEY,
        aliases: &["OPENROUTER_API_KEY"],
        kind: Kind::Secret,
        default: None,
        doc: "Key sent as Bearer to OPENAI_BASE_URL; unset means offline mode",
    },
    s(
        OPENAI_BASE_URL,
        Kind::Url,
        Some("https://openrouter.ai/api/v1"),
        "OpenAI-compatible endpoint",
    ),
    s(
        ALLOWED_BASE_URLS,
        Kind::List,
        None,
        "Extra base URLs a run may override to (key-exfiltration guard)",
    ),
    s(TAVILY_API_KEY, Kind::Secret, None, "Tavily web search key"),
    s(
        TAVILY_BASE_URL,
        Kind::Url,
        Some("https://api.tavily.com"),
        "Tavily endpoint (for proxies)",
    ),
    s(
        SEARXNG_URL,
        Kind::Url,
        None,
        "SearXNG instance for web search",
    ),
    s(BRAVE_API_KEY, Kind::Secret, None, "Brave Search key"),
    s(
        SEARCH_MAX_RESULTS,
        Kind::Uint { min: 1 },
        Some("5"),
        "Default results per web_search call",
    ),
    s(
        MODEL_TIER,
        Kind::Tier,
        Some("extra-low"),
        "Named model package: extra-low | low | mid | high",
    ),
    s(
        REQUEST_TIMEOUT,
        Kind::Seconds,
        Some("180"),
        "Per-request ceiling on every model call (seconds)",
    ),
    s(
        MAX_RETRIES,
        Kind::Uint { min: 0 },
        Some("3"),
        "Retries per model call on transient 429/5xx; 0 disables",
    ),
    s(
        STREAMING,
        Kind::Bool,
        Some("true"),
        "Token-by-token streaming",
    ),
    s(
        STREAMING_DENYLIST,
        Kind::List,
        Some("deepseek-v4-flash"),
        "Model-name substrings that force streaming off",
    ),
    s(
        TOOL_PROTOCOL,
        Kind::Choice(&["auto", "native", "envelope"]),
        Some("auto"),
        "Tool calling: native, the JSON envelope, or auto (fall back when tools are rejected)",
    ),
    s(
        RECURSION_LIMIT,
        Kind::Uint { min: 1 },
        Some("4500"),
        "Orchestrator step ceiling (caps loops, not tool calls)",
    ),
    s(
        MAX_TOOL_CALLS,
        Kind::Uint { min: 1 },
        Some("200"),
        "Cumulative tool-call ceiling per run",
    ),
    s(
        MAX_TOTAL_TOKENS,
        Kind::Uint { min: 1 },
        Some("4000000"),
        "Cumulative token ceiling per run",
    ),
    s(
        MAX_USD,
        Kind::Float,
        None,
        "Dollar ceiling per run (default: the tier's cap, see `dra tiers`)",
    ),
    s(
        DEADLINE,
        Kind::Seconds,
        Some("600"),
        "Wall-time ceiling per run (seconds, or 90s / 10m / 1h)",
    ),
    s(
        MAX_PARALLEL,
        Kind::Uint { min: 1 },
        Some("4"),
        "Sub-researchers running at once",
    ),
    s(
        SYNC_MS,
        Kind::Uint { min: 1 },
        Some("250"),
        "Run files are fsynced at least this often (milliseconds) while lines are pending",
    ),
    s(
        SYNC_LINES,
        Kind::Uint { min: 1 },
        Some("32"),
        "Run files are fsynced at least every this many lines",
    ),
    s(
        OFFLINE,
        Kind::Bool,
        Some("false"),
        "Force the offline extractive model even with a key",
    ),
    s(
        REQUIRE_TOOL_CALL,
        Kind::Bool,
        Some("false"),
        "Fail a run whose model answers without calling any tool",
    ),
    s(
        MEMORY,
        Kind::Bool,
        Some("true"),
        "Read and write lessons learnt across runs (--no-memory turns it off)",
    ),
    s(
        CLARIFY,
        Kind::Bool,
        Some("true"),
        "Ask clarifying questions when the request is ambiguous (--no-clarify turns it off: the run states its assumption instead)",
    ),
    s(
        TODAY,
        Kind::Date,
        None,
        "The date a run takes as today for freshness and as-of dates (default: the real date; pin it for reproducible runs)",
    ),
    s(
        CORPUS_MAX_BYTES,
        Kind::Uint { min: 1024 },
        Some("134217728"),
        "Largest JSON corpus file read, in bytes (128 MiB); a larger one is refused",
    ),
    s(
        CORPUS_MAX_DOCUMENT_BYTES,
        Kind::Uint { min: 1024 },
        Some("16777216"),
        "Most of one corpus document read, in bytes (16 MiB); the rest is cut with a warning",
    ),
    s(
        CORPUS_MAX_TOTAL_BYTES,
        Kind::Uint { min: 1024 },
        Some("4294967296"),
        "Most read from a corpus folder in all, in bytes (4 GiB): a guard on the size of its on-disk index; files past it are not indexed, with a warning",
    ),
    s(
        CORPUS,
        Kind::Path,
        None,
        "A default corpus (folder or file) for runs given neither --corpus nor --web: a corpus-only deployment needs no search backend",
    ),
    s(
        CORPUS_SOURCE_TYPE,
        Kind::Choice(&[
            "regulator",
            "official",
            "news",
            "press_release",
            "review",
            "forum",
            "blog",
            "other",
        ]),
        None,
        "The source type of corpus files (file:// documents) that declare none in front matter or dra:source_type, e.g. official for your own documentation; unset: other",
    ),
    s(
        EMBED_MODEL,
        Kind::Path,
        None,
        "A sentence-transformers model folder (config.json, model.safetensors, tokenizer.json; e.g. all-MiniLM-L6-v2) or a static model2vec folder: corpus search then ranks by meaning as well as words",
    ),
    s(
        RUNS_DIR,
        Kind::Path,
        None,
        "Where runs are written (default: the platform data dir)",
    ),
    s(
        FETCH_ALLOWLIST,
        Kind::List,
        None,
        "host or host:port entries the SSRF guard lets through",
    ),
    s(
        FETCH_MAX_BYTES,
        Kind::Uint { min: 256 },
        Some("5242880"),
        "Largest page body fetched, in bytes",
    ),
    s(
        FETCH_TIMEOUT,
        Kind::Seconds,
        Some("30"),
        "Total time allowed for one page fetch (seconds)",
    ),
    s(
        MCP_URL,
        Kind::Url,
        None,
        "Single MCP server (bare host gets /mcp appended)",
    ),
    s(
        MCP_LABEL,
        Kind::Text,
        None,
        "Friendly name for that server in the report's sources",
    ),
    s(
        MCP_SERVERS,
        Kind::McpServers,
        None,
        "JSON list of {label, url} or {label, command, args, env} MCP servers",
    ),
    s(
        MCP_BEARER,
        Kind::Secret,
        None,
        "Bearer token for MCP servers lacking explicit auth",
    ),
    s(
        MCP_MAX_CONCURRENCY,
        Kind::Uint { min: 1 },
        Some("10"),
        "Ceiling on simultaneous MCP calls per run",
    ),
    s(
        MCP_RATE_LIMIT_MAX_WAIT,
        Kind::Seconds,
        Some("120"),
        "Per-call 429 backoff budget (seconds)",
    ),
    s(
        AGENT_DESCRIPTION,
        Kind::Text,
        None,
        "What dra does, as `dra mcp-serve` tells calling agents (the research tool's description; a built-in one when unset)",
    ),
    s(
        MCP_SERVE_TOKEN,
        Kind::Secret,
        None,
        "Bearer token `dra mcp-serve --listen` requires (needed off loopback)",
    ),
    s(
        SKILLS_DIR,
        Kind::Path,
        Some("./skills"),
        "Directory of agent skills (folders with SKILL.md)",
    ),
    s(
        CUSTOM_TOOLS_DIR,
        Kind::Path,
        Some("./custom_tools"),
        "Directory of drop-in custom tools (executables answering --describe)",
    ),
    s(
        CUSTOM_TOOL_TIMEOUT,
        Kind::Seconds,
        Some("60"),
        "Wall time per custom tool call; past it the tool's process group is killed",
    ),
    s(
        DOMAIN_PROMPT,
        Kind::Text,
        None,
        "Domain guidance injected into both system prompts",
    ),
    s(
        DOMAIN_PROMPT_FILE,
        Kind::Path,
        None,
        "File holding the domain prompt; inline DRA_DOMAIN_PROMPT wins",
    ),
    s(
        MAX_RESULT_CHARS,
        Kind::Uint { min: 1 },
        Some("60000"),
        "Tool result size over which it is offloaded or truncated",
    ),
    s(
        MAX_RESULT_ROWS,
        Kind::Uint { min: 1 },
        Some("1000"),
        "Tool result row count that triggers the same",
    ),
    s(
        OFFLOAD_RESULTS,
        Kind::Bool,
        Some("true"),
        "Offload large tool results to a file in the run's workspace instead of truncating",
    ),
    s(
        OFFLOAD_DIR,
        Kind::Text,
        Some("/workspace/data"),
        "Where offloaded results go, as the sandbox sees the run's workspace (/workspace/...)",
    ),
    s(
        SANDBOX_URL,
        Kind::Url,
        None,
        "Code-execution sandbox endpoint",
    ),
    s(SANDBOX_TOKEN, Kind::Secret, None, "Sandbox auth token"),
    s(
        SANDBOX_NETWORK,
        Kind::Bool,
        Some("false"),
        "Allow outbound network inside the sandbox",
    ),
    s(
        SANDBOX_SESSION_TIMEOUT,
        Kind::Seconds,
        Some("900"),
        "Sandbox session timeout (seconds)",
    ),
    s(
        EXECUTE,
        Kind::Bool,
        Some("true"),
        "Offer the execute tool when a sandbox is available",
    ),
    s(
        EXEC_TIMEOUT,
        Kind::Seconds,
        Some("30"),
        "Wall-time limit of one execute call",
    ),
    s(
        EXEC_MEMORY_MB,
        Kind::Uint { min: 64 },
        Some("1024"),
        "Address-space limit of one execute call (MiB)",
    ),
    s(
        EXEC_WORKSPACE_MB,
        Kind::Uint { min: 1 },
        Some("512"),
        "Most the sandbox workspace may hold (MiB); a call growing it past that is stopped",
    ),
];

/// Per-model keys of older versions: ignored with a warning, since models are
/// chosen by tier only.
pub const LEGACY_MODEL_KEYS: &[&str] = &[
    "research_model",
    "final_report_model",
    "compression_model",
    "summarization_model",
    "subagent_model",
    "utility_model",
];

/// The research tool's description when `DRA_AGENT_DESCRIPTION` is unset.
pub const DEFAULT_AGENT_DESCRIPTION: &str = "Deep research on one question: plans it into aspects, searches and reads sources in parallel, rejects look-alike entities and pages carrying instructions aimed at AI agents, and returns a cited Markdown report whose every [n] resolves to a source that contains the quoted sentence. Use it for questions that need several sources checked against each other (due diligence on a company, a product or a claim), not for a quick fact. A run takes from seconds (offline) to minutes.";

/// Settings of features that do not exist yet: parsed and validated so a
/// config stays valid when they land, shown by `dra doctor` as not used yet,
/// and warned about when a run sees one set. Every feature of the table
/// exists today.
pub const NOT_USED_YET: &[&str] = &[];

pub fn spec(key: &str) -> Option<&'static SettingSpec> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// The closest of `known` to a misspelled `name`, when it is close enough
/// to be what was meant (case-insensitive Jaro-Winkler).
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let name = name.to_ascii_lowercase();
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(&name, &k.to_ascii_lowercase()), k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// What to say about an unknown config-file key: the closest valid key, or
/// all of them.
pub fn file_key_hint(key: &str) -> String {
    let keys: Vec<String> = SETTINGS.iter().map(SettingSpec::file_key).collect();
    match closest(key, keys.iter().map(String::as_str)) {
        Some(k) => format!("did you mean `{k}`?"),
        None => format!("valid keys: {}", keys.join(", ")),
    }
}

/// For an environment (or `.env`) name that looks like a dra setting but is
/// none (`DRA_MAX_USDD`): what to say. `None` for names that are settings,
/// legacy keys (warned about elsewhere) or not dra's at all.
pub fn unknown_env_hint(name: &str) -> Option<String> {
    if !name.starts_with("DRA_") {
        return None;
    }
    let known = SETTINGS
        .iter()
        .flat_map(|s| std::iter::once(s.key).chain(s.aliases.iter().copied()));
    if known.clone().any(|k| k == name)
        || LEGACY_MODEL_KEYS
            .iter()
            .any(|l| name.eq_ignore_ascii_case(&format!("DRA_{l}")))
    {
        return None;
    }
    Some(match closest(name, known) {
        Some(k) => format!("did you mean {k}?"),
        None => "see `dra doctor` for the settings dra reads".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspellings_get_the_closest_key() {
        assert_eq!(file_key_hint("max_usdd"), "did you mean `max_usd`?");
        assert_eq!(
            file_key_hint("max_tool_cals"),
            "did you mean `max_tool_calls`?"
        );
        assert!(file_key_hint("zzzz").starts_with("valid keys: "));
        assert!(file_key_hint("zzzz").contains("max_usd"));
        assert_eq!(
            unknown_env_hint("DRA_MAX_USDD").as_deref(),
            Some("did you mean DRA_MAX_USD?")
        );
        assert_eq!(unknown_env_hint("DRA_MAX_USD"), None);
        assert_eq!(unknown_env_hint("DRA_RESEARCH_MODEL"), None);
        assert_eq!(unknown_env_hint("PATH"), None);
    }
}
