//! The chat-model seam: an OpenAI-shaped request and response, and the
//! trait every model implements (the offline extractive model in
//! `engine::offline`, the OpenAI-compatible HTTP client).

pub mod envelope;
pub mod openai;
pub mod retry;
pub mod sse;
pub mod wire;

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::ModelRole;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For tool messages: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// For assistant messages: the model's reasoning on that turn. Some
    /// providers (DeepSeek) refuse the next turn unless it is sent back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message {
            tool_calls,
            ..Self::plain(Role::Assistant, content)
        }
    }

    pub fn tool(call: &ToolCall, content: impl Into<String>) -> Self {
        Message {
            tool_call_id: Some(call.id.clone()),
            name: Some(call.name.clone()),
            ..Self::plain(Role::Tool, content)
        }
    }

    fn plain(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            reasoning: None,
        }
    }
}

/// A tool as the model sees it: name, description, JSON Schema of arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChatRequest {
    pub role: ModelRole,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input tokens, those the provider read from its prompt cache
    /// (a repeated prefix), billed at its cached rate.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub content: String,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    pub usage: Usage,
    /// The model that answered (slug).
    pub model: String,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum ModelError {
    #[error("model call failed: {0}")]
    Failed(String),
    #[error("the provider refused the request: {0}")]
    Refused(String),
    #[error("model call timed out after {0} s")]
    Timeout(u64),
    /// The endpoint answered with an error status (after any retries).
    #[error("model endpoint answered HTTP {status}: {body_excerpt}")]
    Http { status: u16, body_excerpt: String },
    /// The connection failed or dropped (after any retries).
    #[error("model endpoint connection failed: {0}")]
    Connection(String),
    /// A streamed answer stopped sending data.
    #[error("model stream stalled: no data for {idle_ms} ms")]
    Stalled { idle_ms: u64 },
    /// The answer could not be understood (not JSON, or an envelope that
    /// stayed malformed through every repair attempt).
    #[error("model answer malformed: {0}")]
    Malformed(String),
}

/// What a model client reports while a call is in flight.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelNotice {
    /// A transient failure; the call is retried after `delay_ms`.
    Retry {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
    /// The client changed how it talks to the endpoint (for example, fell
    /// back to the JSON envelope protocol because `tools` was rejected).
    Fallback { detail: String },
    /// A piece of reasoning text, as it streams.
    ThinkingDelta(String),
}

/// Receives [`ModelNotice`]s; the agent loop turns them into events.
pub trait ModelSink: Send + Sync {
    fn notice(&self, notice: ModelNotice);
}

/// A sink that drops everything (tests, one-off calls).
pub struct NoSink;

impl ModelSink for NoSink {
    fn notice(&self, _: ModelNotice) {}
}

#[async_trait]
pub trait ChatModel: Send + Sync {
    /// The model slug, for metering and records.
    fn slug(&self) -> &str;
    async fn complete(
        &self,
        request: &ChatRequest,
        sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError>;
}

/// One model per tier slot.
#[derive(Clone)]
pub struct ModelRouter {
    pub research: Arc<dyn ChatModel>,
    pub subagent: Arc<dyn ChatModel>,
    pub utility: Arc<dyn ChatModel>,
}

impl ModelRouter {
    pub fn single(model: Arc<dyn ChatModel>) -> Self {
        ModelRouter {
            research: model.clone(),
            subagent: model.clone(),
            utility: model,
        }
    }

    pub fn for_role(&self, role: ModelRole) -> &Arc<dyn ChatModel> {
        match role {
            ModelRole::Research => &self.research,
            ModelRole::Subagent => &self.subagent,
            ModelRole::Utility => &self.utility,
        }
    }
}

/// A rough token estimate (4 characters a token) for models that report no usage.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}
