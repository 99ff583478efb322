//! Durable runs: `dra resume` after a clarification (headless answers), after
//! a SIGKILL at seeded points, on torn files; replay from the run's own
//! records, proven by the scripted model server's request log.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dra::protocol::{Event, EventBody, StatusReason, StatusState};
use serde_json::{Value, json};

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events, repo_path};
use super::online::{self, Fault, ONLINE_KEY, Server, Who, text_of, who};

/// `dra` as a child process (so it can be killed), with the sandbox's
/// isolation and the scripted server's endpoint.
fn dra_cmd(sb: &TestHome, server: &Server) -> Command {
    let mut c = sb.std_dra();
    c.env("OPENAI_API_KEY", ONLINE_KEY)
        .env("OPENAI_BASE_URL", &server.base)
        .env("DRA_MAX_RETRIES", "0")
        .env("DRA_MAX_PARALLEL", "1")
        .env("DRA_TODAY", "2026-11-29")
        .env("DRA_MEMORY", "false")
        .arg("--runs-dir")
        .arg(sb.runs())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn ask_args(c: &mut Command) -> &mut Command {
    c.args(["--json", "ask", "--corpus"])
        .arg(repo_path("src/corpus/embedded/padmapay.json"))
        .arg(PADMAPAY_QUESTION)
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn finish(child: Child) -> Outcome {
    let out = child.wait_with_output().unwrap();
    Outcome {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(c: &mut Command) -> Outcome {
    finish(c.spawn().unwrap())
}

fn file_events(dir: &Path) -> Vec<Event> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    parse_events(&text.lines().skip(1).collect::<Vec<_>>().join("\n"))
}

fn terminal(events: &[Event]) -> Vec<(StatusState, Option<StatusReason>)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status(s) if s.state.is_terminal() => Some((s.state, s.reason)),
            _ => None,
        })
        .collect()
}

/// Request bodies the server saw more than once, with how often.
fn repeated(bodies: &[String]) -> Vec<(String, usize)> {
    let mut n: HashMap<&String, usize> = HashMap::new();
    for b in bodies {
        *n.entry(b).or_default() += 1;
    }
    n.into_iter()
        .filter(|(_, c)| *c > 1)
        .map(|(b, c)| (b.chars().take(200).collect(), c))
        .collect()
}

/// What an uninterrupted run produced.
struct Baseline {
    report: String,
    requests: usize,
    lines: usize,
    evidence: Evidence,
}

/// The run's sources (by URL) and accepted findings (field, quote, URL):
/// what parallel sub-researchers must reproduce, whatever order they ran in.
#[derive(Debug, PartialEq)]
struct Evidence {
    sources: std::collections::BTreeSet<String>,
    findings: std::collections::BTreeSet<(String, String, String)>,
}

