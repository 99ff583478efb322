//! The vote: which value the sources give for a question.
//!
//! Every sentence read is weighed by how much of the question it covers:
//! the question's terms, each weighted by how rare it is among the
//! sentences read (a term every passage shares, the topic, says little; the
//! terms that single out the asked fact say much), found in the sentence
//! (in full) or beside it, in its neighbours or the page title (in half).
//! Spans of the expected type in a sentence are candidates, weighted by
//! that coverage (squared: a sentence about the question counts far more
//! than one that shares a word) and by their shape. A value counts once
//! per independent source, at its best; the values of one source that
//! agree meet, and the answer is the value with the most support. When the
//! best sentence for it covers too little of the question, the sources do
//! not say.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use rust_stemmers::{Algorithm, Stemmer};

use super::spans::{Key, Span, SpanContext, spans};
use super::{AnswerType, cjk, mention, release};
use crate::document::PREDECESSOR_WORDS;

/// A share of the question's weighted terms that a sentence must cover,
/// with its neighbours, for its value to answer the question.
pub const MIN_COVERAGE: f64 = 0.5;

/// Sentences an answer in sentences keeps (the parts of a question asking
/// two things can sit in one source).
pub const COVER: usize = 4;

/// One source's text, split into sentences by the caller.
#[derive(Debug, Clone)]
pub struct Passage<'a> {
    /// The independent source it belongs to: copies of one text share it.
    pub origin: usize,
    pub title: &'a str,
    pub sentences: Vec<&'a str>,
    /// The year the page was published or last updated, when it says:
    /// what its sentences naming no year of their own are as of.
    pub dated: Option<u32>,
}

/// One sentence supporting a value.
#[derive(Debug, Clone)]
pub struct Support {
    pub origin: usize,
    /// Index of the passage and of the sentence in it.
    pub passage: usize,
    pub sentence: usize,
    pub coverage: f64,
    pub weight: f64,
    pub span: Span,
}

/// A value and what supports it.
#[derive(Debug, Clone)]
pub struct Ballot {
    /// The value as the best-supported fullest spelling writes it.
    pub value: String,
    pub key: Key,
    pub score: f64,
    /// Supports, best first, at most one per origin.
    pub supports: Vec<Support>,
}

impl Ballot {
    /// How many independent sources state this value.
    pub fn sources(&self) -> usize {
        self.supports
            .iter()
            .map(|s| s.origin)
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// The best coverage among the supporting sentences.
    pub fn coverage(&self) -> f64 {
        self.supports.iter().map(|s| s.coverage).fold(0.0, f64::max)
    }
}

/// The answer the sources give.
#[derive(Debug, Clone)]
pub struct Voted {
    pub answer_type: AnswerType,
    /// The values, best first.
    pub ballots: Vec<Ballot>,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    /// A value of the expected type, stated in sentences about the question.
    Answered(Voted),
    /// For an answer that is a sentence (explanations, lists, CJK): up to
    /// [`COVER`] sentences (passage, sentence, coverage) that together
    /// cover the question (see [`covering`]).
    Sentences(Vec<(usize, usize, f64)>),
    /// Nothing read covers the question: the sources do not say. The best
    /// coverage seen is kept for the record.
    NotStated { best_coverage: f64 },
}

/// The question's terms, weighted by rarity among the sentences read. The
/// words of a name in the question ("Assassin's Creed Valhalla") are one
/// term, present when any of them is: sources call a thing by part of its
/// name ("Valhalla").
pub struct Terms {
    weights: HashMap<String, f64>,
    /// The names of the question, as the terms of their words.
    groups: Vec<Vec<String>>,
    /// Every term of a name (they count through their name, not alone).
    grouped: BTreeSet<String>,
    total: f64,
}

/// The names of a question: runs of capitalised words after its first
/// word, joined by "of" and "the" ("Breath of the Wild").
fn question_names(question: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let tokens: Vec<&str> = question.split_whitespace().collect();
    for (i, raw) in tokens.iter().enumerate() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let cap = i > 0 && w.chars().next().is_some_and(char::is_uppercase);
        let joiner = !run.is_empty() && matches!(w, "of" | "the" | "de" | "and");
        if cap || joiner {
            run.push(w);
        }
        let ends = !(cap || joiner) || raw.ends_with([',', ':', ';', '?', '.']);
        if ends && !run.is_empty() {
            while run
                .last()
                .is_some_and(|l| matches!(*l, "of" | "the" | "de" | "and"))
            {
                run.pop();
            }
            if !run.is_empty() {
                out.push(run.join(" "));
            }
            run.clear();
        }
    }
    if !run.is_empty() {
        out.push(run.join(" "));
    }
    if out.is_empty() {
        out.extend(lowercase_subject(&tokens));
    }
    out
}

/// The subject of a question typed in lowercase ("when was xenoblade
/// chronicles 2 released"): the words between "when/where was" and the
/// passive that ends it, letters only, articles dropped, when there are two
/// or more.
fn lowercase_subject(tokens: &[&str]) -> Option<String> {
    let words: Vec<&str> = tokens
        .iter()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let opens = matches!(
        words.first().map(|w| w.to_lowercase()).as_deref(),
        Some("when" | "where")
    ) && matches!(
        words.get(1).copied(),
        Some("was" | "is" | "were" | "are" | "did" | "does" | "will")
    );
    // "When was X released": a passive ending the question.
    let passive = words
        .last()
        .is_some_and(|w| w.ends_with("ed") || *w == "born");
    if !opens || !passive || words.len() < 4 {
        return None;
    }
    let subject: Vec<&str> = words[2..words.len() - 1]
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "a" | "an"))
        .filter(|w| !w.is_empty() && w.chars().all(char::is_alphabetic))
        .collect();
    (subject.len() >= 2).then(|| subject.join(" "))
}

fn stemmer() -> Stemmer {
    Stemmer::create(Algorithm::English)
}

/// Words too common to say what a question asks.
fn is_stop(w: &str) -> bool {
    const STOP: &[&str] = &[
        "the", "a", "an", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with", "from",
        "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "has", "have",
        "had", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "that",
        "this", "these", "those", "it", "its", "as", "about", "into", "than", "then", "there",
        "their", "his", "her", "they", "he", "she", "we", "you", "i", "me", "my", "our", "your",
        "can", "could", "will", "would", "should", "may", "might", "must", "s", "much", "many",
        "tell", "please", "name", "list", "give",
    ];
    STOP.contains(&w)
}

/// Irregular English forms and agent nouns, read as their verb: "led"
/// answers "who leads", "the winner" answers "who won".
fn base_form(w: &str) -> &str {
    const FORMS: &[(&str, &str)] = &[
        ("led", "lead"),
        ("leader", "lead"),
        ("won", "win"),
        ("winner", "win"),
        ("winners", "win"),
        ("held", "hold"),
        ("made", "make"),
        ("maker", "make"),
        ("took", "take"),
        ("taken", "take"),
        ("gave", "give"),
        ("given", "give"),
        ("sold", "sell"),
        ("seller", "sell"),
        ("bought", "buy"),
        ("buyer", "buy"),
        ("paid", "pay"),
        ("ran", "run"),
        ("began", "begin"),
        ("begun", "begin"),
        ("became", "become"),
        ("went", "go"),
        ("gone", "go"),
        ("came", "come"),
        ("wrote", "write"),
        ("written", "write"),
        ("writer", "write"),
        ("found", "find"),
        ("founder", "found"),
        ("built", "build"),
        ("left", "leave"),
        ("met", "meet"),
        ("chose", "choose"),
        ("chosen", "choose"),
        ("spent", "spend"),
        ("rose", "rise"),
        ("risen", "rise"),
        ("fell", "fall"),
        ("fallen", "fall"),
        ("grew", "grow"),
        ("grown", "grow"),
        ("brought", "bring"),
        ("told", "tell"),
        ("said", "say"),
        ("lost", "lose"),
        ("loser", "lose"),
        ("struck", "strike"),
        ("drew", "draw"),
        ("drove", "drive"),
        ("driver", "drive"),
        ("flew", "fly"),
        ("threw", "throw"),
        ("stood", "stand"),
        ("sent", "send"),
        ("kept", "keep"),
        ("owner", "own"),
        ("beaten", "beat"),
        ("sang", "sing"),
        ("sung", "sing"),
        ("singer", "sing"),
        ("directed", "direct"),
        ("director", "direct"),
        ("hosted", "host"),
        ("acquisition", "acquir"),
        ("movie", "film"),
        ("movies", "film"),
        ("films", "film"),
        ("purchase", "buy"),
        ("purchased", "buy"),
    ];
    // Ordinals are their number: "the eleventh season" is "Season 11".
    const ORDINALS: &[&str] = &[
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
    ];
    const NUMBERS: &[&str] = &[
        "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
        "17", "18", "19", "20",
    ];
    if let Some(i) = ORDINALS.iter().position(|o| *o == w) {
        return NUMBERS[i];
    }
    if let Some(n) = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| w.strip_suffix(s))
        && !n.is_empty()
        && n.chars().all(|c| c.is_ascii_digit())
    {
        return n;
    }
    FORMS.iter().find(|(f, _)| *f == w).map_or(w, |(_, b)| b)
}

