//! The OpenAI-compatible chat-completions client (OpenRouter, vLLM, Ollama,
//! llama.cpp server): native tool calling or the JSON envelope protocol,
//! streaming or not, with timeouts and retries.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use backon::Retryable;
use serde_json::Value;

use super::envelope::{self, Envelope};
use super::retry::{self, Failure};
use super::sse::{self, Assembled};
use super::wire::{self, Completion};
use super::{
    ChatModel, ChatRequest, ChatResponse, Message, ModelError, ModelNotice, ModelRouter, ModelSink,
    ToolCall, Usage,
};
use crate::config::{Secret, Settings};

/// How tools reach the model (decided by `DRA_TOOL_PROTOCOL`).
pub use crate::config::ToolProtocol;

#[derive(Debug, thiserror::Error)]
pub enum ModelBuildError {
    #[error("no API key: set OPENAI_API_KEY (or OPENROUTER_API_KEY)")]
    NoApiKey,
    #[error("OPENAI_BASE_URL is not an http:// or https:// URL")]
    BaseUrl,
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Everything one client needs. [`OpenAiOptions::new`] fills the defaults.
#[derive(Clone)]
pub struct OpenAiOptions {
    /// Up to and without `/chat/completions`, e.g. `https://openrouter.ai/api/v1`.
    pub base_url: String,
    pub api_key: Secret,
    /// The model slug sent as `model`.
    pub slug: String,
    pub streaming: bool,
    pub protocol: ToolProtocol,
    /// Ceiling on one HTTP attempt, headers and whole body.
    pub request_timeout: Duration,
    /// A stream that sends nothing for this long is abandoned.
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    /// Retries after the first attempt (0 disables).
    pub max_retries: u32,
    /// First backoff delay; doubles up to `backoff_max`, plus jitter.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// The longest `Retry-After` honoured.
    pub retry_after_cap: Duration,
}

impl OpenAiOptions {
    pub fn new(base_url: impl Into<String>, api_key: Secret, slug: impl Into<String>) -> Self {
        OpenAiOptions {
            base_url: base_url.into(),
            api_key,
            slug: slug.into(),
            streaming: true,
            protocol: ToolProtocol::Auto,
            request_timeout: Duration::from_secs(180),
            idle_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(20),
            max_retries: 3,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
            retry_after_cap: Duration::from_secs(60),
        }
    }
}

// Written by hand: the base URL may carry credentials of its own.
impl std::fmt::Debug for OpenAiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiOptions")
            .field("base_url", &redact_url(&self.base_url))
            .field("api_key", &self.api_key)
            .field("slug", &self.slug)
            .field("streaming", &self.streaming)
            .field("protocol", &self.protocol)
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("backoff_max", &self.backoff_max)
            .field("retry_after_cap", &self.retry_after_cap)
            .finish()
    }
}

/// A URL fit to print: no user, password, query or fragment.
fn redact_url(raw: &str) -> String {
    match reqwest::Url::parse(raw.trim()) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => "(unparseable URL)".into(),
    }
}

/// A chat model behind an OpenAI-compatible endpoint.
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    opts: Arc<OpenAiOptions>,
    url: String,
    /// Set once the endpoint rejected `tools` (auto mode); shared by clones.
    envelope: Arc<AtomicBool>,
}

