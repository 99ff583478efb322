//! OpenAI chat-completions JSON, both ways. Requests are built from our
//! [`Message`]s; responses and stream chunks are read into tolerant types:
//! every field optional, unknown fields ignored, and a field of an unexpected
//! type read as absent rather than failing the whole chunk (providers differ
//! in small ways, and one odd field must not cost a tool call).

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Message, Role, ToolCall, ToolSpec, Usage};

/// Reads a field as `Some(T)` when it has T's shape, `None` otherwise.
fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let v = Value::deserialize(d)?;
    Ok(serde_json::from_value(v).ok())
}

/// A completion or one stream chunk.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Completion {
    #[serde(deserialize_with = "lenient")]
    pub model: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub choices: Option<Vec<Choice>>,
    #[serde(deserialize_with = "lenient")]
    pub usage: Option<WireUsage>,
    #[serde(deserialize_with = "lenient")]
    pub error: Option<WireError>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Choice {
    #[serde(deserialize_with = "lenient")]
    pub index: Option<u64>,
    /// Non-streaming answers.
    #[serde(deserialize_with = "lenient")]
    pub message: Option<WireMessage>,
    /// Stream chunks.
    #[serde(deserialize_with = "lenient")]
    pub delta: Option<WireMessage>,
    #[serde(deserialize_with = "lenient")]
    pub finish_reason: Option<String>,
    /// OpenRouter reports a provider error on the choice itself.
    #[serde(deserialize_with = "lenient")]
    pub error: Option<WireError>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WireMessage {
    /// A string, or (some servers) an array of `{type:"text", text}` parts.
    pub content: Option<Value>,
    #[serde(deserialize_with = "lenient")]
    pub reasoning_content: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub reasoning: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub refusal: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub tool_calls: Option<Vec<WireToolCall>>,
}

impl WireMessage {
    pub fn text(&self) -> String {
        content_text(self.content.as_ref())
    }

    /// Reasoning text; when a provider sends both spellings they carry the
    /// same text, so one is taken, not both.
    pub fn thinking(&self) -> Option<&str> {
        self.reasoning_content
            .as_deref()
            .or(self.reasoning.as_deref())
            .filter(|s| !s.is_empty())
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WireToolCall {
    #[serde(deserialize_with = "lenient")]
    pub index: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub function: Option<WireFunction>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WireFunction {
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    /// A JSON string per the spec; some servers send the object itself.
    pub arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct WireUsage {
    #[serde(deserialize_with = "lenient")]
    pub prompt_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub completion_tokens: Option<u64>,
    /// OpenAI and OpenRouter: `prompt_tokens_details.cached_tokens`.
    pub prompt_tokens_details: Option<Value>,
    /// Anthropic-style gateways: cache reads counted apart.
    #[serde(deserialize_with = "lenient")]
    pub cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    pub fn to_usage(&self) -> Usage {
        let input = self.prompt_tokens.unwrap_or(0);
        let details = self
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.get("cached_tokens"))
            .and_then(Value::as_u64);
        let cached = details
            .into_iter()
            .chain(self.cache_read_input_tokens)
            .max()
            .unwrap_or(0);
        Usage {
            input_tokens: input,
            output_tokens: self.completion_tokens.unwrap_or(0),
            // Never more than the prompt: a provider's odd count is capped.
            cached_input_tokens: cached.min(input),
        }
    }
}

#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(default)]
pub struct WireError {
    #[serde(deserialize_with = "lenient")]
    pub message: Option<String>,
    /// A number (HTTP-like status) or a string, depending on the provider.
    pub code: Option<Value>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub kind: Option<String>,
}

impl WireError {
    /// The numeric code, when the provider gave one.
    pub fn status(&self) -> Option<u16> {
        match &self.code {
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u16::try_from(n).ok()),
            Some(Value::String(s)) => s.parse().ok(),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        let mut out = self.message.clone().unwrap_or_default();
        let code = match &self.code {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if let Some(extra) = code.or_else(|| self.kind.clone()) {
            if out.is_empty() {
                out = extra;
            } else {
                out = format!("{out} ({extra})");
            }
        }
        if out.is_empty() {
            out = "unspecified provider error".into();
        }
        out
    }
}

/// The text of a `content` value: a string, or the concatenated `text` of an
/// array of parts.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                other => other.get("text").and_then(Value::as_str),
            })
            .collect(),
        _ => String::new(),
    }
}

/// One message as the API wants it (native tool calling).
pub fn message_json(m: &Message) -> Value {
    let mut o = Map::new();
    o.insert("role".into(), json!(role_name(m.role)));
    match m.role {
        Role::Assistant => {
            if m.tool_calls.is_empty() || !m.content.is_empty() {
                o.insert("content".into(), json!(m.content));
            } else {
                // Several servers reject an empty string next to tool calls.
                o.insert("content".into(), Value::Null);
            }
            if !m.tool_calls.is_empty() {
                let calls: Vec<Value> = m.tool_calls.iter().map(tool_call_json).collect();
                o.insert("tool_calls".into(), Value::Array(calls));
            }
            if let Some(r) = &m.reasoning {
                o.insert("reasoning_content".into(), json!(r));
            }
        }
        Role::Tool => {
            o.insert("content".into(), json!(m.content));
            o.insert(
                "tool_call_id".into(),
                json!(m.tool_call_id.clone().unwrap_or_default()),
            );
        }
        Role::System | Role::User => {
            o.insert("content".into(), json!(m.content));
        }
    }
    Value::Object(o)
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn tool_call_json(c: &ToolCall) -> Value {
    json!({
        "id": c.id,
        "type": "function",
        "function": { "name": c.name, "arguments": arguments_string(&c.arguments) },
    })
}

/// The spec wants arguments as a JSON string; a string we hold (arguments
/// that never parsed) goes back as it was.
fn arguments_string(args: &Value) -> String {
    match args {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A tool as the API wants it, its schema cleaned.
pub fn tool_json(t: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": t.name,
            "description": t.description,
            "parameters": clean_schema(&t.parameters),
        },
    })
}

/// Drops `$schema` and `title` at every level: some providers reject a
/// schema carrying them (Gemini chokes on `$schema`). A property that is
/// itself named `title` is kept: only schema keywords are removed.
pub fn clean_schema(schema: &Value) -> Value {
    fn walk(v: &Value, in_properties: bool) -> Value {
        match v {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, child) in map {
                    if !in_properties && (k == "$schema" || k == "title") {
                        continue;
                    }
                    // Children of `properties` (and similar maps) are names,
                    // not keywords.
                    let names_follow = !in_properties
                        && matches!(
                            k.as_str(),
                            "properties" | "patternProperties" | "$defs" | "definitions"
                        );
                    out.insert(k.clone(), walk(child, names_follow));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(|i| walk(i, false)).collect()),
            other => other.clone(),
        }
    }
    if schema.is_null() {
        return json!({"type": "object", "properties": {}});
    }
    walk(schema, false)
}

