//! Snapshot tests of what users read: the report of an offline run, the
//! human rows drawn for it, and `dra doctor`. A change to any of them shows
//! up in review as a changed `.snap` file under `tests/cli/snapshots/`
//! (accept with `INSTA_UPDATE=always cargo test` or `cargo insta review`).
//! Run ids, times, temporary paths and durations are filtered out; the
//! clock is pinned with `DRA_TODAY` and sub-researchers run one at a time,
//! so the rows come in one order.

use super::common::{PADMAPAY_QUESTION, TestHome};

/// Filters for what differs between two identical runs.
fn settings(sb: &TestHome) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    let home = regex::escape(&sb.dir.path().display().to_string());
    s.add_filter(&home, "[HOME]");
    s.add_filter(r"\d{8}T\d{6}Z-[0-9a-f]{8}", "[RUN]");
    s.add_filter(r"run [0-9a-f]{8}", "run [ID]");
    s.add_filter(r"v\d+\.\d+\.\d+", "v[VERSION]");
    // Which sandbox doctor finds depends on the machine (tests/cli/sandbox.rs checks it).
    s.add_filter(
        r"\] sandbox: [^\n]*(\n        fix: [^\n]*)?",
        "] sandbox: [THIS MACHINE'S SANDBOX]",
    );
    s
}

fn offline_run(sb: &TestHome) -> (String, String) {
    let out = sb
        .dra()
        .env("DRA_TODAY", "2026-12-01")
        .env("DRA_MAX_PARALLEL", "1")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!stderr.contains('\u{1b}'), "NO_COLOR rows carry no escapes");
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    (report, stderr)
}

#[test]
fn offline_report_and_rows() {
    let sb = TestHome::new();
    let (report, rows) = offline_run(&sb);
    settings(&sb).bind(|| {
        insta::assert_snapshot!("offline_report", report);
        insta::assert_snapshot!("offline_rows", rows);
    });
}

#[test]
fn doctor_on_a_fresh_machine() {
    let sb = TestHome::new();
    let out = sb.dra().arg("doctor").assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    settings(&sb).bind(|| insta::assert_snapshot!("doctor_fresh", stdout));
}
