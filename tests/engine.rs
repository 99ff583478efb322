//! The engine driven directly through its queue pair, with a slowed-down
//! offline model, to test interruption and the deadline.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use dra::corpus::Corpus;
use dra::corpus::CorpusWeb;
use dra::engine::budget::Limits;
use dra::engine::model::{
    ChatModel, ChatRequest, ChatResponse, ModelError, ModelRouter, ModelSink,
};
use dra::engine::offline::OfflineModel;
use dra::engine::{Engine, EngineConfig, RunSummary};
use dra::protocol::{AskRequest, EntityAnchors, Event, EventBody, Op, StatusReason, StatusState};
use dra::store::RunDir;

/// The offline model, but every call takes a while.
struct Slow(Duration);

#[async_trait]
impl ChatModel for Slow {
    fn slug(&self) -> &str {
        "test/slow-offline"
    }
    async fn complete(
        &self,
        request: &ChatRequest,
        sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        tokio::time::sleep(self.0).await;
        OfflineModel.complete(request, sink).await
    }
}

fn config(dir: &std::path::Path, delay: Duration, limits: Limits) -> EngineConfig {
    let run_dir = RunDir::create(dir, "testrun1").unwrap();
    let web = CorpusWeb::new(Arc::new(Corpus::embedded().unwrap()));
    let mut config = EngineConfig::for_tests(
        run_dir,
        ModelRouter::single(Arc::new(Slow(delay))),
        Arc::new(web.clone()),
        Arc::new(web),
    );
    let settings = Arc::make_mut(&mut config.settings);
    settings.limits = limits;
    settings.max_parallel = 2;
    settings.search.max_results = 5;
    settings.today = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
    config
}

fn ask() -> Op {
    Op::Ask(AskRequest {
        question: "Is PadmaPay (Kochi, India) a reliable partner? Check leadership, licence status, funding, pricing.".into(),
        anchors: EntityAnchors::default(),
    })
}

async fn collect(mut handle: dra::engine::EngineHandle) -> (Vec<Event>, RunSummary) {
    let mut events = Vec::new();
    while let Some(e) = tokio::time::timeout(Duration::from_secs(30), handle.events.recv())
        .await
        .unwrap()
    {
        events.push(e);
    }
    let summary = handle.join.await.unwrap().unwrap().unwrap();
    (events, summary)
}

