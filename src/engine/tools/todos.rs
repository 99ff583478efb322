use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::model::ToolSpec;
use crate::engine::tool::names::WRITE_TODOS;
use crate::engine::tool::{AgentCx, Tool, ToolOutput, parse_args};
use crate::protocol::{EventBody, Todo, TodoStatus};
use crate::question;

pub struct WriteTodos;

#[derive(Deserialize)]
#[serde(untagged)]
enum Item {
    Text(String),
    Full {
        content: String,
        #[serde(default)]
        status: Option<String>,
    },
}

#[derive(Deserialize)]
struct Args {
    todos: Vec<Item>,
}

#[async_trait]
impl Tool for WriteTodos {
    fn name(&self) -> &'static str {
        WRITE_TODOS
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: WRITE_TODOS.into(),
            description: "Write or update the research plan: one todo per aspect to research (each becomes a task for a sub-researcher). Call it first.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {"type": "string"},
                                "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                            },
                            "required": ["content"]
                        }
                    }
                },
                "required": ["todos"]
            }),
        }
    }

    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput {
        let args: Args = match parse_args(WRITE_TODOS, args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let todos: Vec<Todo> = args
            .todos
            .into_iter()
            .map(|i| match i {
                Item::Text(content) => (content, None),
                Item::Full { content, status } => (content, status),
            })
            .filter(|(c, _)| !c.trim().is_empty())
            .enumerate()
            .map(|(n, (content, status))| Todo {
                id: format!("t{}", n + 1),
                content: content.trim().to_string(),
                status: status
                    .as_deref()
                    .map(TodoStatus::from_model)
                    .unwrap_or_default(),
            })
            .collect();
        if todos.is_empty() {
            return ToolOutput::permanent("todos is empty: list at least one aspect to research");
        }
        // One nudge for a plan that does not split the question into aspects.
        let contents: Vec<&str> = todos.iter().map(|t| t.content.as_str()).collect();
        let problems =
            question::plan_problems(&cx.run.question, cx.run.anchors.name.as_deref(), &contents);
        if !problems.is_empty() {
            let mut state = cx.state();
            if state.plan_bounces == 0 {
                state.plan_bounces += 1;
                return ToolOutput::permanent(format!(
                    "plan not recorded: {}. Call {WRITE_TODOS} again.",
                    problems.join("; ")
                ));
            }
        }
        let n = todos.len();
        cx.run
            .set_plan(todos.iter().map(|t| t.content.clone()).collect());
        let kind = Some(question::classify(&cx.run.question));
        cx.run
            .emitter
            .emit(&cx.agent, EventBody::Plan { todos, kind });
        ToolOutput::ok(
            format!(
                "Plan recorded: {n} todos. Delegate each with task, several in one turn to run them in parallel."
            ),
            format!("{n} todos"),
        )
    }
}
