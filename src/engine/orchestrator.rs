//! One run from `Ask` to the terminal status: run_start, the orchestrator
//! (the lead agent), the report (delivered or salvaged), artifacts, usage, status.

use std::sync::Arc;

use futures::FutureExt;
use serde_json::json;
use tokio::sync::mpsc;

use super::agent_loop::{self, AgentEnd, AgentSpec, run_agent};
use super::clarifier::ClarifyMode;
use super::context::{RunCtx, Services};
use super::emitter::Emitter;
use super::tool::AgentCx;
use super::{EngineConfig, RunSummary, entity, prompts};
use crate::config::ModelRole;
use crate::evidence::Page;
use crate::evidence::dedup::Copies;
use crate::evidence::merge::MergedField;
use crate::protocol::Verdict;
use crate::protocol::{
    AskRequest, ClaimSupport, ENGINE_VERSION, EventBody, MAIN_AGENT, Op, PROTOCOL_VERSION, RunMode,
    SourceNumber, StatusReason, StatusState,
};
use crate::report;
use crate::store::RecorderHandle;
use crate::store::memory::{Lessons, Memory, RunLessons};

pub(super) async fn engine_task(
    config: EngineConfig,
    recorder: RecorderHandle,
    mut ops: mpsc::Receiver<Op>,
) -> Option<RunSummary> {
    let request = loop {
        match ops.recv().await {
            Some(Op::Ask(req)) => break req,
            Some(Op::Interrupt | Op::Answer(_)) => continue,
            Some(Op::Shutdown) | None => return None,
        }
    };
    let anchors = entity::complete_anchors(&request.question, &request.anchors);
    // A memory that cannot be read is reported and left alone: never overwritten.
    let memory = config.settings.memory_dir();
    let (lessons, memory_problem) = match memory.as_deref().map(|d| Memory::at(d).load()) {
        Some(Ok(l)) => (l, None),
        Some(Err(e)) => (Lessons::default(), Some(e.to_string())),
        None => (Lessons::default(), None),
    };
    let mut emitter = Emitter::new(config.run_dir.run_id.clone(), recorder);
    let replay = config.resume.as_ref().map(|r| r.replay.clone());
    if let Some(r) = &config.resume {
        emitter = emitter.resumed(r.last_seq, r.replay.clone());
    }
    let ctx = Arc::new(RunCtx::new(
        &config,
        request.question.clone(),
        anchors,
        lessons,
        services(&config, emitter, replay.clone()),
    ));
    if config.resume.is_none() {
        ctx.emitter
            .record(crate::store::Record::Start {
                inputs: config.inputs.clone(),
                spotlight: ctx.spotlight.clone(),
                today: ctx.today.clone(),
            })
            .await;
    }
    let memory_readable = memory_problem.is_none();
    // Ops keep flowing while the run works: Interrupt cancels it.
    let _listener = {
        let ctx = ctx.clone();
        AbortOnDrop(tokio::spawn(async move {
            while let Some(op) = ops.recv().await {
                match op {
                    Op::Interrupt | Op::Shutdown => ctx.cancel.cancel(StatusReason::Interrupted),
                    Op::Answer(answers) => ctx.clarify.answer(answers),
                    Op::Ask(_) => ctx.emitter.warning(
                        MAIN_AGENT,
                        crate::protocol::WarningCode::Busy,
                        "an Ask arrived while a run is in progress; ignored",
                    ),
                }
            }
        }))
    };
    let _watchdog = {
        let ctx = ctx.clone();
        // The deadline counts from the run's start, setup included.
        let left = config
            .settings
            .limits
            .deadline
            .saturating_sub(config.started.elapsed());
        AbortOnDrop(tokio::spawn(async move {
            tokio::time::sleep(left).await;
            agent_loop::halt(&ctx, super::budget::Limit::Deadline);
        }))
    };
    // One root span per run: every log line of the run carries its id.
    let span = tracing::info_span!("run", run_id = %ctx.run_id);
    let run = tracing::Instrument::instrument(
        run_one(&ctx, &config, &request, memory_problem.as_deref()),
        span,
    );
    // A bug must still end the run with its one terminal status.
    let summary = match std::panic::AssertUnwindSafe(run).catch_unwind().await {
        Ok(summary) => summary,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            ctx.emitter.status(
                MAIN_AGENT,
                StatusState::Error,
                Some(StatusReason::InternalError),
                Some(format!("internal error: {what}")),
            );
            RunSummary {
                state: StatusState::Error,
                reason: StatusReason::InternalError,
                detail: Some(what),
                run_dir: config.run_dir.path().to_path_buf(),
                report_path: None,
                sources: ctx.pages.source_count(),
                total_tokens: ctx.budget.spent().tokens,
                cached_tokens: ctx.meter.cached_input_tokens(),
                cost_usd: ctx.budget.spent().usd,
                duration: ctx.budget.elapsed(),
                tool_calls: ctx.budget.spent().tool_calls,
                replayed: replayed(&ctx),
            }
        }
    };
    if let Some(dir) = memory.as_deref().filter(|_| memory_readable) {
        learn(&ctx, dir);
    }
    Some(summary)
}

