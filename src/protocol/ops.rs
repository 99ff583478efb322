//! Operations a front end sends into the engine.

use serde::{Deserialize, Serialize};

/// Identity anchors for the entity researched: the identity gate rejects
/// pages about look-alikes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntityAnchors {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub industry: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// True when no anchor came from the user and the name was inferred
    /// from the question: the name then ranks pages, and only a look-alike
    /// is rejected (additive field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inferred: bool,
}

/// One research request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskRequest {
    pub question: String,
    pub anchors: EntityAnchors,
}

/// What a front end can ask of a running engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Start researching a question.
    Ask(AskRequest),
    /// Answers to the run's clarifying questions, in question order (an
    /// empty string means "no preference").
    Answer(Vec<String>),
    /// Stop the run as soon as possible, salvaging what was found.
    Interrupt,
    /// End the engine task once the current run (if any) has finished.
    Shutdown,
}
