//! `dra mcp-serve` driven by a client nobody here wrote: the official Python
//! MCP SDK from PyPI (`.ci/run` installs it into `.ci/py`), over stdio and
//! streamable HTTP, offline on the embedded corpus; plus the listening
//! rules and a raw check that stdout in stdio mode is JSON-RPC only.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::common::TestHome;

const DESCRIPTION: &str = "Test desk: researches payment companies for the onboarding team.";

/// Where `.ci/run` installs the Python SDK; `DRA_TEST_MCP_PYTHONPATH`
/// overrides it.
pub(super) fn python_sdk() -> PathBuf {
    let path = std::env::var_os("DRA_TEST_MCP_PYTHONPATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::common::repo_path(".ci/py"));
    assert!(
        path.join("mcp").join("client").exists(),
        "the Python MCP SDK is not installed at {}: run `python3 -m pip install --target .ci/py 'mcp==2.3.0'` (as .ci/run does) or set DRA_TEST_MCP_PYTHONPATH",
        path.display()
    );
    path
}

/// The environment of a sandboxed dra: its own HOME, config, data and runs
/// dirs, none of the caller's keys or DRA_ settings (offline).
fn sandboxed(c: &mut Command, sb: &TestHome) {
    sb.isolate(c);
    c.env("DRA_RUNS_DIR", sb.runs())
        .env("DRA_AGENT_DESCRIPTION", DESCRIPTION);
}

/// Runs the Python driver; returns what it saw.
fn drive(sb: &TestHome, args: &[&str]) -> Value {
    let script = super::common::repo_path("tests/mcp_clients/drive_dra.py");
    let mut c = Command::new("python3");
    sandboxed(&mut c, sb);
    c.env("PYTHONPATH", python_sdk())
        .arg(script)
        .args(args)
        .stdin(Stdio::null());
    let out = run_with_timeout(c, Duration::from_secs(240));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python client failed ({}):\n{stderr}",
        out.status
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the Python client printed no JSON ({e}): {}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn run_with_timeout(mut c: Command, limit: Duration) -> std::process::Output {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("timed out after {limit:?}");
        }
    }
}

/// What every transport must show: the four tools with the configured
/// description, a cited report with its sources and progress, and the
/// small tools working.
fn check_session(seen: &Value, sb: &TestHome) {
    let tools = seen["tools"].as_object().unwrap();
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["fetch", "research", "runs", "search"]);
    let desc = tools["research"]["description"].as_str().unwrap();
    assert!(desc.starts_with(DESCRIPTION), "{desc}");
    assert_eq!(tools["research"]["schema"]["required"], json!(["question"]));

    // The report: Markdown with [n] citations that resolve to the sources.
    let research = &seen["research"];
    assert_eq!(research["is_error"], json!(false), "{research}");
    let report = research["texts"][0].as_str().unwrap();
    assert!(report.starts_with("# "), "{report}");
    let facts = &research["structured"];
    assert_eq!(facts["state"], "done");
    assert_eq!(facts["reason"], "report_delivered");
    let sources = facts["sources"].as_array().unwrap();
    assert!(sources.len() >= 3, "{facts}");
    let cited: Vec<usize> = dra_citations(report);
    assert!(!cited.is_empty(), "no [n] in the report:\n{report}");
    for n in &cited {
        assert!(
            sources.iter().any(|s| s["index"] == json!(n)),
            "[{n}] is not among the sources"
        );
    }
    // The JSON block repeats the structured content.
    let block: Value = serde_json::from_str(research["texts"][1].as_str().unwrap()).unwrap();
    assert_eq!(&block, facts);
    // The run is an ordinary run in the runs dir.
    let run_dir = PathBuf::from(facts["run_dir"].as_str().unwrap());
    assert!(run_dir.starts_with(sb.runs()), "{}", run_dir.display());
    assert!(run_dir.join("events.jsonl").is_file());
    assert_eq!(
        std::fs::read_to_string(run_dir.join("report.md")).unwrap(),
        report
    );

    // Progress: increasing, one per meaningful event, ending with the report.
    let progress = seen["progress"].as_array().unwrap();
    let messages: Vec<&str> = progress
        .iter()
        .map(|p| p["message"].as_str().unwrap_or(""))
        .collect();
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    // A total once the plan is known, reached by the last notification.
    let last = progress.last().unwrap();
    assert_eq!(
        last["total"].as_f64(),
        last["progress"].as_f64(),
        "{progress:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("plan: ")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("sub-researcher ")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains(" sources so far (latest: ")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("report written")),
        "{messages:?}"
    );
    assert_eq!(messages.last(), Some(&"done (report_delivered)"));

    // search, fetch and runs.
    let search = &seen["search"];
    assert_eq!(search["is_error"], json!(false));
    let hits = search["structured"]["results"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits[0]["url"].as_str().unwrap().starts_with("https://"));
    let fetch = &seen["fetch"];
    assert_eq!(fetch["is_error"], json!(false), "{fetch}");
    assert_eq!(fetch["structured"]["verdict"], "accepted");
    assert!(fetch["texts"][0].as_str().unwrap().len() > 100);
    let runs = &seen["runs"];
    assert_eq!(runs["is_error"], json!(false));
    assert!(
        runs["structured"]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == facts["run_id"]),
        "{runs}"
    );

    // Bad calls are tool errors with a reason, and the server lives on.
    assert_eq!(seen["bad_args"]["is_error"], json!(true));
    assert!(
        seen["bad_args"]["texts"][0]
            .as_str()
            .unwrap()
            .contains("unknown argument `budget`")
    );
    assert_eq!(seen["bad_fetch"]["is_error"], json!(true));
    assert_eq!(seen["bad_corpus"]["is_error"], json!(true));
    let e = seen["bad_corpus"]["texts"][0].as_str().unwrap();
    assert!(
        e.starts_with("research could not start: ") && e.contains("/nonexistent/dra-corpus"),
        "{e}"
    );
    assert_eq!(seen["unknown_tool"]["is_error"], json!(true));

    // A question naming nothing: dra's questions come back as the answer.
    let vague = &seen["vague"];
    assert_eq!(vague["is_error"], json!(false), "{vague}");
    assert_eq!(vague["structured"]["reason"], "awaiting_clarification");
    assert!(
        vague["texts"][0]
            .as_str()
            .unwrap()
            .contains("Which company or product do you mean"),
        "{vague}"
    );
    // A deadline too short to verify anything: a tool error that says so,
    // with the run's facts.
    let rushed = &seen["rushed"];
    assert_eq!(rushed["is_error"], json!(true), "{rushed}");
    assert_eq!(rushed["structured"]["reason"], "budget_exhausted");
    assert!(
        rushed["texts"][0]
            .as_str()
            .unwrap()
            .contains("before it verified anything"),
        "{rushed}"
    );
}

