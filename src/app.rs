//! The composition root: from typed [`Settings`] and what the user asked to
//! a ready [`EngineConfig`]. Every entry point (`dra ask`, `dra eval`,
//! `dra resume` and `dra mcp-serve`) builds its run here, so models,
//! search, fetcher, limits and the run directory are chosen in one place.
//! It never prints: what the user should be told comes back as [`Note`]s.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Settings;
use crate::corpus::{Corpus, CorpusWeb};
use crate::engine::Resume;
use crate::engine::clarifier::ClarifyMode;
use crate::engine::model::ModelRouter;
use crate::engine::model::openai;
use crate::engine::offline::OfflineModel;
use crate::engine::replay::Replay;
use crate::engine::thread::{self, EarlierTurn, Thread, ThreadCache};
use crate::engine::{Engine, EngineConfig, RunSummary};
use crate::ports::{Fetcher, SearchBackend};
use crate::protocol::{
    AskRequest, EntityAnchors, EventBody, Op, PROTOCOL_VERSION, RunMode, StatusReason, StatusState,
};
use crate::store::checkpoint::{self, RunLock};
use crate::store::{RunDir, RunHeader, new_run_id};

/// Where a run's evidence comes from, as asked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The web when online, else the embedded corpus.
    Default,
    Embedded,
    Corpus(PathBuf),
    /// The configured web search backend, even offline.
    Web,
}

/// What a run will actually use: the one decision `dra ask` and
/// `dra doctor` share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceSource {
    Embedded,
    Corpus(PathBuf),
    Web,
    /// Online with no web search backend: the user's own tools (MCP
    /// servers and/or custom tools) are the run's only sources.
    ToolsOnly,
}

/// What a run is asked to do.
#[derive(Clone)]
pub struct RunInputs {
    /// The question as asked (line breaks allowed): kept in the run header;
    /// the engine reads it as one clean line.
    pub question: String,
    pub source: Source,
    /// A per-run model endpoint (checked against the allowlist).
    pub base_url: Option<String>,
    pub anchors: EntityAnchors,
    /// Told how a long corpus load is going (files read, files in all).
    pub corpus_progress: Option<Arc<crate::corpus::Progress>>,
    /// The run this one follows up (`dra ask --continue`): its directory.
    pub continues: Option<PathBuf>,
    /// The `--mcp` flags the run was asked with (`dra resume` connects to
    /// the same servers). Never a bearer or an `env` value: those come from
    /// the configuration, which resume reads again.
    pub mcp_flags: Vec<String>,
    /// The skill the user chose for the run (`--skill`), read before planning.
    pub skill: Option<String>,
    /// The earlier run this one is compared with (`--since`): its directory.
    pub since: Option<PathBuf>,
    /// Answers for the run's clarifications (`--answers`), one set per
    /// clarification, in question order.
    pub answers: Vec<Vec<String>>,
    /// The front end asks clarifying questions itself and sends the
    /// answers in (`Op::Answer`): the run waits instead of stopping.
    pub answers_in_process: bool,
}

/// Something the user should be told before the run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub level: NoteLevel,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteLevel {
    /// What the run will do (hidden by `-q` and `--json`).
    Info,
    /// Something the user may want to change.
    Warning,
    /// A document or folder the corpus loader cut, skipped or read in
    /// part: many at once for a big folder, so shown a few at a time (all
    /// with `-v`; none with `-q`).
    Loader,
}

impl Note {
    fn info(text: impl Into<String>) -> Note {
        Note {
            level: NoteLevel::Info,
            text: text.into(),
        }
    }

    fn warning(text: impl Into<String>) -> Note {
        Note {
            level: NoteLevel::Warning,
            text: text.into(),
        }
    }
}

/// A run ready to start.
pub struct PreparedRun {
    pub engine: EngineConfig,
    pub request: AskRequest,
    pub notes: Vec<Note>,
}

/// Why a run could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The user's input or configuration is wrong (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Something failed that the user did not cause (exit 1).
    #[error("{0}")]
    Failure(String),
    /// Reading or writing a file failed (exit 1): what was being done,
    /// and the error itself as the source.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl SetupError {
    /// The whole message on one line, the cause after a colon.
    pub fn message(&self) -> String {
        match self {
            SetupError::Usage(m) | SetupError::Failure(m) => m.clone(),
            SetupError::Io { what, source } => format!("{what}: {source}"),
        }
    }
}

/// The mode a run will use.
pub fn mode(settings: &Settings) -> RunMode {
    crate::engine::run_mode(settings)
}

