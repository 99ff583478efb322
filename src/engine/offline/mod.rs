//! The offline model: a deterministic, extractive implementation of
//! [`ChatModel`] that drives the same orchestrator and tools as a real model.
//! It reads its own transcript each turn (so it is stateless and replayable),
//! plans aspects from the question, delegates them, searches, reads, and
//! submits findings whose quotes are verbatim sentences of the pages it read.
//! Nothing in it knows the embedded corpus.

mod lexicon;
mod pages;
mod plan;
mod research;
mod score;
mod skill;
mod transcript;
mod vote;

use async_trait::async_trait;

use crate::config::ModelRole;
use crate::engine::model::{
    ChatModel, ChatRequest, ChatResponse, ModelError, ModelSink, ToolCall, Usage,
};
pub use plan::plan_aspects;
use transcript::Transcript;

pub const OFFLINE_SLUG: &str = "dra/offline-extractive";

/// Pages fetched per search.
const FETCH_PER_SEARCH: usize = 5;
/// Extra read_source chunks per page.
const MAX_READS_PER_PAGE: usize = 3;
/// Findings per aspect.
const MAX_FINDINGS: usize = 5;
/// Sentences taken from one page.
const PER_PAGE: usize = 2;

#[derive(Debug, Default, Clone, Copy)]
pub struct OfflineModel;

#[async_trait]
impl ChatModel for OfflineModel {
    fn slug(&self) -> &str {
        OFFLINE_SLUG
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        _sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        let t = Transcript::read(&request.messages);
        // The request says which agent is asking; the tools offered do not decide.
        let mut content = String::new();
        let (thinking, calls) = match request.role {
            ModelRole::Research => {
                // Offered the clarification tool means it may ask.
                let can_ask = request
                    .tools
                    .iter()
                    .any(|t| t.name == crate::engine::tool::names::REQUEST_CLARIFICATION);
                let turn = plan::lead_turn(&request.messages, can_ask);
                content = turn.content;
                (turn.thinking, turn.calls)
            }
            ModelRole::Subagent => research::researcher_turn(&t),
            ModelRole::Utility => {
                // The claim extractor: extraction is done by the researcher's own
                // sentence scoring, so the offline extractor adds no claims.
                return Ok(ChatResponse {
                    content: r#"{"claims": []}"#.to_string(),
                    tool_calls: vec![],
                    thinking: Some(
                        "No claims: the offline model extracts while researching.".into(),
                    ),
                    usage: Usage::default(),
                    model: OFFLINE_SLUG.to_string(),
                });
            }
        };
        let tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("call_{}_{}", t.turns, i + 1),
                name: name.to_string(),
                arguments,
            })
            .collect();
        Ok(ChatResponse {
            content,
            tool_calls,
            thinking: Some(thinking),
            usage: Usage::default(),
            model: OFFLINE_SLUG.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Message, NoSink, ToolSpec};
    use crate::engine::tool::names::{SUBMIT_FINDINGS, SUBMIT_REPORT, WEB_SEARCH, WRITE_TODOS};

    fn request(role: ModelRole, user: &str) -> ChatRequest {
        ChatRequest {
            role,
            messages: vec![Message::user(user)],
            // The tools offered do not decide the role: offer both enders.
            tools: [SUBMIT_REPORT, SUBMIT_FINDINGS]
                .iter()
                .map(|n| ToolSpec {
                    name: n.to_string(),
                    description: String::new(),
                    parameters: serde_json::json!({}),
                })
                .collect(),
        }
    }

    fn first_call(response: &ChatResponse) -> &str {
        response.tool_calls.first().map_or("", |c| c.name.as_str())
    }

    #[tokio::test]
    async fn the_request_role_chooses_the_turn() {
        let m = OfflineModel;
        let r = m
            .complete(
                &request(ModelRole::Research, "Research question: Who runs Acme?\n"),
                &NoSink,
            )
            .await;
        assert_eq!(r.as_ref().map(first_call).ok(), Some(WRITE_TODOS));
        let r = m
            .complete(
                &request(
                    ModelRole::Subagent,
                    "Aspect: leadership\nEntity: Acme\nQuestion: Who runs Acme?\n",
                ),
                &NoSink,
            )
            .await;
        assert_eq!(r.as_ref().map(first_call).ok(), Some(WEB_SEARCH));
        let r = m
            .complete(
                &request(ModelRole::Utility, "Entity: Acme\nPage: x\n"),
                &NoSink,
            )
            .await;
        let r = r.ok();
        assert!(r.as_ref().is_some_and(|r| r.tool_calls.is_empty()));
        assert_eq!(r.map(|r| r.content).as_deref(), Some(r#"{"claims": []}"#));
    }
}
