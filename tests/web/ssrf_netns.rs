//! The hostile-URL table against the real fetcher, inside a private network
//! namespace this test makes: the test binary re-runs itself under
//! `unshare --net`, where the only interface is `lo`. There it puts the
//! hostile addresses on `lo`, listens on them with decoys, runs the table
//! (directly, and as redirect targets of an allowlisted loopback server),
//! and requires that no decoy ever accepted a connection. Nothing here can
//! send a packet off this machine: a fresh namespace has no route out.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use axum::Router;
use axum::extract::RawQuery;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use dra::ports::{Fetcher, WebError};
use dra::web::{HostResolver, StaticResolver};

use super::common::{
    Decoy, Row, fetcher, hostile_rows, percent_decode, percent_encode, quick, serve_on, within,
};

/// Set in the environment of the re-executed test binary.
const INNER_ENV: &str = "DRA_TEST_INSIDE_PRIVATE_NETNS";
const INNER_TEST: &str = "web::ssrf_netns::inside_the_private_namespace";
/// Printed by the inner run when every check passed.
const MARKER: &str = "NETNS-SSRF-OK";

/// An address no one would object to; inside the namespace it lives on `lo`.
const PUBLIC: &str = "93.184.215.14";

#[test]
fn hostile_urls_are_refused_inside_a_private_network_namespace() {
    for (tool, arg, hint) in [
        (
            "unshare",
            "--version",
            "install util-linux (Debian/Ubuntu: apt-get install util-linux)",
        ),
        (
            "ip",
            "-V",
            "install iproute2 (Debian/Ubuntu: apt-get install iproute2)",
        ),
    ] {
        let ok = Command::new(tool)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "the SSRF namespace test needs `{tool}`: {hint}");
    }
    let exe = std::env::current_exe().unwrap();
    let out = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new("unshare");
    if !is_root() {
        // Without root, a user namespace grants the network namespace.
        cmd.args(["--user", "--map-root-user"]);
    }
    cmd.args(["--net", "--"])
        .arg(&exe)
        .args([
            INNER_TEST,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INNER_ENV, "1")
        .stdin(Stdio::null())
        .stdout(out.reopen().unwrap())
        .stderr(err.reopen().unwrap());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("cannot start unshare");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the namespace run did not finish in 90 s:\n{}",
                std::fs::read_to_string(err.path()).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(out.path()).unwrap_or_default();
    let stderr = std::fs::read_to_string(err.path()).unwrap_or_default();
    assert!(
        status.success() && stdout.contains(MARKER) && stdout.contains("1 passed"),
        "the hostile-URL table failed inside its private network namespace \
         (or no namespace could be made: this test needs root, or unprivileged user \
         namespaces, plus util-linux `unshare` and iproute2 `ip`; it never falls back \
         to the real network).\nstatus: {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    for line in stdout
        .lines()
        .filter_map(|l| l.find("netns: ").map(|i| &l[i..]))
    {
        eprintln!("{line}");
    }
    eprintln!(
        "netns: whole test incl. re-exec {:.2} s",
        started.elapsed().as_secs_f64()
    );
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The network interfaces of this process's namespace.
fn interfaces() -> Vec<String> {
    std::fs::read_to_string("/proc/self/net/dev")
        .unwrap()
        .lines()
        .skip(2)
        .filter_map(|l| l.split(':').next().map(|n| n.trim().to_string()))
        .collect()
}

/// Where a fetch of `row` would connect if the guard let it through.
fn targets(row: &Row) -> Vec<SocketAddr> {
    let Ok(url) = reqwest::Url::parse(&row.url) else {
        return Vec::new();
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Vec::new();
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let host = url.host_str().unwrap_or_default();
    let literal = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>();
    let ips = match literal {
        Ok(ip) => vec![ip],
        Err(_) => row.addrs.clone(),
    };
    ips.into_iter()
        .map(|ip| SocketAddr::new(ip, port))
        .collect()
}

/// The address to put on `lo` so a connection to `ip` would land here.
fn assignable(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => Some(IpAddr::V4(v4)),
            None => Some(ip),
        },
        v4 => Some(v4),
    }
    .filter(|ip| !ip.is_loopback() && !ip.is_unspecified())
}

/// First lookup: a public address; every later one: a private one.
struct Rebinding {
    calls: AtomicUsize,
}

#[async_trait]
impl HostResolver for Rebinding {
    async fn lookup(&self, _host: &str, _port: u16) -> Result<Vec<IpAddr>, String> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(vec![
            if n == 0 { PUBLIC } else { "10.0.0.1" }.parse().unwrap(),
        ])
    }
}

