//! Sandbox probes: code that tries to escape ends in a failed or empty
//! result and never touches the host. They run the real bubblewrap; where
//! it cannot create a sandbox these tests FAIL (they never skip, and code
//! is never run unsandboxed).

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use dra::sandbox::bwrap::Bwrap;
use dra::sandbox::{ExecOutcome, Language, Limits, Sandbox, Stopped};

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(20),
        ..Limits::default()
    }
}

/// A bubblewrap sandbox over `workspace`, checked to work here.
async fn bwrap(workspace: &Path) -> Bwrap {
    let b = Bwrap::locate(workspace, false).unwrap_or_else(|u| {
        panic!(
            "bubblewrap is required for these tests: {} ({})",
            u.why, u.fix
        )
    });
    if let Err(u) = b.probe().await {
        panic!(
            "bubblewrap cannot create a sandbox here: {} ({})",
            u.why, u.fix
        );
    }
    b
}

async fn run(b: &Bwrap, lang: Language, code: &str, limits: &Limits) -> ExecOutcome {
    b.run(code, lang, limits).await.unwrap()
}

#[tokio::test]
async fn python_and_shell_run_and_write_only_into_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("workspace");
    let b = bwrap(&ws).await;
    let o = run(
        &b,
        Language::Python,
        "import os\nprint(round((150/120-1)*100, 1))\nopen('out.csv','w').write('a,b\\n1,2\\n')\nprint(os.getcwd(), os.environ.get('HOME'))",
        &limits(),
    )
    .await;
    assert_eq!(o.exit_code, Some(0), "{o:?}");
    assert_eq!(o.stdout, "25.0\n/workspace /workspace\n");
    assert_eq!(
        std::fs::read_to_string(ws.join("out.csv")).unwrap(),
        "a,b\n1,2\n"
    );
    let o = run(
        &b,
        Language::Shell,
        "cat out.csv | wc -l; exit 3",
        &limits(),
    )
    .await;
    assert_eq!((o.exit_code, o.stdout.trim()), (Some(3), "2"));
    // No descriptor of dra's but the three pipes reaches the code, not even
    // one dra inherited without close-on-exec.
    let inherited = std::fs::File::open("/dev/null").unwrap();
    // SAFETY: clearing FD_CLOEXEC on a descriptor this test owns.
    assert_eq!(
        unsafe {
            libc::fcntl(
                std::os::fd::AsRawFd::as_raw_fd(&inherited),
                libc::F_SETFD,
                0,
            )
        },
        0
    );
    let o = run(&b, Language::Python, "import os\nfor f in os.listdir('/proc/self/fd'):\n    if int(f) > 2:\n        try:\n            print(f, os.readlink('/proc/self/fd/' + f))\n        except OSError:\n            print(f, '-')", &limits()).await;
    // Each line: a descriptor above stdio and what it points to.
    for line in o.stdout.lines() {
        let target = line.split_once(' ').map(|(_, t)| t).unwrap_or("");
        assert!(
            target == "/workspace" || target == "-",
            "leaked: {line} ({o:?})"
        );
    }
    // The environment is the sandbox's own: no secret of dra's reaches it.
    let o = run(&b, Language::Shell, "env | sort", &limits()).await;
    assert!(
        !o.stdout.contains("API_KEY") && !o.stdout.contains("CARGO"),
        "{}",
        o.stdout
    );
}

#[tokio::test]
async fn probe_socket_to_a_loopback_listener_never_connects() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    print('CONNECTED')\nexcept OSError as e:\n    print('refused', type(e).__name__)\n"
    );
    let o = run(&b, Language::Python, &code, &limits()).await;
    assert!(o.stdout.starts_with("refused"), "{o:?}");
    assert!(
        listener.accept().is_err(),
        "the listener saw a connection from the sandbox"
    );
}

#[tokio::test]
async fn with_the_network_allowed_the_same_socket_connects() {
    let dir = tempfile::tempdir().unwrap();
    let b = Bwrap::locate(&dir.path().join("workspace"), true).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3).close()\nprint('connected')\n"
    );
    let o = run(&b, Language::Python, &code, &limits()).await;
    assert_eq!(o.stdout, "connected\n", "{o:?}");
    assert!(listener.accept().is_ok());
}