impl std::fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("options", &self.opts)
            .field("envelope_learnt", &self.envelope.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl OpenAiClient {
    pub fn new(opts: OpenAiOptions) -> Result<Self, ModelBuildError> {
        let base =
            reqwest::Url::parse(opts.base_url.trim()).map_err(|_| ModelBuildError::BaseUrl)?;
        if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
            return Err(ModelBuildError::BaseUrl);
        }
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("dra/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(opts.connect_timeout.min(opts.request_timeout));
        // A model server on this machine never needs a proxy, and keeping
        // loopback traffic off proxies keeps it on the machine.
        if is_loopback(&base) {
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|e| ModelBuildError::Client(e.without_url().to_string()))?;
        let url = format!(
            "{}/chat/completions",
            opts.base_url.trim().trim_end_matches('/')
        );
        Ok(OpenAiClient {
            http,
            opts: Arc::new(opts),
            url,
            envelope: Arc::new(AtomicBool::new(false)),
        })
    }

    pub fn options(&self) -> &OpenAiOptions {
        &self.opts
    }

    /// Whether calls now go through the JSON envelope protocol.
    pub fn uses_envelope(&self) -> bool {
        match self.opts.protocol {
            ToolProtocol::Native => false,
            ToolProtocol::Envelope => true,
            ToolProtocol::Auto => self.envelope.load(Ordering::Relaxed),
        }
    }

    async fn complete_native(
        &self,
        request: &ChatRequest,
        sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        let messages = request.messages.iter().map(wire::message_json).collect();
        let tools = request.tools.iter().map(wire::tool_json).collect();
        let body = wire::request_body(&self.opts.slug, messages, Some(tools), self.opts.streaming);
        let a = self.call(&body, sink).await?;
        let (content, thinking) = split_thinking(&a.content, &a.thinking);
        let tool_calls = native_calls(a.calls);
        Ok(self.response(content, tool_calls, thinking, a.usage.unwrap_or_default()))
    }

    async fn complete_envelope(
        &self,
        request: &ChatRequest,
        sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        let mut messages: Vec<Value> =
            envelope::convert_messages(&request.messages, &request.tools)
                .iter()
                .map(wire::message_json)
                .collect();
        let mut usage = Usage::default();
        let mut thinking = String::new();
        let mut last = None;
        for _ in 0..envelope::ATTEMPTS {
            let body =
                wire::request_body(&self.opts.slug, messages.clone(), None, self.opts.streaming);
            let a = self.call(&body, sink).await?;
            if let Some(u) = a.usage {
                usage.input_tokens += u.input_tokens;
                usage.output_tokens += u.output_tokens;
                usage.cached_input_tokens += u.cached_input_tokens;
            }
            let (content, t) = split_thinking(&a.content, &a.thinking);
            if let Some(t) = t {
                if !thinking.is_empty() {
                    thinking.push('\n');
                }
                thinking.push_str(&t);
            }
            let thinking_now = || (!thinking.is_empty()).then(|| thinking.clone());
            if request.tools.is_empty() {
                return Ok(self.response(content, vec![], thinking_now(), usage));
            }
            // A server that parsed calls out of the text itself.
            let calls = native_calls(a.calls);
            if !calls.is_empty() {
                return Ok(self.response(content, calls, thinking_now(), usage));
            }
            match envelope::parse(&content) {
                Ok(Envelope::Final(text)) => {
                    return Ok(self.response(text, vec![], thinking_now(), usage));
                }
                Ok(Envelope::Calls(calls)) => {
                    let calls = calls
                        .into_iter()
                        .map(|c| ToolCall {
                            id: new_call_id(),
                            name: c.name,
                            arguments: c.args,
                        })
                        .collect();
                    return Ok(self.response(String::new(), calls, thinking_now(), usage));
                }
                Err(m) => {
                    tracing::debug!(problem = %self.scrub(&m.problem), "malformed envelope; asking for a repair");
                    messages.push(wire::message_json(&Message::assistant(content, vec![])));
                    messages.push(wire::message_json(&Message::user(
                        envelope::repair_message(&m),
                    )));
                    last = Some(m);
                }
            }
        }
        let Some(m) = last else {
            return Err(ModelError::Malformed("no reply".into()));
        };
        if let Some(text) = m.salvage {
            let thinking = (!thinking.is_empty()).then_some(thinking);
            return Ok(self.response(text, vec![], thinking, usage));
        }
        Err(ModelError::Malformed(format!(
            "the reply stayed malformed after {} attempts: {}",
            envelope::ATTEMPTS,
            self.scrub(&m.problem)
        )))
    }

    fn response(
        &self,
        content: String,
        tool_calls: Vec<ToolCall>,
        thinking: Option<String>,
        usage: Usage,
    ) -> ChatResponse {
        ChatResponse {
            content,
            tool_calls,
            thinking,
            usage,
            model: self.opts.slug.clone(),
        }
    }

    /// One logical call: attempts with backoff until one succeeds, a failure
    /// is not worth retrying, or the retries run out.
    async fn call(&self, body: &Value, sink: &dyn ModelSink) -> Result<Assembled, ModelError> {
        let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
        let mut attempt = 0u32;
        let backoff = retry::backoff(
            self.opts.backoff_base,
            self.opts.backoff_max,
            self.opts.max_retries,
        );
        (|| self.attempt(body, stream, sink))
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|f: &Failure| f.retryable)
            .adjust(|f: &Failure, next: Option<Duration>| next.map(|d| f.retry_after.unwrap_or(d)))
            .notify(|f: &Failure, delay: Duration| {
                attempt += 1;
                sink.notice(ModelNotice::Retry {
                    attempt,
                    delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                    reason: f.reason.clone(),
                });
            })
            .await
            .map_err(|f| f.error)
    }

    async fn attempt(
        &self,
        body: &Value,
        stream: bool,
        sink: &dyn ModelSink,
    ) -> Result<Assembled, Failure> {
        let limit = self.opts.request_timeout;
        match tokio::time::timeout(limit, self.attempt_unbounded(body, stream, sink)).await {
            Ok(r) => r,
            Err(_) => Err(Failure::transient(
                ModelError::Timeout(limit.as_secs()),
                format!("no complete answer within {} ms", limit.as_millis()),
            )),
        }
    }

    async fn attempt_unbounded(
        &self,
        body: &Value,
        stream: bool,
        sink: &dyn ModelSink,
    ) -> Result<Assembled, Failure> {
        let resp = self
            .http
            .post(&self.url)
            .bearer_auth(self.opts.api_key.expose())
            .json(body)
            .send()
            .await
            .map_err(|e| self.transport_failure(e, "connection failed"))?;
        let status = resp.status();
        if !status.is_success() {
            let wait =
                retry::retry_after(resp.headers(), SystemTime::now(), self.opts.retry_after_cap);
            let text = resp.text().await.unwrap_or_default();
            return Err(self.status_failure(status.as_u16(), &text, wait));
        }
        let is_sse = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains("text/event-stream"));
        let assembled = if stream && is_sse {
            sse::read_stream(resp.bytes_stream(), self.opts.idle_timeout, sink).await?
        } else {
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| self.transport_failure(e, "answer dropped"))?;
            match serde_json::from_slice::<Completion>(&bytes) {
                Ok(c) => Assembled::from_completion(c),
                // A server that streams although asked not to (or mislabels
                // its stream).
                Err(_) if bytes.trim_ascii_start().starts_with(b"data:") => {
                    let once = futures::stream::iter([Ok::<_, std::io::Error>(bytes)]);
                    sse::read_stream(once, self.opts.idle_timeout, sink).await?
                }
                Err(e) => {
                    return Err(Failure::fatal(ModelError::Malformed(format!(
                        "the answer is not JSON ({e}): {}",
                        self.scrub(&excerpt(&String::from_utf8_lossy(&bytes), 200))
                    ))));
                }
            }
        };
        self.check(assembled)
    }

    /// In-band errors, refusals and truncation in an answer that came with
    /// a success status.
    fn check(&self, a: Assembled) -> Result<Assembled, Failure> {
        if let Some(err) = &a.error {
            let words = self.scrub(err);
            if mentions_refusal(err) {
                return Err(Failure::fatal(ModelError::Refused(words)));
            }
            if let Some(s) = a.error_status
                && (400..500).contains(&s)
                && !retry::retryable_status(s)
            {
                return Err(Failure::fatal(ModelError::Http {
                    status: s,
                    body_excerpt: words,
                }));
            }
            return Err(Failure::transient(
                ModelError::Failed(format!("provider error: {words}")),
                format!("provider error: {}", excerpt(&words, 80)),
            ));
        }
        if a.finish_reason.as_deref() == Some("content_filter") || !a.refusal.trim().is_empty() {
            let words = [a.refusal.trim(), a.content.trim()]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or("the provider's content filter stopped the answer");
            return Err(Failure::fatal(ModelError::Refused(self.scrub(words))));
        }
        if a.finish_reason.as_deref() == Some("error") {
            return Err(Failure::transient(
                ModelError::Failed("the provider ended the answer with an error".into()),
                "provider error",
            ));
        }
        if !a.done && a.finish_reason.is_none() {
            return Err(Failure::transient(
                ModelError::Connection("the stream ended before the answer was complete".into()),
                "stream truncated",
            ));
        }
        Ok(a)
    }

    fn status_failure(&self, status: u16, body: &str, wait: Option<Duration>) -> Failure {
        // Prefer the provider's own message over the raw body.
        let message = serde_json::from_str::<Completion>(body)
            .ok()
            .and_then(|c| c.error)
            .map(|e| e.describe())
            .unwrap_or_else(|| body.trim().to_string());
        let body_excerpt = self.scrub(&excerpt(&message, 500));
        if retry::retryable_status(status) {
            return Failure {
                error: ModelError::Http {
                    status,
                    body_excerpt,
                },
                retryable: true,
                retry_after: wait,
                reason: format!("HTTP {status}"),
            };
        }
        if mentions_refusal(body) {
            return Failure::fatal(ModelError::Refused(body_excerpt));
        }
        Failure::fatal(ModelError::Http {
            status,
            body_excerpt,
        })
    }

    fn transport_failure(&self, e: reqwest::Error, reason: &str) -> Failure {
        // The URL could carry credentials; the error chain says enough.
        let e = e.without_url();
        let builder = e.is_builder();
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        let error = ModelError::Connection(self.scrub(&text));
        if builder {
            Failure::fatal(error)
        } else {
            Failure::transient(error, reason)
        }
    }

    /// Removes the key from text bound for errors (providers echo keys in
    /// "invalid key" messages).
    fn scrub(&self, text: &str) -> String {
        let key = self.opts.api_key.expose();
        if key.len() >= 4 {
            text.replace(key, "***")
        } else {
            text.to_string()
        }
    }
}

