//! The sub-researcher's answer: the value its pages give for its
//! sub-question, voted across the pages read (see [`crate::answer`]), with
//! the sentences that state it as findings.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::pages::PageRead;
use super::score::Candidate;
use crate::answer::{self, Outcome, Passage};
use crate::evidence::{quotes, sentences};

/// Supporting sentences kept for the answer, one per source.
const SUPPORTS: usize = 3;

/// What the pages say to a sub-question that asks for a value.
pub(super) struct Picked {
    /// The value, or `None` when no sentence about the sub-question states
    /// one or the answer is a sentence.
    pub value: Option<String>,
    /// Whether sentences about the sub-question were found at all.
    pub answered: bool,
    /// The sentences stating it, best first, one per independent source.
    pub supports: Vec<Candidate>,
    /// The best sentence of each other value sentences about the
    /// sub-question state (an earlier date, a disputed figure): rival
    /// answers, which the merge weighs as conflicts or history; each with
    /// the value it states.
    pub rivals: Vec<(Candidate, String)>,
}

/// The share of the best supporting sentence's coverage another sentence
/// needs to count as a source agreeing with the answer: below it, it states
/// the same value about something else ("This field is 0 during a
/// REINDEX" beside the question's largest number).
const AGREEING: f64 = 0.5;

/// Rival values kept beside the answer.
const RIVALS: usize = 3;

/// The other values sentences about the sub-question state, each with the
/// sentence that states it (first one per value, at most one per
/// sentence): a value written in a sentence of the answer itself ("moved
/// from 1 April 2026 to 1 July 2026", "rises from £6 to £7.50"), or in a
/// sentence naming every term of the question the answer's best sentence
/// names ("scheduled to take effect on 1 April 2026" beside "takes effect
/// on 1 July 2026"). A sentence missing one of them ("passed" where the
/// question asks "proposed") states another fact, not a rival answer. Two
/// names in one sentence are mostly two people in two roles ("Key people:
/// Kavya Menon (chief executive), Meera Nair (chief product officer)"): a
/// name beside the answer's is a rival only in a sentence that names who
/// held the role before ("replacing co-founder Arjun Pillai").
///
/// The subject's own words ("Corvane Freight") are in every sentence of
/// its pages: a sentence naming only them beside a name ("Corvane Freight
/// raised a round from Western Ghats Ventures") is no rival to its chief
/// executive. A rival names what the best sentence names of the subject
/// and of the question; when those are only the subject's words, it also
/// shares a word of the best sentence beyond the subject and the answer
/// ("chief executive officer").
fn rivals_of<'a>(
    voted: &'a answer::vote::Voted,
    passages: &[Passage<'_>],
    question: &str,
    entity: &str,
) -> Vec<(&'a answer::vote::Support, String)> {
    let ballots = &voted.ballots;
    let Some((best, others)) = ballots.split_first() else {
        return vec![];
    };
    // The vote's own vocabulary: the terms its coverage counts.
    let terms_of = |s: &answer::vote::Support| {
        answer::vote::terms_of(passages[s.passage].sentences[s.sentence])
    };
    let subject = answer::vote::terms_of(entity);
    let asked: BTreeSet<String> = answer::vote::terms_of(question)
        .difference(&subject)
        .cloned()
        .collect();
    // The best sentence: what of the question and of the subject it
    // names, and its own words beyond the subject, the answer and its
    // dates ("since 1 November 2026" says when, not what).
    let first = best.supports.first();
    let first_terms = first.map(terms_of).unwrap_or_default();
    let required: BTreeSet<String> = first_terms.intersection(&asked).cloned().collect();
    let named: BTreeSet<String> = first_terms.intersection(&subject).cloned().collect();
    let value = answer::vote::terms_of(&best.value);
    let context: BTreeSet<String> = first
        .map(|s| undated_terms(passages[s.passage].sentences[s.sentence]))
        .unwrap_or_default()
        .into_iter()
        .filter(|t| !subject.contains(t) && !value.contains(t))
        .collect();
    let about = |s: &answer::vote::Support| {
        let terms = terms_of(s);
        if required.is_empty() {
            !named.is_empty()
                && terms.is_superset(&named)
                && terms.intersection(&context).next().is_some()
        } else {
            terms.is_superset(&required) && terms.is_superset(&named)
        }
    };
    let in_answer = |s: &answer::vote::Support| {
        let sentence = passages[s.passage].sentences[s.sentence];
        (!voted.answer_type.is_name() || answer::vote::names_a_predecessor(sentence))
            && best
                .supports
                .iter()
                .any(|b| b.passage == s.passage && b.sentence == s.sentence)
    };
    let mut out: Vec<(&answer::vote::Support, String)> = Vec::new();
    for b in others {
        let rival = b.supports.iter().find(|s| in_answer(s)).or_else(|| {
            b.supports.iter().find(|s| {
                about(s)
                    && !(voted.answer_type.is_name()
                        && answer::vote::names_another_subject(
                            question,
                            passages[s.passage].sentences[s.sentence],
                            s.span.start,
                            s.span.end,
                        ))
            })
        });
        if let Some(s) = rival
            && !out
                .iter()
                .any(|(o, _)| o.passage == s.passage && o.sentence == s.sentence)
        {
            out.push((s, b.value.clone()));
        }
    }
    out
}

