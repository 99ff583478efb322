//! The built-in tools, one file each, and the tools a run starts (its MCP
//! servers', the sandbox's `execute`, the custom ones): [`start`] puts the
//! run's [`ToolSet`] together, [`for_orchestrator`] and [`for_subresearcher`]
//! each agent's registry. The contract the tools implement, and their
//! names, are `engine::tool`.
//!
//! Adding a tool: a new file with its `Tool` impl, its name in
//! `tool::names`, and one line in the agent's list below.

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
mod untrusted;

use std::sync::Arc;

pub use clarify::RequestClarification;
pub use fetch::{FetchUrl, ReadSource};
pub use read_skill::ReadSkill;
pub use review::ReviewEvidence;
pub use search::WebSearch;
pub use submit::{SubmitFindings, SubmitReport};
pub use task::Task;
pub use todos::WriteTodos;

use super::clarifier::ClarifyMode;
use super::context::RunCtx;
use super::tool::names::REQUEST_CLARIFICATION;
use super::tool::{AgentCx, Tool, ToolRegistry, ToolSet};
use crate::config::Settings;

/// Starts the run's own tools: its MCP servers, the sandbox's `execute`,
/// then the custom tools (after MCP: their names keep clear of the
/// servers' tools).
pub async fn start(run: &Arc<RunCtx>, settings: &Settings) -> Arc<ToolSet> {
    let set = Arc::new(ToolSet::default());
    mcp::start(run, &set, &settings.mcp).await;
    execute::start(run, &set, &settings.exec).await;
    custom::start(run, &set, &settings.custom_tools).await;
    set
}

/// The lead agent's tools in this run: its built-ins (asking for
/// clarification only when it may), then the run's.
pub fn for_orchestrator(cx: &AgentCx, clarify: ClarifyMode) -> ToolRegistry {
    let builtins = match clarify {
        ClarifyMode::Never => orchestrator_builtins().without(REQUEST_CLARIFICATION),
        ClarifyMode::Stop | ClarifyMode::Wait => orchestrator_builtins(),
    };
    with_run_tools(builtins, cx)
}

/// A sub-researcher's tools in this run: its built-ins, then the run's.
pub fn for_subresearcher(cx: &AgentCx) -> ToolRegistry {
    with_run_tools(subresearcher_builtins(), cx)
}

/// The orchestrator's built-in tools.
fn orchestrator_builtins() -> ToolRegistry {
    ToolRegistry::new(vec![
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

/// A sub-researcher's built-in tools.
fn subresearcher_builtins() -> ToolRegistry {
    ToolRegistry::new(vec![
        Arc::new(WebSearch),
        Arc::new(FetchUrl),
        Arc::new(ReadSource),
        Arc::new(SubmitFindings),
    ])
}

/// `registry` with `read_skill` when the run found any skill, then the
/// run's MCP, custom and sandbox tools.
fn with_run_tools(registry: ToolRegistry, cx: &AgentCx) -> ToolRegistry {
    let registry = if cx.run.skills.is_empty() {
        registry
    } else {
        registry.with(&[Arc::new(ReadSkill) as Arc<dyn Tool>])
    };
    registry
        .with(cx.tools.mcp())
        .with(cx.tools.custom())
        .with(cx.tools.execute())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tool::names;

    #[test]
    fn each_tool_is_found_by_the_name_it_offers() {
        for registry in [orchestrator_builtins(), subresearcher_builtins()] {
            for spec in registry.specs() {
                let tool = registry.get(&spec.name).map(|t| t.name());
                assert_eq!(tool, Some(spec.name.as_str()));
            }
            let unique: std::collections::HashSet<&str> = registry.names().collect();
            assert_eq!(unique.len(), registry.names().count(), "duplicate names");
        }
        let sub = subresearcher_builtins();
        assert!(sub.get(names::SUBMIT_REPORT).is_none());
        assert!(
            sub.get(names::SUBMIT_FINDINGS)
                .is_some_and(|t| t.ends_agent())
        );
        assert!(!sub.get(names::WEB_SEARCH).is_some_and(|t| t.ends_agent()));
    }
}
