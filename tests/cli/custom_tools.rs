//! Drop-in custom tools, driven by the scripted model: a valid tool whose
//! result is cited, a schema violation (the tool never runs), a timeout
//! (its process group is killed), a crash, invalid output, a 2 MB output
//! and a 5 MB MCP result (both offloaded, the stub seen by the model and
//! read back with read_source), a tool whose --describe fails (a warning;
//! the run goes on) and a tool that dumps its environment (none of dra's
//! secrets in it). Everything stays on loopback.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use dra::protocol::{ErrorClass, EventBody};
use serde_json::{Value, json};

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events};
use super::online::{Fault, ONLINE_KEY, Who, start_with, text_of, who};

const PRICING_QUOTE: &str =
    "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.";
const BEARER: &str = "mcp-bearer-canary-7731";

fn tool(dir: &Path, file: &str, describe: Value, body: &str) {
    let path = dir.join(file);
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = \"--describe\" ]; then\ncat <<'JSON'\n{describe}\nJSON\nexit 0\nfi\n{body}\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn no_args(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description, "parameters": {"type": "object", "properties": {}}})
}

/// The toolbox: every kind of tool, plus files that are not tools.
fn toolbox(dir: &Path, marks: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    tool(
        dir,
        "kb_lookup.sh",
        json!({
            "name": "kb_lookup",
            "description": "Looks up PadmaPay merchant terms in the internal knowledge base.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
                "additionalProperties": false
            }
        }),
        &format!(
            "echo ran >> {}/kb_ran\ncat > /dev/null\necho \"Internal KB record 17 (PadmaPay merchant terms, 2026). {PRICING_QUOTE} Volume discounts apply above 1 crore a month.\"",
            marks.display()
        ),
    );
    tool(
        dir,
        "slow.sh",
        no_args("slow", "Never answers."),
        &format!(
            "sleep 300 &\necho $! > {}/slow_child.pid\nsleep 300",
            marks.display()
        ),
    );
    tool(
        dir,
        "crash.sh",
        no_args("crash", "Always crashes."),
        "echo 'starting up' >&2\necho '[transient] rate table locked' >&2\nexit 3",
    );
    tool(
        dir,
        "binary.sh",
        no_args("binary", "Prints bytes that are not text."),
        &format!(
            "echo ran >> {}/binary_ran\nprintf '\\377\\376\\000\\001'",
            marks.display()
        ),
    );
    tool(
        dir,
        "big.sh",
        no_args("big", "A 2 MB table of PadmaPay merchant fees."),
        "awk 'BEGIN { print \"date,merchant,fee\"; for (i = 0; i < 50000; i++) printf \"2026-01-%05d,PadmaPay merchant %06d,1.9%%\\n\", i, i }'",
    );
    tool(
        dir,
        "envdump.sh",
        no_args("envdump", "Prints its environment."),
        "env",
    );
    std::fs::write(
        dir.join("broken.sh"),
        "#!/bin/sh\necho 'this is not JSON'\n",
    )
    .unwrap();
    std::fs::set_permissions(
        dir.join("broken.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(dir.join("README.md"), "not a tool").unwrap();
    std::fs::write(dir.join("notes.txt"), "not executable").unwrap();
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The session: one sub-researcher calls every tool at once, reads the
/// offloaded results back by source number, and quotes the valid tool; the
/// lead cites what came back.
fn script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    let all = text_of(&messages);
    match who(body) {
        Who::Lead if !tool_names(body).iter().any(|n| n == "kb_lookup") => {
            Err(format!("kb_lookup not offered to the lead: {:?}", tool_names(body)))
        }
        Who::Lead => Ok(match turn {
            0 => vec![("write_todos", json!({"todos": [{"content": "pricing"}]}))],
            1 => vec![(
                "task",
                json!({"description": "Aspect: pricing\nEntity: PadmaPay\nFind the current fee."}),
            )],
            _ => super::online::report_citing_findings(&messages, "PadmaPay", "PadmaPay's current fee, from the internal knowledge base.")
        }),
        Who::Sub(_) => {
            let tools = tool_names(body);
            for t in ["kb_lookup", "slow", "crash", "binary", "big", "envdump", "kb__big"] {
                if !tools.iter().any(|n| n == t) {
                    return Err(format!("{t} not offered: {tools:?}"));
                }
            }
            let source_of = |prefix: &str| {
                regex::Regex::new(&format!(r"Source: \[(\d+)\] ({prefix}\S+)"))
                    .unwrap()
                    .captures(&all)
                    .map(|c| (c[1].parse::<u64>().unwrap_or(0), c[2].to_string()))
                    .unwrap_or_default()
            };
            Ok(match turn {
                0 => vec![
                    ("kb_lookup", json!({"query": "pricing"})),
                    ("kb_lookup", json!({"query": 5})),
                    ("slow", json!({})),
                    ("crash", json!({})),
                    ("binary", json!({})),
                    ("envdump", json!({})),
                    ("big", json!({})),
                    ("kb__big", json!({})),
                ],
                1 => vec![
                    // A permanent failure asked again: answered locally.
                    ("binary", json!({})),
                    (
                        "read_source",
                        json!({"source": source_of("tool://big/").0, "offset": 1_000_000}),
                    ),
                    (
                        "read_source",
                        json!({"source": source_of("mcp://kb/big/").0, "offset": 5_000_000}),
                    ),
                ],
                _ => {
                    let url = source_of("tool://kb_lookup/").1;
                    vec![(
                        "submit_findings",
                        json!({"summary": "pricing", "findings": [{"claim": PRICING_QUOTE, "quote": PRICING_QUOTE, "url": url, "field": "pricing"}], "gaps": []}),
                    )]
                }
            })
        }
        Who::Extractor => Err(json!({"claims": [{"field": "pricing", "value": "1.9%", "snippet": PRICING_QUOTE, "event_date": null}]}).to_string()),
    }
}

fn result<'a>(events: &'a [dra::protocol::Event], name: &str) -> Vec<&'a EventBody> {
    events
        .iter()
        .map(|e| &e.body)
        .filter(|b| matches!(b, EventBody::ToolResult { tool, .. } | EventBody::McpResult { tool, .. } if tool == name))
        .collect()
}

