//! Reading the model's own transcript: the opening user message (with its
//! labelled lines) and the tool calls of earlier turns with their results.

use std::collections::HashMap;

use serde_json::Value;

use crate::engine::model::{Message, Role};
use crate::protocol::EntityAnchors;

/// A tool call of an earlier turn and its result.
pub(super) struct PastCall<'a> {
    pub name: &'a str,
    pub args: &'a Value,
    pub result: Option<&'a str>,
}

pub(super) struct Transcript<'a> {
    pub user: &'a str,
    pub calls: Vec<PastCall<'a>>,
    pub turns: usize,
}

impl<'a> Transcript<'a> {
    pub fn read(messages: &'a [Message]) -> Self {
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
        Transcript { user, calls, turns }
    }

    pub fn called(&self, name: &str) -> impl Iterator<Item = &PastCall<'a>> {
        self.calls.iter().filter(move |c| c.name == name)
    }
}

pub(super) fn field<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(label))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

pub(super) fn anchors_of(text: &str) -> EntityAnchors {
    let list = |label: &str, sep: char| {
        field(text, label)
            .map(|s| {
                s.split(sep)
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    EntityAnchors {
        name: field(text, "Entity:").map(String::from),
        domain: field(text, "Official domain:").map(String::from),
        country: field(text, "Country:").map(String::from),
        city: field(text, "City:").map(String::from),
        industry: list("Industry:", ','),
        exclude: list("Exclude look-alikes:", ';'),
        inferred: false,
    }
}

/// Strips the spotlight delimiters from untrusted text.
pub(super) fn unwrap_spotlight(text: &str) -> &str {
    crate::engine::spotlight::unwrap(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let text = format!("Research question: {q}\nEntity: {name}\nExclude look-alikes: {exclude}\n");
            let a = anchors_of(&text);
            if let Some(n) = &a.name {
                proptest::prop_assert!(!n.trim().is_empty());
            }
            for e in &a.exclude {
                proptest::prop_assert!(!e.is_empty() && !e.contains(';'));
            }
            let _ = field(&text, "Research question:");
            let _ = unwrap_spotlight(&q);
        }
    }
}
