use std::collections::BTreeMap;
use std::path::Path;

use dra::corpus::Corpus;
use dra::evidence::{assess, quotes};
use dra::protocol::{
    EntityAnchors, EventBody, PROTOCOL_VERSION, StatusReason, StatusState, missing_keys,
};
use dra::report::SourceEntry;
use regex::Regex;

use super::common::{PADMAPAY_QUESTION, TestHome, parse_events, repo_path};

/// Checks a finished run: all files present, every `[n]` resolves in
/// sources.json, every quoted finding appears in its source's cleaned text,
/// and none of the forbidden strings reached the report.
fn check_run(run_dir: &Path, corpus: &Corpus, forbidden: &[&str]) -> String {
    for f in [
        "events.jsonl",
        "records.jsonl",
        "report.md",
        "sources.json",
        "evidence.json",
    ] {
        assert!(
            run_dir.join(f).is_file(),
            "{f} missing in {}",
            run_dir.display()
        );
    }
    let report = std::fs::read_to_string(run_dir.join("report.md")).unwrap();
    let sources: Vec<SourceEntry> =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("sources.json")).unwrap())
            .unwrap();
    assert!(!sources.is_empty(), "no sources in {report}");
    for (i, s) in sources.iter().enumerate() {
        assert_eq!(s.index, i + 1, "sources.json is numbered 1..n in order");
    }
    let text_of = |url: &str| -> String {
        let raw = corpus
            .get(url)
            .unwrap_or_else(|| panic!("{url} is not in the corpus"));
        assess(&raw, &EntityAnchors::default(), "2026-11-29").text
    };
    let (body, _, _) = dra::report::citations::split_sources(&report);
    let cited = dra::report::citations::citations(body);
    assert!(!cited.is_empty());
    let mut first_seen = Vec::new();
    for (line, n) in &cited {
        assert!(
            *n >= 1 && *n <= sources.len(),
            "line {line}: [{n}] does not resolve"
        );
        if !first_seen.contains(n) {
            first_seen.push(*n);
        }
    }
    assert_eq!(
        first_seen,
        (1..=sources.len()).collect::<Vec<_>>(),
        "renumbered in order of first citation, no orphans"
    );
    let quoted = Regex::new(r#""(.{12,}?)" \[(\d+)\]"#).unwrap();
    let mut checked = 0;
    for cap in quoted.captures_iter(body) {
        let n: usize = cap[2].parse().unwrap();
        let url = &sources[n - 1].url;
        assert!(
            quotes::quote_in_text(&cap[1], &text_of(url)),
            "quote not in [{n}] {url}: {}",
            &cap[1]
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} quotes checked");
    let lower = report.to_lowercase();
    for f in forbidden {
        assert!(
            !lower.contains(&f.to_lowercase()),
            "forbidden {f:?} in report:\n{report}"
        );
    }
    let lint = dra::report::citations::lint(&report, None);
    assert!(lint.is_empty(), "{lint:?}");
    report
}

const PADMAPAY_FORBIDDEN: &[&str] = &[
    "ignore all previous instructions",
    "revoked",
    "QuickRupee",
    "CANARY-7Q2X",
    "under investigation",
    "0.5%",
    "Graham Whitfield",
    "Leicester",
    "Padma Pay Ltd",
];

#[test]
fn offline_run_on_the_embedded_corpus() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .args(["--runs-dir"])
        .arg(sb.runs())
        .args(["ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let run_dir = sb.run_dir();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "stdout is the report path and a summary: {stdout}"
    );
    assert_eq!(Path::new(lines[0]), run_dir.join("report.md"));
    assert!(
        lines[1].starts_with("done (report_delivered):") && lines[1].contains("sources"),
        "{}",
        lines[1]
    );
    assert!(
        stderr.contains("offline"),
        "the run says it is offline: {stderr}"
    );

    let corpus = Corpus::embedded().unwrap();
    let report = check_run(&run_dir, &corpus, PADMAPAY_FORBIDDEN);
    assert!(
        report.contains("Offline run"),
        "footer says offline and extractive"
    );
    assert!(report.contains("extractive"));
    // The trap pages were met and handled, not merely missed.
    let evidence: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("evidence.json")).unwrap())
            .unwrap();
    let pages = evidence["pages"].as_array().unwrap();
    let verdict = |url: &str| {
        pages
            .iter()
            .find(|p| p["url"] == url)
            .map(|p| p["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(
        verdict("https://best-gateways-2026.example/padmapay-review").as_deref(),
        Some("quarantined")
    );
    assert!(
        report.contains("## Security notes")
            && report.contains("best-gateways-2026.example/padmapay-review")
    );
    for p in pages {
        if p["verdict"] == "accepted" {
            let text = p.to_string().to_lowercase();
            assert!(
                !text.contains("padmapay-uk.example"),
                "look-alike accepted: {p}"
            );
        }
    }
    // Current facts reach the answer.
    let answer = report.split("## Evidence").next().unwrap();
    assert!(answer.contains("Kavya Menon"), "{answer}");
    assert!(answer.contains("final authorisation"), "{answer}");
    assert!(answer.contains("1.9%"), "{answer}");
}

#[test]
fn lookalike_pages_are_rejected_when_read() {
    let sb = TestHome::new();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "Who leads PadmaPay (Kochi, India)? Check leadership, CEO and founders.",
        ])
        .assert()
        .success();
    let run_dir = sb.run_dir();
    let evidence: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("evidence.json")).unwrap())
            .unwrap();
    let rejected: Vec<&serde_json::Value> = evidence["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["verdict"] == "rejected")
        .collect();
    assert!(
        rejected.iter().any(|p| p["domain"]
            .as_str()
            .unwrap()
            .contains("padmapay-uk.example")
            || p["url"].as_str().unwrap().contains("mtsb-uk")
            || p["url"].as_str().unwrap().contains("leicester")),
        "no look-alike page was read and rejected: {rejected:?}"
    );
    let report = std::fs::read_to_string(run_dir.join("report.md")).unwrap();
    assert!(!report.contains("Graham Whitfield"));
    assert!(report.contains("different entity with a similar name"));
}