fn summary_of(b: &EventBody) -> (bool, String, Option<ErrorClass>) {
    match b {
        EventBody::ToolResult {
            ok,
            summary,
            error_class,
            ..
        }
        | EventBody::McpResult {
            ok,
            summary,
            error_class,
            ..
        } => (*ok, summary.clone(), *error_class),
        _ => unreachable!(),
    }
}

/// One scripted run over the whole toolbox and the MCP knowledge base,
/// with extra settings; returns the sandbox, the events and the requests
/// the model received.
fn run_toolbox(env: &[(&str, &str)]) -> (TestHome, Vec<dra::protocol::Event>, Vec<String>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let kb = rt.block_on(super::mcp::serve_kb());
    let sb = TestHome::new();
    let tools_dir = sb.dir.path().join("my_tools");
    let marks = sb.dir.path().join("marks");
    std::fs::create_dir_all(&marks).unwrap();
    toolbox(&tools_dir, &marks);
    let model = start_with(Fault::None, script);
    let mut cmd = sb.dra();
    cmd.env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", &model.base)
        .env("DRA_MCP_BEARER", BEARER)
        .env("DRA_CUSTOM_TOOLS_DIR", &tools_dir)
        .env("DRA_CUSTOM_TOOL_TIMEOUT", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--mcp"])
        .arg(format!("kb={kb}"))
        .arg(PADMAPAY_QUESTION)
        .timeout(Duration::from_secs(180))
        .assert();
    let output = out.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events = parse_events(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(output.status.code(), Some(0), "{stderr}\n{events:#?}");
    assert!(
        stderr.contains("only sources are the MCP servers kb and the custom tools in"),
        "{stderr}"
    );
    // A tool's stderr goes to the debug log, never the terminal.
    assert!(!stderr.contains("starting up"), "{stderr}");
    let bodies = model.request_bodies();
    (sb, events, bodies)
}

#[test]
fn a_run_calls_every_kind_of_custom_tool() {
    let (sb, events, bodies) = run_toolbox(&[]);
    let marks = sb.dir.path().join("marks");

    // The valid tool: run once, its result cited and verified.
    let lookups = result(&events, "kb_lookup");
    assert_eq!(lookups.len(), 2, "{events:#?}");
    // Called at once: in either order.
    let (valid, invalid) = match summary_of(lookups[0]).0 {
        true => (lookups[0], lookups[1]),
        false => (lookups[1], lookups[0]),
    };
    assert!(summary_of(valid).0, "{lookups:?}");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains(PRICING_QUOTE), "{report}");
    let lint = dra::report::citations::lint(&report, None);
    assert!(lint.is_empty(), "{lint:?}\n{report}");
    let sources: Vec<dra::report::SourceEntry> =
        serde_json::from_str(&std::fs::read_to_string(sb.run_dir().join("sources.json")).unwrap())
            .unwrap();
    let line = report.lines().find(|l| l.contains(PRICING_QUOTE)).unwrap();
    let n: usize = line
        .rsplit('[')
        .next()
        .unwrap()
        .trim_end_matches(']')
        .parse()
        .unwrap();
    assert!(
        sources[n - 1].url.starts_with("tool://kb_lookup/"),
        "{:?}",
        sources[n - 1]
    );

    // Wall time of the valid call inside the run (spawn, schema check,
    // storing and judging the result): printed, not asserted.
    let ts_of = |pred: &dyn Fn(&EventBody) -> bool| {
        events
            .iter()
            .find(|e| pred(&e.body))
            .map(|e| chrono::DateTime::parse_from_rfc3339(&e.ts).unwrap())
    };
    let id = match valid {
        EventBody::ToolResult { id, .. } => id.clone(),
        _ => unreachable!(),
    };
    let called = ts_of(&|b| matches!(b, EventBody::ToolCall { id: i, .. } if *i == id));
    let answered = ts_of(&|b| matches!(b, EventBody::ToolResult { id: i, .. } if *i == id));
    if let (Some(a), Some(b)) = (called, answered) {
        eprintln!(
            "custom tool call within a run: {} ms",
            (b - a).num_milliseconds()
        );
    }

    // The schema violation: a permanent error naming the path; not run.
    let (ok, summary, class) = summary_of(invalid);
    assert!(!ok);
    assert_eq!(class, Some(ErrorClass::Permanent));
    assert!(
        summary.contains("not run") && summary.contains("at /query"),
        "{summary}"
    );
    let ran = std::fs::read_to_string(marks.join("kb_ran")).unwrap();
    assert_eq!(ran.lines().count(), 1, "the tool ran on invalid arguments");

    // The timeout: transient, and the whole process group is gone.
    let (ok, summary, class) = summary_of(result(&events, "slow")[0]);
    assert!(!ok && class == Some(ErrorClass::Transient), "{summary}");
    assert!(summary.contains("DRA_CUSTOM_TOOL_TIMEOUT"), "{summary}");
    let pid = std::fs::read_to_string(marks.join("slow_child.pid")).unwrap();
    // Gone, or a zombie waiting for a reaper: never running (SIGKILL lands
    // asynchronously, so allow it a moment).
    let dead = || {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
        stat.is_empty() || stat.split_whitespace().nth(2) == Some("Z")
    };
    let mut tries = 0;
    while !dead() && tries < 50 {
        std::thread::sleep(Duration::from_millis(100));
        tries += 1;
    }
    assert!(dead(), "the timed-out tool's child {pid} survives");

    // The crash: its stderr tail, classed by its [transient] line.
    let (ok, summary, class) = summary_of(result(&events, "crash")[0]);
    assert!(!ok && class == Some(ErrorClass::Transient), "{summary}");
    assert!(summary.contains("exited with status 3"), "{summary}");
    assert!(
        bodies.iter().any(|b| b.contains("rate table locked")),
        "the model never saw the crash's stderr"
    );

    // Invalid output.
    let (ok, summary, class) = summary_of(result(&events, "binary")[0]);
    assert!(!ok && class == Some(ErrorClass::Permanent), "{summary}");
    assert!(summary.contains("invalid output"), "{summary}");
    // Asked again with the same arguments: answered locally, marked
    // repeated, and the tool did not run a second time.
    let again = result(&events, "binary");
    assert_eq!(again.len(), 2, "{again:?}");
    assert!(
        matches!(
            again[1],
            EventBody::ToolResult {
                ok: false,
                repeated: Some(true),
                ..
            }
        ),
        "{:?}",
        again[1]
    );
    let runs = std::fs::read_to_string(sb.dir.path().join("marks/binary_ran")).unwrap();
    assert_eq!(runs.lines().count(), 1, "the tool ran again");

    // The 2 MB output and the 5 MB MCP result: offloaded, stubs seen,
    // read back by source number, files whole in the workspace.
    let (ok, summary, _) = summary_of(result(&events, "big")[0]);
    assert!(
        ok && summary.contains("offloaded to /workspace/data/big-"),
        "{summary}"
    );
    let (ok, summary, _) = summary_of(result(&events, "kb__big")[0]);
    assert!(
        ok && summary.contains("offloaded to /workspace/data/kb__big-"),
        "{summary}"
    );
    let data = sb.run_dir().join("offload");
    let sizes: Vec<(String, u64)> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .collect();
    assert!(
        sizes
            .iter()
            .any(|(n, s)| n.starts_with("big-") && n.ends_with(".csv") && *s > 2_000_000),
        "{sizes:?}"
    );
    assert!(
        sizes
            .iter()
            .any(|(n, s)| n.starts_with("kb__big-") && n.ends_with(".tsv") && *s > 5_000_000),
        "{sizes:?}"
    );
    assert!(bodies.iter().any(|b| b.contains("Large result offloaded")
        && b.contains("Columns: date, merchant, fee")
        && b.contains("Rows: 50000")));
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("Columns: month, merchant, fee, note")
                && b.contains(&format!("Rows: {}", super::mcp::BIG_ROWS)))
    );
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("Characters: 1000000-1014000 of")),
        "read_source did not page the offloaded custom tool result"
    );
    assert!(
        bodies.iter().any(|b| b.contains("Characters: 5000000-")),
        "read_source did not page the offloaded MCP result"
    );
    // No request carries a whole large result.
    let largest = bodies.iter().map(String::len).max().unwrap_or(0);
    assert!(largest < 400_000, "a request of {largest} bytes");
    let reads: Vec<_> = result(&events, "read_source")
        .into_iter()
        .map(summary_of)
        .collect();
    assert!(reads.iter().all(|(ok, _, _)| *ok), "{reads:?}");

    // The broken tool: one warning naming the file and the fix.
    let warned = events.iter().any(|e| {
        matches!(&e.body, EventBody::Warning { message, .. }
        if message.contains("broken.sh") && message.contains("Fix:"))
    });
    assert!(warned, "{events:#?}");
    assert!(result(&events, "broken").is_empty());

    // The environment: the tool ran (PATH is there) and saw none of dra's
    // keys or settings.
    assert!(bodies.iter().any(|b| b.contains("PATH=")));
    for b in &bodies {
        for secret in [
            ONLINE_KEY,
            BEARER,
            "OPENAI_API_KEY=",
            "DRA_CUSTOM_TOOLS_DIR=",
        ] {
            assert!(!b.contains(secret), "{secret} reached a tool's output");
        }
    }
    for path in super::common::run_files(&sb.run_dir()) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            !text.contains(ONLINE_KEY),
            "model key in {}",
            path.display()
        );
        assert!(!text.contains(BEARER), "bearer in {}", path.display());
    }
}