/// The content terms of a text: stemmed words (not stop words) and, for
/// CJK text, character bigrams that carry content.
pub fn terms_of(text: &str) -> BTreeSet<String> {
    let st = stemmer();
    // Latin words and numbers inside CJK text ("2021年", "GDP增长") count
    // as words of their own.
    // An identifier ("shared_buffers") is one term, kept whole: its parts
    // are other words ("shared hash table", "buffer pool").
    let mut out: BTreeSet<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_') || cjk::is_cjk(c))
        .map(|w| w.trim_matches('_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !is_stop(w))
        .map(|w| {
            if w.contains('_') {
                w
            } else {
                st.stem(base_form(&w)).into_owned()
            }
        })
        .collect();
    out.extend(
        cjk::bigrams(&cjk::without_question_words(text))
            .into_iter()
            .filter(|b| !cjk::is_function_bigram(b)),
    );
    out
}

/// A common word of the question that no sentence read uses ("funding"
/// beside "raised a Series A round of $12 million") is the asker's
/// vocabulary, not the sources': at the rarest weight it would outweigh
/// every word the sources share with the question. It weighs as the mean
/// of the words they do use. Only for a measured value (an amount, a
/// date, a version), whose kind already narrows the answer: for a name the
/// unheard word is the relation asked ("Who maintains X" over pages that
/// never say who maintains it), and the sources do not say. Names and
/// numbers keep their weight: a name or a year no source mentions is what
/// tells that nothing read is about the question.
fn unheard_words_weigh_as_the_rest(
    weights: &mut HashMap<String, f64>,
    df: &HashMap<&str, usize>,
    question: &str,
) {
    let named: BTreeSet<String> = question_names(question)
        .iter()
        .flat_map(|n| terms_of(n))
        .collect();
    let heard: Vec<f64> = weights
        .iter()
        .filter(|(t, _)| df.get(t.as_str()).copied().unwrap_or(0) > 0)
        .map(|(_, w)| *w)
        .collect();
    if heard.is_empty() {
        return;
    }
    let mean = heard.iter().sum::<f64>() / heard.len() as f64;
    for (t, w) in weights.iter_mut() {
        let unheard = df.get(t.as_str()).copied().unwrap_or(0) == 0;
        let common = !named.contains(t)
            && !t.chars().any(|c| c.is_ascii_digit())
            && !is_identifier(t)
            && !t.chars().any(cjk::is_cjk);
        if unheard && common {
            *w = w.min(mean);
        }
    }
}

impl Terms {
    /// Weights for the terms of `question` over the sentences read; for a
    /// question asking a measured value (`measured`), its common words no
    /// source uses weigh as the rest ([`unheard_words_weigh_as_the_rest`]).
    fn new(question: &str, bags: &Bags, measured: bool) -> Self {
        let q = terms_of(question);
        let mut df: HashMap<&str, usize> = q.iter().map(|t| (t.as_str(), 0)).collect();
        let mut n = 0usize;
        for st in bags.sentences.iter().flatten() {
            n += 1;
            for t in &q {
                if has_term(st, t) {
                    *df.entry(t.as_str()).or_default() += 1;
                }
            }
        }
        // A character pair no sentence has spans two words of the question
        // ("港和" in "香港和澳门"), and so does one rarer than the pairs on
        // both sides of it: artefacts of segmenting, not terms.
        let seams = cjk::seams(question, &|b| df.get(b).copied());
        let mut weights: HashMap<String, f64> = q
            .iter()
            .filter(|t| !(t.chars().any(cjk::is_cjk) && df.get(t.as_str()) == Some(&0)))
            .filter(|t| !seams.contains(t))
            .map(|t| {
                let d = df.get(t.as_str()).copied().unwrap_or(0) as f64;
                (t.clone(), (1.0 + (n as f64 + 1.0) / (d + 1.0)).ln())
            })
            .collect();
        if measured {
            unheard_words_weigh_as_the_rest(&mut weights, &df, question);
        }
        let groups: Vec<Vec<String>> = question_names(question)
            .iter()
            .map(|n| {
                terms_of(n)
                    .into_iter()
                    .filter(|t| weights.contains_key(t))
                    .collect::<Vec<_>>()
            })
            .filter(|g| g.len() > 1)
            .collect();
        let grouped = groups.iter().flatten().cloned().collect();
        let mut t = Self {
            weights,
            groups,
            grouped,
            total: 0.0,
        };
        t.total = t.credit(&|_| 1.0);
        t
    }

    /// The weight earned, each term credited by `found` (1 in the sentence,
    /// 0.5 beside it, 0 absent); a name earns its heaviest word's weight
    /// at its best-found word.
    fn credit(&self, found: &dyn Fn(&str) -> f64) -> f64 {
        let singles: f64 = self
            .weights
            .iter()
            .filter(|(t, _)| !self.grouped.contains(t.as_str()))
            .map(|(t, w)| w * found(t))
            .sum();
        let names: f64 = self
            .groups
            .iter()
            .map(|g| {
                let w = g.iter().map(|t| self.weights[t]).fold(0.0, f64::max);
                w * g.iter().map(|t| found(t)).fold(0.0, f64::max)
            })
            .sum();
        singles + names
    }

    /// The share of the question's weight a sentence covers: terms in it in
    /// full, terms only in its context (neighbours, title) in half.
    pub fn coverage(&self, sentence: &BTreeSet<String>, context: &BTreeSet<String>) -> f64 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let found = |t: &str| {
            if has_term(sentence, t) {
                1.0
            } else if has_term(context, t) {
                0.5
            } else {
                0.0
            }
        };
        self.credit(&found) / self.total
    }

    /// The terms of the question's names.
    fn name_terms(&self) -> impl Iterator<Item = &String> {
        self.groups.iter().flatten()
    }
}

/// The shortest stem that stands for the longer words it begins: a word
/// and its derivations ("presid" of "president" and "presidenti" of
/// "presidential", "champion" and "championship") are one term.
const SHARED_STEM: usize = 5;

/// Whether a bag of terms has `t`, or a derivation of it: a Latin term that
/// begins with it, or that it begins with, at least [`SHARED_STEM`] long.
fn has_term(bag: &BTreeSet<String>, t: &str) -> bool {
    if bag.contains(t) {
        return true;
    }
    if t.len() < SHARED_STEM || !t.chars().all(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let longer = bag
        .range::<str, _>((std::ops::Bound::Excluded(t), std::ops::Bound::Unbounded))
        .next()
        .is_some_and(|s| s.starts_with(t));
    longer || (SHARED_STEM..t.len()).any(|k| bag.contains(&t[..k]))
}

/// Words that tell of one event: a sentence with any of them tells of it
/// ("beat" and "champion" of a win, "launched" of a release).
const EVENT_WORDS: &[&[&str]] = &[
    &[
        "win",
        "won",
        "winner",
        "wins",
        "champion",
        "championship",
        "title",
        "victory",
        "beat",
        "beats",
        "defeat",
        "defeated",
        "claim",
        "claimed",
        "clinch",
        "clinched",
        "triumph",
        "gold",
        "elect",
        "elected",
        "laureate",
        "award",
        "awarded",
        "chose",
        "chosen",
        "vote",
        "voted",
    ],
    &[
        "release",
        "released",
        "launch",
        "launched",
        "debut",
        "debuted",
        "available",
        "arrive",
        "arrived",
        "out",
        "ship",
        "shipped",
        "premiere",
        "premiered",
    ],
    &[
        "acquire",
        "acquired",
        "acquisition",
        "buy",
        "bought",
        "purchase",
        "purchased",
        "takeover",
    ],
    &[
        "found",
        "founded",
        "establish",
        "established",
        "create",
        "created",
        "start",
        "started",
    ],
    &[
        "lead", "leads", "led", "leader", "ceo", "head", "heads", "run", "runs", "chief",
    ],
    &["die", "died", "death", "dead"],
    &["born", "birth"],
    &["host", "hosted", "held", "hold", "venue", "stadium"],
    &["direct", "directed", "director"],
];

/// The terms of the words that say which of a thing's values the
/// question asks ("the *default* value", "the *maximum* size").
fn qualifier_terms(question: &str) -> BTreeSet<String> {
    question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| super::kind::is_setting_qualifier(w))
        .flat_map(|w| terms_of(&w))
        .collect()
}

/// Words of [`EVENT_WORDS`] that name a thing or a state, not the act:
/// "gold medals" or "the title" do not say who won.
const EVENT_NOUNS: &[&str] = &[
    "winner",
    "champion",
    "championship",
    "title",
    "victory",
    "gold",
    "laureate",
    "award",
    "vote",
    "acquisition",
    "takeover",
    "leader",
    "ceo",
    "head",
    "chief",
    "death",
    "dead",
    "birth",
    "venue",
    "stadium",
    "director",
    "available",
    "out",
];

/// The event a question asks about.
struct Event {
    /// The question's own verb, as a term ("won").
    asked: String,
    /// Every word of its event, as terms: a sentence with none of them
    /// tells of something else.
    terms: BTreeSet<String>,
    /// The verbs of its event, as terms: a sentence with one of them
    /// ("Voters *chose* X", "X *defeated* Y") states the act the question
    /// names in other words.
    verbs: BTreeSet<String>,
}

/// The event a question asks about: the verb after its question word
/// ("who won", "which country won"), or the last word of a "when was X
/// released" question, widened to the words of its event.
fn event_terms(question: &str) -> Option<Event> {
    let words: Vec<String> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let wh = words
        .iter()
        .position(|w| matches!(w.as_str(), "who" | "which" | "what" | "when" | "where"))?;
    let aux = |w: &str| {
        matches!(
            w,
            "is" | "was"
                | "are"
                | "were"
                | "did"
                | "does"
                | "do"
                | "has"
                | "had"
                | "have"
                | "will"
                | "the"
                | "a"
                | "an"
        )
    };
    let verb = match words[wh].as_str() {
        // "When was X released", "Where was X held": the last word.
        "when" | "where" => words.last().filter(|w| !aux(w)).cloned(),
        // "Who won", "Which country won", "What company acquired".
        _ => words[wh + 1..]
            .iter()
            .take(3)
            .find(|w| {
                !aux(w)
                    && (w.ends_with("ed") || EVENT_WORDS.iter().any(|g| g.contains(&w.as_str())))
            })
            .cloned(),
    }?;
    let st = stemmer();
    let term = |w: &str| st.stem(base_form(w)).into_owned();
    let asked = term(&verb);
    let mut terms: BTreeSet<String> = BTreeSet::new();
    let mut verbs: BTreeSet<String> = BTreeSet::new();
    for group in EVENT_WORDS.iter().filter(|g| g.contains(&verb.as_str())) {
        terms.extend(group.iter().map(|w| term(w)));
        verbs.extend(
            group
                .iter()
                .filter(|w| !EVENT_NOUNS.contains(w))
                .map(|w| term(w)),
        );
    }
    terms.insert(asked.clone());
    Some(Event {
        asked,
        terms,
        verbs,
    })
}

/// Whether a unit of text is a heading: a few words with no sentence's
/// end (a section's title, a definition list's term).
fn is_heading(s: &str) -> bool {
    let n = s.split_whitespace().count();
    (1..=HEADING_WORDS).contains(&n)
        && s.chars().any(char::is_alphabetic)
        // Chinese and Japanese text has no spaces to count words by.
        && !s.chars().any(cjk::is_cjk)
        && (!s.ends_with(['.', '!', '?', ':', ';', ',', '…', '"', '\u{201D}'])
            || s.ends_with('.') && s.len() > 1 && is_title_case(&s[..s.len() - 1]))
        // A table's row (its cells are parted by bars) is no heading.
        && !s.contains('|')
}

/// Whether every word of a text is capitalised, but for the small words
/// a title leaves in lowercase: a title ("Maxwell Award Recipients."),
/// even with a stop after it as a snippet writes it.
fn is_title_case(s: &str) -> bool {
    let capitalised = s
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    // A cut snippet ("Oct 29, 2019 ...") is no title.
    !s.ends_with('.')
        && capitalised >= 2
        && s.split_whitespace().all(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.is_empty()
                || matches!(
                    w,
                    "of" | "the" | "and" | "for" | "in" | "on" | "to" | "a" | "an"
                )
                || w.chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
}

/// The share of its weight a value keeps in a list of dated entries
/// ("2020 - DeVonta Smith · 2019 - Joe Burrow") when its entry names
/// another year than the one asked.
const OTHER_ENTRY: f64 = 0.3;

/// How much of its weight a span keeps for where it sits in its sentence:
/// in a list of dated entries parted by "·", ";" or "|", a value counts
/// in full in the entry of a year asked, little in another's.
fn entry_factor(asked: &BTreeSet<u32>, sentence: &str, start: usize) -> f64 {
    if asked.is_empty() {
        return 1.0;
    }
    let mut entries: Vec<(usize, &str)> = Vec::new();
    let mut from = 0;
    for (i, c) in sentence.char_indices() {
        if matches!(c, '·' | ';' | '|') {
            entries.push((from, &sentence[from..i]));
            from = i + c.len_utf8();
        }
    }
    entries.push((from, &sentence[from..]));
    let dated = entries
        .iter()
        .filter(|(_, e)| !years_in(e).is_empty())
        .count();
    if dated < 2 {
        return 1.0;
    }
    let own = entries
        .iter()
        .rev()
        .find(|(at, _)| *at <= start)
        .map_or("", |(_, e)| e);
    if years_in(own).is_disjoint(asked) {
        OTHER_ENTRY
    } else {
        1.0
    }
}

/// Whether a term is an identifier: words joined by underscores
/// (`shared_buffers`), as reference documentation names its entries.
pub fn is_identifier(term: &str) -> bool {
    let t = term.trim_matches('_');
    t.contains('_') && t.chars().any(char::is_alphabetic)
}

/// The most words of a heading.
const HEADING_WORDS: usize = 10;

/// The years a text names.
fn years_in(text: &str) -> BTreeSet<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|d| d.len() == 4)
        .filter_map(|d| d.parse().ok())
        .filter(|&y| super::spans::is_year(y))
        .collect()
}