/// Decides where evidence comes from: online runs default to the web,
/// offline ones to the embedded corpus; the web needs a search backend.
pub fn evidence_source(settings: &Settings, asked: &Source) -> Result<EvidenceSource, SetupError> {
    let chosen = match asked {
        Source::Corpus(path) => EvidenceSource::Corpus(path.clone()),
        Source::Embedded => EvidenceSource::Embedded,
        Source::Web => EvidenceSource::Web,
        // A deployment's own corpus (DRA_CORPUS) before the web.
        Source::Default if settings.corpus.default.is_some() => {
            EvidenceSource::Corpus(settings.corpus.default.clone().unwrap_or_default())
        }
        Source::Default if settings.online() => EvidenceSource::Web,
        Source::Default => EvidenceSource::Embedded,
    };
    if chosen == EvidenceSource::Web && !crate::web::any_backend(&settings.search) {
        if *asked == Source::Default
            && (!settings.mcp.servers.is_empty()
                || !settings.mcp.replay_only.is_empty()
                || has_custom_tools(settings))
        {
            return Ok(EvidenceSource::ToolsOnly);
        }
        return Err(SetupError::Usage(format!(
            "no web search backend is configured: set {}, or research local documents with --corpus PATH (`dra doctor` shows what is set)",
            crate::web::backend_keys_hint()
        )));
    }
    Ok(chosen)
}

/// Whether the custom tools folder holds a tool (not yet described: a
/// broken one is reported when the run starts).
fn has_custom_tools(settings: &Settings) -> bool {
    settings
        .custom_tools
        .dir
        .as_deref()
        .is_some_and(|d| crate::custom_tools::candidates(d).is_ok_and(|c| !c.is_empty()))
}

/// The largest domain prompt (it goes in every system prompt).
pub const MAX_DOMAIN_PROMPT_BYTES: usize = 64 * 1024;

/// The domain prompt: inline text wins over the file (see
/// `Settings::domain_prompt` for layers). Control characters are removed.
pub fn domain_prompt(settings: &Settings) -> Result<Option<String>, SetupError> {
    let text = match (&settings.domain_prompt, &settings.domain_prompt_file) {
        (Some(p), _) => p.clone(),
        (None, None) => return Ok(None),
        (None, Some(path)) => std::fs::read_to_string(path).map_err(|e| {
            SetupError::Usage(format!(
                "cannot read the domain prompt file {} (--domain-prompt @FILE or DRA_DOMAIN_PROMPT_FILE): {e}",
                path.display()
            ))
        })?,
    };
    if text.len() > MAX_DOMAIN_PROMPT_BYTES {
        return Err(SetupError::Usage(format!(
            "the domain prompt is {} bytes; at most {MAX_DOMAIN_PROMPT_BYTES} are allowed (it goes in every system prompt)",
            text.len()
        )));
    }
    let text = crate::document::sanitize_text(text.trim()).into_owned();
    Ok((!text.is_empty()).then_some(text))
}

/// Where skills are looked for, in order (the first skill of a name wins):
/// `DRA_SKILLS_DIR` (default `./skills`), then `skills/` in the user's
/// config dir (next to config.toml).
pub fn skills_dirs(settings: &Settings) -> Vec<crate::skills::SkillsDir> {
    let mut dirs = vec![crate::skills::SkillsDir {
        path: settings.skills_dir.clone(),
        explicit: settings.skills_dir_explicit,
    }];
    if let Some(config_dir) = crate::config::default_config_path()
        .as_deref()
        .and_then(std::path::Path::parent)
    {
        dirs.push(crate::skills::SkillsDir {
            path: config_dir.join("skills"),
            explicit: false,
        });
    }
    dirs
}

/// The run's skills, with a warning note for each one skipped; `chosen`
/// (`--skill`) must be one of them.
fn load_skills(
    settings: &Settings,
    chosen: Option<&str>,
    notes: &mut Vec<Note>,
) -> Result<Arc<crate::skills::SkillSet>, SetupError> {
    let mut set = crate::skills::load(&skills_dirs(settings));
    if let Some(name) = chosen {
        let skill = set.find(name).map_err(|e| {
            SetupError::Usage(format!(
                "--skill: {e} (skills are folders with a SKILL.md in DRA_SKILLS_DIR)"
            ))
        })?;
        set.chosen = Some(skill.name.clone());
    }
    for s in &set.skipped {
        notes.push(Note::warning(format!(
            "skill {} skipped: {}",
            s.path.display(),
            s.reason
        )));
    }
    if !set.is_empty() {
        let names: Vec<&str> = set.skills.iter().map(|s| s.name.as_str()).collect();
        notes.push(Note::info(format!(
            "{} skill(s) available: {}",
            names.len(),
            names.join(", ")
        )));
    }
    Ok(Arc::new(set))
}

/// The web of a run whose only sources are MCP servers: search and fetch
/// explain that, so the model turns to the MCP tools.
struct NoWeb;

const NO_WEB: &str = "no web search backend is configured in this run: use the MCP tools (named label__tool) or the custom tools instead";

#[async_trait::async_trait]
impl SearchBackend for NoWeb {
    fn name(&self) -> &str {
        "none"
    }

    async fn search(
        &self,
        _query: &str,
        _max_results: usize,
    ) -> Result<Vec<crate::ports::SearchHit>, crate::ports::WebError> {
        Err(crate::ports::WebError::Refused(NO_WEB.into()))
    }
}

