//! The JSON envelope protocol over the wire: the preamble, history as text,
//! tolerant reading, repair turns, salvage, and the automatic fallback.

use dra::engine::model::openai::ToolProtocol;
use dra::engine::model::{ChatModel, Message, ModelError, ModelNotice, NoSink, ToolCall, Usage};
use serde_json::{Value, json};

use super::scripted::{Reply, Scripted, delta, finish, text_completion};
use super::{Notices, client, options, question, request, search_tool, within};

fn envelope_options(server: &Scripted) -> dra::engine::model::openai::OpenAiOptions {
    let mut o = options(server, "test/no-tools");
    o.protocol = ToolProtocol::Envelope;
    o
}

fn one_call(r: &dra::engine::model::ChatResponse) -> (&str, &Value) {
    assert_eq!(r.tool_calls.len(), 1, "{r:?}");
    (r.tool_calls[0].name.as_str(), &r.tool_calls[0].arguments)
}

#[tokio::test]
async fn wrapped_and_stacked_replies_read_as_the_first_call() {
    within(async {
        let call = r#"{"type":"tool_call","name":"web_search","args":{"query":"PadmaPay {CEO}"}}"#;
        let server = Scripted::start(vec![
            Reply::json(text_completion(&format!(
                "```json\n{call}\n```\nI'll wait for the results."
            ))),
            Reply::json(text_completion(&format!(
                "{call}\n{{\"type\":\"final\",\"content\":\"made up answer\"}}"
            ))),
            Reply::json(text_completion(
                r#"{"type":"tool_calls","calls":[{"name":"web_search","args":{"query":"a"}},{"name":"web_search","args":{"query":"b"}}]}"#,
            )),
            Reply::json(text_completion("FINAL>>>\n{braces} open this answer")),
        ])
        .await;
        let model = client(envelope_options(&server));
        let req = request(question(), vec![search_tool()]);
        for _ in 0..2 {
            let r = model.complete(&req, &NoSink).await.unwrap();
            assert_eq!(
                one_call(&r),
                ("web_search", &json!({"query": "PadmaPay {CEO}"}))
            );
            assert_eq!(r.content, "");
            assert!(r.tool_calls[0].id.starts_with("call_"));
        }
        let r = model.complete(&req, &NoSink).await.unwrap();
        let queries: Vec<&Value> = r.tool_calls.iter().map(|c| &c.arguments["query"]).collect();
        assert_eq!(queries, vec!["a", "b"]);
        assert_ne!(r.tool_calls[0].id, r.tool_calls[1].id);
        let r = model.complete(&req, &NoSink).await.unwrap();
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.content, "{braces} open this answer");

        for q in server.requests() {
            assert!(q.body.get("tools").is_none(), "{}", q.body);
            let m = q.messages();
            assert_eq!(m.len(), 2);
            assert_eq!(m[0]["role"], "system");
            let system = m[0]["content"].as_str().unwrap();
            assert!(system.contains(r#"{"type":"tool_call","name":"<tool name>","args":{...}}"#));
            assert!(system.contains("FINAL>>>"));
            assert!(system.contains("- web_search: Search the web"));
            assert!(system.contains(r#""required":["query"]"#));
            assert!(!system.contains("$schema") && !system.contains("WebSearchArgs"));
            assert!(system.ends_with("You research."));
        }
    })
    .await;
}

#[tokio::test]
async fn history_is_sent_as_text_the_model_can_read() {
    within(async {
        let server = Scripted::start(vec![Reply::json(text_completion("FINAL>>> Done."))]).await;
        let model = client(envelope_options(&server));
        let earlier = ToolCall {
            id: "call_1".into(),
            name: "web_search".into(),
            arguments: json!({"query": "PadmaPay"}),
        };
        let mut messages = question();
        messages.push(Message::assistant("", vec![earlier.clone()]));
        messages.push(Message::tool(&earlier, "Three results."));
        let r = model
            .complete(&request(messages, vec![search_tool()]), &NoSink)
            .await
            .unwrap();
        assert_eq!(r.content, "Done.");
        let q = &server.requests()[0];
        let m = q.messages();
        assert_eq!(m.len(), 4);
        assert_eq!(
            m[2],
            json!({"role": "assistant", "content": r#"{"type":"tool_call","name":"web_search","args":{"query":"PadmaPay"}}"#})
        );
        assert_eq!(
            m[3],
            json!({"role": "user", "content": "Tool result for web_search (call_1):\nThree results."})
        );
        assert!(m.iter().all(|x| x["role"] != "tool" && x.get("tool_calls").is_none()));
    })
    .await;
}

#[tokio::test]
async fn a_malformed_call_gets_a_repair_turn() {
    within(async {
        let broken = r#"{"type":"tool_call","name":"web_search","args":{"query":"a" "b"}}"#;
        let server = Scripted::start(vec![
            Reply::json(text_completion(broken)),
            Reply::json(text_completion(
                r#"{"type":"tool_call","name":"web_search","args":{"query":"a b"}}"#,
            )),
        ])
        .await;
        let model = client(envelope_options(&server));
        let r = model
            .complete(&request(question(), vec![search_tool()]), &NoSink)
            .await
            .unwrap();
        assert_eq!(one_call(&r), ("web_search", &json!({"query": "a b"})));
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 20,
                output_tokens: 10,
                cached_input_tokens: 0
            }
        );
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2);
        let m = reqs[1].messages();
        assert_eq!(m.len(), 4);
        assert_eq!(m[2], json!({"role": "assistant", "content": broken}));
        let repair = reqs[1].last_content();
        assert!(
            repair.contains("the JSON broke at the character '\"'"),
            "{repair}"
        );
        assert!(repair.contains(r#""a" "b""#), "{repair}");
        assert!(repair.contains("same call to `web_search`"), "{repair}");
        assert!(!repair.contains("FINAL>>> at the start"), "{repair}");
    })
    .await;
}

#[tokio::test]
async fn a_broken_final_is_pointed_at_the_marker_then_salvaged() {
    within(async {
        let broken = r#"{"type":"final","content":"He said "hi" there."}"#;
        let server = Scripted::start(vec![
            Reply::json(text_completion(broken)),
            Reply::json(text_completion(broken)),
            Reply::json(text_completion(broken)),
        ])
        .await;
        let model = client(envelope_options(&server));
        let r = model
            .complete(&request(question(), vec![search_tool()]), &NoSink)
            .await
            .unwrap();
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.content, "He said \"hi\" there.");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        for q in &reqs[1..] {
            assert!(
                q.last_content()
                    .contains("write FINAL>>> at the start of a line"),
                "{}",
                q.last_content()
            );
        }
    })
    .await;
}

#[tokio::test]
async fn a_malformed_call_is_never_salvaged() {
    within(async {
        let broken = r#"{"type":"tool_call","name":"web_search","args":{"query": }}"#;
        let server = Scripted::start(vec![
            Reply::json(text_completion(broken)),
            Reply::json(text_completion(broken)),
            Reply::json(text_completion(broken)),
            Reply::json(text_completion("FINAL>>> never asked for")),
        ])
        .await;
        let err = client(envelope_options(&server))
            .complete(&request(question(), vec![search_tool()]), &NoSink)
            .await
            .unwrap_err();
        match err {
            ModelError::Malformed(m) => assert!(m.contains("3 attempts"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(server.requests().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn an_empty_final_goes_back_for_another_try() {
    within(async {
        let server = Scripted::start(vec![
            Reply::json(text_completion("FINAL>>>\n")),
            Reply::json(text_completion("FINAL>>> The answer.")),
        ])
        .await;
        let r = client(envelope_options(&server))
            .complete(&request(question(), vec![search_tool()]), &NoSink)
            .await
            .unwrap();
        assert_eq!(r.content, "The answer.");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2);
        assert!(reqs[1].last_content().contains("followed by nothing"));
    })
    .await;
}

#[tokio::test]
async fn a_streamed_envelope_reads_like_a_whole_one() {
    within(async {
        let text = "```json\n{\"type\":\"tool_call\",\"name\":\"web_search\",\"args\":{\"query\":\"x\"}}\n```";
        let mut chunks: Vec<Value> = text
            .as_bytes()
            .chunks(7)
            .map(|c| delta(json!({"content": String::from_utf8_lossy(c)})))
            .collect();
        chunks.extend(finish("stop", (9, 9)));
        let server = Scripted::start(vec![Reply::sse(&chunks)]).await;
        let mut o = envelope_options(&server);
        o.streaming = true;
        let r = client(o)
            .complete(&request(question(), vec![search_tool()]), &NoSink)
            .await
            .unwrap();
        assert_eq!(one_call(&r), ("web_search", &json!({"query": "x"})));
        assert_eq!(r.usage.total(), 18);
    })
    .await;
}

#[tokio::test]
async fn auto_falls_back_to_the_envelope_when_tools_are_rejected_and_stays() {
    within(async {
        let server = Scripted::start(vec![
            Reply::status(
                400,
                json!({"error": {"message": "registry.ollama.ai/library/gemma:2b does not support tools"}}),
            ),
            Reply::json(text_completion(
                r#"{"type":"tool_call","name":"web_search","args":{"query":"q"}}"#,
            )),
            Reply::json(text_completion("FINAL>>> All done.")),
        ])
        .await;
        let mut o = options(&server, "test/auto");
        o.protocol = ToolProtocol::Auto;
        let model = client(o);
        let notices = Notices::default();
        let req = request(question(), vec![search_tool()]);
        let r = model.complete(&req, &notices).await.unwrap();
        assert_eq!(one_call(&r), ("web_search", &json!({"query": "q"})));
        assert!(model.uses_envelope());
        // Sticky, and shared by clones of the client.
        let again = model.clone();
        let r = again.complete(&req, &notices).await.unwrap();
        assert_eq!(r.content, "All done.");

        let fallbacks: Vec<ModelNotice> = notices
            .all()
            .into_iter()
            .filter(|n| matches!(n, ModelNotice::Fallback { .. }))
            .collect();
        assert_eq!(fallbacks.len(), 1);
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        assert!(reqs[0].body.get("tools").is_some());
        for q in &reqs[1..] {
            assert!(q.body.get("tools").is_none());
            assert!(q.messages()[0]["content"]
                .as_str()
                .unwrap()
                .starts_with("You call tools through a JSON protocol"));
        }
    })
    .await;
}

#[tokio::test]
async fn native_mode_reports_a_tools_rejection_instead_of_falling_back() {
    within(async {
        let server = Scripted::start(vec![Reply::status(
            404,
            json!({"error": {"message": "No endpoints found that support tool use."}}),
        )])
        .await;
        let notices = Notices::default();
        let err = client(options(&server, "test/native"))
            .complete(&request(question(), vec![search_tool()]), &notices)
            .await
            .unwrap_err();
        assert!(
            matches!(err, ModelError::Http { status: 404, .. }),
            "{err:?}"
        );
        assert!(notices.all().is_empty());
        assert_eq!(server.requests().len(), 1);
    })
    .await;
}
