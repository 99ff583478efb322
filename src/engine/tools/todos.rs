use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::tool::names::{TASK, WRITE_TODOS};
use crate::engine::tool::{AgentCx, ToolOutput, TypedTool};
use crate::protocol::{EventBody, Todo, TodoStatus};
use crate::question;

pub struct WriteTodos;

/// A todo as the schema offers it; a bare string is taken too.
#[derive(Deserialize)]
#[serde(untagged)]
enum Item {
    Text(String),
    Full(FullItem),
}

#[derive(Deserialize, JsonSchema)]
pub struct FullItem {
    content: String,
    #[serde(default)]
    #[schemars(extend("enum" = ["pending", "in_progress", "completed"]))]
    status: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct Args {
    #[schemars(with = "Vec<FullItem>")]
    todos: Vec<Item>,
}

#[async_trait]
impl TypedTool for WriteTodos {
    const NAME: &'static str = WRITE_TODOS;
    type Args = Args;

    fn description(&self) -> String {
        "Write or update the research plan: one todo per aspect to research (each becomes a task for a sub-researcher). Call it first.".into()
    }

    async fn run(&self, cx: &AgentCx, args: Args) -> ToolOutput {
        let todos: Vec<Todo> = args
            .todos
            .into_iter()
            .map(|i| match i {
                Item::Text(content) => (content, None),
                Item::Full(FullItem { content, status }) => (content, status),
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
                "Plan recorded: {n} todos. Delegate each with {TASK}, several in one turn to run them in parallel."
            ),
            format!("{n} todos"),
        )
    }
}
