//! The OpenAI-compatible model client against a scripted server on loopback:
//! what it sends, what it makes of what comes back, and how it survives
//! failures.

mod config;
mod envelope;
mod gateway;
mod native;
mod resilience;
pub mod scripted;

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use dra::config::{ModelRole, Secret};
use dra::engine::model::openai::{OpenAiClient, OpenAiOptions, ToolProtocol};
use dra::engine::model::{ChatRequest, Message, ModelNotice, ModelSink, ToolSpec};
use serde_json::json;

use scripted::Scripted;

/// A key no error, log or event may ever show.
pub const KEY: &str = "sk-or-v1-canary-7d3f9a1c5e";

/// Options for tests: milliseconds where production waits seconds.
pub fn options(server: &Scripted, slug: &str) -> OpenAiOptions {
    let mut o = OpenAiOptions::new(server.base_url(), Secret::new(KEY), slug);
    o.streaming = false;
    o.protocol = ToolProtocol::Native;
    o.request_timeout = Duration::from_secs(5);
    o.idle_timeout = Duration::from_millis(300);
    o.backoff_base = Duration::from_millis(5);
    o.backoff_max = Duration::from_millis(20);
    o.retry_after_cap = Duration::from_secs(2);
    o.max_retries = 3;
    o
}

pub fn client(o: OpenAiOptions) -> OpenAiClient {
    OpenAiClient::new(o).unwrap()
}

/// Collects notices.
#[derive(Default)]
pub struct Notices(pub Mutex<Vec<ModelNotice>>);

impl ModelSink for Notices {
    fn notice(&self, n: ModelNotice) {
        self.0.lock().unwrap().push(n);
    }
}

impl Notices {
    pub fn all(&self) -> Vec<ModelNotice> {
        self.0.lock().unwrap().clone()
    }

    pub fn retries(&self) -> Vec<(u32, u64, String)> {
        self.all()
            .into_iter()
            .filter_map(|n| match n {
                ModelNotice::Retry {
                    attempt,
                    delay_ms,
                    reason,
                } => Some((attempt, delay_ms, reason)),
                _ => None,
            })
            .collect()
    }
}

/// Every test body runs under this ceiling.
pub async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), f)
        .await
        .expect("test exceeded its 30 s ceiling")
}

pub fn search_tool() -> ToolSpec {
    ToolSpec {
        name: "web_search".into(),
        description: "Search the web".into(),
        parameters: json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "WebSearchArgs",
            "type": "object",
            "properties": {"query": {"type": "string", "title": "Query"}},
            "required": ["query"]
        }),
    }
}

pub fn request(messages: Vec<Message>, tools: Vec<ToolSpec>) -> ChatRequest {
    ChatRequest {
        role: ModelRole::Research,
        messages,
        tools,
    }
}

pub fn question() -> Vec<Message> {
    vec![
        Message::system("You research."),
        Message::user("Who runs PadmaPay?"),
    ]
}