fn evidence_of(dir: &Path) -> Evidence {
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let sources = read("sources.json")
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap().to_string())
        .collect();
    let findings = read("evidence.json")["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["accepted"] == true)
        .map(|i| {
            (
                i["claim"]["field"].as_str().unwrap_or("").to_string(),
                i["claim"]["value"].as_str().unwrap_or("").to_string(),
                i["source"]["url"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    Evidence { sources, findings }
}

/// An uninterrupted run with `parallel` sub-researchers at a time.
fn baseline(parallel: usize, script: online::Script) -> Baseline {
    let server = online::start_with(Fault::None, script);
    let sb = TestHome::new();
    let out = run(ask_args(
        dra_cmd(&sb, &server).env("DRA_MAX_PARALLEL", parallel.to_string()),
    ));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        repeated(&server.request_bodies()).is_empty(),
        "an uninterrupted run repeats no request"
    );
    let dir = sb.run_dir();
    let lines = std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .count();
    Baseline {
        report: std::fs::read_to_string(dir.join("report.md")).unwrap(),
        requests: server.count(),
        lines,
        evidence: evidence_of(&dir),
    }
}

/// Where a run is killed.
#[derive(Debug, Clone, Copy)]
enum Kill {
    /// While the server holds the nth model request (mid-call).
    DuringRequest(usize),
    /// As soon as events.jsonl has this many lines (between steps).
    AtEventLine(usize),
}

/// Kills a run at `kill`, resumes it, and checks it against the
/// uninterrupted run: with one sub-researcher at a time the report is
/// byte-identical; with more, the sources and findings are the same.
fn kill_then_resume(kill: Kill, parallel: usize, expected: &Baseline, script: online::Script) {
    let baseline_requests = expected.requests;
    let server = online::start_with(Fault::Slow, script);
    let sb = TestHome::new();
    if let Kill::DuringRequest(n) = kill {
        server.session.hang_at.store(n, Ordering::SeqCst);
    }
    let mut child = ask_args(dra_cmd(&sb, &server).env("DRA_MAX_PARALLEL", parallel.to_string()))
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "{kill:?}: kill point never reached"
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{kill:?}: the run ended ({status}) before the kill point");
        }
        let reached = match kill {
            Kill::DuringRequest(n) => server.count() >= n,
            Kill::AtEventLine(k) => std::fs::read_dir(sb.runs())
                .ok()
                .and_then(|mut d| d.next())
                .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("events.jsonl")).ok())
                .is_some_and(|t| t.lines().count() >= k),
        };
        if reached {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if matches!(kill, Kill::DuringRequest(_)) {
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    server.session.hang_at.store(0, Ordering::SeqCst);
    let dir = sb.run_dir();
    let before = file_events(&dir);
    assert!(
        terminal(&before).is_empty(),
        "{kill:?}: a killed run has no terminal status"
    );
    // A request the killed process had already written may still be read
    // by the server: wait until its count settles before taking it.
    let requests_before = settled_count(&server);

    let out = run(dra_cmd(&sb, &server)
        .env("DRA_MAX_PARALLEL", parallel.to_string())
        .args(["--json", "resume", "--last"]));
    assert_eq!(out.code, Some(0), "{kill:?}: {}", out.stderr);
    if parallel == 1 {
        let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert_eq!(
            report, expected.report,
            "{kill:?}: the resumed report differs from an uninterrupted run's"
        );
    } else {
        assert_eq!(
            evidence_of(&dir),
            expected.evidence,
            "{kill:?}: the resumed run's sources and findings differ"
        );
    }
    // No completed model call was made twice: only those in flight at the
    // kill (sent, but their answers never recorded) may repeat.
    let reps = repeated(&server.request_bodies());
    let allowed = parallel;
    assert!(
        reps.len() <= allowed && reps.iter().all(|(_, c)| *c == 2),
        "{kill:?}: repeated requests {reps:?}"
    );
    assert!(
        server.count() <= baseline_requests + allowed,
        "{kill:?}: {} requests in all, an uninterrupted run makes {baseline_requests}: {:?}",
        server.count(),
        server
            .request_bodies()
            .iter()
            .map(|b| {
                let v: Value = serde_json::from_str(b).unwrap_or_default();
                let turn = v["messages"]
                    .as_array()
                    .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
                let who = match who(&v) {
                    Who::Lead => "lead".to_string(),
                    Who::Sub(a) => format!("sub:{a}"),
                    Who::Extractor => "extractor".to_string(),
                };
                format!("{who}#{turn}")
            })
            .collect::<Vec<_>>()
    );
    assert!(server.count() >= requests_before);
    // One events.jsonl: seq strictly increasing, one run_resumed, one terminal status.
    let after = file_events(&dir);
    assert!(
        after.windows(2).all(|w| w[0].seq < w[1].seq),
        "{kill:?}: seq must increase"
    );
    assert_eq!(
        after
            .iter()
            .filter(|e| matches!(e.body, EventBody::RunResumed { .. }))
            .count(),
        1
    );
    assert_eq!(
        terminal(&after),
        vec![(StatusState::Done, Some(StatusReason::ReportDelivered))]
    );
    let stdout = parse_events(&out.stdout);
    assert!(
        matches!(
            stdout.first().map(|e| &e.body),
            Some(EventBody::RunResumed { .. })
        ),
        "{kill:?}: the resumed stream starts with run_resumed"
    );
    // The usage says how many calls came from the records: every call the
    // resumed invocation did not send to the server.
    let sent_now = (server.count() - requests_before) as u64;
    let (calls, replayed) = stdout
        .iter()
        .find_map(|e| match &e.body {
            EventBody::Usage {
                model_calls,
                replayed_calls,
                ..
            } => Some((*model_calls, *replayed_calls)),
            _ => None,
        })
        .expect("a usage event");
    assert_eq!(replayed, Some(calls - sent_now), "{kill:?}");

    // Resuming a finished run says so and calls nothing.
    let n = server.count();
    let again = run(dra_cmd(&sb, &server).args(["resume", "--last"]));
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(
        again.stderr.contains("already finished"),
        "{}",
        again.stderr
    );
    assert_eq!(server.count(), n);
}

#[test]
fn runs_killed_at_seeded_points_resume_to_the_same_report_without_repaying() {
    let expected = baseline(1, online::script);
    // The session: lead (plan), lead (tasks), sub-1 x2 + extractor, sub-2 x2
    // + extractor, lead (report). Killed during every model request, and
    // between steps at a dozen points spread over the first four fifths of
    // the event log (the last lines come in one burst after the last reply).
    let last_line = expected.lines * 4 / 5;
    let kills: Vec<Kill> = (1..=expected.requests)
        .map(Kill::DuringRequest)
        .chain((0..12).map(|i| Kill::AtEventLine(2 + i * (last_line - 2) / 11)))
        .collect();
    assert!(kills.len() >= 20, "{} kill points", kills.len());
    for kill in kills {
        kill_then_resume(kill, 1, &expected, online::script);
    }
}

/// Two sub-researchers at once: killed during every model request (so
/// also while the other one's request or fetch is in flight) and between
/// steps, each resumed run holds the same sources and findings.
#[test]
fn parallel_runs_killed_at_seeded_points_resume_with_the_same_evidence() {
    let expected = baseline(2, online::script);
    assert!(!expected.evidence.findings.is_empty());
    let last_line = expected.lines * 4 / 5;
    let kills: Vec<Kill> = (1..=expected.requests)
        .map(Kill::DuringRequest)
        .chain((0..6).map(|i| Kill::AtEventLine(2 + i * (last_line - 2) / 5)))
        .collect();
    for kill in kills {
        kill_then_resume(kill, 2, &expected, online::script);
    }
}

/// The usual session, but each sub-researcher reads both pages in one turn:
/// two fetches at once per agent, each followed by a claim extraction, and
/// the two agents race to be a page's first reader (who extracts it). The
/// order of these calls differs from one run to the next.
fn reads_both_pages(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let turn = body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
    match who(body) {
        Who::Sub(_) if turn == 0 => Ok(vec![
            ("fetch_url", json!({"url": online::PRICING_URL})),
            ("fetch_url", json!({"url": online::ABOUT_URL})),
        ]),
        _ => online::script(body),
    }
}

/// Three at once (more than the plan's aspects, so every sub-researcher
/// and its parallel claim extractions run side by side): whatever order
/// they ask in after the resume, completed calls are answered by their
/// digest, never sent again.
#[test]
fn three_parallel_sub_researchers_killed_at_seeded_points_repay_nothing() {
    let expected = baseline(3, reads_both_pages);
    let last_line = expected.lines * 4 / 5;
    let kills: Vec<Kill> = (1..=expected.requests)
        .map(Kill::DuringRequest)
        .chain((0..12).map(|i| Kill::AtEventLine(2 + i * (last_line - 2) / 11)))
        .collect();
    assert!(kills.len() >= 20, "{} kill points", kills.len());
    for kill in kills {
        kill_then_resume(kill, 3, &expected, reads_both_pages);
    }
}

/// The lead asks first; once answered, it researches as the usual session.
fn asking_script(body: &Value) -> Result<Vec<(&'static str, Value)>, String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if matches!(who(body), Who::Lead)
        && !text_of(&messages).contains("Answers to your clarifying questions")
    {
        return Ok(vec![(
            "request_clarification",
            json!({"questions": ["Which PadmaPay do you mean?", "Which timeframe matters?"]}),
        )]);
    }
    if matches!(who(body), Who::Lead) {
        // Drop the clarification turn so the usual script sees its own turns.
        let mut b = body.clone();
        let trimmed: Vec<Value> = messages
            .iter()
            .filter(|m| {
                !(m["role"] == "assistant"
                    && m["tool_calls"]
                        .to_string()
                        .contains("request_clarification"))
            })
            .cloned()
            .collect();
        b["messages"] = json!(trimmed);
        return online::script(&b);
    }
    online::script(body)
}

#[test]
fn a_run_that_asks_is_resumed_headless_with_answers() {
    let server = online::start_with(Fault::None, asking_script);
    let sb = TestHome::new();
    let out = run(ask_args(&mut dra_cmd(&sb, &server)));
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    let dir = sb.run_dir();
    let asked = server.count();
    assert_eq!(asked, 1);

    // No answers: told what to do, nothing called.
    let none = run(dra_cmd(&sb, &server).args(["resume", "--last"]));
    assert_eq!(none.code, Some(3), "still waiting: {}", none.stderr);
    assert!(
        none.stderr.contains("Which PadmaPay do you mean?") && none.stderr.contains("--answer"),
        "{}",
        none.stderr
    );
    assert_eq!(server.count(), asked);

    let id = dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .rsplit('-')
        .next()
        .unwrap()
        .to_string();
    let out = run(dra_cmd(&sb, &server).args([
        "--json",
        "resume",
        &id[..4],
        "--answer",
        "the Kochi payment gateway",
        "--answer",
        "",
    ]));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let bodies = server.request_bodies();
    assert!(
        repeated(&bodies).is_empty(),
        "the question was not asked twice: {:?}",
        repeated(&bodies)
    );
    assert!(
        bodies.iter().any(|b| b
            .contains("1. Q: Which PadmaPay do you mean? A: the Kochi payment gateway")
            && b.contains("2. Q: Which timeframe matters? A: no preference")),
        "the answers go back paired with their questions"
    );
    let events = file_events(&dir);
    assert!(events.iter().any(|e| matches!(&e.body, EventBody::ClarificationAnswered { answers, .. } if answers[0].answer == "the Kochi payment gateway")));
    assert_eq!(
        terminal(&events),
        vec![
            (StatusState::Done, Some(StatusReason::AwaitingClarification)),
            (StatusState::Done, Some(StatusReason::ReportDelivered))
        ]
    );
    let records = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    assert!(records.contains("\"kind\":\"clarification_answers\""));
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("1.9%"), "{report}");
}

#[test]
fn ask_with_an_answers_file_answers_the_first_clarification_without_stopping() {
    let server = online::start_with(Fault::None, asking_script);
    let sb = TestHome::new();
    let answers = sb.dir.path().join("answers.json");
    std::fs::write(&answers, r#"["PadmaPay of Kochi", "this year"]"#).unwrap();
    let out = run(ask_args(&mut dra_cmd(&sb, &server))
        .args(["--answers"])
        .arg(&answers));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let events = parse_events(&out.stdout);
    assert!(
        events
            .iter()
            .any(|e| matches!(e.body, EventBody::Clarification { .. }))
    );
    assert!(events.iter().any(|e| matches!(&e.body, EventBody::ClarificationAnswered { answers, .. } if answers.iter().map(|a| a.answer.as_str()).collect::<Vec<_>>() == ["PadmaPay of Kochi", "this year"])));
    assert_eq!(
        terminal(&events),
        vec![(StatusState::Done, Some(StatusReason::ReportDelivered))]
    );
}

fn offline_cmd(sb: &TestHome) -> assert_cmd::Command {
    let mut c = sb.dra();
    c.env("DRA_TODAY", "2026-11-29")
        .env("DRA_MAX_PARALLEL", "1")
        .env("DRA_MEMORY", "false")
        .arg("--runs-dir")
        .arg(sb.runs());
    c
}

#[test]
fn torn_files_recover_to_the_last_good_line_with_a_warning() {
    let sb = TestHome::new();
    let q = "Is PadmaPay a reliable payment gateway? Check pricing and leadership.";
    let first = offline_cmd(&sb).args(["ask", q]).assert();
    let expected_code = first.get_output().status.code();
    let dir = sb.run_dir();
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    // Make it look killed: drop the terminal events, tear the last lines.
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let lines: Vec<&str> = events.lines().collect();
    let keep = lines.len() / 2;
    let mut torn = lines[..keep].join("\n");
    torn.push_str("\n{\"seq\": 99, \"ty");
    std::fs::write(dir.join("events.jsonl"), torn).unwrap();
    let records = std::fs::read_to_string(dir.join("records.jsonl")).unwrap();
    let rl: Vec<&str> = records.lines().collect();
    let mut rtorn = rl[..rl.len() - 1].join("\n");
    rtorn.push_str("\nnot json at all\n");
    std::fs::write(dir.join("records.jsonl"), rtorn).unwrap();
    std::fs::remove_file(dir.join("report.md")).unwrap();

    let out = offline_cmd(&sb).args(["resume", "--last"]).assert();
    let o = out.get_output();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), expected_code, "{stderr}");
    assert!(
        stderr.contains("events.jsonl: line") && stderr.contains("torn"),
        "{stderr}"
    );
    assert!(
        stderr.contains("records.jsonl: line") && stderr.contains("not valid JSON"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
    assert_eq!(
        std::fs::read_to_string(dir.join("report.md")).unwrap(),
        report
    );
    let after = file_events(&dir);
    assert!(after.windows(2).all(|w| w[0].seq < w[1].seq));
    assert!(after.iter().any(
        |e| matches!(&e.body, EventBody::RunResumed { recovered, .. } if recovered.len() == 2)
    ));
}

#[test]
fn unknown_ambiguous_and_locked_runs_are_clear_errors() {
    let sb = TestHome::new();
    let e = offline_cmd(&sb).args(["resume", "nosuch"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(stderr.contains("no run matches \"nosuch\""), "{stderr}");
    for id in ["aa11", "aa22"] {
        let d: PathBuf = sb.runs().join(format!("20261201T000000Z-{id}0000"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("events.jsonl"), "").unwrap();
    }
    let e = offline_cmd(&sb).args(["resume", "aa"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(
        stderr.contains("matches 2 runs")
            && stderr.contains("aa110000")
            && stderr.contains("aa220000"),
        "{stderr}"
    );
    // A run held by another process is refused, naming it.
    let d = sb.runs().join("20261201T000000Z-aa110000");
    let _held = dra::store::checkpoint::RunLock::acquire(&d).unwrap();
    let e = offline_cmd(&sb).args(["resume", "aa11"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&e.get_output().stderr).into_owned();
    assert!(
        stderr.contains("in use by another dra process")
            && stderr.contains(&std::process::id().to_string()),
        "{stderr}"
    );
}

#[test]
fn resuming_a_paused_run_without_answers_shows_its_questions_again() {
    let sb = TestHome::new();
    offline_cmd(&sb)
        .args(["ask", "--no-input", "-q", "Is it reliable?"])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("Which company or product"))
        .stderr(predicates::str::contains("--answer \"...\""));
    let out = offline_cmd(&sb)
        .args(["--json", "resume", "--last"])
        .assert()
        .code(3);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let events = parse_events(&stdout);
    assert!(
        events.iter().any(|e| matches!(&e.body,
            EventBody::Clarification { questions } if questions[0].contains("Which company or product"))),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("dra resume ") && stderr.contains("--answer"),
        "{stderr}"
    );
}

/// The server's request count once no request has arrived for 200 ms (at
/// most 5 s): requests a killed client wrote are counted before it is read.
fn settled_count(server: &Server) -> usize {
    let mut last = server.count();
    for _ in 0..25 {
        std::thread::sleep(Duration::from_millis(200));
        let now = server.count();
        if now == last {
            break;
        }
        last = now;
    }
    last
}
