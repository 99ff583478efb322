//! The engine driven directly through its queue pair, with a slowed-down
//! offline model, to test interruption and the deadline.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use dra::config::tiers::default_tier;
use dra::corpus::Corpus;
use dra::engine::budget::Limits;
use dra::engine::model::offline::OfflineModel;
use dra::engine::model::{
    ChatModel, ChatRequest, ChatResponse, ModelError, ModelRouter, ModelSink,
};
use dra::engine::tools::web::CorpusWeb;
use dra::engine::{Engine, EngineConfig, RunSummary};
use dra::protocol::{
    AskRequest, EntityAnchors, Event, EventBody, Op, RunMode, StatusReason, StatusState,
};
use dra::store::{RunDir, RunHeader};

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
    EngineConfig {
        run_dir,
        header: RunHeader {
            kind: "run_header".into(),
            protocol_version: dra::protocol::PROTOCOL_VERSION,
            dra_version: "test".into(),
            run_id: "testrun1".into(),
            question: "q".into(),
            created: "2026-11-29T00:00:00Z".into(),
            settings: serde_json::json!({}),
        },
        mode: RunMode::Offline,
        tier: default_tier(),
        models: ModelRouter::single(Arc::new(Slow(delay))),
        search: Arc::new(web.clone()),
        fetcher: Arc::new(web),
        limits,
        max_parallel: 2,
        backend_label: "the embedded corpus".into(),
        domain_prompt: None,
    }
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
