//! The transports `dra mcp-serve` speaks: stdio (stdout carries JSON-RPC
//! and nothing else) and streamable HTTP at `/mcp`. HTTP listens on
//! loopback unless remote serving is allowed, and off loopback only with a
//! bearer token; a token, once set, is checked on every request. A request
//! from a browser page (an `Origin` header) is served only when that page
//! is on loopback (the MCP specification's defence against DNS rebinding
//! and cross-site calls); clients that send no `Origin` are not browsers.
//! At most [`MAX_SESSIONS`] sessions live at once, and one idle for
//! [`SESSION_IDLE`] is closed.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::tower::StreamableHttpService;

use super::DraServer;
use crate::config::Secret;

/// Why the server would not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListenError {
    /// A setting or flag is wrong (exit 2).
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

/// Where to listen, checked: off loopback only with `allow_remote` and a
/// token.
pub fn check_listen(
    addr: SocketAddr,
    allow_remote: bool,
    token: Option<&Secret>,
) -> Result<(), ListenError> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    if !allow_remote {
        return Err(ListenError::Refused(format!(
            "refusing to listen on {addr}: it is not a loopback address, so other machines could run research on this one; use 127.0.0.1:PORT, or pass --allow-remote with a token (--token or DRA_MCP_SERVE_TOKEN)"
        )));
    }
    match token {
        Some(t) if t.expose().trim().chars().count() >= MIN_REMOTE_TOKEN => Ok(()),
        Some(t) if !t.expose().trim().is_empty() => Err(ListenError::Refused(format!(
            "refusing to listen on {addr} with a bearer token of {} characters: one that other machines can reach must have at least {MIN_REMOTE_TOKEN} (for example: openssl rand -hex 24)",
            t.expose().trim().chars().count()
        ))),
        _ => Err(ListenError::Refused(format!(
            "refusing to listen on {addr} without a bearer token: set DRA_MCP_SERVE_TOKEN (or --token) so that only your clients can call dra"
        ))),
    }
}

/// The fewest characters of a bearer token that guards a server other
/// machines can reach (a short one is guessed).
pub const MIN_REMOTE_TOKEN: usize = 16;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The most HTTP sessions alive at once; a new one past it gets 503.
pub const MAX_SESSIONS: usize = 64;

/// A session with no request for this long is closed.
pub const SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(60);

/// Serves over stdin/stdout until the client closes stdin or `stop` completes.
pub async fn serve_stdio(
    server: DraServer,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), ListenError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ListenError::Failed(format!("the MCP handshake on stdio failed: {e}")))?;
    let ct = running.cancellation_token();
    tokio::select! {
        r = running.waiting() => {
            r.map_err(|e| ListenError::Failed(format!("the stdio server stopped: {e}")))?;
        }
        () = stop => ct.cancel(),
    }
    Ok(())
}

/// A bound HTTP listener, ready to serve.
pub struct HttpListener {
    listener: tokio::net::TcpListener,
    pub addr: SocketAddr,
}

