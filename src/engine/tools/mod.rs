//! The tool contract and the registry. Each tool lives in its own file and
//! declares its name there as a constant (re-exported in [`names`]); no
//! other file spells a tool name. Names are public (models and scripts rely
//! on them): orchestrator: `request_clarification`, `write_todos`, `task`,
//! `web_search`, `fetch_url`, `read_source`, `review_evidence`,
//! `submit_report`; sub-researcher: `web_search`, `fetch_url`,
//! `read_source`, `submit_findings`; both also `read_skill` when the run
//! found any skill, and `execute` when the run has a sandbox.
//!
//! Adding a tool: a new file with its `Tool` impl and name constant, one
//! line in [`names`] and one in the agent's list below.

pub mod clarify;
pub mod custom;
pub mod execute;
mod fetch;
pub mod mcp;
pub mod read_skill;
mod review;
mod search;
pub(crate) mod submit;
mod task;
mod todos;
mod tool_source;
pub use tool_source::REPEATED;
mod untrusted;

use crate::sync::LockExt;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use clarify::RequestClarification;
pub use fetch::{FetchUrl, ReadSource, VIEW_CHARS};
pub use read_skill::ReadSkill;
pub use review::ReviewEvidence;
pub use search::{WebSearch, digest as search_digest};
pub use submit::{SubmitFindings, SubmitReport};
pub use task::Task;
pub use todos::WriteTodos;

use super::context::RunCtx;
use super::model::ToolSpec;
use crate::evidence::Findings;
use crate::protocol::ErrorClass;

/// A deliverable that ends an agent's loop.
#[derive(Debug, Clone)]
pub enum Deliverable {
    Report(String),
    Findings(Findings),
    /// Questions for the user; the run stops until they answer.
    Clarification(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub ok: bool,
    /// What the model reads.
    pub content: String,
    /// One line for the `tool_result` event.
    pub summary: String,
    pub error_class: Option<ErrorClass>,
    pub deliverable: Option<Deliverable>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>, summary: impl Into<String>) -> Self {
        ToolOutput {
            ok: true,
            content: content.into(),
            summary: summary.into(),
            error_class: None,
            deliverable: None,
        }
    }

    /// A failed call the model can fix by changing its arguments.
    pub fn permanent(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutput {
            ok: false,
            content: format!("Error: {message}"),
            summary: message,
            error_class: Some(ErrorClass::Permanent),
            deliverable: None,
        }
    }

    /// A failed call worth one retry.
    pub fn transient(message: impl Into<String>) -> Self {
        ToolOutput {
            error_class: Some(ErrorClass::Transient),
            ..Self::permanent(message)
        }
    }
}

/// Per-agent state tools may keep between calls.
#[derive(Debug, Default)]
pub struct AgentState {
    pub findings_bounces: u32,
    pub report_bounces: u32,
    pub plan_bounces: u32,
    pub read_urls: HashSet<String>,
}

/// The calling agent, as a tool sees it.
pub struct AgentCx {
    pub run: Arc<RunCtx>,
    pub agent: String,
    /// The aspect a sub-researcher works on (empty for the orchestrator).
    pub aspect: String,
    pub state: Mutex<AgentState>,
    /// Model calls made by this agent, numbering its replay records.
    model_calls: std::sync::atomic::AtomicU64,
}

