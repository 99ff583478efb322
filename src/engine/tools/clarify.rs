use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AgentCx, Deliverable, Tool, ToolOutput, parse_args};
use crate::engine::model::ToolSpec;
use crate::protocol::EventBody;

/// The name models call `RequestClarification` by.
pub const REQUEST_CLARIFICATION: &str = "request_clarification";

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

/// The user's answers as one message pairing each with its question
/// (seed 000): bare answers ("the first") lose their meaning. An empty
/// answer means no preference.
pub fn answers_message(questions: &[String], answers: &[String]) -> String {
    let mut out = String::from("Answers to your clarifying questions:\n");
    for (i, q) in questions.iter().enumerate() {
        let a = answers.get(i).map(|a| a.trim()).unwrap_or("");
        let a = if a.is_empty() { "(no preference)" } else { a };
        out.push_str(&format!("{}. Q: {} A: {a}\n", i + 1, q.trim()));
    }
    out.push_str("Research the question with these answers in mind; do not ask again.");
    out
}

/// Questions narrated in prose: lines (or sentences) that end with `?`.
/// Used when a model asks in plain text instead of calling the tool.
pub fn questions_in_prose(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|l| l.split_inclusive('?'))
        .map(|s| s.trim().trim_start_matches(['-', '*', '•']).trim())
        .map(|s| {
            // "1. Which market?" -> "Which market?"
            let s = s.trim_start_matches(|c: char| c.is_ascii_digit());
            s.trim_start_matches(['.', ')']).trim().to_string()
        })
        .filter(|s| s.ends_with('?') && s.split_whitespace().count() >= 3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_pair_with_their_questions() {
        let m = answers_message(
            &["Which market?".into(), "Timeframe?".into()],
            &["India".into()],
        );
        assert!(m.starts_with("Answers to your clarifying questions:\n"));
        assert!(m.contains("1. Q: Which market? A: India\n"), "{m}");
        assert!(m.contains("2. Q: Timeframe? A: (no preference)\n"), "{m}");
    }

    #[test]
    fn finds_narrated_questions() {
        let q = questions_in_prose(
            "Before I start, a few questions:\n1. Which PadmaPay do you mean, India or UK?\n- What timeframe matters? Also budget.\nThanks",
        );
        assert_eq!(
            q,
            vec![
                "Which PadmaPay do you mean, India or UK?",
                "What timeframe matters?"
            ]
        );
        assert!(questions_in_prose("PadmaPay is a payment gateway in Kochi.").is_empty());
    }
}