#[tokio::test]
async fn probe_home_ssh_and_dra_config_are_absent() {
    let dir = tempfile::tempdir().unwrap();
    // A home with an ssh key and a dra config holding a key, outside the workspace.
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "Q7ZX-SECRET-SSH").unwrap();
    std::fs::create_dir_all(home.join(".config/dra")).unwrap();
    std::fs::write(
        home.join(".config/dra/config.toml"),
        "openai_api_key = \"Q7ZX-SECRET-CONFIG\"\n",
    )
    .unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let code = format!(
        "for p in ~/.ssh/id_ed25519 /root/.ssh {home}/.ssh/id_ed25519 {home}/.config/dra/config.toml /root/.config/dra /home; do\n  if cat \"$p\" 2>/dev/null || ls \"$p\" 2>/dev/null; then echo \"READ $p\"; fi\ndone\necho root: $(ls -A / | sort)\necho end",
        home = home.display()
    );
    let o = run(&b, Language::Shell, &code, &limits()).await;
    assert!(!o.stdout.contains("Q7ZX-SECRET"), "{o:?}");
    assert!(!o.stdout.contains("READ"), "{o:?}");
    assert!(o.stdout.ends_with("end\n"), "{o:?}");
    // The whole root: system folders, the private /tmp and the workspace.
    let root = o
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("root: "))
        .unwrap();
    for name in root.split_whitespace() {
        assert!(
            [
                "bin",
                "dev",
                "etc",
                "lib",
                "lib32",
                "lib64",
                "libx32",
                "proc",
                "sbin",
                "tmp",
                "usr",
                "workspace"
            ]
            .contains(&name),
            "unexpected /{name} in the sandbox: {root}"
        );
    }
}

#[tokio::test]
async fn probe_writes_outside_the_workspace_never_reach_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let host_tmp = std::env::temp_dir().join(format!("dra-probe-{}", std::process::id()));
    let code = format!(
        "for p in {host} /tmp/x /usr/probe /etc/probe /probe; do\n  if echo x > \"$p\" 2>/dev/null; then echo \"wrote $p\"; else echo \"denied $p\"; fi\ndone",
        host = host_tmp.display()
    );
    let o = run(&b, Language::Shell, &code, &limits()).await;
    // /tmp inside is the sandbox's own tmpfs: writable, and gone after.
    assert!(o.stdout.contains("denied /usr/probe"), "{o:?}");
    assert!(o.stdout.contains("denied /etc/probe"), "{o:?}");
    assert!(o.stdout.contains("denied /probe"), "{o:?}");
    assert!(!host_tmp.exists(), "the host's temp dir got a file");
    assert!(!Path::new("/usr/probe").exists() && !Path::new("/tmp/x").exists());
}

#[tokio::test]
async fn probe_nested_namespaces_and_filling_tmp_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let code = "if unshare -U true 2>/dev/null; then echo NESTED; else echo nested refused; fi\nif head -c 314572800 /dev/zero > /tmp/fill 2>/dev/null; then echo FILLED; else echo tmp full; fi\n";
    let o = run(&b, Language::Shell, code, &limits()).await;
    assert!(o.stdout.contains("nested refused"), "{o:?}");
    // ENOSPC (the tmpfs size) or SIGXFSZ (the file-size limit): never 300 MiB in RAM.
    assert!(o.stdout.contains("tmp full"), "{o:?}");
    assert!(!o.stdout.contains("FILLED"), "{o:?}");
}

#[tokio::test]
async fn probe_fork_bomb_is_bounded_and_ends() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let l = Limits {
        timeout: Duration::from_secs(10),
        ..Limits::default()
    };
    let code = "import os, time\nn = 0\nfor _ in range(5000):\n    try:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\n    except OSError as e:\n        print('fork refused after', n, e.errno)\n        break\n";
    let o = run(&b, Language::Python, code, &l).await;
    assert!(o.stdout.contains("fork refused after"), "{o:?}");
    let n: u64 = o.stdout.split_whitespace().nth(3).unwrap().parse().unwrap();
    // 64 above what the sandbox user ran at the start; sandboxes of the
    // tests running beside this one may have ended since, hence the slack.
    assert!(n < l.processes * 3, "{n} processes were started");
    // The sleeping children die with the sandbox: the call ended at once.
    assert!(o.duration < Duration::from_secs(10), "{o:?}");
}

