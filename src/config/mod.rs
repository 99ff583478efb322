//! Layered configuration with provenance: flags > environment > `.env` in
//! the working directory > config file > defaults. Every value remembers
//! where it came from, so `dra doctor` can say.

pub mod mcp;
mod secret;
pub mod settings;
pub mod tiers;
mod typed;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value as Json;

pub use secret::Secret;
pub use settings::{Kind, SETTINGS, SettingSpec};
pub use tiers::{MODEL_TIERS, ModelRole, ModelSlot, ModelTier};
pub use typed::{
    CorpusSettings, FetchSettings, Limits, ModelSettings, SearchSettings, Settings, table_default,
};

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from", content = "detail")]
pub enum Origin {
    Flag,
    Env,
    DotEnv(PathBuf),
    File(PathBuf),
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag => f.write_str("flag"),
            Origin::Env => f.write_str("environment"),
            Origin::DotEnv(p) => write!(f, ".env ({})", p.display()),
            Origin::File(p) => write!(f, "config file ({})", p.display()),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Secret(Secret),
    Bool(bool),
    Uint(u64),
    Float(f64),
    Seconds(Duration),
    List(Vec<String>),
    Json(Json),
}

impl Value {
    /// A printable form with secrets hidden.
    pub fn display(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Secret(_) => "set".into(),
            Value::Bool(b) => b.to_string(),
            Value::Uint(n) => n.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Seconds(d) => format!("{}s", d.as_secs_f64()),
            Value::List(v) => v.join(","),
            Value::Json(j) => mcp::redact_json(j).to_string(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub value: Value,
    pub origin: Origin,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid value for {key} (from {origin}): {shown}; expected {expected}")]
    Invalid {
        key: String,
        shown: String,
        origin: Origin,
        expected: String,
    },
    // Not a `source`: the OS error is shown here once, not again by the chain.
    #[error("cannot read config file {path}: {error}")]
    ReadFile {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("config file {path} is not valid TOML: {message}")]
    ParseFile { path: PathBuf, message: String },
    #[error("config file {path}: unknown key `{key}`; {hint}")]
    UnknownFileKey {
        path: PathBuf,
        key: String,
        /// "did you mean `max_usd`?" or the list of valid keys.
        hint: String,
    },
    #[error("cannot read {path}: {message}")]
    DotEnv { path: PathBuf, message: String },
    #[error("{0}")]
    Mcp(#[from] mcp::McpConfigError),
}

/// The raw inputs of resolution, separated so tests need no process state.
#[derive(Debug, Default, Clone)]
pub struct Layers {
    /// Values given as command-line flags, by setting key.
    pub flags: BTreeMap<&'static str, String>,
    /// The process environment.
    pub env: BTreeMap<String, String>,
    /// The `.env` file to read, if it exists.
    pub dotenv: Option<PathBuf>,
    /// The config file; `explicit` means it must exist (`--config`).
    pub file: Option<PathBuf>,
    pub file_explicit: bool,
    /// `--mcp` flags, as given.
    pub mcp: Vec<String>,
}

impl Layers {
    /// Layers from this process: its environment, `./.env`, and `--config`
    /// or the platform config file.
    pub fn from_process(config_flag: Option<PathBuf>) -> Self {
        let explicit = config_flag.is_some();
        let file = config_flag.or_else(default_config_path);
        Layers {
            flags: BTreeMap::new(),
            env: std::env::vars().collect(),
            dotenv: Some(PathBuf::from(".env")),
            file,
            file_explicit: explicit,
            mcp: Vec::new(),
        }
    }
}

/// `dra/config.toml` in the platform config dir.
pub fn default_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "dra").map(|d| d.config_dir().join("config.toml"))
}

/// The platform data dir, where runs and memory live by default.
pub fn default_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "dra").map(|d| d.data_dir().to_path_buf())
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    entries: BTreeMap<&'static str, Entry>,
    /// Problems that do not stop a run (unknown tier, legacy keys).
    pub warnings: Vec<String>,
    /// The config file that was read, if any.
    pub file: Option<PathBuf>,
    /// The MCP servers in force (see [`mcp`] for the order).
    pub mcp_servers: Vec<mcp::McpServer>,
}

