use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::exit::Signal;
use super::render::Renderer;
use super::{CliError, CliResult, Exit, GlobalArgs};
use crate::app::{self, Note, NoteLevel, RunInputs, SetupError, Source};
use crate::config::{Settings, settings};
use crate::engine::clarifier::ClarifyMode;
use crate::engine::{Engine, EngineConfig};
use crate::protocol::{AskRequest, EntityAnchors, Event, EventBody, Op};

/// Budget flags, shared by `ask` and `resume` (where spending so far counts).
#[derive(Debug, Args)]
pub struct BudgetArgs {
    /// Dollar ceiling for the run [env: DRA_MAX_USD].
    #[arg(help_heading = "Budget", long, value_name = "USD")]
    pub max_usd: Option<String>,
    /// Wall-time ceiling for this invocation, e.g. 90s, 10m [env: DRA_DEADLINE].
    #[arg(help_heading = "Budget", long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// Tool-call ceiling [env: DRA_MAX_TOOL_CALLS].
    #[arg(help_heading = "Budget", long, value_name = "N")]
    pub max_tool_calls: Option<String>,
    /// Sub-researchers running at once [env: DRA_MAX_PARALLEL].
    #[arg(help_heading = "Budget", long, value_name = "N")]
    pub max_parallel: Option<String>,
}

