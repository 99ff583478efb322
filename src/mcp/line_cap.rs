//! A stdio server's output, one JSON-RPC message a line, with a cap on a
//! line's length that fails fast. rmcp drops a line over its own cap (16 MiB)
//! and keeps waiting, so a call whose answer was too large waited for its
//! timeout and was then classed transient (and retried). This reader, in
//! front of rmcp, holds each line until its end; a line over [`MAX_LINE`] is
//! replaced by a JSON-RPC error answering the same request id (read from
//! the line's head or tail, where the SDKs put it), marked `[permanent]`.
//! When no id can be found the stream ends, closing the connection at once,
//! and [`Oversized`] says why.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// The longest line passed on: just under rmcp's own cap, so rmcp never
/// drops one silently.
pub const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH - 1;

/// Bytes of a line's head and tail kept to find its request id.
const EDGE: usize = 256;

/// Set once a line over the cap had no findable id and the stream was ended.
#[derive(Debug, Clone, Default)]
pub struct Oversized(Arc<AtomicBool>);

impl Oversized {
    pub fn happened(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// The message a call gets when its answer was over the cap.
pub fn message(max: usize) -> String {
    format!(
        "[permanent] the server's answer was larger than {} MiB, the most dra reads of one message over stdio: ask for less (a narrower query, a filter, a page)",
        max.div_ceil(1024 * 1024)
    )
}

pub struct LineCap<R> {
    inner: R,
    max: usize,
    /// The line being read (while under the cap).
    line: Vec<u8>,
    /// Over the cap: the line's head is kept, the rest is dropped.
    dropping: bool,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Whole lines (or the error standing for one) ready for rmcp.
    ready: VecDeque<u8>,
    oversized: Oversized,
    ended: bool,
}

impl<R> LineCap<R> {
    pub fn new(inner: R, max: usize) -> (LineCap<R>, Oversized) {
        let oversized = Oversized::default();
        (
            LineCap {
                inner,
                max,
                line: Vec::new(),
                dropping: false,
                head: Vec::new(),
                tail: VecDeque::new(),
                ready: VecDeque::new(),
                oversized: oversized.clone(),
                ended: false,
            },
            oversized,
        )
    }

    /// Takes bytes read from the server.
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.ended {
                return;
            }
            if self.dropping {
                if b == b'\n' {
                    self.end_oversized();
                } else {
                    if self.tail.len() == EDGE {
                        self.tail.pop_front();
                    }
                    self.tail.push_back(b);
                }
                continue;
            }
            self.line.push(b);
            if b == b'\n' {
                self.ready.extend(self.line.drain(..));
            } else if self.line.len() > self.max {
                self.head = self.line[..EDGE.min(self.line.len())].to_vec();
                self.line = Vec::new();
                self.tail.clear();
                self.dropping = true;
            }
        }
    }

    /// The end of a line over the cap: an error answer in its place, or
    /// the end of the stream when its request id cannot be found.
    fn end_oversized(&mut self) {
        self.dropping = false;
        let tail: Vec<u8> = self.tail.drain(..).collect();
        match request_id(&self.head, &tail) {
            Some(id) => {
                let error = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": -32603, "message": message(self.max)},
                });
                self.ready.extend(error.to_string().into_bytes());
                self.ready.push_back(b'\n');
            }
            None => {
                self.oversized.0.store(true, Ordering::SeqCst);
                self.ended = true;
            }
        }
        self.head.clear();
    }
}

/// The id of a JSON-RPC response from the start of its line
/// (`{"jsonrpc":"2.0","id":7,...`) or its end (`...,"jsonrpc":"2.0","id":7}`).
fn request_id(head: &[u8], tail: &[u8]) -> Option<serde_json::Value> {
    static HEAD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::re(
            r#"^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]{0,100}")\s*,"#,
        )
    });
    static TAIL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::re(r#",\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,100}")\s*\}\s*$"#)
    });
    let head = String::from_utf8_lossy(head);
    let tail = String::from_utf8_lossy(tail);
    let found = HEAD
        .captures(&head)
        .or_else(|| TAIL.captures(&tail))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())?;
    serde_json::from_str(&found).ok()
}

impl<R: AsyncRead + Unpin> AsyncRead for LineCap<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if !this.ready.is_empty() {
                let n = this.ready.len().min(buf.remaining());
                let bytes: Vec<u8> = this.ready.drain(..n).collect();
                buf.put_slice(&bytes);
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 64 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // The server closed: a partial last line is passed on
                    // as it is (rmcp ignores it).
                    this.ended = true;
                    let rest: Vec<u8> = this.line.drain(..).collect();
                    this.ready.extend(rest);
                }
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().to_vec();
                    this.feed(&filled);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn through(input: &[u8], max: usize) -> (String, bool) {
        let (mut r, over) = LineCap::new(input, max);
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        (String::from_utf8(out).unwrap(), over.happened())
    }

    #[tokio::test]
    async fn lines_under_the_cap_pass_unchanged() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"a\":2}\npartial";
        let (out, over) = through(input, 100).await;
        assert_eq!(out.as_bytes(), input);
        assert!(!over);
    }

    #[tokio::test]
    async fn an_oversized_answer_becomes_a_permanent_error_for_its_id() {
        let big = "x".repeat(500);
        // The Python SDK puts the id first, the TypeScript one last.
        let head_id = format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"t\":\"{big}\"}}}}\n");
        let tail_id =
            format!("{{\"result\":{{\"t\":\"{big}\"}},\"jsonrpc\":\"2.0\",\"id\":\"r-9\"}}\n");
        let input = format!("{head_id}{tail_id}{{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{{}}}}\n");
        let (out, over) = through(input.as_bytes(), 100).await;
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[1]["id"], "r-9");
        for l in &lines[..2] {
            let m = l["error"]["message"].as_str().unwrap();
            assert!(
                m.starts_with("[permanent]") && m.contains("larger than"),
                "{m}"
            );
        }
        assert_eq!(lines[2]["result"], serde_json::json!({}));
        assert!(!over);
    }

    #[tokio::test]
    async fn an_oversized_line_without_an_id_ends_the_stream() {
        let input = format!("{{\"items\":\"{}\"}}\n{{\"after\":1}}\n", "y".repeat(500));
        let (out, over) = through(input.as_bytes(), 100).await;
        assert_eq!(out, "");
        assert!(over);
    }
}