#[test]
fn without_offloading_large_results_are_cut_and_said_to_be() {
    let (sb, events, bodies) = run_toolbox(&[
        ("DRA_OFFLOAD_RESULTS", "false"),
        ("DRA_MAX_RESULT_ROWS", "100"),
    ]);
    for tool in ["big", "kb__big"] {
        let (ok, summary, _) = summary_of(result(&events, tool)[0]);
        assert!(ok && summary.ends_with("(truncated)"), "{tool}: {summary}");
    }
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("Truncated result: it had") && b.contains("50000 rows")),
        "the model was not told the result was cut"
    );
    assert!(!sb.run_dir().join("offload").exists());
    // What is stored is the cut result: the header and 100 rows.
    let stored: Vec<String> = std::fs::read_dir(sb.run_dir().join("pages"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter(|t| t.starts_with("date,merchant,fee"))
        .collect();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].lines().count(), 101, "{}", &stored[0][..200]);
}

#[test]
fn doctor_lists_custom_tools_and_broken_ones() {
    let sb = TestHome::new();
    let dir = sb.dir.path().join("custom_tools");
    let marks = sb.dir.path().join("marks");
    toolbox(&dir, &marks);
    // The default folder, found in the working directory.
    let out = sb.dra().arg("doctor").assert();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &*String::from_utf8_lossy(&out.get_output().stderr);
    assert!(text.contains("6 tools, 1 left out"), "{text}");
    assert!(
        text.contains("kb_lookup")
            && text.contains("kb_lookup.sh")
            && text.contains("Looks up PadmaPay"),
        "{text}"
    );
    assert!(
        text.contains("broken.sh") && text.contains("did not print JSON"),
        "{text}"
    );
    // The folder's README is no tool.
    assert!(!text.contains("custom_tools/README.md"), "{text}");
}