impl BudgetArgs {
    /// The flags given, as settings-table entries (flags layer).
    pub fn put_into(&self, f: &mut BTreeMap<&'static str, String>) {
        for (key, value) in [
            (settings::MAX_USD, &self.max_usd),
            (settings::DEADLINE, &self.deadline),
            (settings::MAX_TOOL_CALLS, &self.max_tool_calls),
            (settings::MAX_PARALLEL, &self.max_parallel),
        ] {
            if let Some(v) = value {
                f.insert(key, v.clone());
            }
        }
    }
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The research question (line breaks allowed); `-` reads it from standard input.
    #[arg(
        required_unless_present = "question_file",
        conflicts_with = "question_file"
    )]
    pub question: Option<String>,
    /// Read the research question from a file.
    #[arg(help_heading = "Question", long, value_name = "FILE")]
    pub question_file: Option<PathBuf>,
    /// Follow up a finished run: a new turn on its thread that reuses the
    /// pages it read, sees what it asked and answered, and keeps its
    /// subject and corpus unless the question or flags name others. RUN is
    /// its id, a unique prefix, its directory, or `last`.
    #[arg(help_heading = "Question", long = "continue", value_name = "RUN")]
    pub continue_run: Option<String>,
    /// Follow this skill of yours (a folder of DRA_SKILLS_DIR): it is read
    /// before planning, whether or not its description fits the question.
    #[arg(help_heading = "Question", long, value_name = "NAME")]
    pub skill: Option<String>,
    /// Compare with an earlier run (its id, a unique prefix, its directory,
    /// or `last`): fresh research, then what changed since opens the report
    /// and is written to changes.md (as `dra diff`).
    #[arg(help_heading = "Question", long, value_name = "RUN")]
    pub since: Option<String>,
    /// With --since: exit 9 when an answer changed, appeared or was
    /// retracted, 0 when none did (a failed run keeps its own code).
    #[arg(help_heading = "Question", long, requires = "since")]
    pub exit_code: bool,
    /// Research a local corpus instead of the web: a JSON corpus file or a folder of .md/.txt/.html files.
    #[arg(help_heading = "Sources", long, value_name = "PATH")]
    pub corpus: Option<PathBuf>,
    /// The source type of corpus files that declare none (e.g. official for
    /// your own documentation; default: other) [env: DRA_CORPUS_SOURCE_TYPE].
    #[arg(help_heading = "Sources", long, value_name = "TYPE", value_parser = ["regulator", "official", "news", "press_release", "review", "forum", "blog", "other"])]
    pub source_type: Option<String>,
    /// Research the web with the configured search backend, even offline
    /// (online runs without --corpus always do).
    #[arg(help_heading = "Sources", long, conflicts_with = "corpus")]
    pub web: bool,
    /// An MCP server: `[LABEL=]URL` (streamable HTTP) or `[LABEL=]COMMAND ARGS`
    /// (stdio); repeat for several. Replaces `[[mcp]]` and DRA_MCP_* servers.
    #[arg(
        help_heading = "Sources",
        long = "mcp",
        value_name = "[LABEL=]URL|COMMAND"
    )]
    pub mcp: Vec<String>,
    /// The entity researched (default: the first proper name in the question).
    #[arg(help_heading = "Subject", long, value_name = "NAME")]
    pub entity: Option<String>,
    /// The entity's official domain (identity anchor).
    #[arg(help_heading = "Subject", long, value_name = "DOMAIN")]
    pub domain: Option<String>,
    /// The entity's country (identity anchor).
    #[arg(help_heading = "Subject", long)]
    pub country: Option<String>,
    /// The entity's city (identity anchor).
    #[arg(help_heading = "Subject", long)]
    pub city: Option<String>,
    /// The entity's industry keywords (identity anchor; repeatable or comma-separated).
    #[arg(help_heading = "Subject", long, value_delimiter = ',')]
    pub industry: Vec<String>,
    /// A look-alike entity to exclude (repeatable).
    #[arg(help_heading = "Subject", long, value_name = "NAME")]
    pub exclude: Vec<String>,
    /// Model tier (extra-low, low, mid, high) [env: DRA_MODEL_TIER].
    #[arg(help_heading = "Model", long, value_hint = clap::ValueHint::Other)]
    pub tier: Option<String>,
    /// Use the offline extractive model even when an API key is set.
    #[arg(help_heading = "Model", long)]
    pub offline: bool,
    /// Point the model client at another OpenAI-compatible endpoint for this
    /// run; it must be OPENAI_BASE_URL or on DRA_ALLOWED_BASE_URLS.
    #[arg(help_heading = "Model", long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Domain guidance for both system prompts, as a DOMAIN CONTEXT block
    /// that cannot override dra's own rules: inline TEXT, or @FILE to read
    /// it from a file (`@@` for text that starts with `@`)
    /// [env: DRA_DOMAIN_PROMPT, DRA_DOMAIN_PROMPT_FILE].
    #[arg(help_heading = "Model", long, value_name = "TEXT|@FILE")]
    pub domain_prompt: Option<String>,
    /// Neither read nor write the lessons learnt across runs [env: DRA_MEMORY=false].
    #[arg(help_heading = "Model", long)]
    pub no_memory: bool,
    /// Fail the run if the model answers without calling any tool [env: DRA_REQUIRE_TOOL_CALL].
    #[arg(help_heading = "Model", long)]
    pub require_tool_call: bool,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Never ask clarifying questions: research anyway and state the
    /// assumption in the report [env: DRA_CLARIFY=false].
    #[arg(help_heading = "Interaction", long)]
    pub no_clarify: bool,
    /// Never read stdin: clarifying questions end the run (exit 3) instead
    /// of being asked on the terminal.
    #[arg(help_heading = "Interaction", long)]
    pub no_input: bool,
    /// Answers to the run's first clarifying questions, for scripted runs: a
    /// JSON list of strings or one per line, in question order.
    #[arg(help_heading = "Interaction", long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
}

fn flags(args: &AskArgs) -> Result<BTreeMap<&'static str, String>, CliError> {
    let mut f = BTreeMap::new();
    let mut put = |k: &'static str, v: &Option<String>| {
        if let Some(v) = v {
            f.insert(k, v.clone());
        }
    };
    put(settings::MODEL_TIER, &args.tier);
    args.budget.put_into(&mut f);
    if args.offline {
        f.insert(settings::OFFLINE, "true".into());
    }
    if args.no_memory {
        f.insert(settings::MEMORY, "false".into());
    }
    if args.no_clarify {
        f.insert(settings::CLARIFY, "false".into());
    }
    if args.require_tool_call {
        f.insert(settings::REQUIRE_TOOL_CALL, "true".into());
    }
    if let Some(v) = &args.domain_prompt {
        put_domain_prompt(v, &mut f)?;
    }
    if let Some(t) = &args.source_type {
        f.insert(settings::CORPUS_SOURCE_TYPE, t.clone());
    }
    Ok(f)
}