#[async_trait::async_trait]
impl Fetcher for NoWeb {
    async fn fetch(
        &self,
        _url: &str,
    ) -> Result<crate::document::RawDocument, crate::ports::WebError> {
        Err(crate::ports::WebError::Refused(NO_WEB.into()))
    }
}

type Backends = (Arc<dyn SearchBackend>, Arc<dyn Fetcher>, String);

/// How a corpus is loaded under these settings (caps; dra's own runs
/// folder is never evidence).
pub fn corpus_options(settings: &Settings) -> crate::corpus::LoadOptions {
    crate::corpus::LoadOptions {
        max_file_bytes: settings.corpus.max_file_bytes,
        max_document_bytes: settings.corpus.max_document_bytes,
        max_total_bytes: settings.corpus.max_total_bytes,
        skip_dirs: vec![settings.runs_dir.clone()],
        progress: None,
    }
}

/// Loads the corpus at `path` with the settings' caps (and the embedding
/// model, when one is set); returns it with its label for people
/// ("the corpus DIR (N documents)"). Loader warnings go to `notes`.
pub fn open_corpus(
    settings: &Settings,
    path: &std::path::Path,
    progress: Option<Arc<crate::corpus::Progress>>,
    notes: &mut Vec<Note>,
) -> Result<(Corpus, String), SetupError> {
    let opts = crate::corpus::LoadOptions {
        progress,
        ..corpus_options(settings)
    };
    let mut corpus = load_corpus(path, &opts, false)
        .map_err(|e| SetupError::Usage(e.to_string()))?
        .0;
    let ranking = rank_by_meaning(settings, path, &mut corpus, notes)?;
    notes.extend(corpus.warnings().iter().map(|w| Note {
        level: NoteLevel::Loader,
        text: crate::corpus::printable(w),
    }));
    let label = format!(
        "the corpus {} ({}{ranking})",
        path.display(),
        crate::count(corpus.len(), "document")
    );
    Ok((corpus, label))
}

/// Loads a corpus: a folder through its index in dra's cache directory
/// (made or brought up to date first; built anew with `reindex`), anything
/// else (or a folder when there is no cache directory) in memory. Returns
/// what the refresh did, for a folder.
pub fn load_corpus(
    path: &std::path::Path,
    opts: &crate::corpus::LoadOptions,
    reindex: bool,
) -> Result<(Corpus, Option<crate::corpus::Refreshed>), crate::corpus::CorpusError> {
    if path.is_dir()
        && let Some(root) = crate::corpus::cache_root()
    {
        let cache = crate::corpus::CachedIndex {
            reindex,
            ..crate::corpus::CachedIndex::for_folder(&root, path)
        };
        let (corpus, refreshed) = Corpus::open_cached(path, &cache, opts)?;
        return Ok((corpus, Some(refreshed)));
    }
    Ok((Corpus::load(path, opts)?, None))
}

/// Gives corpus search the embedding model `DRA_EMBED_MODEL` names, if any
/// (without one, a note says dense search is off and how to turn it on),
/// with the vectors kept for this corpus; returns what to add to the
/// corpus's label. A folder that does not load is a usage error naming it.
pub fn rank_by_meaning(
    settings: &Settings,
    path: &std::path::Path,
    corpus: &mut Corpus,
    notes: &mut Vec<Note>,
) -> Result<String, SetupError> {
    use crate::embed::store::{VectorStore, path_for};
    let Some(dir) = &settings.corpus.embed_model else {
        notes.push(Note::info(format!(
            "dense search is off: the corpus is searched by words only; set {} to a sentence-transformers model folder (e.g. all-MiniLM-L6-v2) to search by meaning too",
            crate::embed::MODEL_KEY
        )));
        return Ok(String::new());
    };
    let model = crate::embed::load(dir).map_err(|e| SetupError::Usage(e.to_string()))?;
    let id = model.id().to_string();
    let print = model.fingerprint().to_string();
    let store = match path_for(path, &print) {
        Some(file) => VectorStore::open(&file, &print, model.dim()),
        None => VectorStore::in_memory(&print, model.dim()),
    };
    if let Some(why) = &store.discarded {
        notes.push(Note::warning(format!(
            "the stored passage vectors of this corpus were not usable ({why}): they are computed again"
        )));
    }
    corpus
        .set_embedder(model, store)
        .map_err(|e| SetupError::Failure(e.to_string()))?;
    let (all, known) = corpus.dense_coverage().unwrap_or_default();
    let mut label = format!("; searched by words and by meaning with {id}");
    if known < all {
        label.push_str(&format!(
            ", {known} of {all} passages embedded: `dra index {}` embeds the rest",
            path.display()
        ));
    }
    Ok(label)
}

