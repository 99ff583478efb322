//! Per-call overhead of the OpenAI-compatible client against the scripted
//! loopback server: median and p90 microseconds for a non-streaming and a
//! streaming call, next to a bare reqwest POST of the same body (the floor
//! set by HTTP and the server). Not a test: it measures and prints.
//!   usage: cargo bench --bench model_client [-- CALLS]   (default 500)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

#[allow(dead_code, reason = "the bench uses part of the test server")]
#[path = "../tests/model/scripted.rs"]
mod scripted;

use std::time::{Duration, Instant};

use dra::config::{ModelRole, Secret};
use dra::engine::model::openai::{OpenAiClient, OpenAiOptions, ToolProtocol};
use dra::engine::model::{ChatModel, ChatRequest, Message, NoSink, ToolCall, ToolSpec};
use scripted::{Reply, Scripted, completion, delta, finish};
use serde_json::json;

fn conversation() -> ChatRequest {
    let mut messages = vec![
        Message::system("You are a careful researcher. ".repeat(60)),
        Message::user("Who runs PadmaPay, and is its licence current?"),
    ];
    for i in 0..4 {
        let call = ToolCall {
            id: format!("call_{i}"),
            name: "web_search".into(),
            arguments: json!({"query": format!("PadmaPay question {i}")}),
        };
        messages.push(Message::assistant("", vec![call.clone()]));
        messages.push(Message::tool(
            &call,
            "A result line with some text. ".repeat(30),
        ));
    }
    let tools = (0..5)
        .map(|i| ToolSpec {
            name: format!("tool_{i}"),
            description: "Does one thing well.".into(),
            parameters: json!({"$schema": "s", "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"]}),
        })
        .collect();
    ChatRequest {
        role: ModelRole::Research,
        messages,
        tools,
    }
}

fn whole_reply() -> Reply {
    Reply::json(completion(
        json!({"role": "assistant", "content": "Searching.", "tool_calls": [{
            "id": "call_x", "type": "function",
            "function": {"name": "tool_1", "arguments": "{\"query\":\"PadmaPay licence\",\"limit\":5}"}}]}),
        "tool_calls",
        (2400, 40),
    ))
}

fn streamed_reply() -> Reply {
    let mut chunks: Vec<serde_json::Value> = (0..20)
        .map(|i| delta(json!({"content": format!("word{i} ")})))
        .collect();
    chunks.push(delta(
        json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
        "function": {"name": "tool_1", "arguments": ""}}]}),
    ));
    for piece in [
        "{\"query\"",
        ":\"PadmaPay",
        " licence\"",
        ",\"limit\":5",
        "}",
    ] {
        chunks.push(delta(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
        ));
    }
    chunks.extend(finish("tool_calls", (2400, 40)));
    Reply::sse(&chunks)
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    (us(v[v.len() / 2]), us(v[v.len() * 9 / 10]))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(500);
    let warm = 20;
    let n = calls + warm;
    let mut replies = Vec::new();
    replies.extend((0..n).map(|_| whole_reply()));
    replies.extend((0..n).map(|_| streamed_reply()));
    replies.extend((0..n).map(|_| whole_reply()));
    replies.extend((0..n).map(|_| streamed_reply()));
    let server = Scripted::start(replies).await;
    let request = conversation();

    let mut o = OpenAiOptions::new(server.base_url(), Secret::new("sk-bench"), "bench/model");
    o.protocol = ToolProtocol::Native;
    o.streaming = false;
    let whole = OpenAiClient::new(o.clone()).unwrap();
    o.streaming = true;
    let streaming = OpenAiClient::new(o).unwrap();

    let run = async |model: &OpenAiClient| {
        let mut times = Vec::new();
        for i in 0..n {
            let t = Instant::now();
            let r = model.complete(&request, &NoSink).await.unwrap();
            assert_eq!(r.tool_calls.len(), 1);
            if i >= warm {
                times.push(t.elapsed());
            }
        }
        times
    };
    let whole_times = run(&whole).await;
    let stream_times = run(&streaming).await;

    // The floor: the very bodies the client sent, posted with bare reqwest
    // and the answer read to its end without being looked at.
    let sent = server.requests();
    let whole_body = sent[0].body.clone();
    let stream_body = sent[n].body.clone();
    assert_eq!(stream_body["stream"], true);
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let url = format!("{}/chat/completions", server.base_url());
    let floor = async |body: &serde_json::Value| {
        let mut times = Vec::new();
        for i in 0..n {
            let t = Instant::now();
            let r = http
                .post(&url)
                .bearer_auth("k")
                .json(body)
                .send()
                .await
                .unwrap();
            let mut bytes = r.bytes_stream();
            while let Some(b) = futures::StreamExt::next(&mut bytes).await {
                b.unwrap();
            }
            if i >= warm {
                times.push(t.elapsed());
            }
        }
        times
    };
    let bare = floor(&whole_body).await;
    let bare_stream = floor(&stream_body).await;

    let (b50, b90) = stats(bare);
    let (bs50, bs90) = stats(bare_stream);
    let (w50, w90) = stats(whole_times);
    let (s50, s90) = stats(stream_times);
    println!("model client vs scripted loopback server, {calls} calls each (after {warm} warm-up)");
    println!("  floor: bare reqwest, whole answer       median {b50:7.0} us   p90 {b90:7.0} us");
    println!("  client, non-streaming                   median {w50:7.0} us   p90 {w90:7.0} us");
    println!("  floor: bare reqwest, 31-event stream    median {bs50:7.0} us   p90 {bs90:7.0} us");
    println!("  client, streaming (31 events)           median {s50:7.0} us   p90 {s90:7.0} us");
    println!(
        "  client's own cost per call: non-streaming {:.0} us, streaming {:.0} us",
        w50 - b50,
        s50 - bs50
    );
}