#[tokio::test]
async fn probe_infinite_loop_is_killed_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let l = Limits {
        timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let o = run(&b, Language::Shell, "echo started; while :; do :; done", &l).await;
    assert_eq!(o.stopped, Some(Stopped::Timeout), "{o:?}");
    assert_eq!(o.exit_code, None);
    assert_eq!(o.stdout, "started\n");
    assert!(o.duration < Duration::from_secs(6), "{o:?}");
}

#[tokio::test]
async fn probe_printing_100_mb_is_cut_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let o = run(
        &b,
        Language::Python,
        "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1024 * 1024))\n",
        &limits(),
    )
    .await;
    assert_eq!(o.stopped, Some(Stopped::OutputCap), "{:?}", o.stopped);
    assert!(o.truncated);
    assert_eq!(o.stdout.len(), limits().output_bytes);
}

#[tokio::test]
async fn probe_memory_hog_fails_inside_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let b = bwrap(&dir.path().join("workspace")).await;
    let l = Limits {
        memory_bytes: 256 * 1024 * 1024,
        ..limits()
    };
    let o = run(
        &b,
        Language::Python,
        "try:\n    x = bytearray(512 * 1024 * 1024)\n    print('ALLOCATED')\nexcept MemoryError:\n    print('memory refused')\n",
        &l,
    )
    .await;
    assert_eq!(o.stdout, "memory refused\n", "{o:?}");
}

#[test]
fn the_probe_fails_loudly_without_a_working_bwrap() {
    // A "bwrap" that cannot create anything: no sandbox, with a fix.
    let dir = tempfile::tempdir().unwrap();
    let b = Bwrap::with_binary("/bin/false".into(), &dir.path().join("ws"), false);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let err = rt.block_on(b.probe()).unwrap_err();
    assert!(err.why.contains("cannot create a sandbox"), "{err:?}");
    assert!(err.fix.contains("LLM_SANDBOX_URL"), "{err:?}");
    let mut s = String::new();
    std::io::Cursor::new(err.fix)
        .read_to_string(&mut s)
        .unwrap();
    assert!(s.contains("user namespaces"));
}

/// The lead first computes a growth rate with `execute`, then researches
/// and reports as in the online session.
fn script_with_execute(
    body: &serde_json::Value,
) -> Result<Vec<(&'static str, serde_json::Value)>, String> {
    use super::online::{Who, script, who};
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead if turn == 0 => Ok(vec![(
            "execute",
            serde_json::json!({
                "language": "python",
                "code": "revenue_2024, revenue_2025 = 120.0, 150.0\ngrowth = (revenue_2025 / revenue_2024 - 1) * 100\nprint(f'growth: {growth:.1f}%')\nopen('growth.txt', 'w').write(str(growth))\n"
            }),
        )]),
        Who::Lead => {
            // The rest of the session as if the computation had not happened.
            let mut rest = body.clone();
            let kept: Vec<serde_json::Value> = messages
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 2 && *i != 3)
                .map(|(_, m)| m.clone())
                .collect();
            rest["messages"] = serde_json::Value::Array(kept);
            script(&rest)
        }
        _ => script(body),
    }
}

/// The lead prints 100 MB first, then researches as usual.
fn script_with_flood(
    body: &serde_json::Value,
) -> Result<Vec<(&'static str, serde_json::Value)>, String> {
    use super::online::{Who, who};
    let turn = body["messages"]
        .as_array()
        .map(|m| m.iter().filter(|m| m["role"] == "assistant").count())
        .unwrap_or(0);
    match who(body) {
        Who::Lead if turn == 0 => Ok(vec![(
            "execute",
            serde_json::json!({
                "language": "shell",
                "code": "head -c 104857600 /dev/zero | tr '\\0' 'x'"
            }),
        )]),
        _ => script_with_execute(body),
    }
}