fn backends(
    settings: &Settings,
    source: &EvidenceSource,
    progress: Option<Arc<crate::corpus::Progress>>,
    notes: &mut Vec<Note>,
) -> Result<Backends, SetupError> {
    match source {
        EvidenceSource::Corpus(path) => {
            let (corpus, label) = open_corpus(settings, path, progress, notes)?;
            let web =
                CorpusWeb::new(Arc::new(corpus)).with_source_type(settings.corpus.source_type);
            Ok((Arc::new(web.clone()), Arc::new(web), label))
        }
        EvidenceSource::Web => {
            let search =
                crate::web::search_backend_from_settings(&settings.search).ok_or_else(|| {
                    SetupError::Failure("the web search backend could not be built".into())
                })?;
            let fetcher = crate::web::HttpFetcher::from_settings(&settings.fetch).map_err(|e| {
                SetupError::Usage(format!(
                    "{e}: fix DRA_FETCH_ALLOWLIST (host or host:port, comma-separated)"
                ))
            })?;
            let label = format!("the web (search: {})", search.name());
            Ok((search, Arc::new(fetcher), label))
        }
        EvidenceSource::ToolsOnly => {
            let labels: Vec<&str> = settings
                .mcp
                .servers
                .iter()
                .map(|s| s.label.as_str())
                .chain(settings.mcp.replay_only.iter().map(String::as_str))
                .collect();
            let mut parts = Vec::new();
            if !labels.is_empty() {
                parts.push(format!("the MCP servers {}", labels.join(", ")));
            }
            if has_custom_tools(settings)
                && let Some(dir) = &settings.custom_tools.dir
            {
                parts.push(format!("the custom tools in {}", dir.display()));
            }
            let label = parts.join(" and ");
            notes.push(Note::warning(format!(
                "no web search backend is configured: this run's only sources are {label} (set {} to add the web)",
                crate::web::backend_keys_hint()
            )));
            Ok((Arc::new(NoWeb), Arc::new(NoWeb), label))
        }
        EvidenceSource::Embedded => {
            let corpus = Corpus::embedded().map_err(|e| SetupError::Failure(e.to_string()))?;
            let label = format!(
                "the embedded corpus ({} documents about a fictional company)",
                corpus.len()
            );
            let web =
                CorpusWeb::new(Arc::new(corpus)).with_source_type(settings.corpus.source_type);
            Ok((Arc::new(web.clone()), Arc::new(web), label))
        }
    }
}

/// Picks the mode, models and evidence source, creates the run directory,
/// and returns the engine's configuration with what the user should be told.
/// `header_settings` is the redacted settings table for events.jsonl.
pub fn prepare(
    settings: &Settings,
    header_settings: serde_json::Value,
    inputs: RunInputs,
) -> Result<PreparedRun, SetupError> {
    prepare_in(settings, header_settings, inputs, None)
}

/// How a run was asked, as recorded in its first record for `dra resume`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct RecordedInputs {
    question: String,
    source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base_url: Option<String>,
    anchors: EntityAnchors,
    /// The run this one follows up, if any (its directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    continues: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    mcp_flags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skill: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    since: Option<PathBuf>,
}

/// An existing run to continue.
struct Continue {
    dir: RunDir,
    header: RunHeader,
    resume: Resume,
    lock: RunLock,
}

