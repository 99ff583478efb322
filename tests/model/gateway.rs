//! Behind LiteLLM: the upstream's `Retry-After` forwarded as
//! `llm_provider-retry-after(-ms)`, an in-band `data: {"error": ...}` with no
//! `[DONE]`, and usage chunks with an empty choice or no choices.

use std::time::{Duration, Instant};

use dra::engine::model::{ChatModel, ModelError, Usage};
use serde_json::json;

use super::scripted::{Piece, Reply, Scripted, data, delta, finish, text_completion};
use super::{Notices, client, options, question, request, within};

/// A LiteLLM stream: the chunks, and no `[DONE]` after them.
fn sse_without_done(chunks: &[serde_json::Value]) -> Reply {
    Reply::Sse(chunks.iter().map(|c| Piece::Raw(data(c))).collect())
}

#[tokio::test]
async fn llm_provider_retry_after_is_honoured() {
    within(async {
        let server = Scripted::start(vec![
            Reply::status(
                429,
                json!({"error": {"message": "litellm.RateLimitError: slow down", "code": "429"}}),
            )
            .header("llm_provider-retry-after", "1"),
            Reply::status(503, json!({"error": {"message": "upstream busy"}}))
                .header("llm_provider-retry-after-ms", "700"),
            Reply::json(text_completion("after the waits")),
        ])
        .await;
        let model = client(options(&server, "litellm/rl"));
        let notices = Notices::default();
        let started = Instant::now();
        let r = model
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        let waited = started.elapsed();
        assert_eq!(r.content, "after the waits");
        assert!(waited >= Duration::from_millis(1650), "{waited:?}");
        assert_eq!(
            notices.retries(),
            vec![
                (1, 1000, "HTTP 429".to_string()),
                (2, 700, "HTTP 503".to_string())
            ]
        );
        assert_eq!(server.requests().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn an_in_band_error_without_done_is_retried_when_transient() {
    within(async {
        let server = Scripted::start(vec![
            sse_without_done(&[
                delta(json!({"content": "par"})),
                json!({"error": {"message": "litellm.ServiceUnavailableError: upstream overloaded", "type": "None", "param": "None", "code": "503"}}),
            ]),
            Reply::sse(&{
                let mut c = vec![delta(json!({"content": "whole answer"}))];
                c.extend(finish("stop", (4, 2)));
                c
            }),
        ])
        .await;
        let mut o = options(&server, "litellm/inband");
        o.streaming = true;
        let notices = Notices::default();
        let r = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "whole answer", "the partial answer is not kept");
        let retries = notices.retries();
        assert_eq!(retries.len(), 1, "{retries:?}");
        assert!(retries[0].2.contains("upstream overloaded"), "{retries:?}");
    })
    .await;
}

#[tokio::test]
async fn an_in_band_client_error_without_done_is_a_clear_model_error() {
    within(async {
        let server = Scripted::start(vec![sse_without_done(&[json!({
            "error": {"message": "litellm.BadRequestError: context window exceeded", "type": "invalid_request_error", "code": "400"}
        })])])
        .await;
        let mut o = options(&server, "litellm/bad");
        o.streaming = true;
        let notices = Notices::default();
        let err = client(o)
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ModelError::Http { status: 400, body_excerpt } if body_excerpt.contains("context window exceeded")),
            "{err:?}"
        );
        assert!(notices.retries().is_empty(), "not retried");
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn usage_chunks_with_an_empty_choice_or_none_are_counted() {
    within(async {
        let stream = |last: serde_json::Value| {
            sse_without_done(&[
                delta(json!({"role": "assistant", "content": "fine"})),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                last,
            ])
        };
        let server = Scripted::start(vec![
            // LiteLLM's usage chunk: one choice with an empty delta.
            stream(json!({"id": "c", "choices": [{"index": 0, "delta": {}}],
                          "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}})),
            // And with no choices at all, then `[DONE]`.
            Reply::sse(&[
                delta(json!({"content": "also fine"})),
                json!({"choices": [{"index": 0, "delta": {"content": null}, "finish_reason": "stop"}]}),
                json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}),
            ]),
        ])
        .await;
        let mut o = options(&server, "litellm/usage");
        o.streaming = true;
        let model = client(o);
        let notices = Notices::default();
        let a = model
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(a.content, "fine");
        assert_eq!(
            a.usage,
            Usage {
                input_tokens: 11,
                output_tokens: 3,
                cached_input_tokens: 0
            }
        );
        let b = model
            .complete(&request(question(), vec![]), &notices)
            .await
            .unwrap();
        assert_eq!(b.content, "also fine");
        assert_eq!(b.usage.total(), 7);
        assert!(notices.retries().is_empty());
    })
    .await;
}