impl Config {
    pub fn resolve(layers: &Layers) -> Result<Config, ConfigError> {
        let mut warnings = Vec::new();
        let mut mcp_file = Vec::new();
        let file_values = read_config_file(layers, &mut warnings, &mut mcp_file)?;
        let dotenv_values = read_dotenv(layers)?;
        for key in settings::LEGACY_MODEL_KEYS {
            let upper = key.to_ascii_uppercase();
            for name in [upper.clone(), format!("DRA_{upper}")] {
                if layers.env.contains_key(&name) || dotenv_values.contains_key(&name) {
                    warnings.push(format!(
                        "{name} is a legacy per-model key and is ignored: models are chosen by tier (DRA_MODEL_TIER, see `dra tiers`)"
                    ));
                }
            }
        }

        for (name, origin) in layers
            .env
            .keys()
            .map(|k| (k, "the environment".to_string()))
            .chain(dotenv_values.keys().map(|k| {
                let from = layers.dotenv.as_deref().unwrap_or(Path::new(".env"));
                (k, from.display().to_string())
            }))
        {
            if let Some(hint) = settings::unknown_env_hint(name) {
                warnings.push(format!(
                    "{name} (from {origin}) is not a dra setting; {hint}"
                ));
            }
        }

        let mut entries = BTreeMap::new();
        for spec in SETTINGS {
            let names = std::iter::once(spec.key).chain(spec.aliases.iter().copied());
            let raw: Option<(String, Origin)> = layers
                .flags
                .get(spec.key)
                .map(|v| (v.clone(), Origin::Flag))
                .or_else(|| {
                    names.clone().find_map(|n| {
                        layers
                            .env
                            .get(n)
                            .filter(|v| !v.is_empty())
                            .map(|v| (v.clone(), Origin::Env))
                    })
                })
                .or_else(|| {
                    names.clone().find_map(|n| {
                        dotenv_values.get(n).filter(|v| !v.is_empty()).map(|v| {
                            (
                                v.clone(),
                                Origin::DotEnv(layers.dotenv.clone().unwrap_or_default()),
                            )
                        })
                    })
                })
                .or_else(|| file_values.get(spec.key).cloned())
                .or_else(|| spec.default.map(|d| (d.to_string(), Origin::Default)));
            let Some((raw, origin)) = raw else { continue };
            let value = match parse(spec, &raw, &origin, &mut warnings)? {
                Some(v) => v,
                None => continue,
            };
            entries.insert(spec.key, Entry { value, origin });
        }
        let mcp_servers = resolve_mcp(layers, mcp_file, &entries)?;
        Ok(Config {
            mcp_servers,
            entries,
            warnings,
            file: layers
                .file
                .clone()
                .filter(|p| layers.file_explicit || p.exists()),
        })
    }

    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    pub fn entries(&self) -> impl Iterator<Item = (&'static str, &Entry)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::Text(s)) => Some(s),
            _ => None,
        }
    }

    pub fn secret(&self, key: &str) -> Option<&Secret> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::Secret(s)) => Some(s),
            _ => None,
        }
    }

    pub fn bool(&self, key: &str) -> bool {
        matches!(self.get(key).map(|e| &e.value), Some(Value::Bool(true)))
    }

    pub fn uint(&self, key: &str) -> Option<u64> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::Uint(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn float(&self, key: &str) -> Option<f64> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::Float(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn seconds(&self, key: &str) -> Option<Duration> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::Seconds(d)) => Some(*d),
            _ => None,
        }
    }

    pub fn list(&self, key: &str) -> Vec<String> {
        match self.get(key).map(|e| &e.value) {
            Some(Value::List(v)) => v.clone(),
            _ => Vec::new(),
        }
    }

    pub fn path(&self, key: &str) -> Option<PathBuf> {
        self.text(key).map(PathBuf::from)
    }

    /// The model tier in force (unknown names already fell back, with a warning).
    pub fn tier(&self) -> &'static ModelTier {
        self.text(settings::MODEL_TIER)
            .and_then(tiers::find_tier)
            .unwrap_or_else(tiers::default_tier)
    }

    /// The API key for the model endpoint, if any.
    pub fn api_key(&self) -> Option<&Secret> {
        self.secret(settings::OPENAI_API_KEY)
    }

    /// The runs directory: the setting, else the platform data dir, else ./runs.
    pub fn runs_dir(&self) -> PathBuf {
        self.path(settings::RUNS_DIR)
            .or_else(|| default_data_dir().map(|d| d.join("runs")))
            .unwrap_or_else(|| PathBuf::from("runs"))
    }

    /// Settings with secrets removed, for the events.jsonl header.
    pub fn redacted(&self) -> Json {
        let mut map = serde_json::Map::new();
        for (key, entry) in &self.entries {
            let shown = match &entry.value {
                Value::Secret(_) => Json::String("set".into()),
                other => Json::String(other.display()),
            };
            map.insert((*key).to_string(), shown);
        }
        Json::Object(map)
    }
}

