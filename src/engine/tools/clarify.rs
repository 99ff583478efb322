//! `request_clarification`: the lead asks the user before researching an
//! ambiguous request.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::clarifier::{ClarifyMode, answers_message, pair_answers};
use crate::engine::tool::names::REQUEST_CLARIFICATION;
use crate::engine::tool::{AgentCx, Deliverable, ToolOutput, TypedTool};
use crate::protocol::EventBody;

/// Ends the run with questions for the user when the request is ambiguous.
pub struct RequestClarification;

/// The most questions one call asks.
const MAX_QUESTIONS: usize = 5;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[schemars(length(min = 1, max = MAX_QUESTIONS))]
    questions: Vec<String>,
}

#[async_trait]
impl TypedTool for RequestClarification {
    const NAME: &'static str = REQUEST_CLARIFICATION;
    const ENDS_AGENT: bool = true;
    type Args = Args;

    fn description(&self) -> String {
        "Ask the user clarifying questions when the request is ambiguous (unclear entity, scope, timeframe or goal). Call it first, before any research; the run stops until the user answers.".into()
    }

    async fn run(&self, cx: &AgentCx, args: Args) -> ToolOutput {
        let questions: Vec<String> = args
            .questions
            .into_iter()
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty())
            .collect();
        if questions.is_empty() {
            return ToolOutput::permanent("questions is empty");
        }
        // Nothing found because nothing could be reached is an outage: the
        // user cannot fix it by naming the subject again.
        if cx.run.pages.pages().is_empty()
            && let Some(o) = cx.run.reach.outage(cx.run.search.name())
        {
            return ToolOutput::permanent(format!(
                "not asked: {}. An outage is not a question for the user; stop researching and end the run.",
                o.detail
            ));
        }
        cx.run.emitter.emit(
            &cx.agent,
            EventBody::Clarification {
                questions: questions.clone(),
            },
        );
        if cx.run.clarify.mode == ClarifyMode::Wait {
            // The front end asks the user and sends `Op::Answer`; no timeout.
            let Some(answers) = cx.run.clarify.wait(cx.run.cancel.cancelled()).await else {
                return ToolOutput::permanent("the run was stopped before the user answered");
            };
            let pairs = pair_answers(&questions, &answers);
            cx.run.emitter.emit(
                &cx.agent,
                EventBody::ClarificationAnswered {
                    answers: pairs.clone(),
                },
            );
            let message = answers_message(&pairs);
            cx.run.clarify.set_reply(message.clone());
            return ToolOutput::ok(
                format!("The user answered; their answers follow as a message:\n{message}"),
                format!("{} answer(s)", pairs.len()),
            );
        }
        // The questions are echoed so they stay in context if history is trimmed.
        let listing = questions
            .iter()
            .enumerate()
            .map(|(i, q)| format!("{}. {q}", i + 1))
            .collect::<Vec<_>>()
            .join("\n");
        ToolOutput {
            ok: true,
            content: format!(
                "Questions sent to the user; the run stops until they answer:\n{listing}"
            ),
            summary: format!("{} question(s)", questions.len()),
            error_class: None,
            deliverable: Some(Deliverable::Clarification(questions)),
            repeated: false,
        }
    }
}