/// The `[n]` markers of a report's body (before its Sources list).
fn dra_citations(report: &str) -> Vec<usize> {
    let body = report.split("\n## Sources").next().unwrap_or(report);
    let re = regex::Regex::new(r"\[(\d+)\]").unwrap();
    let mut out: Vec<usize> = re
        .captures_iter(body)
        .map(|c| c[1].parse().unwrap())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn python_sdk_drives_mcp_serve_over_stdio() {
    let sb = TestHome::new();
    let seen = drive(&sb, &["stdio", env!("CARGO_BIN_EXE_dra")]);
    check_session(&seen, &sb);
    // `dra runs` sees the run the server started.
    let out = sb
        .dra()
        .env("DRA_RUNS_DIR", sb.runs())
        .args(["runs", "--json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = listed.as_array().unwrap();
    // research, the vague question and the rushed one.
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(
        listed
            .iter()
            .any(|r| r["id"] == seen["research"]["structured"]["run_id"]
                && r["reason"] == "report_delivered"),
        "{listed:?}"
    );
}

/// A `dra mcp-serve --listen` child, the URL it printed on stderr and the
/// token it made up (when it did).
struct Listening {
    child: Child,
    url: String,
    generated: Option<String>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn listen(sb: &TestHome, token: Option<&str>, extra: &[&str]) -> Listening {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dra"));
    sandboxed(&mut c, sb);
    if let Some(t) = token {
        c.env("DRA_MCP_SERVE_TOKEN", t);
    }
    let mut child = c
        .args(["mcp-serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("dra mcp-serve: listening on ") {
                let _ = tx.send((false, url.to_string()));
            }
            if let Some(rest) = line.strip_prefix("dra mcp-serve: bearer token: ") {
                let token = rest.split_whitespace().next().unwrap_or("").to_string();
                let _ = tx.send((true, token));
            }
        }
    });
    let (_, url) = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("dra mcp-serve printed no listening URL");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    // A token is made up (and printed) unless one was given or refused.
    let generated = (token.is_none() && !extra.contains(&"--no-token")).then(|| {
        rx.recv_timeout(Duration::from_secs(30))
            .expect("dra mcp-serve printed no token")
            .1
    });
    Listening {
        child,
        url,
        generated,
    }
}

/// One request to a streamable-HTTP endpoint: its status, session id and
/// JSON-RPC answer (read from a JSON body or the SSE event that carries it).
fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> (u16, Option<String>, Option<Value>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut req = reqwest::Client::new()
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .json(body);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let text = resp.text().await.unwrap_or_default();
        let answer = serde_json::from_str::<Value>(&text).ok().or_else(|| {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .find(|v| v.get("result").is_some() || v.get("error").is_some())
        });
        (status, session, answer)
    })
}

