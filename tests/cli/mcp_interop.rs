//! dra's MCP client against servers nobody here wrote, over both
//! transports: `@modelcontextprotocol/server-everything` (npm) over
//! streamable HTTP (its stdio case is in `mcp.rs`), and a server built with
//! the Python MCP SDK from PyPI (`MCPServer`, formerly FastMCP) over stdio
//! and streamable HTTP. Everything listens on loopback.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dra::mcp::{self, McpServer, McpTransport};
use serde_json::json;

use super::mcp::{everything_path, http};
use super::mcp_serve::python_sdk;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A loopback port nobody listens on right now.
pub(super) fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Waits until something accepts connections on the port.
pub(super) fn wait_for(port: u16, child: &mut Child) {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the server exited before listening"
        );
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "nothing listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills the child when the test ends, passed or not.
pub(super) struct Reap(pub(super) Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn args(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn server_everything_over_streamable_http() {
    let path = everything_path();
    let port = free_port();
    let mut child = Reap(
        Command::new("node")
            .arg(&path)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs"),
    );
    wait_for(port, &mut child.0);
    rt().block_on(async {
        let conn = mcp::connect(
            &http("everything", &format!("http://127.0.0.1:{port}/mcp")),
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("server-everything over HTTP: {e}"));
        let names: Vec<&str> = conn.tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"echo"), "{names:?}");
        let echoed = conn
            .call("echo", args(json!({"message": "over http"})))
            .await
            .unwrap();
        assert!(mcp::result_text(&echoed).contains("over http"));
        conn.close().await;
    });
}

fn kb_script() -> String {
    super::common::repo_path("tests/mcp_servers/kb_server.py")
        .to_string_lossy()
        .into_owned()
}

/// Lists the Python server's tools and calls both; a call with arguments
/// of the wrong type comes back as an error dra classes, not a crash.
async fn exercise_python_kb(server: &McpServer) {
    let conn = mcp::connect(server, Duration::from_secs(30))
        .await
        .unwrap_or_else(|e| panic!("the Python SDK server: {e}"));
    let mut names: Vec<&str> = conn.tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(names, ["add", "lookup"]);
    // Its generated schemas are usable once cleaned for providers.
    for t in &conn.tools {
        let cleaned = mcp::names::clean_schema(&t.input_schema);
        assert_eq!(cleaned["type"], "object", "{cleaned}");
        assert!(cleaned.get("title").is_none(), "{cleaned}");
    }
    let found = conn
        .call("lookup", args(json!({"query": "PadmaPay fees"})))
        .await
        .unwrap();
    assert!(
        mcp::result_text(&found).contains("1.9% per domestic card"),
        "{found:?}"
    );
    let sum = conn
        .call("add", args(json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert!(mcp::result_text(&sum).contains("42"), "{sum:?}");
    let wrong = conn.call("add", args(json!({"a": "two", "b": 40}))).await;
    match wrong {
        Ok(r) => assert_eq!(r.is_error, Some(true), "{r:?}"),
        Err(e) => assert_ne!(
            mcp::class_of_service_error(&e),
            dra::protocol::ErrorClass::Transient,
            "{e}"
        ),
    }
    conn.close().await;
}

#[test]
fn a_python_sdk_server_over_stdio() {
    let sdk = python_sdk();
    let server = McpServer {
        label: "pykb".into(),
        transport: McpTransport::Stdio {
            command: "python3".into(),
            args: vec![kb_script(), "stdio".into()],
            // The child gets an explicit environment: the SDK's path is
            // passed like any server's own `env`.
            env: BTreeMap::from([("PYTHONPATH".to_string(), sdk.display().to_string())]),
        },
        origin: "test".into(),
    };
    rt().block_on(exercise_python_kb(&server));
}

#[test]
fn a_python_sdk_server_over_streamable_http() {
    let sdk = python_sdk();
    let port = free_port();
    let mut child = Reap(
        Command::new("python3")
            .arg(kb_script())
            .args(["http", &port.to_string()])
            .env("PYTHONPATH", &sdk)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs"),
    );
    wait_for(port, &mut child.0);
    rt().block_on(exercise_python_kb(&http(
        "pykb",
        &format!("http://127.0.0.1:{port}/mcp"),
    )));
}

/// A stdio server that starts a detached background child (a double fork
/// into a new session) before serving: closing the connection kills it.
#[test]
fn a_stdio_server_s_detached_child_dies_with_the_connection() {
    let sdk = python_sdk();
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let server = McpServer {
        label: "pykb".into(),
        transport: McpTransport::Stdio {
            command: "sh".into(),
            args: vec![
                "-c".into(),
                format!(
                    "(setsid sh -c 'sleep 300 & echo $! > {}' </dev/null >/dev/null 2>&1 &); exec python3 {} stdio",
                    pidfile.display(),
                    kb_script()
                ),
            ],
            env: BTreeMap::from([("PYTHONPATH".to_string(), sdk.display().to_string())]),
        },
        origin: "test".into(),
    };
    rt().block_on(async {
        let conn = mcp::connect(&server, Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("the Python SDK server: {e}"));
        assert!(!conn.tools.is_empty());
        conn.close().await;
    });
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or("");
    assert!(
        stat.is_empty() || state == "Z",
        "the server's detached child {pid} survives ({state})"
    );
}

/// A stdio answer over rmcp's 16 MiB line cap fails at once as permanent
/// with a plain message (the JSON-RPC error dra puts in its place, not a
/// wait for the call timeout), and the server stays usable.
#[test]
fn an_answer_over_the_stdio_line_cap_fails_at_once_as_permanent() {
    let sdk = python_sdk();
    let server = McpServer {
        label: "big".into(),
        transport: McpTransport::Stdio {
            command: "python3".into(),
            args: vec![
                super::common::repo_path("tests/mcp_servers/huge_server.py")
                    .to_string_lossy()
                    .into_owned(),
            ],
            env: BTreeMap::from([("PYTHONPATH".to_string(), sdk.display().to_string())]),
        },
        origin: "test".into(),
    };
    rt().block_on(async {
        let conn = mcp::connect(&server, Duration::from_secs(30))
            .await
            .unwrap_or_else(|e| panic!("the huge server: {e}"));
        let e = conn
            .call("huge", args(json!({"mb": 20})))
            .await
            .expect_err("a 20 MiB answer");
        assert!(
            matches!(e, rmcp::ServiceError::McpError(_)),
            "not the error answer: {e:?}"
        );
        let (class, message) = conn.explain("huge", &e);
        assert_eq!(class, dra::protocol::ErrorClass::Permanent, "{message}");
        assert!(
            message.starts_with("calling huge failed: [permanent] ")
                && message.contains("larger than 16 MiB"),
            "{message}"
        );
        assert!(
            !message.contains("::") && !message.contains('<'),
            "{message}"
        );
        // Under the cap, answers still come through on the same connection.
        let ok = conn.call("small", Default::default()).await.unwrap();
        assert!(mcp::result_text(&ok).contains("still here"));
        let fine = conn.call("huge", args(json!({"mb": 2}))).await.unwrap();
        assert!(mcp::result_text(&fine).len() >= 2 * 1024 * 1024);
        conn.close().await;
    });
}