/// A sentence's terms without its numbers and calendar words.
fn undated_terms(sentence: &str) -> BTreeSet<String> {
    let undated: Vec<&str> = sentence
        .split_whitespace()
        .filter(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            !w.chars().any(|c| c.is_ascii_digit()) && !crate::document::is_calendar_word(&w)
        })
        .collect();
    answer::vote::terms_of(&undated.join(" "))
}

/// The year of a page's date ("2026-11-03").
fn year_of(date: &str) -> Option<u32> {
    date.get(..4)?.parse().ok()
}

/// The vote over the pages read, for a sub-question whose answer is a
/// value; `None` for one answered by sentences (how, why, what is).
pub(super) fn pick(
    aspect: &str,
    question: &str,
    entity: &str,
    order: &[String],
    pages: &BTreeMap<String, PageRead>,
) -> Option<Picked> {
    // Chinese and Japanese names have no capitals to find them by: the
    // answer is the sentences most about the question.
    let cjk = answer::cjk::has_cjk(aspect);
    let ty = if cjk {
        answer::AnswerType::Explanation
    } else {
        answer::expected(aspect)
    };
    if !ty.is_span() && !cjk {
        return None;
    }
    // A topic of a plan ("rates", "funding") is researched for what the
    // sources say of it; a question (the user's, or an aspect phrased as
    // one) asks for its value.
    let same = |a: &str, b: &str| {
        let norm = |s: &str| s.trim().trim_end_matches(['?', '？', '.']).to_lowercase();
        norm(a) == norm(b)
    };
    if !answer::is_phrased_as_question(aspect) && !same(aspect, question) {
        return None;
    }
    // Copies of one text are one source.
    let mut origins: HashMap<String, usize> = HashMap::new();
    let passages: Vec<Passage> = order
        .iter()
        .map(|u| {
            let p = &pages[u];
            let next = origins.len();
            let origin = *origins
                .entry(quotes::normalize(&p.text).to_lowercase())
                .or_insert(next);
            Passage {
                origin,
                title: &p.title,
                sentences: sentences::split(&p.text),
                dated: p.as_of.as_deref().and_then(year_of),
            }
        })
        .collect();
    let asked = if entity.is_empty() || aspect.to_lowercase().contains(&entity.to_lowercase()) {
        aspect.to_string()
    } else {
        format!("{aspect} {entity}")
    };
    let question = asked;
    let candidate = |passage: usize, sentence: usize, score: f64| {
        let url = &order[passage];
        Candidate {
            sentence: passages[passage].sentences[sentence].to_string(),
            url: url.clone(),
            as_of: pages[url].as_of.clone(),
            score,
        }
    };
    let outcome = if cjk {
        answer::vote::vote_parts(&question, &passages)
    } else {
        answer::vote::vote(&question, ty, &passages)
    };
    Some(match outcome {
        Outcome::Answered(v) => {
            let best = &v.ballots[0];
            // The sentences writing the value as it is shown come first.
            // Only sentences about the question support it: "0" in "This
            // field is 0 during a REINDEX" does not agree with "returns 0 if
            // both inputs are zero" about the question's number.
            let floor = AGREEING * best.coverage();
            let mut supports: Vec<&answer::vote::Support> = best
                .supports
                .iter()
                .filter(|s| s.coverage >= floor)
                .collect();
            supports.sort_by_key(|s| s.span.text != best.value);
            let supports: Vec<Candidate> = supports
                .into_iter()
                .take(SUPPORTS)
                .map(|s| candidate(s.passage, s.sentence, s.weight))
                .collect();
            let rivals = rivals_of(&v, &passages, aspect, entity)
                .into_iter()
                .map(|(s, value)| (candidate(s.passage, s.sentence, s.weight), value))
                .take(RIVALS)
                .collect();
            Picked {
                value: Some(best.value.clone()),
                answered: true,
                supports,
                rivals,
            }
        }
        Outcome::Sentences(best) => Picked {
            value: None,
            answered: true,
            supports: best
                .into_iter()
                .map(|(p, s, c)| candidate(p, s, c))
                .collect(),
            rivals: vec![],
        },
        Outcome::NotStated { .. } => Picked {
            value: None,
            answered: false,
            supports: vec![],
            rivals: vec![],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> PageRead {
        PageRead {
            text: text.into(),
            title: "Kelp manual".into(),
            source_type: "other".into(),
            ..Default::default()
        }
    }

    /// A Markdown page as a folder corpus reads it: its heading, then its text.
    fn titled(title: &str, text: &str) -> PageRead {
        PageRead {
            title: title.into(),
            ..page(&format!("# {title}\n\n{text}"))
        }
    }

    fn corvane() -> (Vec<String>, BTreeMap<String, PageRead>) {
        let pages = BTreeMap::from([
            (
                "lead".to_string(),
                titled(
                    "Corvane Freight leadership",
                    "Corvane Freight is a cold-chain logistics company based in Pune, India.\n\nIshaan Rao is the chief executive officer of Corvane Freight. He has led the company since 2021.",
                ),
            ),
            (
                "fund".to_string(),
                titled(
                    "Corvane Freight raises Series A",
                    "Corvane Freight raised a Series A round of $12 million in March 2025 from Western Ghats Ventures.",
                ),
            ),
            (
                "price".to_string(),
                titled(
                    "Corvane Freight pricing",
                    "Corvane Freight charges INR 900 per pallet per month for cold storage in Pune.",
                ),
            ),
        ]);
        let order = ["fund", "price", "lead"].map(String::from).to_vec();
        (order, pages)
    }

    #[test]
    fn a_name_beside_only_the_subjects_name_is_no_rival_answer() {
        let (order, pages) = corvane();
        let q = "Who is the CEO of Corvane Freight?";
        let picked = pick(q, q, "Corvane Freight", &order, &pages).expect("a name question");
        assert_eq!(picked.value.as_deref(), Some("Ishaan Rao"));
        // The investor and the currency share only the company's name with
        // the question: other facts, not rival chief executives.
        assert!(
            picked.rivals.is_empty(),
            "{:?}",
            picked.rivals.iter().map(|(_, v)| v).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_question_word_no_source_uses_does_not_hide_the_answer() {
        // No page says "funding": the sources say "raised a Series A round".
        let (order, pages) = corvane();
        let q = "How much funding has Corvane Freight raised?";
        let picked = pick(q, q, "Corvane Freight", &order, &pages).expect("an amount question");
        assert!(picked.answered);
        assert_eq!(picked.value.as_deref(), Some("$12 million"));
    }

    #[test]
    fn only_sentences_about_the_question_agree_with_its_answer() {
        let q = "What is the largest number a Kelp counter can hold?";
        let pages = BTreeMap::from([
            (
                "a".to_string(),
                page("The largest number a Kelp counter can hold is 4096."),
            ),
            (
                "b".to_string(),
                page(
                    "The reindex log is kept in a separate file. This field is 4096 during a reindex.",
                ),
            ),
        ]);
        let order = ["a".to_string(), "b".to_string()];
        let picked = pick(q, q, "Kelp", &order, &pages).expect("a value question");
        assert_eq!(picked.value.as_deref(), Some("4096"));
        // The reindex sentence states the same number about something else:
        // it is no second source.
        assert_eq!(
            picked.supports.len(),
            1,
            "{:?}",
            picked
                .supports
                .iter()
                .map(|c| &c.sentence)
                .collect::<Vec<_>>()
        );
    }
}
