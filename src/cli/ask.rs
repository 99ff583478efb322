use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use super::render::Renderer;
use super::{CliError, CliResult, Exit, GlobalArgs};
use crate::config::{self, Config, settings};
use crate::corpus::Corpus;
use crate::engine::budget::Limits;
use crate::engine::model::ModelRouter;
use crate::engine::model::offline::OfflineModel;
use crate::engine::model::openai;
use crate::engine::tools::web::{CorpusWeb, Fetcher, SearchBackend};
use crate::engine::{Engine, EngineConfig};
use crate::protocol::{AskRequest, EntityAnchors, Op, PROTOCOL_VERSION, RunMode};
use crate::store::{RunDir, RunHeader, new_run_id};

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

fn limits(c: &Config) -> Limits {
    let d = Limits::default();
    Limits {
        max_tool_calls: c.uint(settings::MAX_TOOL_CALLS).unwrap_or(d.max_tool_calls),
        max_total_tokens: c
            .uint(settings::MAX_TOTAL_TOKENS)
            .unwrap_or(d.max_total_tokens),
        max_usd: c.float(settings::MAX_USD).unwrap_or(d.max_usd),
        deadline: c.seconds(settings::DEADLINE).unwrap_or(d.deadline),
        max_steps: c.uint(settings::RECURSION_LIMIT).unwrap_or(d.max_steps),
    }
}

fn domain_prompt(c: &Config) -> Result<Option<String>, CliError> {
    if let Some(p) = c.text(settings::DOMAIN_PROMPT) {
        return Ok(Some(p.to_string()));
    }
    match c.path(settings::DOMAIN_PROMPT_FILE) {
        None => Ok(None),
        Some(path) => std::fs::read_to_string(&path)
            .map(Some)
            .with_context(|| format!("cannot read DRA_DOMAIN_PROMPT_FILE {}", path.display()))
            .map_err(CliError::Usage),
    }
}

pub fn run(g: &GlobalArgs, args: &AskArgs) -> CliResult {
    if args.question.trim().is_empty() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "the question is empty: dra ask \"<your question>\""
        )));
    }
    let config = super::resolve_config(g, flags(args))?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
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
    let setup = prepare(
        g,
        &config,
        RunInputs {
            question: &args.question,
            source: match (&args.corpus, args.web) {
                (Some(path), _) => Source::Corpus(path),
                (None, true) => Source::Web,
                (None, false) => Source::Default,
            },
            base_url: args.base_url.as_deref(),
            anchors,
        },
    )?;
    let runtime = runtime()?;
    runtime.block_on(drive(g, setup.engine, setup.request))
}

/// What a run is asked to do.
/// Where a run's evidence comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// The web when online, else the embedded corpus.
    Default,
    Embedded,
    Corpus(&'a Path),
    /// The configured web search backend, even offline.
    Web,
}

pub struct RunInputs<'a> {
    pub question: &'a str,
    pub source: Source<'a>,
    /// A per-run model endpoint (checked against the allowlist).
    pub base_url: Option<&'a str>,
    pub anchors: EntityAnchors,
}

/// A run ready to start.
pub struct RunSetup {
    pub engine: EngineConfig,
    pub request: AskRequest,
}

pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
        .map_err(CliError::Failure)
}

