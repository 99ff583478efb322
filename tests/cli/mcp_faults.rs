//! MCP faults in a whole run, from an rmcp server of our own on loopback: a
//! rate-limited tool (429s, then an answer: dra backs off and retries), a
//! tool whose call changes the server's tool list (a warning; the run keeps
//! the tools it started with), and a server that goes away mid-run (the
//! next call fails transient, the run goes on and delivers).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use dra::protocol::{ErrorClass, EventBody, WarningCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::tower::StreamableHttpService;
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

use super::common::{TestHome, parse_events};
use super::online::{Fault, ONLINE_KEY, Who, start_with, text_of, who};

const QUOTE: &str = "Orla Freight charges 42 pounds per pallet for next-day delivery in Leeds.";
/// Calls of `lookup` refused with a 429 before it answers.
const RATE_LIMITED_CALLS: usize = 2;

#[derive(Clone, Default)]
struct Faulty {
    lookups: Arc<AtomicUsize>,
    /// Set by `shutdown`: from then on the server answers nothing.
    gone: Arc<AtomicBool>,
}

impl ServerHandler for Faulty {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let q = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
        let none = json!({"type": "object"});
        let obj = |v: &Value| v.as_object().unwrap().clone();
        Ok(ListToolsResult {
            tools: vec![
                Tool::new("lookup", "Look up the rate card.", obj(&q)),
                Tool::new("reshape", "Reorganise the toolbox.", obj(&none)),
                Tool::new("shutdown", "Stop the server.", obj(&none)),
            ],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = |t: &str| Ok(CallToolResult::success(vec![ContentBlock::text(t)]).into());
        match request.name.as_ref() {
            "lookup" => {
                let n = self.lookups.fetch_add(1, Ordering::SeqCst) + 1;
                if n <= RATE_LIMITED_CALLS {
                    return Err(ErrorData::internal_error(
                        "429 Too Many Requests: slow down",
                        None,
                    ));
                }
                text(&format!("Rate card 2026 (Orla Freight, internal). {QUOTE}"))
            }
            "reshape" => {
                let _ = context.peer.notify_tool_list_changed().await;
                text("The toolbox was reorganised.")
            }
            "shutdown" => {
                self.gone.store(true, Ordering::SeqCst);
                text("Stopping.")
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}

/// Serves [`Faulty`] on loopback; once `shutdown` was called every request
/// gets a 503, as from a server that has gone away behind its proxy.
fn serve(rt: &tokio::runtime::Runtime) -> (String, Faulty) {
    let state = Faulty::default();
    let factory = state.clone();
    let service: StreamableHttpService<Faulty, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let gone = state.gone.clone();
    let router =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| {
                    let gone = gone.clone();
                    async move {
                        if gone.load(Ordering::SeqCst) && req.method() == axum::http::Method::POST {
                            return axum::response::IntoResponse::into_response(
                                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                            );
                        }
                        next.run(req).await
                    }
                },
            ));
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    rt.spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (url, state)
}

fn script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead => Ok(match turn {
            0 => vec![(
                "task",
                json!({"description": "Aspect: pricing\nEntity: Orla Freight\nFind the pallet rate."}),
            )],
            _ => super::online::report_citing_findings(
                &messages,
                "Orla Freight",
                "Orla Freight's pallet rate, from the internal rate card.",
            ),
        }),
        Who::Sub(_) => Ok(match turn {
            0 => vec![("faulty__lookup", json!({"query": "pallet rate"}))],
            1 => vec![("faulty__reshape", json!({}))],
            2 => vec![("faulty__shutdown", json!({}))],
            3 => vec![("faulty__lookup", json!({"query": "pallet rate again"}))],
            _ => {
                let all = text_of(&messages);
                let url = regex::Regex::new(r"Source: \[\d+\] (mcp://\S+)")
                    .unwrap()
                    .captures(&all)
                    .map(|c| c[1].to_string())
                    .unwrap_or_default();
                vec![(
                    "submit_findings",
                    json!({"summary": "pallet rate", "findings": [{"claim": QUOTE, "quote": QUOTE, "url": url, "field": "pricing"}], "gaps": []}),
                )]
            }
        }),
        Who::Extractor => Err(json!({"claims": []}).to_string()),
    }
}

#[test]
fn rate_limits_tool_list_changes_and_a_server_gone_mid_run_do_not_stop_the_run() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (url, server) = serve(&rt);
    let model = start_with(Fault::None, script);
    let sb = TestHome::new();
    let out = sb
        .dra()
        .env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", &model.base)
        .env("DRA_MCP_RATE_LIMIT_MAX_WAIT", "20")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--mcp"])
        .arg(format!("faulty={url}"))
        .arg("What does Orla Freight (Leeds, England) charge per pallet?")
        .timeout(Duration::from_secs(90))
        .assert();
    let output = out.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events = parse_events(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{events:#?}");

    // Two 429s, then the answer: one call for the model, three for the server.
    assert_eq!(
        server.lookups.load(Ordering::SeqCst),
        RATE_LIMITED_CALLS + 1,
        "the rate-limited call was retried until it answered, and the call after the server went away never reached it"
    );
    let results: Vec<(String, bool, Option<ErrorClass>)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::McpResult {
                tool,
                ok,
                error_class,
                ..
            } => Some((tool.clone(), *ok, *error_class)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("faulty__lookup".to_string(), true, None),
            ("faulty__reshape".to_string(), true, None),
            ("faulty__shutdown".to_string(), true, None),
            (
                "faulty__lookup".to_string(),
                false,
                Some(ErrorClass::Transient)
            ),
        ],
        "{events:#?}"
    );
    // The failed call names the server and what failed, in plain words.
    let failed = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::McpResult {
                ok: false, summary, ..
            } => Some(summary.clone()),
            _ => None,
        })
        .expect("the call after the server went away");
    assert!(
        failed.starts_with("MCP server faulty: calling lookup failed: "),
        "{failed}"
    );
    assert!(
        !failed.contains("::") && !failed.contains("WorkerTransport"),
        "{failed}"
    );
    let changed = events.iter().any(|e| {
        matches!(&e.body, EventBody::Warning { code, message }
            if *code == WarningCode::McpToolsChanged && message.contains("faulty"))
    });
    assert!(changed, "no tool-list warning: {events:#?}");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains(QUOTE), "{report}");
}

