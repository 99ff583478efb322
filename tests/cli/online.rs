//! Online runs through the real binary and the real HTTP model client,
//! against a scripted OpenAI-compatible server on loopback that plays a
//! research session. Its replies are a function of each request (who is
//! asking, at which turn), so parallel sub-researchers cannot desynchronise
//! it; faults are injected by request number.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use dra::protocol::{EventBody, StatusReason, StatusState};
use serde_json::{Value, json};

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events};

const KEY: &str = "sk-online-canary-91c4";
pub(super) const PRICING_URL: &str = "https://padmapay.example/pricing";
const PRICING_QUOTE: &str =
    "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.";
pub(super) const ABOUT_URL: &str = "https://padmapay.example/about";
const ABOUT_QUOTE: &str =
    "Kavya Menon is the chief executive officer of PadmaPay, effective 1 March 2026.";

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Fault {
    None,
    /// The first request gets 429 with retry-after-ms, the fourth a 503.
    Transient,
    /// Requests that carry `tools` are rejected (a model without tool support).
    NoTools,
    /// Every request is rejected with 401.
    Unauthorized,
    /// Every reply comes after a pause (for interrupting a run).
    Slow,
}

/// What each participant replies, as a function of its request.
pub(super) type Script = fn(&Value) -> Result<Vec<(&'static str, Value)>, String>;

#[derive(Clone)]
pub(super) struct Session {
    fault: Fault,
    script: Script,
    count: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<(HeaderMap, Value)>>>,
    /// The request number (1-based) that hangs, so a test can kill the
    /// client during it; 0 for none.
    pub(super) hang_at: Arc<AtomicUsize>,
}

/// Who sent a request: the lead, a sub-researcher (and its aspect) or the extractor.
pub(super) enum Who {
    Lead,
    Sub(String),
    Extractor,
}

pub(super) fn text_of(messages: &[Value]) -> String {
    messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn who(body: &Value) -> Who {
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let system = messages
        .first()
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    if tools.contains(&"submit_report") || system.contains("- submit_report:") {
        Who::Lead
    } else if tools.contains(&"submit_findings") || system.contains("- submit_findings:") {
        let user = messages
            .get(1)
            .map(|m| m["content"].as_str().unwrap_or(""))
            .unwrap_or("");
        let aspect = user
            .lines()
            .find_map(|l| l.strip_prefix("Aspect: "))
            .unwrap_or("")
            .to_string();
        Who::Sub(aspect)
    } else {
        Who::Extractor
    }
}

/// The lead's last turn in scripted sessions: a report whose Findings cite
/// exactly the quotes and source numbers the sub-researchers' findings came
/// back with (`title` heads it, `answer` is its Answer section).
pub(super) fn report_citing_findings(
    messages: &[Value],
    title: &str,
    answer: &str,
) -> Vec<(&'static str, Value)> {
    let all = text_of(messages);
    let re =
        regex::Regex::new(r#""quote": "([^"]+)",\s*"url": "[^"]+",\s*"source": (\d+)"#).unwrap();
    let lines: Vec<String> = re
        .captures_iter(&all)
        .map(|c| format!("- \"{}\" [{}]", &c[1], &c[2]))
        .collect();
    let md = format!(
        "# {title}\n\n## Answer\n\n{answer}\n\n## Findings\n\n{}\n",
        lines.join("\n")
    );
    vec![("submit_report", json!({"markdown": md}))]
}

/// The calls (or final text) this participant makes at this turn.
pub(super) fn script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead => Ok(match turn {
            0 => vec![("write_todos", json!({"todos": [{"content": "pricing"}, {"content": "leadership"}]}))],
            1 => vec![
                ("task", json!({"description": "Aspect: pricing\nEntity: PadmaPay\nFind the current fee."})),
                ("task", json!({"description": "Aspect: leadership\nEntity: PadmaPay\nFind the current CEO."})),
            ],
            _ => {
                // Cite exactly the source numbers the findings came back with.
                let all = text_of(&messages);
                let re = regex::Regex::new(r#""quote": "([^"]+)",\s*"url": "[^"]+",\s*"source": (\d+)"#).unwrap();
                let lines: Vec<String> = re.captures_iter(&all).map(|c| format!("- \"{}\" [{}]", &c[1], &c[2])).collect();
                let md = format!("# PadmaPay\n\n## Answer\n\nPadmaPay's current fee and chief executive, from the findings.\n\n## Findings\n\n{}\n", lines.join("\n"));
                vec![("submit_report", json!({"markdown": md}))]
            }
        }),
        Who::Sub(aspect) => {
            let (url, quote) = if aspect == "pricing" { (PRICING_URL, PRICING_QUOTE) } else { (ABOUT_URL, ABOUT_QUOTE) };
            Ok(match turn {
                0 => vec![("fetch_url", json!({"url": url}))],
                _ => vec![("submit_findings", json!({"summary": aspect, "findings": [{"claim": quote, "quote": quote, "url": url, "field": aspect}], "gaps": []}))],
            })
        }
        Who::Extractor => Err(json!({"claims": [{"field": "pricing", "value": "1.9%", "snippet": PRICING_QUOTE, "event_date": null}]}).to_string()),
    }
}

fn sse(chunks: Vec<Value>) -> Response {
    let mut body = String::new();
    for c in chunks {
        body.push_str(&format!("data: {c}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from(body))
        .unwrap()
}

fn json_response(status: u16, v: Value) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Body::from(v.to_string()))
        .unwrap()
}

async fn chat(State(s): State<Session>, headers: HeaderMap, body: axum::Json<Value>) -> Response {
    let n = s.count.fetch_add(1, Ordering::SeqCst) + 1;
    s.requests
        .lock()
        .unwrap()
        .push((headers.clone(), body.0.clone()));
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if n == s.hang_at.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_secs(30)).await;
    }
    if s.fault == Fault::Slow {
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    match s.fault {
        Fault::Unauthorized => {
            return json_response(
                401,
                json!({"error": {"message": format!("invalid key {KEY}")}}),
            );
        }
        Fault::NoTools if has_tools => {
            return json_response(
                400,
                json!({"error": {"message": "This model does not support tools"}}),
            );
        }
        Fault::Transient if n == 1 => {
            return Response::builder()
                .status(429)
                .header("retry-after-ms", "20")
                .body(Body::from("slow down"))
                .unwrap();
        }
        Fault::Transient if n == 4 => {
            return json_response(503, json!({"error": {"message": "overloaded"}}));
        }
        _ => {}
    }
    let stream = body["stream"].as_bool().unwrap_or(false);
    // 96 of the 120 prompt tokens read from the provider's cache.
    let usage = json!({"prompt_tokens": 120, "completion_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 96}});
    let (content, calls) = match (s.script)(&body) {
        Err(text) => (text, vec![]),
        Ok(calls) if !has_tools => {
            // Envelope mode: the calls as JSON text, with a fence and prose to tolerate.
            let items: Vec<Value> = calls
                .iter()
                .map(|(n, a)| json!({"name": n, "args": a}))
                .collect();
            (
                format!(
                    "Sure.\n```json\n{}\n```",
                    json!({"type": "tool_calls", "calls": items})
                ),
                vec![],
            )
        }
        Ok(calls) => (String::new(), calls),
    };
    if !stream {
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| json!({"id": format!("c{n}{i}"), "type": "function", "function": {"name": n, "arguments": a.to_string()}}))
            .collect();
        let mut message = json!({"role": "assistant", "content": content});
        if !tool_calls.is_empty() {
            message["tool_calls"] = json!(tool_calls);
        }
        return json_response(
            200,
            json!({"id": "x", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage}),
        );
    }
    // Streaming: reasoning first, content in pieces, each call's arguments split in two.
    let mut chunks = vec![
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "thinking about it"}}]}),
    ];
    for piece in content.as_bytes().chunks(40) {
        chunks.push(json!({"choices": [{"index": 0, "delta": {"content": String::from_utf8_lossy(piece)}}]}));
    }
    for (i, (name, args)) in calls.iter().enumerate() {
        let a = args.to_string();
        let mid = a
            .char_indices()
            .nth(a.chars().count() / 2)
            .map(|(b, _)| b)
            .unwrap_or(0);
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": format!("s{i}"), "type": "function", "function": {"name": name, "arguments": &a[..mid]}}]}}]}));
        chunks.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": &a[mid..]}}]}}]}));
    }
    chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    chunks.push(json!({"choices": [], "usage": usage}));
    sse(chunks)
}

