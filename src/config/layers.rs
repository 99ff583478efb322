//! The layers a setting can come from, lowest last: flags, environment,
//! `.env` in the working directory, the config file (defaults are the
//! settings table's). Reading `.env` and the TOML file, with errors that name
//! the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::settings::SETTINGS;
use super::{ConfigError, mcp, settings};

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

pub(super) fn read_dotenv(layers: &Layers) -> Result<BTreeMap<String, String>, ConfigError> {
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
pub(super) fn dotenv_message(path: &Path, e: &dotenvy::Error) -> String {
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
pub(super) fn dotenv_line_of(text: &str, logical: &str, index: usize) -> Option<usize> {
    let start = text.find(logical).or_else(|| text.find(logical.trim()))?;
    let offset: usize = text[start..].chars().take(index).map(char::len_utf8).sum();
    Some(text[..start + offset].matches('\n').count() + 1)
}

pub(super) fn read_config_file(
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
pub(super) fn scalar(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Array(_) | toml::Value::Table(_) => String::new(),
    }
}
