//! Streamed answers: SSE events (parsed by `eventsource-stream`) folded into
//! one answer. Content and reasoning deltas are appended; tool-call pieces
//! are matched to their call by `index`, or by `id` when a provider sends no
//! index, or appended to the last call when a piece carries neither.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use serde_json::Value;

use super::retry::Failure;
use super::wire::{Completion, WireError, WireToolCall, content_text};
use super::{ModelError, ModelNotice, ModelSink, Usage};

/// A tool call as the wire delivered it, arguments still a string.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawCall {
    pub index: Option<u64>,
    pub id: Option<String>,
    pub name: String,
    pub arguments: String,
}

/// An answer put together from a completion or from stream chunks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assembled {
    pub content: String,
    pub thinking: String,
    pub calls: Vec<RawCall>,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
    pub refusal: String,
    pub error: Option<String>,
    /// The numeric code of an in-band error, when given.
    pub error_status: Option<u16>,
    /// The stream said `[DONE]`.
    pub done: bool,
}

impl Assembled {
    /// A whole (non-streamed) completion.
    pub fn from_completion(c: Completion) -> Self {
        let mut a = Assembled {
            done: true,
            ..Assembled::default()
        };
        a.note_error(c.error.as_ref());
        if let Some(u) = &c.usage {
            a.usage = Some(u.to_usage());
        }
        let choice = c
            .choices
            .unwrap_or_default()
            .into_iter()
            .find(|ch| ch.index.unwrap_or(0) == 0);
        if let Some(ch) = choice {
            a.note_error(ch.error.as_ref());
            a.finish_reason = ch.finish_reason;
            if let Some(m) = ch.message.or(ch.delta) {
                a.content = m.text();
                a.thinking = m.thinking().unwrap_or_default().to_string();
                a.refusal = m.refusal.clone().unwrap_or_default();
                // In a whole message every entry is its own call.
                for (i, tc) in m.tool_calls.unwrap_or_default().into_iter().enumerate() {
                    let f = tc.function.unwrap_or_default();
                    a.calls.push(RawCall {
                        index: Some(i as u64),
                        id: tc.id.filter(|s| !s.is_empty()),
                        name: f.name.unwrap_or_default(),
                        arguments: arguments_text(f.arguments.as_ref()),
                    });
                }
            }
        }
        a
    }

