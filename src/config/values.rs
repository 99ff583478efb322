//! Values of settings: what a raw string means for a setting's kind
//! (number, duration, bool, secret, JSON, one of some words), and where it
//! came from.

use std::time::Duration;

use serde_json::Value as Json;

use super::settings::{Kind, SettingSpec};
use super::tiers::MODEL_TIERS;
use super::{ConfigError, Origin, Secret, mcp, tiers};

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

pub(super) fn parse(
    spec: &SettingSpec,
    raw: &str,
    origin: &Origin,
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
            // An unknown tier is a mistake, not a wish for the cheapest one.
            if tiers::find_tier(raw).is_none() {
                let names: Vec<_> = MODEL_TIERS.iter().map(|t| t.name).collect();
                return Err(invalid(&format!(
                    "one of the model tiers {} (see `dra tiers`)",
                    names.join(", ")
                )));
            }
            Value::Text(raw.to_string())
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