fn last_status(events: &[Event]) -> (StatusState, Option<StatusReason>) {
    match &events.last().unwrap().body {
        EventBody::Status(s) => (s.state, s.reason),
        other => panic!("last event is not a status: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_ends_the_run_with_a_salvaged_report() {
    let dir = tempfile::tempdir().unwrap();
    let handle = Engine::spawn(config(
        dir.path(),
        Duration::from_millis(40),
        Limits::default(),
    ))
    .unwrap();
    handle.ops.send(ask()).await.unwrap();
    let ops = handle.ops.clone();
    // Interrupt once some sub-researcher has handed back findings.
    let mut handle = handle;
    let mut seen = Vec::new();
    loop {
        let e = tokio::time::timeout(Duration::from_secs(30), handle.events.recv())
            .await
            .unwrap()
            .unwrap();
        let found = matches!(e.body, EventBody::SubagentFindings { .. });
        seen.push(e);
        if found {
            ops.send(Op::Interrupt).await.unwrap();
            break;
        }
    }
    let (rest, summary) = collect(handle).await;
    seen.extend(rest);
    assert_eq!(
        last_status(&seen),
        (StatusState::Error, Some(StatusReason::Interrupted))
    );
    assert_eq!(summary.reason, StatusReason::Interrupted);
    let report = std::fs::read_to_string(summary.report_path.unwrap()).unwrap();
    assert!(report.contains("salvaged"), "{report}");
    assert!(
        report.contains("[1]"),
        "the salvaged report cites what was found"
    );
    let terminal = seen
        .iter()
        .filter(|e| matches!(&e.body, EventBody::Status(s) if s.state.is_terminal()))
        .count();
    assert_eq!(terminal, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_halts_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        deadline: Duration::from_millis(600),
        ..Limits::default()
    };
    let handle = Engine::spawn(config(dir.path(), Duration::from_millis(60), limits)).unwrap();
    handle.ops.send(ask()).await.unwrap();
    let (events, summary) = collect(handle).await;
    assert!(events.iter().any(|e| matches!(&e.body, EventBody::Status(s) if s.state == StatusState::BudgetHalt && s.reason == Some(StatusReason::Deadline))));
    assert_eq!(
        last_status(&events),
        (StatusState::Error, Some(StatusReason::BudgetExhausted))
    );
    assert!(summary.report_path.unwrap().is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_time_counts_in_the_runs_clock_and_deadline() {
    // A run whose setup (loading its corpus) took 2 s of a 1.5 s deadline:
    // the deadline is already spent when research starts, and the run's
    // duration counts the setup.
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        deadline: Duration::from_millis(1500),
        ..Limits::default()
    };
    let mut config = config(dir.path(), Duration::from_millis(60), limits);
    config.started = std::time::Instant::now() - Duration::from_secs(2);
    let handle = Engine::spawn(config).unwrap();
    handle.ops.send(ask()).await.unwrap();
    let (events, _summary) = collect(handle).await;
    assert!(events.iter().any(
        |e| matches!(&e.body, EventBody::Status(s) if s.reason == Some(StatusReason::Deadline))
    ));
    let duration = events.iter().find_map(|e| match &e.body {
        EventBody::Usage { duration_ms, .. } => Some(*duration_ms),
        _ => None,
    });
    assert!(duration.is_some_and(|d| d >= 2000), "{duration:?}");
}

#[tokio::test]
async fn shutdown_before_ask_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let handle = Engine::spawn(config(dir.path(), Duration::ZERO, Limits::default())).unwrap();
    handle.ops.send(Op::Shutdown).await.unwrap();
    let (events, summary) = {
        let mut h = handle;
        let mut ev = Vec::new();
        while let Some(e) = h.events.recv().await {
            ev.push(e);
        }
        (ev, h.join.await.unwrap().unwrap())
    };
    assert!(events.is_empty());
    assert!(summary.is_none());
}

// ---------------------------------------------------------------- scripted

use std::collections::VecDeque;
use std::sync::Mutex;

use dra::engine::model::{Message, Role, ToolCall, Usage};
use serde_json::json;

/// Plays scripted responses in order and records every request.
#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<ChatResponse>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl Script {
    fn new(replies: Vec<ChatResponse>) -> Arc<Self> {
        Arc::new(Script {
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        })
    }
    fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

#[async_trait]
impl ChatModel for Script {
    fn slug(&self) -> &str {
        "test/script"
    }
    async fn complete(
        &self,
        request: &ChatRequest,
        _: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        self.requests.lock().unwrap().push(request.clone());
        Ok(self
            .replies
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| text("")))
    }
}

fn text(content: &str) -> ChatResponse {
    ChatResponse {
        content: content.into(),
        tool_calls: vec![],
        thinking: None,
        usage: Usage {
            input_tokens: 100,
            output_tokens: 20,
            cached_input_tokens: 0,
        },
        model: "test/script".into(),
    }
}

fn calls(list: &[(&str, serde_json::Value)]) -> ChatResponse {
    ChatResponse {
        tool_calls: list
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall {
                id: format!("c{i}"),
                name: name.to_string(),
                arguments: args.clone(),
            })
            .collect(),
        ..text("")
    }
}

async fn run_scripted(
    lead: Arc<Script>,
    sub: Arc<Script>,
    require_tool_call: bool,
) -> (Vec<Event>, RunSummary, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path(), Duration::ZERO, Limits::default());
    cfg.models = ModelRouter {
        research: lead,
        subagent: sub.clone(),
        utility: sub,
    };
    Arc::make_mut(&mut cfg.settings).require_tool_call = require_tool_call;
    let handle = Engine::spawn(cfg).unwrap();
    handle.ops.send(ask()).await.unwrap();
    let (events, summary) = collect(handle).await;
    let report = summary
        .report_path
        .as_ref()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    (events, summary, report)
}

fn statuses(events: &[Event]) -> Vec<(StatusState, Option<StatusReason>)> {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status(s) => Some((s.state, s.reason)),
            _ => None,
        })
        .collect()
}

fn has_clarification(events: &[Event], needle: &str) -> bool {
    events.iter().any(|e| matches!(&e.body, EventBody::Clarification { questions } if questions.iter().any(|q| q.contains(needle))))
}

#[tokio::test]
async fn clarification_tool_stops_the_run_awaiting_answers() {
    let lead = Script::new(vec![calls(&[(
        "request_clarification",
        json!({"questions": ["Which PadmaPay: India or UK?", "What timeframe?"]}),
    )])]);
    let (events, summary, report) = run_scripted(lead, Script::new(vec![]), false).await;
    assert!(has_clarification(&events, "India or UK"));
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::AwaitingClarification))
    );
    assert_eq!(summary.reason, StatusReason::AwaitingClarification);
    assert!(
        report.contains("1. Which PadmaPay: India or UK?") && report.contains("2. What timeframe?")
    );
}