/// `--domain-prompt TEXT` sets DRA_DOMAIN_PROMPT, `--domain-prompt @FILE`
/// DRA_DOMAIN_PROMPT_FILE (flags layer); `@@TEXT` is the text `@TEXT`.
pub fn put_domain_prompt(
    value: &str,
    f: &mut BTreeMap<&'static str, String>,
) -> Result<(), CliError> {
    match value.strip_prefix('@') {
        Some(rest) if rest.starts_with('@') => {
            f.insert(settings::DOMAIN_PROMPT, rest.to_string());
        }
        Some(file) if file.trim().is_empty() => {
            return Err(CliError::Usage(anyhow::anyhow!(
                "--domain-prompt @ needs a file name after the @ (or give the text itself)"
            )));
        }
        Some(file) => {
            f.insert(settings::DOMAIN_PROMPT_FILE, file.to_string());
        }
        None => {
            f.insert(settings::DOMAIN_PROMPT, value.to_string());
        }
    }
    Ok(())
}

pub fn run(g: &GlobalArgs, args: &AskArgs) -> CliResult {
    let question = read_question(args)?;
    let config = super::resolve_config_with_mcp(g, flags(args)?, args.mcp.clone())?;
    for w in &config.warnings {
        errln!("warning: {}", super::shown(w));
    }
    let settings = Settings::from_config(&config);
    let answers = match &args.answers {
        Some(path) => Some(read_answers(path)?),
        None => None,
    };
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
    let continues = args
        .continue_run
        .as_deref()
        .map(|spec| {
            crate::store::checkpoint::find_run(
                &settings.runs_dir,
                (spec.trim() != "last").then_some(spec),
            )
        })
        .transpose()
        .map_err(|e| CliError::Usage(anyhow::anyhow!("--continue: {e}")))?;
    let since = since_run(&settings, args)?;
    let prepared = app::prepare(
        &settings,
        config.redacted(),
        RunInputs {
            question,
            source: match (&args.corpus, args.web) {
                (Some(path), _) => Source::Corpus(path.clone()),
                (None, true) => Source::Web,
                (None, false) => Source::Default,
            },
            base_url: args.base_url.clone(),
            anchors,
            corpus_progress: corpus_progress(g),
            mcp_flags: args.mcp.clone(),
            skill: args.skill.clone(),
            since: since.clone(),
            continues,
            answers: answers.into_iter().collect(),
            // On a terminal, questions are asked here and the run goes on.
            answers_in_process: super::clarify::can_prompt(g, args.no_input),
        },
    )
    .map_err(setup_error)?;
    print_notes(g, &prepared.notes);
    let runtime = runtime()?;
    let new_run = prepared.engine.run_dir.path().to_path_buf();
    let outcome = runtime.block_on(drive(g, prepared.engine, prepared.request));
    // After a second signal nothing is waited for (the record is closed).
    runtime.shutdown_background();
    match (outcome, &since) {
        (Ok(Exit::Ok), Some(earlier)) if args.exit_code => {
            Ok(match crate::changes::between(earlier, &new_run) {
                Ok(c) if c.any() => Exit::Changed,
                _ => Exit::Ok,
            })
        }
        (outcome, _) => outcome,
    }
}

/// The earlier run `--since` names: it must have finished with its
/// evidence merged, or there is nothing to compare with.
fn since_run(
    settings: &crate::config::Settings,
    args: &AskArgs,
) -> Result<Option<PathBuf>, CliError> {
    let Some(spec) = args.since.as_deref() else {
        return Ok(None);
    };
    let dir = crate::store::checkpoint::find_run(
        &settings.runs_dir,
        (spec.trim() != "last").then_some(spec),
    )
    .map_err(|e| CliError::Usage(anyhow::anyhow!("--since: {e}")))?;
    if !dir.join("evidence.json").is_file() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "--since: run {} has no evidence.json (it has not finished): finish it with `dra resume`, or compare with another run",
            dir.display()
        )));
    }
    Ok(Some(dir))
}

