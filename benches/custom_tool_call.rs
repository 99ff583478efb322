//! The per-call overhead of a custom tool: a trivial `cat`-like tool
//! (`exec cat`) called 50 times through dra's runner (schema check, clean
//! environment, own process group, stdin/stdout/stderr pipes, timeout,
//! output decoding), against a bare spawn of the same script with its
//! input on stdin. Reports mean, median and p95 per call.
//!
//!   cargo bench --bench custom_tool_call            # release profile
//!   cargo bench --bench custom_tool_call --profile dev
//!
//! Not a test: it measures and prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dra::custom_tools;

const CALLS: usize = 50;

fn stats(name: &str, mut v: Vec<Duration>) {
    v.sort();
    let mean = v.iter().sum::<Duration>() / v.len() as u32;
    let p50 = v[v.len() / 2];
    let p95 = v[(v.len() * 95 / 100).min(v.len() - 1)];
    println!(
        "{name:<34} mean {mean:>9.2?}  p50 {p50:>9.2?}  p95 {p95:>9.2?}  ({} calls)",
        v.len()
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("echo_back.sh");
    std::fs::write(
        &tool,
        "#!/bin/sh\nif [ \"$1\" = \"--describe\" ]; then\n  echo '{\"name\": \"echo_back\", \"description\": \"Echoes its input.\", \"parameters\": {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}, \"required\": [\"text\"]}}'\n  exit 0\nfi\nexec cat\n",
    )
    .unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let described = rt.block_on(custom_tools::describe(tool.clone())).unwrap();
    println!("--describe of one tool: {:.2?}", started.elapsed());
    let args = serde_json::json!({"text": "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction."});
    let input = serde_json::to_vec(&args).unwrap();

    let mut bare = Vec::new();
    let mut wrapped = Vec::new();
    // Interleaved, so load on the machine falls on both alike.
    for _ in 0..CALLS {
        let t = Instant::now();
        let mut child = Command::new(&tool)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.stdout, input);
        bare.push(t.elapsed());

        let t = Instant::now();
        let text = rt.block_on(async {
            assert!(custom_tools::violations(&described.validator, &args).is_empty());
            let done = custom_tools::run_process(
                &described.file,
                &[],
                &input,
                dir.path(),
                Duration::from_secs(60),
                custom_tools::MAX_OUTPUT_BYTES,
            )
            .await
            .unwrap();
            custom_tools::output_text(&done.stdout, done.cut).unwrap()
        });
        assert!(text.contains("1.9%"));
        wrapped.push(t.elapsed());
    }
    stats("bare spawn + pipes (std)", bare);
    stats("dra custom tool runner", wrapped);
}
