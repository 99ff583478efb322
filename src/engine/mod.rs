//! The engine: a task behind a queue pair. Ops go in (`Ask`, `Interrupt`,
//! `Shutdown`), events come out, already persisted to events.jsonl. The
//! engine never touches the terminal.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent_loop;
pub mod answered;
pub mod budget;
pub mod claims;
pub mod clarifier;
pub mod context;
pub(crate) mod deliver;
pub mod emitter;
pub mod entity;
pub mod model;
pub mod offline;
pub mod offload;
mod orchestrator;
pub mod page_store;
pub mod page_view;
pub mod prompts;
pub mod reach;
pub mod recorded;
pub mod replay;
pub mod search_listing;
mod since;
pub mod spotlight;
pub mod subresearcher;
pub mod thread;
pub mod tool;
pub mod tools;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::config::Settings;
use crate::ports::{Fetcher, SearchBackend};
use crate::protocol::{Event, Op, StatusReason, StatusState};
use crate::store::checkpoint::RunLock;
use crate::store::{Recorder, RunDir, RunHeader};
use model::ModelRouter;

/// Everything a run needs from outside: its settings, decided once by the
/// composition root, and what is specific to this run.
pub struct EngineConfig {
    pub run_dir: RunDir,
    pub header: RunHeader,
    /// Read-only for the whole run; the engine reads settings only here.
    pub settings: Arc<Settings>,
    pub models: ModelRouter,
    pub search: Arc<dyn SearchBackend>,
    pub fetcher: Arc<dyn Fetcher>,
    /// Where the evidence came from, for the report footer ("embedded corpus", ...).
    pub backend_label: String,
    pub domain_prompt: Option<String>,
    /// The user's skills (`read_skill` is offered when there is any).
    pub skills: Arc<crate::skills::SkillSet>,
    /// A follow-up's earlier turns (`dra ask --continue`).
    pub thread: Option<thread::Thread>,
    /// Whether the lead may ask clarifying questions, and whether the
    /// front end answers them in-process (`Op::Answer`).
    pub clarify: clarifier::ClarifyMode,
    /// Answers for the run's clarifications (`--answers`), one set per
    /// clarification, in question order.
    pub answers: Vec<Vec<String>>,
    /// How the run was asked, as the composition root understood it: the
    /// run's first record, read back by `dra resume`.
    pub inputs: serde_json::Value,
    /// The earlier run this one is compared with (`dra ask --since`): its
    /// directory. The report opens with what changed since, and the run
    /// writes changes.md.
    pub since: Option<std::path::PathBuf>,
    /// Set when this continues an earlier run (`dra resume`).
    pub resume: Option<Resume>,
    /// The run directory's lock, held until the run's files are synced.
    pub lock: Option<RunLock>,
    /// When setting the run up began (before its corpus was loaded and
    /// indexed): the run's clock and its deadline count from here.
    pub started: std::time::Instant,
    /// What the corpus loader left out or read partly: `warning` events
    /// (`corpus_loader`) at the run's start.
    pub loader_warnings: Vec<String>,
}

impl EngineConfig {
    /// A run in `run_dir` on the table's default settings with no memory,
    /// MCP servers, sandbox or custom tools, for tests and embedders: set
    /// what a test is about afterwards (`Arc::make_mut(&mut c.settings)`),
    /// so a new field does not break every caller.
    pub fn for_tests(
        run_dir: RunDir,
        models: ModelRouter,
        search: Arc<dyn SearchBackend>,
        fetcher: Arc<dyn Fetcher>,
    ) -> EngineConfig {
        let mut settings = Settings::defaults();
        settings.memory = false;
        settings.mcp = Default::default();
        settings.exec = crate::config::ExecSettings::off();
        settings.custom_tools = Default::default();
        settings.offload = Default::default();
        let run_id = run_dir.run_id.clone();
        EngineConfig {
            run_dir,
            header: RunHeader {
                kind: "run_header".into(),
                protocol_version: crate::protocol::PROTOCOL_VERSION,
                dra_version: "test".into(),
                run_id,
                question: String::new(),
                created: "2026-11-29T00:00:00Z".into(),
                settings: serde_json::json!({}),
            },
            settings: Arc::new(settings),
            models,
            search,
            fetcher,
            backend_label: "the embedded corpus".into(),
            domain_prompt: None,
            skills: Default::default(),
            thread: None,
            clarify: clarifier::ClarifyMode::Stop,
            answers: Vec::new(),
            inputs: serde_json::json!({}),
            since: None,
            resume: None,
            lock: None,
            started: std::time::Instant::now(),
            loader_warnings: Vec::new(),
        }
    }
}

/// The mode a run on `settings` uses: online when a key is set and
/// offline mode is not forced.
pub fn run_mode(settings: &Settings) -> crate::protocol::RunMode {
    if settings.online() {
        crate::protocol::RunMode::Online
    } else {
        crate::protocol::RunMode::Offline
    }
}

/// What a resumed run brings from its earlier invocations.
pub struct Resume {
    pub replay: Arc<replay::Replay>,
    /// The last `seq` in events.jsonl.
    pub last_seq: u64,
    /// What was cut off torn files.
    pub recovered: Vec<String>,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub state: StatusState,
    pub reason: StatusReason,
    pub detail: Option<String>,
    pub run_dir: PathBuf,
    pub report_path: Option<PathBuf>,
    pub sources: usize,
    pub total_tokens: u64,
    /// Of the input tokens, those read from the providers' prompt caches.
    pub cached_tokens: u64,
    pub cost_usd: f64,
    pub duration: Duration,
    pub tool_calls: u64,
    /// A resumed run: model calls answered from the records, and made anew.
    pub replayed: Option<Replayed>,
}

/// What a resumed invocation took from its records and what it paid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    pub from_records: u64,
    pub new: u64,
}

pub struct EngineHandle {
    pub ops: mpsc::Sender<Op>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub join: JoinHandle<std::io::Result<Option<RunSummary>>>,
    /// Ends events.jsonl with a terminal status when the front end cannot wait.
    pub closer: crate::store::RecorderCloser,
}

pub struct Engine;

impl Engine {
    /// Starts the engine task. It waits for one `Ask`, runs it, and ends.
    pub fn spawn(mut config: EngineConfig) -> std::io::Result<EngineHandle> {
        let (recorder, events, recorder_join) = match config.resume {
            Some(_) => {
                Recorder::append(&config.run_dir, &config.header.run_id, config.settings.sync)?
            }
            None => Recorder::spawn(&config.run_dir, &config.header, config.settings.sync)?,
        };
        let closer = recorder.closer();
        let (ops_tx, ops_rx) = mpsc::channel(16);
        let lock = config.lock.take();
        let join = tokio::spawn(async move {
            let summary = orchestrator::engine_task(config, recorder, ops_rx).await;
            // Every recorder handle is gone now: the writer drains and syncs.
            recorder_join
                .await
                .map_err(|e| std::io::Error::other(e.to_string()))??;
            drop(lock);
            Ok(summary)
        });
        Ok(EngineHandle {
            ops: ops_tx,
            events,
            join,
            closer,
        })
    }
}