fn init_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

/// A raw MCP session over HTTP: initialised, then `call` answers tools/call.
struct RawSession {
    url: String,
    auth: String,
    session: String,
}

impl RawSession {
    fn open(url: &str, token: &str) -> RawSession {
        let auth = format!("Bearer {token}");
        let (status, session, _) = post(url, &[("authorization", &auth)], &init_request());
        assert_eq!(status, 200);
        let session = session.expect("a session id");
        let raw = RawSession {
            url: url.to_string(),
            auth,
            session,
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _, _) = post(&raw.url, &raw.headers(), &note);
        assert!(status < 300, "{status}");
        raw
    }

    fn headers(&self) -> Vec<(&str, &str)> {
        vec![
            ("authorization", self.auth.as_str()),
            ("mcp-session-id", self.session.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ]
    }

    /// A tool call's result.
    fn call(&self, name: &str, args: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": args}});
        let (status, _, answer) = post(&self.url, &self.headers(), &body);
        assert_eq!(status, 200);
        answer.expect("an answer")["result"].clone()
    }
}

#[test]
fn python_sdk_drives_mcp_serve_over_http_with_a_token() {
    let sb = TestHome::new();
    // `--corpus-root` lets the driver's call for a missing corpus through to
    // the run (which cannot start); HTTP callers name no files without it.
    let server = listen(&sb, Some("tok-3b1f"), &["--corpus-root", "/nonexistent"]);
    // Without the token, or with a wrong one: 401 before any MCP.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let statuses = rt.block_on(async {
        let client = reqwest::Client::new();
        let mut out = Vec::new();
        for auth in [None, Some("Bearer wrong"), Some("Basic tok-3b1f")] {
            let mut req = client
                .post(&server.url)
                .header("accept", "application/json, text/event-stream")
                .json(&init);
            if let Some(a) = auth {
                req = req.header("authorization", a);
            }
            out.push(req.send().await.unwrap().status().as_u16());
        }
        out
    });
    assert_eq!(statuses, [401, 401, 401]);
    // A browser page from anywhere but loopback is refused, even with the token.
    let origin = |o: &str| {
        post(
            &server.url,
            &[("authorization", "Bearer tok-3b1f"), ("origin", o)],
            &init,
        )
        .0
    };
    assert_eq!(origin("http://evil.example"), 403);
    assert_eq!(origin("null"), 403);
    assert_eq!(origin("http://localhost:5173"), 200);
    // Without a token configured, one is made up, printed, and required.
    let auto = listen(&sb, None, &[]);
    let made = auto.generated.clone().unwrap();
    assert!(made.len() >= 32, "{made}");
    assert_eq!(post(&auto.url, &[], &init).0, 401);
    let bearer = format!("Bearer {made}");
    assert_eq!(post(&auto.url, &[("authorization", &bearer)], &init).0, 200);
    drop(auto);
    // With --no-token, loopback clients need none (the old behaviour).
    let open = listen(&sb, None, &["--no-token"]);
    let status = rt.block_on(async {
        reqwest::Client::new()
            .post(&open.url)
            .header("accept", "application/json, text/event-stream")
            .json(&init)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert_eq!(status, 200);
    drop(open);
    // The SDK with the token: the whole session.
    let seen = drive(&sb, &["http", &server.url, "tok-3b1f"]);
    check_session(&seen, &sb);
    // The token never reaches the run's files.
    for file in super::common::run_files(&sb.runs()) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("tok-3b1f"),
            "the token leaked into {}",
            file.display()
        );
    }
}