#[test]
fn printing_100_mb_reaches_the_model_cut() {
    use dra::protocol::EventBody;
    let server = super::online::start_with(super::online::Fault::None, script_with_flood);
    let (_, events, _) = super::online::run_online(&server, &[("DRA_STREAMING", "false")]);
    let summary = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolResult { tool, summary, .. } if tool == "execute" => {
                Some(summary.clone())
            }
            _ => None,
        })
        .expect("an execute result");
    assert!(summary.ends_with("output truncated"), "{summary}");
    let bodies = server.request_bodies();
    let seen = bodies
        .iter()
        .find(|b| b.contains("output truncated at 1048576 bytes"))
        .expect("the model was told");
    // What the model reads is a head of the output, not a megabyte.
    assert!(seen.len() < 200_000, "{} bytes", seen.len());
    assert!(seen.contains("more characters not shown"));
}

#[test]
fn the_human_rows_show_each_code_run() {
    let server = super::online::start_with(super::online::Fault::None, script_with_execute);
    let sb = super::common::TestHome::new();
    let out = sb
        .dra()
        .env("OPENAI_API_KEY", super::online::ONLINE_KEY)
        .env("OPENAI_BASE_URL", &server.base)
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--corpus"])
        .arg(super::common::repo_path(
            "src/corpus/embedded/padmapay.json",
        ))
        .arg(super::common::PADMAPAY_QUESTION)
        .timeout(Duration::from_secs(90))
        .assert()
        .success();
    let rows = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let row = rows
        .lines()
        .find(|l| l.contains("execute: python: exit code 0, "))
        .unwrap_or_else(|| panic!("{rows}"));
    assert!(row.ends_with("1 files written"), "{row}");
}

#[test]
fn a_scripted_model_computes_with_execute_and_reads_the_result() {
    use dra::protocol::{EventBody, StatusReason};
    let server = super::online::start_with(super::online::Fault::None, script_with_execute);
    let (_, events, sb) = super::online::run_online(&server, &[("DRA_STREAMING", "false")]);
    let call = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolCall { tool, args, .. } if tool == "execute" => Some(args.clone()),
            _ => None,
        })
        .expect("an execute call event");
    assert_eq!(call["language"], "python");
    let result = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolResult {
                tool, ok, summary, ..
            } if tool == "execute" => Some((*ok, summary.clone())),
            _ => None,
        })
        .expect("an execute result event");
    assert!(result.0, "{result:?}");
    assert!(result.1.starts_with("python: exit code 0, "), "{result:?}");
    assert!(result.1.ends_with("1 files written"), "{result:?}");
    // What the model read back in its next request: the output, spotlighted.
    let bodies = server.request_bodies();
    let seen = bodies
        .iter()
        .find(|b| b.contains("growth: 25.0%"))
        .expect("the model received the output");
    assert!(seen.contains("exit code 0"), "{seen}");
    assert!(seen.contains("untrusted-data"), "{seen}");
    assert!(seen.contains("/workspace/growth.txt"), "{seen}");
    // Offered to the lead and to sub-researchers alike.
    let offered = |who: &str| {
        bodies
            .iter()
            .any(|b| b.contains(who) && b.contains("\"name\":\"execute\""))
    };
    assert!(offered("submit_report") && offered("submit_findings"));
    // The file stays with the run.
    let written = sb.run_dir().join("workspace/growth.txt");
    assert_eq!(std::fs::read_to_string(written).unwrap(), "25.0");
    match &events.last().unwrap().body {
        EventBody::Status(s) => assert_eq!(s.reason, Some(StatusReason::ReportDelivered), "{s:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn doctor_names_the_sandbox_or_how_to_get_one() {
    let sb = super::common::TestHome::new();
    let out = sb.dra().arg("doctor").assert();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.contains("] sandbox:"))
        .expect(&text);
    assert!(
        line.starts_with("  [ok] sandbox: execute runs in bubblewrap"),
        "{line}"
    );
    assert!(
        line.contains("network off") && line.contains("30 s, 1024 MiB"),
        "{line}"
    );
    // Without bwrap on PATH: no execute tool, and how to get one.
    let empty = tempfile::tempdir().unwrap();
    let out = sb.dra().env("PATH", empty.path()).arg("doctor").assert();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let at = text.find("] sandbox:").expect(&text);
    let lines: Vec<&str> = text[at..].lines().take(2).collect();
    assert!(
        lines[0].contains("no execute tool: bubblewrap (bwrap) is not installed"),
        "{lines:?}"
    );
    assert!(
        lines[1].contains("fix: install bubblewrap") && lines[1].contains("LLM_SANDBOX_URL"),
        "{lines:?}"
    );
    // A configured sidecar that does not answer fails the check.
    let out = sb
        .dra()
        .env("LLM_SANDBOX_URL", "http://127.0.0.1:9")
        .arg("doctor")
        .assert()
        .failure();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("[FAIL] sandbox: LLM_SANDBOX_URL is set"),
        "{text}"
    );
}

