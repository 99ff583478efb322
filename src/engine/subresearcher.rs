//! A sub-researcher: one aspect, its own context, its own tools; it returns
//! verified findings or says why it could not.

use std::sync::Arc;

use super::agent_loop::{AgentEnd, AgentSpec, run_agent};
use super::prompts;
use super::tool::{AgentCx, Deliverable, ToolRegistry};
use crate::config::ModelRole;
use crate::evidence::Findings;

/// The aspect named in a task description (`Aspect: ...`), else its first line.
pub fn aspect_of(description: &str) -> String {
    description
        .lines()
        .find_map(|l| l.strip_prefix(prompts::label::ASPECT))
        .or_else(|| description.lines().next())
        .unwrap_or(description)
        .trim()
        .chars()
        .take(120)
        .collect()
}

/// Researches the aspect `description` names as agent `unit`, a unit of
/// `lead`'s run, with `tools` (the caller puts them together).
pub async fn run(
    lead: &AgentCx,
    tools: ToolRegistry,
    unit: &str,
    description: &str,
) -> Result<Findings, String> {
    let run = lead.run.clone();
    let aspect = aspect_of(description);
    let cx = Arc::new(AgentCx::new(
        run.clone(),
        lead.tools.clone(),
        unit,
        aspect.clone(),
    ));
    let spec = AgentSpec {
        role: ModelRole::Subagent,
        system: prompts::subresearcher_system(
            &run.spotlight,
            run.domain_prompt.as_deref(),
            &run.skills,
        ),
        tools,
        nudge: prompts::subresearcher_nudge(),
    };
    let user = prompts::subresearcher_user(description, &run.today);
    match run_agent(cx, spec, user).await {
        AgentEnd::Delivered(Deliverable::Findings(f)) => {
            run.collect_findings(f.clone());
            Ok(f)
        }
        AgentEnd::DirectAnswer(_) => Err("answered in prose instead of submitting findings".into()),
        AgentEnd::Delivered(Deliverable::Clarification(_)) => {
            Err("asked for clarification; sub-researchers cannot".into())
        }
        AgentEnd::Delivered(Deliverable::Report(_)) => {
            Err("returned a report instead of findings".into())
        }
        AgentEnd::Stalled { .. } => Err("stopped without submitting findings".into()),
        AgentEnd::Halted(r) => Err(format!("budget exhausted ({r:?})")),
        AgentEnd::Cancelled => Err("cancelled".into()),
        AgentEnd::Failed(e) => Err(e),
    }
}
