//! dra as an MCP client: interop with `@modelcontextprotocol/server-everything`
//! (npm, over stdio), faults from a small rmcp server of our own (a slow
//! start, a server that dies, tools that fail), and a scripted-model run
//! whose only sources are an MCP search tool. Everything stays on loopback.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dra::mcp::{self, ConnectError, McpServer, McpTransport};
use dra::protocol::{ErrorClass, EventBody, StatusState};
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

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events};
use super::online::{Fault, ONLINE_KEY, Who, start_with, text_of, who};

const PRICING_QUOTE: &str =
    "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.";
const ABOUT_QUOTE: &str =
    "Kavya Menon is the chief executive officer of PadmaPay, effective 1 March 2026.";

/// Where `.ci/run` installs server-everything; `DRA_TEST_MCP_EVERYTHING`
/// overrides it.
pub(super) fn everything_path() -> PathBuf {
    let path = std::env::var_os("DRA_TEST_MCP_EVERYTHING")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            super::common::repo_path(
                ".ci/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            )
        });
    assert!(
        path.exists(),
        "@modelcontextprotocol/server-everything is not installed at {}: run `npm install --prefix .ci/npm @modelcontextprotocol/server-everything` (as .ci/run does) or set DRA_TEST_MCP_EVERYTHING",
        path.display()
    );
    path
}

fn stdio(label: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> McpServer {
    McpServer {
        label: label.into(),
        transport: McpTransport::Stdio {
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
        },
        origin: "test".into(),
    }
}

pub(super) fn http(label: &str, url: &str) -> McpServer {
    McpServer {
        label: label.into(),
        transport: McpTransport::Http {
            url: url.into(),
            bearer: None,
        },
        origin: "test".into(),
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A knowledge base: `search` answers from two records, `fail` fails
/// permanently, `busy` transiently, `plain` with no class.
#[derive(Clone)]
struct Kb;

fn schema(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().unwrap().clone()
}

impl ServerHandler for Kb {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let q = schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "SearchArgs",
            "type": "object",
            "properties": {"query": {"type": "string", "title": "Query"}},
            "required": ["query"]
        }));
        let none = schema(json!({"type": "object"}));
        Ok(ListToolsResult {
            tools: vec![
                Tool::new("search", "Search the internal knowledge base.", q),
                Tool::new("fail", "Always fails permanently.", none.clone()),
                Tool::new("busy", "Always fails transiently.", none.clone()),
                Tool::new("plain", "Fails without a class.", none.clone()),
                Tool::new("big", "A 5 MB table of merchant fees.", none),
            ],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let query = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("query"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let result = match request.name.as_ref() {
            "search" if query.contains("pricing") || query.contains("fee") => {
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "Internal KB record 17 (PadmaPay merchant terms, 2026). {PRICING_QUOTE} Volume discounts apply above 1 crore a month."
                ))])
            }
            "search" => CallToolResult::success(vec![ContentBlock::text(format!(
                "Internal KB record 4 (PadmaPay company profile). {ABOUT_QUOTE} PadmaPay is based in Kochi, India."
            ))]),
            "fail" => CallToolResult::error(vec![ContentBlock::text("[permanent] no such record")]),
            "busy" => {
                CallToolResult::error(vec![ContentBlock::text("[transient] index rebuilding")])
            }
            "plain" => CallToolResult::error(vec![ContentBlock::text("something broke")]),
            "big" => CallToolResult::success(vec![ContentBlock::text(big_table())]),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// Rows of the 5 MB result of `big`.
pub(super) const BIG_ROWS: usize = 80_000;

/// A 5 MB tab-separated table about PadmaPay merchants.
fn big_table() -> String {
    let mut s = String::from("month\tmerchant\tfee\tnote\n");
    for i in 0..BIG_ROWS {
        s.push_str(&format!(
            "2026-{:02}\tPadmaPay merchant {i:06}\t1.9%\tstandard domestic card fee\n",
            i % 12 + 1
        ));
    }
    s
}

/// Serves [`Kb`] over streamable HTTP on loopback; returns its URL.
pub(super) async fn serve_kb() -> String {
    let service: StreamableHttpService<Kb, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Kb),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    url
}

/// A port that accepts connections and never answers: a server that is
/// too slow to start.
async fn serve_silence() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((sock, _)) = listener.accept().await {
            held.push(sock);
        }
    });
    url
}

