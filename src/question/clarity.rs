//! Whether a question names something to research, and what to ask when it
//! does not. This is the offline model's rule (a language model decides for
//! itself); it reads the question alone, word by word, so it is
//! deterministic and works on any Unicode input:
//!
//! - a greeting or pleasantry and nothing else ("hi", "thanks!") asks what
//!   to research;
//! - one word or none ("x", "PadmaPay") asks what to find out about it;
//! - a comparison that does not name two items ("Compare them") asks what
//!   to compare with what;
//! - a question with no proper name whose subject is a pronoun and that has
//!   at most two words of substance ("Is it reliable?", "What do they
//!   charge?") asks which company or product is meant.
//!
//! A subject that matches nothing in the sources is only known after
//! searching: the offline planner asks [`Unclear::NothingFound`] when every
//! aspect came back without a verified finding.

use super::query::is_stop;
use super::text::words as text_words;
use super::{QuestionKind, classify, comparison_items};

/// Why a question cannot be researched as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unclear {
    /// Only greetings or pleasantries.
    Greeting,
    /// One word (or none: the string is then empty).
    OneWord(String),
    /// A comparison that names fewer than two items.
    NoComparands,
    /// The subject is a pronoun (the pronoun as written).
    NoSubject(String),
    /// Research found nothing about the subject.
    NothingFound(String),
}

const GREETINGS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hiya",
    "howdy",
    "yo",
    "sup",
    "greetings",
    "thanks",
    "thank",
    "you",
    "good",
    "morning",
    "afternoon",
    "evening",
    "ok",
    "okay",
    "please",
    "there",
    "cheers",
    "bye",
    "dra",
    "test",
];

const PRONOUNS: &[&str] = &[
    "it", "its", "they", "them", "their", "this", "these", "those", "he", "she", "him", "her",
    "his",
];

/// Words that carry no subject of their own.
const FILLER: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "do", "does", "did", "what", "which", "who", "how",
    "why", "when", "where", "a", "an", "the", "of", "for", "to", "in", "on", "and", "or", "with",
    "about", "can", "could", "should", "would", "will", "has", "have", "had", "me", "tell", "us",
    "we", "our", "i", "my", "you", "your", "any", "there", "much", "many", "still", "really",
    "now", "today", "please", "so", "that",
];

/// The words of a text, lowercased (letters, digits, `-` and `'`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .map(|w| w.trim_matches(['-', '\'']).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `question` names something to research. `subject` is the
/// entity the flags named or the question's first proper name.
pub fn unclear(question: &str, subject: Option<&str>) -> Option<Unclear> {
    let ws = words(question);
    if !ws.is_empty() && ws.iter().all(|w| GREETINGS.contains(&w.as_str())) {
        return Some(Unclear::Greeting);
    }
    // Chinese and Japanese are written without spaces: a question of a
    // few characters is a whole question, never a reason to ask.
    let cjk_chars = question
        .chars()
        .filter(|c| crate::answer::cjk::is_cjk(*c))
        .count();
    if cjk_chars >= 4 {
        return None;
    }
    if ws.len() <= 1 {
        let word = question
            .split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
            .find(|w| !w.is_empty())
            .unwrap_or("");
        return Some(Unclear::OneWord(word.to_string()));
    }
    let subject = subject.map(str::trim).filter(|s| !s.is_empty());
    if classify(question) == QuestionKind::Comparison {
        let items = comparison_items(question);
        let named = items
            .iter()
            .filter(|i| {
                words(i)
                    .iter()
                    .any(|w| !PRONOUNS.contains(&w.as_str()) && !FILLER.contains(&w.as_str()))
            })
            .count();
        if named < 2 && subject.is_none() {
            return Some(Unclear::NoComparands);
        }
        return None;
    }
    if subject.is_some() {
        return None;
    }
    let pronoun = ws.iter().find(|w| PRONOUNS.contains(&w.as_str()))?;
    let substance = ws
        .iter()
        .filter(|w| !PRONOUNS.contains(&w.as_str()) && !FILLER.contains(&w.as_str()))
        .count();
    (substance <= 2).then(|| Unclear::NoSubject(pronoun.clone()))
}

impl Unclear {
    /// The questions to ask the user: specific, one per thing missing.
    pub fn questions(&self) -> Vec<String> {
        const WHAT: &str = "What would you like researched? Name the company, product or topic, and what you want to know about it.";
        vec![match self {
            Unclear::Greeting => WHAT.to_string(),
            Unclear::OneWord(w) if w.is_empty() => WHAT.to_string(),
            Unclear::OneWord(w) => format!(
                "What would you like to know about \u{201c}{w}\u{201d}, and which company, product or topic is it?"
            ),
            Unclear::NoComparands => {
                "What should be compared with what? Name each company or product.".to_string()
            }
            Unclear::NoSubject(p) => {
                format!("Which company or product do you mean by \u{201c}{p}\u{201d}?")
            }
            Unclear::NothingFound(s) => format!(
                "Nothing was found about \u{201c}{s}\u{201d} in the sources. Which company or product do you mean (its full name, and where it is based)?"
            ),
        }]
    }