/// Whether a sentence tells when a source was read, not when anything
/// happened ("Retrieved January 8, 2017.", a citation's access date).
fn is_access_date(sentence: &str) -> bool {
    let first = sentence
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    matches!(first.as_str(), "retrieved" | "accessed" | "archived")
}

/// Whether sentence `si` is the title of a cited work in a list of
/// references ("\"Manti Te'o wins ... awards\". Hawaii News Now.
/// Retrieved January 8, 2017."), naming no year asked: the entry's date is
/// when the work was read, so it tells nothing of the year asked.
fn undated_reference(asked: &BTreeSet<u32>, p: &Passage<'_>, si: usize) -> bool {
    !asked.is_empty()
        && asked.is_disjoint(&years_in(p.sentences[si]))
        && (si + 1..si + 3)
            .filter_map(|j| p.sentences.get(j))
            .any(|s| is_access_date(s))
}

/// Whether a sentence names years, none of them one the question asks about.
fn other_year(asked: &BTreeSet<u32>, sentence: &str) -> bool {
    let named = years_in(sentence);
    !asked.is_empty() && !named.is_empty() && asked.is_disjoint(&named)
}

/// Whether sentence `si` names no year while the sentences beside it name
/// years, none of them one asked: it tells of their time ("2018 Maxwell
/// Award winner Tua Tagovailoa. The Alabama quarterback took home the award
/// last season").
fn undated_among_others(asked: &BTreeSet<u32>, p: &Passage<'_>, si: usize) -> bool {
    if asked.is_empty() || !years_in(p.sentences[si]).is_empty() {
        return false;
    }
    let beside: Vec<&str> = [si.wrapping_sub(1), si + 1]
        .iter()
        .filter_map(|&j| p.sentences.get(j).copied())
        .collect();
    other_year(asked, &beside.join(" "))
}