/// A server that redirects `/go?to=<percent-encoded URL>` and serves `/ok`.
fn redirector() -> Router {
    Router::new()
        .route(
            "/go",
            get(|RawQuery(q): RawQuery| async move {
                let q = q.unwrap_or_default();
                let to = percent_decode(q.strip_prefix("to=").unwrap_or(&q));
                // Header values must be ASCII: escape the rest, as servers do.
                let to: String = to
                    .chars()
                    .map(|c| {
                        if c.is_ascii() {
                            c.to_string()
                        } else {
                            percent_encode(&c.to_string())
                        }
                    })
                    .collect();
                (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
            }),
        )
        .route(
            "/ok",
            get(|| async { ([(header::CONTENT_TYPE, "text/plain")], "reachable") }),
        )
}

fn expected(row: &Row, e: &WebError) -> bool {
    match (row.expect.as_str(), e) {
        ("resolve", WebError::Failed(m)) => m.contains("resolve"),
        ("invalid", WebError::Failed(m)) => m.contains("bad URL"),
        (_, WebError::Refused(_)) => row.expect != "resolve",
        _ => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "runs only inside the network namespace made by hostile_urls_are_refused_inside_a_private_network_namespace"]
async fn inside_the_private_namespace() {
    assert_eq!(
        std::env::var(INNER_ENV).as_deref(),
        Ok("1"),
        "this test runs only inside the namespace its parent test makes"
    );
    let ifaces = interfaces();
    assert_eq!(
        ifaces,
        vec!["lo".to_string()],
        "refusing to run: this namespace has a way out"
    );
    within(60, run()).await;
    println!("{MARKER}");
}

async fn run() {
    let t0 = Instant::now();
    ip(&["link", "set", "lo", "up"]).unwrap();
    let rows = hostile_rows();
    assert!(rows.len() >= 100, "{}", rows.len());

    // Every address a hostile URL points at, reachable on lo.
    let all_targets: Vec<SocketAddr> = rows.iter().flat_map(targets).collect();
    let mut assigned = BTreeSet::new();
    let mut unassignable = BTreeSet::new();
    let public: IpAddr = PUBLIC.parse().unwrap();
    let to_assign: BTreeSet<IpAddr> = all_targets
        .iter()
        .filter_map(|t| assignable(t.ip()))
        .chain([public, "10.0.0.1".parse().unwrap()])
        .collect();
    for addr in to_assign {
        let r = match addr {
            IpAddr::V4(_) => ip(&["addr", "add", &format!("{addr}/32"), "dev", "lo"]),
            IpAddr::V6(_) => ip(&[
                "-6",
                "addr",
                "add",
                &format!("{addr}/128"),
                "dev",
                "lo",
                "nodad",
            ]),
        };
        match r {
            Ok(()) => assigned.insert(addr),
            Err(_) => unassignable.insert(addr),
        };
    }
    assert!(
        assigned.contains(&public) && assigned.len() > 40,
        "{assigned:?}"
    );

    // Decoys: one dual-stack wildcard listener per port the table uses.
    let ports: BTreeSet<u16> = all_targets
        .iter()
        .map(|t| t.port())
        .chain([80, 443, 8080])
        .collect();
    let mut decoys = Vec::new();
    for port in &ports {
        decoys.push(
            Decoy::bind(SocketAddr::new("::".parse().unwrap(), *port))
                .await
                .unwrap(),
        );
    }
    let total = |decoys: &[Decoy]| decoys.iter().map(Decoy::count).sum::<usize>();

    // Control 1: a direct connection to each target does reach a decoy.
    let mut reachable = 0;
    for t in &all_targets {
        let c =
            tokio::time::timeout(Duration::from_secs(1), tokio::net::TcpStream::connect(t)).await;
        if matches!(c, Ok(Ok(_))) {
            reachable += 1;
        }
    }
    within(5, async {
        while total(&decoys) < reachable {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(
        reachable * 10 >= all_targets.len() * 8,
        "{reachable} of {}",
        all_targets.len()
    );

    // Control 2: the fetcher itself reaches a decoy when the allowlist says so.
    decoys.iter().for_each(Decoy::reset);
    let resolver = rows.iter().fold(StaticResolver::new(), |r, row| {
        match reqwest::Url::parse(&row.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
        {
            Some(host) if !row.addrs.is_empty() => r.with(&host, &row.addrs),
            _ => r,
        }
    });
    let resolver = Arc::new(resolver);
    let permissive = fetcher(
        &["10.0.0.1".into(), "internal.example".into()],
        resolver.clone(),
        quick(),
    );
    let _ = permissive.fetch("http://10.0.0.1/").await;
    let _ = permissive.fetch("http://internal.example:8080/").await;
    within(5, async {
        while total(&decoys) < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    decoys.iter().for_each(Decoy::reset);
    let setup = t0.elapsed();

    // The table, fetched directly.
    let t1 = Instant::now();
    let guarded = fetcher(&[], resolver.clone(), quick());
    let mut wrong = Vec::new();
    for row in &rows {
        match guarded.fetch(&row.url).await {
            Ok(_) => wrong.push(format!("{}: fetched", row.url)),
            Err(e) if !expected(row, &e) => wrong.push(format!("{}: {e:?}", row.url)),
            Err(_) => {}
        }
    }
    let direct = t1.elapsed();

    // The table again, each URL the target of a redirect from an
    // allowlisted loopback server.
    let t2 = Instant::now();
    let server = serve_on("127.0.0.1:0".parse().unwrap(), redirector()).await;
    let hop = fetcher(
        &[format!("127.0.0.1:{}", server.port())],
        resolver.clone(),
        quick(),
    );
    let base = format!("http://127.0.0.1:{}", server.port());
    let ok = hop
        .fetch(&format!(
            "{base}/go?to={}",
            percent_encode(&format!("{base}/ok"))
        ))
        .await;
    assert_eq!(
        ok.map(|d| d.content).ok().as_deref(),
        Some("reachable"),
        "control redirect"
    );
    for row in &rows {
        let via = format!("{base}/go?to={}", percent_encode(&row.url));
        match hop.fetch(&via).await {
            Ok(_) => wrong.push(format!("redirect to {}: fetched", row.url)),
            Err(e) if !expected(row, &e) => wrong.push(format!("redirect to {}: {e:?}", row.url)),
            Err(_) => {}
        }
    }
    // Relative and scheme-relative Locations resolve against the hop first.
    for to in [
        "//10.0.0.1/",
        "///10.0.0.1/",
        r"\\169.254.169.254\latest",
        "//[fd00:ec2::254]/",
        "//internal.example:8080/",
    ] {
        let via = format!("{base}/go?to={}", percent_encode(to));
        match hop.fetch(&via).await {
            Err(WebError::Refused(_)) => {}
            Err(WebError::Failed(m)) if m.contains("bad URL") => {}
            other => wrong.push(format!("redirect to {to}: {other:?}")),
        }
    }
    let redirected = t2.elapsed();

    tokio::time::sleep(Duration::from_millis(200)).await;
    let hits: Vec<String> = decoys
        .iter()
        .filter(|d| d.count() > 0)
        .map(|d| format!("{} accepted {}", d.addr, d.count()))
        .collect();
    assert!(
        wrong.is_empty() && hits.is_empty(),
        "decoys reached: {hits:?}\nwrong answers:\n{}",
        wrong.join("\n")
    );

    // DNS rebinding: the name is resolved once, and the connection goes to
    // the address that was checked.
    let public_server = serve_on(SocketAddr::new(public, 0), redirector()).await;
    let rebind_decoy = Decoy::bind(SocketAddr::new(
        "10.0.0.1".parse().unwrap(),
        public_server.port(),
    ))
    .await
    .unwrap();
    let flip = Arc::new(Rebinding {
        calls: AtomicUsize::new(0),
    });
    let open = fetcher(&[], flip.clone(), quick());
    let url = format!("http://rebind.test:{}/ok", public_server.port());
    let first = open.fetch(&url).await.map(|d| d.content);
    assert_eq!(first.as_deref().ok(), Some("reachable"), "{first:?}");
    assert_eq!(
        flip.calls.load(Ordering::SeqCst),
        1,
        "resolved once, by the guard only"
    );
    let second = open.fetch(&url).await;
    assert!(matches!(second, Err(WebError::Refused(_))), "{second:?}");
    let pub_base = format!("http://{PUBLIC}:{}", public_server.port());
    for to in [
        format!("http://10.0.0.1:{}/", public_server.port()),
        format!("http://169.254.169.254:{}/", public_server.port()),
        "http://10.0.0.1/".to_string(),
    ] {
        let r = open
            .fetch(&format!("{pub_base}/go?to={}", percent_encode(&to)))
            .await;
        assert!(matches!(r, Err(WebError::Refused(_))), "{to}: {r:?}");
    }
    let r = open
        .fetch(&format!(
            "{pub_base}/go?to={}",
            percent_encode(&format!("{pub_base}/ok"))
        ))
        .await;
    assert_eq!(
        r.map(|d| d.content).ok().as_deref(),
        Some("reachable"),
        "public to public redirect"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        rebind_decoy.count() + total(&decoys),
        0,
        "a decoy was reached after rebinding"
    );

    println!(
        "netns: {} hostile URLs refused directly and as redirect targets; {} addresses on lo ({} not assignable: {:?}); {reachable} of {} targets reachable by a plain connect; {} decoy ports; 0 decoy connections",
        rows.len(),
        assigned.len(),
        unassignable.len(),
        unassignable,
        all_targets.len(),
        ports.len(),
    );
    println!(
        "netns: setup {:.0} ms, direct table {:.0} ms, redirect table {:.0} ms, total {:.0} ms",
        setup.as_secs_f64() * 1e3,
        direct.as_secs_f64() * 1e3,
        redirected.as_secs_f64() * 1e3,
        t0.elapsed().as_secs_f64() * 1e3
    );
}