/// What the run's agents call out to: a follow-up's cache of its thread's
/// earlier answers, then recording (and replay on resume), counted for
/// outages.
fn services(
    config: &EngineConfig,
    emitter: Emitter,
    replay: Option<Arc<super::replay::Replay>>,
) -> Services {
    // A follow-up answers what its thread already read from the earlier
    // turns' records.
    let (inner_search, inner_fetcher): (
        Arc<dyn crate::ports::SearchBackend>,
        Arc<dyn crate::ports::Fetcher>,
    ) = match &config.thread {
        Some(t) => (
            Arc::new(super::thread::CachedSearch {
                inner: config.search.clone(),
                cache: t.cache.clone(),
            }),
            Arc::new(super::thread::CachedFetch {
                inner: config.fetcher.clone(),
                cache: t.cache.clone(),
            }),
        ),
        None => (config.search.clone(), config.fetcher.clone()),
    };
    // Searches and fetches are recorded, and on resume answered from records.
    let reach = Arc::new(super::reach::Reach::default());
    let search: Arc<dyn crate::ports::SearchBackend> = Arc::new(super::recorded::RecordedSearch {
        inner: inner_search,
        replay: replay.clone(),
        emitter: emitter.clone(),
        reach: reach.clone(),
    });
    let fetcher: Arc<dyn crate::ports::Fetcher> = Arc::new(super::recorded::RecordedFetch {
        inner: inner_fetcher,
        replay: replay.clone(),
        emitter: emitter.clone(),
        reach: reach.clone(),
    });
    Services {
        emitter,
        search,
        fetcher,
        replay,
        reach,
    }
}

/// Ends a helper task when the run ends, however it ends (even unwinding),
/// so nothing keeps the run's recorder open.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Records what this run learnt: domains that carried injections, and
/// look-alike domains for this entity. Only the engine's own verdicts count.
fn learn(ctx: &RunCtx, dir: &std::path::Path) {
    let mut run = RunLessons {
        entity: ctx.anchors.name.clone(),
        ..RunLessons::default()
    };
    for p in ctx.pages.pages() {
        match p.verdict {
            Verdict::Quarantined => run.hostile.push((
                p.domain.clone(),
                p.url.clone(),
                p.reason.clone().unwrap_or_default(),
            )),
            Verdict::Rejected if p.identity.lookalike.is_some() => run.lookalikes.push((
                p.domain.clone(),
                p.url.clone(),
                p.reason.clone().unwrap_or_default(),
            )),
            _ => {}
        }
    }
    let accepted = ctx
        .pages
        .pages()
        .into_iter()
        .filter(|p| p.verdict == Verdict::Accepted)
        .map(|p| p.domain.clone())
        .collect();
    run.keep_domains_that_served_evidence(&accepted);
    if run.hostile.is_empty() && run.lookalikes.is_empty() {
        return;
    }
    // The run is over: a failure to remember is not worth failing it for.
    if let Err(e) = Memory::at(dir).learn(&run, &ctx.today) {
        tracing::warn!("could not update memory: {e}");
    }
}

/// The first events of a fresh run (a resumed one has `run_resumed`).
fn emit_run_start(
    ctx: &RunCtx,
    run_dir: &crate::store::RunDir,
    request: &AskRequest,
    memory_problem: Option<&str>,
) {
    ctx.emitter.emit(
        MAIN_AGENT,
        EventBody::RunStart {
            protocol_version: PROTOCOL_VERSION,
            engine_version: ENGINE_VERSION.to_string(),
            mode: ctx.mode,
            tier: ctx.settings.tier.name.to_string(),
            question: request.question.clone(),
            run_dir: run_dir.path().display().to_string(),
            entity: ctx.anchors.clone(),
        },
    );
    // Setup problems are told after run_start: it is always the first event.
    if let Some(problem) = memory_problem {
        ctx.emitter.warning(
            MAIN_AGENT,
            crate::protocol::WarningCode::MemoryUnreadable,
            format!("{problem}; running without memory"),
        );
    }
}