    /// Whether there is anything at all to research without an answer.
    pub fn researchable(&self) -> bool {
        !matches!(self, Unclear::Greeting) && !matches!(self, Unclear::OneWord(w) if w.is_empty())
    }

    /// What a run that may not ask assumes instead, for the report.
    pub fn assumption(&self) -> String {
        match self {
            Unclear::Greeting => "the request names nothing to research.".to_string(),
            Unclear::OneWord(w) if w.is_empty() => {
                "the request names nothing to research.".to_string()
            }
            Unclear::OneWord(w) => format!(
                "the question is one word; dra did not ask what it means (clarifying is off) and researched what the sources say about \u{201c}{w}\u{201d}."
            ),
            Unclear::NoComparands => "the question does not say what to compare; dra did not ask (clarifying is off) and researched what its words matched in the sources.".to_string(),
            Unclear::NoSubject(p) => format!(
                "the question names no company or product (\u{201c}{p}\u{201d}); dra did not ask (clarifying is off) and researched what its words matched in the sources."
            ),
            Unclear::NothingFound(s) => format!(
                "nothing was found about \u{201c}{s}\u{201d}; dra did not ask which one was meant (clarifying is off)."
            ),
        }
    }
}

/// The question the user meant, from the question asked and the answers
/// to the clarifying questions (empty answers mean "no preference" and
/// change nothing): a pronoun subject is replaced by the answer ("Is it
/// reliable?" + "PadmaPay" -> "Is PadmaPay reliable?"), a greeting or an
/// empty question becomes the answer, one word is joined to it, anything
/// else gets the answer in parentheses.
pub fn fold_answers(question: &str, answers: &[String]) -> String {
    let given: Vec<&str> = answers
        .iter()
        .map(|a| a.trim())
        .filter(|a| !a.is_empty())
        .collect();
    let q = question.trim();
    if given.is_empty() {
        return q.to_string();
    }
    let answer = given.join("; ");
    // An answer that stands in for the subject carries its place as anchors.
    let subject = given
        .iter()
        .map(|a| as_anchored(a))
        .collect::<Vec<_>>()
        .join("; ");
    match unclear(q, None) {
        Some(Unclear::Greeting) => answer,
        Some(Unclear::OneWord(w)) if w.is_empty() => answer,
        Some(Unclear::OneWord(w)) => format!("{w}: {answer}"),
        Some(Unclear::NoSubject(_)) => match replace_pronoun(q, &subject) {
            Some(s) => s,
            None => format!("{q} {subject}"),
        },
        Some(Unclear::NoComparands) => match replace_pronoun(q, &answer) {
            Some(s) => s,
            None => format!("{q} {answer}"),
        },
        _ => format!("{q} ({answer})"),
    }
}

/// An answer naming a subject and where it is ("PadmaPay, Kochi", "Halden
/// Freight, Chennai, India") written the way a question gives a place,
/// "PadmaPay (Kochi)", so the place becomes an anchor of the research.
fn as_anchored(answer: &str) -> String {
    let parts: Vec<&str> = answer.split(',').map(str::trim).collect();
    let capitalised = |p: &str| {
        !p.is_empty()
            && p.split_whitespace()
                .all(|w| w.chars().next().is_some_and(char::is_uppercase))
    };
    if parts.len() >= 2 && parts.len() <= 3 && parts.iter().all(|p| capitalised(p)) {
        format!("{} ({})", parts[0], parts[1..].join(", "))
    } else {
        answer.to_string()
    }
}

/// `text` with its first pronoun (a whole word) replaced by `with`.
fn replace_pronoun(text: &str, with: &str) -> Option<String> {
    let mut start = None;
    let mut bounds = Vec::new();
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let inside = c.is_alphanumeric() || c == '\'';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                bounds.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let (s, e) = bounds
        .into_iter()
        .find(|&(s, e)| PRONOUNS.contains(&text[s..e].to_lowercase().as_str()))?;
    Some(format!("{}{with}{}", &text[..s], &text[e..]))
}

// When no clarifying question may be asked (`--no-clarify`), a question
// with no content word at all (a name, a thing, a topic, once question
// words, pronouns and the verbs of asking are set aside) is not researched:
// whatever a search returned for it would be cited as if it answered it.

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