fn read_dotenv(layers: &Layers) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut out = BTreeMap::new();
    let Some(path) = layers.dotenv.as_deref().filter(|p| p.exists()) else {
        return Ok(out);
    };
    let iter = dotenvy::from_path_iter(path).map_err(|e| ConfigError::DotEnv {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    for item in iter {
        let (k, v) = item.map_err(|e| ConfigError::DotEnv {
            path: std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            message: dotenv_message(path, &e),
        })?;
        out.insert(k, v);
    }
    Ok(out)
}

/// A `.env` parse error with the real line number: dotenvy reports the
/// offending (logical) line and a character index within it, not a line.
fn dotenv_message(path: &Path, e: &dotenvy::Error) -> String {
    let dotenvy::Error::LineParse(line, index) = e else {
        return e.to_string();
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let shown: String = line.lines().next().unwrap_or("").chars().take(80).collect();
    match dotenv_line_of(&text, line, *index) {
        Some(n) => format!(
            "line {n}: cannot parse `{shown}` (at character {})",
            index + 1
        ),
        None => format!("cannot parse `{shown}` (at character {})", index + 1),
    }
}

/// The 1-based line of `text` where character `index` of `logical` falls,
/// `logical` being a (possibly multi-line) chunk of `text`.
fn dotenv_line_of(text: &str, logical: &str, index: usize) -> Option<usize> {
    let start = text.find(logical).or_else(|| text.find(logical.trim()))?;
    let offset: usize = text[start..].chars().take(index).map(char::len_utf8).sum();
    Some(text[..start + offset].matches('\n').count() + 1)
}

/// The MCP servers: `--mcp` flags, else the file's `[[mcp]]` tables, else
/// `DRA_MCP_SERVERS`, else `DRA_MCP_URL`; `DRA_MCP_BEARER` fills gaps.
fn resolve_mcp(
    layers: &Layers,
    file: Vec<mcp::McpServer>,
    entries: &BTreeMap<&'static str, Entry>,
) -> Result<Vec<mcp::McpServer>, ConfigError> {
    let flags = mcp::parse_flags(&layers.mcp)?;
    let list = match entries.get(settings::MCP_SERVERS) {
        Some(Entry {
            value: Value::Json(json),
            origin,
        }) => mcp::parse_servers_json(&json.to_string(), &origin.to_string())?,
        _ => Vec::new(),
    };
    let single = match entries.get(settings::MCP_URL) {
        Some(Entry {
            value: Value::Text(url),
            origin,
        }) => {
            let label = match entries.get(settings::MCP_LABEL).map(|e| &e.value) {
                Some(Value::Text(l)) => Some(l.as_str()),
                _ => None,
            };
            vec![mcp::single(url, label, &origin.to_string())?]
        }
        _ => Vec::new(),
    };
    let bearer = match entries.get(settings::MCP_BEARER).map(|e| &e.value) {
        Some(Value::Secret(s)) => Some(s),
        _ => None,
    };
    Ok(mcp::resolve([flags, file, list, single], bearer))
}

fn read_config_file(
    layers: &Layers,
    warnings: &mut Vec<String>,
    mcp_tables: &mut Vec<mcp::McpServer>,
) -> Result<BTreeMap<&'static str, (String, Origin)>, ConfigError> {
    let mut out = BTreeMap::new();
    let Some(path) = layers.file.as_deref() else {
        return Ok(out);
    };
    if !layers.file_explicit && !path.exists() {
        return Ok(out);
    }
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::ReadFile {
        path: path.to_path_buf(),
        error,
    })?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::ParseFile {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    for (key, value) in table {
        if key == "mcp" {
            let origin = Origin::File(path.to_path_buf()).to_string();
            *mcp_tables = mcp::parse_toml_tables(&value, &origin)?;
            continue;
        }
        if settings::LEGACY_MODEL_KEYS.contains(&key.as_str()) {
            warnings.push(format!(
                "{}: `{key}` is a legacy per-model key and is ignored: models are chosen by tier (model_tier, see `dra tiers`)",
                path.display()
            ));
            continue;
        }
        let spec = SETTINGS
            .iter()
            .find(|s| s.file_key() == key || s.key == key)
            .ok_or_else(|| ConfigError::UnknownFileKey {
                path: path.to_path_buf(),
                key: key.clone(),
                hint: settings::file_key_hint(&key),
            })?;
        let raw = match value {
            toml::Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
            other => scalar(&other),
        };
        out.insert(spec.key, (raw, Origin::File(path.to_path_buf())));
    }
    Ok(out)
}

/// A TOML scalar as the string an environment variable would hold.
fn scalar(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) | toml::Value::Table(_) => String::new(),
    }
}