/// One run: announced (with the corpus loader's warnings), the question screened, the lead agent's research,
/// its ending delivered as a checked and judged report
/// ([`super::deliver`]), then the run files, the closing events and the
/// summary.
async fn run_one(
    ctx: &Arc<RunCtx>,
    config: &EngineConfig,
    request: &AskRequest,
    memory_problem: Option<&str>,
) -> RunSummary {
    let run_dir = &config.run_dir;
    announce(ctx, config, request, memory_problem);
    let unclear = screen_question(ctx, config, request);
    let end = research(ctx, config, request, unclear.is_some()).await;
    let mut d = super::deliver::deliver(ctx, config, request, unclear, end);
    super::since::compare(ctx, config, &mut d);

    let write_error = write_run_files(ctx, run_dir, &d.report, &d.merged, &d.copies, &d.pages);
    let written = write_error
        .is_none()
        .then(|| run_dir.report_path().display().to_string());
    emit_sources_and_report(ctx, &d.numbered, &d.report, written);
    let (spent, duration) = emit_usage(ctx, &d.report, d.claims);
    ctx.emitter
        .status(MAIN_AGENT, d.state, Some(d.reason), d.detail.clone());
    RunSummary {
        state: d.state,
        reason: d.reason,
        detail: d.detail,
        run_dir: run_dir.path().to_path_buf(),
        report_path: write_error.is_none().then(|| run_dir.report_path()),
        sources: d.report.sources.len(),
        total_tokens: spent.tokens,
        cached_tokens: ctx.meter.cached_input_tokens(),
        cost_usd: spent.usd,
        duration,
        tool_calls: spent.tool_calls,
        replayed: replayed(ctx),
    }
}

/// For a resumed run, its model calls answered from records and made anew.
fn replayed(ctx: &RunCtx) -> Option<super::Replayed> {
    let replay = ctx.replay.as_ref()?;
    let calls: u64 = ctx.meter.snapshot().iter().map(|m| m.calls).sum();
    let from_records = replay.replayed_calls();
    Some(super::Replayed {
        from_records,
        new: calls.saturating_sub(from_records),
    })
}

/// The run's first event: `run_resumed` when it picks up a recorded run,
/// else `run_start`.
fn announce(
    ctx: &Arc<RunCtx>,
    config: &EngineConfig,
    request: &AskRequest,
    memory_problem: Option<&str>,
) {
    if let Some(r) = &config.resume {
        ctx.emitter.emit(
            MAIN_AGENT,
            EventBody::RunResumed {
                after_seq: r.last_seq,
                recorded_model_calls: r.replay.recorded_model_calls(),
                recorded_tool_results: r.replay.recorded_tool_results(),
                recovered: r.recovered.clone(),
            },
        );
    } else {
        emit_run_start(ctx, &config.run_dir, request, memory_problem);
        // What the corpus loader left out: told when the run started, not
        // again on each resume.
        for w in &config.loader_warnings {
            ctx.emitter.warning(
                MAIN_AGENT,
                crate::protocol::WarningCode::CorpusLoader,
                w.clone(),
            );
        }
    }
}

/// Why the question cannot be researched, if it cannot (and the lead may
/// not ask instead); otherwise, offline, the warning that says so.
fn screen_question(
    ctx: &RunCtx,
    config: &EngineConfig,
    request: &AskRequest,
) -> Option<crate::question::Unresearchable> {
    // A question that names nothing is not researched: whatever a search
    // returned for it would be cited as if it answered it. When the lead may
    // ask, it asks instead (the offline model does for such questions).
    let unclear = match config.clarify {
        ClarifyMode::Never => crate::question::unresearchable(&request.question),
        ClarifyMode::Stop | ClarifyMode::Wait => None,
    };
    if unclear.is_none() && ctx.mode == RunMode::Offline && config.resume.is_none() {
        ctx.emitter.warning(
            MAIN_AGENT,
            crate::protocol::WarningCode::Offline,
            format!(
                "offline mode: a deterministic extractive model (no language model) researches {}",
                ctx.backend_label
            ),
        );
    }
    unclear
}

/// The lead agent's work: its tools started, then (unless the question is
/// unclear) the agent run to its end, then code execution stopped.
async fn research(
    ctx: &Arc<RunCtx>,
    config: &EngineConfig,
    request: &AskRequest,
    unclear: bool,
) -> Option<AgentEnd> {
    let tools = super::tools::start(ctx).await;
    let cx = Arc::new(AgentCx::new(ctx.clone(), tools.clone(), MAIN_AGENT, ""));
    let spec = orchestrator_spec(&cx, config);
    let end = if unclear {
        None
    } else {
        Some(
            run_agent(
                cx,
                spec,
                prompts::orchestrator_user(
                    &request.question,
                    &ctx.anchors,
                    &ctx.today,
                    &ctx.lessons.brief(ctx.anchors.name.as_deref()),
                    &prompts::earlier_turns(&ctx.spotlight, &ctx.earlier),
                ),
            )
            .await,
        )
    };
    tools.close().await;
    // Whatever was replayed, what follows is this invocation's own work.
    if let Some(replay) = &ctx.replay {
        replay.go_live(MAIN_AGENT);
    }
    end
}