/// Whether a sentence opens with a pronoun or a bare "The game"-style
/// reference to something named before.
fn opens_with_pronoun(s: &str) -> bool {
    let mut w = s.split_whitespace();
    let first = w.next().unwrap_or("").to_lowercase();
    let second = w.next().unwrap_or("");
    matches!(
        first.as_str(),
        "it" | "he" | "she" | "they" | "its" | "his" | "her" | "their" | "this" | "these"
    ) || first == "the" && second.chars().next().is_some_and(char::is_lowercase)
}

/// Whether a sentence reads as a question (a FAQ heading), not a statement.
fn is_question(s: &str) -> bool {
    s.trim_end().ends_with(['?', '？'])
}

/// The terms of every sentence read and of every page's title, worked out
/// once for all the questions a vote weighs.
struct Bags {
    sentences: Vec<Vec<BTreeSet<String>>>,
    titles: Vec<BTreeSet<String>>,
}

impl Bags {
    fn of(passages: &[Passage<'_>]) -> Self {
        Self {
            sentences: passages
                .iter()
                .map(|p| p.sentences.iter().map(|s| terms_of(s)).collect())
                .collect(),
            titles: passages.iter().map(|p| terms_of(p.title)).collect(),
        }
    }

    /// Whether sentence `si` of passage `pi`, or its page's title, has a
    /// term or a derivation of it.
    fn has(&self, pi: usize, si: usize, t: &str) -> bool {
        has_term(&self.sentences[pi][si], t) || has_term(&self.titles[pi], t)
    }
}

/// Every sentence's coverage of the question (passage, sentence,
/// coverage), sentences that are questions themselves left out.
fn coverages(
    question: &str,
    terms: &Terms,
    passages: &[Passage<'_>],
    read: &Bags,
) -> Vec<(usize, usize, f64)> {
    let years_asked = years_in(question);
    let event = event_terms(question);
    let names = question_names(question);
    let qualifiers = qualifier_terms(question);
    let identifiers: BTreeSet<String> = terms_of(question)
        .into_iter()
        .filter(|t| is_identifier(t))
        .collect();
    // The release asked about ("SQLite 3.35.0"), its subject being the
    // question's first name.
    let subject = names.first().map_or("", String::as_str);
    let releases = release::Asked::new(question, subject);
    let mut scored = Vec::new();
    for (pi, p) in passages.iter().enumerate() {
        let bags = &read.sentences[pi];
        let title_release = releases.scope(p.title);
        // A passage that never names what the question names speaks of
        // what it was found for when it refers back to it ("The game was
        // released ...") in any sentence, not only its first.
        let unnamed = !terms
            .name_terms()
            .any(|t| read.titles[pi].contains(t) || bags.iter().any(|b| b.contains(t)));
        // A passage that names the question's subject only as part of
        // another name ("Ocarina of Time 3D") is about that other thing.
        let named: Vec<&str> = std::iter::once(p.title)
            .chain(p.sentences.iter().copied())
            .collect();
        let another = mention::names_only_another(question, &names, &named);
        // The heading a sentence sits under (a section's title, the term
        // of a definition list's entry: "shared_buffers (integer)") says
        // what it is about.
        let mut heading: Option<usize> = None;
        for (si, s) in p.sentences.iter().enumerate() {
            let mut context = read.titles[pi].clone();
            for j in [si.wrapping_sub(1), si + 1] {
                if let Some(b) = bags.get(j) {
                    context.extend(b.iter().cloned());
                }
            }
            // A sentence under the entry of another identifier
            // ("wal_buffers (integer)") that names the one asked ("1/32nd
            // of shared_buffers") states a value of that other entry.
            let other_entry = heading.is_some_and(|h| {
                !identifiers.is_empty()
                    && identifiers.is_disjoint(&bags[h])
                    && bags[h].iter().any(|t| is_identifier(t))
            });
            // What a sentence's heading names, the sentence speaks of.
            let mut own = match heading {
                Some(h) => Cow::Owned(bags[si].union(&bags[h]).cloned().collect()),
                None => Cow::Borrowed(&bags[si]),
            };
            // A verb of the asked event states the asked act ("Voters chose
            // X" of "who won").
            if let Some(e) = &event
                && !own.contains(&e.asked)
                && !e.verbs.is_disjoint(&bags[si])
            {
                own.to_mut().insert(e.asked.clone());
            }
            if is_heading(s) {
                heading = Some(si);
            }
            // A passage that opens with "It was released..." speaks of what
            // it was found for: the question's names are its context.
            if (si == 0 || unnamed) && !another && opens_with_pronoun(s) {
                context.extend(terms.name_terms().cloned());
            }
            let mut coverage = terms.coverage(&own, &context);
            // A sentence about another year than the one asked ("the 2018
            // winner" for 2019) is about another event.
            if other_year(&years_asked, s) || undated_among_others(&years_asked, p, si) {
                coverage *= 0.5;
            }
            if another || other_entry {
                coverage *= 0.5;
            }
            if undated_reference(&years_asked, p, si) {
                coverage *= 0.5;
            }
            // A sentence about another release ("SQLite version 3.14.1
            // adds ..."), or on another release's page and not naming the
            // asked one, tells of that other release.
            let sentence_release = releases.scope(s);
            if sentence_release == release::Scope::Other
                || (title_release == release::Scope::Other
                    && sentence_release != release::Scope::Asked)
            {
                coverage *= 0.5;
            }
            // The event asked about ("who *won*", "when was it *released*")
            // must be what the sentence tells, or what is beside it.
            if let Some(event) = &event
                && !event
                    .terms
                    .iter()
                    .any(|t| bags[si].contains(t) || context.contains(t))
            {
                coverage *= 0.6;
            }
            // "The default value": a sentence that does not say "default"
            // states some other value of it (a suggested one, a limit).
            if qualifiers.iter().any(|t| !bags[si].contains(t)) {
                coverage *= 0.6;
            }
            if !is_question(s) {
                scored.push((pi, si, coverage));
            }
        }
    }
    scored
}

/// The values the passages give for `question` of type `ty`.
pub fn vote(question: &str, ty: AnswerType, passages: &[Passage<'_>]) -> Outcome {
    let read = Bags::of(passages);
    let measured = matches!(
        ty,
        AnswerType::Money
            | AnswerType::Percent
            | AnswerType::Quantity
            | AnswerType::Date
            | AnswerType::Year
            | AnswerType::Version
    );
    let terms = Terms::new(question, &read, measured);
    let texts: Vec<&str> = passages
        .iter()
        .flat_map(|p| p.sentences.iter().copied())
        .collect();
    let cx = SpanContext::new(question, &texts);
    let mut scored = coverages(question, &terms, passages, &read);
    let years_asked = years_in(question);
    let present = asks_present(question);
    let subject = Subject::of(question);
    let mut candidates: Vec<Support> = Vec::new();
    if ty.is_span() {
        for &(pi, si, coverage) in scored.iter().filter(|s| s.2 > 0.0) {
            let p = &passages[pi];
            for span in spans(p.sentences[si], ty, &cx) {
                // The page's own date at the head of a snippet is a dateline.
                let dateline = si == 0 && span.start == 0 && matches!(span.key, Key::Date { .. });
                let weight = coverage
                    * coverage
                    * span.shape
                    * entry_factor(&years_asked, p.sentences[si], span.start)
                    * predecessor_factor(ty, p.sentences[si], span.start)
                    * ended_factor(present, ty, p.sentences[si])
                    * other_subject_factor(ty, p.sentences[si], (span.start, span.end), &subject)
                    * if dateline { 0.3 } else { 1.0 };
                candidates.push(Support {
                    origin: p.origin,
                    passage: pi,
                    sentence: si,
                    coverage,
                    weight,
                    span,
                });
            }
        }
    }
    if ty.is_name() && years_asked.is_empty() {
        prefer_latest(&mut candidates, passages, present);
    }
    scored.sort_by(|a, b| b.2.total_cmp(&a.2));
    let best_coverage = scored.first().map_or(0.0, |s| s.2);
    if !ty.is_span() {
        return if best_coverage >= MIN_COVERAGE {
            Outcome::Sentences(covering(&terms, passages, &scored, COVER))
        } else {
            Outcome::NotStated { best_coverage }
        };
    }
    let ballots = tally(candidates);
    match ballots.first() {
        Some(b) if b.coverage() >= MIN_COVERAGE => Outcome::Answered(Voted {
            answer_type: ty,
            ballots,
        }),
        _ => Outcome::NotStated { best_coverage },
    }
}

/// Words that mark a sentence as describing a state that has since ended
/// (plain past tense does not: "uptime over the last 12 months was 99.96%").
pub const ENDED_MARKERS: &[&str] = &[
    " until ",
    " formerly ",
    " former ",
    " previously ",
    " used to ",
    " stepped down",
    " no longer ",
    " served as ",
];

/// How much a name counts, for a question about the present ("who is"),
/// in a sentence about a state that has since ended ("served as chief
/// executive from 2019 until 2026").
const ENDED: f64 = 0.5;

/// Whether a question asks about the present: "who is", "who leads", "the
/// current", not "who was" or "who founded".
fn asks_present(question: &str) -> bool {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let past = words.iter().any(|w| {
        matches!(w.as_str(), "was" | "were" | "did" | "had") || (w.ends_with("ed") && w.len() > 4)
    });
    !past
        && words.iter().any(|w| {
            matches!(
                w.as_str(),
                "is" | "are" | "current" | "currently" | "now" | "today"
            )
        })
}

/// [`ENDED`] for a name in a sentence that tells of an ended state, when
/// the question asks about the present; 1 otherwise.
fn ended_factor(present: bool, ty: AnswerType, sentence: &str) -> f64 {
    let padded = format!(" {} ", sentence.to_lowercase());
    if present && ty.is_name() && ENDED_MARKERS.iter().any(|m| padded.contains(m)) {
        ENDED
    } else {
        1.0
    }
}

/// How much a name counts that its sentence gives a role of another
/// subject: "said Senthil Kumar, chief executive officer of Vanchi
/// Logistics" for a question about PadmaPay's chief executive.
const OTHER_SUBJECT: f64 = 0.3;

/// What a question is about, for [`other_subject_factor`]: the words of
/// its names and all its words, lowercase, read once per vote.
struct Subject {
    names: BTreeSet<String>,
    words: BTreeSet<String>,
}

impl Subject {
    fn of(question: &str) -> Subject {
        Subject {
            names: question_names(question)
                .iter()
                .flat_map(|n| n.split_whitespace())
                .map(str::to_lowercase)
                .collect(),
            words: question
                .to_lowercase()
                .split_whitespace()
                .map(String::from)
                .collect(),
        }
    }

    /// Whether `words` name something else than the question's names.
    fn other(&self, words: &[String]) -> bool {
        !words.is_empty() && words.iter().all(|w| !self.names.contains(w))
    }
}

/// A text's words, lowercase, without the punctuation around them.
fn bare_words(text: &str) -> impl DoubleEndedIterator<Item = String> + '_ {
    text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    })
}