#[tokio::test]
async fn questions_narrated_in_prose_get_the_same_event() {
    let lead = Script::new(vec![text(
        "Before I research, could you tell me which market you mean?\nAnd which year matters most to you?",
    )]);
    let (events, _, _) = run_scripted(lead, Script::new(vec![]), false).await;
    assert!(has_clarification(&events, "which market you mean?"));
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::AwaitingClarification))
    );
}

#[tokio::test]
async fn a_direct_answer_ends_direct_answer_unless_tools_are_required() {
    let answer = "PadmaPay is a payment gateway headquartered in Kochi, India.";
    let (events, _, report) =
        run_scripted(Script::new(vec![text(answer)]), Script::new(vec![]), false).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::DirectAnswer))
    );
    assert!(report.contains(answer));
    let (events, summary, _) =
        run_scripted(Script::new(vec![text(answer)]), Script::new(vec![]), true).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Error, Some(StatusReason::ToolCallRequired))
    );
    assert_eq!(summary.state, StatusState::Error);
}

#[tokio::test]
async fn a_model_that_never_submits_is_nudged_then_stalls_with_a_salvaged_report() {
    let lead = Script::new(vec![
        calls(&[("write_todos", json!({"todos": [{"content": "pricing"}]}))]),
        calls(&[(
            "task",
            json!({"description": "Aspect: pricing\nEntity: PadmaPay\n"}),
        )]),
        text("I'll write the report next."),
        text("I will now write it."),
        text("Done thinking."),
    ]);
    let sub = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        calls(&[(
            "submit_findings",
            json!({
                "summary": "pricing",
                "findings": [{"claim": "1.9% fee", "quote": "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.", "url": "https://padmapay.example/pricing"}],
                "gaps": []
            }),
        )]),
    ]);
    let (events, _, report) = run_scripted(lead.clone(), sub, false).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Error, Some(StatusReason::StalledAfterNudges))
    );
    let reqs = lead.requests();
    assert_eq!(reqs.len(), 5, "two nudges after the first plain reply");
    let nudges = reqs
        .last()
        .unwrap()
        .messages
        .iter()
        .filter(|m: &&Message| m.role == Role::User && m.content.contains("submit_report"))
        .count();
    assert_eq!(nudges, 2);
    assert!(
        report.contains("1.9%") && report.contains("[1]") && report.contains("salvaged"),
        "{report}"
    );
}

#[tokio::test]
async fn a_report_written_as_plain_text_is_salvaged() {
    let body = "# PadmaPay\n\nPadmaPay charges a standard fee of 1.9% [1]. The pricing page says so again [1], and nothing contradicts it in the sources read for this run. This text is long enough to count as a report, with citations that resolve to real sources of the run [1]. No setup fee is charged, and large merchants can ask for custom rates [1].";
    let lead = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        text(body),
        text(body),
        text(body),
    ]);
    let (events, _, report) = run_scripted(lead, Script::new(vec![]), false).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::ReportSalvaged))
    );
    assert!(report.contains("standard fee of 1.9% [1]"));
    assert!(report.contains("## Sources") && report.contains("https://padmapay.example/pricing"));
}