    /// Folds one stream chunk in, reporting reasoning as it arrives.
    pub fn push_chunk(&mut self, c: Completion, sink: &dyn ModelSink) {
        self.note_error(c.error.as_ref());
        if let Some(u) = &c.usage {
            self.usage = Some(u.to_usage());
        }
        for ch in c.choices.unwrap_or_default() {
            // We ask for one choice; a server that sends more gets the first.
            if ch.index.unwrap_or(0) != 0 {
                continue;
            }
            self.note_error(ch.error.as_ref());
            if let Some(r) = ch.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_reason = Some(r);
            }
            let Some(d) = ch.delta.or(ch.message) else {
                continue;
            };
            let text = content_text(d.content.as_ref());
            self.content.push_str(&text);
            if let Some(t) = d.thinking() {
                self.thinking.push_str(t);
                sink.notice(ModelNotice::ThinkingDelta(t.to_string()));
            }
            if let Some(r) = d.refusal.as_deref() {
                self.refusal.push_str(r);
            }
            for tc in d.tool_calls.unwrap_or_default() {
                self.push_call_piece(tc);
            }
        }
    }

    fn push_call_piece(&mut self, tc: WireToolCall) {
        let id = tc.id.filter(|s| !s.is_empty());
        let slot = match (tc.index, &id) {
            (Some(ix), id) => self.calls.iter().rposition(|c| {
                // Some servers number every call 0 but give each its own id.
                c.index == Some(ix) && (id.is_none() || c.id.is_none() || c.id == *id)
            }),
            (None, Some(id)) => self.calls.iter().rposition(|c| c.id.as_ref() == Some(id)),
            (None, None) => self.calls.len().checked_sub(1),
        };
        let i = match slot {
            Some(i) => i,
            None => {
                self.calls.push(RawCall {
                    index: tc.index,
                    ..RawCall::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[i];
        if call.id.is_none() {
            call.id = id;
        }
        let f = tc.function.unwrap_or_default();
        if let Some(name) = f.name.filter(|n| !n.is_empty()) {
            // Some servers repeat the whole name on every piece.
            if call.name != name {
                call.name.push_str(&name);
            }
        }
        match f.arguments {
            Some(Value::String(s)) => call.arguments.push_str(&s),
            Some(Value::Null) | None => {}
            // An object is the whole arguments at once.
            Some(other) => call.arguments = other.to_string(),
        }
    }

    fn note_error(&mut self, e: Option<&WireError>) {
        if let Some(e) = e {
            self.error = Some(e.describe());
            self.error_status = e.status();
        }
    }
}

fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Parses one event's data; a data field holding several JSON lines (two
/// `data:` lines with no blank line between) is read line by line.
fn parse_data(data: &str) -> Vec<Completion> {
    if let Ok(c) = serde_json::from_str::<Completion>(data) {
        return vec![c];
    }
    data.lines()
        .filter_map(|l| serde_json::from_str::<Completion>(l.trim()).ok())
        .collect()
}

/// Reads an SSE byte stream to its end (or `[DONE]`), failing when no bytes
/// arrive for `idle`. Any bytes count, keep-alive comments included: they
/// exist to tell a slow model from a dead connection. Transport errors and
/// early ends are transient.
pub async fn read_stream<S, B, E>(
    bytes: S,
    idle: Duration,
    sink: &dyn ModelSink,
) -> Result<Assembled, Failure>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let base = tokio::time::Instant::now();
    // Microseconds after `base` at which bytes last arrived.
    let last_bytes = AtomicU64::new(0);
    let since_base = || u64::try_from(base.elapsed().as_micros()).unwrap_or(u64::MAX);
    let mut events = bytes
        .inspect(|_| last_bytes.store(since_base(), Ordering::Relaxed))
        .eventsource();
    let mut out = Assembled::default();
    loop {
        let deadline = base + Duration::from_micros(last_bytes.load(Ordering::Relaxed)) + idle;
        let next = match tokio::time::timeout_at(deadline, events.next()).await {
            Ok(n) => n,
            // Bytes came in (a comment, part of an event) since the deadline
            // was set: wait on. `next()` is cancel-safe, nothing is lost.
            Err(_)
                if base + Duration::from_micros(last_bytes.load(Ordering::Relaxed)) + idle
                    > tokio::time::Instant::now() =>
            {
                continue;
            }
            Err(_) => {
                let idle_ms = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
                return Err(Failure::transient(
                    ModelError::Stalled { idle_ms },
                    format!("stream stalled ({idle_ms} ms without data)"),
                ));
            }
        };
        let event = match next {
            None => break,
            Some(Ok(ev)) => ev,
            Some(Err(EventStreamError::Transport(e))) => {
                return Err(Failure::transient(
                    ModelError::Connection(format!("stream dropped: {e}")),
                    "stream dropped",
                ));
            }
            Some(Err(e)) => {
                return Err(Failure::transient(
                    ModelError::Malformed(format!("unreadable stream: {e}")),
                    "unreadable stream",
                ));
            }
        };
        let data = event.data.trim();
        if data.is_empty() {
            continue;
        }
        if data == "[DONE]" {
            out.done = true;
            break;
        }
        let chunks = parse_data(data);
        if event.event == "error" {
            let wire = chunks
                .into_iter()
                .find_map(|c| c.error)
                .or_else(|| serde_json::from_str::<WireError>(data).ok())
                .unwrap_or_else(|| WireError {
                    message: Some(data.chars().take(300).collect()),
                    ..WireError::default()
                });
            out.note_error(Some(&wire));
            break;
        }
        if chunks.is_empty() {
            // Only the size: provider text is not for logs.
            tracing::debug!(bytes = data.len(), "skipping an unreadable stream chunk");
        }
        for c in chunks {
            out.push_chunk(c, sink);
        }
        if out.error.is_some() {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::NoSink;
    use proptest::prelude::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Collect(Mutex<Vec<ModelNotice>>);
    impl ModelSink for Collect {
        fn notice(&self, n: ModelNotice) {
            self.0.lock().unwrap().push(n);
        }
    }

    fn chunk(v: serde_json::Value) -> Completion {
        serde_json::from_value(v).unwrap()
    }

    async fn read(body: &str, pieces: &[usize]) -> Assembled {
        let bytes = body.as_bytes();
        let mut parts = Vec::new();
        let mut at = 0;
        for &p in pieces {
            let end = (at + p).min(bytes.len());
            parts.push(Ok::<_, std::io::Error>(bytes[at..end].to_vec()));
            at = end;
        }
        parts.push(Ok(bytes[at..].to_vec()));
        read_stream(
            futures::stream::iter(parts),
            Duration::from_secs(5),
            &NoSink,
        )
        .await
        .unwrap()
    }

    #[test]
    fn pieces_by_index_by_id_and_by_neither() {
        let mut a = Assembled::default();
        let s = NoSink;
        for v in [
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"search","arguments":"{\"q\":"}}]}}]}),
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"x\"}"}}]}}]}),
            // Gemini style: no index, an id per call.
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"fetch","arguments":"{\"url\":"}}]}}]}),
            // Neither: belongs to the last call.
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"u\"}"}}]}}]}),
            // Same index, new id: a new call.
            serde_json::json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"todo","arguments":{"k":1}}}]}}]}),
        ] {
            a.push_chunk(chunk(v), &s);
        }
        let got: Vec<(Option<&str>, &str, &str)> = a
            .calls
            .iter()
            .map(|c| (c.id.as_deref(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("a"), "search", "{\"q\":\"x\"}"),
                (Some("b"), "fetch", "{\"url\":\"u\"}"),
                (Some("c"), "todo", "{\"k\":1}"),
            ]
        );
    }

    #[tokio::test]
    async fn comments_garbage_empty_choices_and_usage() {
        let body = concat!(
            ": keep-alive\n\n",
            "this line is not sse\n\n",
            "data: {not json}\n\n",
            "data: {\"choices\":[]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
            ": OPENROUTER PROCESSING\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":2}}\n\n",
            "data: [DONE]\n\n",
        );
        let a = read(body, &[3, 17, 40]).await;
        assert_eq!(a.content, "Hello");
        assert_eq!(a.thinking, "hm");
        assert_eq!(a.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            a.usage,
            Some(Usage {
                input_tokens: 11,
                output_tokens: 2,
                cached_input_tokens: 0
            })
        );
        assert!(a.done);
    }

    #[tokio::test]
    async fn reasoning_is_reported_as_it_streams() {
        let body = concat!(
            "data: {\"choices\":[{\"delta\":{\"reasoning\":\"a\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"reasoning\":\"b\",\"reasoning_content\":\"b\"}}]}\n\n",
            "data: [DONE]\n\n",
        );
        let sink = Collect::default();
        let a = read_stream(
            futures::stream::iter([Ok::<_, std::io::Error>(body.as_bytes().to_vec())]),
            Duration::from_secs(5),
            &sink,
        )
        .await
        .unwrap();
        assert_eq!(a.thinking, "ab");
        assert_eq!(
            *sink.0.lock().unwrap(),
            vec![
                ModelNotice::ThinkingDelta("a".into()),
                ModelNotice::ThinkingDelta("b".into())
            ]
        );
    }

    #[tokio::test]
    async fn an_in_band_error_is_kept() {
        let body = "data: {\"error\":{\"message\":\"Provider disconnected\",\"code\":502}}\n\n";
        let a = read(body, &[]).await;
        assert_eq!(a.error_status, Some(502));
        assert!(a.error.unwrap().contains("Provider disconnected"));
    }

    fn sse_body(content: &[String], args: &[String]) -> String {
        let mut body = String::new();
        for c in content {
            let v = serde_json::json!({"choices":[{"delta":{"content": c}}]});
            body.push_str(&format!("data: {v}\n\n"));
        }
        for (i, a) in args.iter().enumerate() {
            let mut tc = serde_json::json!({"index": 0, "function": {"arguments": a}});
            if i == 0 {
                tc["id"] = "call_1".into();
                tc["function"]["name"] = "search".into();
            }
            let v = serde_json::json!({"choices":[{"delta":{"tool_calls":[tc]}}]});
            body.push_str(&format!("data: {v}\n\n"));
        }
        body.push_str(
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
        );
        body
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// However the bytes are cut, and however the text is spread over
        /// chunks, the assembled answer is the same.
        #[test]
        fn chunking_never_changes_the_answer(
            text in "[a-zé{}\"\\\\ \n]{0,60}",
            args in "[a-z0-9:{}\"]{0,40}",
            cuts in proptest::collection::vec(1usize..9, 0..40),
            spread in 1usize..6,
        ) {
            let split = |s: &str| -> Vec<String> {
                let chars: Vec<char> = s.chars().collect();
                chars.chunks(spread).map(|c| c.iter().collect()).collect()
            };
            let body = sse_body(&split(&text), &split(&args));
            let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            let a = rt.block_on(read(&body, &cuts));
            prop_assert_eq!(&a.content, &text);
            if args.is_empty() {
                prop_assert!(a.calls.is_empty());
            } else {
                prop_assert_eq!(a.calls.len(), 1);
                prop_assert_eq!(&a.calls[0].arguments, &args);
            }
            prop_assert!(a.done);
        }

        /// A streamed envelope reads the same as the whole text.
        #[test]
        fn a_streamed_envelope_parses_like_the_whole(
            prose in "[a-z .]{0,20}",
            q in "[ -~]{0,20}",
            form in 0usize..4,
            cuts in proptest::collection::vec(1usize..7, 0..60),
            spread in 1usize..5,
        ) {
            use crate::engine::model::envelope::parse;
            let call = serde_json::json!({"type":"tool_call","name":"search","args":{"q": q}}).to_string();
            let text = match form {
                0 => call,
                1 => format!("```json\n{call}\n```\n{prose}"),
                2 => format!("{call}{call}"),
                _ => format!("{prose}\nFINAL>>> {q}"),
            };
            let chars: Vec<char> = text.chars().collect();
            let pieces: Vec<String> = chars.chunks(spread).map(|c| c.iter().collect()).collect();
            let body = sse_body(&pieces, &[]);
            let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            let a = rt.block_on(read(&body, &cuts));
            prop_assert_eq!(parse(&a.content), parse(&text));
        }
    }
}
