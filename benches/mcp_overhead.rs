//! MCP call overhead: a trivial `echo` tool on an in-process rmcp server
//! over streamable HTTP on loopback, called N times three ways:
//!   1. a bare rmcp client (`call_tool`),
//!   2. dra's connection wrapper (`dra::mcp::connect` + `McpConnection::call`
//!      + `result_text`), the call `engine::tools::mcp` makes,
//!   3. (2) plus the per-call work the engine's MCP tool adds around it: the
//!      run's semaphore, the call timeout, and judging the text as evidence
//!      (`evidence::assess`, the stable `mcp://` URL).
//!
//! Prints µs per call (median and mean). Not a test.
//!   usage: cargo bench --bench mcp_overhead [-- CALLS]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dra::document::{ContentType, DocMeta, RawDocument, SourceType};
use dra::mcp::{self, McpServer, McpTransport};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::tower::StreamableHttpService;
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        Ok(ListToolsResult {
            tools: vec![Tool::new(
                "echo",
                "Echoes its argument.",
                schema.as_object().unwrap().clone(),
            )],
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let q = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("q"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Internal KB record 4 (Acme profile). Acme Ltd is based in Pune, India. Query: {q}"
        ))])
        .into())
    }
}

async fn serve() -> String {
    let service: StreamableHttpService<Echo, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Echo),
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

fn report(name: &str, mut times: Vec<Duration>) -> f64 {
    times.sort();
    let median = times[times.len() / 2].as_secs_f64() * 1e6;
    let mean = times.iter().map(Duration::as_secs_f64).sum::<f64>() / times.len() as f64 * 1e6;
    println!("{name:<48} median {median:>8.1} µs   mean {mean:>8.1} µs");
    median
}

fn args(i: usize) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("q".into(), json!(format!("call {i}")));
    m
}

fn main() {
    let calls: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let url = serve().await;
        let warm = calls / 10 + 1;

        // 1. Bare rmcp.
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.clone()),
        );
        let bare = ().serve(transport).await.unwrap();
        let mut times = Vec::with_capacity(calls);
        for i in 0..warm + calls {
            let started = Instant::now();
            let r = bare
                .call_tool(CallToolRequestParams::new("echo").with_arguments(args(i)))
                .await
                .unwrap();
            if i >= warm {
                times.push(started.elapsed());
            }
            assert!(r.is_error != Some(true));
        }
        let bare_us = report("bare rmcp call_tool", times);
        let _ = bare.cancel().await;

        // 2. dra's connection wrapper.
        let server = McpServer {
            label: "kb".into(),
            transport: McpTransport::Http {
                url: url.clone(),
                bearer: None,
            },
            origin: "bench".into(),
        };
        let conn = Arc::new(mcp::connect(&server, Duration::from_secs(10)).await.unwrap());
        let mut times = Vec::with_capacity(calls);
        for i in 0..warm + calls {
            let started = Instant::now();
            let r = conn.call("echo", args(i)).await.unwrap();
            let text = mcp::result_text(&r);
            if i >= warm {
                times.push(started.elapsed());
            }
            assert!(text.contains("call"));
        }
        let wrap_us = report("dra::mcp McpConnection::call + result_text", times);

        // 3. The engine tool's per-call work around it.
        let semaphore = tokio::sync::Semaphore::new(10);
        let anchors = dra::protocol::EntityAnchors::default();
        let mut times = Vec::with_capacity(calls);
        for i in 0..warm + calls {
            let started = Instant::now();
            let a = args(i);
            let shown = Value::Object(a.clone());
            let _permit = semaphore.acquire().await.unwrap();
            let r = tokio::time::timeout(mcp::CALL_TIMEOUT, conn.call("echo", a))
                .await
                .unwrap()
                .unwrap();
            let text = mcp::result_text(&r);
            let url = dra::engine::tools::mcp::result_url("kb", "echo", &shown, &text);
            let raw = RawDocument {
                url,
                title: Some(format!("kb · echo {shown}")),
                published: None,
                updated: None,
                source_type: Some(SourceType::Other),
                content_type: ContentType::Plain,
                content: text,
                meta: DocMeta {
                    authors: Vec::new(),
                    publisher: Some("kb".into()),
                    extra: BTreeMap::new(),
                },
            };
            let page = dra::evidence::assess(&raw, &anchors, "2026-12-01");
            if i >= warm {
                times.push(started.elapsed());
            }
            assert!(!page.text.is_empty());
        }
        let tool_us = report("+ engine tool work (semaphore, timeout, assess)", times);
        println!(
            "overhead over bare rmcp: wrapper {:+.1} µs/call ({:+.1}%), with the engine tool's work {:+.1} µs/call ({:+.1}%)  [{calls} calls each]",
            wrap_us - bare_us,
            (wrap_us / bare_us - 1.0) * 100.0,
            tool_us - bare_us,
            (tool_us / bare_us - 1.0) * 100.0
        );
    });
}
