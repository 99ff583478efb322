//! Issue 18, files, processes and run dirs: sandboxed code that plants
//! links where dra writes, custom tools that write scratch files, run dirs
//! whose records name commands, prune against a live lock, daemons that
//! outlive their call. Everything on loopback and in temp dirs.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use dra::protocol::{EventBody, WarningCode};
use serde_json::{Value, json};

use super::online::{Fault, Who, start_with, who};

/// A host folder the sandboxed code links to (one per test process: the
/// scripted model is a plain `fn`).
fn host_dir() -> PathBuf {
    std::env::temp_dir().join(format!("dra-sec-host-{}", std::process::id()))
}

fn tool(dir: &Path, name: &str, body: &str) {
    let path = dir.join(format!("{name}.sh"));
    let describe = json!({"name": name, "description": format!("The {name} tool."), "parameters": {"type": "object", "properties": {}}});
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--describe\" ]; then\ncat <<'JSON'\n{describe}\nJSON\nexit 0\nfi\n{body}\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Drops the lead's first `lead_turns` turns (each an assistant message
/// and the tool results after it), so the rest of the session is the
/// online one.
fn without_lead_turns(body: &Value, lead_turns: usize) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut seen = 0;
    let kept: Vec<Value> = messages
        .into_iter()
        .filter(|m| {
            if m["role"] == "assistant" {
                seen += 1;
            }
            let in_lead_turns = (1..=lead_turns).contains(&seen);
            !(in_lead_turns && (m["role"] == "assistant" || m["role"] == "tool"))
        })
        .collect();
    let mut rest = body.clone();
    rest["messages"] = Value::Array(kept);
    rest
}

/// The lead plants links in the workspace, calls a large custom tool and a
/// tool that writes a scratch file, reads the offloaded file from the
/// sandbox, then researches as usual.
fn planting_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    let host = host_dir();
    match who(body) {
        Who::Lead if turn == 0 => Ok(vec![(
            "execute",
            json!({"language": "shell", "code": format!(
                "rm -rf /workspace/data 2>/dev/null; ln -s {h} /workspace/data 2>/dev/null; ln -s {h} /workspace/escape; ln -s {h}/victim /workspace/scratch.txt; echo planted",
                h = host.display()
            )}),
        )]),
        Who::Lead if turn == 1 => Ok(vec![("big", json!({})), ("scratch", json!({}))]),
        Who::Lead if turn == 2 => Ok(vec![(
            "execute",
            json!({"language": "shell", "code": "head -n 1 /workspace/data/big-*.csv; (echo x > /workspace/data/new.txt) 2>/dev/null || echo data-is-read-only"}),
        )]),
        Who::Lead => super::online::script(&without_lead_turns(body, 3)),
        _ => super::online::script(body),
    }
}

#[test]
fn sandboxed_links_never_steer_dra_s_writes() {
    let host = host_dir();
    std::fs::create_dir_all(&host).unwrap();
    let sb = super::common::TestHome::new();
    let tools = sb.dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    tool(
        &tools,
        "big",
        "awk 'BEGIN { print \"date,merchant,fee\"; for (i = 0; i < 5000; i++) printf \"2026-01-%05d,PadmaPay merchant %06d,1.9%%\\n\", i, i }'",
    );
    tool(
        &tools,
        "scratch",
        "echo overwritten > scratch.txt\necho \"scratch written in $(pwd)\"",
    );
    let server = start_with(Fault::None, planting_script);
    let tools_dir = tools.display().to_string();
    let (code, events, sb2) = super::online::run_online(
        &server,
        &[
            ("DRA_STREAMING", "false"),
            ("DRA_CUSTOM_TOOLS_DIR", &tools_dir),
        ],
    );
    let run = sb2.run_dir();
    // Nothing landed in the host folder, and the victim was never made.
    let written: Vec<_> = std::fs::read_dir(&host).unwrap().collect();
    assert!(written.is_empty(), "dra wrote through a link: {written:?}");
    std::fs::remove_dir_all(&host).unwrap();
    // The offload is in the run's own folder.
    let offloaded: Vec<PathBuf> = std::fs::read_dir(run.join("offload"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        offloaded
            .iter()
            .any(|p| p.file_name().unwrap().to_string_lossy().starts_with("big-")),
        "{offloaded:?}"
    );
    // The planted links are still the code's, untouched; the custom tool
    // wrote its scratch file in its own per-call folder (gone since).
    let scratch = std::fs::symlink_metadata(run.join("workspace/scratch.txt")).unwrap();
    assert!(scratch.file_type().is_symlink());
    let calls: Vec<_> = std::fs::read_dir(run.join("tool-calls")).unwrap().collect();
    assert!(calls.is_empty(), "per-call folders left: {calls:?}");
    // A security warning names the link.
    let warned = events.iter().any(|e| {
        matches!(&e.body, EventBody::Warning { code: WarningCode::Security, message, .. }
            if message.contains("/workspace/escape") || message.contains("/workspace/scratch.txt"))
    });
    assert!(warned, "no security warning: {events:#?}");
    // The code reads the offloaded file but cannot change it.
    let bodies = server.request_bodies();
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("date,merchant,fee") && b.contains("data-is-read-only")),
        "the sandbox did not see the offload read-only"
    );
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("scratch written in") && b.contains("tool-calls/scratch-")),
        "the custom tool did not run in its own folder"
    );
    assert_eq!(code, Some(0), "{events:#?}");
}

