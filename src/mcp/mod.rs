//! dra as a client of the user's MCP servers (rmcp): configuration and its
//! rules ([`config`]), connecting over stdio or streamable HTTP, the names
//! and schemas tools are offered under ([`names`]), and calls with their
//! failures classed for the model. The engine turns connected servers into
//! tools (`engine::tools::mcp`); `dra doctor` connects with a short timeout.

pub mod line_cap;
pub mod names;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool as RemoteTool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ServiceError, ServiceExt};
use serde_json::Value;

pub use crate::config::mcp::{
    self as config, McpConfigError, McpServer, McpSettings, McpTransport, STARTUP_TIMEOUT,
};

use crate::protocol::ErrorClass;

/// How long `dra doctor` waits.
pub const DOCTOR_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one tool call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("could not start `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("no answer within {0:?} (the server is slow to start or not an MCP server)")]
    Timeout(Duration),
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    #[error("listing its tools failed: {0}")]
    ListTools(String),
}

impl ConnectError {
    /// What the user can do about it.
    pub fn fix(&self, server: &McpServer) -> String {
        match (self, &server.transport) {
            (ConnectError::Spawn { .. }, _) => {
                "check that the command exists and is on PATH (stdio servers start without dra's environment: pass what they need in `env`)".into()
            }
            (ConnectError::Timeout(_), McpTransport::Http { .. }) => {
                "check that the server is running and the URL is right (a path other than /mcp must be given in full)".into()
            }
            (ConnectError::Timeout(_), McpTransport::Stdio { .. }) => {
                "run the command by hand: it must speak MCP on stdin/stdout".into()
            }
            (ConnectError::Handshake(m), McpTransport::Http { .. })
                if m.contains("connect") || m.contains("sending request") =>
            {
                "check that the server is running and listening at this URL".into()
            }
            (_, McpTransport::Http { .. }) => {
                "a 401 means missing or wrong credentials: set `bearer` on the entry or DRA_MCP_BEARER; a 404 means a wrong path".into()
            }
            (_, McpTransport::Stdio { .. }) => {
                "run the command by hand to see its error output (dra logs it with -vv)".into()
            }
        }
    }
}

/// The client side's handler: it notes when a server says its tool list
/// changed (the run keeps the tools and descriptions it started with).
#[derive(Clone, Default)]
pub struct Watch {
    tools_changed: Arc<AtomicBool>,
}

impl rmcp::ClientHandler for Watch {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
    }
}

/// A live connection to one server.
pub struct McpConnection {
    pub label: String,
    service: RunningService<RoleClient, Watch>,
    watch: Watch,
    pub tools: Vec<RemoteTool>,
    /// Time from start to a listed toolbox.
    pub startup: Duration,
    /// A stdio server's line cap: set when an oversized answer ended the
    /// stream.
    oversized: Option<line_cap::Oversized>,
    /// A stdio server's process (killed when the connection is dropped).
    _child: Option<tokio::process::Child>,
    /// A stdio server's processes: killed, detached or not, when the
    /// connection is dropped.
    _subtree: Option<crate::sandbox::subtree::Subtree>,
}