pub(super) struct Server {
    pub(super) base: String,
    pub(super) session: Session,
    _rt: tokio::runtime::Runtime,
}

impl Server {
    pub(super) fn request_bodies(&self) -> Vec<String> {
        self.session
            .requests
            .lock()
            .unwrap()
            .iter()
            .map(|(_, b)| b.to_string())
            .collect()
    }

    pub(super) fn count(&self) -> usize {
        self.session.count.load(Ordering::SeqCst)
    }
}

pub(super) fn start(fault: Fault) -> Server {
    start_with(fault, script)
}

pub(super) fn start_with(fault: Fault, script: Script) -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let session = Session {
        fault,
        script,
        count: Arc::default(),
        requests: Arc::default(),
        hang_at: Arc::default(),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(session.clone());
    let base = super::common::serve_on_loopback(&rt, app);
    Server {
        base,
        session,
        _rt: rt,
    }
}

pub(super) const ONLINE_KEY: &str = KEY;

/// An online `dra --json ask` on the embedded corpus against `server`,
/// with extra settings: its exit code, events and sandbox.
pub(super) fn run_online(
    server: &Server,
    env: &[(&str, &str)],
) -> (Option<i32>, Vec<dra::protocol::Event>, TestHome) {
    let sb = TestHome::new();
    let mut cmd = sb.dra();
    cmd.env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", &server.base)
        .env("DRA_MAX_RETRIES", "3");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--corpus"])
        .arg(super::common::repo_path(
            "src/corpus/embedded/padmapay.json",
        ))
        .arg(PADMAPAY_QUESTION)
        .timeout(Duration::from_secs(60))
        .assert();
    let code = out.get_output().status.code();
    let events = parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
    (code, events, sb)
}