/// The request body.
pub fn request_body(
    slug: &str,
    messages: Vec<Value>,
    tools: Option<Vec<Value>>,
    stream: bool,
) -> Value {
    let mut o = Map::new();
    o.insert("model".into(), json!(slug));
    o.insert("messages".into(), Value::Array(messages));
    if let Some(tools) = tools.filter(|t| !t.is_empty()) {
        o.insert("tools".into(), Value::Array(tools));
    }
    o.insert("stream".into(), json!(stream));
    if stream {
        o.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_keywords_go_but_properties_named_title_stay() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "title": {"type": "string", "title": "The title"},
                "tags": {"type": "array", "items": {"title": "Tag", "type": "string"}}
            }
        });
        let c = clean_schema(&s);
        assert_eq!(
            c,
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }
            })
        );
    }

    #[test]
    fn odd_fields_do_not_sink_a_chunk() {
        let c: Completion = serde_json::from_str(
            r#"{"model": 7, "choices": [{"index": "0", "delta": {"content": "hi", "tool_calls": null}, "finish_reason": 3}], "usage": {"prompt_tokens": "x", "completion_tokens": 4}, "extra": {}}"#,
        )
        .unwrap();
        let ch = &c.choices.unwrap()[0];
        assert_eq!(ch.delta.as_ref().unwrap().text(), "hi");
        assert_eq!(ch.index, None);
        assert_eq!(ch.finish_reason, None);
        assert_eq!(c.usage.unwrap().to_usage().output_tokens, 4);
        assert_eq!(c.model, None);
    }

    #[test]
    fn assistant_tool_calls_carry_string_arguments_and_reasoning() {
        let mut m = Message::assistant(
            "",
            vec![ToolCall {
                id: "c1".into(),
                name: "search".into(),
                arguments: json!({"q": "x"}),
            }],
        );
        m.reasoning = Some("because".into());
        let j = message_json(&m);
        assert_eq!(j["content"], Value::Null);
        assert_eq!(
            j["tool_calls"][0]["function"]["arguments"],
            json!("{\"q\":\"x\"}")
        );
        assert_eq!(j["reasoning_content"], json!("because"));
        let plain = message_json(&Message::assistant("hello", vec![]));
        assert!(plain.get("reasoning_content").is_none());
        assert!(plain.get("tool_calls").is_none());
    }

    #[test]
    fn content_parts_are_joined() {
        let v = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(content_text(Some(&v)), "ab");
    }
}
