//! What every agent of a run shares: the event emitter, the page store, the
//! budget, the identity anchors, the cancellation flag and the spotlight
//! delimiter.

use crate::sync::LockExt;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::{Notify, Semaphore};

use super::EngineConfig;
use super::budget::Budget;
use super::clarifier::Clarifier;
use super::emitter::Emitter;
use super::model::{ModelRouter, Usage};
use super::page_store::PageStore;
use super::replay::Replay;
use crate::config::Settings;
use crate::evidence::EvidenceItem;
use crate::evidence::Findings;
use crate::evidence::dedup::{Copies, DocForDedup, find_copies};
use crate::evidence::merge::{MergeOptions, MergedField, merge};
use crate::ports::{Fetcher, SearchBackend};
use crate::protocol::{EntityAnchors, ModelUsage, RunMode, StatusReason, WarningCode};
use crate::store::RunDir;
use crate::store::memory::Lessons;

/// A run-wide stop signal (Ctrl-C, budget halt).
#[derive(Default)]
pub struct Cancel {
    flag: AtomicBool,
    notify: Notify,
    reason: Mutex<Option<StatusReason>>,
}

impl Cancel {
    pub fn cancel(&self, reason: StatusReason) {
        {
            let mut r = self.reason.lock_or_recover();
            r.get_or_insert(reason);
        }
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    pub fn reason(&self) -> Option<StatusReason> {
        *self.reason.lock_or_recover()
    }

    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// Tokens and dollars per model.
#[derive(Default)]
pub struct Meter {
    per_model: Mutex<HashMap<String, ModelUsage>>,
}

impl Meter {
    pub fn add(&self, model: &str, usage: Usage, cost: f64) {
        let mut m = self.per_model.lock_or_recover();
        let e = m.entry(model.to_string()).or_insert_with(|| ModelUsage {
            model: model.to_string(),
            calls: 0,
            input_tokens: 0,
            output_tokens: 0,
            cached_input_tokens: 0,
            cost_usd: 0.0,
        });
        e.calls += 1;
        e.input_tokens += usage.input_tokens;
        e.cached_input_tokens += usage.cached_input_tokens;
        e.output_tokens += usage.output_tokens;
        e.cost_usd += cost;
    }

    /// Input tokens read from the providers' prompt caches, all models.
    pub fn cached_input_tokens(&self) -> u64 {
        let m = self.per_model.lock_or_recover();
        m.values().map(|u| u.cached_input_tokens).sum()
    }

    pub fn snapshot(&self) -> Vec<ModelUsage> {
        let m = self.per_model.lock_or_recover();
        let mut v: Vec<ModelUsage> = m.values().cloned().collect();
        v.sort_by(|a, b| a.model.cmp(&b.model));
        v
    }
}

/// What the run's agents call out to, wrapped by the orchestrator (a
/// follow-up's cache, recording, replay on resume).
pub struct Services {
    pub emitter: Emitter,
    pub search: Arc<dyn SearchBackend>,
    pub fetcher: Arc<dyn Fetcher>,
    /// On resume: the earlier invocations' records.
    pub replay: Option<Arc<Replay>>,
    pub reach: Arc<super::reach::Reach>,
}

/// What the run has gathered so far, behind its own locks (read and
/// written through [`RunCtx`]'s methods).
#[derive(Default)]
struct Ledger {
    next_subagent: AtomicU64,
    next_call: AtomicU64,
    /// Findings every sub-researcher handed back (for salvaged reports).
    findings: Mutex<Vec<Findings>>,
    /// Skills read so far in this run (a `skill` event fires once each).
    skills_applied: Mutex<std::collections::HashSet<String>>,
    /// URLs not fetched because memory knows their domain is bad.
    skipped: Mutex<Vec<(String, String)>>,
    /// The latest plan's aspects (`write_todos`), for the Gaps of a salvaged report.
    plan: Mutex<Vec<String>>,
    /// Pages read that a corpus cap cut: (url, what was kept).
    truncated: Mutex<Vec<(String, String)>>,
    /// Per aspect, the pages its sub-researchers read (for a salvaged
    /// report: an aspect cut short is not one never reached).
    read_for: Mutex<HashMap<String, std::collections::BTreeSet<String>>>,
}

/// The run's shared context: read-only settings and facts, services and
/// run state.
pub struct RunCtx {
    /// The run's settings, read-only (the engine reads settings only here).
    pub settings: Arc<Settings>,
    pub run_id: String,
    /// Where accepted pages' texts are kept.
    pub run_dir: RunDir,
    pub question: String,
    pub anchors: EntityAnchors,
    pub mode: RunMode,
    /// Per-run random marker around untrusted text (spotlighting).
    pub spotlight: String,
    /// Today's date, YYYY-MM-DD (the run's pinned clock), as pages'
    /// retrieval date and the reference for freshness.
    pub today: String,
    /// Human name of the search backend, for the report footer.
    pub backend_label: String,
    /// Deployment guidance for both system prompts.
    pub domain_prompt: Option<String>,
    /// The user's skills, listed in both system prompts.
    pub skills: Arc<crate::skills::SkillSet>,
    /// A follow-up's earlier turns, oldest first (empty for a first turn).
    pub earlier: Vec<super::thread::EarlierTurn>,
    /// Lessons from earlier runs (empty with --no-memory).
    pub lessons: Lessons,

    // Services.
    pub emitter: Emitter,
    pub models: ModelRouter,
    pub search: Arc<dyn SearchBackend>,
    pub fetcher: Arc<dyn Fetcher>,
    /// On resume: the earlier invocations' records.
    pub replay: Option<Arc<Replay>>,
    /// Searches and fetches answered and failed (an outage ends the run).
    pub reach: Arc<super::reach::Reach>,

    // Run state.
    pub pages: PageStore,
    pub budget: Budget,
    pub cancel: Cancel,
    pub meter: Meter,
    /// Bounds sub-researchers running at once.
    pub parallel: Semaphore,
    /// Clarifying questions: whether to ask, and the answers sent in.
    pub clarify: Clarifier,
    /// Answers waiting for the next clarification, one set per
    /// clarification, in question order.
    pub answers: Mutex<std::collections::VecDeque<Vec<String>>>,
    ledger: Ledger,
}

impl RunCtx {
    /// The context of the run `config` describes, asked `question`.
    pub fn new(
        config: &EngineConfig,
        question: String,
        anchors: EntityAnchors,
        lessons: Lessons,
        services: Services,
    ) -> Self {
        let settings = config.settings.clone();
        let pages = PageStore::default();
        if let Some(r) = &services.replay {
            pages.keep_numbers(r.source_numbers().iter().cloned());
        }
        let spotlight = services
            .replay
            .as_ref()
            .and_then(|r| r.start().map(|s| s.spotlight.clone()))
            .unwrap_or_else(random_marker);
        RunCtx {
            run_id: config.run_dir.run_id.clone(),
            run_dir: config.run_dir.clone(),
            question,
            anchors,
            mode: super::run_mode(&settings),
            spotlight,
            today: settings.today.format("%Y-%m-%d").to_string(),
            backend_label: config.backend_label.clone(),
            domain_prompt: config.domain_prompt.clone(),
            skills: config.skills.clone(),
            earlier: config
                .thread
                .as_ref()
                .map(|t| t.earlier.clone())
                .unwrap_or_default(),
            lessons,
            emitter: services.emitter,
            models: config.models.clone(),
            search: services.search,
            fetcher: services.fetcher,
            replay: services.replay,
            reach: services.reach,
            pages,
            budget: Budget::since(settings.limits, config.started),
            cancel: Cancel::default(),
            meter: Meter::default(),
            parallel: Semaphore::new(settings.max_parallel.max(1)),
            clarify: Clarifier::new(config.clarify),
            answers: Mutex::new(config.answers.clone().into()),
            ledger: Ledger::default(),
            settings,
        }
    }

    /// Marks a skill as read; true the first time in this run.
    pub fn skill_applied(&self, name: &str) -> bool {
        self.ledger
            .skills_applied
            .lock_or_recover()
            .insert(name.to_string())
    }

    pub fn collect_findings(&self, f: Findings) {
        self.ledger.findings.lock_or_recover().push(f);
    }

    /// Scores an evidence item (authority, freshness, identity,
    /// completeness, reliability) and stores it; returns its id.
    pub fn record_evidence(&self, item: EvidenceItem) -> String {
        self.pages
            .add_evidence(crate::evidence::score::scored(item, &self.today))
    }

    /// Copies collapsed to their origins, then every field merged.
    pub fn merge_evidence(&self) -> (Vec<MergedField>, Copies) {
        let pages: Vec<crate::evidence::Page> = self
            .pages
            .pages()
            .into_iter()
            .filter(|p| p.verdict == crate::protocol::Verdict::Accepted)
            .collect();
        let docs: Vec<DocForDedup> = pages.iter().map(DocForDedup::from_page).collect();
        let copies = find_copies(&docs);
        let today = crate::evidence::score::parse_date(&self.today).unwrap_or_default();
        // The plan's aspects decide which claims are one field.
        let findings = self.all_findings();
        let aspects: Vec<String> = findings.iter().map(|f| f.aspect.clone()).collect();
        let answers = findings
            .into_iter()
            .filter_map(|f| Some((f.aspect, f.answer?)))
            .collect();
        let fields = merge(
            &self.pages.evidence(),
            &copies.origin_of,
            &MergeOptions::new(today, self.anchors.name.as_deref())
                .with_aspects(&aspects)
                .with_answers(answers),
        );
        (fields, copies)
    }

    pub fn skip(&self, url: &str, reason: &str) {
        let mut s = self.ledger.skipped.lock_or_recover();
        if !s.iter().any(|(u, _)| u == url) {
            s.push((url.to_string(), reason.to_string()));
        }
    }

    /// Records the plan's aspects (the latest plan wins).
    pub fn set_plan(&self, aspects: Vec<String>) {
        *self.ledger.plan.lock_or_recover() = aspects;
    }

    pub fn plan(&self) -> Vec<String> {
        self.ledger.plan.lock_or_recover().clone()
    }

    /// Records a page the corpus caps cut, with what was kept.
    pub fn note_truncated(&self, url: &str, kept: &str) {
        let mut t = self.ledger.truncated.lock_or_recover();
        if !t.iter().any(|(u, _)| u == url) {
            t.push((url.to_string(), kept.to_string()));
        }
    }

    pub fn truncated(&self) -> Vec<(String, String)> {
        self.ledger.truncated.lock_or_recover().clone()
    }

    /// Notes that a sub-researcher of `aspect` read `url`.
    pub fn note_read(&self, aspect: &str, url: &str) {
        if aspect.is_empty() {
            return;
        }
        self.ledger
            .read_for
            .lock_or_recover()
            .entry(aspect.to_string())
            .or_default()
            .insert(url.to_string());
    }

    /// Pages read per aspect.
    pub fn read_per_aspect(&self) -> Vec<(String, usize)> {
        let mut v: Vec<(String, usize)> = self
            .ledger
            .read_for
            .lock_or_recover()
            .iter()
            .map(|(a, urls)| (a.clone(), urls.len()))
            .collect();
        v.sort();
        v
    }

    pub fn skipped(&self) -> Vec<(String, String)> {
        self.ledger.skipped.lock_or_recover().clone()
    }

    /// Why memory says not to read this URL, if it does.
    pub fn known_bad(&self, url: &str) -> Option<String> {
        self.lessons
            .known_bad(self.anchors.name.as_deref(), &crate::document::host_of(url))
    }

    /// Every sub-researcher's findings, less those drawn from a page
    /// quarantined since they were handed back.
    pub fn all_findings(&self) -> Vec<Findings> {
        let mut all = self.ledger.findings.lock_or_recover().clone();
        let hostile: std::collections::HashSet<String> = self
            .pages
            .pages()
            .into_iter()
            .filter(|p| p.verdict == crate::protocol::Verdict::Quarantined)
            .map(|p| crate::document::normalize_url(&p.url))
            .collect();
        if !hostile.is_empty() {
            for f in &mut all {
                f.findings
                    .retain(|x| !hostile.contains(&crate::document::normalize_url(&x.url)));
            }
        }
        all
    }

    /// Quarantines an accepted page after the fact: a sentence of it, met as
    /// a claim or a finding (`location`), reads as an instruction aimed at
    /// AI agents. Instructions are never evidence, and nothing else of the
    /// page is used either. The verdict is announced as an `evidence` event.
    pub fn quarantine_late(
        &self,
        agent: &str,
        url: &str,
        location: &str,
        patterns: &[&'static str],
    ) {
        let hits = patterns
            .iter()
            .map(|p| crate::evidence::injection::InjectionHit {
                pattern: p,
                location: location.to_string(),
            })
            .collect();
        let reason = format!(
            "carries instructions aimed at AI agents ({}, met when it was quoted as evidence)",
            location.replace('_', " ")
        );
        if let Some(page) = self.pages.quarantine(url, hits, reason) {
            // pages/ keeps accepted pages only: what quotes are checked against.
            match std::fs::remove_file(self.run_dir.page_text_path(&page.url)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => self.emitter.warning(
                    agent,
                    WarningCode::WriteFailed,
                    format!("could not remove the text of quarantined {}: {e}", page.url),
                ),
                _ => {}
            }
            self.emitter.emit(
                agent,
                crate::protocol::EventBody::Evidence {
                    url: page.url.clone(),
                    verdict: page.verdict,
                    reason: page.reason.clone(),
                    identity: page.identity.score,
                },
            );
        }
    }

    pub fn next_subagent_id(&self) -> String {
        format!(
            "sub-{}",
            self.ledger.next_subagent.fetch_add(1, Ordering::SeqCst) + 1
        )
    }

    /// A run-unique id for tool calls and search/fetch rows.
    pub fn next_call_id(&self, prefix: &str) -> String {
        format!(
            "{prefix}-{}",
            self.ledger.next_call.fetch_add(1, Ordering::SeqCst) + 1
        )
    }

    /// Makes a call outside the run that costs or acts (an MCP call, a
    /// custom tool, code in the sandbox) once: its answer is recorded
    /// under `key` (what was asked), and a resumed run gets the recorded
    /// answer instead of calling again.
    pub async fn external<T, F>(&self, key: &str, call: F) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
        F: std::future::Future<Output = T>,
    {
        if let Some(v) = self.replay.as_ref().and_then(|r| r.external(key))
            && let Ok(answer) = serde_json::from_value::<T>(v)
        {
            return answer;
        }
        let answer = call.await;
        if let Ok(result) = serde_json::to_value(&answer) {
            self.emitter
                .record(crate::store::Record::External {
                    key: key.to_string(),
                    result,
                })
                .await;
        }
        answer
    }

    /// Wraps untrusted text in this run's delimiters.
    pub fn spotlight(&self, text: &str) -> String {
        super::spotlight::wrap(&self.spotlight, text)
    }
}

fn random_marker() -> String {
    let mut bytes = [0u8; 6];
    if getrandom::fill(&mut bytes).is_err() {
        bytes = chrono::Utc::now()
            .timestamp_nanos_opt()
            .unwrap_or(0)
            .to_le_bytes()[..6]
            .try_into()
            .unwrap_or([7u8; 6]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
