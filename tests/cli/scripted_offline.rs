//! The gold sets with a scripted model: a loopback OpenAI-compatible server
//! whose every reply is decided by the offline model's policy, so the whole
//! online path (HTTP client, native tool calls, extraction calls, pricing)
//! runs under `dra eval` and must score as well as offline.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use dra::config::ModelRole;
use dra::engine::model::offline::OfflineModel;
use dra::engine::model::{ChatModel, ChatRequest, Message, NoSink, Role, ToolCall, ToolSpec};
use serde_json::{Value, json};

use super::common::{Sandbox, repo_path};

fn to_request(body: &Value) -> ChatRequest {
    let messages = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| Message {
            role: match m["role"].as_str().unwrap() {
                "system" => Role::System,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                _ => Role::Tool,
            },
            content: m["content"].as_str().unwrap_or("").to_string(),
            tool_calls: m["tool_calls"]
                .as_array()
                .map(|calls| {
                    calls
                        .iter()
                        .map(|c| ToolCall {
                            id: c["id"].as_str().unwrap().to_string(),
                            name: c["function"]["name"].as_str().unwrap().to_string(),
                            arguments: serde_json::from_str(
                                c["function"]["arguments"].as_str().unwrap(),
                            )
                            .unwrap(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            tool_call_id: m["tool_call_id"].as_str().map(String::from),
            name: m["name"].as_str().map(String::from),
            reasoning: None,
        })
        .collect();
    let tools: Vec<ToolSpec> = body["tools"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| ToolSpec {
                    name: t["function"]["name"].as_str().unwrap().to_string(),
                    description: t["function"]["description"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                    parameters: t["function"]["parameters"].clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    // The wire carries no role: this stand-in server tells the agents apart
    // by the tool that ends each one.
    let offers = |name: &str| tools.iter().any(|t| t.name == name);
    let role = if offers("submit_report") {
        ModelRole::Research
    } else if offers("submit_findings") {
        ModelRole::Subagent
    } else {
        ModelRole::Utility
    };
    ChatRequest {
        role,
        messages,
        tools,
    }
}

async fn chat(State(count): State<Arc<AtomicUsize>>, body: axum::Json<Value>) -> axum::Json<Value> {
    count.fetch_add(1, Ordering::SeqCst);
    let request = to_request(&body);
    let usage = json!({"prompt_tokens": 200, "completion_tokens": 40});
    if request.tools.is_empty() {
        // The claim extractor: this policy extracts nothing beyond the findings.
        return axum::Json(
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"claims\": []}"}, "finish_reason": "stop"}], "usage": usage}),
        );
    }
    let reply = OfflineModel.complete(&request, &NoSink).await.unwrap();
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments.to_string()}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": reply.content});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    axum::Json(
        json!({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}], "usage": usage}),
    )
}

#[test]
fn gold_sets_score_fully_with_a_scripted_model_over_http() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let base = format!(
        "http://127.0.0.1:{}/v1",
        listener.local_addr().unwrap().port()
    );
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(count.clone());
    rt.spawn(async move { axum::serve(listener, app).await.unwrap() });

    for gold in [
        "tests/gold/padmapay.gold.json",
        "tests/gold/halden.gold.json",
    ] {
        let sb = Sandbox::new();
        let before = count.load(Ordering::SeqCst);
        let out = sb
            .dra()
            .env("OPENAI_API_KEY", "sk-scripted")
            .env("OPENAI_BASE_URL", &base)
            .env("DRA_STREAMING", "false")
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "eval"])
            .arg(repo_path(gold))
            .assert();
        let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(out.get_output().status.code(), Some(0), "{gold}: {v}");
        let case = &v["cases"][0];
        for metric in [
            "field_accuracy",
            "history_recall",
            "citation_support",
            "conflict_recall",
        ] {
            assert_eq!(case[metric], 1.0, "{gold}: {metric}: {case}");
        }
        assert_eq!(case["forbidden_found"].as_array().unwrap().len(), 0);
        assert!(
            case["cost_usd"].as_f64().unwrap() > 0.0,
            "priced from the tier"
        );
        assert!(
            count.load(Ordering::SeqCst) - before > 30,
            "the run went through the HTTP model"
        );
    }
}