mod sidecar {
    //! The llm-sandbox sidecar client against a small loopback server that
    //! speaks the documented API (it "runs" code by echoing a canned answer).

    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use axum::Router;
    use axum::extract::{Path as UrlPath, State};
    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::{delete, get, post};
    use dra::config::{ExecSettings, Secret};
    use dra::sandbox::sidecar::Sidecar;
    use dra::sandbox::{Language, Limits, Sandbox, SandboxError};
    use serde_json::{Value, json};

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<String>>>);

    fn authorized(h: &HeaderMap) -> bool {
        h.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer tok-123")
    }

    async fn start() -> (String, Log) {
        let log = Log::default();
        let app = Router::new()
            .route(
                "/health",
                get(|h: HeaderMap| async move {
                    if authorized(&h) { StatusCode::OK } else { StatusCode::UNAUTHORIZED }
                }),
            )
            .route(
                "/sessions",
                post(|State(log): State<Log>, h: HeaderMap, body: axum::Json<Value>| async move {
                    if !authorized(&h) {
                        return (StatusCode::UNAUTHORIZED, axum::Json(json!({})));
                    }
                    log.0.lock().unwrap().push(format!("create {}", body["language"]));
                    (StatusCode::OK, axum::Json(json!({"id": "s-1"})))
                }),
            )
            .route(
                "/sessions/{id}/execute",
                post(
                    |State(log): State<Log>, UrlPath(id): UrlPath<String>, h: HeaderMap, body: axum::Json<Value>| async move {
                        if !authorized(&h) {
                            return (StatusCode::UNAUTHORIZED, axum::Json(json!({})));
                        }
                        log.0.lock().unwrap().push(format!("execute {id} {}", body["language"]));
                        let code = body["code"].as_str().unwrap_or("").to_string();
                        (
                            StatusCode::OK,
                            axum::Json(json!({"stdout": format!("ran: {code}\n"), "stderr": "", "exit_code": 0})),
                        )
                    },
                ),
            )
            .route(
                "/sessions/{id}",
                delete(|State(log): State<Log>, UrlPath(id): UrlPath<String>| async move {
                    log.0.lock().unwrap().push(format!("delete {id}"));
                    StatusCode::NO_CONTENT
                }),
            )
            .with_state(log.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (url, log)
    }

    fn limits() -> Limits {
        Limits {
            timeout: Duration::from_secs(5),
            ..Limits::default()
        }
    }

    #[tokio::test]
    async fn one_session_per_run_created_lazily_reused_and_deleted() {
        let (url, log) = start().await;
        let s = Sidecar::new(&url, Some(Secret::new("tok-123")), &ExecSettings::off()).unwrap();
        s.probe().await.unwrap();
        assert!(
            log.0.lock().unwrap().is_empty(),
            "no session before the first call"
        );
        let a = s
            .run("print(1)", Language::Python, &limits())
            .await
            .unwrap();
        let b = s.run("echo 2", Language::Shell, &limits()).await.unwrap();
        assert_eq!(
            (a.exit_code, a.stdout.as_str()),
            (Some(0), "ran: print(1)\n")
        );
        assert_eq!(b.stdout, "ran: echo 2\n");
        s.close().await;
        s.close().await;
        assert_eq!(
            *log.0.lock().unwrap(),
            vec![
                "create \"python\"",
                "execute s-1 \"python\"",
                "execute s-1 \"shell\"",
                "delete s-1"
            ]
        );
    }

    /// The sidecar on a runtime of its own, for runs of the binary.
    fn start_blocking() -> (String, Log, tokio::runtime::Runtime) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (url, log) = rt.block_on(start());
        (url, log, rt)
    }

    fn run_with_sidecar(url: &str, token: &str) -> (Vec<String>, Vec<dra::protocol::Event>) {
        let server = super::super::online::start_with(
            super::super::online::Fault::None,
            super::script_with_execute,
        );
        let sb = super::super::common::TestHome::new();
        let out = sb
            .dra()
            .env("OPENAI_API_KEY", super::super::online::ONLINE_KEY)
            .env("OPENAI_BASE_URL", &server.base)
            .env("DRA_STREAMING", "false")
            .env("LLM_SANDBOX_URL", url)
            .env("LLM_SANDBOX_TOKEN", token)
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "ask", "--corpus"])
            .arg(super::super::common::repo_path(
                "src/corpus/embedded/padmapay.json",
            ))
            .arg(super::super::common::PADMAPAY_QUESTION)
            .timeout(Duration::from_secs(90))
            .assert()
            .success();
        let events =
            super::super::common::parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
        // Secrets never reach the run's files.
        for path in super::super::common::run_files(&sb.run_dir()) {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            assert!(!text.contains(token), "token in {}", path.display());
        }
        (server.request_bodies(), events)
    }

    #[test]
    fn a_run_uses_the_sidecar_over_bubblewrap_and_deletes_its_session() {
        let (url, log, _rt) = start_blocking();
        let (bodies, _) = run_with_sidecar(&url, "tok-123");
        assert_eq!(
            *log.0.lock().unwrap(),
            vec!["create \"python\"", "execute s-1 \"python\"", "delete s-1"]
        );
        assert!(bodies.iter().any(|b| b.contains("ran: revenue_2024")));
    }

    #[test]
    fn a_token_mismatch_reaches_the_model_as_an_explained_error() {
        let (url, log, _rt) = start_blocking();
        let (bodies, events) = run_with_sidecar(&url, "tok-wrong");
        assert!(log.0.lock().unwrap().is_empty());
        assert!(
            bodies
                .iter()
                .any(|b| b.contains("LLM_SANDBOX_TOKEN must match"))
        );
        let failed = events.iter().any(|e| {
            matches!(&e.body, dra::protocol::EventBody::ToolResult { tool, ok: false, .. } if tool == "execute")
        });
        assert!(failed);
    }

    #[tokio::test]
    async fn a_wrong_token_is_a_typed_401() {
        let (url, log) = start().await;
        let s = Sidecar::new(&url, Some(Secret::new("wrong")), &ExecSettings::off()).unwrap();
        assert!(matches!(s.probe().await, Err(SandboxError::Unauthorized)));
        let err = s
            .run("print(1)", Language::Python, &limits())
            .await
            .unwrap_err();
        assert!(matches!(err, SandboxError::Unauthorized), "{err}");
        assert!(err.to_string().contains("LLM_SANDBOX_TOKEN"));
        assert!(log.0.lock().unwrap().is_empty());
    }
}