/// The lead agent: its prompt, and its tools (asking for clarification
/// only when it may).
fn orchestrator_spec(cx: &AgentCx, config: &EngineConfig) -> AgentSpec {
    let ctx = &cx.run;
    AgentSpec {
        role: ModelRole::Research,
        system: prompts::orchestrator_system(
            &ctx.spotlight,
            ctx.domain_prompt.as_deref(),
            &ctx.skills,
        ),
        tools: super::tools::for_orchestrator(cx, config.clarify),
        nudge: prompts::orchestrator_nudge(),
    }
}

/// Writes report.md, sources.json and evidence.json; the first error, if
/// any, is warned of and returned.
fn write_run_files(
    ctx: &RunCtx,
    run_dir: &crate::store::RunDir,
    fin: &report::FinalReport,
    merged: &[MergedField],
    copies: &Copies,
    pages: &[Page],
) -> Option<String> {
    let mut write_error = None;
    for result in [
        run_dir.write_text(&run_dir.report_path(), &fin.markdown),
        run_dir.write_json(&run_dir.sources_path(), &fin.sources),
        run_dir.write_json(
            &run_dir.evidence_path(),
            &json!({
                "run_id": ctx.run_id,
                "entity": ctx.anchors,
                "fields": merged,
                "copies": copies.pairs,
                "items": ctx.pages.evidence(),
                "pages": pages,
                "skipped_by_memory": ctx.skipped().iter().map(|(u, r)| json!({"url": u, "reason": r})).collect::<Vec<_>>(),
            }),
        ),
    ] {
        if let Err(e) = result {
            write_error.get_or_insert(e.to_string());
        }
    }
    if let Some(e) = &write_error {
        ctx.emitter.warning(
            MAIN_AGENT,
            crate::protocol::WarningCode::WriteFailed,
            format!("could not write run files: {e}"),
        );
    }
    write_error
}

/// The `sources` event (reading-order numbers to the report's) and the
/// `report` event.
fn emit_sources_and_report(
    ctx: &RunCtx,
    numbered: &[(usize, Page)],
    fin: &report::FinalReport,
    report_path: Option<String>,
) {
    // Rows and `source` events number pages in reading order; the report
    // renumbers by first citation. This maps one to the other.
    let mapping = numbered
        .iter()
        .map(|(n, p)| SourceNumber {
            index: *n,
            report: fin.sources.iter().find(|s| s.url == p.url).map(|s| s.index),
            url: p.url.clone(),
        })
        .collect();
    ctx.emitter
        .emit(MAIN_AGENT, EventBody::Sources { sources: mapping });
    ctx.emitter.emit(
        MAIN_AGENT,
        EventBody::Report {
            markdown: fin.markdown.clone(),
            report_path,
        },
    );
}

/// The `usage` event; returns what was spent and how long the run took,
/// as that event says.
fn emit_usage(
    ctx: &RunCtx,
    fin: &report::FinalReport,
    claims: ClaimSupport,
) -> (super::budget::Spent, std::time::Duration) {
    let spent = ctx.budget.spent();
    let duration = ctx.budget.elapsed();
    let models = ctx.meter.snapshot();
    let input: u64 = models.iter().map(|m| m.input_tokens).sum();
    let output: u64 = models.iter().map(|m| m.output_tokens).sum();
    let cached: u64 = models.iter().map(|m| m.cached_input_tokens).sum();
    ctx.emitter.emit(
        MAIN_AGENT,
        EventBody::Usage {
            tool_calls: spent.tool_calls,
            total_tokens: spent.tokens,
            model_calls: spent.model_calls,
            input_tokens: input,
            output_tokens: output,
            cached_input_tokens: cached,
            cost_usd: spent.usd,
            duration_ms: duration.as_millis() as u64,
            sources: fin.sources.len(),
            limits: serde_json::to_value(ctx.budget.limits()).unwrap_or(json!({})),
            models,
            claims: Some(claims),
            replayed_calls: ctx.replay.as_ref().map(|r| r.replayed_calls()),
        },
    );
    (spent, duration)
}