fn prepare_in(
    settings: &Settings,
    header_settings: serde_json::Value,
    mut inputs: RunInputs,
    existing: Option<Continue>,
) -> Result<PreparedRun, SetupError> {
    // The run's clock starts before its corpus is loaded.
    let started = std::time::Instant::now();
    let mode = mode(settings);
    let mut notes = Vec::new();
    let thread = match &inputs.continues {
        Some(dir) => {
            let (thread, latest) = load_thread(dir)?;
            follow_up_inputs(&mut inputs, &latest);
            notes.push(Note::info(format!(
                "follow-up of run {} (turn {} of the thread): {} page(s) already read are reused",
                thread.earlier.last().map_or("", |t| t.run_id.as_str()),
                thread.earlier.len() + 1,
                thread.cache.pages()
            )));
            Some(thread)
        }
        None => None,
    };
    for key in &settings.not_used_yet {
        notes.push(Note::warning(format!(
            "{key} is set but not used yet: this version of dra has no such feature"
        )));
    }
    if let Some(requested) = inputs.base_url.as_deref()
        && !openai::base_url_allowed(&settings.base_url, requested, &settings.allowed_base_urls)
    {
        return Err(SetupError::Usage(format!(
            "refusing --base-url {requested}: a run may only use OPENAI_BASE_URL ({}) or a URL listed in DRA_ALLOWED_BASE_URLS, so the API key cannot be sent elsewhere",
            settings.base_url
        )));
    }
    let models = match mode {
        RunMode::Online => openai::router_from_settings(settings, inputs.base_url.as_deref())
            .map_err(|e| SetupError::Usage(format!("cannot set up the model client: {e}")))?,
        RunMode::Offline => ModelRouter::single(Arc::new(OfflineModel)),
    };
    let source = evidence_source(settings, &inputs.source)?;
    let (search, fetcher, backend_label) = backends(
        settings,
        &source,
        inputs.corpus_progress.clone(),
        &mut notes,
    )?;
    if source == EvidenceSource::Embedded && inputs.source == Source::Default {
        notes.push(Note::info(
            "no --corpus or --web: researching the embedded demo corpus (use --corpus DIR for yours)",
        ));
    }
    notes.push(Note::info(match mode {
        RunMode::Offline => {
            format!("offline: an extractive model (no language model) reads {backend_label}")
        }
        RunMode::Online => format!(
            "tier {} ({}) at {} reads {backend_label}",
            settings.tier.name,
            settings.tier.research.slug,
            inputs.base_url.as_deref().unwrap_or(&settings.base_url)
        ),
    }));

    let runs_dir = &settings.runs_dir;
    crate::config::dir_is_writable(runs_dir).map_err(|e| {
        SetupError::Usage(format!(
            "the runs dir {} is not writable ({e}); choose another with --runs-dir or DRA_RUNS_DIR",
            runs_dir.display()
        ))
    })?;
    let recorded = serde_json::to_value(RecordedInputs {
        // As asked (line breaks kept), without control characters.
        question: crate::document::sanitize_text(inputs.question.trim()).into_owned(),
        source: inputs.source.clone(),
        base_url: inputs.base_url.clone(),
        anchors: inputs.anchors.clone(),
        continues: inputs.continues.clone(),
        mcp_flags: inputs.mcp_flags.clone(),
        skill: inputs.skill.clone(),
        since: inputs.since.clone(),
    })
    .unwrap_or_default();
    let (run_dir, header, resume, lock) = match existing {
        Some(c) => (c.dir, c.header, Some(c.resume), c.lock),
        None => {
            let run_id = new_run_id();
            let run_dir = RunDir::create(runs_dir, &run_id).map_err(|source| SetupError::Io {
                what: format!("cannot create a run directory in {}", runs_dir.display()),
                source,
            })?;
            let lock =
                RunLock::acquire(run_dir.path()).map_err(|e| SetupError::Failure(e.to_string()))?;
            let header = RunHeader {
                kind: "run_header".into(),
                protocol_version: PROTOCOL_VERSION,
                dra_version: env!("CARGO_PKG_VERSION").into(),
                run_id,
                // As asked (line breaks kept), without control characters.
                question: crate::document::sanitize_text(inputs.question.trim()).into_owned(),
                created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                settings: header_settings,
            };
            (run_dir, header, None, lock)
        }
    };
    let engine = EngineConfig {
        run_dir,
        header,
        settings: Arc::new(settings.clone()),
        models,
        search,
        fetcher,
        backend_label,
        domain_prompt: domain_prompt(settings)?,
        skills: load_skills(settings, inputs.skill.as_deref(), &mut notes)?,
        thread,
        clarify: match (settings.clarify, inputs.answers_in_process) {
            (false, _) => ClarifyMode::Never,
            (true, false) => ClarifyMode::Stop,
            (true, true) => ClarifyMode::Wait,
        },
        answers: inputs.answers.clone(),
        inputs: recorded,
        since: inputs.since.clone(),
        resume,
        lock: Some(lock),
        started,
        loader_warnings: notes
            .iter()
            .filter(|n| n.level == NoteLevel::Loader)
            .map(|n| n.text.clone())
            .collect(),
    };
    Ok(PreparedRun {
        engine,
        request: AskRequest {
            // The planner, prompts and report read one line: every word, no breaks.
            question: crate::document::single_line(&inputs.question),
            anchors: inputs.anchors,
        },
        notes,
    })
}

/// Runs a prepared run to its end with no front end, for callers that only
/// want the outcome (`dra eval`, tests). Events are still persisted.
pub async fn run_to_end(run: PreparedRun) -> std::io::Result<Option<RunSummary>> {
    run_observed(run, |_| {}, std::future::pending()).await
}

/// Runs a prepared run to its end, showing each event to `on_event`; when
/// `interrupt` completes the run is interrupted (`Op::Interrupt`) and ends
/// with what it found (a salvaged report). `dra mcp-serve` runs this way.
pub async fn run_observed(
    run: PreparedRun,
    mut on_event: impl FnMut(&crate::protocol::Event),
    interrupt: impl std::future::Future<Output = ()>,
) -> std::io::Result<Option<RunSummary>> {
    let mut handle = Engine::spawn(run.engine)?;
    let _ = handle.ops.send(Op::Ask(run.request)).await;
    let mut interrupt = std::pin::pin!(interrupt);
    let mut interrupted = false;
    loop {
        tokio::select! {
            ev = handle.events.recv() => match ev {
                Some(ev) => on_event(&ev),
                None => break,
            },
            () = &mut interrupt, if !interrupted => {
                interrupted = true;
                let _ = handle.ops.send(Op::Interrupt).await;
            }
        }
    }
    handle
        .join
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?
}

/// The search backend and fetcher a run from `settings` would use for
/// `asked` (the corpus loaded, the web's SSRF-guarded fetcher), with a
/// label for them and what the user should be told: `dra mcp-serve`'s
/// `search` and `fetch` tools read through these.
pub fn evidence_backends(
    settings: &Settings,
    asked: &Source,
) -> Result<EvidenceBackends, SetupError> {
    let source = evidence_source(settings, asked)?;
    let mut notes = Vec::new();
    let (search, fetcher, label) = backends(settings, &source, None, &mut notes)?;
    Ok(EvidenceBackends {
        search,
        fetcher,
        label,
        notes,
    })
}