impl HttpListener {
    /// Binds `addr` (port 0 picks a free port) after [`check_listen`].
    pub async fn bind(
        addr: SocketAddr,
        allow_remote: bool,
        token: Option<&Secret>,
    ) -> Result<HttpListener, ListenError> {
        check_listen(addr, allow_remote, token)?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ListenError::Failed(format!("cannot listen on {addr}: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ListenError::Failed(format!("cannot listen on {addr}: {e}")))?;
        Ok(HttpListener { listener, addr })
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// Serves until `stop` completes.
    pub async fn serve(
        self,
        server: DraServer,
        token: Option<Secret>,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ListenError> {
        let remote = !self.addr.ip().is_loopback();
        let mut config = StreamableHttpServerConfig::default();
        // Cancelled on shutdown: every session ends.
        let ct = config.cancellation_token.clone();
        if remote {
            // Off loopback the Host header is whatever name clients use;
            // the bearer token is what keeps strangers out.
            config = config.disable_allowed_hosts();
        }
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(SESSION_IDLE);
        let sessions = Arc::new(sessions);
        let service: StreamableHttpService<DraServer, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
        let token = Arc::new(token);
        // Layers run outside in: the Origin first, then the token, then the
        // session cap (a stranger's request never counts against it).
        let router = axum::Router::new()
            .nest_service(MCP_PATH, service)
            .layer(axum::middleware::from_fn(move |req, next| {
                let sessions = sessions.clone();
                async move { cap_sessions(&sessions, req, next).await }
            }))
            .layer(axum::middleware::from_fn(move |req, next| {
                let token = token.clone();
                async move { require_token(token.as_ref().as_ref(), req, next).await }
            }))
            .layer(axum::middleware::from_fn(require_loopback_origin));
        let shutdown = async move {
            stop.await;
            ct.cancel();
        };
        axum::serve(self.listener, router)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(|e| ListenError::Failed(format!("the HTTP server stopped: {e}")))
    }
}

/// 401 unless the request carries `Authorization: Bearer <token>` (when a
/// token is set).
async fn require_token(
    token: Option<&Secret>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(token) = token {
        let sent = req
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_of);
        if !sent.is_some_and(|s| same(s.as_bytes(), token.expose().as_bytes())) {
            return (
                axum::http::StatusCode::UNAUTHORIZED,
                [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token\n",
            )
                .into_response();
        }
    }
    next.run(req).await
}

/// 403 for a request whose `Origin` is not a loopback page.
async fn require_loopback_origin(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(origin) = req.headers().get(axum::http::header::ORIGIN)
        && !origin.to_str().is_ok_and(is_loopback_origin)
    {
        return (
            axum::http::StatusCode::FORBIDDEN,
            "Origin not allowed: dra mcp-serve answers browser pages on loopback only\n",
        )
            .into_response();
    }
    next.run(req).await
}

/// `http(s)://localhost`, `127.x.x.x` or `[::1]`, any port.
pub fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.trim().split_once("://") else {
        return false;
    };
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
        || rest.contains(['/', '@', '?', '#'])
    {
        return false;
    }
    let host = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, port)) if port.is_empty() || port.starts_with(':') => h,
            _ => return false,
        },
        None => rest.split(':').next().unwrap_or(""),
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

/// 503 for a request that would open a session past [`MAX_SESSIONS`]
/// (one without `Mcp-Session-Id`; requests of live sessions always pass).
async fn cap_sessions(
    sessions: &LocalSessionManager,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let opens =
        req.method() == axum::http::Method::POST && !req.headers().contains_key("mcp-session-id");
    if opens && sessions.sessions.read().await.len() >= MAX_SESSIONS {
        return (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "60")],
            format!(
                "too many sessions ({MAX_SESSIONS}): close one, or wait for an idle one to expire\n"
            ),
        )
            .into_response();
    }
    next.run(req).await
}

/// The token of an `Authorization: Bearer <token>` value (scheme
/// case-insensitive).
pub fn bearer_of(value: &str) -> Option<&str> {
    let (scheme, rest) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// Compares in time that depends only on the lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_loopback_needs_permission_and_a_token() {
        let lo: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let lo6: SocketAddr = "[::1]:8080".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let token = Secret::new("s3cret-0123456789abcdef");
        assert!(check_listen(lo, false, None).is_ok());
        assert!(check_listen(lo6, false, None).is_ok());
        let e = check_listen(any, false, Some(&token)).unwrap_err();
        assert!(e.to_string().contains("--allow-remote"), "{e}");
        let e = check_listen(any, true, None).unwrap_err();
        assert!(e.to_string().contains("DRA_MCP_SERVE_TOKEN"), "{e}");
        assert!(check_listen(any, true, Some(&Secret::new("  "))).is_err());
        // A guessable token does not guard a remote listener.
        let e = check_listen(any, true, Some(&Secret::new("abc"))).unwrap_err();
        assert!(e.to_string().contains("at least 16"), "{e}");
        assert!(check_listen(any, true, Some(&token)).is_ok());
    }

    #[test]
    fn only_loopback_origins_pass() {
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://127.0.0.5:8443",
            "http://[::1]:8080",
            "HTTP://LOCALHOST",
        ] {
            assert!(is_loopback_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "file://localhost",
            "http://evil.example@localhost",
            "http://[::2]:80",
            "http://localhost/x",
            "",
        ] {
            assert!(!is_loopback_origin(bad), "{bad}");
        }
    }

    #[test]
    fn bearer_values_parse() {
        assert_eq!(bearer_of("Bearer abc"), Some("abc"));
        assert_eq!(bearer_of("bearer   abc "), Some("abc"));
        assert_eq!(bearer_of("Basic abc"), None);
        assert_eq!(bearer_of("Bearer "), None);
        assert_eq!(bearer_of("Bearer"), None);
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
    }

    proptest::proptest! {
        #[test]
        fn any_authorization_value_parses_or_not_without_panicking(v in "\\PC{0,40}") {
            if let Some(t) = bearer_of(&v) {
                proptest::prop_assert!(!t.is_empty() && t.len() < v.len());
                proptest::prop_assert!(v.to_ascii_lowercase().contains("bearer"));
            }
        }
    }
}
