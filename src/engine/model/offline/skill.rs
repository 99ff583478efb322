//! Which of the user's skills the offline lead reads: the one whose name and
//! description plainly match the question, by the question's kind (a
//! what-changed question and a timeline skill) and its words. Deterministic:
//! the best score wins, ties go to the skill listed first, and a skill must
//! share a word of the question's kind and at least two words in all.

use std::collections::BTreeSet;

use super::lexicon::{STOP, stemmer, words};
use crate::question::{self, QuestionKind};

/// Words that name each kind of question, as a skill would describe it.
fn kind_words(kind: QuestionKind) -> &'static [&'static str] {
    match kind {
        QuestionKind::DueDiligence => &[
            "due",
            "diligence",
            "partner",
            "vendor",
            "supplier",
            "counterparty",
            "investment",
        ],
        QuestionKind::WhatChanged => &["changed", "change", "timeline", "history", "version"],
        QuestionKind::HowItWorks => &["mechanism", "works", "explain"],
        QuestionKind::Comparison => &["compare", "comparison", "versus", "alternatives"],
        QuestionKind::Landscape => &["landscape", "market", "players"],
        QuestionKind::Statement => &["statement", "said", "quote", "remarks"],
        QuestionKind::Open => &[],
    }
}

fn stems<'a>(texts: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    let st = stemmer();
    texts
        .into_iter()
        .flat_map(|t| words(t).collect::<Vec<_>>())
        .flat_map(|w| {
            // `due-diligence` counts as its parts too.
            let mut parts: Vec<String> = w.split('-').map(str::to_string).collect();
            parts.push(w);
            parts
        })
        .filter(|w| w.len() > 2 && !STOP.contains(&w.as_str()))
        .map(|w| st.stem(&w).into_owned())
        .collect()
}

/// The skill to read for `question`, among `listed` (name, description).
pub(super) fn skill_for<'a>(listed: &[(&'a str, &'a str)], question: &str) -> Option<&'a str> {
    let kind = stems(kind_words(question::classify(question)).iter().copied());
    if kind.is_empty() {
        return None;
    }
    let asked: BTreeSet<String> = stems([question]).union(&kind).cloned().collect();
    let mut best: Option<(&str, usize)> = None;
    for (name, description) in listed {
        let offered = stems([name.replace(['-', '_'], " ").as_str(), description]);
        if offered.is_disjoint(&kind) {
            continue;
        }
        let score = offered.intersection(&asked).count();
        if score >= 2 && best.is_none_or(|(_, b)| score > b) {
            best = Some((name, score));
        }
    }
    best.map(|(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: &[(&str, &str)] = &[
        (
            "company-due-diligence",
            "Due diligence on a company as a partner, vendor or investment: identity, leadership, licence and regulatory status, funding, incidents, pricing and sentiment, ending in a go / conditions / not-yet verdict.",
        ),
        (
            "source-evaluation",
            "Judge each source before relying on it: identity of the entity, authority of the publisher, freshness, copies of one press release, and conflicts between sources.",
        ),
        (
            "what-changed-timeline",
            "What changed and when: build a dated timeline of versions, rule or leadership changes, with effective dates, what each change replaced and who must act.",
        ),
    ];

    #[test]
    fn the_question_kind_picks_the_plain_match() {
        assert_eq!(
            skill_for(
                SHIPPED,
                "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment."
            ),
            Some("company-due-diligence")
        );
        assert_eq!(
            skill_for(
                SHIPPED,
                "What changed in the Pelican 3 standard, and when did it take effect?"
            ),
            Some("what-changed-timeline")
        );
        assert_eq!(skill_for(SHIPPED, "How does WireGuard work?"), None);
        assert_eq!(skill_for(SHIPPED, "Who founded Acme?"), None);
        assert_eq!(skill_for(&[], "What changed in X?"), None);
    }

    proptest::proptest! {
        #[test]
        fn the_choice_is_one_of_the_listed_and_stable(q in "\\PC{0,120}") {
            let a = skill_for(SHIPPED, &q);
            proptest::prop_assert_eq!(a, skill_for(SHIPPED, &q));
            if let Some(n) = a {
                proptest::prop_assert!(SHIPPED.iter().any(|(m, _)| *m == n));
            }
        }
    }
}
