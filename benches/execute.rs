//! The per-call overhead of `execute` on bubblewrap: `print(1)` in Python
//! and `echo 1` in shell, 30 calls each, against the same interpreters run
//! directly (no sandbox). The difference is what the sandbox costs a call:
//! the probe of the sandbox user's tasks, bwrap's namespaces and mounts, the
//! drop to `nobody` as root.
//!
//!   cargo bench --bench execute            (or --profile dev: the cost is
//!                                           process start-up, not Rust code)
//!
//! Not a test: it measures and prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::time::{Duration, Instant};

use dra::sandbox::bwrap::Bwrap;
use dra::sandbox::{Language, Limits, Sandbox};

const CALLS: usize = 30;

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = v.iter().map(|d| ms(*d)).sum::<f64>() / v.len() as f64;
    format!(
        "median {:6.1} ms  p90 {:6.1} ms  mean {:6.1} ms  min {:6.1} ms",
        ms(v[v.len() / 2]),
        ms(v[v.len() * 9 / 10]),
        mean,
        ms(v[0])
    )
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let b = Bwrap::locate(&dir.path().join("workspace"), false)
        .unwrap_or_else(|u| panic!("{}: {}", u.why, u.fix));
    rt.block_on(b.probe())
        .unwrap_or_else(|u| panic!("{}: {}", u.why, u.fix));
    let limits = Limits::default();
    for (lang, code, direct) in [
        (
            Language::Python,
            "print(1)",
            ["/usr/bin/python3", "-c", "print(1)"],
        ),
        (Language::Shell, "echo 1", ["/usr/bin/sh", "-c", "echo 1"]),
    ] {
        let mut sandboxed = Vec::new();
        let mut plain = Vec::new();
        for _ in 0..CALLS {
            let t = Instant::now();
            let o = rt.block_on(b.run(code, lang, &limits)).unwrap();
            sandboxed.push(t.elapsed());
            assert_eq!(o.stdout, "1\n");
            let t = Instant::now();
            let out = std::process::Command::new(direct[0])
                .args(&direct[1..])
                .output()
                .unwrap();
            plain.push(t.elapsed());
            assert_eq!(out.stdout, b"1\n");
        }
        println!("{:<6} sandboxed: {}", lang.as_str(), stats(sandboxed));
        println!("{:<6} direct:    {}", lang.as_str(), stats(plain));
    }
}
