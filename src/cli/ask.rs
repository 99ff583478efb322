use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::render::Renderer;
use super::{CliError, CliResult, Exit, GlobalArgs};
use crate::app::{self, Note, NoteLevel, RunInputs, SetupError, Source};
use crate::config::{Settings, settings};
use crate::engine::{Engine, EngineConfig};
use crate::protocol::{AskRequest, EntityAnchors, Op};

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The research question.
    pub question: String,
    /// Research a local corpus instead of the web: a JSON corpus file or a folder of .md/.txt/.html files.
    #[arg(long, value_name = "PATH")]
    pub corpus: Option<PathBuf>,
    /// Use the offline extractive model even when an API key is set.
    #[arg(long)]
    pub offline: bool,
    /// Point the model client at another OpenAI-compatible endpoint for this
    /// run; it must be OPENAI_BASE_URL or on DRA_ALLOWED_BASE_URLS.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Research the web with the configured search backend, even offline
    /// (online runs without --corpus always do).
    #[arg(long, conflicts_with = "corpus")]
    pub web: bool,
    /// The entity researched (default: the first proper name in the question).
    #[arg(long, value_name = "NAME")]
    pub entity: Option<String>,
    /// The entity's official domain (identity anchor).
    #[arg(long, value_name = "DOMAIN")]
    pub domain: Option<String>,
    /// The entity's country (identity anchor).
    #[arg(long)]
    pub country: Option<String>,
    /// The entity's city (identity anchor).
    #[arg(long)]
    pub city: Option<String>,
    /// The entity's industry keywords (identity anchor; repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub industry: Vec<String>,
    /// A look-alike entity to exclude (repeatable).
    #[arg(long, value_name = "NAME")]
    pub exclude: Vec<String>,
    /// Model tier (extra-low, low, mid, high) [env: DRA_MODEL_TIER].
    #[arg(long)]
    pub tier: Option<String>,
    /// Dollar ceiling for the run [env: DRA_MAX_USD].
    #[arg(long, value_name = "USD")]
    pub max_usd: Option<String>,
    /// Wall-time ceiling, e.g. 90s, 10m [env: DRA_DEADLINE].
    #[arg(long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// Tool-call ceiling [env: DRA_MAX_TOOL_CALLS].
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<String>,
    /// Neither read nor write the lessons learnt across runs [env: DRA_MEMORY=false].
    #[arg(long)]
    pub no_memory: bool,
    /// Fail the run if the model answers without calling any tool [env: DRA_REQUIRE_TOOL_CALL].
    #[arg(long)]
    pub require_tool_call: bool,
    /// Sub-researchers running at once [env: DRA_MAX_PARALLEL].
    #[arg(long, value_name = "N")]
    pub max_parallel: Option<String>,
    /// An MCP server: `[LABEL=]URL` (streamable HTTP) or `[LABEL=]COMMAND ARGS`
    /// (stdio); repeat for several. Replaces `[[mcp]]` and DRA_MCP_* servers.
    #[arg(long = "mcp", value_name = "[LABEL=]URL|COMMAND")]
    pub mcp: Vec<String>,
}

fn flags(args: &AskArgs) -> BTreeMap<&'static str, String> {
    let mut f = BTreeMap::new();
    let mut put = |k: &'static str, v: &Option<String>| {
        if let Some(v) = v {
            f.insert(k, v.clone());
        }
    };
    put(settings::MODEL_TIER, &args.tier);
    put(settings::MAX_USD, &args.max_usd);
    put(settings::DEADLINE, &args.deadline);
    put(settings::MAX_TOOL_CALLS, &args.max_tool_calls);
    put(settings::MAX_PARALLEL, &args.max_parallel);
    if args.offline {
        f.insert(settings::OFFLINE, "true".into());
    }
    if args.no_memory {
        f.insert(settings::MEMORY, "false".into());
    }
    if args.require_tool_call {
        f.insert(settings::REQUIRE_TOOL_CALL, "true".into());
    }
    f
}

