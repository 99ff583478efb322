use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::model::ToolSpec;
use crate::engine::subresearcher;
use crate::engine::tool::names::TASK;
use crate::engine::tool::{AgentCx, Tool, ToolOutput, parse_args};
use crate::protocol::{EventBody, SubagentState};

pub struct Task;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    description: String,
    #[serde(default)]
    subagent_type: Option<String>,
}

#[async_trait]
impl Tool for Task {
    fn name(&self) -> &'static str {
        TASK
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: TASK.into(),
            description: "Delegate one aspect to a sub-researcher, which searches, reads and returns verified findings with source numbers [n]. Several task calls in one turn run in parallel. The description must say the aspect, the entity and what to find.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "subagent_type": {"type": "string", "enum": ["researcher"]}
                },
                "required": ["description"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput {
        let args: Args = match parse_args(TASK, args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if let Some(kind) = args.subagent_type.as_deref()
            && kind != "researcher"
        {
            return ToolOutput::permanent(format!(
                "unknown subagent_type {kind:?}: the only type is \"researcher\""
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
                        description: format!("{} findings", findings.findings.len()),
                    },
                );
                let n = findings.findings.len();
                // Quotes are page text: the whole result is marked as data.
                ToolOutput::ok(
                    run.spotlight(&serde_json::to_string_pretty(&findings).unwrap_or_default()),
                    format!("{unit}: {n} findings"),
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