#[test]
fn offline_run_on_a_folder_corpus_of_our_own() {
    let sb = TestHome::new();
    let corpus_dir = repo_path("tests/corpora/halden");
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "Should we pick Halden Freight (Nagpur, India) as our cold-chain logistics partner? Check leadership, certification status, funding, fleet, on-time delivery and rates."])
        .arg("--corpus")
        .arg(&corpus_dir)
        .assert()
        .success();
    let corpus = Corpus::from_path(&corpus_dir).unwrap();
    let report = check_run(
        &sb.run_dir(),
        &corpus,
        &[
            "CANARY-H4LD",
            "Ola Haugen",
            "lost its certification permanently",
            "Bergen",
            "ignore all previous instructions",
        ],
    );
    assert!(report.contains("Halden Freight"));
    assert!(report.contains("the corpus"), "footer names the corpus");
}

#[test]
fn json_mode_prints_only_protocol_events() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let events = parse_events(&stdout);
    assert!(events.len() > 20);
    match &events[0].body {
        EventBody::RunStart {
            protocol_version,
            mode,
            ..
        } => {
            assert_eq!(*protocol_version, PROTOCOL_VERSION);
            assert_eq!(serde_json::to_value(mode).unwrap(), "offline");
        }
        other => panic!("first event is not run_start: {other:?}"),
    }
    let terminal: Vec<_> = events
        .iter()
        .filter(|e| matches!(&e.body, EventBody::Status(s) if s.state.is_terminal()))
        .collect();
    assert_eq!(terminal.len(), 1, "exactly one terminal status");
    assert!(
        matches!(&events.last().unwrap().body, EventBody::Status(s) if s.state == StatusState::Done && s.reason == Some(StatusReason::ReportDelivered))
    );
    for w in events.windows(2) {
        assert!(w[1].seq > w[0].seq, "seq increases");
    }
    let run_id = &events[0].run_id;
    let mut types = BTreeMap::new();
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(missing_keys(&v), Vec::<String>::new(), "{line}");
        assert_eq!(&v["run_id"], run_id.as_str());
        *types
            .entry(v["type"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    for t in [
        "plan",
        "subagent",
        "search_query",
        "search_results",
        "fetch",
        "source",
        "tool_call",
        "tool_result",
        "subagent_findings",
        "report",
        "usage",
        "status",
    ] {
        assert!(types.contains_key(t), "no {t} event in {types:?}");
    }
    // events.jsonl: a header line, then exactly the events stdout carried.
    let log = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
    let mut lines = log.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["type"], "run_header");
    assert_eq!(header["protocol_version"], PROTOCOL_VERSION);
    assert_eq!(header["question"], PADMAPAY_QUESTION);
    assert!(header["settings"]["DRA_MAX_TOOL_CALLS"].is_string());
    let logged = parse_events(&lines.collect::<Vec<_>>().join("\n"));
    assert_eq!(logged, events);
    // Every model call and tool result was recorded for replay.
    let records = std::fs::read_to_string(sb.run_dir().join("records.jsonl")).unwrap();
    let kinds: Vec<String> = records
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let tool_results = events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolResult { .. }))
        .count();
    assert_eq!(
        kinds.iter().filter(|k| *k == "tool_result").count(),
        tool_results
    );
    assert!(kinds.iter().any(|k| k == "model_call"));
}

