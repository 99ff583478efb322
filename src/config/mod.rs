//! Layered configuration with provenance: flags > environment > `.env` in
//! the working directory > config file > defaults. Every value remembers
//! where it came from, so `dra doctor` can say. `layers` reads the sources,
//! `values` parses a raw string for its setting's kind, this module resolves
//! them into a [`Config`] (the provenance table), and `typed` turns that
//! into the [`Settings`] the rest of the code reads.

mod layers;
pub mod mcp;
mod sandbox;
mod secret;
pub mod settings;
pub mod tiers;
mod typed;
mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

pub use layers::{Layers, Origin, default_config_path, default_data_dir};
use layers::{read_config_file, read_dotenv};
pub use sandbox::ExecSettings;
pub use secret::Secret;
pub use settings::{Kind, SETTINGS, SettingSpec};
pub use tiers::{MODEL_TIERS, ModelRole, ModelSlot, ModelTier};
pub use typed::{
    CorpusSettings, CustomToolsSettings, FetchSettings, Limits, ModelSettings, OffloadSettings,
    SearchSettings, ServeSettings, Settings, ToolProtocol, table_default,
};
use values::parse;
pub use values::{Entry, Value, parse_duration};

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
            let value = match parse(spec, &raw, &origin)? {
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
    fn an_unknown_tier_is_an_error_that_lists_the_tiers() {
        let err = Config::resolve(&layers(&[("DRA_MODEL_TIER", "ultra")])).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("\"ultra\"") && msg.contains("extra-low, low, mid, high"),
            "{msg}"
        );
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