fn assert_good_report(sb: &TestHome) {
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(
        report.contains(PRICING_QUOTE) && report.contains(ABOUT_QUOTE),
        "{report}"
    );
    let lint = dra::report::citations::lint(&report, None);
    assert!(lint.is_empty(), "{lint:?}\n{report}");
    let sources: Vec<dra::report::SourceEntry> =
        serde_json::from_str(&std::fs::read_to_string(sb.run_dir().join("sources.json")).unwrap())
            .unwrap();
    // Each quote sits beside the number of the page it came from.
    for (quote, url) in [(PRICING_QUOTE, PRICING_URL), (ABOUT_QUOTE, ABOUT_URL)] {
        let line = report.lines().find(|l| l.contains(quote)).unwrap();
        let n: usize = line
            .rsplit('[')
            .next()
            .unwrap()
            .trim_end_matches(']')
            .parse()
            .unwrap();
        assert_eq!(sources[n - 1].url, url);
    }
    for path in super::common::run_files(&sb.run_dir()) {
        assert!(
            !std::fs::read_to_string(&path).unwrap().contains(KEY),
            "key in {}",
            path.display()
        );
    }
}

fn last_status(events: &[dra::protocol::Event]) -> (StatusState, Option<StatusReason>) {
    match &events.last().unwrap().body {
        EventBody::Status(s) => (s.state, s.reason),
        other => panic!("{other:?}"),
    }
}