#[async_trait]
impl ChatModel for OpenAiClient {
    fn slug(&self) -> &str {
        &self.opts.slug
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        if self.uses_envelope() {
            return self.complete_envelope(request, sink).await;
        }
        match self.complete_native(request, sink).await {
            Err(ModelError::Http {
                status,
                body_excerpt,
            }) if self.opts.protocol == ToolProtocol::Auto
                && !request.tools.is_empty()
                && rejects_tools(status, &body_excerpt) =>
            {
                self.envelope.store(true, Ordering::Relaxed);
                sink.notice(ModelNotice::Fallback {
                    detail: format!(
                        "{} rejected native tool calls (HTTP {status}); using the JSON envelope protocol from now on",
                        self.opts.slug
                    ),
                });
                self.complete_envelope(request, sink).await
            }
            other => other,
        }
    }
}

/// An endpoint saying it cannot take `tools` (Ollama: "does not support
/// tools"; OpenRouter: "No endpoints found that support tool use"; vLLM:
/// "auto tool choice requires --enable-auto-tool-choice").
fn rejects_tools(status: u16, body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    matches!(status, 400 | 404 | 422) && (b.contains("tool") || b.contains("function"))
}

fn mentions_refusal(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "content_filter",
        "content filter",
        "content policy",
        "content management policy",
        "safety system",
        "flagged",
        "moderation",
        "refus",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Reasoning some servers leave inline as a leading `<think>...</think>`.
fn split_thinking(content: &str, thinking: &str) -> (String, Option<String>) {
    let mut thinking = thinking.to_string();
    let mut content = content.to_string();
    let trimmed = content.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<think>")
        && let Some(end) = rest.find("</think>")
    {
        if !thinking.is_empty() {
            thinking.push('\n');
        }
        thinking.push_str(rest[..end].trim());
        content = rest[end + "</think>".len()..].trim_start().to_string();
    }
    let thinking = (!thinking.trim().is_empty()).then_some(thinking);
    (content, thinking)
}

/// Calls as the agent sees them. An entry with neither name nor arguments
/// (some servers open a call they never fill) is dropped.
fn native_calls(raw: Vec<sse::RawCall>) -> Vec<ToolCall> {
    raw.into_iter()
        .filter(|c| !(c.name.trim().is_empty() && c.arguments.trim().is_empty()))
        .map(|c| ToolCall {
            id: c.id.unwrap_or_else(new_call_id),
            name: c.name.trim().to_string(),
            arguments: parse_arguments(&c.arguments),
        })
        .collect()
}

/// Arguments as JSON; text that does not parse is passed on as a string so
/// the tool can say what is wrong with it.
fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(Default::default());
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

/// A unique id for a call the model did not number itself.
fn new_call_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 6];
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    if getrandom::fill(&mut bytes).is_err() {
        bytes[..6].copy_from_slice(&n.to_le_bytes()[..6]);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("call_{hex}{n}")
}

