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

    /// The skills shipped in the repository's `skills/`.
    fn shipped() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let set = crate::skills::load(&[crate::skills::SkillsDir {
            path: dir,
            explicit: true,
        }]);
        assert_eq!(set.skills.len(), 3, "{set:?}");
        set.skills
            .into_iter()
            .map(|s| (s.name, s.description))
            .collect()
    }

    #[test]
    fn the_question_kind_picks_the_plain_match() {
        let owned = shipped();
        let listed: Vec<(&str, &str)> = owned
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let shipped_list = listed.as_slice();
        assert_eq!(
            skill_for(
                shipped_list,
                "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment."
            ),
            Some("company-due-diligence")
        );
        assert_eq!(
            skill_for(
                shipped_list,
                "What changed in the Pelican 3 standard, and when did it take effect?"
            ),
            Some("what-changed-timeline")
        );
        assert_eq!(skill_for(shipped_list, "How does WireGuard work?"), None);
        assert_eq!(skill_for(shipped_list, "Who founded Acme?"), None);
        assert_eq!(skill_for(&[], "What changed in X?"), None);
    }

    proptest::proptest! {
        #[test]
        fn the_choice_is_one_of_the_listed_and_stable(q in "\\PC{0,120}") {
            let owned = shipped();
            let listed: Vec<(&str, &str)> = owned.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            let shipped_list = listed.as_slice();
            let a = skill_for(shipped_list, &q);
            proptest::prop_assert_eq!(a, skill_for(shipped_list, &q));
            if let Some(n) = a {
                proptest::prop_assert!(shipped_list.iter().any(|(m, _)| *m == n));
            }
        }
    }
}