#[test]
fn listening_off_loopback_needs_permission_and_a_token() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .args(["mcp-serve", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--allow-remote"),
        "{err}"
    );
    let out = sb
        .dra()
        .args(["mcp-serve", "--listen", "0.0.0.0:0", "--allow-remote"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("DRA_MCP_SERVE_TOKEN"), "{err}");
    // An empty token is no token.
    let out = sb
        .dra()
        .env("DRA_MCP_SERVE_TOKEN", "")
        .args(["mcp-serve", "--listen", "0.0.0.0:0", "--allow-remote"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    // A guessable token does not guard a server other machines reach.
    let out = sb
        .dra()
        .env("DRA_MCP_SERVE_TOKEN", "abc")
        .args(["mcp-serve", "--listen", "0.0.0.0:0", "--allow-remote"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 16"));
}

/// Reads stdout lines on a thread, so a silent server cannot hang the test.
fn lines_of(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn stdio_stdout_carries_json_rpc_only() {
    let sb = TestHome::new();
    let mut c = Command::new(env!("CARGO_BIN_EXE_dra"));
    sandboxed(&mut c, &sb);
    // -vv: debug logs must still go to stderr, never stdout.
    let mut child = c
        .args(["-vv", "mcp-serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut s);
        s
    });
    let mut seen: Vec<String> = Vec::new();
    let mut call = |msg: Value, seen: &mut Vec<String>| -> Option<Value> {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        let id = msg.get("id")?.clone();
        loop {
            let line = lines
                .recv_timeout(Duration::from_secs(60))
                .expect("no answer on stdout");
            seen.push(line.clone());
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
            if v["id"] == id {
                return Some(v);
            }
        }
    };
    let init = call(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        &mut seen,
    )
    .unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "dra");
    call(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &mut seen,
    );
    let listed = call(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        &mut seen,
    )
    .unwrap();
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 4);
    let research = call(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "research",
            "arguments": {"question": "What does PadmaPay charge per UPI transaction?"},
            "_meta": {"progressToken": "p1"}}}),
        &mut seen,
    )
    .unwrap();
    assert_eq!(research["result"]["isError"], json!(false), "{research}");
    // Asked for a summary, the first block is the Answer section alone.
    let summary = call(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "research",
            "arguments": {"question": "What does PadmaPay charge per UPI transaction?", "detail": "summary"}}}),
        &mut seen,
    )
    .unwrap();
    let text = |v: &Value| {
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let (full, short) = (text(&research), text(&summary));
    assert!(
        short.starts_with("## Answer") && short.contains("report.md"),
        "{short}"
    );
    assert!(
        !short.contains("## Sources") && full.contains("## Sources"),
        "{short}"
    );
    assert!(
        short.len() < full.len() / 2,
        "{} of {}",
        short.len(),
        full.len()
    );
    // A question naming nothing, answered in the call: no clarification.
    let answered = call(
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
            "name": "research",
            "arguments": {"question": "Is it reliable?", "answers": ["PadmaPay"], "detail": "summary"}}}),
        &mut seen,
    )
    .unwrap();
    let facts = &answered["result"]["structuredContent"];
    assert_eq!(facts["reason"], "report_delivered", "{answered}");
    assert!(text(&answered).contains("PadmaPay"), "{answered}");
    let unknown = call(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "nope", "arguments": {}}}),
        &mut seen,
    )
    .unwrap();
    assert_eq!(unknown["result"]["isError"], json!(true));
    drop(stdin);
    // Closing stdin ends the server.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the server did not exit when stdin closed")
        .unwrap();
    assert!(status.success(), "{status}");
    seen.extend(lines.try_iter());
    let stderr = err_thread.join().unwrap();
    // Every stdout line is a JSON-RPC 2.0 message; progress came as
    // notifications; the logs went to stderr.
    for line in &seen {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
    }
    assert!(
        seen.iter()
            .any(|l| l.contains("notifications/progress") && l.contains("\"p1\"")),
        "no progress notification on stdout"
    );
    assert!(
        stderr.contains("DEBUG"),
        "no debug logs on stderr:\n{stderr}"
    );
}

