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

/// The plan of a question whose skills were read (their texts, in the order
/// read). A skill line naming its aspects ("Plan aspects: ...") puts them
/// first, then the question's own. A skill's checklist under a plan heading
/// is its default plan: it comes first, the same way, when the question's
/// plan is a kind's template (a bare "What changed in X?"); a question that
/// asks its own things keeps them.
pub(super) fn plan_with_skills(skills: &[&str], asked: question::Decomposition) -> Vec<String> {
    if let Some(named) = skills
        .iter()
        .map(|s| skill_aspects(s))
        .find(|a| !a.is_empty())
    {
        return with_skill_aspects(named, asked.aspects, question::MAX_ASPECTS);
    }
    if asked.templated
        && let Some(checklist) = skills
            .iter()
            .map(|s| headed_checklist(s))
            .find(|a| !a.is_empty())
    {
        let from_skill = checklist.len();
        let mut plan = with_skill_aspects(checklist, asked.aspects, question::MAX_ASPECTS);
        // A checklist's labels name no subject ("When it took effect"):
        // each todo names the question's ("When SQLite 3.35.0 took effect",
        // "SQLite 3.35.0: What changed"), so its searches look for it.
        if let Some(topic) = asked.topic.as_deref() {
            for label in plan.iter_mut().take(from_skill) {
                let named = question::resolve_pronouns(label, Some(topic));
                *label = if named == *label {
                    format!("{topic}: {label}")
                } else {
                    named
                };
            }
        }
        return plan;
    }
    asked.aspects
}

/// The checklist under a Markdown heading with the word "plan" ("## 2. Plan
/// these aspects", "## Planning"): each list item's label, its bold lead
/// ("1. **Leadership**: who runs ...") or a short lead before a colon
/// ("- Pricing: the current list"), up to the next heading. Items without a
/// label and prose between them are skipped; continuation lines are not
/// items.
fn headed_checklist(skill: &str) -> Vec<String> {
    let stem = stemmer();
    let mut in_plan = false;
    let mut labels = Vec::new();
    let mut fenced = false;
    for line in skill.lines() {
        // A `# comment` in a code block is no heading.
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        if let Some(heading) = line.strip_prefix('#') {
            if !labels.is_empty() {
                break;
            }
            in_plan = words(heading).any(|w| stem.stem(&w) == "plan");
            continue;
        }
        if in_plan && let Some(label) = item_label(line) {
            labels.push(label);
        }
    }
    labels.truncate(MAX_SKILL_ASPECTS);
    labels
}

/// The label of a top-level list item: its bold lead, or the words before
/// its colon when they are a label (at most five words).
fn item_label(line: &str) -> Option<String> {
    let item = line
        .strip_prefix(['-', '*', '+'])
        .or_else(|| {
            let digits = line.trim_start_matches(|c: char| c.is_ascii_digit());
            (digits.len() < line.len())
                .then(|| digits.strip_prefix(['.', ')']))
                .flatten()
        })?
        .strip_prefix(' ')?
        .trim_start();
    let label = match item.strip_prefix("**") {
        Some(bold) => &bold[..bold.find("**")?],
        None => {
            let lead = &item[..item.find(':')?];
            if lead.split_whitespace().count() > 5 {
                return None;
            }
            lead
        }
    };
    let label = label.trim().trim_end_matches([':', '.']).trim();
    (!label.is_empty()).then(|| label.to_string())
}

/// Aspects a skill's instructions name in one line, "Plan aspects: licence,
/// settlement time, pricing." (a list item or a plain line; the last such
/// line wins): each item, as written, without its closing full stop.
/// Empty when the skill has no such line.
fn skill_aspects(skill: &str) -> Vec<String> {
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
fn with_skill_aspects(skill: Vec<String>, question: Vec<String>, max: usize) -> Vec<String> {
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
    fn a_checklist_under_a_plan_heading_sets_the_plan() {
        let skill = "# Review\n\n## 1. Identity\n\n- **Anchors**: name, city.\n\n\
            ## 2. Plan these aspects\n\nWhen the user lists none, one todo each for:\n\n\
            1. **Leadership**: who runs it,\n   and changes: with dates.\n\
            2. **Licence and its status.** Which regulator.\n\
            3. Pricing and terms: the current list.\n\
            4. A long sentence that says many things before it reaches: a colon.\n\
            - plain item without a label\n\
            ```sh\n# a comment\n- **Not**: in a fence\n```\n\
            ## 3. Evidence\n\n- **Quotes**: verbatim.\n";
        assert_eq!(
            headed_checklist(skill),
            ["Leadership", "Licence and its status", "Pricing and terms"]
        );
        // A one-line list wins over a checklist; the checklist is the plan
        // only of a question that lists nothing itself.
        let both = format!("{skill}\nPlan aspects: cost, speed.");
        let asked = |q: &str| question::decompose(q, Some("Acme"));
        assert_eq!(
            plan_with_skills(&[&both], asked("Is Acme a reliable vendor?"))[..2],
            ["cost", "speed"]
        );
        assert_eq!(
            plan_with_skills(&[skill], asked("Is Acme a reliable vendor?")),
            [
                "Acme: Leadership",
                "Licence and Acme's status",
                "Acme: Pricing and terms",
                "funding",
                "reliability and incidents",
                "customer sentiment"
            ]
        );
        for own in [
            "Check Acme's pricing, funding and outages.",
            "When was Acme founded?",
        ] {
            assert_eq!(plan_with_skills(&[skill], asked(own)), asked(own).aspects);
        }
        // No plan heading, no checklist.
        assert!(headed_checklist("## Evidence\n1. **Quotes**: verbatim.").is_empty());
        // The shipped skills' checklists.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name).join("SKILL.md")).unwrap_or_default()
        };
        assert_eq!(
            headed_checklist(&read("company-due-diligence")),
            [
                "Leadership",
                "Licence and regulatory status",
                "Funding and ownership",
                "Reliability and incidents",
                "Pricing and terms",
                "Customer sentiment"
            ]
        );
        assert_eq!(
            headed_checklist(&read("what-changed-timeline")),
            [
                "What changed",
                "When it took effect",
                "What it replaced",
                "Who must act"
            ]
        );
        assert!(headed_checklist(&read("source-evaluation")).is_empty());
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
