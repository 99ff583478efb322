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

/// Aspects a skill's instructions name in one line, "Plan aspects: licence,
/// settlement time, pricing." (a list item or a plain line; the last such
/// line wins): each item, as written, without its closing full stop.
/// Empty when the skill has no such line.
pub(super) fn skill_aspects(skill: &str) -> Vec<String> {
    let Some(list) = skill.lines().rev().find_map(|line| {
        let lower = line.to_lowercase();
        let at = lower.find("aspects:")?;
        // Only a line that says what to plan: "Plan aspects:", "Aspects:".
        let before = lower[..at].trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '.' | ')' | '-' | '*' | ' ')
        });
        matches!(before.trim(), "" | "plan" | "plan these" | "plan the")
            .then(|| line[at + "aspects:".len()..].to_string())
    }) else {
        return vec![];
    };
    question::split_list(list.trim().trim_end_matches('.'))
        .into_iter()
        .take(MAX_SKILL_ASPECTS)
        .collect()
}

/// Aspects a skill line may add to a plan.
const MAX_SKILL_ASPECTS: usize = 8;

/// The plan: a skill's aspects first, then the question's own that name
/// none of their words (the question's "licence status" is the skill's
/// "licence"), at most `max`.
pub(super) fn with_skill_aspects(
    skill: Vec<String>,
    question: Vec<String>,
    max: usize,
) -> Vec<String> {
    let content = |a: &str| stems([a]);
    let mut plan = skill;
    for a in question {
        let words = content(&a);
        if plan.iter().all(|p| content(p).is_disjoint(&words)) {
            plan.push(a);
        }
    }
    plan.truncate(max);
    plan
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
    fn a_skill_line_naming_aspects_sets_the_plan() {
        let skill = "Skill: payment-partner-review\n# Payment partner review\n\
            1. Settle the licence from the regulator's register before anything else...\n\
            2. Plan aspects: licence, settlement time, chargeback rate, outages (last 12 months), pricing.\n\
            3. Open the report with go / go with conditions / not yet.";
        let named = skill_aspects(skill);
        assert_eq!(
            named,
            [
                "licence",
                "settlement time",
                "chargeback rate",
                "outages (last 12 months)",
                "pricing"
            ]
        );
        let question = [
            "leadership",
            "licence and regulatory status",
            "funding",
            "pricing",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            with_skill_aspects(named, question, 10),
            [
                "licence",
                "settlement time",
                "chargeback rate",
                "outages (last 12 months)",
                "pricing",
                "leadership",
                "funding",
            ]
        );
        // Any text is read without panicking, whatever its letters.
        assert_eq!(
            skill_aspects("İstanbul notes\n- Aspects: ünï, çà"),
            ["ünï", "çà"]
        );
        assert!(skill_aspects("İİİ aspects: x").is_empty());
        // Prose about aspects is no list of them.
        assert!(
            skill_aspects("Use the aspects the user lists: when they list none, plan six.")
                .is_empty()
        );
        assert!(
            skill_aspects("## 2. Plan these aspects\n\nUse the aspects the user lists.").is_empty()
        );
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