impl McpConnection {
    /// Calls one tool once.
    pub async fn call(
        &self,
        tool: &str,
        args: serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, ServiceError> {
        self.service
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
            .await
    }

    /// What a failed call says, in plain words: the tool and what failed
    /// (never Rust type names; the caller names the server), and its class.
    pub fn explain(&self, tool: &str, e: &ServiceError) -> (ErrorClass, String) {
        if self
            .oversized
            .as_ref()
            .is_some_and(line_cap::Oversized::happened)
        {
            return (
                ErrorClass::Permanent,
                format!(
                    "calling {tool} failed: {}; the connection was closed",
                    line_cap::message(line_cap::MAX_LINE)
                ),
            );
        }
        (
            class_of_service_error(e),
            format!(
                "calling {tool} failed: {}",
                match e {
                    // The server's own words, without "Mcp error: -32603:".
                    ServiceError::McpError(data) => without_type_names(&data.message),
                    other => root_cause(other),
                }
            ),
        )
    }

    /// Whether the server said its tool list changed since the last ask
    /// (the flag is cleared: each change is told once).
    pub fn take_tools_changed(&self) -> bool {
        self.watch.tools_changed.swap(false, Ordering::SeqCst)
    }

    /// Closes the connection (a stdio child is stopped).
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

/// Connects to one server and lists its tools, within `timeout`.
pub async fn connect(server: &McpServer, timeout: Duration) -> Result<McpConnection, ConnectError> {
    let started = Instant::now();
    let watch = Watch::default();
    let subtree = matches!(server.transport, McpTransport::Stdio { .. })
        .then(crate::sandbox::subtree::Subtree::new);
    let mark = subtree.as_ref().map(|t| t.env());
    match tokio::time::timeout(timeout, connect_inner(server, watch.clone(), mark)).await {
        Ok(Ok((service, tools, stdio))) => {
            let (child, oversized) = stdio.map_or((None, None), |(c, o)| (Some(c), Some(o)));
            Ok(McpConnection {
                label: server.label.clone(),
                service,
                watch,
                tools,
                startup: started.elapsed(),
                oversized,
                _child: child,
                _subtree: subtree,
            })
        }
        Ok(Err(e)) => Err(e),
        Err(_) => Err(ConnectError::Timeout(timeout)),
    }
}

/// A stdio server's process and its line cap's flag.
type Stdio = (tokio::process::Child, line_cap::Oversized);

async fn connect_inner(
    server: &McpServer,
    watch: Watch,
    mark: Option<(&str, &str)>,
) -> Result<
    (
        RunningService<RoleClient, Watch>,
        Vec<RemoteTool>,
        Option<Stdio>,
    ),
    ConnectError,
> {
    let mut stdio = None;
    let service = match &server.transport {
        McpTransport::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(config::child_env(std::env::vars(), env))
                .envs(mark)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .kill_on_drop(true);
            let spawn_err = |source| ConnectError::Spawn {
                command: command.clone(),
                source,
            };
            let mut child = cmd.spawn().map_err(spawn_err)?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                return Err(spawn_err(std::io::Error::other("no pipes to the server")));
            };
            if let Some(stderr) = child.stderr.take() {
                drain_stderr(server.label.clone(), stderr);
            }
            // Its answers pass the line cap, which fails an oversized one at once.
            let (stdout, oversized) = line_cap::LineCap::new(stdout, line_cap::MAX_LINE);
            stdio = Some((child, oversized));
            watch
                .serve((stdout, stdin))
                .await
                .map_err(|e| ConnectError::Handshake(root_cause(&e)))?
        }
        McpTransport::Http { url, bearer } => {
            let mut cfg = StreamableHttpClientTransportConfig::with_uri(url.clone());
            if let Some(b) = bearer {
                cfg = cfg.auth_header(b.expose());
            }
            let transport = StreamableHttpClientTransport::from_config(cfg);
            watch
                .serve(transport)
                .await
                .map_err(|e| ConnectError::Handshake(root_cause(&e)))?
        }
    };
    let tools = service
        .list_all_tools()
        .await
        .map_err(|e| ConnectError::ListTools(e.to_string()))?;
    Ok((service, tools, stdio))
}

/// The innermost cause of an error: what went wrong, without the layers of
/// transport type names around it.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    let text = cause.to_string();
    let text = if text.trim().is_empty() {
        e.to_string()
    } else {
        text
    };
    without_type_names(&text)
}

/// Drops `[rmcp::transport::...<...>]` type names from rmcp's messages.
fn without_type_names(text: &str) -> String {
    static TYPES: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::re(r"\s*\[[^\]\s]*::[^\]\s]*\]"));
    TYPES.replace_all(text, "").into_owned()
}