/// What [`evidence_backends`] built.
pub struct EvidenceBackends {
    pub search: Arc<dyn SearchBackend>,
    pub fetcher: Arc<dyn Fetcher>,
    /// What they read, for people ("the embedded corpus (44 documents ...)").
    pub label: String,
    pub notes: Vec<Note>,
}

/// What `dra resume` found in a run directory.
pub enum ResumeOutcome {
    /// The run had already ended for good: nothing to do.
    Finished {
        run_id: String,
        reason: StatusReason,
        report: Option<PathBuf>,
    },
    /// The run waits for answers to its questions and none were given.
    Waiting {
        run_id: String,
        questions: Vec<String>,
    },
    /// Ready to continue.
    Ready(Box<PreparedRun>),
}

/// Sets an earlier run up to continue: locks it, cuts torn tails off its
/// files, reads its records for replay and its inputs from its first
/// record. `answers` answer the clarification it stopped at, if any.
/// The settings come from this invocation (budgets may be raised).
pub fn prepare_resume(
    settings: &Settings,
    header_settings: serde_json::Value,
    dir: &std::path::Path,
    answers: Vec<String>,
) -> Result<ResumeOutcome, SetupError> {
    if let Some(why) = untrusted_run_dir(dir) {
        return Err(SetupError::Usage(why));
    }
    let lock = RunLock::acquire(dir).map_err(|e| SetupError::Failure(e.to_string()))?;
    let fail = |what: &str, source: std::io::Error| SetupError::Io {
        what: format!("cannot read {what} of {}", dir.display()),
        source,
    };
    let events =
        checkpoint::recover_file(&dir.join("events.jsonl")).map_err(|e| fail("events.jsonl", e))?;
    let header = run_header(&events.lines, dir)?;
    let state = RunState::of(&events.lines[1..]);
    match state.ended {
        Some((StatusState::Done, StatusReason::AwaitingClarification)) if answers.is_empty() => {
            return Ok(ResumeOutcome::Waiting {
                run_id: header.run_id,
                questions: state.questions,
            });
        }
        Some((StatusState::Done, StatusReason::AwaitingClarification)) => {}
        Some((StatusState::Done, reason)) => {
            let report = dir.join("report.md");
            return Ok(ResumeOutcome::Finished {
                run_id: header.run_id,
                reason,
                report: report.exists().then_some(report),
            });
        }
        _ if !answers.is_empty() => {
            return Err(SetupError::Usage(format!(
                "run {} is not waiting for answers; resume it without --answer/--answers",
                header.run_id
            )));
        }
        _ => {}
    }
    let records = checkpoint::recover_file(&dir.join("records.jsonl"))
        .map_err(|e| fail("records.jsonl", e))?;
    let replay = Replay::from_lines(&records.lines).with_source_numbers(&events.lines);
    let start = replay.start().cloned().ok_or_else(|| {
        SetupError::Failure(format!(
            "run {} has no start record (it was made by an older dra, or stopped before its first step); it cannot be resumed: ask again",
            header.run_id
        ))
    })?;
    let recorded: RecordedInputs = serde_json::from_value(start.inputs.clone()).map_err(|e| {
        SetupError::Failure(format!(
            "run {}: its start record is unreadable ({e})",
            header.run_id
        ))
    })?;
    let mut settings = settings.clone();
    if let Ok(today) = chrono::NaiveDate::parse_from_str(&start.today, "%Y-%m-%d") {
        settings.today = today;
    }
    let recovered: Vec<String> = [events.warning, records.warning]
        .into_iter()
        .flatten()
        .collect();
    let run_dir = RunDir::open(dir, &header.run_id);
    let mut prepared = prepare_in(
        &settings,
        header_settings,
        RunInputs {
            question: recorded.question,
            source: recorded.source,
            base_url: recorded.base_url,
            anchors: recorded.anchors,
            corpus_progress: None,
            continues: recorded.continues,
            mcp_flags: recorded.mcp_flags,
            skill: recorded.skill,
            since: recorded.since,
            answers: if answers.is_empty() {
                Vec::new()
            } else {
                vec![answers]
            },
            answers_in_process: false,
        },
        Some(Continue {
            dir: run_dir,
            header,
            resume: Resume {
                replay: std::sync::Arc::new(replay),
                last_seq: state.last_seq,
                recovered: recovered.clone(),
            },
            lock,
        }),
    )?;
    for r in recovered {
        prepared.notes.push(Note::warning(r));
    }
    Ok(ResumeOutcome::Ready(Box::new(prepared)))
}

/// The labels of the MCP servers a run was asked with (`--mcp` flags in
/// its start record; empty when it had none or the record cannot be read).
/// Only the labels: `dra resume` never starts or connects to a server
/// named only in a run's records, it replays their recorded answers.
pub fn recorded_mcp_labels(dir: &Path) -> Vec<String> {
    // Read only (no repair of a torn tail: resume does that, and says so).
    let flags = checkpoint::read_file(&dir.join("records.jsonl"))
        .ok()
        .and_then(|r| recorded_inputs(&r.lines))
        .map(|i| i.mcp_flags)
        .unwrap_or_default();
    flags
        .iter()
        .filter_map(|f| crate::config::mcp::parse_flag(f).ok())
        .map(|s| s.label)
        .collect()
}