/// Run as root (as here and in CI), dra drops to `nobody` to start bwrap;
/// a workspace below a 0700 folder (a run dir under a private home) is out
/// of `nobody`'s reach, and bwrap once failed every call with "Can't find
/// source path /proc/self/fd/N: Permission denied". The offload folder,
/// shown read-only, sits there too.
#[tokio::test]
async fn a_workspace_below_a_private_home_works_as_root() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let run = home.join(".local/share/dra/runs/r1");
    std::fs::create_dir_all(run.join("offload")).unwrap();
    std::fs::write(run.join("offload/t.csv"), "a,b\n1,2\n").unwrap();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let b = bwrap(&run.join("workspace"))
        .await
        .with_read_only(dra::sandbox::ReadOnlyMount {
            host: run.join("offload"),
            inside: "/workspace/data".into(),
        });
    let o = run_code(
        &b,
        "echo made > /workspace/out.txt && cat /workspace/data/t.csv && (echo x > /workspace/data/t.csv) 2>/dev/null || echo read-only",
    )
    .await;
    assert_eq!(o.exit_code, Some(0), "{o:?}");
    assert_eq!(o.stdout, "a,b\n1,2\nread-only\n", "{o:?}");
    assert_eq!(
        std::fs::read_to_string(run.join("workspace/out.txt")).unwrap(),
        "made\n"
    );
    assert_eq!(
        std::fs::read_to_string(run.join("offload/t.csv")).unwrap(),
        "a,b\n1,2\n"
    );
}

async fn run_code(b: &Bwrap, code: &str) -> ExecOutcome {
    run(b, Language::Shell, code, &limits()).await
}