#[test]
fn cancelling_a_research_call_interrupts_its_run() {
    let sb = TestHome::new();
    let mut c = Command::new(env!("CARGO_BIN_EXE_dra"));
    sandboxed(&mut c, &sb);
    let mut child = c
        .arg("mcp-serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    let answer = lines.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(answer.contains("\"id\":1"), "{answer}");
    // The call and its cancellation in one write: the run is interrupted
    // right after it starts.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "research",
        "arguments": {"question": super::common::PADMAPAY_QUESTION}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "user pressed stop"}});
    write!(
        stdin,
        "{}\n{call}\n{cancel}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    stdin.flush().unwrap();
    // The run ends on its own record: interrupted, with its report written.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        assert!(std::time::Instant::now() < deadline, "the run did not end");
        std::thread::sleep(Duration::from_millis(200));
        let Ok(dirs) = std::fs::read_dir(sb.runs()) else {
            continue;
        };
        let Some(dir) = dirs.filter_map(Result::ok).next() else {
            continue;
        };
        let events = std::fs::read_to_string(dir.path().join("events.jsonl")).unwrap_or_default();
        let end = events
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "status" && (v["state"] == "done" || v["state"] == "error"));
        if let Some(end) = end {
            assert!(dir.path().join("report.md").is_file());
            break end;
        }
    };
    assert_eq!(status["reason"], "interrupted", "{status}");
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn a_served_corpus_is_what_search_and_fetch_read() {
    let sb = TestHome::new();
    let corpus = super::common::repo_path("tests/corpora/halden");
    let mut c = Command::new(env!("CARGO_BIN_EXE_dra"));
    sandboxed(&mut c, &sb);
    let mut child = c
        .arg("mcp-serve")
        .arg("--corpus")
        .arg(&corpus)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    let mut ask = |msg: Value| -> Value {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = lines.recv_timeout(Duration::from_secs(60)).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == msg["id"] {
                return v;
            }
        }
    };
    ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let hits = ask(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "search", "arguments": {"query": "Halden Freight cold chain"}}}),
    );
    let results = hits["result"]["structuredContent"]["results"]
        .as_array()
        .unwrap()
        .clone();
    assert!(!results.is_empty(), "{hits}");
    assert!(
        hits["result"]["structuredContent"]["source"]
            .as_str()
            .unwrap()
            .contains("halden"),
        "{hits}"
    );
    // Nothing from the embedded PadmaPay corpus.
    assert!(
        results
            .iter()
            .all(|r| !r["url"].as_str().unwrap().contains("padmapay"))
    );
    let url = results[0]["url"].as_str().unwrap();
    let page = ask(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "fetch", "arguments": {"url": url}}}),
    );
    assert_eq!(page["result"]["isError"], json!(false), "{page}");
    assert_eq!(page["result"]["structuredContent"]["url"], json!(url));
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn http_sessions_are_capped() {
    let sb = TestHome::new();
    let server = listen(&sb, Some("tok-cap"), &[]);
    let auth = [("authorization", "Bearer tok-cap")];
    for i in 0..64 {
        let (status, session, _) = post(&server.url, &auth, &init_request());
        assert_eq!(status, 200, "session {i}");
        assert!(session.is_some());
    }
    let (status, _, _) = post(&server.url, &auth, &init_request());
    assert_eq!(status, 503, "the 65th session");
    // A stranger's request is refused before it could count.
    assert_eq!(post(&server.url, &[], &init_request()).0, 401);
}

#[test]
fn http_callers_name_only_allowed_files_and_see_only_this_servers_runs() {
    let sb = TestHome::new();
    // A run made from the command line, before any server.
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "Who is the chief executive of PadmaPay (Kochi, India)?",
        ])
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let notes = sb.dir.path().join("notes");
    let secret = sb.dir.path().join("secret");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(
        secret.join("passwords.md"),
        "# Passwords\n\nroot: hunter2\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, notes.join("escape")).unwrap();
    let question = json!("Who runs PadmaPay?");

    // No --corpus-root: HTTP callers name no file; runs lists none of the CLI's.
    let server = listen(&sb, Some("tok-files"), &[]);
    let raw = RawSession::open(&server.url, "tok-files");
    let r = raw.call("research", json!({"question": question, "corpus": secret}));
    assert_eq!(r["isError"], json!(true), "{r}");
    assert!(r.to_string().contains("lets callers name no files"), "{r}");
    assert!(!r.to_string().contains("hunter2"), "{r}");
    let runs = raw.call("runs", json!({}));
    assert_eq!(runs["structuredContent"]["count"], json!(0), "{runs}");
    let tools = post(
        &server.url,
        &raw.headers(),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    )
    .2
    .unwrap();
    let research = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "research")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(research.contains("never raise them"), "{research}");
    assert!(!research.contains("`corpus` is a folder"), "{research}");
    drop(server);

    // With a root and --all-runs: only paths really below the root, every run.
    let root = notes.display().to_string();
    let server = listen(
        &sb,
        Some("tok-files"),
        &["--corpus-root", &root, "--all-runs"],
    );
    let raw = RawSession::open(&server.url, "tok-files");
    for outside in [
        secret.clone(),
        notes.join("escape"),
        notes.join("../secret"),
    ] {
        let r = raw.call("research", json!({"question": question, "corpus": outside}));
        assert_eq!(r["isError"], json!(true), "{r}");
        assert!(r.to_string().contains("is not below the folders"), "{r}");
        assert!(!r.to_string().contains("hunter2"), "{r}");
    }
    let runs = raw.call("runs", json!({}));
    assert_eq!(runs["structuredContent"]["count"], json!(1), "{runs}");
}