fn parse(
    spec: &SettingSpec,
    raw: &str,
    origin: &Origin,
    warnings: &mut Vec<String>,
) -> Result<Option<Value>, ConfigError> {
    let raw = raw.trim();
    let invalid = |expected: &str| ConfigError::Invalid {
        key: spec.key.to_string(),
        shown: if spec.is_secret() {
            "(secret value hidden)".into()
        } else {
            format!("{raw:?}")
        },
        origin: origin.clone(),
        expected: expected.to_string(),
    };
    Ok(Some(match spec.kind {
        Kind::Text | Kind::Path => Value::Text(raw.to_string()),
        Kind::Secret => Value::Secret(Secret::new(raw)),
        Kind::Url => {
            if !(raw.starts_with("http://") || raw.starts_with("https://")) || raw.len() < 10 {
                return Err(invalid("an http:// or https:// URL"));
            }
            Value::Text(raw.trim_end_matches('/').to_string())
        }
        Kind::Bool => Value::Bool(match raw.to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => true,
            "0" | "false" | "no" | "off" => false,
            _ => return Err(invalid("true or false")),
        }),
        Kind::Uint { min } => {
            let n: u64 = raw
                .parse()
                .map_err(|_| invalid(&format!("a whole number >= {min}")))?;
            if n < min {
                return Err(invalid(&format!("a whole number >= {min}")));
            }
            Value::Uint(n)
        }
        Kind::Float => {
            let x: f64 = raw
                .parse()
                .map_err(|_| invalid("a non-negative number such as 0.50"))?;
            if !x.is_finite() || x < 0.0 {
                return Err(invalid("a non-negative number such as 0.50"));
            }
            Value::Float(x)
        }
        Kind::Seconds => Value::Seconds(
            parse_duration(raw).ok_or_else(|| invalid("seconds, such as 90, 90s, 10m or 1h"))?,
        ),
        Kind::List => Value::List(
            raw.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Kind::McpServers => {
            // Checked in full here so a bad entry is named before any run;
            // the list is not echoed (entries may carry bearers and env).
            let hidden = |expected: String| ConfigError::Invalid {
                key: spec.key.to_string(),
                shown: "(list not shown: it may hold tokens)".into(),
                origin: origin.clone(),
                expected,
            };
            mcp::parse_servers_json(raw, &origin.to_string())
                .map_err(|e| hidden(format!("a valid list; {e}")))?;
            Value::Json(serde_json::from_str(raw).map_err(|e| hidden(e.to_string()))?)
        }
        Kind::Tier => {
            if tiers::find_tier(raw).is_none() {
                let names: Vec<_> = MODEL_TIERS.iter().map(|t| t.name).collect();
                warnings.push(format!(
                    "unknown model tier {raw:?} (from {origin}); using {} (known: {})",
                    tiers::DEFAULT_TIER,
                    names.join(", ")
                ));
                Value::Text(tiers::DEFAULT_TIER.to_string())
            } else {
                Value::Text(raw.to_string())
            }
        }
        Kind::Date => {
            chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d")
                .map_err(|_| invalid("a date, YYYY-MM-DD"))?;
            Value::Text(raw.to_string())
        }
        Kind::Choice(words) => {
            let lower = raw.to_ascii_lowercase();
            if !words.contains(&lower.as_str()) {
                return Err(invalid(&format!("one of {}", words.join(", "))));
            }
            Value::Text(lower)
        }
    }))
}

/// `90`, `90s`, `10m`, `1h`, `1.5` (seconds).
pub fn parse_duration(raw: &str) -> Option<Duration> {
    let raw = raw.trim();
    let (num, mult) = match raw.char_indices().last()? {
        (i, 's') => (&raw[..i], 1.0),
        (i, 'm') => (&raw[..i], 60.0),
        (i, 'h') => (&raw[..i], 3600.0),
        _ => (raw, 1.0),
    };
    let x: f64 = num.trim().parse().ok()?;
    (x.is_finite() && x > 0.0).then(|| Duration::from_secs_f64(x * mult))
}