/// The sub-researcher looks the rate up once and submits it.
fn lookup_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match (who(body), turn) {
        (Who::Sub(_), 0) => Ok(vec![("faulty__lookup", json!({"query": "pallet rate"}))]),
        (Who::Sub(_), _) => {
            let all = text_of(&messages);
            let url = regex::Regex::new(r"Source: \[\d+\] (mcp://\S+)")
                .unwrap()
                .captures(&all)
                .map(|c| c[1].to_string())
                .unwrap_or_default();
            Ok(vec![(
                "submit_findings",
                json!({"summary": "pallet rate", "findings": [{"claim": QUOTE, "quote": QUOTE, "url": url, "field": "pricing"}], "gaps": []}),
            )])
        }
        _ => script(body),
    }
}

fn dra_child(sb: &TestHome, model: &str) -> std::process::Command {
    let mut c = sb.std_dra();
    c.env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", model)
        .env("DRA_MAX_RETRIES", "0")
        .env("DRA_MCP_RATE_LIMIT_MAX_WAIT", "20")
        .arg("--runs-dir")
        .arg(sb.runs())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    c
}

const ORLA: &str = "What does Orla Freight (Leeds, England) charge per pallet?";

/// A run killed while its last model request (the report) is in flight,
/// then resumed after the server went away: with `dra resume --last --mcp
/// faulty=URL` (a run dir is data: servers come from the command line and
/// configuration), and a copy of it with no `--mcp` at all (the recorded
/// server is not started, a security warning says so). Either way the
/// tools it offers are those its first invocation listed and the MCP call
/// it completed is answered from its records, so nothing diverges.
#[test]
fn a_resumed_run_does_not_call_an_mcp_server_again() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // An uninterrupted run: how many model requests it makes.
    let (url, _) = serve(&rt);
    let model = start_with(Fault::None, lookup_script);
    let sb = TestHome::new();
    let out = dra_child(&sb, &model.base)
        .args(["ask", "--mcp"])
        .arg(format!("faulty={url}"))
        .arg(ORLA)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = model.count();

    let (url, server) = serve(&rt);
    let model = start_with(Fault::None, lookup_script);
    model.session.hang_at.store(requests, Ordering::SeqCst);
    let sb = TestHome::new();
    let mut child = dra_child(&sb, &model.base)
        .args(["ask", "--mcp"])
        .arg(format!("faulty={url}"))
        .arg(ORLA)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while model.count() < requests {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run never reached its report request ({} of {requests})",
            model.count()
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap();
    let _ = child.wait();
    model.session.hang_at.store(0, Ordering::SeqCst);
    let lookups = server.lookups.load(Ordering::SeqCst);
    assert_eq!(lookups, RATE_LIMITED_CALLS + 1);
    // The server is gone by the time the run is resumed: the run offers
    // the tools its first invocation listed and replays the call it made.
    server.gone.store(true, Ordering::SeqCst);
    // A copy of the killed run, resumed with no --mcp below.
    let copy = TestHome::new();
    std::fs::create_dir_all(copy.runs()).unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(sb.run_dir())
        .arg(copy.runs())
        .status()
        .unwrap();
    assert!(copied.success());

    let out = dra_child(&sb, &model.base)
        .args(["resume", "--last", "--mcp"])
        .arg(format!("faulty={url}"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap_or_default()
    );
    assert_eq!(
        server.lookups.load(Ordering::SeqCst),
        lookups,
        "the resumed run called the MCP tool again"
    );
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains(QUOTE), "{report}");
    let events = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
    assert!(!events.contains("replay_diverged"), "{events}");

    // The copy, resumed without --mcp: its recorded answers replay.
    let out = dra_child(&copy, &model.base)
        .args(["resume", "--last"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(server.lookups.load(Ordering::SeqCst), lookups);
    let report = std::fs::read_to_string(copy.run_dir().join("report.md")).unwrap();
    assert!(report.contains(QUOTE), "{report}");
    let events = std::fs::read_to_string(copy.run_dir().join("events.jsonl")).unwrap();
    assert!(!events.contains("replay_diverged"), "{events}");
    assert!(
        events.contains("\"security\"")
            && events.contains(
                "MCP server faulty is named in this run's records but not configured now"
            ),
        "{events}"
    );
}