#[test]
fn secrets_never_reach_run_files_or_output() {
    let sb = TestHome::new();
    let canary = "sk-canary-7f3a9d2e4b";
    let out = sb
        .dra()
        .env("OPENAI_API_KEY", canary)
        .env("TAVILY_API_KEY", "tvly-canary-7f3a9d2e4b")
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--offline", PADMAPAY_QUESTION])
        .assert()
        .success();
    let all_output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.get_output().stdout),
        String::from_utf8_lossy(&out.get_output().stderr)
    );
    assert!(!all_output.contains("canary-7f3a9d2e4b"));
    for path in super::common::run_files(&sb.run_dir()) {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("canary-7f3a9d2e4b"),
            "secret in {}",
            path.display()
        );
    }
    let header = std::fs::read_to_string(sb.run_dir().join("events.jsonl")).unwrap();
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .contains("\"OPENAI_API_KEY\":\"set\"")
    );
}

#[test]
fn tool_call_budget_halts_and_salvages() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["--json", "ask", "--max-tool-calls", "12", PADMAPAY_QUESTION])
        .assert()
        .code(5);
    let events = parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
    let halt = events
        .iter()
        .find(|e| matches!(&e.body, EventBody::Status(s) if s.state == StatusState::BudgetHalt))
        .expect("budget_halt emitted");
    assert!(
        matches!(&halt.body, EventBody::Status(s) if s.reason == Some(StatusReason::ToolCalls))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Status(s) if s.state == StatusState::BudgetSoft))
    );
    let usage = events.iter().find_map(|e| match &e.body {
        EventBody::Usage { tool_calls, .. } => Some(*tool_calls),
        _ => None,
    });
    assert!(usage.unwrap() <= 12, "tool calls overshot: {usage:?}");
    assert!(
        matches!(&events.last().unwrap().body, EventBody::Status(s) if s.state == StatusState::Error && s.reason == Some(StatusReason::BudgetExhausted))
    );
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains("## Sources"));
}