/// A stdio server's stderr goes to the debug log, never the terminal, and
/// is read to the end so the child never blocks on a full pipe.
fn drain_stderr(label: String, stderr: tokio::process::ChildStderr) {
    use tokio::io::AsyncBufReadExt;
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let line: String = line.chars().take(2000).collect();
            tracing::debug!(server = %label, "mcp stderr: {line}");
        }
    });
}

/// Connects to every server at once; each ends connected or with its error,
/// in the configured order. A slow or dead server costs at most `timeout`.
pub async fn connect_all(
    servers: &[McpServer],
    timeout: Duration,
) -> Vec<(McpServer, Result<McpConnection, ConnectError>)> {
    let attempts = servers.iter().map(|s| async move {
        let r = connect(s, timeout).await;
        (s.clone(), r)
    });
    futures::future::join_all(attempts).await
}

#[cfg(test)]
mod tests {
    #[test]
    fn rmcp_type_names_are_dropped_from_messages() {
        let m = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::X<reqwest::Client>>] error: Client error: error sending request for url (http://127.0.0.1:9/mcp)";
        assert_eq!(
            super::without_type_names(m),
            "Send message error Transport error: Client error: error sending request for url (http://127.0.0.1:9/mcp)"
        );
    }
}

/// A failed call, classed for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallFailure {
    pub class: ErrorClass,
    pub message: String,
}

/// Classes a tool's error text: an explicit `[permanent]` / `[transient]`
/// prefix wins; otherwise unknown.
pub fn class_of_tool_error(text: &str) -> ErrorClass {
    let t = text.trim_start().to_ascii_lowercase();
    if t.starts_with("[permanent]") {
        ErrorClass::Permanent
    } else if t.starts_with("[transient]") {
        ErrorClass::Transient
    } else {
        ErrorClass::Unknown
    }
}

/// Classes a protocol or transport error.
pub fn class_of_service_error(e: &ServiceError) -> ErrorClass {
    match e {
        ServiceError::McpError(data) => {
            // Invalid params, method not found, invalid request: the call
            // itself is wrong.
            if (-32602..=-32600).contains(&data.code.0) {
                ErrorClass::Permanent
            } else {
                class_of_tool_error(&data.message)
            }
        }
        ServiceError::TransportClosed | ServiceError::Timeout { .. } => ErrorClass::Transient,
        ServiceError::TransportSend(_) => ErrorClass::Transient,
        _ => ErrorClass::Unknown,
    }
}

/// Whether an error says the server is rate limiting.
pub fn is_rate_limited(e: &ServiceError) -> bool {
    let s = e.to_string();
    s.contains("429") || s.to_ascii_lowercase().contains("too many requests")
}

/// The text of a result: text blocks joined, else the structured content,
/// with other blocks named.
pub fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        if let Some(t) = block.as_text() {
            parts.push(t.text.clone());
        } else if let Some(r) = block.as_resource() {
            match &r.resource {
                rmcp::model::ResourceContents::TextResourceContents { uri, text, .. } => {
                    parts.push(format!("[resource {uri}]\n{text}"))
                }
                rmcp::model::ResourceContents::BlobResourceContents { uri, .. } => {
                    parts.push(format!("[binary resource {uri} omitted]"))
                }
                _ => parts.push("[resource omitted]".into()),
            }
        } else if block.as_image().is_some() {
            parts.push("[image omitted]".into());
        } else {
            parts.push("[non-text content omitted]".into());
        }
    }
    let has_text = parts.iter().any(|p| !p.ends_with("omitted]"));
    if !has_text && let Some(s) = &result.structured_content {
        parts.push(serde_json::to_string_pretty(s).unwrap_or_default());
    }
    parts.join("\n\n")
}

/// Connections shared by a run's tools; closed when the run ends.
pub type Shared = Arc<McpConnection>;