#[tokio::test]
async fn gates_bounce_bad_findings_and_reports_once() {
    let good = "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.";
    let lead = Script::new(vec![
        calls(&[(
            "task",
            json!({"description": "Aspect: pricing\nEntity: PadmaPay\n"}),
        )]),
        calls(&[(
            "submit_report",
            json!({"markdown": "# R\n\nThe fee is 1.9% [1] and the CEO is someone [7].\n<think>hidden</think>"}),
        )]),
        calls(&[(
            "submit_report",
            json!({"markdown": "# R\n\nPadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction [1]."}),
        )]),
    ]);
    let sub = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        calls(&[(
            "submit_findings",
            json!({
                "summary": "pricing",
                "findings": [
                    {"claim": "fee", "quote": "PadmaPay charges only 0.5% per transaction.", "url": "https://padmapay.example/pricing"},
                    {"claim": "fee", "quote": good, "url": "https://padmapay.example/never-read"}
                ],
                "gaps": []
            }),
        )]),
        calls(&[(
            "submit_findings",
            json!({
                "summary": "pricing",
                "findings": [
                    {"claim": "fee", "quote": good, "url": "https://padmapay.example/pricing"},
                    {"claim": "made up", "quote": "PadmaPay is the cheapest gateway in Asia.", "url": "https://padmapay.example/pricing"}
                ],
                "gaps": []
            }),
        )]),
    ]);
    let (events, _, report) = run_scripted(lead.clone(), sub.clone(), false).await;
    let st = statuses(&events);
    assert!(st.contains(&(StatusState::Revising, Some(StatusReason::SubagentFindings))));
    assert!(st.contains(&(StatusState::Revising, Some(StatusReason::ReportQuality))));
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::ReportDelivered))
    );
    // The bounce named the exact problems.
    let bounce = sub.requests()[2]
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert!(
        bounce.contains("finding 1") && bounce.contains("does not appear"),
        "{bounce}"
    );
    assert!(
        bounce.contains("finding 2") && bounce.contains("never read"),
        "{bounce}"
    );
    // The second try kept the verified finding, dropped the other and named it.
    let findings = events.iter().find_map(|e| match &e.body {
        EventBody::SubagentFindings { findings, gaps, .. } => {
            Some((findings.clone(), gaps.clone()))
        }
        _ => None,
    });
    let (findings, gaps) = findings.unwrap();
    assert_eq!(findings.len(), 1);
    assert!(
        gaps.iter()
            .any(|g| g.contains("dropped") && g.contains("made up"))
    );
    let report_bounce = lead.requests()[2]
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert!(
        report_bounce.contains("[7]") && report_bounce.contains("thinking"),
        "{report_bounce}"
    );
    assert!(!report.contains("[7]") && !report.contains("hidden"));
}

#[tokio::test]
async fn online_pages_are_turned_into_claims_by_a_toolless_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path(), Duration::ZERO, Limits::default());
    let good = "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction.";
    let lead = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        calls(&[(
            "submit_report",
            json!({"markdown": "# R\n\nThe fee is 1.9% [1], as the pricing page states plainly for every merchant [1]."}),
        )]),
    ]);
    let utility = Script::new(vec![
        text(&format!(
            "Here you go:\n```json\n{}\n```",
            json!({"claims": [
                {"field": "pricing", "value": "1.9%", "snippet": good, "event_date": "2026-08-01"},
                {"field": "pricing", "value": "free", "snippet": "PadmaPay is free for everyone.", "event_date": null}
            ]})
        )),
        text(&json!({"claims": [{"field": "pricing", "value": "1.9%", "snippet": good, "event_date": "2026-08-01"}]}).to_string()),
    ]);
    cfg.models = ModelRouter {
        research: lead,
        subagent: utility.clone(),
        utility: utility.clone(),
    };
    // Online: a key is set (the scripted models never send it).
    Arc::make_mut(&mut cfg.settings).api_key = Some(dra::config::Secret::new("test-key"));
    let run_dir = cfg.run_dir.path().to_path_buf();
    let handle = Engine::spawn(cfg).unwrap();
    handle.ops.send(ask()).await.unwrap();
    let (events, summary) = collect(handle).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Done, Some(StatusReason::ReportDelivered))
    );
    let reqs = utility.requests();
    assert_eq!(reqs.len(), 2, "one repair round");
    assert!(reqs[0].tools.is_empty(), "the extractor has no tools");
    assert!(
        reqs[0].messages[1].content.contains("<<untrusted-data "),
        "page text is spotlighted"
    );
    assert!(
        reqs[1]
            .messages
            .last()
            .unwrap()
            .content
            .contains("claim 2: the snippet is not a verbatim sentence")
    );
    let evidence: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("evidence.json")).unwrap())
            .unwrap();
    let items = evidence["items"].as_array().unwrap();
    let extracted: Vec<_> = items
        .iter()
        .filter(|i| i["origin"] == "main:extractor")
        .collect();
    assert_eq!(extracted.len(), 1, "{items:?}");
    assert_eq!(extracted[0]["claim"]["value"], "1.9%");
    assert_eq!(extracted[0]["claim"]["event_date"], "2026-08-01");
    assert!(
        summary.cost_usd > 0.0,
        "online calls are priced from the tier"
    );
}

