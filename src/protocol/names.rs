//! The wire name of each reason, code and state, without a serde round
//! trip: what reports, footers and exit messages print.

use super::{StatusReason, StatusState, WarningCode};

impl StatusReason {
    /// The name on the wire (`serde`'s snake_case).
    pub fn as_str(self) -> &'static str {
        match self {
            StatusReason::ReportDelivered => "report_delivered",
            StatusReason::AwaitingClarification => "awaiting_clarification",
            StatusReason::DirectAnswer => "direct_answer",
            StatusReason::ReportSalvaged => "report_salvaged",
            StatusReason::NotAnswered => "not_answered",
            StatusReason::BudgetExhausted => "budget_exhausted",
            StatusReason::StalledAfterNudges => "stalled_after_nudges",
            StatusReason::EndedWithoutReport => "ended_without_report",
            StatusReason::Interrupted => "interrupted",
            StatusReason::ModelFailed => "model_failed",
            StatusReason::ToolCallRequired => "tool_call_required",
            StatusReason::InternalError => "internal_error",
            StatusReason::NoVerifiedSource => "no_verified_source",
            StatusReason::QuestionUnclear => "question_unclear",
            StatusReason::SearchUnavailable => "search_unavailable",
            StatusReason::SourcesUnreachable => "sources_unreachable",
            StatusReason::ReportQuality => "report_quality",
            StatusReason::SubagentFindings => "subagent_findings",
            StatusReason::ToolCalls => "tool_calls",
            StatusReason::Tokens => "tokens",
            StatusReason::Usd => "usd",
            StatusReason::Deadline => "deadline",
            StatusReason::Steps => "steps",
        }
    }
}

impl StatusReason {
    /// The reason in words, for reports and messages people read: "dollar
    /// cap reached", not `usd`.
    pub fn in_words(self) -> String {
        match self {
            StatusReason::ToolCalls => "tool-call cap reached".into(),
            StatusReason::Tokens => "token cap reached".into(),
            StatusReason::Usd => "dollar cap reached".into(),
            StatusReason::Deadline => "deadline passed".into(),
            StatusReason::Steps => "step cap reached".into(),
            other => other.as_str().replace('_', " "),
        }
    }
}

impl WarningCode {
    /// The name on the wire (`serde`'s snake_case).
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::Offline => "offline",
            WarningCode::MemoryUnreadable => "memory_unreadable",
            WarningCode::Busy => "busy",
            WarningCode::WriteFailed => "write_failed",
            WarningCode::ModelFallback => "model_fallback",
            WarningCode::UnsupportedClaims => "unsupported_claims",
            WarningCode::EchoedInstructions => "echoed_instructions",
            WarningCode::ReplayDiverged => "replay_diverged",
            WarningCode::McpToolsChanged => "mcp_tools_changed",
            WarningCode::Security => "security",
            WarningCode::CorpusLoader => "corpus_loader",
            WarningCode::Other => "other",
        }
    }
}

impl StatusState {
    /// The name on the wire (`serde`'s snake_case).
    pub fn as_str(self) -> &'static str {
        match self {
            StatusState::McpReady => "mcp_ready",
            StatusState::McpError => "mcp_error",
            StatusState::BudgetSoft => "budget_soft",
            StatusState::BudgetHalt => "budget_halt",
            StatusState::Revising => "revising",
            StatusState::Done => "done",
            StatusState::Error => "error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire<T: serde::Serialize>(v: T) -> String {
        serde_json::to_value(v)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn status_reason_names_match_serde() {
        for v in [
            StatusReason::ReportDelivered,
            StatusReason::AwaitingClarification,
            StatusReason::DirectAnswer,
            StatusReason::ReportSalvaged,
            StatusReason::NotAnswered,
            StatusReason::BudgetExhausted,
            StatusReason::StalledAfterNudges,
            StatusReason::EndedWithoutReport,
            StatusReason::Interrupted,
            StatusReason::ModelFailed,
            StatusReason::ToolCallRequired,
            StatusReason::InternalError,
            StatusReason::NoVerifiedSource,
            StatusReason::QuestionUnclear,
            StatusReason::SearchUnavailable,
            StatusReason::SourcesUnreachable,
            StatusReason::ReportQuality,
            StatusReason::SubagentFindings,
            StatusReason::ToolCalls,
            StatusReason::Tokens,
            StatusReason::Usd,
            StatusReason::Deadline,
            StatusReason::Steps,
        ] {
            assert_eq!(v.as_str(), wire(v));
        }
    }

    #[test]
    fn warning_code_names_match_serde() {
        for v in [
            WarningCode::Offline,
            WarningCode::MemoryUnreadable,
            WarningCode::Busy,
            WarningCode::WriteFailed,
            WarningCode::ModelFallback,
            WarningCode::UnsupportedClaims,
            WarningCode::EchoedInstructions,
            WarningCode::ReplayDiverged,
            WarningCode::McpToolsChanged,
            WarningCode::CorpusLoader,
            WarningCode::Security,
            WarningCode::Other,
        ] {
            assert_eq!(v.as_str(), wire(v));
        }
    }

    #[test]
    fn status_state_names_match_serde() {
        for v in [
            StatusState::McpReady,
            StatusState::McpError,
            StatusState::BudgetSoft,
            StatusState::BudgetHalt,
            StatusState::Revising,
            StatusState::Done,
            StatusState::Error,
        ] {
            assert_eq!(v.as_str(), wire(v));
        }
    }
}