/// Why a question cannot be researched, with how to fix it: what a run
/// that may not ask says when it stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresearchable {
    pub why: String,
}

/// The question's content words: what it is about.
pub fn content_words(question: &str) -> Vec<&str> {
    text_words(question)
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
pub fn unresearchable(question: &str) -> Option<Unresearchable> {
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
    Some(Unresearchable {
        why: format!(
            "{why}; ask about a named subject, for example: dra ask \"Is Acme Corp (Pune, India) a reliable logistics partner? Check leadership and pricing.\""
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greetings_and_one_words_are_unclear() {
        assert_eq!(unclear("hi", None), Some(Unclear::Greeting));
        assert_eq!(unclear("Hello there!", None), Some(Unclear::Greeting));
        assert_eq!(unclear("x", None), Some(Unclear::OneWord("x".into())));
        assert_eq!(
            unclear("PadmaPay", Some("PadmaPay")),
            Some(Unclear::OneWord("PadmaPay".into()))
        );
        assert_eq!(
            unclear("  ?? ", None),
            Some(Unclear::OneWord(String::new()))
        );
        assert!(!Unclear::Greeting.researchable());
        assert!(Unclear::OneWord("x".into()).researchable());
    }

    #[test]
    fn pronoun_subjects_are_unclear_and_named_ones_are_not() {
        assert_eq!(
            unclear("Is it reliable?", None),
            Some(Unclear::NoSubject("it".into()))
        );
        assert_eq!(
            unclear("What do they charge?", None),
            Some(Unclear::NoSubject("they".into()))
        );
        assert_eq!(unclear("Is PadmaPay reliable?", Some("PadmaPay")), None);
        // No pronoun: a topic question is clear without a proper name.
        assert_eq!(unclear("How do vaccines work?", None), None);
        // Enough substance around the pronoun: clear.
        assert_eq!(
            unclear("Is it true that coffee raises blood pressure?", None),
            None
        );
    }

    #[test]
    fn comparisons_need_two_items() {
        assert_eq!(unclear("Compare them", None), Some(Unclear::NoComparands));
        assert_eq!(unclear("Compare Stripe and Razorpay", None), None);
    }

    #[test]
    fn questions_are_specific() {
        assert_eq!(
            Unclear::NoSubject("it".into()).questions(),
            vec!["Which company or product do you mean by \u{201c}it\u{201d}?"]
        );
        assert!(
            Unclear::NoComparands.questions()[0].starts_with("What should be compared with what?")
        );
        assert!(Unclear::Greeting.questions()[0].starts_with("What would you like researched?"));
    }

    #[test]
    fn answers_fold_into_the_question() {
        let a = |s: &str| vec![s.to_string()];
        assert_eq!(
            fold_answers("Is it reliable?", &a("PadmaPay")),
            "Is PadmaPay reliable?"
        );
        assert_eq!(
            fold_answers("Compare them", &a("Stripe and Razorpay")),
            "Compare Stripe and Razorpay"
        );
        assert_eq!(fold_answers("hi", &a("Who runs Acme?")), "Who runs Acme?");
        assert_eq!(fold_answers("x", &a("its pricing")), "x: its pricing");
        assert_eq!(fold_answers("Is it reliable?", &a("  ")), "Is it reliable?");
        assert_eq!(
            fold_answers("Who runs Acme?", &a("Acme Corp, Ohio")),
            "Who runs Acme? (Acme Corp, Ohio)"
        );
        // A subject and its place: the place is written as the question
        // gives one, so it becomes an anchor.
        assert_eq!(
            fold_answers("Is it reliable?", &a("PadmaPay, Kochi")),
            "Is PadmaPay (Kochi) reliable?"
        );
        assert_eq!(
            fold_answers("Is it reliable?", &a("Halden Freight, Chennai, India")),
            "Is Halden Freight (Chennai, India) reliable?"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_judged_and_folded(
            q in "\\PC{0,80}|([İıßΣ\u{301}\u{202e}]|it |them |hi |compare | and |\\?|x){0,12}",
            a in "\\PC{0,30}",
        ) {
            if let Some(u) = unclear(&q, None) {
                proptest::prop_assert!(!u.questions().is_empty());
                proptest::prop_assert!(!u.assumption().is_empty());
            }
            let folded = fold_answers(&q, std::slice::from_ref(&a));
            if !a.trim().is_empty() {
                // Word for word, or as a subject with its place ("X (Y)").
                proptest::prop_assert!(
                    folded.contains(a.trim()) || folded.contains(&as_anchored(a.trim()))
                );
            } else {
                proptest::prop_assert_eq!(folded, q.trim());
            }
        }
    }
}

#[cfg(test)]
mod unresearchable_tests {
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