#[test]
fn server_everything_over_stdio_with_a_clean_environment() {
    let path = everything_path();
    let rt = rt();
    rt.block_on(async {
        let server = stdio(
            "everything",
            "node",
            &[path.to_str().unwrap(), "stdio"],
            &[("MARKER", "mcp-test")],
        );
        let conn = mcp::connect(&server, Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("server-everything did not start: {e}"));
        let names: Vec<&str> = conn.tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(
            names.contains(&"echo") && names.contains(&"get-env"),
            "{names:?}"
        );

        let mut args = serde_json::Map::new();
        args.insert("message".into(), json!("hello from dra"));
        let echoed = conn.call("echo", args).await.unwrap();
        assert!(mcp::result_text(&echoed).contains("hello from dra"));

        // The child sees the minimal base plus its own env: no keys, no preload.
        let env = mcp::result_text(&conn.call("get-env", Default::default()).await.unwrap());
        let env: serde_json::Map<String, Value> = serde_json::from_str(&env).unwrap();
        assert_eq!(env.get("MARKER"), Some(&json!("mcp-test")));
        for (k, _) in &env {
            assert!(
                [
                    "PATH",
                    "HOME",
                    "USER",
                    "LOGNAME",
                    "LANG",
                    "LC_ALL",
                    "LC_CTYPE",
                    "TZ",
                    "TMPDIR",
                    "TERM",
                    "MARKER",
                    // dra's random mark of the server's processes (killed with it).
                    "DRA_SUBTREE"
                ]
                .contains(&k.as_str()),
                "unexpected variable {k} in the server's environment"
            );
        }

        // Names and schemas as a model sees them.
        let mut taken = Default::default();
        for t in &conn.tools {
            let name = mcp::names::exposed_name("everything", &t.name, &mut taken);
            assert!(name.starts_with("everything__") && name.len() <= 64);
            let s = mcp::names::clean_schema(&t.input_schema).to_string();
            assert!(!s.contains("\"$schema\""), "{s}");
        }
        conn.close().await;
    });
}

#[test]
fn dead_and_slow_servers_fail_alone_within_the_timeout() {
    let rt = rt();
    rt.block_on(async {
        let kb = serve_kb().await;
        let silent = serve_silence().await;
        let servers = vec![
            http("kb", &kb),
            http("silent", &silent),
            stdio("dies", "sh", &["-c", "exit 3"], &[]),
            stdio("mute", "sleep", &["30"], &[]),
            stdio("missing", "/nonexistent/mcp-server", &[], &[]),
        ];
        let started = Instant::now();
        let results = mcp::connect_all(&servers, Duration::from_secs(2)).await;
        let elapsed = started.elapsed();
        eprintln!("start-up of 5 servers (1 ready, 4 failing): {elapsed:?}");
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        let by_label: BTreeMap<String, &Result<_, ConnectError>> =
            results.iter().map(|(s, r)| (s.label.clone(), r)).collect();
        let kb = by_label["kb"].as_ref().unwrap();
        assert_eq!(kb.tools.len(), 5);
        assert!(matches!(by_label["silent"], Err(ConnectError::Timeout(_))));
        assert!(matches!(by_label["mute"], Err(ConnectError::Timeout(_))));
        assert!(matches!(by_label["dies"], Err(ConnectError::Handshake(_))));
        assert!(matches!(
            by_label["missing"],
            Err(ConnectError::Spawn { .. })
        ));
        for (s, r) in &results {
            if let Err(e) = r {
                assert!(!e.fix(s).is_empty());
            }
        }
    });
}

#[test]
fn start_up_of_five_servers_one_dead() {
    let path = everything_path();
    let rt = rt();
    rt.block_on(async {
        let servers = vec![
            http("kb1", &serve_kb().await),
            http("kb2", &serve_kb().await),
            http("kb3", &serve_kb().await),
            stdio(
                "everything",
                "node",
                &[path.to_str().unwrap(), "stdio"],
                &[],
            ),
            stdio("dead", "sh", &["-c", "exit 3"], &[]),
        ];
        let started = Instant::now();
        let results = mcp::connect_all(&servers, Duration::from_secs(30)).await;
        let elapsed = started.elapsed();
        eprintln!("start-up of 5 servers (4 ready, 1 dead): {elapsed:?}");
        let ready = results.iter().filter(|(_, r)| r.is_ok()).count();
        assert_eq!(ready, 4);
        assert!(matches!(results[4].1, Err(ConnectError::Handshake(_))));
        // The dead server costs nothing: start-up is the slowest live one.
        assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
        for (_, r) in results {
            if let Ok(c) = r {
                c.close().await;
            }
        }
    });
}

#[test]
fn tool_failures_are_classed() {
    let rt = rt();
    rt.block_on(async {
        let url = serve_kb().await;
        let conn = mcp::connect(&http("kb", &url), Duration::from_secs(5))
            .await
            .unwrap();
        for (tool, class) in [
            ("fail", ErrorClass::Permanent),
            ("busy", ErrorClass::Transient),
            ("plain", ErrorClass::Unknown),
        ] {
            let r = conn.call(tool, Default::default()).await.unwrap();
            assert_eq!(r.is_error, Some(true));
            assert_eq!(
                mcp::class_of_tool_error(&mcp::result_text(&r)),
                class,
                "{tool}"
            );
        }
        let e = conn.call("nope", Default::default()).await.unwrap_err();
        assert_eq!(
            mcp::class_of_service_error(&e),
            ErrorClass::Permanent,
            "{e}"
        );

        // Overhead of the wrapper: a bare rmcp call against dra's classing
        // and text extraction, measured on the same connection.
        let mut args = serde_json::Map::new();
        args.insert("query".into(), json!("pricing"));
        let n = 200u32;
        let (mut bare, mut wrapped) = (Duration::ZERO, Duration::ZERO);
        // Interleaved, so load on the machine falls on both alike.
        for _ in 0..n {
            let t = Instant::now();
            conn.call("search", args.clone()).await.unwrap();
            bare += t.elapsed();
            let t = Instant::now();
            let r = conn.call("search", args.clone()).await.unwrap();
            let text = mcp::result_text(&r);
            let _ = mcp::class_of_tool_error(&text);
            wrapped += t.elapsed();
        }
        let (bare, wrapped) = (bare / n, wrapped / n);
        eprintln!(
            "mcp call over loopback HTTP: bare {bare:?}, with dra's result handling {wrapped:?}"
        );
        conn.close().await;
    });
}

