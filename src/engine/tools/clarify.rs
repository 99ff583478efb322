//! `request_clarification`: the lead asks the user before researching an
//! ambiguous request.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::clarifier::{ClarifyMode, answers_message, pair_answers};
use crate::engine::model::ToolSpec;
use crate::engine::tool::names::REQUEST_CLARIFICATION;
use crate::engine::tool::{AgentCx, Deliverable, Tool, ToolOutput, parse_args};
use crate::protocol::EventBody;

/// Ends the run with questions for the user when the request is ambiguous.
pub struct RequestClarification;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    questions: Vec<String>,
}

#[async_trait]
impl Tool for RequestClarification {
    fn name(&self) -> &'static str {
        REQUEST_CLARIFICATION
    }

    fn ends_agent(&self) -> bool {
        true
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: REQUEST_CLARIFICATION.into(),
            description: "Ask the user clarifying questions when the request is ambiguous (unclear entity, scope, timeframe or goal). Call it first, before any research; the run stops until the user answers.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"questions": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}},
                "required": ["questions"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput {
        let args: Args = match parse_args(REQUEST_CLARIFICATION, args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let questions: Vec<String> = args
            .questions
            .into_iter()
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty())
            .collect();
        if questions.is_empty() {
            return ToolOutput::permanent("questions is empty");
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
        }
    }
}