fn offline(sb: &super::common::TestHome) -> assert_cmd::Command {
    let mut c = sb.dra();
    c.env("DRA_TODAY", "2026-11-29")
        .env("DRA_MAX_PARALLEL", "1")
        .env("DRA_MEMORY", "false")
        .arg("--runs-dir")
        .arg(sb.runs());
    c
}

const OFFLINE_Q: &str = "Is PadmaPay a reliable payment gateway? Check pricing and leadership.";

/// An offline run made to look killed half-way (its terminal events cut).
fn interrupted_run(sb: &super::common::TestHome) -> PathBuf {
    let first = offline(sb).args(["ask", OFFLINE_Q]).assert();
    assert!(
        first.get_output().status.code().is_some_and(|c| c != 2),
        "{first:?}"
    );
    let dir = sb.run_dir();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let lines: Vec<&str> = events.lines().collect();
    let mut kept = lines[..lines.len() / 2].join("\n");
    kept.push('\n');
    std::fs::write(dir.join("events.jsonl"), kept).unwrap();
    std::fs::remove_file(dir.join("report.md")).unwrap();
    dir
}

#[test]
fn resume_never_runs_a_command_named_only_in_the_records() {
    let sb = super::common::TestHome::new();
    let dir = interrupted_run(&sb);
    let pwned = sb.dir.path().join("pwned");
    // The start record now names an MCP stdio server that would leave a mark.
    let records = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    let (first, rest) = records.split_once('\n').unwrap();
    let mut start: Value = serde_json::from_str(first).unwrap();
    start["inputs"]["mcp_flags"] = json!([format!("x=sh -c 'touch {}'", pwned.display())]);
    std::fs::write(dir.join("records.jsonl"), format!("{start}\n{rest}")).unwrap();

    let out = offline(&sb).args(["--json", "resume", "--last"]).assert();
    let o = out.get_output();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!pwned.exists(), "resume ran the recorded command");
    let events = super::common::parse_events(&String::from_utf8_lossy(&o.stdout));
    let warning = events.iter().find_map(|e| match &e.body {
        EventBody::Warning {
            code: WarningCode::Security,
            message,
        } if message.contains("MCP server x") => Some(message.clone()),
        _ => None,
    });
    let warning = warning.unwrap_or_else(|| panic!("no security warning: {stderr}"));
    assert!(
        warning.contains("not started") && warning.contains("--mcp"),
        "{warning}"
    );
    // The run itself resumed to its end.
    assert!(dir.join("report.md").exists(), "{stderr}");
    assert!(!pwned.exists());
}

#[test]
fn resume_refuses_run_dirs_others_may_write_or_own() {
    let sb = super::common::TestHome::new();
    let dir = interrupted_run(&sb);
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    for (path, m) in [(dir.clone(), 0o775), (dir.join("records.jsonl"), 0o666)] {
        mode(&path, m);
        let out = offline(&sb).args(["resume", "--last"]).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!(
                "{} is writable by group or others",
                path.display()
            )),
            "{stderr}"
        );
        assert!(stderr.contains("chmod -R go-w"), "{stderr}");
        mode(&path, if m == 0o775 { 0o755 } else { 0o644 });
    }
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::chown(dir.join("events.jsonl"), Some(65534), None).unwrap();
        let out = offline(&sb).args(["resume", "--last"]).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains("is owned by uid 65534, not by you"),
            "{stderr}"
        );
        std::os::unix::fs::chown(dir.join("events.jsonl"), Some(0), None).unwrap();
    }
    // Its own again: it resumes.
    let out = offline(&sb).args(["resume", "--last"]).assert();
    assert_ne!(out.get_output().status.code(), Some(2), "{out:?}");
    assert!(dir.join("report.md").exists());
}

/// Where the daemon tool writes its detached child's pid.
fn daemon_pidfile() -> PathBuf {
    std::env::temp_dir().join(format!("dra-sec-daemon-{}.pid", std::process::id()))
}

fn daemon_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead if turn == 0 => Ok(vec![("daemon", json!({}))]),
        Who::Lead => super::online::script(&without_lead_turns(body, 1)),
        _ => super::online::script(body),
    }
}

/// Gone, or a zombie waiting for a reaper: never running.
fn dead(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    stat.is_empty()
        || stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            == Some("Z")
}

