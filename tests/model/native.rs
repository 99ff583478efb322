//! Native tool calling: the request mapping and the answer, whole and
//! streamed.

use dra::engine::model::{ChatModel, Message, ModelNotice, NoSink, ToolCall, Usage};
use serde_json::{Value, json};

use super::scripted::{Piece, Reply, Scripted, completion, data, delta, finish};
use super::{KEY, Notices, client, options, question, request, search_tool, within};

#[tokio::test]
async fn a_whole_answer_maps_both_ways() {
    within(async {
        let server = Scripted::start(vec![Reply::json(completion(
            json!({
                "role": "assistant",
                "content": null,
                "reasoning_content": "need to search",
                "tool_calls": [{
                    "id": "call_9", "type": "function",
                    "function": {"name": "web_search", "arguments": "{\"query\":\"PadmaPay CEO\"}"}
                }]
            }),
            "tool_calls",
            (120, 30),
        ))])
        .await;
        let model = client(options(&server, "test/model-a"));
        let earlier = ToolCall {
            id: "call_1".into(),
            name: "web_search".into(),
            arguments: json!({"query": "PadmaPay"}),
        };
        let mut assistant = Message::assistant("", vec![earlier.clone()]);
        assistant.reasoning = Some("first thought".into());
        let mut messages = question();
        messages.push(assistant);
        messages.push(Message::tool(&earlier, "PadmaPay is run by ..."));
        messages.push(Message::user("continue"));

        let r = model
            .complete(&request(messages, vec![search_tool()]), &NoSink)
            .await
            .unwrap();

        // What came back.
        assert_eq!(r.content, "");
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                id: "call_9".into(),
                name: "web_search".into(),
                arguments: json!({"query": "PadmaPay CEO"}),
            }]
        );
        assert_eq!(r.thinking.as_deref(), Some("need to search"));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 120,
                output_tokens: 30,
                cached_input_tokens: 0
            }
        );
        assert_eq!(r.model, "test/model-a");

        // What was sent.
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        let q = &reqs[0];
        assert_eq!(q.method, "POST");
        assert_eq!(q.path, "/v1/chat/completions");
        assert_eq!(
            q.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
        assert!(
            q.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
        assert_eq!(q.body["model"], "test/model-a");
        assert_eq!(q.body["stream"], false);
        assert!(q.body.get("stream_options").is_none());
        assert_eq!(
            q.body["tools"],
            json!([{
                "type": "function",
                "function": {
                    "name": "web_search",
                    "description": "Search the web",
                    "parameters": {
                        "type": "object",
                        "properties": {"query": {"type": "string"}},
                        "required": ["query"]
                    }
                }
            }])
        );
        let m = q.messages();
        assert_eq!(m.len(), 5);
        assert_eq!(m[0], json!({"role": "system", "content": "You research."}));
        assert_eq!(
            m[1],
            json!({"role": "user", "content": "Who runs PadmaPay?"})
        );
        assert_eq!(
            m[2],
            json!({
                "role": "assistant",
                "content": null,
                "reasoning_content": "first thought",
                "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "web_search", "arguments": "{\"query\":\"PadmaPay\"}"}
                }]
            })
        );
        assert_eq!(
            m[3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "PadmaPay is run by ..."})
        );
        assert_eq!(m[4], json!({"role": "user", "content": "continue"}));
    })
    .await;
}

#[tokio::test]
async fn a_stream_assembles_text_calls_reasoning_and_usage() {
    within(async {
        let mut pieces = vec![
            Piece::Raw(": OPENROUTER PROCESSING\n\n".into()),
            Piece::Raw(data(&delta(json!({"role": "assistant", "content": ""})))),
            Piece::Raw(data(&delta(json!({"reasoning": "Let me "})))),
            Piece::Raw(data(&delta(json!({"reasoning": "think"})))),
            Piece::Raw(data(&delta(json!({"content": "I'll "})))),
            Piece::Raw(data(&delta(json!({"content": "search."})))),
            // A call split over chunks by index.
            Piece::Raw(data(&delta(json!({"tool_calls": [
                {"index": 0, "id": "call_a", "type": "function",
                 "function": {"name": "web_search", "arguments": "{\"que"}}]})))),
            Piece::Raw(data(&delta(json!({"tool_calls": [
                {"index": 0, "function": {"arguments": "ry\":\"a\"}"}}]})))),
            // Off-spec: garbage, an unreadable chunk, empty choices.
            Piece::Raw("event: ping\ndata: not json at all\n\n".into()),
            Piece::Raw("garbage line\n\n".into()),
            Piece::Raw(data(&json!({"choices": []}))),
            // A second call with no index: told apart by its id, then a
            // piece with neither index nor id (belongs to the last call).
            Piece::Raw(data(&delta(json!({"tool_calls": [
                {"id": "call_b", "function": {"name": "web_search", "arguments": "{\"query\""}}]})))),
            Piece::Raw(": keep-alive\n\n".into()),
            Piece::Raw(data(&delta(json!({"tool_calls": [
                {"function": {"arguments": ":\"b\"}"}}]})))),
        ];
        for c in finish("tool_calls", (50, 7)) {
            pieces.push(Piece::Raw(data(&c)));
        }
        pieces.push(Piece::Raw("data: [DONE]\n\n".into()));
        let server = Scripted::start(vec![Reply::Sse(pieces)]).await;
        let mut o = options(&server, "test/streamer");
        o.streaming = true;
        let model = client(o);
        let notices = Notices::default();
        let r = model
            .complete(&request(question(), vec![search_tool()]), &notices)
            .await
            .unwrap();
        assert_eq!(r.content, "I'll search.");
        assert_eq!(r.thinking.as_deref(), Some("Let me think"));
        assert_eq!(
            r.tool_calls,
            vec![
                ToolCall {
                    id: "call_a".into(),
                    name: "web_search".into(),
                    arguments: json!({"query": "a"})
                },
                ToolCall {
                    id: "call_b".into(),
                    name: "web_search".into(),
                    arguments: json!({"query": "b"})
                },
            ]
        );
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 50,
                output_tokens: 7,
                cached_input_tokens: 0
            }
        );
        assert_eq!(
            notices.all(),
            vec![
                ModelNotice::ThinkingDelta("Let me ".into()),
                ModelNotice::ThinkingDelta("think".into())
            ]
        );
        let q = &server.requests()[0];
        assert_eq!(q.body["stream"], true);
        assert_eq!(q.body["stream_options"], json!({"include_usage": true}));
    })
    .await;
}

