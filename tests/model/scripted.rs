//! A scripted OpenAI-compatible server on loopback: it plays a queue of
//! replies, one per request, and records every request it got. Replies can
//! be JSON, any status with headers, or an SSE stream made of pieces that
//! include pauses, a dropped connection and a stall.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::serve::ListenerExt;
use futures::StreamExt;
use serde_json::{Value, json};

/// One piece of a scripted SSE body.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Bytes written as they are.
    Raw(String),
    /// Wait before the next piece.
    Pause(Duration),
    /// Abort the connection here (the body ends with an error).
    Drop,
    /// Send nothing more, and keep the connection open.
    Stall,
}

#[derive(Debug, Clone)]
pub enum Reply {
    Body {
        status: u16,
        headers: Vec<(String, String)>,
        content_type: &'static str,
        body: String,
    },
    Sse(Vec<Piece>),
}

impl Reply {
    pub fn json(body: Value) -> Self {
        Reply::Body {
            status: 200,
            headers: vec![],
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    pub fn status(status: u16, body: Value) -> Self {
        Reply::Body {
            status,
            headers: vec![],
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Reply::Body { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// A stream of the given chunks, each as one `data:` event, then `[DONE]`.
    pub fn sse(chunks: &[Value]) -> Self {
        let mut pieces: Vec<Piece> = chunks.iter().map(|c| Piece::Raw(data(c))).collect();
        pieces.push(Piece::Raw("data: [DONE]\n\n".into()));
        Reply::Sse(pieces)
    }
}

/// One `data:` event.
pub fn data(chunk: &Value) -> String {
    format!("data: {chunk}\n\n")
}

/// A whole non-streamed completion.
pub fn completion(message: Value, finish: &str, usage: (u64, u64)) -> Value {
    json!({
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": "provider/served-name",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1}
    })
}

/// A completion whose answer is this text.
pub fn text_completion(content: &str) -> Value {
    completion(
        json!({"role": "assistant", "content": content}),
        "stop",
        (10, 5),
    )
}

/// A stream chunk carrying a delta.
pub fn delta(delta: Value) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
}

/// The last chunk with a finish reason, then the usage chunk.
pub fn finish(reason: &str, usage: (u64, u64)) -> Vec<Value> {
    vec![
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}),
        json!({"choices": [], "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1}}),
    ]
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn messages(&self) -> &Vec<Value> {
        self.body["messages"].as_array().expect("messages array")
    }

    /// The content of the last message.
    pub fn last_content(&self) -> &str {
        self.messages()
            .last()
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
    }
}

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

pub struct Scripted {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Scripted {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let shared = Arc::new(Shared {
            queue: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Without TCP_NODELAY each small SSE write waits on the client's
        // delayed ACK (~40 ms), which real streaming servers do not do.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Scripted { addr, shared, task }
    }

    /// The base URL a client should use (`.../v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    pub fn remaining(&self) -> usize {
        self.shared.queue.lock().unwrap().len()
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let recorded = Recorded {
        method: method.to_string(),
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    shared.requests.lock().unwrap().push(recorded);
    let reply = shared.queue.lock().unwrap().pop_front();
    match reply {
        None => plain(418, "scripted server: no reply left in the script"),
        Some(Reply::Body {
            status,
            headers,
            content_type,
            body,
        }) => {
            let mut b = Response::builder()
                .status(StatusCode::from_u16(status).unwrap())
                .header("content-type", content_type);
            for (k, v) in headers {
                b = b.header(k, v);
            }
            b.body(Body::from(body)).unwrap()
        }
        Some(Reply::Sse(pieces)) => {
            let stream = futures::stream::iter(pieces).then(|p| async move {
                match p {
                    Piece::Raw(s) => Some(Ok::<_, std::io::Error>(Bytes::from(s))),
                    Piece::Pause(d) => {
                        tokio::time::sleep(d).await;
                        Some(Ok(Bytes::new()))
                    }
                    Piece::Drop => Some(Err(std::io::Error::other("scripted drop"))),
                    Piece::Stall => {
                        futures::future::pending::<()>().await;
                        None
                    }
                }
            });
            let stream = stream.take_while(|p| futures::future::ready(p.is_some()));
            let stream = stream.filter_map(futures::future::ready);
            Response::builder()
                .status(200)
                .header("content-type", "text/event-stream")
                .header("cache-control", "no-cache")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}

fn plain(status: u16, text: &str) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "text/plain")
        .body(Body::from(text.to_string()))
        .unwrap()
}