fn excerpt(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether streaming is used for `slug`: on, and no denylisted substring in
/// the slug.
pub fn streaming_allowed(slug: &str, enabled: bool, denylist: &[String]) -> bool {
    enabled
        && !denylist
            .iter()
            .any(|d| !d.is_empty() && slug.to_ascii_lowercase().contains(&d.to_ascii_lowercase()))
}

/// The options for `slug` from the settings.
pub fn options_from_settings(
    settings: &Settings,
    slug: &str,
) -> Result<OpenAiOptions, ModelBuildError> {
    let key = settings.api_key.clone().ok_or(ModelBuildError::NoApiKey)?;
    let m = &settings.model;
    let mut o = OpenAiOptions::new(&settings.base_url, key, slug);
    o.request_timeout = m.request_timeout;
    o.max_retries = m.max_retries;
    o.streaming = streaming_allowed(slug, m.streaming, &m.streaming_denylist);
    o.protocol = m.tool_protocol;
    Ok(o)
}

/// One client per tier slot (slots with the same slug share one, so a
/// fallback to the envelope protocol is learnt once), with the base URL
/// replaced for this run when `base_url` is given (the caller has checked it
/// with [`base_url_allowed`]).
pub fn router_from_settings(
    settings: &Settings,
    base_url: Option<&str>,
) -> Result<ModelRouter, ModelBuildError> {
    let tier = settings.tier;
    let mut built: Vec<(&str, Arc<dyn ChatModel>)> = Vec::new();
    let mut client = |slug: &'static str| -> Result<Arc<dyn ChatModel>, ModelBuildError> {
        if let Some((_, m)) = built.iter().find(|(s, _)| *s == slug) {
            return Ok(m.clone());
        }
        let mut options = options_from_settings(settings, slug)?;
        if let Some(base) = base_url {
            options.base_url = base.trim_end_matches('/').to_string();
        }
        let m: Arc<dyn ChatModel> = Arc::new(OpenAiClient::new(options)?);
        built.push((slug, m.clone()));
        Ok(m)
    };
    Ok(ModelRouter {
        research: client(tier.research.slug)?,
        subagent: client(tier.subagent.slug)?,
        utility: client(tier.utility.slug)?,
    })
}

