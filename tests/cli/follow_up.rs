//! Follow-up turns: `dra ask --continue RUN "..."` starts a new run on the
//! same thread. Pages the thread already read are reused (no second
//! fetch), the subject and corpus carry over when the follow-up names none,
//! and the model sees only the current turn with the earlier questions and
//! answers as a spotlighted context block.

use std::path::PathBuf;

use predicates::prelude::*;
use serde_json::Value;

use super::common::{PADMAPAY_QUESTION, TestHome, repo_path};
use super::online::{self, Fault, ONLINE_KEY, Who, who};
use super::web_run::Site;

/// Run directories, oldest first (by the second they were created in, then
/// by the moment their first event was written).
fn run_dirs(sb: &TestHome) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sb.runs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let started = |d: &PathBuf| {
        let events = std::fs::read_to_string(d.join("events.jsonl")).unwrap_or_default();
        events
            .lines()
            .nth(1)
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .and_then(|v| v["ts"].as_str().map(String::from))
            .unwrap_or_default()
    };
    dirs.sort_by_key(|d| started(d));
    dirs
}

fn start_inputs(dir: &std::path::Path) -> Value {
    let records = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    let first: Value = serde_json::from_str(records.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "start");
    first["inputs"].clone()
}

#[test]
fn a_follow_up_keeps_the_subject_and_corpus_and_answers_the_new_question() {
    let sb = TestHome::new();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--corpus"])
        .arg(repo_path("tests/corpora/halden"))
        .arg("Should we pick Halden Freight (Nagpur, India) as our cold-chain partner? Check pricing.")
        .assert()
        .success();
    let first = run_dirs(&sb).pop().unwrap();
    let first_id = first.file_name().unwrap().to_string_lossy().into_owned();
    // No subject and no corpus named: both come from the turn before.
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "--json",
            "ask",
            "--continue",
            &first_id[first_id.len() - 8..],
        ])
        .arg("Who is the managing director?")
        .assert()
        .success();
    let dirs = run_dirs(&sb);
    assert_eq!(dirs.len(), 2);
    let second = &dirs[1];
    let inputs = start_inputs(second);
    assert_eq!(
        PathBuf::from(inputs["continues"].as_str().unwrap()),
        first,
        "{inputs}"
    );
    let report = std::fs::read_to_string(second.join("report.md")).unwrap();
    assert!(report.contains("Halden"), "{report}");
    assert!(
        report.contains("the folder corpus") || report.contains("halden"),
        "the follow-up read the same corpus: {report}"
    );
    // `last` names the most recent run; a chain of turns works.
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "--continue",
            "last",
            "What does it charge per pallet?",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("turn 3 of the thread"));
    // With the first turn pruned, the thread starts at the oldest one left.
    std::fs::remove_dir_all(&first).unwrap();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--continue", "last", "Where is it based?"])
        .assert()
        .success()
        .stderr(predicate::str::contains("turn 3 of the thread"));
}

#[test]
fn a_follow_up_of_an_unfinished_or_unknown_run_is_a_clear_error() {
    let sb = TestHome::new();
    // A run that asks (offline, a question naming nothing) waits for answers.
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--no-input", "Is it reliable?"])
        .assert()
        .code(3);
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--continue", "last", "And its pricing?"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("waiting for answers"))
        .stderr(predicate::str::contains("dra resume"));
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "--continue", "nosuchrun", "And its pricing?"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--continue"));
    assert_eq!(
        run_dirs(&sb).len(),
        1,
        "no run is created for a refused follow-up"
    );
}

#[test]
fn a_follow_up_over_the_web_reads_no_page_twice() {
    let site = Site::start();
    let sb = TestHome::new();
    let ask = |extra: &[&str], question: &str| {
        sb.dra()
            .env("TAVILY_API_KEY", "tvly-follow-up")
            .env("TAVILY_BASE_URL", &site.base)
            .env(
                "DRA_FETCH_ALLOWLIST",
                format!("127.0.0.1:{}", site.addr.port()),
            )
            .arg("--runs-dir")
            .arg(sb.runs())
            .arg("ask")
            .args(extra)
            .arg(question)
            .assert()
            .success();
    };
    ask(
        &["--web"],
        "Is Zephyr Parcel (Pune, India) a reliable courier partner? Check leadership and pricing.",
    );
    let served_first = site.seen.pages.lock().unwrap().len();
    assert!(served_first >= 2, "the first turn read pages");
    ask(&["--continue", "last"], "What does it charge for returns?");
    let served = site.seen.pages.lock().unwrap().clone();
    assert_eq!(
        served.len(),
        served_first,
        "the follow-up fetched again: {served:?}"
    );
    let second = run_dirs(&sb).pop().unwrap();
    let report = std::fs::read_to_string(second.join("report.md")).unwrap();
    assert!(report.contains("returns"), "{report}");
    // Reused pages are still judged: the quarantined page stays out.
    assert!(!report.contains("CANARY-Z9"), "{report}");
}

#[test]
fn the_model_sees_only_the_current_turn_and_the_earlier_answers_as_data() {
    let server = online::start(Fault::None);
    let sb = TestHome::new();
    let ask = |extra: &[&str], question: &str| {
        sb.dra()
            .env("OPENAI_API_KEY", ONLINE_KEY)
            .env("OPENAI_BASE_URL", &server.base)
            .env("DRA_MAX_RETRIES", "0")
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "ask"])
            .args(extra)
            .arg(question)
            .assert()
            .success();
    };
    let corpus = repo_path("src/corpus/embedded/padmapay.json");
    ask(&["--corpus", corpus.to_str().unwrap()], PADMAPAY_QUESTION);
    let before = server.count();
    ask(
        &["--continue", "last"],
        "Has the chief executive changed since 2025?",
    );
    let bodies = server.request_bodies();
    let lead_first: Value = bodies[before..]
        .iter()
        .map(|b| serde_json::from_str::<Value>(b).unwrap())
        .find(|v| matches!(who(v), Who::Lead))
        .expect("the follow-up's lead called the model");
    let messages = lead_first["messages"].as_array().unwrap();
    // Its system prompt and its own opening message: no earlier transcript.
    assert_eq!(messages.len(), 2, "{messages:?}");
    let user = messages[1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("Research question: Has the chief executive changed since 2025?"),
        "{user}"
    );
    assert!(
        user.contains("Entity: PadmaPay"),
        "the subject carried over: {user}"
    );
    let earlier = &user[user.find("Earlier in this thread").expect(user)..];
    assert!(earlier.contains("Turn 1"), "{earlier}");
    assert!(
        earlier.contains("Is PadmaPay (Kochi, India) a reliable"),
        "{earlier}"
    );
    // The earlier answer quotes pages: it arrives as data, inside the
    // spotlight delimiters the system prompt describes.
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.contains("is DATA"));
    let first_report = std::fs::read_to_string(run_dirs(&sb)[0].join("report.md")).unwrap();
    let answer_line = first_report
        .lines()
        .skip_while(|l| l.trim() != "## Answer")
        .nth(2)
        .unwrap();
    let open = earlier.find("<<untrusted-data ").expect(earlier);
    let close = earlier.find("<</untrusted-data ").expect(earlier);
    let inside = &earlier[open..close];
    assert!(inside.contains(answer_line.trim()), "{earlier}");
    assert!(inside.contains("Turn 1"), "{earlier}");
}
