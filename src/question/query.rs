//! Search queries for an aspect: short and specific (the subject and the
//! aspect's key terms, never the whole question), and a second phrasing
//! in the words the first results used.

use std::collections::HashMap;

use super::text::{has_word, words};

/// Words that carry no search meaning: question words, auxiliaries,
/// pronouns, articles, prepositions, and the planner's own label words.
const QUERY_STOP: &[&str] = &[
    "a",
    "about",
    "after",
    "all",
    "also",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "each",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "me",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "our",
    "ours",
    "say",
    "said",
    "says",
    "she",
    "should",
    "so",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "today",
    "under",
    "up",
    "was",
    "we",
    "were",
    "what",
    "what's",
    "when",
    "where",
    "whether",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "am",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "can't",
    "won't",
    "i'm",
    "i've",
    "i'd",
    "evidence",
    "listed",
    "known",
    "current",
    "currently",
    "please",
    "tell",
];

/// Extra words never taken as vocabulary from pages: common words and page chrome.
const VOCAB_STOP: &[&str] = &[
    "more",
    "most",
    "other",
    "over",
    "only",
    "some",
    "such",
    "very",
    "just",
    "like",
    "make",
    "made",
    "many",
    "much",
    "same",
    "used",
    "uses",
    "using",
    "well",
    "where",
    "while",
    "being",
    "because",
    "through",
    "within",
    "without",
    "across",
    "against",
    "among",
    "during",
    "here",
    "page",
    "click",
    "cookie",
    "cookies",
    "menu",
    "home",
    "share",
    "read",
    "privacy",
    "terms",
    "sign",
    "login",
    "subscribe",
    "according",
    "however",
    "first",
    "second",
    "year",
    "years",
    "time",
    "new",
    "may",
    "one",
    "two",
    "three",
    "part",
    "way",
    "get",
    "got",
    "use",
];

pub(super) fn is_stop(word: &str) -> bool {
    let w = word.to_lowercase();
    QUERY_STOP.contains(&w.as_str())
}

/// The aspect's key terms, in order, without stop words or the subject's words.
/// "How many columns can a table have" asks for a limit: pages state it
/// as a maximum ("Maximum Number Of Columns"), so the query says so.
fn asks_limit(aspect: &str) -> bool {
    let lower = aspect.to_lowercase();
    (lower.starts_with("how many ") || lower.starts_with("how much "))
        && [" can ", " could ", " may "]
            .iter()
            .any(|m| lower.contains(m))
}

fn key_terms<'a>(aspect: &'a str, subject: Option<&str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let limit = asks_limit(aspect);
    for w in words(aspect) {
        if is_stop(w) || subject.is_some_and(|s| has_word(s, w)) {
            continue;
        }
        let w = match w.to_lowercase().as_str() {
            "many" | "much" if limit => "maximum",
            _ => w,
        };
        if !out.iter().any(|o| o.to_lowercase() == w.to_lowercase()) {
            out.push(w);
        }
    }
    out
}

/// Key terms with the words of `topic` moved after the others, each group
/// in its order.
fn topic_last<'a>(terms: Vec<&'a str>, topic: Option<&str>) -> Vec<&'a str> {
    let Some(topic) = topic else {
        return terms;
    };
    let (in_topic, own): (Vec<&str>, Vec<&str>) =
        terms.into_iter().partition(|w| has_word(topic, w));
    own.into_iter().chain(in_topic).collect()
}

/// Key terms in a first query. An aspect's own words come first and the
/// question's context words the planner adds after them: more than six
/// let the context outweigh the aspect (measured with `benches/retrieval`
/// and the gold sets: 8 lost MRR and a curbspec field).
const MAX_TERMS: usize = 6;

/// The first query for an aspect: the subject and at most [`MAX_TERMS`] key terms.
/// A short aspect ("pricing", "licence status") is searched as it is,
/// after the subject. The words of the question's `topic` that a label
/// repeats ("When did version 3 of the CurbSpec open curb data standard
/// take effect") come after the aspect's own ("take effect"), so a long
/// topic never pushes out what the aspect asks.
pub fn search_query(aspect: &str, subject: Option<&str>, topic: Option<&str>) -> String {
    let subject = subject.map(str::trim).filter(|s| !s.is_empty());
    let aspect_t = aspect.split_whitespace().collect::<Vec<_>>().join(" ");
    let mentions_subject = subject.is_some_and(|s| {
        let s = s.to_lowercase();
        aspect_t.to_lowercase().contains(&s)
    });
    let query = if aspect_t.split(' ').count() <= 3 {
        match subject {
            Some(s) if !mentions_subject => format!("{s} {aspect_t}"),
            _ => aspect_t,
        }
    } else {
        let terms = topic_last(key_terms(&aspect_t, subject), topic);
        let terms: Vec<&str> = terms.into_iter().take(MAX_TERMS).collect();
        let mut parts: Vec<&str> = Vec::new();
        if let Some(s) = subject {
            parts.push(s);
        }
        parts.extend(terms);
        if parts.is_empty() {
            aspect_t.split(' ').take(6).collect::<Vec<_>>().join(" ")
        } else {
            parts.join(" ")
        }
    };
    query.trim().to_string()
}

