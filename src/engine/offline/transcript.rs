//! Reading the model's own transcript: the opening user message (with its
//! labelled lines) and the tool calls of earlier turns with their results.

use std::collections::HashMap;

use serde_json::Value;

use crate::engine::model::{Message, Role};

/// A tool call of an earlier turn and its result.
pub(super) struct PastCall<'a> {
    pub name: &'a str,
    pub args: &'a Value,
    pub result: Option<&'a str>,
}

pub(super) struct Transcript<'a> {
    /// The system prompt (empty when none was sent).
    pub system: &'a str,
    pub user: &'a str,
    pub calls: Vec<PastCall<'a>>,
    pub turns: usize,
}

impl<'a> Transcript<'a> {
    pub fn read(messages: &'a [Message]) -> Self {
        let system = messages
            .iter()
            .find(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let user = messages
            .iter()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let results: HashMap<&str, &str> = messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.content.as_str())))
            .collect();
        let mut calls = Vec::new();
        let mut turns = 0;
        for m in messages.iter().filter(|m| m.role == Role::Assistant) {
            turns += 1;
            for c in &m.tool_calls {
                calls.push(PastCall {
                    name: &c.name,
                    args: &c.arguments,
                    result: results.get(c.id.as_str()).copied(),
                });
            }
        }
        Transcript {
            system,
            user,
            calls,
            turns,
        }
    }

    pub fn called(&self, name: &str) -> impl Iterator<Item = &PastCall<'a>> {
        self.calls.iter().filter(move |c| c.name == name)
    }
}

pub(super) use crate::engine::prompts::{anchors_of, field};

/// Strips the spotlight delimiters from untrusted text.
pub(super) fn unwrap_spotlight(text: &str) -> &str {
    crate::engine::spotlight::unwrap(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::prompts::label;

    #[test]
    fn unwraps_spotlight() {
        assert_eq!(
            unwrap_spotlight("<<untrusted-data ab12>>\nhello\n<</untrusted-data ab12>>"),
            "hello"
        );
        assert_eq!(unwrap_spotlight("plain"), "plain");
    }

    proptest::proptest! {
        #[test]
        fn anchors_parse_from_any_user_text(
            q in "\\PC{0,120}",
            name in "\\PC{0,30}",
            exclude in "[İß\u{301}a-zA-Z;, ]{0,30}",
        ) {
            let text = format!("{} {q}\n{} {name}\n{} {exclude}\n", label::RESEARCH_QUESTION, label::ENTITY, label::EXCLUDE);
            let a = anchors_of(&text);
            if let Some(n) = &a.name {
                proptest::prop_assert!(!n.trim().is_empty());
            }
            for e in &a.exclude {
                proptest::prop_assert!(!e.is_empty() && !e.contains(';'));
            }
            let _ = field(&text, label::RESEARCH_QUESTION);
            let _ = unwrap_spotlight(&q);
        }
    }
}
