use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use dra::web::{Allowlist, FetchOptions, HostResolver, HttpFetcher, SsrfGuard, SystemResolver};

/// Serves `router` on `addr` (port 0 for any); returns the bound address.
pub async fn serve_on(addr: SocketAddr, router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let bound = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    bound
}

/// Serves `router` on an ephemeral loopback port.
pub async fn serve(router: Router) -> SocketAddr {
    serve_on("127.0.0.1:0".parse().unwrap(), router).await
}

/// A listener that only counts the connections it accepts.
#[derive(Clone)]
pub struct Decoy {
    pub addr: SocketAddr,
    pub hits: Arc<AtomicUsize>,
}

impl Decoy {
    pub async fn bind(addr: SocketAddr) -> std::io::Result<Decoy> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        Ok(Decoy { addr, hits })
    }

    pub fn count(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    pub fn reset(&self) {
        self.hits.store(0, Ordering::SeqCst);
    }
}

/// A fetcher whose allowlist is exactly `allow`.
pub fn fetcher(
    allow: &[String],
    resolver: Arc<dyn HostResolver>,
    opts: FetchOptions,
) -> HttpFetcher {
    let allow = Allowlist::parse(allow).unwrap();
    HttpFetcher::new(SsrfGuard::new(allow, resolver), opts).unwrap()
}

/// A fetcher allowed onto one loopback server, with short limits.
pub fn loopback_fetcher(server: SocketAddr, opts: FetchOptions) -> HttpFetcher {
    fetcher(
        &[format!("127.0.0.1:{}", server.port())],
        Arc::new(SystemResolver),
        opts,
    )
}

pub fn quick() -> FetchOptions {
    FetchOptions {
        timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        ..FetchOptions::default()
    }
}

/// Runs `f` with a ceiling, so no test can hang.
pub async fn within<T>(secs: u64, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .expect("test exceeded its time limit")
}

/// One row of tests/web/hostile_urls.txt.
pub struct Row {
    pub expect: String,
    pub url: String,
    pub addrs: Vec<IpAddr>,
}

pub fn hostile_rows() -> Vec<Row> {
    include_str!("hostile_urls.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (expect, rest) = l.split_once(' ').unwrap();
            let (url, addrs) = match rest.split_once(" => ") {
                Some((u, a)) => (u, a.split(',').map(|a| a.trim().parse().unwrap()).collect()),
                None => (rest, Vec::new()),
            };
            Row {
                expect: expect.to_string(),
                url: url.trim().to_string(),
                addrs,
            }
        })
        .collect()
}

/// A tiny valid PDF with one page of text and an Info dictionary.
pub fn tiny_pdf(lines: &[&str], title: &str) -> Vec<u8> {
    let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
    for line in lines {
        content.push_str(&format!("({line}) Tj T*\n"));
    }
    content.push_str("ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        format!("<< /Title ({title}) /CreationDate (D:20240315120000Z) /ModDate (D:20240402090000Z) >>"),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// Percent-encodes every byte outside `[A-Za-z0-9-._~]`.
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Decodes `%XX` escapes (and `+` as a space, as in query strings).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