/// The scripted session: sub-researchers search the knowledge base through
/// MCP and quote its records; the lead cites what came back.
fn mcp_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead => Ok(match turn {
            0 => vec![(
                "write_todos",
                json!({"todos": [{"content": "pricing"}, {"content": "leadership"}]}),
            )],
            1 => vec![
                (
                    "task",
                    json!({"description": "Aspect: pricing\nEntity: PadmaPay\nFind the current fee."}),
                ),
                (
                    "task",
                    json!({"description": "Aspect: leadership\nEntity: PadmaPay\nFind the current CEO."}),
                ),
            ],
            _ => super::online::report_citing_findings(&messages, "PadmaPay", "PadmaPay's current fee and chief executive, from the internal knowledge base.")
        }),
        Who::Sub(aspect) => {
            let tools: Vec<&str> = body["tools"]
                .as_array()
                .map(|t| t.iter().filter_map(|t| t["function"]["name"].as_str()).collect())
                .unwrap_or_default();
            if !tools.contains(&"kb__search") {
                return Err(format!("kb__search not offered: {tools:?}"));
            }
            let quote = if aspect == "pricing" { PRICING_QUOTE } else { ABOUT_QUOTE };
            Ok(match turn {
                0 => vec![("kb__search", json!({"query": aspect}))],
                _ => {
                    let all = text_of(&messages);
                    // The result is a page view: `Source: [n] mcp://...` under the spotlight.
                    let url = regex::Regex::new(r#"Source: \[\d+\] (mcp://\S+)"#)
                        .unwrap()
                        .captures(&all)
                        .map(|c| c[1].to_string())
                        .unwrap_or_default();
                    vec![(
                        "submit_findings",
                        json!({"summary": aspect, "findings": [{"claim": quote, "quote": quote, "url": url, "field": aspect}], "gaps": []}),
                    )]
                }
            })
        }
        Who::Extractor => Err(json!({"claims": [{"field": "pricing", "value": "1.9%", "snippet": PRICING_QUOTE, "event_date": null}]}).to_string()),
    }
}

#[test]
fn an_online_run_with_only_an_mcp_server_cites_its_results() {
    let rt = rt();
    let kb = rt.block_on(serve_kb());
    let model = start_with(Fault::None, mcp_script);
    let sb = TestHome::new();
    let out = sb
        .dra()
        .env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", &model.base)
        .env("DRA_MCP_BEARER", "mcp-bearer-canary-5521")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--mcp"])
        .arg(format!("kb={kb}"))
        .arg(PADMAPAY_QUESTION)
        .timeout(Duration::from_secs(90))
        .assert();
    let output = out.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events = parse_events(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{events:#?}");
    assert!(
        stderr.contains("only sources are the MCP servers kb"),
        "{stderr}"
    );

    let ready = events.iter().any(|e| {
        matches!(&e.body, EventBody::Status(s) if s.state == StatusState::McpReady
            && s.detail.as_deref().is_some_and(|d| d.starts_with("kb: 5 tools")))
    });
    assert!(ready, "{events:#?}");
    let calls = events
        .iter()
        .filter(|e| matches!(&e.body, EventBody::McpCall { tool, .. } if tool == "kb__search"))
        .count();
    let results = events
        .iter()
        .filter(|e| matches!(&e.body, EventBody::McpResult { tool, ok: true, .. } if tool == "kb__search"))
        .count();
    assert_eq!((calls, results), (2, 2), "{events:#?}");
    // MCP calls count against the tool-call budget like any other.
    assert!(
        !events.iter().any(
            |e| matches!(&e.body, EventBody::ToolCall { tool, .. } if tool.starts_with("kb__"))
        )
    );

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
    for quote in [PRICING_QUOTE, ABOUT_QUOTE] {
        let line = report.lines().find(|l| l.contains(quote)).unwrap();
        let n: usize = line
            .rsplit('[')
            .next()
            .unwrap()
            .trim_end_matches(']')
            .parse()
            .unwrap();
        assert!(
            sources[n - 1].url.starts_with("mcp://kb/search/"),
            "{:?}",
            sources[n - 1]
        );
    }
    for path in super::common::run_files(&sb.run_dir()) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            !text.contains(ONLINE_KEY),
            "model key in {}",
            path.display()
        );
        assert!(
            !text.contains("mcp-bearer-canary-5521"),
            "MCP bearer in {}",
            path.display()
        );
    }
}