/// Loads the corpus, picks the mode and models, creates the run directory.
pub fn prepare(
    g: &GlobalArgs,
    config: &Config,
    inputs: RunInputs<'_>,
) -> Result<RunSetup, CliError> {
    let has_key = config.api_key().is_some();
    let online = has_key && !config.bool(settings::OFFLINE);
    let mode = if online {
        RunMode::Online
    } else {
        RunMode::Offline
    };
    let chatty = !g.quiet;
    let configured_base = config.text(settings::OPENAI_BASE_URL).unwrap_or_default();
    if let Some(requested) = inputs.base_url
        && !openai::base_url_allowed(
            configured_base,
            requested,
            &config.list(settings::ALLOWED_BASE_URLS),
        )
    {
        return Err(CliError::Usage(anyhow::anyhow!(
            "refusing --base-url {requested}: a run may only use OPENAI_BASE_URL ({configured_base}) or a URL listed in DRA_ALLOWED_BASE_URLS, so the API key cannot be sent elsewhere"
        )));
    }
    let models = if online {
        openai::router_with_base(config, inputs.base_url)
            .map_err(|e| CliError::Usage(anyhow::anyhow!("cannot set up the model client: {e}")))?
    } else {
        ModelRouter::single(Arc::new(OfflineModel))
    };
    // Online runs default to the web; offline ones to the embedded corpus.
    let source = match inputs.source {
        Source::Default if online => Source::Web,
        other => other,
    };
    let (search, fetcher, backend_label): (Arc<dyn SearchBackend>, Arc<dyn Fetcher>, String) =
        match source {
            Source::Corpus(path) => {
                let corpus =
                    Corpus::from_path(path).map_err(|e| CliError::Usage(anyhow::anyhow!(e)))?;
                let label = format!("the corpus {} ({} documents)", path.display(), corpus.len());
                let web = CorpusWeb::new(Arc::new(corpus));
                (Arc::new(web.clone()), Arc::new(web), label)
            }
            Source::Web => {
                let Some(search) = crate::web::search_backend_from_config(config) else {
                    return Err(CliError::Usage(anyhow::anyhow!(
                        "no web search backend is configured: set TAVILY_API_KEY, SEARXNG_URL or BRAVE_API_KEY, or research local documents with --corpus PATH (`dra doctor` shows what is set)"
                    )));
                };
                let fetcher = crate::web::HttpFetcher::from_config(config).map_err(|e| {
                    CliError::Usage(anyhow::anyhow!(
                        "{e}: fix DRA_FETCH_ALLOWLIST (host or host:port, comma-separated)"
                    ))
                })?;
                let label = format!("the web (search: {})", search.name());
                (search, Arc::new(fetcher), label)
            }
            Source::Default | Source::Embedded => {
                let corpus =
                    Corpus::embedded().map_err(|e| CliError::Failure(anyhow::anyhow!(e)))?;
                if chatty && matches!(inputs.source, Source::Default) {
                    errln!(
                        "note: no --corpus or --web: researching the embedded corpus (pages about a fictional company)"
                    );
                }
                let label = format!(
                    "the embedded corpus ({} documents about a fictional company)",
                    corpus.len()
                );
                let web = CorpusWeb::new(Arc::new(corpus));
                (Arc::new(web.clone()), Arc::new(web), label)
            }
        };
    if !g.json && chatty {
        match mode {
            RunMode::Offline => errln!(
                "dra: offline mode: a deterministic extractive model (no language model) reads {backend_label}"
            ),
            RunMode::Online => errln!(
                "dra: tier {} ({}) at {} reads {backend_label}",
                config.tier().name,
                config.tier().research.slug,
                inputs.base_url.unwrap_or(configured_base)
            ),
        }
    }

    let runs_dir = config.runs_dir();
    config::dir_is_writable(&runs_dir)
        .with_context(|| {
            format!(
                "the runs dir {} is not writable; choose another with --runs-dir or DRA_RUNS_DIR",
                runs_dir.display()
            )
        })
        .map_err(CliError::Usage)?;
    let run_id = new_run_id();
    let run_dir = RunDir::create(&runs_dir, &run_id)
        .with_context(|| format!("cannot create a run directory in {}", runs_dir.display()))
        .map_err(CliError::Failure)?;
    let header = RunHeader {
        kind: "run_header".into(),
        protocol_version: PROTOCOL_VERSION,
        dra_version: env!("CARGO_PKG_VERSION").into(),
        run_id: run_id.clone(),
        question: inputs.question.to_string(),
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        settings: config.redacted(),
    };
    let engine = EngineConfig {
        run_dir,
        header,
        mode,
        tier: config.tier(),
        models,
        search,
        fetcher,
        limits: limits(config),
        max_parallel: config.uint(settings::MAX_PARALLEL).unwrap_or(4) as usize,
        backend_label,
        domain_prompt: domain_prompt(config)?,
        require_tool_call: config.bool(settings::REQUIRE_TOOL_CALL),
        memory: config
            .bool(settings::MEMORY)
            .then(|| config::default_data_dir().map(|d| d.join("memory")))
            .flatten(),
    };
    Ok(RunSetup {
        engine,
        request: AskRequest {
            question: inputs.question.to_string(),
            anchors: inputs.anchors,
        },
    })
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