/// The question as asked: the argument, standard input (`-`) or a file.
fn read_question(args: &AskArgs) -> Result<String, CliError> {
    let usage = |m: String| CliError::Usage(anyhow::anyhow!(m));
    let text = match (&args.question_file, args.question.as_deref()) {
        (Some(path), _) => {
            let bytes = std::fs::read(path).map_err(|e| {
                usage(format!(
                    "cannot read the question file {}: {e}",
                    path.display()
                ))
            })?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if crate::document::single_line(&text).is_empty() {
                return Err(usage(format!(
                    "the question file {} is empty",
                    path.display()
                )));
            }
            text
        }
        (None, Some("-")) => {
            use std::io::{IsTerminal, Read};
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(usage(
                    "`dra ask -` reads the question from standard input, which is a terminal: pipe it in (`echo \"...\" | dra ask -`) or use --question-file FILE".into(),
                ));
            }
            let mut bytes = Vec::new();
            stdin
                .lock()
                .take(MAX_QUESTION_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| usage(format!("cannot read the question from standard input: {e}")))?;
            if bytes.len() as u64 > MAX_QUESTION_BYTES {
                return Err(usage(format!(
                    "the question on standard input is longer than {} KiB",
                    MAX_QUESTION_BYTES / 1024
                )));
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if crate::document::single_line(&text).is_empty() {
                return Err(usage(
                    "`dra ask -` found no question on standard input (it was empty)".into(),
                ));
            }
            text
        }
        (None, Some(q)) => q.to_string(),
        (None, None) => String::new(),
    };
    if crate::document::single_line(&text).is_empty() {
        return Err(usage(
            "the question is empty (control characters do not count): dra ask \"<your question>\""
                .into(),
        ));
    }
    Ok(text)
}

/// Standard input is read up to this much: a question, not a corpus.
const MAX_QUESTION_BYTES: u64 = 1024 * 1024;

/// "loading corpus... n of N files" on stderr once a load takes a second,
/// at most once a second.
fn corpus_progress(g: &GlobalArgs) -> Option<std::sync::Arc<crate::corpus::Progress>> {
    if g.quiet || g.json {
        return None;
    }
    let started = std::time::Instant::now();
    // Whole seconds since the start at the last line printed.
    let printed = std::sync::atomic::AtomicU64::new(0);
    Some(std::sync::Arc::new(move |n, total, _bytes| {
        let second = started.elapsed().as_secs();
        if second >= 1 && printed.swap(second, std::sync::atomic::Ordering::Relaxed) < second {
            errln!("loading corpus... {n} of {total} files");
        }
    }))
}

/// Loader warnings shown before the rest are counted (`-v` shows all).
const LOADER_SHOWN: usize = 3;

/// Warnings always; what the run will do unless `-q` or `--json`; the
/// corpus loader's warnings a few at a time, then how many more (all with
/// `-v`, none with `-q`; with `--json` they are events instead).
pub fn print_notes(g: &GlobalArgs, notes: &[Note]) {
    let loader: Vec<&Note> = notes
        .iter()
        .filter(|n| n.level == NoteLevel::Loader)
        .collect();
    let shown = if g.verbose > 0 {
        loader.len()
    } else {
        LOADER_SHOWN
    };
    // With --json they are `warning` events (`corpus_loader`) on stdout.
    if !g.quiet && !g.json {
        for n in loader.iter().take(shown) {
            errln!("warning: {}", super::shown(&n.text));
        }
        if loader.len() > shown {
            errln!(
                "warning: {} more from the corpus loader (-v lists them)",
                loader.len() - shown
            );
        }
    }
    for n in notes {
        match n.level {
            NoteLevel::Warning => errln!("warning: {}", super::shown(&n.text)),
            NoteLevel::Info if !g.quiet && !g.json => errln!("dra: {}", super::shown(&n.text)),
            NoteLevel::Info | NoteLevel::Loader => {}
        }
    }
}

