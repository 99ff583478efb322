use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::subresearcher;
use crate::engine::tool::names::TASK;
use crate::engine::tool::{AgentCx, ToolOutput, TypedTool};
use crate::protocol::{EventBody, SubagentState};

pub struct Task;

/// The only kind of sub-agent.
const RESEARCHER: &str = "researcher";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    description: String,
    #[serde(default)]
    #[schemars(extend("enum" = [RESEARCHER]))]
    subagent_type: Option<String>,
}

#[async_trait]
impl TypedTool for Task {
    const NAME: &'static str = TASK;
    type Args = Args;

    fn description(&self) -> String {
        format!(
            "Delegate one aspect to a sub-researcher, which searches, reads and returns verified findings with source numbers [n]. Several {TASK} calls in one turn run in parallel. The description must say the aspect, the entity and what to find."
        )
    }

    async fn run(&self, cx: &AgentCx, args: Args) -> ToolOutput {
        if let Some(kind) = args.subagent_type.as_deref()
            && kind != RESEARCHER
        {
            return ToolOutput::permanent(format!(
                "unknown subagent_type {kind:?}: the only type is {RESEARCHER:?}"
            ));
        }
        let description = args.description.trim().to_string();
        if description.is_empty() {
            return ToolOutput::permanent("description is empty");
        }
        let run = cx.run.clone();
        let Ok(_permit) = run.parallel.acquire().await else {
            return ToolOutput::transient("the run is shutting down");
        };
        let unit = run.next_subagent_id();
        run.emitter.emit(
            &unit,
            EventBody::Subagent {
                unit: unit.clone(),
                state: SubagentState::Started,
                description: description.clone(),
            },
        );
        let tools = super::for_subresearcher(cx);
        match subresearcher::run(cx, tools, &unit, &description).await {
            Ok(findings) => {
                run.emitter.emit(
                    &unit,
                    EventBody::Subagent {
                        unit: unit.clone(),
                        state: SubagentState::Done,
                        description: crate::count(findings.findings.len(), "finding"),
                    },
                );
                let n = findings.findings.len();
                // Quotes are page text: the whole result is marked as data.
                ToolOutput::ok(
                    run.spotlight(&serde_json::to_string_pretty(&findings).unwrap_or_default()),
                    format!("{unit}: {}", crate::count(n, "finding")),
                )
            }
            Err(why) => {
                run.emitter.emit(
                    &unit,
                    EventBody::Subagent {
                        unit: unit.clone(),
                        state: SubagentState::Failed,
                        description: why.clone(),
                    },
                );
                ToolOutput::transient(format!("{unit} returned no findings: {why}"))
            }
        }
    }
}