#[test]
fn the_shipped_examples_describe_themselves_and_answer() {
    use dra::custom_tools;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = super::common::repo_path("custom_tools");
    let toolbox = rt.block_on(custom_tools::discover(&dir)).unwrap();
    let mut names: Vec<&str> = toolbox.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        vec!["fx_table", "word_count"],
        "{:?}",
        toolbox.broken
    );
    assert!(toolbox.broken.is_empty(), "{:?}", toolbox.broken);
    let fx = toolbox.tools.iter().find(|t| t.name == "fx_table").unwrap();
    let args = json!({"base": "INR", "quote": "USD", "from": "2026-05", "amount": 1000});
    assert!(custom_tools::violations(&fx.validator, &args).is_empty());
    assert!(
        !custom_tools::violations(&fx.validator, &json!({"base": "usd", "quote": "INR"}))
            .is_empty()
    );
    let tmp = tempfile::tempdir().unwrap();
    let done = rt
        .block_on(custom_tools::run_process(
            &fx.file,
            &[],
            args.to_string().as_bytes(),
            tmp.path(),
            Duration::from_secs(30),
            custom_tools::MAX_OUTPUT_BYTES,
        ))
        .unwrap();
    let text = custom_tools::output_text(&done.stdout, done.cut).unwrap();
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0]["month"], "2026-05");
    assert!(rows[0]["converted"].as_f64().unwrap() > 5.0);
    // An unknown pair: a permanent error naming the pairs there are.
    let err = rt
        .block_on(custom_tools::run_process(
            &fx.file,
            &[],
            br#"{"base": "JPY", "quote": "INR"}"#,
            tmp.path(),
            Duration::from_secs(30),
            custom_tools::MAX_OUTPUT_BYTES,
        ))
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("[permanent]") && message.contains("USD/INR"),
        "{message}"
    );
}
