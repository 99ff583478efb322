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

/// The lead's own turns before it researches as in the online session.
const LEAD_TURNS: usize = 3;

/// Drops the lead's first [`LEAD_TURNS`] turns (each an assistant message
/// and the tool results after it), so the rest of the session is the
/// online one.
fn without_lead_turns(body: &Value) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let mut seen = 0;
    let kept: Vec<Value> = messages
        .into_iter()
        .filter(|m| {
            if m["role"] == "assistant" {
                seen += 1;
            }
            let in_lead_turns = (1..=LEAD_TURNS).contains(&seen);
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
        Who::Lead => super::online::script(&without_lead_turns(body)),
        _ => super::online::script(body),
    }
}

#[test]
fn sandboxed_links_never_steer_dra_s_writes() {
    let host = host_dir();
    std::fs::create_dir_all(&host).unwrap();
    let sb = super::common::Sandbox::new();
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
