//! Findings: what sub-researchers hand back and the report is written from.
//! Here, below both the engine and the report, so neither imports the other
//! for them.

use serde::{Deserialize, Serialize};

use crate::document::SourceType;

/// A finding as it leaves a sub-researcher: verified quote, numbered source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub claim: String,
    pub quote: String,
    pub url: String,
    /// The source number the report cites as `[n]`.
    pub source: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    #[serde(default)]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_type: Option<SourceType>,
}

/// What a sub-researcher hands back to the orchestrator.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Findings {
    pub unit: String,
    #[serde(default)]
    pub aspect: String,
    pub summary: String,
    pub findings: Vec<Finding>,
    pub gaps: Vec<String>,
    /// The direct answer to the sub-question (a name, a date, an amount),
    /// when the researcher gave one; its findings carry it as their value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// `Some(false)`: the researcher says the sources read do not answer
    /// the sub-question. `None`: it did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<bool>,
}