/// The key-exfiltration guard: a run may point the model client only at the
/// configured base URL or one on `DRA_ALLOWED_BASE_URLS`, compared as
/// scheme, host, port (default ports filled in) and path (trailing slash
/// ignored). A requested URL with a query or fragment is refused.
pub fn base_url_allowed(configured: &str, requested: &str, allowlist: &[String]) -> bool {
    let Some(want) = normalise_base(requested) else {
        return false;
    };
    std::iter::once(configured)
        .chain(allowlist.iter().map(String::as_str))
        .filter_map(normalise_base)
        .any(|n| n == want)
}

fn normalise_base(raw: &str) -> Option<(String, String, u16, String)> {
    let url = reqwest::Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https")
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return None;
    }
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some((
        url.scheme().to_string(),
        host,
        url.port_or_known_default()?,
        url.path().trim_end_matches('/').to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_guard() {
        let conf = "https://openrouter.ai/api/v1";
        let allow = vec!["http://127.0.0.1:8000/v1".to_string()];
        for ok in [
            "https://openrouter.ai/api/v1",
            "https://OpenRouter.ai:443/api/v1/",
            "https://openrouter.ai./api/v1",
            "http://127.0.0.1:8000/v1/",
        ] {
            assert!(base_url_allowed(conf, ok, &allow), "{ok}");
        }
        for bad in [
            "https://openrouter.ai.evil.com/api/v1",
            "https://openrouter.ai@evil.com/api/v1",
            "http://openrouter.ai/api/v1",
            "https://openrouter.ai:8443/api/v1",
            "https://openrouter.ai/api/v2",
            "https://openrouter.ai/api/v1?x=1",
            "http://127.0.0.1:8001/v1",
            "ftp://openrouter.ai/api/v1",
            "not a url",
        ] {
            assert!(!base_url_allowed(conf, bad, &allow), "{bad}");
        }
    }

    #[test]
    fn streaming_denylist_matches_substrings() {
        let deny = vec!["deepseek-v4-flash".to_string()];
        assert!(!streaming_allowed(
            "deepseek/deepseek-v4-flash",
            true,
            &deny
        ));
        assert!(streaming_allowed("deepseek/deepseek-v4-pro", true, &deny));
        assert!(!streaming_allowed("xiaomi/mimo-v2.5", false, &deny));
    }

    #[test]
    fn inline_thinking_moves_out_of_the_content() {
        assert_eq!(
            split_thinking("<think>plan</think>\n\nanswer", ""),
            ("answer".to_string(), Some("plan".to_string()))
        );
        assert_eq!(
            split_thinking("no tags", "r"),
            ("no tags".to_string(), Some("r".to_string()))
        );
    }

    #[test]
    fn tool_rejections_are_recognised() {
        assert!(rejects_tools(
            400,
            "registry.ollama.ai/library/gemma:2b does not support tools"
        ));
        assert!(rejects_tools(
            404,
            "No endpoints found that support tool use."
        ));
        assert!(!rejects_tools(400, "context length exceeded"));
        assert!(!rejects_tools(500, "tools broke"));
    }

    #[test]
    fn call_ids_are_unique() {
        let a = new_call_id();
        let b = new_call_id();
        assert_ne!(a, b);
        assert!(a.starts_with("call_"));
    }
}