#[test]
fn a_custom_tool_s_detached_child_dies_with_its_call() {
    let pidfile = daemon_pidfile();
    let _ = std::fs::remove_file(&pidfile);
    let sb = super::common::TestHome::new();
    let tools = sb.dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    // A double fork into a new session: out of the tool's process group.
    tool(
        &tools,
        "daemon",
        &format!(
            "(setsid sh -c 'sleep 300 & echo $! > {}' </dev/null >/dev/null 2>&1 &)\nsleep 1\necho daemon started",
            pidfile.display()
        ),
    );
    let server = start_with(Fault::None, daemon_script);
    let tools_dir = tools.display().to_string();
    let (code, events, _sb) = super::online::run_online(
        &server,
        &[
            ("DRA_STREAMING", "false"),
            ("DRA_CUSTOM_TOOLS_DIR", &tools_dir),
        ],
    );
    assert_eq!(code, Some(0), "{events:#?}");
    let ran = events.iter().any(
        |e| matches!(&e.body, EventBody::ToolResult { tool, ok: true, .. } if tool == "daemon"),
    );
    assert!(ran, "{events:#?}");
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let _ = std::fs::remove_file(&pidfile);
    assert!(!pid.trim().is_empty());
    assert!(
        dead(&pid),
        "the tool's detached child {pid} outlived the run"
    );
}

/// At most 60 files of 5 MiB (300 MiB): bounded even if nothing stopped it.
const FILL: &str = "i=0; while [ $i -lt 60 ]; do head -c 5242880 /dev/zero > /workspace/fill-$i || echo \"write $i failed\" >&2; i=$((i+1)); done; echo filled";

fn filling_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    match who(body) {
        Who::Lead if turn == 0 => Ok(vec![(
            "execute",
            json!({"language": "shell", "code": FILL}),
        )]),
        Who::Lead => super::online::script(&without_lead_turns(body, 1)),
        _ => super::online::script(body),
    }
}

fn last_status(events: &[dra::protocol::Event]) -> Option<dra::protocol::Status> {
    match &events.last()?.body {
        EventBody::Status(s) if s.state.is_terminal() => Some(s.clone()),
        _ => None,
    }
}

#[test]
fn a_sandbox_filling_its_workspace_is_stopped_at_the_quota() {
    let server = start_with(Fault::None, filling_script);
    let (code, events, sb) = super::online::run_online(
        &server,
        &[("DRA_STREAMING", "false"), ("DRA_EXEC_WORKSPACE_MB", "20")],
    );
    let summary = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::ToolResult {
                tool, ok, summary, ..
            } if tool == "execute" => Some((*ok, summary.clone())),
            _ => None,
        })
        .expect("an execute result");
    assert!(
        !summary.0 && summary.1.ends_with("stopped at the workspace quota"),
        "{summary:?}"
    );
    let run = sb.run_dir();
    let used = dra::sandbox::bwrap::workspace_usage(&run.join("workspace"));
    assert!(used < 150 * 1024 * 1024, "{used} bytes in the workspace");
    let bodies = server.request_bodies();
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("grew past its quota of 20 MiB (DRA_EXEC_WORKSPACE_MB)")),
        "the model was not told"
    );
    assert_eq!(code, Some(0), "{events:#?}");
    assert!(last_status(&events).is_some(), "{events:#?}");
    assert!(run.join("report.md").exists());
}

/// The runs dir on a 48 MiB tmpfs, in a mount namespace of its own (made
/// for the test, with `unshare`): the sandbox fills it, and the run still
/// writes its events to the end and its report, from the disk reserve.
#[test]
fn a_full_disk_does_not_cost_the_run_its_events_or_report() {
    let server = start_with(Fault::None, filling_script);
    let sb = super::common::TestHome::new();
    let out_dir = sb.dir.path().join("copied");
    std::fs::create_dir_all(sb.runs()).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let script = r#"mount -t tmpfs -o size=48m dra-test "$1" || exit 97
shift; out="$1"; shift
"$@" > "$out/stdout"; code=$?
cp -r "$(dirname "$out")/runs/." "$out/" ; exit $code"#;
    let mut cmd = std::process::Command::new("unshare");
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    cmd.args(if root {
        &["-m", "--propagation", "private"][..]
    } else {
        &["-rm", "--propagation", "private"][..]
    });
    sb.isolate(&mut cmd);
    cmd.env("OPENAI_API_KEY", super::online::ONLINE_KEY)
        .env("OPENAI_BASE_URL", &server.base)
        .env("DRA_STREAMING", "false")
        .env("DRA_EXEC_WORKSPACE_MB", "100000")
        .args(["sh", "-c", script, "sh"])
        .arg(sb.runs())
        .arg(&out_dir)
        .arg(env!("CARGO_BIN_EXE_dra"))
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--corpus"])
        .arg(super::common::repo_path(
            "src/corpus/embedded/padmapay.json",
        ))
        .arg(super::common::PADMAPAY_QUESTION);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(97), "no tmpfs: {stderr}");
    // The sandbox really met a full disk.
    let bodies = server.request_bodies();
    assert!(
        bodies.iter().any(|b| b.contains("No space left on device")),
        "the disk never filled: {stderr}"
    );
    let run = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no run dir copied: {stderr}"));
    let log = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
    let events = super::common::parse_events(log.split_once('\n').map_or("", |(_, rest)| rest));
    let status = last_status(&events);
    assert!(status.is_some(), "no terminal status: {stderr}");
    assert!(run.join("report.md").exists(), "no report: {stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{status:?}");
}