/// Why a run dir may not be resumed: `dra resume` acts on what its files
/// say, so they must be the user's own and writable by no one else (a
/// shared runs folder or a colleague's run dir is refused).
pub fn untrusted_run_dir(dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let fix = format!(
        "if you trust its contents, take it over (`chown -R {me} {d} && chmod -R go-w {d}`), or ask the question again with `dra ask`",
        d = dir.display()
    );
    let dir_meta = std::fs::metadata(dir).ok()?;
    let files = ["events.jsonl", "records.jsonl"].map(|f| dir.join(f));
    let metas =
        std::iter::once((dir.to_path_buf(), Some(dir_meta))).chain(files.into_iter().map(|p| {
            let m = std::fs::symlink_metadata(&p).ok();
            (p, m)
        }));
    for (path, meta) in metas {
        let Some(meta) = meta else { continue };
        let why = if meta.file_type().is_symlink() {
            "is a symbolic link".to_string()
        } else if meta.uid() != me {
            format!("is owned by uid {}, not by you (uid {me})", meta.uid())
        } else if meta.mode() & 0o022 != 0 {
            format!(
                "is writable by group or others (mode {:o})",
                meta.mode() & 0o7777
            )
        } else {
            continue;
        };
        return Some(format!(
            "refusing to resume {}: {} {why}; a run dir is data that dra acts on, so it must be yours alone. Fix: {fix}",
            dir.display(),
            path.display()
        ));
    }
    None
}

/// The run header, the first line of events.jsonl.
fn run_header(events: &[serde_json::Value], dir: &Path) -> Result<RunHeader, SetupError> {
    events
        .first()
        .and_then(|l| serde_json::from_value(l.clone()).ok())
        .filter(|h: &RunHeader| h.kind == "run_header")
        .ok_or_else(|| {
            SetupError::Usage(format!(
                "{} is not a dra run directory (events.jsonl has no run header)",
                dir.display()
            ))
        })
}

/// How a run was asked, from its start record (records.jsonl lines).
fn recorded_inputs(records: &[serde_json::Value]) -> Option<RecordedInputs> {
    records
        .iter()
        .find_map(|l| match serde_json::from_value(l.clone()) {
            Ok(crate::store::Record::Start { inputs, .. }) => serde_json::from_value(inputs).ok(),
            _ => None,
        })
}

/// The thread a follow-up continues: its earlier turns (oldest first, at
/// most [`thread::MAX_EARLIER_TURNS`]) with the pages and searches they
/// recorded, and how the most recent one was asked. The run followed up
/// must have finished (a run that stopped is resumed, not followed up).
fn load_thread(dir: &Path) -> Result<(Thread, RecordedInputs), SetupError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        SetupError::Failure(format!("cannot read {what} of {}: {e}", dir.display()))
    };
    let mut turns = Vec::new();
    let mut cache = ThreadCache::default();
    let mut latest: Option<RecordedInputs> = None;
    let mut next = Some(dir.to_path_buf());
    while let Some(d) = next.take() {
        if turns.len() >= thread::MAX_EARLIER_TURNS {
            break;
        }
        // An older turn may have been pruned (`dra runs --prune`): the
        // thread then starts at the oldest turn still there.
        if latest.is_some() && !d.join("events.jsonl").is_file() {
            break;
        }
        // Read only: a follow-up never writes to the runs it follows.
        let read = |name: &str| checkpoint::read_file(&d.join(name)).map_err(|e| fail(name, &e));
        let events = read("events.jsonl")?;
        let header = run_header(&events.lines, &d)?;
        if latest.is_none() {
            let state = RunState::of(&events.lines[1..]);
            match state.ended {
                Some((StatusState::Done, StatusReason::AwaitingClarification)) => {
                    return Err(SetupError::Usage(format!(
                        "run {} is waiting for answers to its questions: answer them with `dra resume {} --answer ...`, then follow it up",
                        header.run_id, header.run_id
                    )));
                }
                Some((StatusState::Done, _)) => {}
                _ => {
                    return Err(SetupError::Usage(format!(
                        "run {} has not finished: continue it with `dra resume {}`, then follow it up",
                        header.run_id, header.run_id
                    )));
                }
            }
        }
        let records = read("records.jsonl")?;
        cache.add_records(&records.lines);
        let inputs = recorded_inputs(&records.lines).ok_or_else(|| {
                SetupError::Failure(format!(
                    "run {} has no readable start record (made by an older dra?): it cannot be followed up; ask again",
                    header.run_id
                ))
            })?;
        let report = std::fs::read_to_string(d.join("report.md")).unwrap_or_default();
        turns.push(EarlierTurn {
            run_id: header.run_id,
            question: crate::document::single_line(&inputs.question),
            answer: thread::answer_of(&report, thread::ANSWER_CHARS),
        });
        next = inputs.continues.clone();
        latest.get_or_insert(inputs);
    }
    turns.reverse();
    let latest = latest.ok_or_else(|| fail("the run", &"no turn"))?;
    Ok((
        Thread {
            earlier: turns,
            cache: Arc::new(cache),
        },
        latest,
    ))
}