pub fn setup_error(e: SetupError) -> CliError {
    match e {
        SetupError::Usage(m) => CliError::Usage(anyhow::anyhow!(m)),
        SetupError::Failure(m) => CliError::Failure(anyhow::anyhow!(m)),
        // The chain prints as "what: cause".
        e @ SetupError::Io { .. } => CliError::Failure(anyhow::Error::new(e)),
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

pub(super) async fn drive(g: &GlobalArgs, config: EngineConfig, request: AskRequest) -> CliResult {
    let interactive = config.clarify == ClarifyMode::Wait;
    let mut handle = Engine::spawn(config)
        .context("cannot start the run")
        .map_err(CliError::Failure)?;
    let _ = handle.ops.send(Op::Ask(request)).await;
    let mut renderer = Renderer::new(g);
    let mut signals = Signals::new()?;
    let mut first: Option<Signal> = None;
    let mut pause = super::next_step::Pause::default();
    // Ctrl-C at the prompt reaches dra twice: as the prompt's interrupted
    // read and as SIGINT. Both are one interrupt.
    let mut prompt_cut: Option<std::time::Instant> = None;
    loop {
        tokio::select! {
            ev = handle.events.recv() => match ev {
                Some(Event { body: EventBody::Clarification { questions }, .. }) if interactive => {
                    if let super::clarify::Asked::Interrupted = super::clarify::ask(&renderer, &handle.ops, &questions).await {
                        first.get_or_insert(Signal::Interrupt);
                        prompt_cut = Some(std::time::Instant::now());
                        renderer.note("interrupt: finishing up and saving what was found (Ctrl-C again to quit now)");
                        let _ = handle.ops.send(Op::Interrupt).await;
                    }
                }
                Some(ev) => {
                    pause.saw(&ev, g);
                    renderer.on_event(&ev);
                }
                None => break,
            },
            sig = signals.recv() => {
                if sig == Signal::Interrupt && prompt_cut.take().is_some_and(|t| t.elapsed() < std::time::Duration::from_secs(1)) {
                    continue;
                }
                if first.is_some() {
                    renderer.abandon();
                    let detail = format!("{} again: dra exited without waiting for the run to finish; no report was written", sig.name());
                    handle.closer.close(detail, std::time::Duration::from_secs(2)).await;
                    errln!("{} again: exiting without waiting", sig.name());
                    return Ok(sig.exit());
                }
                first = Some(sig);
                let how = match sig {
                    Signal::Interrupt => "Ctrl-C again to quit now",
                    _ => "a second signal quits now",
                };
                renderer.note(&format!("{}: finishing up and saving what was found ({how})", sig.name()));
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
    for line in super::next_step::lines(&pause, &summary) {
        errln!("{line}");
    }
    Ok(
        match (Exit::for_status(summary.state, summary.reason), first) {
            // SIGTERM and SIGHUP end a run as Ctrl-C does, with their own codes.
            (Exit::Interrupted, Some(sig)) => sig.exit(),
            (exit, _) => exit,
        },
    )
}

/// SIGINT, SIGTERM and SIGHUP, listened for together for the whole run.
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> Result<Self, CliError> {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind| {
            signal(kind)
                .context("cannot listen for signals")
                .map_err(CliError::Failure)
        };
        Ok(Signals {
            int: listen(SignalKind::interrupt())?,
            term: listen(SignalKind::terminate())?,
            hup: listen(SignalKind::hangup())?,
        })
    }

    async fn recv(&mut self) -> Signal {
        tokio::select! {
            Some(()) = self.int.recv() => Signal::Interrupt,
            Some(()) = self.term.recv() => Signal::Terminate,
            Some(()) = self.hup.recv() => Signal::HangUp,
            else => std::future::pending().await,
        }
    }
}

/// Reads `--answers FILE`.
pub fn read_answers(path: &std::path::Path) -> Result<Vec<String>, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::Usage(anyhow::anyhow!(
            "cannot read --answers {}: {e}",
            path.display()
        ))
    })?;
    crate::store::checkpoint::parse_answers(&text)
        .map_err(|e| CliError::Usage(anyhow::anyhow!("--answers {}: {e}", path.display())))
}