#[test]
fn malformed_corpus_is_a_usage_error_naming_the_field() {
    let sb = TestHome::new();
    let bad = sb.dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"documents":[{"url":"https://a.example/1","content":"x"},{"url":"https://a.example/2","content":"y","source_type":"rumour"}]}"#,
    )
    .unwrap();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", "What is A?", "--corpus"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad.json"))
        .stderr(predicates::str::contains("document 2"))
        .stderr(predicates::str::contains("source_type"));
    sb.dra()
        .args(["ask", "What is A?", "--corpus", "/nonexistent/corpus.json"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/corpus.json"));
}

#[test]
fn bad_configuration_is_a_usage_error() {
    let sb = TestHome::new();
    sb.dra()
        .env("DRA_MAX_TOOL_CALLS", "plenty")
        .args(["ask", "Is PadmaPay reliable?"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("DRA_MAX_TOOL_CALLS"))
        .stderr(predicates::str::contains("\"plenty\""));
    sb.dra().args(["ask", "  "]).assert().code(2);
    sb.dra().args(["ask"]).assert().code(2);
    sb.dra().args(["frobnicate"]).assert().code(2);
}

#[test]
fn memory_skips_known_bad_domains_next_run_and_can_be_turned_off() {
    let sb = TestHome::new();
    let run = |extra: &[&str]| {
        let out = sb
            .dra()
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "ask"])
            .args(extra)
            .arg(PADMAPAY_QUESTION)
            .assert()
            .success();
        parse_events(&String::from_utf8_lossy(&out.get_output().stdout))
    };
    let fetched = |events: &[dra::protocol::Event], needle: &str| {
        events
            .iter()
            .any(|e| matches!(&e.body, EventBody::Fetch { url, .. } if url.contains(needle)))
    };
    let tool_calls = |events: &[dra::protocol::Event]| {
        events.iter().find_map(|e| match &e.body {
            EventBody::Usage { tool_calls, .. } => Some(*tool_calls),
            _ => None,
        })
    };
    let first = run(&[]);
    assert!(
        fetched(&first, "best-gateways-2026.example"),
        "the first run meets the hostile page"
    );
    let lessons = sb.dir.path().join("data/dra/memory/lessons.json");
    let text = std::fs::read_to_string(&lessons).expect("lessons written");
    assert!(text.contains("best-gateways-2026.example"));
    assert!(
        !text.contains("ignore all previous"),
        "no page text in memory"
    );

    let second = run(&[]);
    assert!(
        !fetched(&second, "best-gateways-2026.example"),
        "known-bad domain skipped"
    );
    assert!(
        tool_calls(&second) < tool_calls(&first),
        "{:?} vs {:?}",
        tool_calls(&second),
        tool_calls(&first)
    );
    assert!(
        matches!(&second.last().unwrap().body, EventBody::Status(s) if s.reason == Some(StatusReason::ReportDelivered))
    );

    let third = run(&["--no-memory"]);
    assert!(
        fetched(&third, "best-gateways-2026.example"),
        "--no-memory ignores lessons"
    );
}

