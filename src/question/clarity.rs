//! Whether a question gives dra anything to research: at least one content
//! word (a name, a thing, a topic) once question words, pronouns and the
//! verbs of asking ("compare", "check") are set aside. `x`, "Compare them"
//! or a string of control characters have none, and a run on them could
//! only cite whatever the search happened to return.

use super::query::is_stop;
use super::text::words;

/// Verbs and fillers of asking: they say what to do, not what about.
const ASKING: &[&str] = &[
    "analyse",
    "analyze",
    "anything",
    "assess",
    "check",
    "compare",
    "describe",
    "everything",
    "evaluate",
    "explain",
    "find",
    "give",
    "i",
    "investigate",
    "it's",
    "list",
    "look",
    "me",
    "my",
    "not",
    "no",
    "ones",
    "out",
    "research",
    "review",
    "show",
    "something",
    "stuff",
    "summarise",
    "summarize",
    "thing",
    "things",
    "us",
    "versus",
    "vs",
    "yes",
];

/// Why a question cannot be researched, with how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclear {
    pub why: String,
}

/// The question's content words: what it is about.
pub fn content_words(question: &str) -> Vec<&str> {
    words(question)
        .filter(|w| {
            let lower = w.to_lowercase();
            let meaningful = w.chars().count() >= 2
                // One ideograph or kana is a word of its own.
                || w.chars().any(|c| c.is_alphabetic() && !c.is_ascii());
            meaningful && !is_stop(w) && !ASKING.contains(&lower.as_str())
        })
        .collect()
}

/// `Some` when the question names nothing to research.
pub fn unresearchable(question: &str) -> Option<Unclear> {
    if !content_words(question).is_empty() {
        return None;
    }
    let printable = question
        .chars()
        .any(|c| !c.is_control() && !c.is_whitespace());
    let why = if printable {
        "the question names nothing to research (no company, product, person or topic)"
    } else {
        "the question is empty once control characters and spaces are removed"
    };
    Some(Unclear {
        why: format!(
            "{why}; ask about a named subject, for example: dra ask \"Is Acme Corp (Pune, India) a reliable logistics partner? Check leadership and pricing.\""
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_without_a_subject_are_unclear() {
        for q in [
            "x",
            "Compare them",
            "compare them?",
            "\u{1}\u{2}\u{3}",
            "   ",
            "",
            "What about it?",
            "Check this",
            "?!",
        ] {
            assert!(unresearchable(q).is_some(), "{q:?}");
        }
        assert!(unresearchable("\u{1}\u{2}").is_some_and(|u| u.why.contains("control characters")));
    }

    #[test]
    fn questions_with_a_subject_are_researchable() {
        for q in [
            "Is PadmaPay a reliable partner?",
            "Compare Stripe and Razorpay",
            "Rust",
            "AI",
            "What changed in GTFS?",
            "東京",
            "Who is the CEO of Halden Freight?",
            "x86 vs ARM",
        ] {
            assert_eq!(unresearchable(q), None, "{q:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_gets_an_answer_and_named_text_is_researchable(s in "\\PC{0,60}", name in "Zq[a-z]{2,8}") {
            let _ = unresearchable(&s);
            let q = format!("{s} {name}");
            proptest::prop_assert!(unresearchable(&q).is_none(), "{q:?}");
        }
    }
}
