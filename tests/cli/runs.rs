//! `dra runs`: listing (human and --json), torn files, and --prune.

use std::path::Path;

use super::common::TestHome;

fn fake_run(runs: &Path, name: &str, events: &str) {
    let d = runs.join(name);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("events.jsonl"), events).unwrap();
}

fn header(id: &str, q: &str, created: &str) -> String {
    format!(
        "{{\"type\":\"run_header\",\"protocol_version\":1,\"dra_version\":\"0\",\"run_id\":\"{id}\",\"question\":\"{q}\",\"created\":\"{created}\",\"settings\":{{}}}}\n"
    )
}

fn runs_json(sb: &TestHome, extra: &[&str]) -> (i32, serde_json::Value, String) {
    let out = sb
        .dra()
        .args(["--json", "--runs-dir"])
        .arg(sb.runs())
        .arg("runs")
        .args(extra)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `dra --runs-dir RUNS ARGS...` in this home.
fn dra_out(sb: &TestHome, args: &[&str]) -> std::process::Output {
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn lists_real_and_damaged_runs_newest_first() {
    let sb = TestHome::new();
    // A real run (asks, exit 3) and a real report.
    let st = dra_out(&sb, &["ask", "hi"]);
    assert_eq!(st.status.code(), Some(3));
    // Damaged runs, older than it.
    fake_run(
        &sb.runs(),
        "20200101T000000Z-0000000a",
        "{\"type\":\"run_he",
    );
    fake_run(
        &sb.runs(),
        "20200102T000000Z-0000000b",
        &format!(
            "{}{{\"seq\":1,\"type\":\"status\",\"state\":\"done\",\"reason\":\"report_delivered\"}}\n{{\"seq\":2,\"ty",
            header("0000000b", "Who runs Acme?", "2020-01-02T00:00:00Z")
        ),
    );
    fake_run(
        &sb.runs(),
        "20200103T000000Z-0000000c",
        &header("0000000c", "Still going?", "2020-01-03T00:00:00Z"),
    );
    std::fs::create_dir_all(sb.runs().join("20200104T000000Z-0000000d")).unwrap();
    std::fs::write(
        sb.runs()
            .join("20200104T000000Z-0000000d")
            .join("events.jsonl"),
        [0xff, 0xfe, 0x00],
    )
    .unwrap();
    std::fs::create_dir_all(sb.runs().join("not-a-run")).unwrap();

    let (code, v, err) = runs_json(&sb, &[]);
    assert_eq!(code, 0, "{err}");
    let rows = v.as_array().expect("an array");
    assert_eq!(rows.len(), 5, "{v:#}");
    let states: Vec<&str> = rows.iter().map(|r| r["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["done", "unknown", "incomplete", "done", "unknown"]);
    assert_eq!(rows[0]["reason"], "awaiting_clarification");
    assert_eq!(rows[0]["question"], "hi");
    assert!(rows[0]["report"].as_str().unwrap().ends_with("report.md"));
    assert_eq!(rows[0]["sources"], 0);
    assert_eq!(rows[3]["id"], "0000000b");
    assert_eq!(rows[3]["question"], "Who runs Acme?");

    // The human table has the same rows.
    let out = dra_out(&sb, &["runs"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("ID"), "{text}");
    // A paused run is waiting, not done.
    assert!(text.contains("waiting for answers"), "{text}");
    assert!(text.contains("Who runs Acme?"), "{text}");
    assert_eq!(text.lines().count(), 6, "{text}");

    // The paused run in full: its question, what it waits on, how to go on.
    let id = rows[0]["id"].as_str().unwrap();
    let out = dra_out(&sb, &["runs", &id[..4]]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("question: hi")
            && text.contains("state: waiting for answers")
            && text.contains("  ? ")
            && text.contains(&format!("next: dra resume {id} --answer")),
        "{text}"
    );
    // A damaged run is still shown, as unknown; a spec matching none is a
    // usage error naming the runs dir.
    let out = dra_out(&sb, &["runs", "0000000d"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("state: unknown"));
    let out = dra_out(&sb, &["runs", "ffff"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn prune_lists_asks_and_removes_only_old_runs() {
    let sb = TestHome::new();
    let old = "20200101T000000Z-0000000a";
    fake_run(
        &sb.runs(),
        old,
        &header("0000000a", "old", "2020-01-01T00:00:00Z"),
    );
    let now = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let new = format!("{now}-0000000b");
    fake_run(
        &sb.runs(),
        &new,
        &header("0000000b", "new", "2026-01-01T00:00:00Z"),
    );
    std::fs::create_dir_all(sb.runs().join("my-notes")).unwrap();

    // No terminal and no --yes: refused, nothing deleted.
    let out = dra_out(&sb, &["runs", "--prune", "30d"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--yes"), "{err}");
    assert!(err.contains(old), "lists what it would delete: {err}");
    assert!(sb.runs().join(old).exists());

    // A bad age is a usage error.
    let (code, _, err) = runs_json(&sb, &["--prune", "soon", "--yes"]);
    assert_eq!(code, 2, "{err}");

    let (code, v, err) = runs_json(&sb, &["--prune", "30d", "--yes"]);
    assert_eq!(code, 0, "{err}");
    let deleted = v["deleted"].as_array().unwrap();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0]["id"], "0000000a");
    assert!(!sb.runs().join(old).exists());
    assert!(sb.runs().join(&new).exists());
    assert!(sb.runs().join("my-notes").exists());
}

#[test]
fn prune_skips_a_run_a_live_dra_holds() {
    let sb = TestHome::new();
    let held = "20200101T000000Z-0000000c";
    let free = "20200101T000000Z-0000000d";
    for (name, id) in [(held, "0000000c"), (free, "0000000d")] {
        fake_run(&sb.runs(), name, &header(id, "old", "2020-01-01T00:00:00Z"));
    }
    // As a `dra resume` in progress holds it.
    let lock = dra::store::checkpoint::RunLock::acquire(&sb.runs().join(held)).unwrap();
    let (code, v, err) = runs_json(&sb, &["--prune", "30d", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["deleted"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["deleted"][0]["id"], "0000000d");
    assert_eq!(v["skipped"][0]["id"], "0000000c", "{v}");
    assert!(
        err.contains(&format!("skipped {}", sb.runs().join(held).display()))
            && err.contains(&format!("pid {}", std::process::id())),
        "{err}"
    );
    assert!(sb.runs().join(held).join("events.jsonl").exists());
    assert!(!sb.runs().join(free).exists());
    // Released: the next prune takes it.
    drop(lock);
    let (code, v, err) = runs_json(&sb, &["--prune", "30d", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["deleted"][0]["id"], "0000000c", "{v}");
    assert!(!sb.runs().join(held).exists());
}