/// Whether a path is writable as a directory (creating it if needed).
pub fn dir_is_writable(path: &Path) -> Result<(), std::io::Error> {
    std::fs::create_dir_all(path)?;
    tempfile::NamedTempFile::new_in(path).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(env: &[(&str, &str)]) -> Layers {
        Layers {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Layers::default()
        }
    }

    #[test]
    fn defaults_apply_with_origin() {
        let c = Config::resolve(&layers(&[])).unwrap();
        assert_eq!(c.uint(settings::MAX_TOOL_CALLS), Some(200));
        assert_eq!(
            c.get(settings::MAX_TOOL_CALLS).unwrap().origin,
            Origin::Default
        );
        assert_eq!(c.tier().name, "extra-low");
        assert!(c.api_key().is_none());
    }

    #[test]
    fn flags_beat_env_beat_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "max_tool_calls = 7\nmodel_tier = \"mid\"\n").unwrap();
        let mut l = layers(&[("DRA_MAX_TOOL_CALLS", "9")]);
        l.file = Some(file.clone());
        let c = Config::resolve(&l).unwrap();
        assert_eq!(c.uint(settings::MAX_TOOL_CALLS), Some(9));
        assert_eq!(c.tier().name, "mid");
        assert_eq!(
            c.get(settings::MODEL_TIER).unwrap().origin,
            Origin::File(file)
        );
        l.flags.insert(settings::MAX_TOOL_CALLS, "3".into());
        let c = Config::resolve(&l).unwrap();
        assert_eq!(c.uint(settings::MAX_TOOL_CALLS), Some(3));
        assert_eq!(
            c.get(settings::MAX_TOOL_CALLS).unwrap().origin,
            Origin::Flag
        );
    }

    #[test]
    fn dotenv_sits_between_env_and_file() {
        let dir = tempfile::tempdir().unwrap();
        let dotenv = dir.path().join(".env");
        std::fs::write(&dotenv, "DRA_MAX_RETRIES=5\nOPENROUTER_API_KEY=sk-x\n").unwrap();
        let mut l = layers(&[]);
        l.dotenv = Some(dotenv.clone());
        let c = Config::resolve(&l).unwrap();
        assert_eq!(c.uint(settings::MAX_RETRIES), Some(5));
        assert_eq!(c.api_key().unwrap().expose(), "sk-x");
        assert_eq!(
            c.get(settings::OPENAI_API_KEY).unwrap().origin,
            Origin::DotEnv(dotenv)
        );
        let mut l2 = l.clone();
        l2.env.insert("DRA_MAX_RETRIES".into(), "1".into());
        assert_eq!(
            Config::resolve(&l2).unwrap().uint(settings::MAX_RETRIES),
            Some(1)
        );
    }

    #[test]
    fn malformed_values_name_key_value_and_expectation() {
        let err = Config::resolve(&layers(&[("DRA_MAX_TOOL_CALLS", "lots")])).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("DRA_MAX_TOOL_CALLS")
                && msg.contains("\"lots\"")
                && msg.contains("whole number"),
            "{msg}"
        );
        let err = Config::resolve(&layers(&[("DRA_STREAMING", "maybe")])).unwrap_err();
        assert!(err.to_string().contains("true or false"));
        let err = Config::resolve(&layers(&[("OPENAI_BASE_URL", "ftp://x")])).unwrap_err();
        assert!(err.to_string().contains("http"));
        let err = Config::resolve(&layers(&[("DRA_MCP_SERVERS", "[{\"label\":1}]")])).unwrap_err();
        assert!(err.to_string().contains("DRA_MCP_SERVERS"));
        let err = Config::resolve(&layers(&[("DRA_DEADLINE", "soon")])).unwrap_err();
        assert!(err.to_string().contains("10m"));
    }

    #[test]
    fn unknown_tier_warns_and_falls_back() {
        let c = Config::resolve(&layers(&[("DRA_MODEL_TIER", "ultra")])).unwrap();
        assert_eq!(c.tier().name, "extra-low");
        assert!(c.warnings.iter().any(|w| w.contains("ultra")));
    }

    #[test]
    fn legacy_model_keys_warn_and_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "research_model = \"gpt-x\"\n").unwrap();
        let mut l = layers(&[("COMPRESSION_MODEL", "y")]);
        l.file = Some(file);
        let c = Config::resolve(&l).unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    }

    #[test]
    fn unknown_file_key_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "max_tool_cals = 3\n").unwrap();
        let mut l = layers(&[]);
        l.file = Some(file);
        let err = Config::resolve(&l).unwrap_err().to_string();
        assert!(err.contains("max_tool_cals"), "{err}");
    }

    #[test]
    fn secrets_are_redacted_and_not_echoed_in_errors() {
        let c = Config::resolve(&layers(&[("OPENAI_API_KEY", "sk-canary")])).unwrap();
        assert!(!c.redacted().to_string().contains("canary"));
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("-1"), None);
        assert_eq!(parse_duration("x"), None);
    }
}