#[test]
fn online_session_native_tools_non_streaming_and_streaming() {
    for streaming in ["false", "true"] {
        let server = start(Fault::None);
        let (code, events, sb) = run_online(
            &server,
            &[
                ("DRA_STREAMING", streaming),
                ("DRA_STREAMING_DENYLIST", "nothing-matches"),
            ],
        );
        assert_eq!(
            code,
            Some(0),
            "streaming={streaming}: {:?}",
            last_status(&events)
        );
        match &events[0].body {
            EventBody::RunStart { mode, tier, .. } => {
                assert_eq!(serde_json::to_value(mode).unwrap(), "online");
                assert_eq!(tier, "extra-low");
            }
            other => panic!("{other:?}"),
        }
        assert_good_report(&sb);
        let requests = server.session.requests.lock().unwrap().clone();
        for (headers, body) in &requests {
            assert_eq!(
                headers.get("authorization").unwrap(),
                &format!("Bearer {KEY}")
            );
            assert_eq!(
                body["stream"].as_bool().unwrap_or(false),
                streaming == "true"
            );
        }
        // Tier routing: the lead on the research slug, the fleet on the sub-agent slug.
        let slugs: Vec<(&str, String)> = requests
            .iter()
            .map(|(_, b)| {
                (
                    match who(b) {
                        Who::Lead => "lead",
                        Who::Sub(_) => "sub",
                        Who::Extractor => "utility",
                    },
                    b["model"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert!(
            slugs
                .iter()
                .any(|(w, m)| *w == "lead" && m == "xiaomi/mimo-v2.5")
        );
        assert!(
            slugs
                .iter()
                .any(|(w, m)| *w == "sub" && m == "deepseek/deepseek-v4-flash")
        );
        assert!(
            slugs
                .iter()
                .any(|(w, m)| *w == "utility" && m == "qwen/qwen3-30b-a3b-instruct-2507")
        );
        let usage = events.iter().find_map(|e| match &e.body {
            EventBody::Usage {
                total_tokens,
                cost_usd,
                models,
                cached_input_tokens,
                ..
            } => Some((
                *total_tokens,
                *cost_usd,
                models.clone(),
                *cached_input_tokens,
            )),
            _ => None,
        });
        let (tokens, cost, models, cached) = usage.unwrap();
        assert_eq!(tokens, 150 * requests.len() as u64, "usage from the API");
        assert_eq!(
            cached,
            96 * requests.len() as u64,
            "cached tokens from the API"
        );
        // The tier's slot that served a model.
        let slot_of = |model: &str| {
            let tier = dra::config::MODEL_TIERS[0];
            [tier.research, tier.subagent, tier.utility]
                .into_iter()
                .find(|s| s.slug == model)
                .unwrap()
        };
        let expected: f64 = models
            .iter()
            .map(|m| {
                assert_eq!(m.cached_input_tokens, 96 * m.calls, "{m:?}");
                slot_of(&m.model).cost(m.input_tokens, m.output_tokens, m.cached_input_tokens)
            })
            .sum();
        assert!(
            (cost - expected).abs() < 1e-12 && cost > 0.0,
            "{cost} vs {expected}"
        );
        // The DeepSeek slot's cached tokens cost a tenth: the run costs less
        // than the same tokens uncached.
        let uncached: f64 = models
            .iter()
            .map(|m| slot_of(&m.model).cost(m.input_tokens, m.output_tokens, 0))
            .sum();
        assert!(cost < uncached, "{cost} vs {uncached}");
        if streaming == "true" {
            assert!(events.iter().any(|e| matches!(&e.body, EventBody::Thinking { text } if text.contains("thinking about it"))));
        }
    }
}

#[test]
fn online_session_in_envelope_mode_and_with_automatic_fallback() {
    let server = start(Fault::None);
    let (code, events, sb) = run_online(&server, &[("DRA_TOOL_PROTOCOL", "envelope")]);
    assert_eq!(code, Some(0), "{:?}", last_status(&events));
    assert_good_report(&sb);
    assert!(
        server
            .session
            .requests
            .lock()
            .unwrap()
            .iter()
            .all(|(_, b)| b.get("tools").is_none()),
        "envelope mode sends no tools"
    );

    let server = start(Fault::NoTools);
    let (code, events, sb) = run_online(&server, &[("DRA_TOOL_PROTOCOL", "auto")]);
    assert_eq!(code, Some(0), "{:?}", last_status(&events));
    assert_good_report(&sb);
    assert!(
        events.iter().any(
            |e| matches!(&e.body, EventBody::Warning { code, .. } if *code == dra::protocol::WarningCode::ModelFallback)
        )
    );
}

#[test]
fn transient_faults_are_retried_and_reported() {
    let server = start(Fault::Transient);
    let (code, events, sb) = run_online(&server, &[]);
    assert_eq!(code, Some(0), "{:?}", last_status(&events));
    assert_good_report(&sb);
    let retries: Vec<(u32, String)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Retry {
                attempt, reason, ..
            } => Some((*attempt, reason.clone())),
            _ => None,
        })
        .collect();
    assert!(
        retries.iter().any(|(_, r)| r.contains("429")),
        "{retries:?}"
    );
    assert!(
        retries.iter().any(|(_, r)| r.contains("503")),
        "{retries:?}"
    );
}

#[test]
fn a_rejected_key_ends_the_run_with_a_clear_error() {
    let server = start(Fault::Unauthorized);
    let (code, events, sb) = run_online(&server, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(last_status(&events).1, Some(StatusReason::ModelFailed));
    let detail = events.iter().rev().find_map(|e| match &e.body {
        EventBody::Status(s) => s.detail.clone(),
        _ => None,
    });
    let detail = detail.unwrap();
    assert!(detail.contains("401"), "{detail}");
    assert!(
        !detail.contains(KEY),
        "the key the server echoed is not repeated"
    );
    assert_eq!(
        server.session.count.load(Ordering::SeqCst),
        1,
        "a 401 is not retried"
    );
    assert!(sb.run_dir().join("report.md").is_file());
}

#[test]
fn base_url_overrides_must_be_allowlisted() {
    let server = start(Fault::None);
    let sb = TestHome::new();
    sb.dra()
        .env("OPENAI_API_KEY", KEY)
        .args([
            "ask",
            "--base-url",
            "https://evil.example/v1",
            "Is PadmaPay reliable?",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("DRA_ALLOWED_BASE_URLS"));
    assert_eq!(server.session.count.load(Ordering::SeqCst), 0);
    let (code, _, _) = {
        let sb = TestHome::new();
        let out = sb
            .dra()
            .env("OPENAI_API_KEY", KEY)
            .env("DRA_ALLOWED_BASE_URLS", &server.base)
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "ask", "--base-url", &server.base, "--corpus"])
            .arg(super::common::repo_path(
                "src/corpus/embedded/padmapay.json",
            ))
            .arg(PADMAPAY_QUESTION)
            .assert();
        (out.get_output().status.code(), (), sb)
    };
    assert_eq!(code, Some(0));
    assert!(
        server.session.count.load(Ordering::SeqCst) > 0,
        "the allowlisted override is used"
    );
}

#[test]
fn token_and_dollar_caps_halt_online_runs_without_overshoot() {
    for (key, value) in [("DRA_MAX_TOTAL_TOKENS", "9000"), ("DRA_MAX_USD", "0.0015")] {
        let server = start(Fault::None);
        let (code, events, sb) = run_online(&server, &[(key, value)]);
        assert_eq!(code, Some(5), "{key}: {:?}", last_status(&events));
        let (tokens, usd) = events
            .iter()
            .find_map(|e| match &e.body {
                EventBody::Usage {
                    total_tokens,
                    cost_usd,
                    ..
                } => Some((*total_tokens, *cost_usd)),
                _ => None,
            })
            .unwrap();
        if key == "DRA_MAX_TOTAL_TOKENS" {
            assert!(tokens <= 9000, "{tokens} tokens against a cap of 9000");
        } else {
            assert!(usd <= 0.0015, "${usd} against a cap of $0.0015");
        }
        let halt = events
            .iter()
            .find_map(|e| match &e.body {
                EventBody::Status(s) if s.state == StatusState::BudgetHalt => s.detail.clone(),
                _ => None,
            })
            .expect("a budget_halt status");
        if key == "DRA_MAX_USD" {
            // Money as money: the cap with its digits, never "$0.00".
            assert!(halt.ends_with(" of $0.0015"), "{halt}");
        }
        assert!(
            sb.run_dir().join("report.md").is_file(),
            "a salvaged report is written"
        );
    }
}