#[tokio::test]
async fn odd_but_usable_answers_are_read() {
    within(async {
        let server = Scripted::start(vec![
            // Content as parts, no usage, unknown fields, finish "length".
            Reply::json(json!({
                "choices": [{"message": {"content": [{"type": "text", "text": "par"}, {"type": "text", "text": "tial"}]},
                             "finish_reason": "length", "logprobs": null}],
                "system_fingerprint": "x", "provider": "y"
            })),
            // A stream sent although none was asked for.
            Reply::Body {
                status: 200,
                headers: vec![],
                content_type: "text/plain",
                body: format!(
                    "{}{}data: [DONE]\n\n",
                    data(&delta(json!({"content": "streamed anyway"}))),
                    data(&json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}))
                ),
            },
            // Asked to stream, answered whole.
            Reply::json(super::scripted::text_completion("whole anyway")),
            // Arguments that are not JSON reach the tool as a string.
            Reply::json(completion(
                json!({"tool_calls": [{"id": "c1", "function": {"name": "web_search", "arguments": "{\"query\": tru"}}]}),
                "tool_calls",
                (1, 1),
            )),
        ])
        .await;
        let model = client(options(&server, "test/odd"));
        let req = request(question(), vec![search_tool()]);
        let r = model.complete(&req, &NoSink).await.unwrap();
        assert_eq!(r.content, "partial");
        assert_eq!(r.usage.total(), 0);
        let r = model.complete(&req, &NoSink).await.unwrap();
        assert_eq!(r.content, "streamed anyway");
        let mut o = options(&server, "test/odd");
        o.streaming = true;
        let r = client(o).complete(&req, &NoSink).await.unwrap();
        assert_eq!(r.content, "whole anyway");
        let r = model.complete(&req, &NoSink).await.unwrap();
        assert_eq!(
            r.tool_calls[0].arguments,
            Value::String("{\"query\": tru".into())
        );
    })
    .await;
}

/// Prompt-cache reads are counted as the providers report them: OpenAI's
/// and OpenRouter's `prompt_tokens_details.cached_tokens`, an
/// Anthropic-style `cache_read_input_tokens`; never more than the prompt.
#[tokio::test]
async fn cached_prompt_tokens_are_read_from_usage() {
    within(async {
        let answer = |usage: Value| {
            let mut c = completion(
                json!({"role": "assistant", "content": "ok"}),
                "stop",
                (0, 0),
            );
            c["usage"] = usage;
            Reply::json(c)
        };
        let server = Scripted::start(vec![
            answer(json!({"prompt_tokens": 2048, "completion_tokens": 9,
                "prompt_tokens_details": {"cached_tokens": 1536}})),
            answer(json!({"prompt_tokens": 900, "completion_tokens": 4,
                "cache_read_input_tokens": 640})),
            answer(json!({"prompt_tokens": 100, "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": 5000}})),
            answer(json!({"prompt_tokens": 100, "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": null}})),
        ])
        .await;
        let model = client(options(&server, "test/model-a"));
        let mut seen = Vec::new();
        for _ in 0..4 {
            let r = model
                .complete(&request(question(), vec![]), &NoSink)
                .await
                .unwrap();
            seen.push((r.usage.input_tokens, r.usage.cached_input_tokens));
        }
        assert_eq!(seen, [(2048, 1536), (900, 640), (100, 100), (100, 0)]);
    })
    .await;
}