#[tokio::test]
async fn a_plan_that_restates_a_compound_question_is_sent_back_once() {
    let question = "Is PadmaPay (Kochi, India) a reliable partner? Check leadership, licence status, funding, pricing.";
    let lead = Script::new(vec![
        calls(&[("write_todos", json!({"todos": [{"content": question}]}))]),
        calls(&[(
            "write_todos",
            json!({"todos": [{"content": "leadership"}, {"content": "pricing"}]}),
        )]),
        text("done"),
    ]);
    let (events, _, _) = run_scripted(lead.clone(), Script::new(vec![]), false).await;
    let reqs = lead.requests();
    let bounce = reqs[1]
        .messages
        .iter()
        .find(|m: &&Message| m.role == Role::Tool)
        .map(|m| m.content.clone())
        .unwrap_or_default();
    assert!(
        bounce.contains("plan not recorded") && bounce.contains("restates the question"),
        "{bounce}"
    );
    let plans: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Plan { todos, kind } => Some((todos.len(), *kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        plans,
        vec![(2, Some(dra::question::QuestionKind::DueDiligence))],
        "only the corrected plan is recorded, with the question's kind"
    );
}

#[tokio::test]
async fn quotes_with_escape_artefacts_pass_the_findings_gate_but_changed_words_do_not() {
    // What a model copies out of JSON or HTML: `\n`, `\"`, `\u2019`,
    // entities, NBSP; the words are the page's.
    let mangled =
        "PadmaPay charges a standard fee of 1.9%\\nper domestic card or UPI&nbsp;transaction.";
    let changed =
        "PadmaPay charges a standard fee of 1.8%\\nper domestic card or UPI&nbsp;transaction.";
    let lead = Script::new(vec![
        calls(&[(
            "task",
            json!({"description": "Aspect: pricing\nEntity: PadmaPay\n"}),
        )]),
        calls(&[(
            "submit_report",
            json!({"markdown": "# R\n\nPadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction [1]."}),
        )]),
    ]);
    let sub = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        calls(&[(
            "submit_findings",
            json!({
                "summary": "pricing",
                "findings": [
                    {"claim": "fee", "quote": mangled, "url": "https://padmapay.example/pricing"},
                    {"claim": "fee", "quote": changed, "url": "https://padmapay.example/pricing"},
                    {"claim": "fee", "quote": "1.9%", "url": "https://padmapay.example/pricing"}
                ],
                "gaps": []
            }),
        )]),
        calls(&[(
            "submit_findings",
            json!({
                "summary": "pricing",
                "findings": [{"claim": "fee", "quote": mangled, "url": "https://padmapay.example/pricing"}],
                "gaps": []
            }),
        )]),
    ]);
    let (events, _, _) = run_scripted(lead, sub.clone(), false).await;
    let bounce = sub.requests()[2]
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert!(
        bounce.contains("finding 2") && !bounce.contains("finding 1"),
        "only the changed number bounced: {bounce}"
    );
    // A bare figure is too short to check, and the bounce says so (not
    // that it is missing from the page, where it stands).
    assert!(
        bounce.contains("finding 3: the quote \"1.9%\" is too short to check"),
        "{bounce}"
    );
    // The page came as plain text under header lines, not escaped JSON.
    let view = sub.requests()[1]
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .unwrap()
        .content
        .clone();
    assert!(
        view.contains("\nSource: [1] https://padmapay.example/pricing\nTitle: ")
            && !view.contains("\"text\":"),
        "{view}"
    );
    let findings = events.iter().find_map(|e| match &e.body {
        EventBody::SubagentFindings { findings, .. } => Some(findings.clone()),
        _ => None,
    });
    assert_eq!(findings.unwrap().len(), 1);
}

#[tokio::test]
async fn a_report_whose_every_cited_sentence_fails_has_no_verified_source() {
    let unsupported = json!({"markdown": "# R\n\nPadmaPay was founded on the Moon in 1802 by a committee of owls [1]. It processes nine billion payments every second from its lunar office [1]."});
    let lead = Script::new(vec![
        calls(&[(
            "fetch_url",
            json!({"url": "https://padmapay.example/pricing"}),
        )]),
        calls(&[("submit_report", unsupported.clone())]),
        calls(&[("submit_report", unsupported.clone())]),
        calls(&[("submit_report", unsupported)]),
    ]);
    let (events, summary, report) = run_scripted(lead, Script::new(vec![]), false).await;
    assert_eq!(
        last_status(&events),
        (StatusState::Error, Some(StatusReason::NoVerifiedSource))
    );
    assert_eq!(summary.sources, 0);
    assert!(report.contains("**No verified source.**"), "{report}");
    assert!(report.contains("claim check"), "{report}");
    assert!(report.contains("No sources were cited."), "{report}");
}
