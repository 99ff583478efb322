//! Event types, as written to events.jsonl and printed with `--json`. New
//! event types and keys are additive (no protocol bump).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::EntityAnchors;

/// The agent an event belongs to: the orchestrator is `main`.
pub const MAIN_AGENT: &str = "main";

/// One protocol event: the common envelope plus its typed body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    /// RFC 3339 UTC timestamp.
    pub ts: String,
    pub run_id: String,
    /// `main` or the sub-researcher's id (`sub-1`, `sub-2`, ...).
    pub agent: String,
    #[serde(flatten)]
    pub body: EventBody,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    /// Version handshake, first event of every run.
    RunStart {
        protocol_version: u32,
        engine_version: String,
        /// `offline` (extractive model) or `online`.
        mode: RunMode,
        tier: String,
        question: String,
        run_dir: String,
        /// The identity anchors in force (flags, else from the question).
        entity: EntityAnchors,
    },
    /// The research plan (aspects from `write_todos`).
    Plan {
        todos: Vec<Todo>,
        /// The kind of question planned for (additive).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<crate::question::QuestionKind>,
    },
    Clarification {
        questions: Vec<String>,
    },
    /// The user's answers to a `clarification`, in question order (an
    /// empty answer means "no preference"); research goes on (additive).
    ClarificationAnswered {
        answers: Vec<ClarificationAnswer>,
    },
    /// `dra resume` continued this run: the events after it come from the
    /// new invocation (additive). Steps already recorded are replayed, not
    /// repeated; work that was in flight runs again and its events appear
    /// again after this one.
    RunResumed {
        /// The last `seq` of the earlier invocations.
        after_seq: u64,
        /// Recorded model calls available for replay.
        recorded_model_calls: u64,
        /// Recorded tool results available for replay.
        recorded_tool_results: u64,
        /// What was cut off a torn events.jsonl or records.jsonl, if anything.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        recovered: Vec<String>,
    },
    SearchQuery {
        id: String,
        query: String,
        /// The search backend (`corpus`, `tavily`, ...).
        source: String,
    },
    SearchResults {
        id: String,
        query: String,
        ok: bool,
        count: usize,
        results: Vec<SearchResultItem>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A page was read and accepted as a source.
    Source {
        title: String,
        url: String,
        domain: String,
        index: usize,
    },
    /// A page fetch and its verdict.
    Fetch {
        id: String,
        url: String,
        ok: bool,
        verdict: Verdict,
        chars: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// One piece of evidence judged (accepted, rejected or quarantined).
    Evidence {
        url: String,
        verdict: Verdict,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        identity: f64,
    },
    McpCall {
        id: String,
        tool: String,
        args: Value,
    },
    McpResult {
        id: String,
        tool: String,
        ok: bool,
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_class: Option<ErrorClass>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repeated: Option<bool>,
    },
    ToolCall {
        id: String,
        tool: String,
        args: Value,
        /// How a terminal shows the tool's calls and results (left out for
        /// the default).
        #[serde(default, skip_serializing_if = "ToolDisplay::is_default")]
        display: ToolDisplay,
    },
    ToolResult {
        id: String,
        tool: String,
        ok: bool,
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_class: Option<ErrorClass>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repeated: Option<bool>,
        /// As in `tool_call`.
        #[serde(default, skip_serializing_if = "ToolDisplay::is_default")]
        display: ToolDisplay,
    },
    Skill {
        name: String,
        path: String,
        state: String,
    },
    /// A sub-researcher changed state.
    Subagent {
        unit: String,
        state: SubagentState,
        description: String,
    },
    SubagentFindings {
        unit: String,
        summary: String,
        findings: Vec<FindingRow>,
        gaps: Vec<String>,
    },
    /// Model reasoning text; collapsed in the terminal unless `-v`.
    Thinking {
        text: String,
    },
    Warning {
        code: WarningCode,
        message: String,
    },
    /// A model call failed transiently and is retried.
    Retry {
        model: String,
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
    Report {
        markdown: String,
        /// Where report.md was written (additive; absent when it could
        /// not be).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        report_path: Option<String>,
    },
    /// A `--since` run compared with the earlier run (before `report`):
    /// how many sub-questions changed, are new, were retracted or stayed,
    /// and where changes.md was written (absent when it could not be).
    Changes {
        since_run: String,
        changed: usize,
        new: usize,
        retracted: usize,
        unchanged: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes_path: Option<String>,
    },
    /// Once the report is final: each accepted source's reading-order
    /// number (as in `source` events and rows) with its number in the
    /// report and sources.json, or `null` when the report does not cite it.
    Sources {
        sources: Vec<SourceNumber>,
    },
    Usage {
        tool_calls: u64,
        total_tokens: u64,
        model_calls: u64,
        input_tokens: u64,
        output_tokens: u64,
        /// Of the input tokens, those read from the providers' prompt
        /// caches (priced at the tier's cached rate).
        #[serde(default)]
        cached_input_tokens: u64,
        cost_usd: f64,
        duration_ms: u64,
        sources: usize,
        limits: Value,
        #[serde(default)]
        models: Vec<ModelUsage>,
        /// The claim check of the report: cited sentences checked against
        /// their sources, how many were supported and how many removed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claims: Option<ClaimSupport>,
        /// A resumed run: of `model_calls`, those answered from the run's
        /// records (the rest were made anew).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replayed_calls: Option<u64>,
    },
    Status(Status),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    Offline,
    Online,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    pub id: String,
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    #[default]
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    /// Reads a status as models write it (`done`, `in progress`, ...);
    /// anything unknown is pending.
    pub fn from_model(text: &str) -> Self {
        match text
            .trim()
            .to_ascii_lowercase()
            .replace([' ', '-'], "_")
            .as_str()
        {
            "completed" | "complete" | "done" | "finished" => TodoStatus::Completed,
            "in_progress" | "active" | "started" | "running" | "doing" => TodoStatus::InProgress,
            _ => TodoStatus::Pending,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResultItem {
    pub title: String,
    pub url: String,
    pub domain: String,
    pub snippet: String,
}

/// One entry of the `sources` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceNumber {
    /// The reading-order number of the `source` event.
    pub index: usize,
    /// The number in report.md and sources.json; `null` when not cited.
    pub report: Option<usize>,
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingRow {
    pub finding: String,
    pub evidence: String,
    pub source: String,
}

/// The claim check's tally for a run's report (see `report::claim_check`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ClaimSupport {
    /// Cited sentences checked in the report as submitted.
    pub checked: usize,
    /// Of those, supported by the sources they cite.
    pub supported: usize,
    /// Unsupported sentences removed from the report (and listed under Gaps).
    pub removed: usize,
    /// `supported / checked` (1.0 when nothing was cited).
    pub rate: f64,
}

impl ClaimSupport {
    pub fn new(checked: usize, supported: usize, removed: usize) -> Self {
        let rate = if checked == 0 {
            1.0
        } else {
            supported as f64 / checked as f64
        };
        ClaimSupport {
            checked,
            supported,
            removed,
            rate,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelUsage {
    pub model: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Of the input tokens, those read from the provider's prompt cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    pub cost_usd: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Accepted,
    Rejected,
    Quarantined,
    Failed,
}

/// What a `warning` event is about. New codes are additive; a consumer
/// reading a code it does not know gets `other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// No API key: the embedded or given corpus and the extractive model.
    Offline,
    MemoryUnreadable,
    /// An `Ask` op arrived while a run was in progress.
    Busy,
    WriteFailed,
    /// A model call failed over to the tier's fallback model.
    ModelFallback,
    /// Report sentences their sources do not support were removed.
    UnsupportedClaims,
    /// Report sentences echoing instructions or quarantined pages were removed.
    EchoedInstructions,
    /// A resumed run asked a model something other than what was recorded
    /// at that step; from there on that agent's calls are made again.
    ReplayDiverged,
    /// An MCP server said its tool list changed during the run; the run
    /// keeps the tools and descriptions it started with.
    McpToolsChanged,
    /// A security note: something tried to steer dra (a link planted where
    /// dra writes, a command named only in a run's records, a run dir
    /// others may write); dra refused and says what and where.
    Security,
    /// The corpus loader left something out or read it partly (a file
    /// truncated, a folder linked twice, a date it could not read); the
    /// human front end counts these instead of listing each.
    CorpusLoader,
    #[serde(other)]
    Other,
}

/// How a terminal shows a tool's calls and results: the tool says, so a
/// renderer needs no list of tool names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolDisplay {
    /// Each call with `-v`; a result when it failed.
    #[default]
    Default,
    /// The tool's work has events of its own (`search_query`, `fetch`): its
    /// calls are not shown again.
    OwnEvents,
    /// Every result is shown, not only failed ones (a code run: what ran
    /// and how it ended).
    Results,
}

impl ToolDisplay {
    pub fn is_default(&self) -> bool {
        *self == ToolDisplay::Default
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    Permanent,
    Transient,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubagentState {
    Started,
    Done,
    Failed,
}

/// Lifecycle status. `done` and `error` are terminal: exactly one per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub state: StatusState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<StatusReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusState {
    McpReady,
    McpError,
    BudgetSoft,
    BudgetHalt,
    Revising,
    Done,
    Error,
}

impl StatusState {
    pub fn is_terminal(self) -> bool {
        matches!(self, StatusState::Done | StatusState::Error)
    }
}

/// Reason codes. The first group ends a run with `done`, the second with
/// `error`; the rest qualify non-terminal states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusReason {
    // done
    ReportDelivered,
    AwaitingClarification,
    DirectAnswer,
    ReportSalvaged,
    /// The sources read are about the question but none states what it
    /// asks: the report says so for each sub-question.
    NotAnswered,
    // error
    BudgetExhausted,
    StalledAfterNudges,
    EndedWithoutReport,
    Interrupted,
    ModelFailed,
    /// `--require-tool-call`: the model answered without calling a tool.
    ToolCallRequired,
    /// A bug in dra ended the run (the detail says where).
    InternalError,
    /// The report cites no verified source: nothing was accepted, or every
    /// cited sentence failed the claim check (report.md says which).
    NoVerifiedSource,
    /// The question names nothing to research; the detail says how to ask.
    QuestionUnclear,
    /// Every search failed for network or backend reasons: an outage, not
    /// an unclear question (the detail names the backend and the error).
    SearchUnavailable,
    /// Searches answered but every page fetch failed for network reasons.
    SourcesUnreachable,
    // revising
    ReportQuality,
    SubagentFindings,
    // budget_soft / budget_halt
    ToolCalls,
    Tokens,
    Usd,
    Deadline,
    Steps,
}

impl EventBody {
    /// The wire name of this event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventBody::RunStart { .. } => "run_start",
            EventBody::Plan { .. } => "plan",
            EventBody::Clarification { .. } => "clarification",
            EventBody::ClarificationAnswered { .. } => "clarification_answered",
            EventBody::RunResumed { .. } => "run_resumed",
            EventBody::SearchQuery { .. } => "search_query",
            EventBody::SearchResults { .. } => "search_results",
            EventBody::Source { .. } => "source",
            EventBody::Fetch { .. } => "fetch",
            EventBody::Evidence { .. } => "evidence",
            EventBody::McpCall { .. } => "mcp_call",
            EventBody::McpResult { .. } => "mcp_result",
            EventBody::ToolCall { .. } => "tool_call",
            EventBody::ToolResult { .. } => "tool_result",
            EventBody::Skill { .. } => "skill",
            EventBody::Subagent { .. } => "subagent",
            EventBody::SubagentFindings { .. } => "subagent_findings",
            EventBody::Thinking { .. } => "thinking",
            EventBody::Warning { .. } => "warning",
            EventBody::Retry { .. } => "retry",
            EventBody::Report { .. } => "report",
            EventBody::Changes { .. } => "changes",
            EventBody::Sources { .. } => "sources",
            EventBody::Usage { .. } => "usage",
            EventBody::Status(_) => "status",
        }
    }
}

/// One clarifying question and the user's answer to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClarificationAnswer {
    pub question: String,
    pub answer: String,
}

/// Keys every event carries, whatever its type.
pub const ENVELOPE_KEYS: &[&str] = &["seq", "ts", "run_id", "agent", "type"];

/// The required keys of each event type (the contract consumers rely on).
pub fn required_keys(type_name: &str) -> Option<&'static [&'static str]> {
    Some(match type_name {
        "run_start" => &["protocol_version", "engine_version", "mode", "tier"],
        "plan" => &["todos"],
        "clarification" => &["questions"],
        "clarification_answered" => &["answers"],
        "run_resumed" => &["after_seq", "recorded_model_calls", "recorded_tool_results"],
        "search_query" => &["id", "query", "source"],
        "search_results" => &["id", "query", "ok", "count", "results"],
        "source" => &["title", "url", "domain"],
        "fetch" => &["id", "url", "ok", "verdict"],
        "evidence" => &["url", "verdict", "identity"],
        "mcp_call" | "tool_call" => &["id", "tool", "args"],
        "mcp_result" | "tool_result" => &["id", "tool", "ok", "summary"],
        "skill" => &["name", "path", "state"],
        "subagent" => &["unit", "state", "description"],
        "subagent_findings" => &["unit", "summary", "findings", "gaps"],
        "thinking" => &["text"],
        "warning" => &["code", "message"],
        "retry" => &["model", "attempt", "delay_ms", "reason"],
        "report" => &["markdown"],
        "sources" => &["sources"],
        "usage" => &["tool_calls", "total_tokens", "model_calls", "limits"],
        "status" => &["state"],
        _ => return None,
    })
}

/// Checks one serialized event against the contract; returns what is missing.
pub fn missing_keys(event: &Value) -> Vec<String> {
    let mut missing = Vec::new();
    let Some(obj) = event.as_object() else {
        return vec!["<not an object>".into()];
    };
    for key in ENVELOPE_KEYS {
        if !obj.contains_key(*key) {
            missing.push((*key).to_string());
        }
    }
    let type_name = obj.get("type").and_then(Value::as_str).unwrap_or("");
    match required_keys(type_name) {
        Some(keys) => {
            for key in keys {
                if !obj.contains_key(*key) {
                    missing.push(format!("{type_name}.{key}"));
                }
            }
        }
        None => missing.push(format!("<unknown type {type_name:?}>")),
    }
    if type_name == "status" {
        let state = obj.get("state").and_then(Value::as_str).unwrap_or("");
        if matches!(state, "done" | "error" | "revising") && !obj.contains_key("reason") {
            missing.push("status.reason".into());
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_status_reads_what_models_write() {
        for (text, want) in [
            ("pending", TodoStatus::Pending),
            ("In progress", TodoStatus::InProgress),
            ("in-progress", TodoStatus::InProgress),
            ("DONE", TodoStatus::Completed),
            ("completed", TodoStatus::Completed),
            ("someday", TodoStatus::Pending),
        ] {
            assert_eq!(TodoStatus::from_model(text), want, "{text}");
        }
        let json = serde_json::to_string(&TodoStatus::InProgress).unwrap();
        assert_eq!(json, "\"in_progress\"");
    }

    #[test]
    fn warning_codes_keep_their_wire_names_and_accept_new_ones() {
        let json = serde_json::to_string(&WarningCode::MemoryUnreadable).unwrap();
        assert_eq!(json, "\"memory_unreadable\"");
        let code: WarningCode = serde_json::from_str("\"from_a_newer_engine\"").unwrap();
        assert_eq!(code, WarningCode::Other);
    }
}