/// A follow-up researches where the turn before it did (unless told
/// otherwise) and about the same subject when it names none of its own:
/// "Who is its CEO?" after a question about PadmaPay is about PadmaPay.
fn follow_up_inputs(inputs: &mut RunInputs, latest: &RecordedInputs) {
    if inputs.source == Source::Default {
        inputs.source = latest.source.clone();
    }
    let given = |a: &EntityAnchors| {
        a.name.is_some()
            || a.domain.is_some()
            || a.country.is_some()
            || a.city.is_some()
            || !a.industry.is_empty()
            || !a.exclude.is_empty()
    };
    let own = crate::engine::entity::complete_anchors(&inputs.question, &inputs.anchors);
    if !given(&inputs.anchors) && own.name.is_none() {
        inputs.anchors = crate::engine::entity::complete_anchors(&latest.question, &latest.anchors);
    }
}

/// Where a run's events say it stands.
#[derive(Debug, Default)]
struct RunState {
    last_seq: u64,
    /// The last terminal status, unless a `run_resumed` came after it.
    ended: Option<(StatusState, StatusReason)>,
    /// The last clarification's questions.
    questions: Vec<String>,
}

impl RunState {
    fn of(lines: &[serde_json::Value]) -> RunState {
        let mut st = RunState::default();
        for line in lines {
            let Ok(ev) = serde_json::from_value::<crate::protocol::Event>(line.clone()) else {
                continue;
            };
            st.last_seq = st.last_seq.max(ev.seq);
            match ev.body {
                EventBody::RunResumed { .. } => st.ended = None,
                EventBody::Clarification { questions } => st.questions = questions,
                EventBody::Status(s) if s.state.is_terminal() => {
                    st.ended = Some((s.state, s.reason.unwrap_or(StatusReason::InternalError)));
                }
                _ => {}
            }
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Layers};

    fn settings(env: &[(&str, &str)], mcp: &[&str]) -> Settings {
        let layers = Layers {
            // Not the checkout's own ./custom_tools (the tests' working dir).
            env: [("DRA_CUSTOM_TOOLS_DIR", "/nonexistent/custom_tools")]
                .iter()
                .chain(env)
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            mcp: mcp.iter().map(|s| s.to_string()).collect(),
            ..Layers::default()
        };
        Settings::from_config(&Config::resolve(&layers).unwrap())
    }

    #[test]
    fn online_without_search_runs_on_mcp_servers_only_when_there_are_some() {
        let key = [("OPENAI_API_KEY", "sk-test")];
        let none = settings(&key, &[]);
        assert!(evidence_source(&none, &Source::Default).is_err());
        let mcp = settings(&key, &["kb=http://127.0.0.1:9/mcp"]);
        assert_eq!(
            evidence_source(&mcp, &Source::Default).unwrap(),
            EvidenceSource::ToolsOnly
        );
        // Asking for the web explicitly still needs a search backend.
        assert!(evidence_source(&mcp, &Source::Web).is_err());
        let mut notes = Vec::new();
        let (_, _, label) = backends(&mcp, &EvidenceSource::ToolsOnly, None, &mut notes).unwrap();
        assert!(label.contains("kb"));
        assert!(
            notes
                .iter()
                .any(|n| n.level == NoteLevel::Warning && n.text.contains("only sources"))
        );
        // Offline runs keep the embedded corpus.
        let offline = settings(&[], &["kb=http://127.0.0.1:9/mcp"]);
        assert_eq!(
            evidence_source(&offline, &Source::Default).unwrap(),
            EvidenceSource::Embedded
        );
    }

    #[test]
    fn online_without_search_runs_on_custom_tools_when_the_folder_holds_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap().to_string();
        let with = |p: &str| {
            settings(
                &[("OPENAI_API_KEY", "sk-test"), ("DRA_CUSTOM_TOOLS_DIR", p)],
                &[],
            )
        };
        // Only a README: no tools, so no sources.
        std::fs::write(dir.path().join("README.md"), "x").unwrap();
        assert!(evidence_source(&with(&path), &Source::Default).is_err());
        let tool = dir.path().join("t.sh");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let s = with(&path);
        assert_eq!(
            evidence_source(&s, &Source::Default).unwrap(),
            EvidenceSource::ToolsOnly
        );
        let mut notes = Vec::new();
        let (_, _, label) = backends(&s, &EvidenceSource::ToolsOnly, None, &mut notes).unwrap();
        assert_eq!(label, format!("the custom tools in {path}"));
        assert!(
            notes
                .iter()
                .any(|n| n.text.contains("only sources are the custom tools"))
        );
    }
}