/// [`OTHER_SUBJECT`] for a name the sentence places under another subject
/// than the question's: a person with an apposition that ends "of" a name
/// sharing no word with the question's names ("X, chief executive officer
/// of Vanchi Logistics"), or that other subject itself, right after a word
/// of the question and "of" ("chief executive officer of Vanchi
/// Logistics"); 1 otherwise.
fn other_subject_factor(
    ty: AnswerType,
    sentence: &str,
    (start, end): (usize, usize),
    subject: &Subject,
) -> f64 {
    if !ty.is_name() || subject.names.is_empty() {
        return 1.0;
    }
    // The subject itself: "<a word of the question> of <span>".
    let before: Vec<String> = bare_words(sentence.get(..start).unwrap_or(""))
        .rev()
        .take(2)
        .collect();
    let role_of = before.first().is_some_and(|w| w == "of")
        && before
            .get(1)
            .is_some_and(|w| w.len() > 3 && subject.words.contains(w));
    let span: Vec<String> = bare_words(sentence.get(start..end).unwrap_or("")).collect();
    if role_of && subject.other(&span) {
        return OTHER_SUBJECT;
    }
    // A person given a role of another subject.
    let Some(apposition) = sentence.get(end..).and_then(|r| r.strip_prefix(", ")) else {
        return 1.0;
    };
    let apposition = apposition
        .split([',', ';', '.', ')', '(', '"'])
        .next()
        .unwrap_or("");
    let Some((_, other)) = apposition.rsplit_once(" of ") else {
        return 1.0;
    };
    let other: Vec<String> = other
        .split_whitespace()
        .skip_while(|w| *w == "the")
        .take_while(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(str::to_lowercase)
        .collect();
    if subject.other(&other) {
        OTHER_SUBJECT
    } else {
        1.0
    }
}

/// Whether the name at bytes `start..end` of `sentence` is placed under
/// another subject than the question's ([`OTHER_SUBJECT`]).
pub fn names_another_subject(question: &str, sentence: &str, start: usize, end: usize) -> bool {
    other_subject_factor(
        AnswerType::Person,
        sentence,
        (start, end),
        &Subject::of(question),
    ) < 1.0
}

/// Whether a sentence names who held a role before ("replacing co-founder
/// Arjun Pillai", "the former chief executive").
pub fn names_a_predecessor(sentence: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| PREDECESSOR_WORDS.contains(&w.to_lowercase().as_str()))
}

/// How much a name counts that the sentence calls the predecessor: the
/// sentence is about the role, but the name is who held it before.
const PREDECESSOR: f64 = 0.3;

/// [`PREDECESSOR`] for a person or organisation named within a few words
/// after a predecessor word; 1 otherwise.
fn predecessor_factor(ty: AnswerType, sentence: &str, start: usize) -> f64 {
    if !ty.is_name() {
        return 1.0;
    }
    if crate::document::follows_predecessor_word(sentence.get(..start).unwrap_or("")) {
        PREDECESSOR
    } else {
        1.0
    }
}

/// How much a name stated in a sentence about an earlier event counts,
/// beside one as well covered about a later one: older values are history
/// ("bought by Marvin Davis in 1981" beside "Disney purchased it in 2019").
const HISTORY: f64 = 0.7;

/// How much an older statement counts beside a later one, as well covered,
/// for a question about the present ("who is the chief executive"): what
/// a 2023 page says is who held the role in 2023; the latest statement
/// says who holds it now, however many older pages repeat the former.
const SUPERSEDED: f64 = 0.25;