#[test]
fn folder_corpora_read_pdf_files() {
    let sb = TestHome::new();
    let dir = sb.dir.path().join("docs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("annual-report.pdf"),
        crate::web::common::tiny_pdf(
            &[
                "Orla Freight raised 40 million dollars in a Series C round in 2026.",
                "Orla Freight operates 90 trucks.",
            ],
            "Orla Freight annual report",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("about.md"),
        "# About Orla Freight\n\nOrla Freight is a trucking company based in Leeds.\n",
    )
    .unwrap();
    sb.dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args([
            "ask",
            "What is Orla Freight's funding? Check funding and fleet.",
        ])
        .arg("--corpus")
        .arg(&dir)
        .assert()
        .success();
    let report = std::fs::read_to_string(sb.run_dir().join("report.md")).unwrap();
    assert!(report.contains("Series C"), "{report}");
    assert!(
        report.contains("annual-report.pdf"),
        "the PDF is a cited source"
    );
}

#[test]
fn tool_call_caps_hold_exactly_with_eight_parallel_sub_researchers() {
    for limit in [9u64, 17, 30] {
        let sb = TestHome::new();
        let out = sb
            .dra()
            .arg("--runs-dir")
            .arg(sb.runs())
            .args(["--json", "ask", "--max-parallel", "8", "--max-tool-calls"])
            .arg(limit.to_string())
            .arg("Is PadmaPay (Kochi, India) reliable? Check leadership, licence status, funding, reliability, security incidents, pricing, merchant sentiment and history.")
            .assert()
            .code(5);
        let events = parse_events(&String::from_utf8_lossy(&out.get_output().stdout));
        let started = events.iter().filter(|e| matches!(&e.body, EventBody::ToolCall { tool, .. } if tool != "submit_findings" && tool != "submit_report")).count() as u64;
        let used = events.iter().find_map(|e| match &e.body {
            EventBody::Usage { tool_calls, .. } => Some(*tool_calls),
            _ => None,
        });
        assert_eq!(used, Some(limit), "the cap is reached exactly");
        assert!(
            started <= limit,
            "{started} tool calls started against a cap of {limit}"
        );
        assert!(sb.run_dir().join("report.md").is_file());
    }
}

#[test]
fn plain_rows_on_stderr_without_a_terminal() {
    let sb = TestHome::new();
    let out = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    for row in [
        "dra: offline: ",
        "plan 7 aspects: leadership, licence status, ",
        "sub-1 started: leadership",
        "search \"PadmaPay leadership\" → 6 results",
        "  sub-1 read About PadmaPay (padmapay.example)",
        "quarantined https://best-gateways-2026.example/padmapay-review",
        "✓ sub-1 done: 5 findings",
    ] {
        assert!(stderr.contains(row), "missing {row:?} in:\n{stderr}");
    }
    // Once each: no internal mapping line, no status line beside the
    // summary on stdout, no per-agent findings line (they are for -v).
    for gone in ["sources: read [", "status done", "findings: 5 (gaps"] {
        assert!(!stderr.contains(gone), "{gone:?} in:\n{stderr}");
    }
    assert!(
        !stderr.contains('\u{1b}'),
        "no colour or cursor codes without a terminal"
    );
    assert!(
        !stderr.contains("thinking:"),
        "thinking stays collapsed without -v"
    );
    let verbose = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-v", "ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&verbose.get_output().stderr)
            .contains("thinking: Planning 7 aspect(s)")
    );
    let quiet = sb
        .dra()
        .arg("--runs-dir")
        .arg(sb.runs())
        .args(["-q", "ask", PADMAPAY_QUESTION])
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&quiet.get_output().stderr)
            .trim()
            .is_empty(),
        "-q: nothing on stderr"
    );
    assert_eq!(
        String::from_utf8_lossy(&quiet.get_output().stdout)
            .lines()
            .count(),
        2
    );
}

#[test]
fn closed_output_pipes_never_stop_or_hang_a_run() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    for (verbose, close_stdout) in [("-vv", false), ("-v", false), ("--json", true)] {
        let sb = TestHome::new();
        let mut child = Command::new(env!("CARGO_BIN_EXE_dra"))
            .current_dir(sb.dir.path())
            .env("HOME", sb.dir.path())
            .env("XDG_DATA_HOME", sb.dir.path().join("data"))
            .env("XDG_CONFIG_HOME", sb.dir.path().join("config"))
            .arg("--runs-dir")
            .arg(sb.runs())
            .args([verbose, "ask", PADMAPAY_QUESTION])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Like `dra ... 2>&1 | head -1`: the reader goes away at once.
        drop(child.stderr.take());
        if close_stdout {
            drop(child.stdout.take());
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "{verbose}: dra hung on a closed pipe"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "{verbose}");
        assert!(sb.run_dir().join("report.md").is_file());
    }
}