impl AgentCx {
    pub fn new(run: Arc<RunCtx>, agent: impl Into<String>, aspect: impl Into<String>) -> Self {
        AgentCx {
            run,
            agent: agent.into(),
            aspect: aspect.into(),
            state: Mutex::new(AgentState::default()),
            model_calls: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The index of this agent's next model call.
    pub fn next_model_call(&self) -> u64 {
        self.model_calls
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }

    pub fn state(&self) -> std::sync::MutexGuard<'_, AgentState> {
        self.state.lock_or_recover()
    }
}

/// Every tool's name, from the tool's own file.
pub mod names {
    pub use super::clarify::REQUEST_CLARIFICATION;
    pub use super::execute::EXECUTE;
    pub use super::fetch::{FETCH_URL, READ_SOURCE};
    pub use super::read_skill::READ_SKILL;
    pub use super::review::REVIEW_EVIDENCE;
    pub use super::search::WEB_SEARCH;
    pub use super::submit::{SUBMIT_FINDINGS, SUBMIT_REPORT};
    pub use super::task::TASK;
    pub use super::todos::WRITE_TODOS;
}

#[async_trait]
pub trait Tool: Send + Sync {
    /// The name models call the tool by (its file's constant; an MCP
    /// tool's is `label__tool`, known at run time).
    fn name(&self) -> &str;
    /// Whether this is a tool of an MCP server (its calls are reported as
    /// `mcp_call` / `mcp_result`).
    fn is_mcp(&self) -> bool {
        false
    }
    /// Whether a successful call ends the calling agent's loop (a
    /// deliverable). Such calls never count against the tool-call budget.
    fn ends_agent(&self) -> bool {
        false
    }
    fn spec(&self) -> ToolSpec;
    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput;
}

/// Parses tool arguments into their typed form, or explains what is wrong.
/// The error is the tool's answer to the model, returned as is.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's answer to the model, returned once per call"
)]
pub fn parse_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolOutput> {
    let args = match args {
        // Some models send arguments as a JSON string.
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        Value::Null => Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args).map_err(|e| {
        ToolOutput::permanent(format!(
            "invalid arguments for {tool}: {e}. Check the tool's parameter schema and call it again."
        ))
    })
}

/// One agent's tools, looked up by name; built once per agent.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    by_name: HashMap<String, usize>,
    specs: Vec<ToolSpec>,
}

impl ToolRegistry {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_string(), i))
            .collect();
        let specs = tools.iter().map(|t| t.spec()).collect();
        ToolRegistry {
            tools,
            by_name,
            specs,
        }
    }

    /// The orchestrator's tools.
    pub fn orchestrator() -> Self {
        Self::new(vec![
            Arc::new(RequestClarification),
            Arc::new(WriteTodos),
            Arc::new(Task),
            Arc::new(WebSearch),
            Arc::new(FetchUrl),
            Arc::new(ReadSource),
            Arc::new(ReviewEvidence),
            Arc::new(SubmitReport),
        ])
    }

    /// A sub-researcher's tools.
    pub fn subresearcher() -> Self {
        Self::new(vec![
            Arc::new(WebSearch),
            Arc::new(FetchUrl),
            Arc::new(ReadSource),
            Arc::new(SubmitFindings),
        ])
    }

    /// The same tools but one (`--no-clarify` drops `request_clarification`).
    pub fn without(self, name: &str) -> Self {
        Self::new(
            self.tools
                .into_iter()
                .filter(|t| t.name() != name)
                .collect(),
        )
    }

    /// This registry with `read_skill` when the run found any skill.
    pub fn with_skills(self, skills: &crate::skills::SkillSet) -> Self {
        if skills.is_empty() {
            return self;
        }
        self.with(&[Arc::new(ReadSkill) as Arc<dyn Tool>])
    }

    /// This registry with `extra` tools (a run's MCP or custom tools) after its own.
    pub fn with(self, extra: &[Arc<dyn Tool>]) -> Self {
        if extra.is_empty() {
            return self;
        }
        let mut tools = self.tools;
        tools.extend(extra.iter().cloned());
        Self::new(tools)
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// What the model is offered, in registration order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools.iter().map(|t| t.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_is_found_by_the_name_it_offers() {
        for registry in [ToolRegistry::orchestrator(), ToolRegistry::subresearcher()] {
            for spec in registry.specs() {
                let tool = registry.get(&spec.name).map(|t| t.name());
                assert_eq!(tool, Some(spec.name.as_str()));
            }
            assert_eq!(
                registry.by_name.len(),
                registry.tools.len(),
                "duplicate names"
            );
        }
        let sub = ToolRegistry::subresearcher();
        assert!(sub.get(names::SUBMIT_REPORT).is_none());
        assert!(
            sub.get(names::SUBMIT_FINDINGS)
                .is_some_and(|t| t.ends_agent())
        );
        assert!(!sub.get(names::WEB_SEARCH).is_some_and(|t| t.ends_agent()));
    }
}