/// Counts names in dated statements less when another statement as well
/// covered is of a later year, for a question that asks no year. A
/// sentence is as of the latest year it names, or else its page's year.
fn prefer_latest(candidates: &mut [Support], passages: &[Passage<'_>], present: bool) {
    let top = candidates.iter().map(|c| c.coverage).fold(0.0, f64::max);
    let close = |c: &Support| c.coverage >= 0.9 * top;
    let year = |c: &Support| {
        let p = &passages[c.passage];
        years_in(p.sentences[c.sentence])
            .last()
            .copied()
            .or(p.dated)
    };
    let Some(latest) = candidates
        .iter()
        .filter(|c| close(c))
        .filter_map(year)
        .max()
    else {
        return;
    };
    let older = if present { SUPERSEDED } else { HISTORY };
    for c in candidates.iter_mut() {
        if close(c) && year(c).is_some_and(|y| y < latest) {
            c.weight *= older;
        }
    }
}

/// How much less a sentence counts for a part of a question when it holds
/// no value of the kind the part asks for.
const UNTYPED: f64 = 0.6;

/// How much less a sentence counts for a part of a question when nothing
/// in it or its page's title singles that part out from the others.
const NOT_ITS_OWN: f64 = 0.5;

/// Sentences kept for each part of a question asking several things.
const PER_PART: usize = 2;

/// The share of a part's weighted terms a sentence must cover to answer
/// it. A part is a short question: a word it misses weighs more than one a
/// whole question misses, so the bar is lower than [`MIN_COVERAGE`]; the
/// question as a whole must still be covered that well somewhere.
const PART_COVERAGE: f64 = 0.35;

/// A question in a script without capitals (Chinese, Japanese), answered
/// in sentences: each thing it asks ([`cjk::sub_questions`]) by the
/// sentences most about it, those holding a value of the kind it asks for
/// (a date, an amount, a percentage) first. Nothing about any part: the
/// sources do not say.
pub fn vote_parts(question: &str, passages: &[Passage<'_>]) -> Outcome {
    let parts = cjk::sub_questions(question);
    let texts: Vec<&str> = passages
        .iter()
        .flat_map(|p| p.sentences.iter().copied())
        .collect();
    let read = Bags::of(passages);
    // Only names are found by what the question says; the values a part
    // weighs (dates, amounts) are not, so one context serves every part.
    let cx = SpanContext::new(question, &texts);
    let mut out: Vec<(usize, usize, f64)> = Vec::new();
    // The question as a whole is covered, or one of its parts is.
    let mut best_coverage: f64 = if parts.len() > 1 {
        let whole = Terms::new(question, &read, false);
        coverages(question, &whole, passages, &read)
            .iter()
            .map(|s| s.2)
            .fold(0.0, f64::max)
    } else {
        0.0
    };
    let part_terms: Vec<BTreeSet<String>> = parts.iter().map(|p| terms_of(p)).collect();
    for (i, part) in parts.iter().enumerate() {
        let terms = Terms::new(part, &read, false);
        let ty = super::expected(part);
        let mut scored = coverages(part, &terms, passages, &read);
        // Whether the part is covered at all is read before what singles it
        // out and the kind of value weigh in.
        best_coverage = scored.iter().map(|s| s.2).fold(best_coverage, f64::max);
        // What singles this part out from the others ("甲城" of "甲城的
        // GDP" beside "乙镇的GDP") should be in the sentence or its page's
        // title.
        let own: Vec<&String> = part_terms[i]
            .iter()
            .filter(|t| terms.weights.contains_key(*t))
            .filter(|t| {
                !part_terms
                    .iter()
                    .enumerate()
                    .any(|(j, o)| j != i && o.contains(*t))
            })
            .filter(|t| {
                read.sentences
                    .iter()
                    .enumerate()
                    .any(|(pi, ss)| (0..ss.len()).any(|si| read.has(pi, si, t)))
            })
            .collect();
        if !own.is_empty() {
            for s in &mut scored {
                if !own.iter().any(|t| read.has(s.0, s.1, t)) {
                    s.2 *= NOT_ITS_OWN;
                }
            }
        }
        for s in &mut scored {
            if !holds_value(passages[s.0].sentences[s.1], s.1 == 0, ty, &cx) {
                s.2 *= UNTYPED;
            }
        }
        scored.sort_by(|a, b| b.2.total_cmp(&a.2));
        let picked = if parts.len() == 1 {
            covering(&terms, passages, &scored, COVER)
        } else {
            best_of_part(&scored, &out)
        };
        for s in picked {
            if !out.iter().any(|o| (o.0, o.1) == (s.0, s.1)) {
                out.push(s);
            }
        }
    }
    if out.is_empty() || best_coverage < MIN_COVERAGE {
        Outcome::NotStated { best_coverage }
    } else {
        Outcome::Sentences(out)
    }
}

/// The best sentence for one part of a question, and a second when it is
/// nearly as good; none that another part took.
fn best_of_part(
    scored: &[(usize, usize, f64)],
    taken: &[(usize, usize, f64)],
) -> Vec<(usize, usize, f64)> {
    let mut out: Vec<(usize, usize, f64)> = Vec::new();
    for &s in scored.iter().filter(|s| s.2 >= PART_COVERAGE) {
        if out.len() >= PER_PART {
            break;
        }
        let fresh = !taken.iter().any(|t| (t.0, t.1) == (s.0, s.1));
        let close = out.first().is_none_or(|b| s.2 >= 0.8 * b.2);
        if fresh && close {
            out.push(s);
        }
    }
    out
}

/// Whether a sentence holds a value of the kind `ty` (a snippet's dateline
/// is no date of what it tells). Names have no capitals to be found by in
/// these scripts: any sentence may hold one.
fn holds_value(sentence: &str, first: bool, ty: AnswerType, cx: &SpanContext) -> bool {
    use super::spans::numbers;
    match ty {
        AnswerType::Date | AnswerType::Year | AnswerType::Percent | AnswerType::Version => {
            spans(sentence, ty, cx)
                .iter()
                .any(|s| !(first && s.start == 0 && matches!(s.key, Key::Date { .. })))
        }
        // An amount is often written without its currency ("4.7亿").
        AnswerType::Money => numbers(sentence).iter().any(|n| {
            matches!(&n.key, Key::Number { unit, .. } if unit != "%")
                && (n.text.contains(['万', '亿', '元']) || !spans(sentence, ty, cx).is_empty())
        }),
        AnswerType::Quantity => !spans(sentence, ty, cx).is_empty(),
        _ => true,
    }
}

/// Up to `k` of the `scored` sentences (passage, sentence, coverage) that
/// together cover most of the question, one per origin: each next one is
/// the sentence adding the most weight of terms not covered yet (a question
/// asking two things is answered by two sentences, not two of one kind).
fn covering(
    terms: &Terms,
    passages: &[Passage<'_>],
    scored: &[(usize, usize, f64)],
    k: usize,
) -> Vec<(usize, usize, f64)> {
    let scored: Vec<(usize, usize, f64)> = scored
        .iter()
        .copied()
        .filter(|s| s.2 >= MIN_COVERAGE)
        .collect();
    let scored = &scored[..];
    let bags: Vec<BTreeSet<String>> = scored
        .iter()
        .map(|(p, s, _)| terms_of(passages[*p].sentences[*s]))
        .collect();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let mut origins = BTreeSet::new();
    let mut out = Vec::new();
    while out.len() < k {
        let gain = |i: usize| -> f64 {
            terms
                .weights
                .iter()
                .filter(|(t, _)| bags[i].contains(*t) && !covered.contains(*t))
                .map(|(_, w)| w)
                .sum::<f64>()
                / terms.total.max(f64::MIN_POSITIVE)
        };
        // A second sentence of one source is taken only for what it adds.
        let best = (0..scored.len())
            .filter(|&i| {
                !out.iter()
                    .any(|o: &(usize, usize, f64)| o.0 == scored[i].0 && o.1 == scored[i].1)
            })
            .filter(|&i| !origins.contains(&passages[scored[i].0].origin) || gain(i) > 0.0)
            .map(|i| (i, gain(i) + 0.25 * scored[i].2))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, g)) = best else { break };
        if g <= 0.0 || (!out.is_empty() && gain(i) == 0.0) {
            break;
        }
        origins.insert(passages[scored[i].0].origin);
        covered.extend(bags[i].iter().cloned());
        out.push(scored[i]);
    }
    // Then the sentences most about the question, while there is room
    // (two parts of an answer can share every word of the question).
    for s in scored.iter().filter(|s| s.2 >= MIN_COVERAGE) {
        if out.len() >= k {
            break;
        }
        if !out.iter().any(|o| o.0 == s.0 && o.1 == s.1) {
            out.push(*s);
        }
    }
    out
}

fn digits(s: &str) -> usize {
    s.chars().filter(char::is_ascii_digit).count()
}

/// Candidates grouped into values: each joins the first value it agrees
/// with (strongest first); an origin counts once per value, at its best.
fn tally(mut candidates: Vec<Support>) -> Vec<Ballot> {
    candidates.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    let mut ballots: Vec<Ballot> = Vec::new();
    // Per ballot, every spelling met.
    let mut spellings: Vec<Vec<Spelling>> = Vec::new();
    for c in candidates {
        match ballots.iter().position(|b| b.key.same_value(&c.span.key)) {
            Some(i) => {
                let b = &mut ballots[i];
                note_spelling(&mut spellings[i], &c);
                if !b.supports.iter().any(|s| s.origin == c.origin) {
                    b.score += c.weight;
                    b.supports.push(c);
                }
            }
            None => {
                let mut met = Vec::new();
                note_spelling(&mut met, &c);
                spellings.push(met);
                ballots.push(Ballot {
                    value: c.span.text.clone(),
                    key: c.span.key.clone(),
                    score: c.weight,
                    supports: vec![c],
                });
            }
        }
    }
    for (b, met) in ballots.iter_mut().zip(&spellings) {
        if let Some((key, text)) = fullest(met, b.supports[0].weight) {
            b.key = key;
            b.value = text;
        }
    }
    ballots.sort_by(|a, b| b.score.total_cmp(&a.score));
    ballots
}

/// One way a value is written, by whom and at its strongest.
struct Spelling {
    key: Key,
    text: String,
    origins: BTreeSet<usize>,
    best: f64,
}

fn note_spelling(met: &mut Vec<Spelling>, c: &Support) {
    match met.iter_mut().find(|m| m.text == c.span.text) {
        Some(m) => {
            m.origins.insert(c.origin);
            m.best = m.best.max(c.weight);
        }
        None => met.push(Spelling {
            key: c.span.key.clone(),
            text: c.span.text.clone(),
            origins: BTreeSet::from([c.origin]),
            best: c.weight,
        }),
    }
}

/// The spelling that names a value: the fullest ("Simona Halep", "May 15,
/// 2012", "$6.04 billion") of those not far weaker than the best support,
/// then the one most sources write, then the longer (a source that drops a
/// letter is one source).
fn fullest(met: &[Spelling], best: f64) -> Option<(Key, String)> {
    let rank = |m: &Spelling| {
        (
            m.key.detail(),
            digits(&m.text),
            m.origins.len(),
            m.text.chars().count(),
        )
    };
    met.iter()
        .filter(|m| m.best >= 0.25 * best)
        .max_by(|a, b| rank(a).cmp(&rank(b)))
        .map(|m| (m.key.clone(), m.text.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passages<'a>(texts: &'a [&'a str]) -> Vec<Passage<'a>> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Passage {
                origin: i,
                title: "",
                sentences: crate::evidence::sentences::split(t),
                dated: None,
            })
            .collect()
    }

    fn answer(q: &str, texts: &[&str]) -> Option<String> {
        match vote(q, super::super::expected(q), &passages(texts)) {
            Outcome::Answered(v) => Some(v.ballots[0].value.clone()),
            _ => None,
        }
    }

    #[test]
    fn another_verb_of_the_asked_event_states_it() {
        // "Chose" of an election is "won": the name it states answers.
        let texts = [
            "The 2031 Zembla presidential election drew a record turnout.",
            "Voters in Zembla chose Arvo Pell to be their next president.",
        ];
        assert_eq!(
            answer("Who won the Zembla Presidential Election 2031?", &texts).as_deref(),
            Some("Arvo Pell")
        );
    }

    #[test]
    fn a_generation_suffix_is_the_same_person_and_not_a_fuller_name() {
        let texts = [
            "Pell Jr. was elected the 46th president of Zembla in 2031.",
            "Arvo Pell wins election to be the 46th Zembla president in 2031.",
        ];
        let q = "Who won the Zembla Presidential Election 2031?";
        match vote(q, super::super::expected(q), &passages(&texts)) {
            Outcome::Answered(v) => {
                assert_eq!(v.ballots[0].value, "Arvo Pell");
                assert_eq!(v.ballots[0].sources(), 2);
            }
            o => panic!("not answered: {o:?}"),
        }
    }

    #[test]
    fn the_one_replaced_is_not_who_holds_the_role() {
        let texts = [
            "Arvo Pell will become chief executive officer of Kelpbase on 1 March 2031, replacing co-founder Marla Venn.",
            "Kelpbase co-founder Marla Venn built the company's first product.",
        ];
        assert_eq!(
            answer("Who is the chief executive officer of Kelpbase?", &texts).as_deref(),
            Some("Arvo Pell")
        );
    }

    #[test]
    fn who_holds_a_role_now_is_not_who_held_it_until_a_date() {
        let texts = [
            "Marla Venn co-founded Kelpbase and served as its chief executive officer from 2019 until 28 February 2031.",
            "Kelpbase named Arvo Pell chief executive officer in March 2031.",
        ];
        assert_eq!(
            answer("Who is the chief executive officer of Kelpbase?", &texts).as_deref(),
            Some("Arvo Pell")
        );
        assert!(asks_present("Who is the CEO of Kelpbase?"));
        assert!(!asks_present("Who was the CEO of Kelpbase in 2020?"));
        assert!(!asks_present("Who founded Kelpbase?"));
    }

    #[test]
    fn the_latest_statement_says_who_holds_a_role_now() {
        let texts = [
            "Marla Venn is the chief executive officer of Kelpbase.",
            "The prize went to Marla Venn, chief executive officer of Kelpbase.",
            "Marla Venn, chief executive officer of Kelpbase, opened the fair.",
            "Arvo Pell has been chief executive officer of Kelpbase since March 2031.",
        ];
        let mut read = passages(&texts);
        for (p, year) in read.iter_mut().zip([2028, 2029, 2029, 2031]) {
            p.dated = Some(year);
        }
        let best = |q: &str, read: &[Passage<'_>]| match vote(q, super::super::expected(q), read) {
            Outcome::Answered(v) => v.ballots[0].value.clone(),
            o => panic!("not answered: {o:?}"),
        };
        // Three older pages repeat who held the role; the latest says who
        // holds it now.
        assert_eq!(
            best("Who is the chief executive officer of Kelpbase?", &read),
            "Arvo Pell"
        );
        // Undated pages are counted as before: three sources against one.
        for p in read.iter_mut() {
            p.dated = None;
        }
        assert_eq!(
            best("Who is the chief executive officer of Kelpbase?", &read),
            "Marla Venn"
        );
    }

    #[test]
    fn a_role_of_another_subject_does_not_answer() {
        let texts = [
            "\"Moving to Kelpbase was easy,\" said Marla Venn, chief executive officer of Orbit Freight.",
            "Kelpbase is led by chief executive officer Arvo Pell.",
        ];
        assert_eq!(
            answer("Who is the chief executive officer of Kelpbase?", &texts).as_deref(),
            Some("Arvo Pell")
        );
        let q = "Who is the chief executive officer of Kelpbase?";
        let s = "Marla Venn, chief executive officer of Kelpbase, spoke.";
        assert!(!names_another_subject(q, s, 0, 10));
        let s = "Marla Venn, chief executive officer of Orbit Freight, spoke.";
        assert!(names_another_subject(q, s, 0, 10));
        // The other subject is not an answer either.
        assert!(names_another_subject(q, s, 39, 52));
    }

    #[test]
    fn an_earlier_event_is_history_beside_a_later_one() {
        let texts = [
            "In 1981 Orbit Pictures was bought by Marla Venn, who in turn sold it in 1985.",
            "Kelpbase Studios purchased Orbit Pictures on March 20, 2029.",
        ];
        assert_eq!(
            answer("Who acquired Orbit Pictures?", &texts).as_deref(),
            Some("Kelpbase Studios")
        );
    }

    #[test]
    fn the_sentence_about_the_asked_fact_wins_over_the_one_repeating_words() {
        let texts = [
            "Quarterly results: Orbitex posts record net income of $438 million, revenue surges by 74%.",
            "That compares with $10.4 billion in revenue in Q1 2021 for Orbitex.",
            "Orbitex reported revenue of $10.39 billion for the first quarter of 2021.",
        ];
        // Both spellings of the revenue are one value, named by the more
        // precise one.
        assert_eq!(
            answer("What was Orbitex's revenue in Q1 2021?", &texts).as_deref(),
            Some("$10.39 billion")
        );
    }

    #[test]
    fn a_value_counts_in_the_entry_of_the_year_asked() {
        // Invented names: a list of dated entries under a title, and a
        // sentence naming no year beside one about another year.
        let texts = [
            "Harwick Medal Recipients. Since 1950 · 2032 - Ilse Varga, Dunmore College · 2031 - Tomas Brell, Kestrel University · 2030 - Ana Quill, ...",
            "Oct 2, 2031 ... Leading the field is 2030 Harwick Medal winner Ana Quill. The Kestrel forward took home the medal last season.",
        ];
        assert_eq!(
            answer("Who is the Harwick Medal winner in 2031?", &texts).as_deref(),
            Some("Tomas Brell")
        );
        // Without the list, the sentences about the 2030 winner do not
        // answer for 2031.
        assert_eq!(
            answer("Who is the Harwick Medal winner in 2031?", &texts[1..]),
            None
        );
    }

    #[test]
    fn a_cited_title_tells_no_year_of_its_own() {
        // Invented names: an entry of a list of references, whose only date
        // is when the cited work was read.
        let q = "Who is the Harwick Medal winner in 2031?";
        let cited = "\"Tomas Brell wins Harwick, Kestrel player-of-the-year medals\". Dunmore News. Retrieved January 8, 2031.";
        assert_eq!(answer(q, &[cited]), None);
        let dated = "Tomas Brell wins the 2031 Harwick and Kestrel medals. Dunmore News.";
        assert_eq!(answer(q, &[dated]).as_deref(), Some("Tomas Brell"));
    }

    #[test]
    fn a_title_is_a_heading_even_with_a_stop() {
        assert!(is_heading("Harwick Medal Recipients."));
        assert!(is_heading("Harwick Medal Recipients"));
        assert!(!is_heading("Oct 2, 2031 ..."));
        assert!(!is_heading("The medal went to her."));
    }

    #[test]
    fn a_lowercase_question_names_its_subject() {
        assert_eq!(
            question_names("when was zenthra tales 2 released?"),
            vec!["zenthra tales".to_string()]
        );
        assert!(question_names("when does the cache flush pages?").is_empty());
        // The capitalised form of this case is the test below; typed in
        // lowercase, the subject is still what "The game" refers back to.
        let texts = [
            "The game was announced during the Orbit Direct presentation on January 12, 2017. The game was released on December 1, 2017 in Japan, North America and Europe.",
            "Zenthra Tales 2 is a 2017 role-playing game published for the Orbit console.",
        ];
        assert_eq!(
            answer("when was zenthra tales 2 released?", &texts).as_deref(),
            Some("December 1, 2017")
        );
    }

    #[test]
    fn an_ordinal_is_its_number() {
        let texts = [
            "Orbit Tales is a drama series that began in 2020.",
            "The eleventh and final season of Orbit Tales premiered on August 22, 2031, and concluded a year later.",
        ];
        assert_eq!(
            answer(
                "What is the premiere date of Orbit Tales Season 11?",
                &texts
            )
            .as_deref(),
            Some("August 22, 2031")
        );
    }

    #[test]
    fn a_passage_that_refers_back_speaks_of_what_it_was_found_for() {
        // A snippet found for the question never names the game: its second
        // sentence's "The game" is the game asked about.
        let texts = [
            "The game was announced during the Orbit Direct presentation on January 12, 2017. The game was released on December 1, 2017 in Japan, North America and Europe.",
            "Zenthra Tales 2 is a 2017 role-playing game published for the Orbit console.",
        ];
        assert_eq!(
            answer("When was Zenthra Tales 2 released?", &texts).as_deref(),
            Some("December 1, 2017")
        );
    }

    #[test]
    fn agreeing_sources_are_counted_once_each() {
        let texts = [
            "Jane Doe was appointed chief executive of Acme Widgets in 2024.",
            "Acme Widgets is led by chief executive Jane Doe.",
            "Acme Widgets charges INR 400 per widget.",
        ];
        let v = vote(
            "Who leads Acme Widgets?",
            AnswerType::Person,
            &passages(&texts),
        );
        let Outcome::Answered(v) = v else {
            panic!("{v:?}")
        };
        assert_eq!(v.ballots[0].value, "Jane Doe");
        assert_eq!(v.ballots[0].sources(), 2);
    }

    #[test]
    fn sources_about_the_topic_that_do_not_state_the_fact_do_not_answer() {
        let texts = [
            "The winner of the 2031 Harwick Medal will be announced at the awards show.",
            "Nominations for the Harwick Medal open in March.",
        ];
        assert_eq!(answer("Who won the 2031 Harwick Medal?", &texts), None);
    }

    #[test]
    fn dates_vote_across_spellings() {
        let texts = [
            "The bridge opened to traffic on 3 March 2029.",
            "It opened on March 3, 2029, after delays.",
            "Construction began on 1 June 2025.",
        ];
        let a = answer("When did the bridge open?", &texts);
        assert!(a.is_some_and(|a| a.contains("3") && a.contains("2029")));
    }
    #[test]
    fn a_name_spelt_a_letter_apart_is_one_value_in_its_fuller_spelling() {
        let texts = [
            "The film was directed by Jonas Kettleby in Oslo.",
            "From director Jonas Kettlby comes a quiet film.",
            "Jonas Kettleby directed the film for a small studio.",
        ];
        let v = vote(
            "Who directed the film?",
            AnswerType::Person,
            &passages(&texts),
        );
        let Outcome::Answered(v) = v else {
            panic!("{v:?}")
        };
        assert_eq!(v.ballots[0].value, "Jonas Kettleby");
        assert_eq!(v.ballots[0].sources(), 3);
    }

    #[test]
    fn a_word_and_its_derivations_are_one_term() {
        let bag = terms_of("She won the presidential election.");
        for t in terms_of("Who is the president?") {
            if t.starts_with("presid") {
                assert!(has_term(&bag, &t), "{t} in {bag:?}");
            }
        }
        // Short stems are not stretched: "war" is not "ward".
        assert!(!has_term(&terms_of("a ward"), "war"));
    }

    #[test]
    fn a_chinese_question_asking_two_things_is_answered_for_each() {
        let texts = [
            "甲城2031年本地生产总值同比上升6.4%，经济韧性强。",
            "2031年，乙镇经济增长18%，旅游业复苏。",
            "甲城和乙镇都是旅游城市。",
        ];
        let Outcome::Sentences(got) = vote_parts("2031年甲城和乙镇的经济增长率", &passages(&texts))
        else {
            panic!("no sentences")
        };
        let quoted: Vec<usize> = got.iter().map(|s| s.0).collect();
        assert!(quoted.contains(&0) && quoted.contains(&1), "{got:?}");
    }

    #[test]
    fn a_definition_lists_term_is_what_its_sentences_speak_of() {
        // A setting documented as a definition list: its term on a line of
        // its own, its default two sentences below, a suggested value in
        // the next paragraph.
        let page = "Memory\n\
            tide_buffers (integer)\n\
            Sets how much memory the tide cache holds. The default is typically 64 megabytes (64MB), but might be less on small machines. It must be at least 128 kilobytes.\n\
            For a dedicated server, a reasonable starting value for tide_buffers is 20% of the memory.\n\
            ebb_mode (enum)\n\
            Chooses how ebbs are flushed. The default is lazy.\n\
            flood_limit (integer)\n\
            Caps the flood queue. The default is 16.\n\
            drift_delay (integer)\n\
            Sets the drift delay. The default is 200 ms.";
        let other = "The shared hash table and the buffer pool are locked while a value is read.";
        assert_eq!(
            answer("What is the default value of tide_buffers?", &[page, other]).as_deref(),
            Some("64 megabytes")
        );
    }

    #[test]
    fn a_sentence_under_another_entry_speaks_of_that_entry() {
        // Another setting's default is stated in terms of the asked one.
        let own = "Memory\n\
            tide_buffers (integer)\n\
            Sets how much memory the tide cache holds. The default is typically 64 megabytes (64MB).";
        let other = "Log\n\
            ebb_buffers (integer)\n\
            Sets the ebb log's memory. The default setting of 12 megabytes is about a third of tide_buffers.";
        assert_eq!(
            answer("What is the default value of tide_buffers?", &[other, own]).as_deref(),
            Some("64 megabytes")
        );
    }

    #[test]
    fn an_identifier_is_one_term() {
        let t = terms_of("the shared_buffers setting");
        assert!(t.contains("shared_buffers"), "{t:?}");
        assert!(!t.contains("share") && !t.contains("buffer"), "{t:?}");
        assert!(is_heading("shared_buffers (integer)"));
        assert!(!is_heading("Sets the amount of memory."));
        assert!(!is_heading("特斯拉全球总交付量为131万辆"));
    }
}
