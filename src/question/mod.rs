//! Question understanding: what kind of question the user asked. It
//! imports only [`crate::answer`] (what kind of value a clause asks for),
//! so the planner, the merge and the report composer all read the same
//! answer.

mod aspects;
mod clarity;
mod query;
mod text;

use serde::{Deserialize, Serialize};

pub use aspects::{
    DUE_DILIGENCE_CHECKLIST, Decomposition, MAX_ASPECTS, comparison_items, decompose, plan_problems,
};
pub(crate) use aspects::{resolve_pronouns, split_list};
pub use clarity::{Unclear, Unresearchable, content_words, fold_answers, unclear, unresearchable};
pub use query::{refined_query, search_query};

/// The kind of a research question; it decides how the question is split
/// into aspects and which sections the report carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Is this company a reliable partner, vendor, investment...
    DueDiligence,
    /// What changed in X, and when (a standard, a law, a product).
    WhatChanged,
    /// How does X work.
    HowItWorks,
    /// X versus Y.
    Comparison,
    /// Which X exist; what does the market look like.
    Landscape,
    /// What did a person or organisation say.
    Statement,
    /// Anything else.
    #[default]
    Open,
}

impl QuestionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::DueDiligence => "due_diligence",
            QuestionKind::WhatChanged => "what_changed",
            QuestionKind::HowItWorks => "how_it_works",
            QuestionKind::Comparison => "comparison",
            QuestionKind::Landscape => "landscape",
            QuestionKind::Statement => "statement",
            QuestionKind::Open => "open",
        }
    }
}

/// Whole words of `lower` (already lowercase) that appear in `words`.
fn has_word(lower: &str, words: &[&str]) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .any(|w| words.contains(&w))
}

fn has_phrase(lower: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| lower.contains(p))
}

/// Classifies a question by its wording. Deterministic; works on any
/// Unicode input (it never slices the original string).
pub fn classify(question: &str) -> QuestionKind {
    let lower = question.to_lowercase();
    if has_word(&lower, &["vs", "vs.", "versus"])
        || has_phrase(
            &lower,
            &[
                "compare ",
                "comparison of",
                "compared to",
                "compared with",
                "difference between",
                "differences between",
                " or ", // refined below: only with "which is better" style cues
            ],
        ) && has_phrase(
            &lower,
            &[
                "compare",
                "comparison",
                // "differ", "different", "difference"
                "differ",
                "better",
                "which should",
                "which one",
                "versus",
            ],
        )
    {
        return QuestionKind::Comparison;
    }
    if has_phrase(
        &lower,
        &[
            "reliable",
            "due diligence",
            "trustworthy",
            "safe to partner",
            "as a partner",
            "partner for",
            "as our",
            "vendor",
            "supplier",
            "should we pick",
            "should we choose",
            "should we use",
            "invest in",
        ],
    ) {
        return QuestionKind::DueDiligence;
    }
    if has_phrase(
        &lower,
        &[
            "what changed",
            "what has changed",
            "what's changed",
            "what is new in",
            "what's new in",
            "changes in",
            "changes to",
            "change in",
            "timeline",
            "history of",
            "when did",
            "take effect",
            "took effect",
            "come into force",
            "came into force",
            "since when",
            "when was ",
            "when were ",
            "into force",
            "in force since",
        ],
    ) {
        return QuestionKind::WhatChanged;
    }
    if has_phrase(
        &lower,
        &[
            "how does",
            "how do ",
            "how is ",
            "how are ",
            "how it works",
            "explain how",
            "what is the mechanism",
            "under the hood",
        ],
    ) {
        return QuestionKind::HowItWorks;
    }
    if has_phrase(
        &lower,
        &[
            "what did",
            "what has",
            "what have",
            " said ",
            " say ",
            " say?",
            "statement",
            "stance on",
            "position on",
            "interview",
        ],
    ) && !has_phrase(&lower, &["what has changed", "what have changed"])
    {
        return QuestionKind::Statement;
    }
    if has_phrase(
        &lower,
        &[
            "which companies",
            "which cities",
            "which countries",
            "which products",
            "which tools",
            "what are the main",
            "what are the leading",
            "who are the",
            "landscape",
            "list of",
            "list the",
            "market for",
            "players in",
            "alternatives to",
            "options for",
        ],
    ) {
        return QuestionKind::Landscape;
    }
    QuestionKind::Open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_questions() {
        let cases = [
            (
                "Is PadmaPay (Kochi, India) a reliable payment-gateway partner?",
                QuestionKind::DueDiligence,
            ),
            (
                "What changed in version 3 of the Open Transit Feed standard, and when did it take effect?",
                QuestionKind::WhatChanged,
            ),
            (
                "What is Firefox Reader View and how does it work?",
                QuestionKind::HowItWorks,
            ),
            ("Postgres vs MySQL for analytics", QuestionKind::Comparison),
            (
                "Kestrel or Osprey: how do they differ, and which one should I use?",
                QuestionKind::Comparison,
            ),
            (
                "Compare WireGuard and OpenVPN on speed and security",
                QuestionKind::Comparison,
            ),
            (
                "What did President Obama say about US gun laws in his BBC interview?",
                QuestionKind::Statement,
            ),
            (
                "Which companies make solid-state batteries?",
                QuestionKind::Landscape,
            ),
            ("Why is the sky blue?", QuestionKind::Open),
        ];
        for (q, want) in cases {
            assert_eq!(classify(q), want, "{q}");
        }
    }

    proptest::proptest! {
        #[test]
        fn classify_never_panics(q in "\\PC{0,200}") {
            let _ = classify(&q);
        }
    }
}