/// A second phrasing of an aspect's query from the vocabulary of what the
/// first results said: the words most frequent in the texts that mention
/// the aspect or the subject, and not in the first query. None when the texts
/// offer no new word.
pub fn refined_query(
    aspect: &str,
    subject: Option<&str>,
    topic: Option<&str>,
    texts: &[&str],
) -> Option<String> {
    let subject = subject.map(str::trim).filter(|s| !s.is_empty());
    let key: Vec<String> = key_terms(aspect, subject)
        .iter()
        .map(|w| w.to_lowercase())
        .collect();
    if key.is_empty() {
        return None;
    }
    let first = search_query(aspect, subject, topic).to_lowercase();
    let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
    let mut order = 0usize;
    // Texts that mention the aspect or the subject; their words count.
    let subject_words: Vec<String> = subject
        .map(|s| words(s).map(str::to_lowercase).collect())
        .unwrap_or_default();
    for text in texts {
        let ws: Vec<String> = words(text).map(str::to_lowercase).collect();
        if !ws
            .iter()
            .any(|w| key.contains(w) || subject_words.contains(w))
        {
            continue;
        }
        for w in ws {
            let alphabetic = w.chars().filter(|c| c.is_alphabetic()).count();
            if alphabetic < 4
                || is_stop(&w)
                || VOCAB_STOP.contains(&w.as_str())
                || key.contains(&w)
                || subject_words.contains(&w)
                || has_word(&first, &w)
            {
                continue;
            }
            order += 1;
            let e = counts.entry(w).or_insert((0, order));
            e.0 += 1;
        }
    }
    let mut ranked: Vec<(String, (usize, usize))> =
        counts.into_iter().filter(|(_, (n, _))| *n >= 2).collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
    let new: Vec<String> = ranked.into_iter().take(3).map(|(w, _)| w).collect();
    if new.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = subject.map(String::from).into_iter().collect();
    parts.extend(key.iter().take(3).cloned());
    parts.extend(new);
    Some(parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_aspects_follow_the_subject() {
        assert_eq!(
            search_query("licence status", Some("PadmaPay"), None),
            "PadmaPay licence status"
        );
        assert_eq!(search_query("pricing", None, None), "pricing");
    }

    #[test]
    fn long_aspects_become_key_terms() {
        let q = search_query(
            "When did version 3 of the Open Transit Feed standard take effect",
            Some("Open Transit Feed"),
            None,
        );
        assert_eq!(q, "Open Transit Feed version 3 standard take effect");
        // A long topic the label repeats comes after what the aspect asks.
        let q = search_query(
            "When did version 3 of the CurbSpec open curb data standard take effect",
            Some("CurbSpec"),
            Some("version 3 of the CurbSpec open curb data standard"),
        );
        assert_eq!(q, "CurbSpec take effect version 3 open curb");
        let q = search_query(
            "What did President Obama say about US gun laws in his BBC interview",
            Some("President Obama"),
            None,
        );
        assert_eq!(q, "President Obama US gun laws BBC interview");
        assert!(q.split_whitespace().count() <= 2 + MAX_TERMS);
    }

    #[test]
    fn how_many_something_can_hold_asks_for_its_maximum() {
        assert_eq!(
            search_query(
                "How many rows can a Tidewell page hold",
                Some("Tidewell"),
                None
            ),
            "Tidewell maximum rows page hold"
        );
        // A count that is no capacity keeps its words.
        assert_eq!(
            search_query(
                "How many cities adopted the Tidewell standard",
                Some("Tidewell"),
                None
            ),
            "Tidewell many cities adopted standard"
        );
    }

    #[test]
    fn obligations_keep_their_must() {
        // "must" is what pages stating an obligation say ("publishers must rename...").
        assert_eq!(
            search_query("What must publishers change", Some("CurbSpec"), None),
            "CurbSpec must publishers change"
        );
    }

    #[test]
    fn the_second_phrasing_uses_the_results_words() {
        let texts = [
            "Reader View strips clutter. The parser, based on Readability, keeps the article. The parser scores paragraphs.",
            "The Readability parser scores paragraphs by text density.",
        ];
        let q = refined_query(
            "How Firefox Reader View works",
            Some("Firefox Reader View"),
            None,
            &texts,
        );
        let q = q.unwrap_or_default();
        assert!(q.starts_with("Firefox Reader View works"), "{q}");
        assert!(q.contains("parser") || q.contains("readability"), "{q}");
        assert_eq!(
            refined_query("pricing", None, None, &["nothing relevant here"]),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn queries_are_short_for_any_input(
            aspect in "\\PC{0,150}|([İßΣ\u{301}\u{5d0} ]|what |how |it |the ){0,40}",
            subject in proptest::option::of("\\PC{0,20}"),
            text in "\\PC{0,200}",
        ) {
            let q = search_query(&aspect, subject.as_deref(), Some(&text));
            let subject_words = subject.as_deref().map(|s| s.split_whitespace().count()).unwrap_or(0);
            proptest::prop_assert!(q.split_whitespace().count() <= subject_words + MAX_TERMS || aspect.split_whitespace().count() <= 3);
            let _ = refined_query(&aspect, subject.as_deref(), Some(&text), &[text.as_str()]);
        }
    }
}