pub fn run(g: &GlobalArgs, args: &AskArgs) -> CliResult {
    if args.question.trim().is_empty() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "the question is empty: dra ask \"<your question>\""
        )));
    }
    let config = super::resolve_config_with_mcp(g, flags(args), args.mcp.clone())?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
    let settings = Settings::from_config(&config);
    let anchors = EntityAnchors {
        name: args.entity.clone(),
        domain: args.domain.clone(),
        country: args.country.clone(),
        city: args.city.clone(),
        industry: args
            .industry
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        exclude: args.exclude.clone(),
        inferred: false,
    };
    let prepared = app::prepare(
        &settings,
        config.redacted(),
        RunInputs {
            question: args.question.clone(),
            source: match (&args.corpus, args.web) {
                (Some(path), _) => Source::Corpus(path.clone()),
                (None, true) => Source::Web,
                (None, false) => Source::Default,
            },
            base_url: args.base_url.clone(),
            anchors,
            corpus_progress: corpus_progress(g),
        },
    )
    .map_err(setup_error)?;
    print_notes(g, &prepared.notes);
    let runtime = runtime()?;
    runtime.block_on(drive(g, prepared.engine, prepared.request))
}

/// "loading corpus... n of N files" on stderr once a load takes a second.
fn corpus_progress(g: &GlobalArgs) -> Option<std::sync::Arc<crate::corpus::Progress>> {
    if g.quiet || g.json {
        return None;
    }
    let started = std::time::Instant::now();
    Some(std::sync::Arc::new(move |n, total| {
        if started.elapsed() >= std::time::Duration::from_secs(1) {
            errln!("loading corpus... {n} of {total} files");
        }
    }))
}

/// Warnings always; what the run will do unless `-q` or `--json`.
pub fn print_notes(g: &GlobalArgs, notes: &[Note]) {
    for n in notes {
        match n.level {
            NoteLevel::Warning => errln!("warning: {}", n.text),
            NoteLevel::Info if !g.quiet && !g.json => errln!("dra: {}", n.text),
            NoteLevel::Info => {}
        }
    }
}

pub fn setup_error(e: SetupError) -> CliError {
    match e {
        SetupError::Usage(m) => CliError::Usage(anyhow::anyhow!(m)),
        SetupError::Failure(m) => CliError::Failure(anyhow::anyhow!(m)),
    }
}

pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(CliError::Failure)
}

async fn drive(g: &GlobalArgs, config: EngineConfig, request: AskRequest) -> CliResult {
    let mut handle = Engine::spawn(config)
        .context("cannot start the run")
        .map_err(CliError::Failure)?;
    let _ = handle.ops.send(Op::Ask(request)).await;
    let mut renderer = Renderer::new(g);
    let mut interrupts = 0;
    loop {
        tokio::select! {
            ev = handle.events.recv() => match ev {
                Some(ev) => renderer.on_event(&ev),
                None => break,
            },
            _ = tokio::signal::ctrl_c() => {
                interrupts += 1;
                if interrupts > 1 {
                    renderer.abandon();
                    errln!("interrupted again: exiting without waiting");
                    return Ok(Exit::Interrupted);
                }
                renderer.note("interrupt: finishing up and saving what was found (Ctrl-C again to quit now)");
                let _ = handle.ops.send(Op::Interrupt).await;
            }
        }
    }
    let summary = handle
        .join
        .await
        .context("the run task failed")
        .map_err(CliError::Failure)?
        .context("could not write the run's events")
        .map_err(CliError::Failure)?;
    let Some(summary) = summary else {
        return Err(CliError::Failure(anyhow::anyhow!(
            "the run ended before it started"
        )));
    };
    renderer.finish(&summary);
    Ok(Exit::for_status(summary.state, summary.reason))
}
